package wgpu

import (
	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/internal/lockrank"
)

// wgpu-native has one process-wide log callback. softgraph installs it once
// and sends each native line to the logger of the most recently opened Device
// that is still open, at the NativeLog level that Device asked for. Without a
// Device open, native lines are dropped: with softgraph linked in, wgpu-native
// never writes to stderr on its own.
var nativeSinks = struct {
	lockrank.Mutex
	stack []nativeSink
}{Mutex: lockrank.Mutex{Rank: lockrank.Native}}

type nativeSink struct {
	id    uintptr
	log   zerolog.Logger
	level NativeLogLevel
}

func pushNativeSink(id uintptr, log zerolog.Logger, level NativeLogLevel) {
	nativeSinks.Lock()
	defer nativeSinks.Unlock()
	nativeSinks.stack = append(nativeSinks.stack, nativeSink{id: id, log: log.With().Str("component", "wgpu-native").Logger(), level: level})
	installNativeLog(level.native())
}

func popNativeSink(id uintptr) {
	nativeSinks.Lock()
	defer nativeSinks.Unlock()
	s := nativeSinks.stack
	for i := range s {
		if s[i].id == id {
			nativeSinks.stack = append(s[:i:i], s[i+1:]...)
			break
		}
	}
	level := uint32(0)
	if n := len(nativeSinks.stack); n > 0 {
		level = nativeSinks.stack[n-1].level.native()
	}
	installNativeLog(level)
}

// Before any Device is opened, silence cogentcore's stderr callback too.
func init() { installNativeLog(0) }

func nativeLog(level uint32, msg string) {
	nativeSinks.Lock()
	var sink *nativeSink
	if n := len(nativeSinks.stack); n > 0 {
		s := nativeSinks.stack[n-1]
		sink = &s
	}
	nativeSinks.Unlock()
	if sink == nil || level > sink.level.native() {
		return
	}
	var ev *zerolog.Event
	switch level {
	case 1:
		ev = sink.log.Error()
	case 2:
		ev = sink.log.Warn()
	case 3:
		ev = sink.log.Info()
	case 4:
		ev = sink.log.Debug()
	default:
		ev = sink.log.Trace()
	}
	ev.Msg(msg)
}
