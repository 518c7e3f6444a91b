package tests

import (
	"errors"
	"testing"

	"github.com/softgraph/softgraph/internal/driver/faulty"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// injected is what every failure faulty makes up says: the device's
// diagnostic the caller must get back.
const injected = "injected"

// faultyStream opens a device with a fault injector between it and a new
// stream (the flush timer off, so batches end only where the test says):
// the stream runs on the real adapter and fails only what the test tells
// the injector to fail. Launch now refuses on the host every binding the
// kernel's reflection can check, so a command only the device refuses is
// made up here, where real hardware cannot produce one on cue.
func faultyStream(t *testing.T, opts ...recorder.Option) (*wgpu.Device, *recorder.Stream, *faulty.Device) {
	t.Helper()
	d := gputest.Open(t, wgpu.Options{})
	f, undo, err := faulty.Install(d)
	if err != nil {
		t.Fatalf("faulty.Install: %v", err)
	}
	t.Cleanup(undo)
	return d, gputest.Stream(t, d, append([]recorder.Option{recorder.WithFlushDelay(0)}, opts...)...), f
}

// TestDeviceValidationFailureInsideTheWindowFailsEndCapture: a recording
// the host accepts but the device refuses (faulty fails the command buffer
// EndCapture validates it in) makes EndCapture fail with the device's
// diagnostic (wgpu.ErrValidation and lifecycle.ErrGraphState, an EndCapture
// *CaptureError holding an EndCapture *DeferredError), return no graph,
// discard the good launches recorded around it without running them, and
// leave the stream in NoCapture, computing and re-capturable. Without it a
// graph that fails on every replay could be sealed, or a failed seal could
// wedge the stream.
func TestDeviceValidationFailureInsideTheWindowFailsEndCapture(t *testing.T) {
	d, s, f := faultyStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(32, 0))
	b := gputest.Empty(t, s, a.Size())
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := gputest.Chain(s, k, a, b, 2, 32); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := gputest.Chain(s, k, a, b, 4, 32); err != nil {
		t.Fatalf("the host cannot see the device's refusal, so Launch must record: %v", err)
	}
	f.FailFinishes(1) // the device refuses the recording when EndCapture validates it
	g, err := s.EndCapture()
	gputest.WantErr(t, "EndCapture must fail with the device's diagnostic", err,
		[]error{wgpu.ErrValidation, lifecycle.ErrGraphState}, "EndCapture", injected)
	if g != nil {
		t.Fatalf("a failed EndCapture must return no graph, got one of %d dispatches", g.Len())
	}
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) || ce.Op != "EndCapture" {
		t.Fatalf("EndCapture must fail with an EndCapture *recorder.CaptureError, got %T %v", err, err)
	}
	var de *recorder.DeferredError
	if !errors.As(err, &de) || de.Op != "EndCapture" {
		t.Fatalf("the cause must be an EndCapture *recorder.DeferredError, got %v", err)
	}
	var dev *wgpu.DeviceError
	if !errors.As(err, &dev) || dev.Type != wgpu.ErrorValidation {
		t.Fatalf("the cause must carry the *wgpu.DeviceError of type validation, got %v", err)
	}
	wantState(t, "the state moves before the seal, so a failed seal leaves NoCapture", s, lifecycle.NoCapture)
	if n := s.MemoryStats().Graphs; n != 0 {
		t.Fatalf("a failed seal must keep no graph: %d live", n)
	}
	gputest.WantEqual(t, "only the warmup ran; the discarded recording never executes", gputest.Fill(32, 2), gputest.Read(t, s, a))
	if err := s.Sync(); err != nil {
		t.Fatalf("the failed seal's error is returned once, by EndCapture: %v", err)
	}
	if err := gputest.Chain(s, k, a, b, 2, 32); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the stream computes eagerly after the failed seal", gputest.Fill(32, 4), gputest.Read(t, s, a))
	g = gputest.Capture(t, s, func() {
		if err := gputest.Chain(s, k, a, b, 2, 32); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "a fresh capture works after the failed seal (warmup +2, replay +2)", gputest.Fill(32, 8), gputest.Read(t, s, a))
}

// TestDeviceErrorDuringWarmupFailsBeginCapture: a warmup batch the device
// refuses (faulty fails its command buffer) fails at the flush
// BeginCapture makes; BeginCapture returns a BeginCapture *CaptureError
// wrapping the validation error and a Flush *DeferredError counting every
// launch lost with the poisoned batch, and the state returns to NoCapture
// (not Prepare, not Capture). A fresh GraphPrepare → BeginCapture →
// EndCapture then works and replays exactly. Without it a failed warmup
// would open a window over a pool primed by work that never ran, or wedge
// the stream in Prepare.
func TestDeviceErrorDuringWarmupFailsBeginCapture(t *testing.T) {
	d, s, f := faultyStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	a := gputest.Upload(t, s, gputest.Fill(32, 0))
	b := gputest.Empty(t, s, a.Size())
	other := gputest.Upload(t, s, gputest.Fill(4, 0))
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	f.FailFinishes(1) // the warmup's batch is refused by the device
	if err := gputest.Chain(s, k, a, b, 2, 32); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(add, recorder.Groups(1, 1, 1), other, gputest.F32(1)); err != nil {
		t.Fatalf("the host cannot see the device's refusal, so Launch must accept it: %v", err)
	}
	err := s.BeginCapture()
	gputest.WantErr(t, "BeginCapture after a failed warmup must fail with the device's diagnostic", err,
		[]error{wgpu.ErrValidation, lifecycle.ErrGraphState}, "BeginCapture", injected)
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) || ce.Op != "BeginCapture" {
		t.Fatalf("BeginCapture must fail with a BeginCapture *recorder.CaptureError, got %T %v", err, err)
	}
	var de *recorder.DeferredError
	if !errors.As(err, &de) || de.Lost != 3 || de.Op != "Flush" {
		t.Fatalf("the cause must be a Flush *recorder.DeferredError counting the 3 launches lost with the batch, got %v", err)
	}
	wantState(t, "a failed BeginCapture aborts to NoCapture", s, lifecycle.NoCapture)
	gputest.WantEqual(t, "the poisoned warmup batch was lost whole", gputest.Fill(32, 0), gputest.Read(t, s, a))
	gputest.WantEqual(t, "the poisoned warmup batch was lost whole (its last launch too)", gputest.Fill(4, 0), gputest.Read(t, s, other))
	if _, err := s.EndCapture(); !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("no window is open after the failed BeginCapture, so EndCapture must be refused, got %v", err)
	}
	if err := s.BeginCapture(); !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("the abort leaves NoCapture, so BeginCapture needs a new GraphPrepare, got %v", err)
	}
	g := gputest.Capture(t, s, func() {
		if err := gputest.Chain(s, k, a, b, 2, 32); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "a fresh capture works after the aborted one (warmup +2, replay +2)", gputest.Fill(32, 4), gputest.Read(t, s, a))
}

// TestWriteInsideTheWindowFailsEndCapture: a Write (or Upload) while
// recording returns nil, applies nothing, and makes EndCapture fail with
// lifecycle.ErrGraphState naming the write; the stream is then in
// NoCapture, the launches recorded around the write never ran, and a new
// capture works. Without it a graph would silently replay without the
// write.
func TestWriteInsideTheWindowFailsEndCapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(16, 1))
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
		t.Fatal(err)
	}
	if err := recorder.WriteSlice(s, x, 0, gputest.Fill(16, 7)); err != nil {
		t.Fatalf("a write while recording is rejected lazily: it must return nil, got %v", err)
	}
	up, err := recorder.UploadSlice(s, gputest.Fill(4, 9))
	if err != nil || up == nil {
		t.Fatalf("an upload while recording is an allocation plus a lazily rejected write: want a buffer and nil, got %v, %v", up, err)
	}
	defer up.Release()
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(3)); err != nil {
		t.Fatal(err)
	}
	g, err := s.EndCapture()
	gputest.WantErr(t, "EndCapture after writes in the window must fail naming the write", err, []error{lifecycle.ErrGraphState}, "EndCapture", "a write was issued while recording")
	if g != nil {
		t.Fatal("a failed EndCapture must return no graph")
	}
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *recorder.CaptureError, got %T", err)
	}
	wantState(t, "after the failed EndCapture", s, lifecycle.NoCapture)
	gputest.WantEqual(t, "the rejected write applied nothing and the recording never ran", gputest.Fill(16, 1), gputest.Read(t, s, x))
	g = gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
	})

	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "a new capture works (warmup ×2, replay ×2)", gputest.Fill(16, 4), gputest.Read(t, s, x))
}

// TestDeviceErrorQueuedBeforeTheWindowIsReportedOnce: a launch whose batch
// the device refuses (faulty fails its command buffer), issued in NoCapture
// and never synced, must be reported exactly once by a later lifecycle call
// (GraphPrepare, which flushes it, or BeginCapture, the next sync point)
// and never be dropped or sealed into a graph; whichever call reports it
// leaves the stream in NoCapture, the warmup after it computes, and a fresh
// capture works. Without it the lifecycle could swallow a device error or
// open a window on a stream whose earlier work was lost.
func TestDeviceErrorQueuedBeforeTheWindowIsReportedOnce(t *testing.T) {
	d, s, f := faultyStream(t)
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	small := gputest.Upload(t, s, gputest.Fill(4, 0))
	a := gputest.Upload(t, s, gputest.Fill(32, 0))
	b := gputest.Empty(t, s, a.Size())
	f.FailFinishes(1)
	if err := s.Launch(add, recorder.Groups(1, 1, 1), small, gputest.F32(1)); err != nil {
		t.Fatal(err)
	}
	reported, done := 0, float32(0)
	check := func(op string, err error) {
		t.Helper()
		if err == nil {
			return
		}
		reported++
		gputest.WantErr(t, op+" reports the queued device error", err, []error{wgpu.ErrValidation}, injected)
		wantState(t, "a lifecycle call that reports an error leaves NoCapture", s, lifecycle.NoCapture)
	}
	check("GraphPrepare", s.PrepareCapture())
	if reported == 0 {
		if err := gputest.Chain(s, k, a, b, 2, 32); err != nil {
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
		gputest.WantEqual(t, "the warmup ran on a batch of its own", gputest.Fill(32, done), gputest.Read(t, s, a))
	}
	if reported != 1 {
		t.Fatalf("the deferred error must be reported exactly once before the window opens, was reported %d times", reported)
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("the error is returned once: %v", err)
	}
	g := gputest.Capture(t, s, func() {
		if err := gputest.Chain(s, k, a, b, 2, 32); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the refused batch was lost whole", gputest.Fill(4, 0), gputest.Read(t, s, small))
	gputest.WantEqual(t, "a fresh capture works after the reported error (warmup +2, replay +2)", gputest.Fill(32, done+4), gputest.Read(t, s, a))
}
