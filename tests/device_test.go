package tests

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// deviceWorld is a device with a stream in each lifecycle state and one of
// everything made from them, for the closed- and lost-device tests.
type deviceWorld struct {
	d       *wgpu.Device
	streams map[lifecycle.State]*recorder.Stream
	k       *wgpu.Kernel
	bufs    map[lifecycle.State][2]*recorder.Buffer
	graph   *recorder.Graph
	tok     recorder.ProfileToken
	drv     driver.Device    // the driver view, taken while the device was open
	spare   *recorder.Buffer // a live buffer of a's size, for Rebind
}

func newDeviceWorld(t *testing.T) *deviceWorld {
	w := &deviceWorld{d: gputest.Open(t, wgpu.Options{}), streams: map[lifecycle.State]*recorder.Stream{}, bufs: map[lifecycle.State][2]*recorder.Buffer{}}
	w.k = gputest.Kernel(t, w.d, gputest.AddOneWGSL)
	drv, err := driver.Of(w.d)
	if err != nil {
		t.Fatal(err)
	}
	w.drv = drv
	for _, st := range allStates {
		s, err := recorder.New(w.d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		a := gputest.Upload(t, s, gputest.Fill(16, 0))
		b := gputest.Empty(t, s, a.Size())
		w.streams[st], w.bufs[st] = s, [2]*recorder.Buffer{a, b}
		if err := gputest.Chain(s, w.k, a, b, 2, 16); err != nil {
			t.Fatal(err)
		}
		if st == lifecycle.NoCapture {
			w.graph = gputest.Capture(t, s, func() {
				if err := gputest.Chain(s, w.k, a, b, 2, 16); err != nil {
					t.Fatal(err)
				}
			})
			if err := w.graph.Replay(); err != nil {
				t.Fatal(err)
			}
			tok, err := s.StartProfile()
			if err != nil {
				t.Fatal(err)
			}
			w.tok = tok
			w.spare = gputest.Empty(t, s, a.Size())
			continue
		}
		if err := s.PrepareCapture(); err != nil {
			t.Fatal(err)
		}
		if st == lifecycle.Capture {
			if err := s.BeginCapture(); err != nil {
				t.Fatal(err)
			}
			if err := gputest.Chain(s, w.k, a, b, 2, 16); err != nil {
				t.Fatal(err)
			}
		}
	}
	return w
}

// call is one public operation to try on a broken device.
type call struct {
	name string
	do   func() error
}

// calls lists every device- and stream-level operation, on the stream in
// each lifecycle state.
func (w *deviceWorld) calls() []call {
	d, drv := w.d, w.drv
	out := []call{
		{"Device.Err", d.Err},
		{"Device.Kernel", func() error { _, err := d.Kernel(gputest.ScaleWGSL, "main"); return err }},
		// The driver boundary the recorder encodes through is checked too:
		// it is what would hand a dead native device to wgpu-native.
		{"driver.NewBuffer", func() error { _, err := drv.NewBuffer(64, driver.UsageStorage, "t"); return err }},
		{"driver.NewEncoder", func() error { _, err := drv.NewEncoder(); return err }},
		{"driver.NewProgram", func() error { _, err := drv.NewProgram(); return err }},
		{"recorder.New", func() error { _, err := recorder.New(d); return err }},
		{"Graph.Replay", w.graph.Replay},
		{"Graph.Rebind", func() error {
			g, err := w.graph.Rebind(w.bufs[lifecycle.NoCapture][0], w.spare)
			if g != nil {
				g.Release()
			}
			return err
		}},
	}
	for _, st := range allStates {
		s, a, b := w.streams[st], w.bufs[st][0], w.bufs[st][1]
		p := func(name string) string { return fmt.Sprintf("%v/Stream.%s", st, name) }
		out = append(out,
			call{p("Empty"), func() error { _, err := s.Alloc(64); return err }},
			call{p("Upload"), func() error { _, err := s.Upload(make([]byte, 16)); return err }},
			call{p("Launch"), func() error { return gputest.Chain(s, w.k, a, b, 2, 16) }},
			call{p("Write"), func() error { return recorder.WriteSlice(s, a, 0, gputest.Fill(16, 5)) }},
			call{p("Read"), func() error { _, err := s.Read(a); return err }},
			call{p("ReadContext"), func() error {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				_, err := s.ReadContext(ctx, a)
				return err
			}},
			call{p("Sync"), s.Sync},
			call{p("SyncContext"), func() error {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				return s.SyncContext(ctx)
			}},
			call{p("StartProfile"), func() error { _, err := s.StartProfile(); return err }},
			call{p("EndProfile"), func() error { _, err := s.EndProfile(w.tok); return err }},
			call{p("GraphPrepare"), s.PrepareCapture},
			call{p("BeginCapture"), s.BeginCapture},
			call{p("EndCapture"), func() error { return endCaptureErr(s) }},
			call{p("AbortCapture"), s.AbortCapture},
			call{p("Flush"), s.Flush},
			call{p("Copy"), func() error { return s.Copy(b, 0, a, 0, a.Size()) }},
			call{p("Clear"), func() error { return s.Clear(a, 0, a.Size()) }},
			call{p("Trim"), func() error { _, err := s.Trim(); return err }},
			call{p("NewTexture"), func() error {
				_, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8unorm"})
				return err
			}},
			call{p("NewSampler"), func() error { _, err := s.NewSampler(recorder.SamplerDesc{}); return err }},
		)
	}
	s := w.streams[lifecycle.NoCapture]
	out = append(out, call{"no_capture/Stream.ProfileReplay", func() error { _, err := s.ProfileReplay(w.graph); return err }})
	return out
}

// checkBroken runs every call and wants each to fail fast with an error
// wrapping sentinel (and naming its operation); then releases and closes
// what is left, which must not hang or panic either.
func (w *deviceWorld) checkBroken(t *testing.T, sentinel error, rule string) {
	for _, c := range w.calls() {
		err := within(t, 10*time.Second, c.name, c.do)
		if !errors.Is(err, sentinel) {
			t.Errorf("%s: %s: want an error wrapping %q, got %v", c.name, rule, sentinel, err)
		}
	}
	_ = within(t, 10*time.Second, "Graph.Release", func() error { w.graph.Release(); return nil })
	if err := w.graph.Replay(); !errors.Is(err, sentinel) && !errors.Is(err, wgpu.ErrReleased) {
		t.Errorf("Replay of a released graph of a broken device: want %q or ErrReleased, got %v", sentinel, err)
	}
	for st, s := range w.streams {
		w.bufs[st][0].Release()
		err := within(t, 10*time.Second, fmt.Sprintf("%v/Stream.Close", st), s.Close)
		if err != nil && !errors.Is(err, sentinel) {
			t.Errorf("%v: Stream.Close on a broken device returns nil or an error wrapping %q, got %v", st, sentinel, err)
		}
		if err := s.Sync(); !errors.Is(err, wgpu.ErrClosed) {
			t.Errorf("%v: a closed stream answers ErrClosed, got %v", st, err)
		}
	}
	if err := within(t, 10*time.Second, "Device.Close", w.d.Close); err != nil {
		t.Errorf("Device.Close of a broken device returns nil, got %v", err)
	}
	if err := w.d.Close(); err != nil {
		t.Errorf("Device.Close is idempotent, got %v", err)
	}
}

// TestEveryCallAfterDeviceCloseReturnsErrClosed: after Device.Close, every
// device-level call and every call on a stream of the device (in each
// lifecycle state, with a graph and a running profile) returns an error
// wrapping wgpu.ErrClosed at once, and releasing and closing what is left
// neither hangs nor panics, nor breaks the next device the process opens
// (it runs in a fresh process, which then opens a device and computes).
// Without it, a stream would hand a released native device to wgpu-native,
// which aborts the process.
func TestEveryCallAfterDeviceCloseReturnsErrClosed(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		w := newDeviceWorld(t)
		if err := w.d.Close(); err != nil {
			t.Fatalf("Device.Close: %v", err)
		}
		w.checkBroken(t, wgpu.ErrClosed, "after Device.Close every call returns ErrClosed")
	})
}

// TestStreamCloseAfterDeviceCloseDropsUnsubmittedWork: launches encoded but
// not yet submitted when the device closes are dropped: the stream's later
// calls return ErrClosed and its Close returns nil or ErrClosed instead of
// submitting or ending a pass over released pipelines (it runs in a fresh
// process, so an abort fails this test alone). Without it, closing a device
// before its streams, as a deferred Close does on an error path, aborts the
// process.
func TestStreamCloseAfterDeviceCloseDropsUnsubmittedWork(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		d := gputest.Open(t, wgpu.Options{})
		s := gputest.Stream(t, d)
		k := gputest.Kernel(t, d, gputest.AddOneWGSL)
		a := gputest.Upload(t, s, gputest.Fill(64, 0))
		b := gputest.Empty(t, s, a.Size())
		if err := gputest.Chain(s, k, a, b, 4, 64); err != nil { // under the first submission chunk: encoded, not submitted
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatalf("Device.Close: %v", err)
		}
		if err := s.Sync(); !errors.Is(err, wgpu.ErrClosed) {
			t.Fatalf("Sync after Device.Close must return ErrClosed, got %v", err)
		}
		if err := within(t, 10*time.Second, "Stream.Close", s.Close); err != nil && !errors.Is(err, wgpu.ErrClosed) {
			t.Fatalf("Stream.Close after Device.Close drops the unsubmitted launches: want nil or ErrClosed, got %v", err)
		}
	})
}

// TestEveryCallAfterDeviceLossReturnsErrDeviceLost: after the device is
// lost (Device.InjectLoss runs the device-lost callback's path), every call
// returns an error wrapping wgpu.ErrDeviceLost that carries the reason,
// instead of hanging on a GPU that will never answer; streams in every
// lifecycle state, their graphs and the device still close cleanly, and the
// next device the process opens works (it runs in a fresh process). Without
// it, a driver reset would hang a server in Sync or Read forever.
func TestEveryCallAfterDeviceLossReturnsErrDeviceLost(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		w := newDeviceWorld(t)
		driver.InjectLoss(w.d, "reliability suite")
		gputest.WantErr(t, "Device.Err reports the loss with its reason", w.d.Err(), []error{wgpu.ErrDeviceLost}, "reliability suite")
		if errors.Is(w.d.Err(), wgpu.ErrClosed) {
			t.Fatalf("a lost device is not a closed one: %v", w.d.Err())
		}
		w.checkBroken(t, wgpu.ErrDeviceLost, "after the device is lost every call returns ErrDeviceLost")
	})
}

// TestCancelledContextEndsSyncAndReadAtOnce: SyncContext and ReadContext
// with an already-cancelled context return an error wrapping
// context.Canceled (naming the operation) without waiting, and leave the
// work enqueued: a plain Sync then completes it and the result is exact.
// Without it, a caller's cancellation would be ignored or would drop work.
func TestCancelledContextEndsSyncAndReadAtOnce(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(1024, 0))
	b := gputest.Empty(t, s, a.Size())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := gputest.Chain(s, k, a, b, 20, 1024); err != nil {
		t.Fatal(err)
	}
	err := within(t, 5*time.Second, "SyncContext(cancelled)", func() error { return s.SyncContext(ctx) })
	gputest.WantErr(t, "SyncContext with a cancelled context", err, []error{context.Canceled}, "Sync")
	var re *recorder.Error
	if !errors.As(err, &re) {
		t.Fatalf("SyncContext's error must be a *recorder.Error, got %T", err)
	}
	_, err = s.ReadContext(ctx, a)
	gputest.WantErr(t, "ReadContext with a cancelled context", err, []error{context.Canceled}, "Read")
	if err := s.Sync(); err != nil {
		t.Fatalf("the cancelled sync left the work enqueued; Sync completes it: %v", err)
	}
	gputest.WantEqual(t, "the work enqueued before the cancelled sync ran whole", gputest.Fill(1024, 20), gputest.Read(t, s, a))
}

// TestSyncContextDeadlineOnALongWorkload: SyncContext with a short deadline
// on a workload that takes far longer returns by the deadline (plus
// scheduling slack) with an error wrapping context.DeadlineExceeded, or
// nil if the GPU was faster; it never waits out the workload. The work stays
// enqueued, so a plain Sync completes it and the result is exact. Without
// it, a hung GPU would hold the caller past any deadline.
func TestSyncContextDeadlineOnALongWorkload(t *testing.T) {
	skipIfShort(t)
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	const elems = 1 << 20
	a := gputest.Upload(t, s, gputest.Fill(elems, 0))
	b := gputest.Empty(t, s, a.Size())
	// Measure one round, then enqueue enough for ~1.5 s of GPU work.
	start := time.Now()
	if err := gputest.Chain(s, k, a, b, 2, elems); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	per := time.Since(start) / 2
	n := 2 * int(min(max(750*time.Millisecond/max(per, time.Microsecond), 4), 2000))
	if err := gputest.Chain(s, k, a, b, n, elems); err != nil {
		t.Fatal(err)
	}
	// Submit what is encoded first, so the clock below times the wait only.
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	const deadline = 20 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start = time.Now()
	err := within(t, 30*time.Second, "SyncContext(deadline)", func() error { return s.SyncContext(ctx) })
	took := time.Since(start)
	t.Logf("%d launches of %d floats (≈%v each): SyncContext(%v) returned after %v: %v", n, elems, per, deadline, took, err)
	if err != nil {
		gputest.WantErr(t, "a SyncContext that ran out of time", err, []error{context.DeadlineExceeded}, "Sync")
	}
	if took > deadline+time.Second {
		t.Fatalf("SyncContext must return by its deadline (%v) plus slack, took %v", deadline, took)
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("the work stays enqueued after the deadline; Sync completes it: %v", err)
	}
	gputest.WantFloats(t, "every launch ran", gputest.Fill(elems, float32(n+2)), gputest.Read(t, s, a))
}
