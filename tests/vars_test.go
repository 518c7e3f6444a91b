package tests

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// logAtWGSL stores the Var's value at the index the Var names: a graph of
// it, replayed after each SetVar, leaves in out the value every replay saw.
const logAtWGSL = `
struct Entry { idx: u32, val: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> e: Entry;
@compute @workgroup_size(1)
fn main() {
	if (e.idx < arrayLength(&out)) {
		out[e.idx] = e.val;
	}
}
`

// varLog is one stream's Var, its log buffer of n words and a graph of
// `dispatches` launches of logAtWGSL reading the Var.
type varLog struct {
	s   *recorder.Stream
	v   *recorder.Var
	out *recorder.Buffer
	g   *recorder.Graph
	n   int
}

func newVarLog(t *testing.T, d *wgpu.Device, k *wgpu.Kernel, s *recorder.Stream, n, dispatches int) *varLog {
	t.Helper()
	v, err := s.NewVar(gputest.U32(uint32(n), 0, 0, 0)) // an index past the log: stores nothing
	if err != nil {
		t.Fatalf("NewVar: %v", err)
	}
	t.Cleanup(v.Release)
	out := gputest.UploadU32(t, s, make([]uint32, n)...)
	g, err := s.Capture(func() error {
		for range dispatches {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), out, v); err != nil {
				return err
			}
		}
		return nil
	}, recorder.WithoutWarmup())
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	t.Cleanup(g.Release)
	return &varLog{s: s, v: v, out: out, g: g, n: n}
}

// set gives the Var the entry (i, val) and replays the graph once.
func (l *varLog) step(i int, val uint32) error {
	if err := l.s.SetVar(l.v, gputest.U32(uint32(i), val, 0, 0)); err != nil {
		return fmt.Errorf("SetVar(%d): %w", i, err)
	}
	if err := l.g.Replay(); err != nil {
		return fmt.Errorf("Replay after SetVar(%d): %w", i, err)
	}
	return nil
}

func logValue(stream, i int) uint32 { return uint32(stream)<<20 | uint32(i)*7 + 1 }

// TestSetVarAndReplayFromManyStreamsEachReplaySeesItsOwnValue: several
// goroutines, each on a stream of its own, alternate SetVar and Replay
// without a read in between (so values queue behind replays that are not
// yet submitted, under every submission schedule), with a Sync now and
// then; every replay must have seen exactly the value set just before it.
// The Vars of two streams are also bound by a third stream's graph, whose
// replays must see the latest value written. Without it a value lands
// before the replays queued ahead of it, or after the one behind it, and
// the logs differ from the model.
func TestSetVarAndReplayFromManyStreamsEachReplaySeesItsOwnValue(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, logAtWGSL)
	steps := 300
	if testing.Short() {
		steps = 60
	}
	opts := [][]recorder.Option{
		{recorder.WithPreEncode(true), recorder.WithFlushDelay(0)},
		{recorder.WithPreEncode(true)},
		{recorder.WithPreEncode(false), recorder.WithSubmitChunks(1, 2)},
		{recorder.WithPreEncode(true), recorder.WithFlushDelay(time.Hour)},
	}
	logs := make([]*varLog, len(opts))
	for i, o := range opts {
		// A graph of 1 dispatch gets ramps; one of 64 the pre-encoder.
		dispatches := 1
		if i%2 == 1 {
			dispatches = 64
		}
		logs[i] = newVarLog(t, d, k, gputest.Stream(t, d, o...), steps, dispatches)
	}
	var wg sync.WaitGroup
	var errs collect
	for si, l := range logs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range steps {
				if err := l.step(i, logValue(si, i)); err != nil {
					errs.add(fmt.Errorf("stream %d: %w", si, err))
					return
				}
				if i%37 == 36 {
					if err := l.s.Sync(); err != nil {
						errs.add(fmt.Errorf("stream %d: Sync: %w", si, err))
						return
					}
				}
			}
		}()
	}
	waitAll(t, &wg, 2*time.Minute, "SetVar and Replay on four streams")
	errs.report(t)
	for si, l := range logs {
		want := make([]uint32, steps)
		for i := range want {
			want[i] = logValue(si, i)
		}
		gputest.WantEqual(t, fmt.Sprintf("stream %d's log: the value each replay saw", si), want, gputest.ReadU32(t, l.s, l.out))
	}
}

// TestAVarAnotherStreamBindsIsSeenByItsNextReplay: stream b replays a
// graph that reads stream a's Var; each a.SetVar is followed by b's replay
// and b's flush, with nothing submitted on a in between. b's replays must
// see each new value: once another stream binds a Var, its values go to
// the queue at SetVar. Without it b's work, submitted before a's open
// batch, reads the previous value.
func TestAVarAnotherStreamBindsIsSeenByItsNextReplay(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, logAtWGSL)
	a := gputest.Stream(t, d, recorder.WithFlushDelay(time.Hour))
	b := gputest.Stream(t, d, recorder.WithFlushDelay(time.Hour))
	const steps = 24
	v, err := a.NewVar(gputest.U32(steps, 0, 0, 0))
	if err != nil {
		t.Fatalf("NewVar: %v", err)
	}
	defer v.Release()
	out := gputest.UploadU32(t, b, make([]uint32, steps)...)
	g, err := b.Capture(func() error { return b.Launch(k, recorder.Groups(1, 1, 1), out, v) }, recorder.WithoutWarmup())
	if err != nil {
		t.Fatalf("Capture on b with a's Var: %v", err)
	}
	defer g.Release()
	want := make([]uint32, steps)
	for i := range steps {
		want[i] = logValue(1, i)
		if err := a.SetVar(v, gputest.U32(uint32(i), want[i], 0, 0)); err != nil {
			t.Fatalf("SetVar(%d): %v", i, err)
		}
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay(%d): %v", i, err)
		}
		if err := b.Flush(); err != nil {
			t.Fatalf("Flush(%d): %v", i, err)
		}
	}
	gputest.WantEqual(t, "b's log of a's Var", want, gputest.ReadU32(t, b, out))
}

// TestAVarReleasedWithAValueQueuedStillDeliversIt: a Var released right
// after SetVar, before the value's batch is submitted, still gives that
// value to the replay after it (the graph keeps the Var's memory, and the
// queued value keeps it until it is written); later SetVars are refused
// with ErrReleased. Without it the value is lost or lands in memory the
// pool gave to someone else.
func TestAVarReleasedWithAValueQueuedStillDeliversIt(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, logAtWGSL)
	s := gputest.Stream(t, d, recorder.WithFlushDelay(time.Hour))
	l := newVarLog(t, d, k, s, 4, 1)
	if err := l.step(0, 11); err != nil {
		t.Fatal(err)
	}
	if err := s.SetVar(l.v, gputest.U32(1, 22, 0, 0)); err != nil {
		t.Fatalf("SetVar: %v", err)
	}
	l.v.Release()
	// Memory churn: the pool must not hand the Var's page to these.
	for range 8 {
		b, err := s.Alloc(16)
		if err != nil {
			t.Fatalf("Empty: %v", err)
		}
		if err := s.Write(b, 0, gputest.U32(9, 99, 9, 9)); err != nil {
			t.Fatalf("Write: %v", err)
		}
		b.Release()
	}
	if err := l.g.Replay(); err != nil {
		t.Fatalf("Replay after the Var's release: %v", err)
	}
	gputest.WantEqual(t, "the log: the value queued before Release reached the replay", []uint32{11, 22, 0, 0}, gputest.ReadU32(t, s, l.out))
	if err := s.SetVar(l.v, gputest.U32(2, 33, 0, 0)); !errors.Is(err, recorder.ErrReleased) {
		t.Errorf("SetVar of a released Var returned %v; want an error wrapping ErrReleased", err)
	}
}

// TestSetVarRacingCloseEndsEveryCallCleanly: goroutines alternate SetVar
// and Replay while the stream is closed under them: every call returns
// nil or an error wrapping ErrClosed (or ErrReleased for the graph Close
// released), none panics or hangs, and Close returns nil.
func TestSetVarRacingCloseEndsEveryCallCleanly(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, logAtWGSL)
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	for r := range rounds {
		s, err := recorder.New(d, recorder.WithPreEncode(r%2 == 0))
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		l := newVarLog(t, d, k, s, 64, 1+63*(r%3/2))
		var wg sync.WaitGroup
		var errs collect
		ready := make(chan struct{}, 2)
		stop := make(chan struct{})
		for w := range 2 {
			i := 0
			callLoop(&wg, &errs, ready, stop, fmt.Sprintf("round %d worker %d: SetVar+Replay", r, w), func() error {
				i++
				return l.step(i%64, uint32(i))
			}, recorder.ErrClosed, recorder.ErrReleased)
		}
		<-ready
		<-ready
		time.Sleep(time.Duration(r) * time.Millisecond)
		if err := within(t, time.Minute, "Close racing SetVar", s.Close); err != nil {
			t.Errorf("round %d: Close racing SetVar and Replay returned %v", r, err)
		}
		close(stop)
		waitAll(t, &wg, time.Minute, fmt.Sprintf("round %d: SetVar and Replay after Close", r))
		errs.report(t)
	}
}
