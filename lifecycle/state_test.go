package lifecycle_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/lifecycle"
)

type transition struct {
	name string
	op   string
	do   func(*lifecycle.State) error
}

var transitions = []transition{
	{"Prepare", "PrepareCapture", (*lifecycle.State).Prepare},
	{"Begin", "BeginCapture", (*lifecycle.State).Begin},
	{"End", "EndCapture", (*lifecycle.State).End},
}

// TestEveryTransitionFromEveryStateFollowsTheCaptureOrder checks all nine
// (state, transition) pairs against the rule: only NoCapture→Prepare,
// Prepare→Capture and Capture→NoCapture are allowed. A stream that could reach
// Capture without Prepare would record against pools no warmup primed.
func TestEveryTransitionFromEveryStateFollowsTheCaptureOrder(t *testing.T) {
	type want struct {
		to     lifecycle.State
		reason string // empty when allowed
	}
	table := map[lifecycle.State]map[string]want{
		lifecycle.NoCapture: {
			"Prepare": {to: lifecycle.Prepare},
			"Begin":   {to: lifecycle.NoCapture, reason: "call PrepareCapture before starting a capture"},
			"End":     {to: lifecycle.NoCapture, reason: "no graph capture is recording on this stream"},
		},
		lifecycle.Prepare: {
			"Prepare": {to: lifecycle.Prepare, reason: "a graph capture is already prepared on this stream"},
			"Begin":   {to: lifecycle.Capture},
			"End":     {to: lifecycle.Prepare, reason: "no graph capture is recording on this stream"},
		},
		lifecycle.Capture: {
			"Prepare": {to: lifecycle.Capture, reason: "a graph capture is already recording on this stream"},
			"Begin":   {to: lifecycle.Capture, reason: "a graph capture is already recording on this stream"},
			"End":     {to: lifecycle.NoCapture},
		},
	}
	for from, row := range table {
		for _, tr := range transitions {
			w := row[tr.name]
			s := from
			err := tr.do(&s)
			if s != w.to {
				t.Errorf("%s from %s: state is %s, want %s", tr.name, from, s, w.to)
			}
			if w.reason == "" {
				if err != nil {
					t.Errorf("%s from %s must be allowed, got %v", tr.name, from, err)
				}
				continue
			}
			if !errors.Is(err, lifecycle.ErrGraphState) {
				t.Fatalf("%s from %s must be refused with ErrGraphState, got %v", tr.name, from, err)
			}
			var se *lifecycle.StateError
			if !errors.As(err, &se) {
				t.Fatalf("%s from %s: error %T is not a *StateError", tr.name, from, err)
			}
			got := lifecycle.StateError{Op: se.Op, From: se.From, Reason: se.Reason}
			wantErr := lifecycle.StateError{Op: tr.op, From: from, Reason: w.reason}
			if d := cmp.Diff(wantErr, got); d != "" {
				t.Errorf("%s from %s: refusal (-want +got):\n%s", tr.name, from, d)
			}
			if !strings.HasPrefix(err.Error(), "lifecycle: "+tr.op+": "+w.reason) {
				t.Errorf("message %q must start with the package, the operation and the reason", err)
			}
		}
	}
}

// TestRejectedTransitionChangesNothing: a caller that mis-orders a call can
// recover by issuing the right one, because the refusal left the state as it
// was. Without it a stray Prepare while recording would close the window.
func TestRejectedTransitionChangesNothing(t *testing.T) {
	s := lifecycle.Prepare
	if err := s.Prepare(); err == nil {
		t.Fatal("a second Prepare must be refused")
	}
	if err := s.End(); err == nil {
		t.Fatal("End before Begin must be refused")
	}
	if s != lifecycle.Prepare {
		t.Fatalf("refusals moved the state to %s; they must change nothing", s)
	}
	if err := s.Begin(); err != nil {
		t.Fatalf("the right call after refusals must still work: %v", err)
	}
}

// TestAbortFromEveryStateLeavesARecapturableStream: Abort is the failure path
// of a transition's own work, so from any state it must leave a stream that
// can start a new capture.
func TestAbortFromEveryStateLeavesARecapturableStream(t *testing.T) {
	for _, from := range []lifecycle.State{lifecycle.NoCapture, lifecycle.Prepare, lifecycle.Capture} {
		s := from
		s.Abort()
		if s != lifecycle.NoCapture {
			t.Fatalf("Abort from %s left %s, want no_capture", from, s)
		}
		if err := s.Prepare(); err != nil {
			t.Fatalf("after Abort from %s the stream must be re-capturable: %v", from, err)
		}
	}
}

// TestCacheCapturesAcrossTheWholeWindow: the metadata cache runs in capture
// mode for the whole prepare→record window, not just while recording; an
// entry evicted between warmup and capture would be dropped out from under a
// recorded launch.
func TestCacheCapturesAcrossTheWholeWindow(t *testing.T) {
	got := map[lifecycle.State]lifecycle.CacheMode{}
	for _, s := range []lifecycle.State{lifecycle.NoCapture, lifecycle.Prepare, lifecycle.Capture} {
		got[s] = s.CacheMode()
	}
	want := map[lifecycle.State]lifecycle.CacheMode{
		lifecycle.NoCapture: lifecycle.CacheNormal,
		lifecycle.Prepare:   lifecycle.CacheCapture,
		lifecycle.Capture:   lifecycle.CacheCapture,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("cache mode per state (-want +got):\n%s", d)
	}
}

func TestOnlyCaptureIsRecording(t *testing.T) {
	got := []bool{lifecycle.NoCapture.IsRecording(), lifecycle.Prepare.IsRecording(), lifecycle.Capture.IsRecording()}
	if d := cmp.Diff([]bool{false, false, true}, got); d != "" {
		t.Fatalf("IsRecording per state (-want +got):\n%s", d)
	}
}

func TestZeroValueIsNoCaptureAndNamesAreStable(t *testing.T) {
	var s lifecycle.State
	got := []string{s.String(), lifecycle.Prepare.String(), lifecycle.Capture.String(), lifecycle.State(7).String(),
		lifecycle.CacheNormal.String(), lifecycle.CacheCapture.String()}
	want := []string{"no_capture", "prepare", "capture", "State(7)", "normal", "capture"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("names (-want +got):\n%s", d)
	}
}

// TestAdmitIsTheDocumentedTable restates the package doc's table
// independently, cell by cell: what every operation does in every state,
// what it does while a profile runs (outside Capture), and whether a call
// refused inside the window fails EndCapture. A cell that drifted would let
// the recorder execute something a capture cannot record, refuse something
// it can, or seal a graph without a call the caller was told failed. This
// test and lifecycle/op.go's table are the two places a rule changes.
func TestAdmitIsTheDocumentedTable(t *testing.T) {
	E, R, D, X := lifecycle.Execute, lifecycle.Record, lifecycle.DeferError, lifecycle.Refuse
	type cells struct {
		In        [3]lifecycle.Verdict // NoCapture, Prepare, Capture
		Profiling [3]lifecycle.Verdict // the same with a profile running
		Fails     bool                 // refused inside the window, EndCapture fails
	}
	want := map[lifecycle.Op]cells{
		lifecycle.Launch:        {In: [3]lifecycle.Verdict{E, E, R}, Profiling: [3]lifecycle.Verdict{E, E, R}, Fails: true},
		lifecycle.Write:         {In: [3]lifecycle.Verdict{E, E, D}, Profiling: [3]lifecycle.Verdict{E, E, D}, Fails: true},
		lifecycle.Read:          {In: [3]lifecycle.Verdict{E, E, X}, Profiling: [3]lifecycle.Verdict{E, E, X}, Fails: true},
		lifecycle.Sync:          {In: [3]lifecycle.Verdict{E, E, X}, Profiling: [3]lifecycle.Verdict{E, E, X}, Fails: true},
		lifecycle.Profile:       {In: [3]lifecycle.Verdict{E, E, X}, Profiling: [3]lifecycle.Verdict{X, X, X}, Fails: true},
		lifecycle.EndProfile:    {In: [3]lifecycle.Verdict{E, E, X}, Profiling: [3]lifecycle.Verdict{E, E, X}, Fails: true},
		lifecycle.ProfileReplay: {In: [3]lifecycle.Verdict{E, E, X}, Profiling: [3]lifecycle.Verdict{X, X, X}, Fails: true},
		lifecycle.Replay:        {In: [3]lifecycle.Verdict{E, E, R}, Profiling: [3]lifecycle.Verdict{E, E, R}, Fails: true},
		lifecycle.Rebind:        {In: [3]lifecycle.Verdict{E, E, X}, Profiling: [3]lifecycle.Verdict{E, E, X}, Fails: true},
		lifecycle.Copy:          {In: [3]lifecycle.Verdict{E, E, R}, Profiling: [3]lifecycle.Verdict{E, E, R}, Fails: true},
		lifecycle.Clear:         {In: [3]lifecycle.Verdict{E, E, R}, Profiling: [3]lifecycle.Verdict{E, E, R}, Fails: true},
		lifecycle.Alloc:         {In: [3]lifecycle.Verdict{E, E, E}, Profiling: [3]lifecycle.Verdict{E, E, E}, Fails: false},
		lifecycle.Trim:          {In: [3]lifecycle.Verdict{E, X, X}, Profiling: [3]lifecycle.Verdict{E, X, X}, Fails: true},
		lifecycle.Flush:         {In: [3]lifecycle.Verdict{E, E, E}, Profiling: [3]lifecycle.Verdict{E, E, E}, Fails: false},
		lifecycle.Branch:        {In: [3]lifecycle.Verdict{E, E, R}, Profiling: [3]lifecycle.Verdict{E, E, R}, Fails: true},
		lifecycle.Load:          {In: [3]lifecycle.Verdict{E, X, X}, Profiling: [3]lifecycle.Verdict{E, X, X}, Fails: true},
		lifecycle.Save:          {In: [3]lifecycle.Verdict{E, E, X}, Profiling: [3]lifecycle.Verdict{E, E, X}, Fails: true},
		lifecycle.SetVar:        {In: [3]lifecycle.Verdict{E, E, X}, Profiling: [3]lifecycle.Verdict{E, E, X}, Fails: true},
	}
	got := map[lifecycle.Op]cells{}
	for _, op := range lifecycle.Ops() {
		var c cells
		for st := lifecycle.NoCapture; st <= lifecycle.Capture; st++ {
			c.In[st] = st.Admit(op)
			c.Profiling[st] = profilingSession(t, st).Admit(op)
		}
		c.Fails = lifecycle.Capture.FailsCapture(op)
		if lifecycle.NoCapture.FailsCapture(op) || lifecycle.Prepare.FailsCapture(op) {
			t.Errorf("%s: FailsCapture outside the window; only a refusal inside it can fail a capture", op)
		}
		if c.Fails != (lifecycle.KeepsCaptureReason(op) == "") {
			t.Errorf("%s: a row whose refusal keeps the capture must say why (KeepsCaptureReason %q)", op, lifecycle.KeepsCaptureReason(op))
		}
		got[op] = c
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("the capture rule's table (-want +got):\n%s", d)
	}
}

// profilingSession is a Session in st with a profile running (started
// before the capture, as a stream can).
func profilingSession(t *testing.T, st lifecycle.State) *lifecycle.Session[*rec, *prof] {
	t.Helper()
	s := &lifecycle.Session[*rec, *prof]{}
	if err := s.StartProfile(&prof{1}); err != nil {
		t.Fatalf("StartProfile: %v", err)
	}
	if st >= lifecycle.Prepare {
		if err := s.Prepare(); err != nil {
			t.Fatalf("Prepare: %v", err)
		}
	}
	if st == lifecycle.Capture {
		if err := s.Begin(&rec{1}); err != nil {
			t.Fatalf("Begin: %v", err)
		}
	}
	return s
}

// TestRefusalExplainsEveryRefusedCell: a refused or deferred operation
// carries a *StateError naming the operation and the state, wrapping
// ErrGraphState; an admitted one has none.
func TestRefusalExplainsEveryRefusedCell(t *testing.T) {
	for _, op := range lifecycle.Ops() {
		for st := lifecycle.NoCapture; st <= lifecycle.Capture; st++ {
			err := st.Refusal(op)
			v := st.Admit(op)
			if v == lifecycle.Execute || v == lifecycle.Record {
				if err != nil {
					t.Errorf("%s in %s is admitted (%s) but Refusal says %v", op, st, v, err)
				}
				continue
			}
			var se *lifecycle.StateError
			if !errors.As(err, &se) || !errors.Is(err, lifecycle.ErrGraphState) {
				t.Fatalf("%s in %s (%s): Refusal must be a *StateError wrapping ErrGraphState, got %#v", op, st, v, err)
			}
			if se.Op != op.String() || se.From != st || se.Reason == "" {
				t.Errorf("%s in %s: refusal %+v must name the op, the state and a reason", op, st, se)
			}
			if !strings.HasPrefix(err.Error(), "lifecycle: "+op.String()+": ") {
				t.Errorf("message %q must start with the package and the operation", err)
			}
		}
	}
}

// TestTransitionsAreNotAdmitted: the transitions move only through Prepare,
// Begin, End and Abort; asking Admit about one (or about a value that is no
// Op) is refused rather than silently executed.
func TestTransitionsAreNotAdmitted(t *testing.T) {
	for _, op := range []lifecycle.Op{lifecycle.GraphPrepare, lifecycle.BeginCapture, lifecycle.EndCapture, lifecycle.AbortCapture, 0, 200} {
		for st := lifecycle.NoCapture; st <= lifecycle.Capture; st++ {
			if v := st.Admit(op); v != lifecycle.Refuse {
				t.Errorf("Admit(%s) in %s = %s, want refuse", op, st, v)
			}
			if err := st.Refusal(op); !errors.Is(err, lifecycle.ErrGraphState) {
				t.Errorf("Refusal(%s) in %s = %v, want ErrGraphState", op, st, err)
			}
		}
	}
}

// TestACaptureBegunInsideTheWindowFailsIt: a GraphPrepare or BeginCapture
// refused inside the window (a nested Capture) fails the capture, whose
// graph would lack the nested step's calls; EndCapture and AbortCapture,
// the window's own ends, and any transition outside the window fail none.
func TestACaptureBegunInsideTheWindowFailsIt(t *testing.T) {
	type fails map[string]bool
	got := map[string]fails{}
	for st := lifecycle.NoCapture; st <= lifecycle.Capture; st++ {
		got[st.String()] = fails{}
		for _, op := range []lifecycle.Op{lifecycle.GraphPrepare, lifecycle.BeginCapture, lifecycle.EndCapture, lifecycle.AbortCapture} {
			got[st.String()][op.String()] = st.FailsCapture(op)
		}
	}
	none := fails{"PrepareCapture": false, "BeginCapture": false, "EndCapture": false, "AbortCapture": false}
	want := map[string]fails{
		lifecycle.NoCapture.String(): none,
		lifecycle.Prepare.String():   none,
		lifecycle.Capture.String():   {"PrepareCapture": true, "BeginCapture": true, "EndCapture": false, "AbortCapture": false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("FailsCapture of the transitions (-want +got):\n%s", d)
	}
}

// TestPoolModeFollowsTheWindow: the warmup primes, the recording allocates
// persistently, everything else is normal. A pool that primed outside
// Prepare would never give its pages back.
func TestPoolModeFollowsTheWindow(t *testing.T) {
	got := []lifecycle.PoolMode{lifecycle.NoCapture.PoolMode(), lifecycle.Prepare.PoolMode(), lifecycle.Capture.PoolMode()}
	want := []lifecycle.PoolMode{lifecycle.PoolNormal, lifecycle.PoolPriming, lifecycle.PoolPersistent}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("PoolMode per state (-want +got):\n%s", d)
	}
	names := []string{lifecycle.PoolNormal.String(), lifecycle.PoolPriming.String(), lifecycle.PoolPersistent.String(),
		lifecycle.Launch.String(), lifecycle.EndCapture.String(), lifecycle.Op(99).String(), lifecycle.Record.String()}
	if d := cmp.Diff([]string{"normal", "priming", "persistent", "Launch", "EndCapture", "Op(99)", "record"}, names); d != "" {
		t.Fatalf("names (-want +got):\n%s", d)
	}
}

// TestCancelAbandonsOnlyALiveCapture: AbortCapture leaves Prepare or
// Capture for NoCapture, and is refused (changing nothing) when no capture
// exists, so a stray abort cannot be mistaken for a successful one.
func TestCancelAbandonsOnlyALiveCapture(t *testing.T) {
	for _, from := range []lifecycle.State{lifecycle.Prepare, lifecycle.Capture} {
		s := from
		if err := s.Cancel(); err != nil || s != lifecycle.NoCapture {
			t.Fatalf("Cancel from %s: state %s, err %v; want no_capture, nil", from, s, err)
		}
	}
	var s lifecycle.State
	err := s.Cancel()
	var se *lifecycle.StateError
	if !errors.As(err, &se) || se.Op != "AbortCapture" || s != lifecycle.NoCapture {
		t.Fatalf("Cancel from no_capture must be refused as AbortCapture, got %v (state %s)", err, s)
	}
}
