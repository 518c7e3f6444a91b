package tests

import (
	"errors"
	"testing"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// The device's diagnostic for fixedWGSL bound to a 16-byte buffer names the
// 256 bytes the shader needs.
const bindingTooSmall = "256"

// TestDeviceValidationFailureInsideTheWindowFailsEndCapture: a launch the
// host accepts but the device refuses (a binding smaller than the kernel's
// fixed-size struct) is recorded; EndCapture validates the recording, fails
// with the device's diagnostic (wgpu.ErrValidation and
// lifecycle.ErrGraphState, a *CaptureError holding a "seal"
// *DeferredError), returns no graph, discards the good launches recorded
// around it without running them, and leaves the stream in NoCapture,
// computing and re-capturable. Without it a graph that fails on every
// replay could be sealed, or a failed seal could wedge the stream.
func TestDeviceValidationFailureInsideTheWindowFailsEndCapture(t *testing.T) {
	d, s := openStream(t)
	bad := kernel(t, d, fixedWGSL)
	k := kernel(t, d, addOneWGSL)
	small := empty(t, s, 16)
	a := upload(t, s, fill(32, 0))
	b := empty(t, s, a.Size())
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := chain(s, k, a, b, 2, 32); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := chain(s, k, a, b, 2, 32); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(bad, recorder.Groups(1, 1, 1), small); err != nil {
		t.Fatalf("the host cannot see this error, so Launch must record the launch: %v", err)
	}
	if err := chain(s, k, a, b, 2, 32); err != nil {
		t.Fatal(err)
	}
	g, err := s.EndCapture()
	wantErr(t, "EndCapture must fail with the device's diagnostic", err,
		[]error{wgpu.ErrValidation, lifecycle.ErrGraphState}, "end_capture", bindingTooSmall)
	if g != nil {
		t.Fatalf("a failed EndCapture must return no graph, got one of %d dispatches", g.Len())
	}
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) || ce.Op != "end_capture" {
		t.Fatalf("EndCapture must fail with an end_capture *recorder.CaptureError, got %T %v", err, err)
	}
	var de *recorder.DeferredError
	if !errors.As(err, &de) || de.Op != "seal" {
		t.Fatalf("the cause must be a seal *recorder.DeferredError, got %v", err)
	}
	var dev *wgpu.DeviceError
	if !errors.As(err, &dev) || dev.Type != wgpu.ErrorValidation {
		t.Fatalf("the cause must carry the *wgpu.DeviceError of type validation, got %v", err)
	}
	wantState(t, "the state moves before the seal, so a failed seal leaves NoCapture", s, lifecycle.NoCapture)
	if n := s.MemoryStats().Graphs; n != 0 {
		t.Fatalf("a failed seal must keep no graph: %d live", n)
	}
	wantEqual(t, "only the warmup ran; the discarded recording never executes", fill(32, 2), read(t, s, a))
	if err := s.Sync(); err != nil {
		t.Fatalf("the failed seal's error is returned once, by EndCapture: %v", err)
	}
	if err := chain(s, k, a, b, 2, 32); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "the stream computes eagerly after the failed seal", fill(32, 4), read(t, s, a))
	g = capture(t, s, func() {
		if err := chain(s, k, a, b, 2, 32); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "a fresh capture works after the failed seal (warmup +2, replay +2)", fill(32, 8), read(t, s, a))
}

// TestDeviceErrorDuringWarmupFailsBeginCapture: the same bad launch in the
// warmup (Prepare) fails at the flush BeginCapture makes; BeginCapture
// returns a begin_capture *CaptureError wrapping the validation error and a
// flush *DeferredError counting every launch lost with the poisoned batch,
// and the state returns to NoCapture (not Prepare, not Capture). A fresh
// GraphPrepare → BeginCapture → EndCapture then works and replays exactly.
// Without it a failed warmup would open a window over a pool primed by
// work that never ran, or wedge the stream in Prepare.
func TestDeviceErrorDuringWarmupFailsBeginCapture(t *testing.T) {
	d, s := openStream(t)
	bad := kernel(t, d, fixedWGSL)
	k := kernel(t, d, addOneWGSL)
	small := empty(t, s, 16)
	a := upload(t, s, fill(32, 0))
	b := empty(t, s, a.Size())
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := chain(s, k, a, b, 2, 32); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(bad, recorder.Groups(1, 1, 1), small); err != nil {
		t.Fatalf("the host cannot see this error, so Launch must accept it: %v", err)
	}
	err := s.BeginCapture()
	wantErr(t, "BeginCapture after a failed warmup must fail with the device's diagnostic", err,
		[]error{wgpu.ErrValidation, lifecycle.ErrGraphState}, "begin_capture", bindingTooSmall)
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) || ce.Op != "begin_capture" {
		t.Fatalf("BeginCapture must fail with a begin_capture *recorder.CaptureError, got %T %v", err, err)
	}
	var de *recorder.DeferredError
	if !errors.As(err, &de) || de.Lost != 3 {
		t.Fatalf("the cause must be a *recorder.DeferredError counting the 3 launches lost with the batch, got %v", err)
	}
	wantState(t, "a failed BeginCapture aborts to NoCapture", s, lifecycle.NoCapture)
	wantEqual(t, "the poisoned warmup batch was lost whole", fill(32, 0), read(t, s, a))
	if _, err := s.EndCapture(); !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("no window is open after the failed BeginCapture, so EndCapture must be refused, got %v", err)
	}
	if err := s.BeginCapture(); !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("the abort leaves NoCapture, so BeginCapture needs a new GraphPrepare, got %v", err)
	}
	g := capture(t, s, func() {
		if err := chain(s, k, a, b, 2, 32); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "a fresh capture works after the aborted one (warmup +2, replay +2)", fill(32, 4), read(t, s, a))
}

// TestWriteInsideTheWindowFailsEndCapture: a Write (or Upload) while
// recording returns nil, applies nothing, and makes EndCapture fail with
// lifecycle.ErrGraphState naming the write; the stream is then in
// NoCapture, the launches recorded around the write never ran, and a new
// capture works. Without it a graph would silently replay without the
// write.
func TestWriteInsideTheWindowFailsEndCapture(t *testing.T) {
	d, s := openStream(t)
	k := kernel(t, d, scaleWGSL)
	x := upload(t, s, fill(16, 1))
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(2)); err != nil {
		t.Fatal(err)
	}
	if err := recorder.WriteSlice(s, x, 0, fill(16, 7)); err != nil {
		t.Fatalf("a write while recording is rejected lazily: it must return nil, got %v", err)
	}
	up, err := recorder.UploadSlice(s, fill(4, 9))
	if err != nil || up == nil {
		t.Fatalf("an upload while recording is an allocation plus a lazily rejected write: want a buffer and nil, got %v, %v", up, err)
	}
	defer up.Release()
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(3)); err != nil {
		t.Fatal(err)
	}
	g, err := s.EndCapture()
	wantErr(t, "EndCapture after writes in the window must fail naming the write", err, []error{lifecycle.ErrGraphState}, "end_capture", "write")
	if g != nil {
		t.Fatal("a failed EndCapture must return no graph")
	}
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *recorder.CaptureError, got %T", err)
	}
	wantState(t, "after the failed EndCapture", s, lifecycle.NoCapture)
	wantEqual(t, "the rejected write applied nothing and the recording never ran", fill(16, 1), read(t, s, x))
	g = capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(2)); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "a new capture works (warmup ×2, replay ×2)", fill(16, 4), read(t, s, x))
}

// TestDeviceErrorQueuedBeforeTheWindowIsReportedOnce: a bad launch issued
// in NoCapture and never synced must be reported exactly once by a later
// lifecycle call (GraphPrepare, which flushes it, or BeginCapture, the next
// sync point) and never be dropped or sealed into a graph; whichever call
// reports it leaves the stream in NoCapture, the warmup after it computes,
// and a fresh capture works. Without it the lifecycle could swallow a
// device error or open a window on a stream whose earlier work was lost.
func TestDeviceErrorQueuedBeforeTheWindowIsReportedOnce(t *testing.T) {
	d, s := openStream(t)
	bad := kernel(t, d, fixedWGSL)
	k := kernel(t, d, addOneWGSL)
	small := empty(t, s, 16)
	a := upload(t, s, fill(32, 0))
	b := empty(t, s, a.Size())
	if err := s.Launch(bad, recorder.Groups(1, 1, 1), small); err != nil {
		t.Fatal(err)
	}
	reported, done := 0, float32(0)
	check := func(op string, err error) {
		t.Helper()
		if err == nil {
			return
		}
		reported++
		wantErr(t, op+" reports the queued device error", err, []error{wgpu.ErrValidation}, bindingTooSmall)
		wantState(t, "a lifecycle call that reports an error leaves NoCapture", s, lifecycle.NoCapture)
	}
	check("GraphPrepare", s.GraphPrepare())
	if reported == 0 {
		if err := chain(s, k, a, b, 2, 32); err != nil {
			t.Fatal(err)
		}
		err := s.BeginCapture()
		check("BeginCapture", err)
		if err != nil && !errors.Is(err, lifecycle.ErrGraphState) {
			t.Fatalf("a failed BeginCapture wraps lifecycle.ErrGraphState, got %v", err)
		}
		if err == nil {
			if g, err := s.EndCapture(); err == nil {
				g.Release()
			}
		}
		done = 2
		wantEqual(t, "the warmup ran on a batch of its own", fill(32, done), read(t, s, a))
	}
	if reported != 1 {
		t.Fatalf("the deferred error must be reported exactly once before the window opens, was reported %d times", reported)
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("the error is returned once: %v", err)
	}
	g := capture(t, s, func() {
		if err := chain(s, k, a, b, 2, 32); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "a fresh capture works after the reported error (warmup +2, replay +2)", fill(32, done+4), read(t, s, a))
}
