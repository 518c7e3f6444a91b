package lifecycle

import (
	"errors"
	"fmt"
)

// State is where a stream sits in the graph-capture lifecycle, and the only
// thing allowed to move it. Capture is a strict NoCapture → Prepare → Capture
// → NoCapture progression driven by Prepare, Begin and End; each rejects an
// out-of-order call, so a capture can never start unprepared and two captures
// can never overlap on one stream.
type State uint8

const (
	// NoCapture: no capture is prepared or recording. Every stream operation
	// executes eagerly.
	NoCapture State = iota
	// Prepare: GraphPrepare has armed the persistent pools for the warmup
	// run; BeginCapture may now open the window. Slices the warmup reserves
	// are retained (priming) until BeginCapture, so the pool ends up owning
	// the capture run's full working set. Operations still execute eagerly.
	Prepare
	// Capture: launches are recorded into a graph instead of executing.
	// softgraph is a software-graph backend, so there is no driver capture to
	// abort: it refuses what it cannot record. A read, sync or profile fails
	// on the spot; a write is rejected lazily, queued as an error that fails
	// EndCapture, since a graph missing an operation is worse than a late
	// diagnostic.
	Capture
)

// String names the state as the seed does ("no_capture", "prepare",
// "capture"); an out-of-range value prints as "State(n)".
func (s State) String() string {
	switch s {
	case NoCapture:
		return "no_capture"
	case Prepare:
		return "prepare"
	case Capture:
		return "capture"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// IsRecording reports whether launches are being recorded into a graph right
// now: the window during which a host sync is refused.
func (s State) IsRecording() bool { return s == Capture }

// CacheMode is how a stream's metadata (params) cache behaves.
type CacheMode uint8

const (
	// CacheNormal: bounded; least-recently-used entries are evicted.
	CacheNormal CacheMode = iota
	// CacheCapture: every entry is cached and none is evicted, so a recorded
	// launch can never lose its metadata uniform out from under it.
	CacheCapture
)

// String returns "normal" or "capture".
func (m CacheMode) String() string {
	switch m {
	case CacheNormal:
		return "normal"
	case CacheCapture:
		return "capture"
	}
	return fmt.Sprintf("CacheMode(%d)", uint8(m))
}

// CacheMode is the metadata cache mode for this lifecycle position. Both while
// a graph is being prepared (the warmup primes the cache) and while it is
// recorded, the cache runs in CacheCapture, so the capture window finds every
// entry warm and drops none from under a recorded launch.
func (s State) CacheMode() CacheMode {
	if s == Prepare || s == Capture {
		return CacheCapture
	}
	return CacheNormal
}

// ErrGraphState is wrapped by every refusal of an operation because of where
// the stream is in the capture lifecycle: an out-of-order transition, an
// operation Admit refuses (a read, sync or profile while recording), or a
// write rejected lazily inside the window.
var ErrGraphState = errors.New("graph state")

// StateError is a refused lifecycle operation. It wraps ErrGraphState, so
// callers can test with errors.Is(err, ErrGraphState) or take the details
// with errors.As.
type StateError struct {
	// Op is the refused operation, named as Op.String spells it:
	// "GraphPrepare", "BeginCapture", "EndCapture", or a stream operation
	// such as "Read".
	Op string
	// From is the state the stream was in; a refusal leaves it there.
	From State
	// Reason says why, for people.
	Reason string
}

func (e *StateError) Error() string {
	return fmt.Sprintf("lifecycle: %s: %s (stream is in %s)", e.Op, e.Reason, e.From)
}

// Unwrap returns ErrGraphState.
func (e *StateError) Unwrap() error { return ErrGraphState }

func refuse(op Op, from State, reason string) error {
	return &StateError{Op: op.String(), From: from, Reason: reason}
}

// Prepare moves NoCapture → Prepare, for GraphPrepare. Call it before arming
// the pools: the caller owns the arming, State owns the rule that it happens
// exactly once per capture.
//
// It fails with a *StateError wrapping ErrGraphState when a capture is already
// prepared or recording on this stream, leaving the state untouched: two
// captures may never overlap on one stream. The caller can retry after
// EndCapture.
func (s *State) Prepare() error {
	switch *s {
	case NoCapture:
		*s = Prepare
		return nil
	case Prepare:
		return refuse(GraphPrepare, *s, "a graph capture is already prepared on this stream")
	case Capture:
		return refuse(GraphPrepare, *s, "a graph capture is already recording on this stream")
	}
	return refuse(GraphPrepare, *s, "unknown state")
}

// Begin moves Prepare → Capture, for BeginCapture. Call it before the work
// that opens the window (submitting the warmup, ending pool priming), so a
// rejected call runs none of that work: on a stream that is already recording,
// a flush issued on the way to the rejection would corrupt the live capture.
//
// Because the state moves first, a caller whose window then fails to open must
// undo it with Abort.
//
// It fails with a *StateError wrapping ErrGraphState when Prepare has not run
// (the persistent pools must be primed by a warmup run first) or when a
// capture is already recording. The state is left untouched.
func (s *State) Begin() error {
	switch *s {
	case Prepare:
		*s = Capture
		return nil
	case NoCapture:
		return refuse(BeginCapture, *s, "call PrepareCapture before starting a capture")
	case Capture:
		return refuse(BeginCapture, *s, "a graph capture is already recording on this stream")
	}
	return refuse(BeginCapture, *s, "unknown state")
}

// End moves Capture → NoCapture, for EndCapture. Call it before closing the
// window, so the stream leaves capture state even if sealing the graph then
// fails: a stream that returned an error with the state still set would be
// wedged in capture mode forever.
//
// It fails with a *StateError wrapping ErrGraphState when no capture is
// recording (nothing prepared or started, or the capture already ended),
// leaving the state untouched: a stray EndCapture must not close a window
// that was never opened.
func (s *State) End() error {
	if *s == Capture {
		*s = NoCapture
		return nil
	}
	return refuse(EndCapture, *s, "no graph capture is recording on this stream")
}

// Cancel moves Prepare or Capture → NoCapture, for a caller that abandons a
// capture (AbortCapture): the warmup's primed memory and any recording are
// dropped by the caller. It fails with a *StateError wrapping ErrGraphState
// from NoCapture, where there is nothing to abandon, and changes nothing.
func (s *State) Cancel() error {
	if *s == Prepare || *s == Capture {
		*s = NoCapture
		return nil
	}
	return refuse(AbortCapture, *s, "no graph capture is prepared or recording on this stream")
}

// Abort returns to NoCapture from anywhere, for the failure path of a
// transition's own work: the window never opened, so the stream must be left
// usable and re-capturable rather than stuck arming its persistent pools.
// Unlike End it asserts nothing, because the state it recovers from is the one
// that could not be completed.
func (s *State) Abort() { *s = NoCapture }
