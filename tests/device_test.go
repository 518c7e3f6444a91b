package tests

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// within runs f and fails the test if it has not returned after limit: a
// call on a closed or lost device must fail fast, never wait for a GPU
// that is gone.
func within(t *testing.T, limit time.Duration, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("%s did not return within %v: a call on a closed or lost device must not hang", what, limit)
		return nil
	}
}

// deviceWorld is a device with a stream in each lifecycle state and one of
// everything made from them, for the closed- and lost-device tests.
type deviceWorld struct {
	d       *wgpu.Device
	streams map[lifecycle.State]*recorder.Stream
	k       *wgpu.Kernel
	bufs    map[lifecycle.State][2]*recorder.Buffer
	graph   *recorder.Graph
	tok     recorder.ProfileToken
}

func newDeviceWorld(t *testing.T) *deviceWorld {
	w := &deviceWorld{d: openDevice(t), streams: map[lifecycle.State]*recorder.Stream{}, bufs: map[lifecycle.State][2]*recorder.Buffer{}}
	w.k = kernel(t, w.d, addOneWGSL)
	for _, st := range allStates {
		s, err := recorder.New(w.d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		a := upload(t, s, fill(16, 0))
		b := empty(t, s, a.Size())
		w.streams[st], w.bufs[st] = s, [2]*recorder.Buffer{a, b}
		if err := chain(s, w.k, a, b, 2, 16); err != nil {
			t.Fatal(err)
		}
		if st == lifecycle.NoCapture {
			w.graph = capture(t, s, func() {
				if err := chain(s, w.k, a, b, 2, 16); err != nil {
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
			continue
		}
		if err := s.GraphPrepare(); err != nil {
			t.Fatal(err)
		}
		if st == lifecycle.Capture {
			if err := s.BeginCapture(); err != nil {
				t.Fatal(err)
			}
			if err := chain(s, w.k, a, b, 2, 16); err != nil {
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
	d := w.d
	out := []call{
		{"Device.Err", d.Err},
		{"Device.Kernel", func() error { _, err := d.Kernel(scaleWGSL, "main"); return err }},
		{"Device.NewBuffer", func() error { _, err := d.NewBuffer(64, wgpu.UsageStorage, "t"); return err }},
		{"Device.NewEncoder", func() error { _, err := d.NewEncoder(); return err }},
		{"recorder.New", func() error { _, err := recorder.New(d); return err }},
		{"Graph.Replay", w.graph.Replay},
	}
	for _, st := range allStates {
		s, a, b := w.streams[st], w.bufs[st][0], w.bufs[st][1]
		p := func(name string) string { return fmt.Sprintf("%v/Stream.%s", st, name) }
		out = append(out,
			call{p("Empty"), func() error { _, err := s.Empty(64); return err }},
			call{p("Upload"), func() error { _, err := s.Upload(make([]byte, 16)); return err }},
			call{p("Launch"), func() error { return chain(s, w.k, a, b, 2, 16) }},
			call{p("Write"), func() error { return recorder.WriteSlice(s, a, 0, fill(16, 5)) }},
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
			call{p("GraphPrepare"), s.GraphPrepare},
			call{p("BeginCapture"), s.BeginCapture},
			call{p("EndCapture"), func() error { return endCaptureErr(s) }},
		)
	}
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
	inFreshProcess(t, "", func(t *testing.T) {
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
	inFreshProcess(t, "", func(t *testing.T) {
		d := openDevice(t)
		s := newStream(t, d)
		k := kernel(t, d, addOneWGSL)
		a := upload(t, s, fill(64, 0))
		b := empty(t, s, a.Size())
		if err := chain(s, k, a, b, 4, 64); err != nil { // under the first submission chunk: encoded, not submitted
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
	inFreshProcess(t, "", func(t *testing.T) {
		w := newDeviceWorld(t)
		w.d.InjectLoss("reliability suite")
		wantErr(t, "Device.Err reports the loss with its reason", w.d.Err(), []error{wgpu.ErrDeviceLost}, "reliability suite")
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
	d, s := openStream(t)
	k := kernel(t, d, addOneWGSL)
	a := upload(t, s, fill(1024, 0))
	b := empty(t, s, a.Size())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := chain(s, k, a, b, 20, 1024); err != nil {
		t.Fatal(err)
	}
	err := within(t, 5*time.Second, "SyncContext(cancelled)", func() error { return s.SyncContext(ctx) })
	wantErr(t, "SyncContext with a cancelled context", err, []error{context.Canceled}, "Sync")
	var re *recorder.Error
	if !errors.As(err, &re) {
		t.Fatalf("SyncContext's error must be a *recorder.Error, got %T", err)
	}
	_, err = s.ReadContext(ctx, a)
	wantErr(t, "ReadContext with a cancelled context", err, []error{context.Canceled}, "Read")
	if err := s.Sync(); err != nil {
		t.Fatalf("the cancelled sync left the work enqueued; Sync completes it: %v", err)
	}
	wantEqual(t, "the work enqueued before the cancelled sync ran whole", fill(1024, 20), read(t, s, a))
}

// TestSyncContextDeadlineOnALongWorkload: SyncContext with a short deadline
// on a workload that takes far longer returns by the deadline (plus
// scheduling slack) with an error wrapping context.DeadlineExceeded, or
// nil if the GPU was faster; it never waits out the workload. The work stays
// enqueued, so a plain Sync completes it and the result is exact. Without
// it, a hung GPU would hold the caller past any deadline.
func TestSyncContextDeadlineOnALongWorkload(t *testing.T) {
	d, s := openStream(t)
	k := kernel(t, d, addOneWGSL)
	const elems = 1 << 20
	a := upload(t, s, fill(elems, 0))
	b := empty(t, s, a.Size())
	// Measure one round, then enqueue enough for ~1.5 s of GPU work.
	start := time.Now()
	if err := chain(s, k, a, b, 2, elems); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	per := time.Since(start) / 2
	n := 2 * int(min(max(750*time.Millisecond/max(per, time.Microsecond), 4), 2000))
	if err := chain(s, k, a, b, n, elems); err != nil {
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
		wantErr(t, "a SyncContext that ran out of time", err, []error{context.DeadlineExceeded}, "Sync")
	}
	if took > deadline+time.Second {
		t.Fatalf("SyncContext must return by its deadline (%v) plus slack, took %v", deadline, took)
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("the work stays enqueued after the deadline; Sync completes it: %v", err)
	}
	wantFloats(t, "every launch ran", fill(elems, float32(n+2)), read(t, s, a))
}
