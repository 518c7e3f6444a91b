package recorder

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLaunchWriteReadRunInCallOrderOnOneStream: on one stream, a launch, a
// write and another launch take effect in the order they were called, and
// a read sees all of them. Without it, a write deferred past a later launch
// (or a launch past a read) returns values no sequential program computes.
func TestLaunchWriteReadRunInCallOrderOnOneStream(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t)
	b := upload(t, s, 1, 2, 3, 4)
	if err := r.add(s, b, 10); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if err := s.Write(b, 4, u32s(100)); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := r.add(s, b, 1); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	want := []uint32{12, 101, 14, 15}
	if diff := cmp.Diff(want, read(t, s, b)); diff != "" {
		t.Errorf("launch, write, launch, read on one stream did not run in call order (-want +got):\n%s", diff)
	}
}

// TestReadSeesWorkEnqueuedOnEveryStream: a Read on one stream observes the
// work every other stream of the device enqueued before it, even work still
// in that stream's open batch (a long flush delay keeps it there). Without
// it, a value one stream computed for another is read stale.
func TestReadSeesWorkEnqueuedOnEveryStream(t *testing.T) {
	r := newFakeRig(t)
	a := r.stream(t, WithFlushDelay(time.Hour))
	b := r.stream(t, WithFlushDelay(time.Hour))
	x := upload(t, a, 1, 2)
	if err := r.add(b, x, 5); err != nil {
		t.Fatalf("Launch on stream b: %v", err)
	}
	if err := r.add(a, x, 100); err != nil {
		t.Fatalf("Launch on stream a: %v", err)
	}
	if diff := cmp.Diff([]uint32{106, 107}, read(t, a, x)); diff != "" {
		t.Errorf("a read on stream a did not see stream b's launch enqueued before it (-want +got):\n%s", diff)
	}
	// b's launch ran before a's: submissions keep call order across
	// streams when a read joins them.
	var dispatches []string
	for _, l := range r.dev.Log() {
		if len(l) > 8 && l[:8] == "dispatch" {
			dispatches = append(dispatches, l)
		}
	}
	if diff := cmp.Diff([]string{"dispatch add_const (1,1,1)", "dispatch add_const (1,1,1)"}, dispatches); diff != "" {
		t.Errorf("the device executed other dispatches than the two launches (-want +got):\n%s", diff)
	}
}
