package tests

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestGoroutinesLaunchCaptureAndReplayConcurrentlyOnOneDevice: several
// goroutines on several streams of one device at once: eager chains on
// shared streams (each goroutine on its own buffers), capture → replay →
// release cycles on streams of their own, and concurrent replays of two
// graphs of one stream. Every result is exact and the run is clean under
// -race. Without it, a data race between streams sharing the device's
// queue, dependents and kernel cache, or between a Replay and a Read, goes
// unseen.
func TestGoroutinesLaunchCaptureAndReplayConcurrentlyOnOneDevice(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	const (
		eagerStreams   = 2
		eagerPerStream = 3
		captureStreams = 2
		rounds         = 6
		chainLen       = 8
		elems          = 32
	)
	var errs collect
	var wg sync.WaitGroup

	// Eager: goroutines share a stream, each on its own buffers.
	for si := range eagerStreams {
		s := gputest.Stream(t, d)
		for gi := range eagerPerStream {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := eagerChains(s, k, si, gi, rounds, chainLen, elems); err != nil {
					errs.add(err)
				}
			}()
		}
	}

	// Capture cycles: one goroutine per stream owns its lifecycle.
	for ci := range captureStreams {
		s := gputest.Stream(t, d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := recorder.UploadSlice(s, gputest.Fill(elems, float32(ci)))
			if err != nil {
				errs.add(err)
				return
			}
			b, _ := s.Alloc(a.Size())
			total := float32(ci)
			for r := range rounds {
				var g *recorder.Graph
				err := func() error {
					step := func() error { return gputest.Chain(s, k, a, b, chainLen, elems) }
					if err := s.PrepareCapture(); err != nil {
						return err
					}
					if err := step(); err != nil {
						return err
					}
					if err := s.BeginCapture(); err != nil {
						return err
					}
					if err := step(); err != nil {
						return err
					}
					var err error
					if g, err = s.EndCapture(); err != nil {
						return err
					}
					defer g.Release()
					for range 3 {
						if err := g.Replay(); err != nil {
							return err
						}
					}
					return nil
				}()
				if err != nil {
					errs.add(fmt.Errorf("capture stream %d round %d: %w", ci, r, err))
					return
				}
				total += 4 * chainLen // warmup + 3 replays
				var got []float32
				got, err = recorder.ReadSlice[float32](s, a)
				if err != nil {
					errs.add(err)
					return
				}
				if fmt.Sprint(got) != fmt.Sprint(gputest.Fill(elems, total)) {
					errs.add(fmt.Errorf("capture stream %d round %d: got %v, want all %v", ci, r, got[:4], total))
					return
				}
			}
		}()
	}

	// Concurrent replays of two graphs of one stream, on disjoint buffers.
	rs := gputest.Stream(t, d)
	x := gputest.Upload(t, rs, gputest.Fill(elems, 0))
	y := gputest.Upload(t, rs, gputest.Fill(elems, 0))
	gx := gputest.Capture(t, rs, func() {
		if err := rs.Launch(add, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
			t.Fatal(err)
		}
	})

	gy := gputest.Capture(t, rs, func() {
		if err := rs.Launch(add, recorder.Groups(1, 1, 1), y, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
	})

	const replayers, replays = 3, 40
	for i := range replayers {
		g := gx
		if i == replayers-1 {
			g = gy
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range replays {
				if err := g.Replay(); err != nil {
					errs.add(err)
					return
				}
			}
		}()
	}
	waitAll(t, &wg, 2*time.Minute, "concurrent launches, captures and replays")
	errs.report(t)
	if t.Failed() {
		return
	}
	gputest.WantEqual(t, "x: warmup + 2 goroutines × 40 replays of +1", gputest.Fill(elems, 1+2*replays), gputest.Read(t, rs, x))
	gputest.WantEqual(t, "y: warmup + 1 goroutine × 40 replays of +2", gputest.Fill(elems, 2+2*replays), gputest.Read(t, rs, y))
}

// eagerChains is goroutine gi on eager stream si of
// TestGoroutinesLaunchCaptureAndReplayConcurrentlyOnOneDevice: rounds of
// chainLen add-ones on buffers of its own, each checked by a read.
func eagerChains(s *recorder.Stream, k *wgpu.Kernel, si, gi, rounds, chainLen, elems int) error {
	start := float32(1000*si + 100*gi)
	a, err := recorder.UploadSlice(s, gputest.Ramp(elems, start))
	if err != nil {
		return err
	}
	defer a.Release()
	b, err := s.Alloc(a.Size())
	if err != nil {
		return err
	}
	defer b.Release()
	for r := range rounds {
		if err := gputest.Chain(s, k, a, b, chainLen, uint32(elems)); err != nil {
			return err
		}
		var got []float32
		got, err := recorder.ReadSlice[float32](s, a)
		if err != nil {
			return err
		}
		if want := gputest.Plus(gputest.Ramp(elems, start), float32(chainLen*(r+1))); fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("eager stream %d goroutine %d round %d: got %v, want %v", si, gi, r, got[:4], want[:4])
		}
	}
	return nil
}

// TestStreamCloseWhileInUseReturnsErrClosed: closing a stream while other
// goroutines launch, write, read, sync, replay, allocate and profile on it
// makes each of them return an error wrapping wgpu.ErrClosed within bounded
// time: no panic, no hang, no other error (a graph Close released answers
// ErrClosed, not ErrReleased), and every read that succeeded before the
// close returned exact data. Without it, Close could free pages, encoders,
// query sets or staging buffers under a call in flight.
func TestStreamCloseWhileInUseReturnsErrClosed(t *testing.T) {
	skipIfShort(t)
	for _, set := range []struct {
		name  string
		loads []string
	}{
		{"calls", []string{"launch", "write", "sync", "empty"}},
		{"reads", []string{"read", "launch", "write"}},
		{"replays", []string{"replay", "launch", "sync"}},
	} {
		t.Run(set.name, func(t *testing.T) {
			for round := range 3 {
				t.Run(fmt.Sprint("round ", round), func(t *testing.T) {
					closeWhileInUse(t, set.loads, time.Duration(round)*5*time.Millisecond)
				})
			}
		})
	}
}

// TestStreamCloseWhileProfilingReturnsErrClosed: the same for a goroutine
// starting and ending profiles (query sets, resolve and staging buffers)
// while the stream closes, several times over; it runs in a fresh process
// that opens a device afterwards, since what a racing Close leaves behind
// can break the next device. Without it, a profile's query set or staging
// buffer could outlive its stream or be freed under EndProfile.
func TestStreamCloseWhileProfilingReturnsErrClosed(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		for round := range 8 {
			t.Run(fmt.Sprint("round ", round), func(t *testing.T) {
				closeWhileInUse(t, []string{"profile"}, time.Duration(round%4)*5*time.Millisecond)
			})
		}
	})
}

// closeWhileInUse starts one goroutine per named call, each looping it
// until it fails; once every one has completed a call it waits delay,
// closes the stream, and checks every goroutine ended with nil or ErrClosed,
// promptly, and that the closed stream holds no native object.
func closeWhileInUse(t *testing.T, names []string, delay time.Duration) {
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(16, 0))
	y := gputest.Upload(t, s, gputest.Fill(16, 0))
	z := gputest.Upload(t, s, gputest.Fill(16, 0))
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), z, gputest.F32(1)); err != nil {
			t.Fatal(err)
		}
	})

	all := map[string]func() error{
		"launch": func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)) },
		"write":  func() error { return recorder.WriteSlice(s, y, 0, gputest.Fill(16, 3)) },
		"read": func() error {
			v, err := recorder.ReadSlice[float32](s, y)
			if err == nil && fmt.Sprint(v) != fmt.Sprint(gputest.Fill(16, 3)) && fmt.Sprint(v) != fmt.Sprint(gputest.Fill(16, 0)) {
				return fmt.Errorf("a read before the close returned %v, want all 0 or all 3", v)
			}
			return err
		},
		"sync":   s.Sync,
		"replay": g.Replay,
		"empty": func() error {
			b, err := s.Alloc(64)
			b.Release()
			return err
		},
		"profile": func() error {
			tok, err := s.StartProfile()
			if err != nil {
				return err
			}
			_, err = s.EndProfile(tok)
			return err
		},
	}
	var wg sync.WaitGroup
	var errs collect
	started := make(chan struct{}, len(names))
	for _, name := range names {
		run := all[name]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				if i == 1 {
					started <- struct{}{}
				}
				err := run()
				if err == nil {
					continue
				}
				if !errors.Is(err, wgpu.ErrClosed) {
					errs.add(fmt.Errorf("%s while the stream closes: want nil or an error wrapping ErrClosed, got %v", name, err))
				}
				if i == 0 {
					started <- struct{}{}
				}
				return
			}
		}()
	}
	for range names {
		<-started
	}
	time.Sleep(delay)
	if err := s.Close(); err != nil {
		t.Errorf("Close with nothing queued must return nil: %v", err)
	}
	waitAll(t, &wg, time.Minute, "calls racing Close")
	errs.report(t)
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); !errors.Is(err, wgpu.ErrClosed) {
		t.Fatalf("after Close every call returns ErrClosed, got %v", err)
	}
	if err := g.Replay(); !errors.Is(err, wgpu.ErrClosed) {
		t.Fatalf("after Close, Replay of the stream's graph returns ErrClosed, got %v", err)
	}
	if err := d.Err(); err != nil {
		t.Fatalf("closing a stream leaves its device open: %v", err)
	}
	if n := live(t, d); n != (driver.Live{Kernels: 1}) {
		t.Fatalf("once the calls racing Close have returned, the closed stream must hold no native object: live %+v", n)
	}
}

// TestDeviceCloseWhileStreamsAreInUseReturnsErrClosed: closing the device
// while goroutines launch, read, capture and replay on two of its streams
// makes every later call return an error wrapping wgpu.ErrClosed: no panic,
// no hang, and nothing but nil or ErrClosed is returned. The streams'
// own Close then still succeeds or reports ErrClosed, and the next device
// the process opens works (it runs in a fresh process). Without it, Close
// could release the native device under a call in flight.
func TestDeviceCloseWhileStreamsAreInUseReturnsErrClosed(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, deviceCloseWhileStreamsAreInUse)
}

func deviceCloseWhileStreamsAreInUse(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	var streams []*recorder.Stream
	var errs collect
	var wg sync.WaitGroup
	ready := make(chan struct{}, 8)
	for i := range 2 {
		s, err := recorder.New(d)
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, s)
		a := gputest.Upload(t, s, gputest.Fill(32, 0))
		b := gputest.Empty(t, s, a.Size())
		g := gputest.Capture(t, s, func() {
			if err := gputest.Chain(s, k, a, b, 4, 32); err != nil {
				t.Fatal(err)
			}
		})
		c := gputest.Upload(t, s, gputest.Fill(32, 0))
		cb := gputest.Empty(t, s, c.Size())
		ops := []func() error{
			func() error { return g.Replay() },
			func() error { _, err := s.Read(a); return err },
		}
		if i == 0 {
			// The capturer gets a stream of its own: its lifecycle must not
			// meet the replays above.
			s2, err := recorder.New(d)
			if err != nil {
				t.Fatal(err)
			}
			streams = append(streams, s2)
			c2 := gputest.Upload(t, s2, gputest.Fill(32, 0))
			cb2 := gputest.Empty(t, s2, c2.Size())
			ops = append(ops, func() error {
				if err := s2.PrepareCapture(); err != nil {
					return err
				}
				if err := gputest.Chain(s2, k, c2, cb2, 2, 32); err != nil {
					return err
				}
				if err := s2.BeginCapture(); err != nil {
					return err
				}
				_ = gputest.Chain(s2, k, c2, cb2, 2, 32)
				g, err := s2.EndCapture()
				if err != nil {
					return err
				}
				defer g.Release()
				return g.Replay()
			})
		} else {
			ops = append(ops, func() error { return gputest.Chain(s, k, c, cb, 4, 32) })
		}
		for j, op := range ops {
			wg.Add(1)
			go func() {
				defer wg.Done()
				began := time.Now()
				for n := 0; ; n++ {
					if n == 1 {
						if took := time.Since(began); took > time.Second {
							t.Logf("stream %d op %d: its first call took %v while the others ran", i, j, took)
						}
						ready <- struct{}{}
					}
					err := op()
					if err == nil {
						continue
					}
					if !errors.Is(err, wgpu.ErrClosed) {
						errs.add(fmt.Errorf("stream %d op %d while the device closes: want nil or ErrClosed, got %v", i, j, err))
					}
					if n == 0 {
						ready <- struct{}{}
					}
					return
				}
			}()
		}
	}
	start := time.Now()
	for range 6 {
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			// Close anyway, so the calls end, and report the starvation.
			t.Errorf("a call has not completed once in 30 s while the others ran: it is starved (see TestReadCompletesWhileOtherGoroutinesKeepTheStreamBusy)")
			_ = within(t, 30*time.Second, "Device.Close", d.Close)
			waitAll(t, &wg, time.Minute, "stream calls racing Device.Close")
			return
		}
	}
	t.Logf("every call ran once after %v", time.Since(start))
	time.Sleep(10 * time.Millisecond)
	start = time.Now()
	if err := within(t, 30*time.Second, "Device.Close racing its streams' calls", d.Close); err != nil {
		t.Fatalf("Device.Close: %v", err)
	}
	t.Logf("Device.Close returned after %v", time.Since(start))
	waitAll(t, &wg, time.Minute, "stream calls racing Device.Close")
	errs.report(t)
	gputest.WantErr(t, "after Device.Close, Device.Err reports it", d.Err(), []error{wgpu.ErrClosed})
	for i, s := range streams {
		if err := s.Sync(); !errors.Is(err, wgpu.ErrClosed) {
			t.Errorf("stream %d: after Device.Close, Sync must return ErrClosed, got %v", i, err)
		}
		if _, err := s.Alloc(64); !errors.Is(err, wgpu.ErrClosed) {
			t.Errorf("stream %d: after Device.Close, Empty must return ErrClosed, got %v", i, err)
		}
		if err := s.Close(); err != nil && !errors.Is(err, wgpu.ErrClosed) {
			t.Errorf("stream %d: Close after Device.Close must return nil or ErrClosed, got %v", i, err)
		}
	}
}

// TestReadCompletesWhileOtherGoroutinesKeepTheStreamBusy: a Read (and a
// Sync) on a stream that other goroutines keep feeding with replays and
// launches completes in bounded time, with exact data: it waits for the
// work enqueued before it, not for work others enqueue while it waits.
// Without it, a Read released the stream's lock while it waited for the
// submitter and then waited until nothing at all was in flight, which
// never happened while the others kept enqueuing (seen: a Read starved for
// 2 minutes on GL, 20 s on lavapipe, behind a replay loop).
func TestReadCompletesWhileOtherGoroutinesKeepTheStreamBusy(t *testing.T) {
	skipIfShort(t)
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 0))
	b := gputest.Empty(t, s, a.Size())
	g := gputest.Capture(t, s, func() {
		if err := gputest.Chain(s, k, a, b, 4, 64); err != nil {
			t.Fatal(err)
		}
	})
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var errs collect
	for i, feed := range []func() error{
		g.Replay,
		func() error { return s.Launch(add, recorder.Groups(1, 1, 1), x, gputest.F32(1)) },
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := feed(); err != nil {
					errs.add(fmt.Errorf("feeder %d: %v", i, err))
					return
				}
			}
		}()
	}
	defer func() {
		close(stop)
		waitAll(t, &wg, time.Minute, "the feeding goroutines")
		errs.report(t)
	}()
	y := gputest.Upload(t, s, gputest.Fill(64, 7))
	// What a Read waits for is at most the open batch and the few handed to
	// the submitter: milliseconds of this work on lavapipe. The limit is
	// far above that, and far below what waiting for the feeders to pause
	// costs.
	const limit = 2 * time.Second
	var slowest time.Duration
	defer func() { t.Logf("the slowest Read or Sync took %v", slowest) }()
	for i := range 10 {
		start := time.Now()
		err := within(t, 30*time.Second, "Read", func() error {
			got, err := recorder.ReadSlice[float32](s, y)
			if err == nil && fmt.Sprint(got) != fmt.Sprint(gputest.Fill(64, float32(7+i))) {
				return fmt.Errorf("read %d returned %v, want all %d", i, got[:4], 7+i)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		slowest = max(slowest, took)
		if took > limit {
			t.Fatalf("read %d took %v while other goroutines kept the stream busy: a Read waits for the work enqueued before it, not for everything enqueued while it waits (limit %v)", i, took, limit)
		}
		if err := recorder.WriteSlice(s, y, 0, gputest.Fill(64, float32(8+i))); err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		if err := within(t, 30*time.Second, "Sync", s.Sync); err != nil {
			t.Fatal(err)
		}
		took = time.Since(start)
		slowest = max(slowest, took)
		if took > limit {
			t.Fatalf("sync %d took %v while other goroutines kept the stream busy (limit %v)", i, took, limit)
		}
	}
}
