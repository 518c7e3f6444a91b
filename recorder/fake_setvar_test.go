package recorder

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver/fake"
	"github.com/softgraph/softgraph/wgpu"
)

// addVar launches addConst(b, v) on s: the constant is v's current value.
func (r *fakeRig) addVar(s *Stream, b *Buffer, v *Var) error {
	return s.launch(r.addConst, Groups(1, 1, 1), []Arg{b, v})
}

// newVarU32 makes a 16-byte Var whose first word is k.
func newVarU32(t *testing.T, s *Stream, k uint32) *Var {
	t.Helper()
	v, err := s.NewVar(u32s(k, 0, 0, 0))
	if err != nil {
		t.Fatalf("NewVar: %v", err)
	}
	t.Cleanup(v.Release)
	return v
}

// deviceOps is the device's log without the dispatches' details: "write"
// for a queue write, "submit", "dispatch".
func deviceOps(d *fake.Device) []string {
	var ops []string
	for _, l := range d.Log() {
		switch {
		case strings.HasPrefix(l, "write"):
			ops = append(ops, "write")
		case strings.HasPrefix(l, "dispatch"):
			ops = append(ops, "dispatch")
		case l == "submit":
			ops = append(ops, "submit")
		}
	}
	return ops
}

// TestSetVarValuesTravelWithTheBatchThatFollowsThem: SetVars between
// launches that read the Var, with no sync point between them, each reach
// the device as a queue write right before the batch of the launches after
// them, never before the launches before them. Without it a value lands
// early (the launches before it read the new value) or late (the launches
// after it read the old one), and the sum below differs.
func TestSetVarValuesTravelWithTheBatchThatFollowsThem(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t, WithFlushDelay(time.Hour))
	x := upload(t, s, 1)
	v := newVarU32(t, s, 5)
	read(t, s, x) // the upload and the Var's first value have run
	before := len(deviceOps(r.dev))
	for _, k := range []uint32{7, 11} {
		if err := r.addVar(s, x, v); err != nil {
			t.Fatalf("Launch: %v", err)
		}
		if err := s.SetVar(v, u32s(k, 0, 0, 0)); err != nil {
			t.Fatalf("SetVar(%d): %v", k, err)
		}
	}
	if err := r.addVar(s, x, v); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if diff := cmp.Diff([]uint32{1 + 5 + 7 + 11}, read(t, s, x)); diff != "" {
		t.Errorf("launches read other values than the Var held when each was called (-want +got):\n%s", diff)
	}
	got := deviceOps(r.dev)[before:]
	// The read's own copy is one more dispatch-free submission at the end.
	want := []string{"submit", "dispatch", "write", "submit", "dispatch", "write", "submit", "dispatch", "submit"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the device did not receive each value between the batches around it (-want +got):\n%s", diff)
	}
}

// TestAFailedSetVarWriteIsReportedAtTheNextSyncPoint: a SetVar whose
// queue write the device refuses (it is made by the submitter, after the
// call returned) is reported by the next sync point as a *DeferredError
// wrapping the device's error, the batch it travelled with does not run,
// and the stream goes on. Without it the value would be lost silently.
func TestAFailedSetVarWriteIsReportedAtTheNextSyncPoint(t *testing.T) {
	r := newFakeRig(t)
	// No flush timer: the value and the launch after it stay one batch.
	s := r.stream(t, WithFlushDelay(time.Hour))
	x := upload(t, s, 1)
	v := newVarU32(t, s, 5)
	if err := s.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	r.dev.Fail(fake.OpWriteBuffer, 1)
	if err := s.SetVar(v, u32s(9, 0, 0, 0)); err != nil {
		t.Fatalf("SetVar returned %v; the write is the submitter's, its error the next sync point's", err)
	}
	if err := r.addVar(s, x, v); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	err := s.Sync()
	var de *DeferredError
	if !errors.As(err, &de) || !errors.Is(err, wgpu.ErrValidation) {
		t.Fatalf("Sync after a refused SetVar write returned %v; want a *DeferredError wrapping wgpu.ErrValidation", err)
	}
	if de.Lost != 1 {
		t.Errorf("the DeferredError names %d lost dispatches; want 1 (the launch that travelled with the value)", de.Lost)
	}
	if err := s.SetVar(v, u32s(3, 0, 0, 0)); err != nil {
		t.Fatalf("SetVar after the refusal: %v", err)
	}
	if err := r.addVar(s, x, v); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if diff := cmp.Diff([]uint32{1 + 3}, read(t, s, x)); diff != "" {
		t.Errorf("after a refused SetVar write (-want +got):\n%s", diff)
	}
}

// TestSetVarOfAVarAnotherStreamBindsIsWrittenAtOnce: once another stream
// binds a Var, SetVar writes it to the queue at the call, so that other
// stream's next submission sees the value even when the Var's own stream
// submits nothing meanwhile. Without it the other stream reads the old
// value until the owner's open batch happens to be submitted.
func TestSetVarOfAVarAnotherStreamBindsIsWrittenAtOnce(t *testing.T) {
	r := newFakeRig(t)
	a := r.stream(t, WithFlushDelay(time.Hour))
	b := r.stream(t, WithFlushDelay(time.Hour))
	v := newVarU32(t, a, 5)
	x := upload(t, b, 1)
	if err := r.addVar(b, x, v); err != nil {
		t.Fatalf("Launch on b: %v", err)
	}
	if diff := cmp.Diff([]uint32{6}, read(t, b, x)); diff != "" {
		t.Fatalf("b's launch with a's Var (-want +got):\n%s", diff)
	}
	if err := a.SetVar(v, u32s(7, 0, 0, 0)); err != nil {
		t.Fatalf("SetVar: %v", err)
	}
	if err := r.addVar(b, x, v); err != nil {
		t.Fatalf("Launch on b: %v", err)
	}
	// b's batch goes to the device before anything of a's.
	if err := b.Flush(); err != nil {
		t.Fatalf("Flush on b: %v", err)
	}
	if err := b.Sync(); err != nil {
		t.Fatalf("Sync on b: %v", err)
	}
	if diff := cmp.Diff([]uint32{6 + 7}, read(t, b, x)); diff != "" {
		t.Errorf("b's launch after a's SetVar read the old value (-want +got):\n%s", diff)
	}
}

// TestSetVarDoesNotWaitForTheDeviceToRunTheWorkBeforeIt: while the device
// is busy (the fake's Hold; the stream's submitter already waits for it,
// having gpuDepth submissions outstanding) and a launch that reads the Var
// is handed off but not yet submitted, SetVar returns at once, and the
// launches before and after it still read the old and the new value.
// Without it, a decode loop's per-token SetVar waits for the GPU to finish
// tokens that are still queued, and the host cannot run ahead of the GPU.
func TestSetVarDoesNotWaitForTheDeviceToRunTheWorkBeforeIt(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t, WithFlushDelay(time.Hour), WithSubmitChunks(1, 1))
	x := upload(t, s, 0)
	y := upload(t, s, 1)
	v := newVarU32(t, s, 5)
	read(t, s, y)
	release := r.holdSubmitted(t, s, x)
	defer release()
	if err := r.addVar(s, y, v); err != nil { // handed off, not submitted
		t.Fatalf("Launch: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.SetVar(v, u32s(7, 0, 0, 0)) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("SetVar: %v", err)
		}
	case <-time.After(10 * time.Second):
		release()
		<-done
		t.Fatal("SetVar waited for the device to run the work queued before it")
	}
	if err := r.addVar(s, y, v); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	release()
	if diff := cmp.Diff([]uint32{1 + 5 + 7}, read(t, s, y)); diff != "" {
		t.Errorf("the launches around SetVar read other values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint32{gpuDepth}, read(t, s, x)); diff != "" {
		t.Errorf("the launches before (-want +got):\n%s", diff)
	}
}

// TestSetVarsWithNothingBetweenQueueOneWrite: a thousand SetVars of one
// Var with nothing reading it between them, and no sync point, queue one
// queue write of the last value, not a thousand (no flush timer runs:
// nothing else would bound the batch's memory), and the launch after them
// reads the last value. Without it a loop that sets a Var faster than it
// replays grows the open batch without bound.
func TestSetVarsWithNothingBetweenQueueOneWrite(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t, WithFlushDelay(0))
	x := upload(t, s, 1)
	v := newVarU32(t, s, 5)
	read(t, s, x)
	before := len(deviceOps(r.dev))
	for k := range uint32(1000) {
		if err := s.SetVar(v, u32s(k, 0, 0, 0)); err != nil {
			t.Fatalf("SetVar(%d): %v", k, err)
		}
	}
	if err := r.addVar(s, x, v); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if diff := cmp.Diff([]uint32{1 + 999}, read(t, s, x)); diff != "" {
		t.Errorf("the launch after a thousand SetVars (-want +got):\n%s", diff)
	}
	want := []string{"write", "submit", "dispatch", "submit"}
	if diff := cmp.Diff(want, deviceOps(r.dev)[before:]); diff != "" {
		t.Errorf("a thousand SetVars of one Var reached the device as (-want +got):\n%s", diff)
	}
}
