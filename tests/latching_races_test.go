package tests

import (
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// latchLoopRun captures, on s, a latched While (kernel first, then a nested
// If, then the countdown) and replays it for each condition, comparing
// with the Go model; it returns the first error or mismatch. For use from
// goroutines (no testing.T).
func latchLoopRun(s *recorder.Stream, first, bump, toggle, count *wgpu.Kernel, conds []uint32) error {
	const max = 5
	one := recorder.Groups(1, 1, 1)
	st, err := recorder.UploadSlice(s, []uint32{0, 0})
	if err != nil {
		return err
	}
	defer st.Release()
	flag, err := recorder.UploadSlice(s, []uint32{0, 0})
	if err != nil {
		return err
	}
	defer flag.Release()
	v, err := recorder.UploadSlice(s, latchZeros(16))
	if err != nil {
		return err
	}
	defer v.Release()
	u, err := recorder.UploadSlice(s, latchZeros(16))
	if err != nil {
		return err
	}
	defer u.Release()
	g, err := s.Capture(func() error {
		return s.While(st, 0, max, func() error {
			if err := s.Launch(first, recorder.Groups(2, 1, 1), v); err != nil {
				return err
			}
			if err := s.Launch(toggle, one, flag); err != nil {
				return err
			}
			if err := s.If(flag, 0, func() error { return s.Launch(bump, recorder.Groups(2, 1, 1), u) }); err != nil {
				return err
			}
			return s.Launch(count, one, st)
		})
	})
	if err != nil {
		return err
	}
	defer g.Release()
	for _, n := range conds {
		for _, w := range []struct {
			b *recorder.Buffer
			v []uint32
		}{{st, []uint32{n, 0}}, {flag, []uint32{0, 0}}, {v, latchZeros(16)}, {u, latchZeros(16)}} {
			if err := recorder.WriteSlice(s, w.b, 0, w.v); err != nil {
				return err
			}
		}
		if err := g.Replay(); err != nil {
			return err
		}
		it := min(n, max)
		want := [][]uint32{{n - it, it}, {it % 2, it}, latchBumpModel(16, it), latchBumpModel(16, (it+1)/2)}
		var got [][]uint32
		for _, b := range []*recorder.Buffer{st, flag, v, u} {
			r, err := recorder.ReadSlice[uint32](s, b)
			if err != nil {
				return err
			}
			got = append(got, r)
		}
		if !reflect.DeepEqual(want, got) {
			return fmt.Errorf("%w: replay with n=%d: got %v, want %v", errMismatch, n, got, want)
		}
	}
	return nil
}

// TestLatchedLoopsOnConcurrentStreamsOfOneDeviceMatchTheModel: goroutines on
// streams of one device (half predicated, half not) capture and replay
// latched loops built from the same kernels at once — the variants are
// made once per device and shared — and every replay matches the model.
func TestLatchedLoopsOnConcurrentStreamsOfOneDeviceMatchTheModel(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	bump := latchKernel(t, d, latchBump, "main")
	toggle := latchKernel(t, d, latchToggle, "toggle")
	count := latchKernel(t, d, latchCountdown, "countdown")
	const workers, rounds = 4, 4
	var streams []*recorder.Stream
	for i := range workers {
		streams = append(streams, gputest.Stream(t, d, recorder.WithPredication(i%2 == 0)))
	}
	errs := make(chan error, workers)
	for i := range workers {
		go func() {
			for r := range rounds {
				if err := latchLoopRun(streams[i], bump, bump, toggle, count, []uint32{uint32(r + i), 0, 7}); err != nil {
					errs <- fmt.Errorf("worker %d round %d: %w", i, r, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		select {
		case err := <-errs:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the workers hung")
		}
	}
}

// TestKernelReleaseRacingLatchedCapturesFailsOrReplaysExactly: a kernel that
// is the latching first dispatch (or the kernel of an If nested in the loop)
// of While bodies being captured on several streams is released at a random
// moment, then compiled again, over many rounds. Every capture either fails
// with an error wrapping ErrReleased or seals a graph that replays exactly
// as the model says (after the Release too); nothing crashes or hangs, and
// once everything is released no kernel (original or variant) is left alive
// beyond the shared ones.
func TestKernelReleaseRacingLatchedCapturesFailsOrReplaysExactly(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		d := gputest.Open(t, wgpu.Options{})
		bump := latchKernel(t, d, latchBump, "main")
		toggle := latchKernel(t, d, latchToggle, "toggle")
		count := latchKernel(t, d, latchCountdown, "countdown")
		const workers, rounds = 3, 12
		var streams []*recorder.Stream
		for i := range workers {
			streams = append(streams, gputest.Stream(t, d, recorder.WithPredication(i != 2)))
		}
		ok, refused := 0, 0
		deadline := time.AfterFunc(90*time.Second, func() { panic("TestKernelReleaseRacingLatchedCapturesFailsOrReplaysExactly hung") })
		defer deadline.Stop()
		for r := range rounds {
			// A distinct source each round: a fresh kernel, fresh variants.
			k, err := d.Kernel(latchBump+"\n// round "+itoa(r)+"\n", "main")
			if err != nil {
				t.Fatal(err)
			}
			errs := make(chan error, workers)
			// Even rounds: k is the latching first dispatch; odd rounds: the
			// kernel of the If nested in the loop (a plain variant, gated).
			first, nested := k, bump
			if r%2 == 1 {
				first, nested = bump, k
			}
			for i := range workers {
				go func() { errs <- latchLoopRun(streams[i], first, nested, toggle, count, []uint32{3, 0, 9}) }()
			}
			time.Sleep(time.Duration(r) * 700 * time.Microsecond)
			k.Release()
			for range workers {
				err := <-errs
				switch {
				case err == nil:
					ok++
				case errors.Is(err, errMismatch):
					t.Errorf("round %d: %v", r, err)
				case errors.Is(err, wgpu.ErrReleased):
					refused++
				default:
					t.Errorf("round %d: an error that does not wrap ErrReleased: %v", r, err)
				}
			}
		}
		t.Logf("%d captures sealed and replayed correctly, %d refused with ErrReleased", ok, refused)
		for _, s := range streams {
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
		}
		drv, err := driver.Of(d)
		if err != nil {
			t.Fatal(err)
		}
		// bump, toggle, count and the variants of toggle, bump, count made
		// for the bodies (plain and latching) stay; nothing of the
		// released kernels.
		if live := drv.Live().Kernels; live > 3+6 {
			t.Errorf("%d kernels alive after every graph and released kernel is gone, want at most 9 (3 kernels and their variants)", live)
		}
	})
}

// TestDeviceCloseRacingLatchedLoopsNeverReturnsAWrongResult: the device
// closes while goroutines capture and replay latched loops on its streams.
// Every call returns (nil before the Close, an error after it, never a wrong
// result), nothing crashes or hangs, and a device opened afterwards
// computes.
func TestDeviceCloseRacingLatchedLoopsNeverReturnsAWrongResult(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		for round := range 3 {
			d, err := wgpu.Open(wgpu.Options{})
			gputest.SkipIfNoAdapter(t, err)
			if err != nil {
				t.Fatal(err)
			}
			bump, err1 := d.Kernel(latchBump, "main")
			toggle, err2 := d.Kernel(latchToggle, "toggle")
			count, err3 := d.Kernel(latchCountdown, "countdown")
			if err := errors.Join(err1, err2, err3); err != nil {
				t.Fatal(err)
			}
			const workers = 3
			errs := make(chan error, workers)
			var runs atomic.Int32
			for i := range workers {
				go func() {
					s, err := recorder.New(d, recorder.WithPredication(i != 1))
					if err != nil {
						errs <- err
						return
					}
					defer s.Close()
					for {
						if err := latchLoopRun(s, bump, bump, toggle, count, []uint32{2, 5}); err != nil {
							errs <- err
							return
						}
						runs.Add(1)
					}
				}()
			}
			time.Sleep(time.Duration(20+30*round) * time.Millisecond)
			done := make(chan error)
			go func() { done <- d.Close() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Close: %v", err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("Close hung")
			}
			t.Logf("round %d: %d loops captured and checked before the Close", round, runs.Load())
			for range workers {
				select {
				case err := <-errs:
					if errors.Is(err, errMismatch) {
						t.Errorf("round %d: %v", round, err)
					} else if !errors.Is(err, wgpu.ErrClosed) && !errors.Is(err, wgpu.ErrReleased) {
						t.Errorf("round %d: a worker stopped with an error that is neither ErrClosed nor ErrReleased: %v", round, err)
					}
				case <-time.After(60 * time.Second):
					t.Fatal("a worker hung after the Close")
				}
			}
		}
	})
}
