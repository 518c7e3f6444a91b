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
	{"Prepare", "graph_prepare", (*lifecycle.State).Prepare},
	{"Begin", "begin_capture", (*lifecycle.State).Begin},
	{"End", "end_capture", (*lifecycle.State).End},
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
			"Begin":   {to: lifecycle.NoCapture, reason: "call graph_prepare before starting a capture"},
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
			if !strings.HasPrefix(err.Error(), tr.op+": "+w.reason) {
				t.Errorf("message %q must start with the operation and the reason", err)
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

func TestRefuseWrapsErrGraphState(t *testing.T) {
	err := lifecycle.Capture.Refuse("read", "reads are refused while recording")
	var se *lifecycle.StateError
	if !errors.As(err, &se) || !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("Refuse must build a *StateError wrapping ErrGraphState, got %#v", err)
	}
	if d := cmp.Diff("read: reads are refused while recording (stream is in capture)", err.Error()); d != "" {
		t.Fatalf("message (-want +got):\n%s", d)
	}
}
