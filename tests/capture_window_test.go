package tests

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestEveryCaptureFailureEndsInNoCapture: Capture whose step misuses the
// lifecycle (calls BeginCapture, EndCapture, GraphPrepare, AbortCapture or
// Sync itself, in the warmup or in the recorded run) or returns an error
// fails with an error wrapping the cause, returns no graph, leaves the
// stream in NoCapture with no graph kept, and the stream then syncs,
// computes and captures. Without it a step calling BeginCapture made
// Capture fail but left the stream in Capture, where Sync was refused from
// then on.
func TestEveryCaptureFailureEndsInNoCapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	errStep := errors.New("step failed")
	launch := func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)) }
	cases := []struct {
		name string
		step func(run int) error // run 0: warmup, 1: recorded
		is   error
	}{
		{"step calls BeginCapture in the warmup", func(run int) error {
			if run == 0 {
				_ = s.BeginCapture()
			}
			return launch()
		}, lifecycle.ErrGraphState},
		{"step calls BeginCapture while recording", func(run int) error {
			if run == 1 {
				if err := s.BeginCapture(); err != nil {
					return err
				}
			}
			return launch()
		}, lifecycle.ErrGraphState},
		{"step calls EndCapture while recording", func(run int) error {
			if err := launch(); err != nil {
				return err
			}
			if run == 1 {
				g, err := s.EndCapture()
				if g != nil {
					g.Release()
				}
				return err
			}
			return nil
		}, lifecycle.ErrGraphState},
		{"step calls GraphPrepare", func(int) error {
			if err := s.PrepareCapture(); err != nil {
				return err
			}
			return launch()
		}, lifecycle.ErrGraphState},
		{"step calls AbortCapture while recording", func(run int) error {
			if run == 1 {
				_ = s.AbortCapture()
			}
			return launch()
		}, lifecycle.ErrGraphState},
		{"step calls Sync while recording", func(run int) error {
			if err := launch(); err != nil {
				return err
			}
			return s.Sync()
		}, lifecycle.ErrGraphState},
		{"step fails in the warmup", func(run int) error {
			if run == 0 {
				return errStep
			}
			return launch()
		}, errStep},
		{"step fails while recording", func(run int) error {
			if run == 1 {
				return errStep
			}
			return launch()
		}, errStep},
	}
	want := float32(0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := 0
			g, err := s.Capture(func() error {
				defer func() { run++ }()
				return c.step(run)
			})
			if g != nil {
				g.Release()
				t.Fatalf("a failed Capture returns no graph (err %v)", err)
			}
			gputest.WantErr(t, "Capture fails with the cause", err, []error{c.is})
			wantState(t, "every Capture failure ends in NoCapture", s, lifecycle.NoCapture)
			if n := s.MemoryStats().Graphs; n != 0 {
				t.Fatalf("a failed Capture keeps no graph: %d live", n)
			}
			if err := s.Sync(); err != nil {
				t.Fatalf("the stream syncs after the failed Capture: %v", err)
			}
			got := gputest.Read(t, s, x)
			want = got[0] // how many launches executed is the step's business
			if err := launch(); err != nil {
				t.Fatalf("the stream launches after the failed Capture: %v", err)
			}
			want++
			g, err = s.Capture(launch)
			if err != nil {
				t.Fatalf("the stream captures after the failed Capture: %v", err)
			}
			want++ // the warmup
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			g.Release()
			want++
			gputest.WantEqual(t, "the stream computes after the failed Capture", gputest.Fill(64, want), gputest.Read(t, s, x))
		})
	}
}

// TestAPanickingCaptureStepLeavesTheStreamInNoCapture: Capture promises
// that any failure leaves the stream in NoCapture; a step that panics is a
// failure too. The panic reaches the caller unchanged, and the stream is
// back in NoCapture, re-capturable. Without the fix the stream stayed in
// Prepare or Capture and every later GraphPrepare was refused.
func TestAPanickingCaptureStepLeavesTheStreamInNoCapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())
	for _, run := range []int{1, 2} {
		calls := 0
		p := noPanic(func() {
			_, _ = s.Capture(func() error {
				calls++
				if err := gputest.Chain(s, k, a, b, 2, 64); err != nil {
					return err
				}
				if calls == run {
					panic("step panics")
				}
				return nil
			})
		})
		if p != "step panics" {
			t.Fatalf("run %d: the step's panic must reach the caller unchanged, got %q", run, p)
		}
		if st := s.State(); st != lifecycle.NoCapture {
			t.Fatalf("run %d: after a step panicked the stream must be in NoCapture, is in %v", run, st)
		}
	}
	// The warmups ran twice (2 each); a fresh capture works.
	g, err := s.Capture(func() error { return gputest.Chain(s, k, a, b, 2, 64) })
	if err != nil {
		t.Fatalf("a capture after a panicking step must work: %v", err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	// 1 + 2 (warmup of run 1) + 2 (warmup of run 2) + 2 (warmup) + 2 (replay)
	gputest.WantEqual(t, "the stream computes after a panicking step", gputest.Fill(64, 9), gputest.Read(t, s, a))
}

// TestClosingFromInsideACaptureStepFailsTheCaptureCleanly: a step that
// closes its stream, or the device, during the warmup or the recorded run
// makes Capture return an error wrapping ErrClosed; nothing hangs or
// aborts, and a new device computes afterwards.
func TestClosingFromInsideACaptureStepFailsTheCaptureCleanly(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		for _, what := range []string{"stream", "device"} {
			for _, run := range []int{1, 2} {
				d, err := wgpu.Open(wgpu.Options{})
				gputest.SkipIfNoAdapter(t, err)
				if err != nil {
					t.Fatal(err)
				}
				s, err := recorder.New(d)
				if err != nil {
					t.Fatal(err)
				}
				k := gputest.Kernel(t, d, gputest.AddOneWGSL)
				a := gputest.Upload(t, s, gputest.Fill(64, 1))
				b := gputest.Empty(t, s, a.Size())
				calls := 0
				done := make(chan error, 1)
				go func() {
					_, err := s.Capture(func() error {
						calls++
						if err := gputest.Chain(s, k, a, b, 2, 64); err != nil {
							return err
						}
						if calls == run {
							if what == "stream" {
								return s.Close()
							}
							return d.Close()
						}
						return nil
					})
					done <- err
				}()
				select {
				case err := <-done:
					gputest.WantErr(t, fmt.Sprintf("a capture whose %s closed in run %d fails with ErrClosed", what, run), err, []error{wgpu.ErrClosed})
				case <-time.After(30 * time.Second):
					t.Fatalf("a capture whose %s closed in run %d hung", what, run)
				}
				if err := s.Sync(); !errors.Is(err, wgpu.ErrClosed) {
					t.Fatalf("after closing the %s, Sync must fail with ErrClosed, got %v", what, err)
				}
				_ = s.Close()
				_ = d.Close()
			}
		}
	})
}

// TestHostileCaptureStepsFailTheCaptureCleanly: a Capture step that calls
// Capture (on its own stream, its error returned or ignored, or on
// another), Sync, Read, ProfileReplay of an older graph, StartProfile
// without ending it, AbortCapture (then opening a window of its own), or
// Trim: every outcome is a typed error or a working graph, the stream
// ends in NoCapture, nothing hangs, and the stream computes afterwards. A
// step that abandoned Capture's window and opened another made Capture
// seal the other, without the launches before it; a nested Capture whose
// error the step ignored left its step's launches out of the graph.
func TestHostileCaptureStepsFailTheCaptureCleanly(t *testing.T) {
	d, s := gputest.OpenStream(t)
	other := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 0))
	b := gputest.Empty(t, s, a.Size())
	old := gputest.Capture(t, s, func() {
		gputest.MustChain(t, s, k, a, b, 2, 64)
	})
	oa := gputest.Upload(t, other, gputest.Fill(64, 0))
	ob := gputest.Empty(t, other, oa.Size())
	chain := func() error { return gputest.Chain(s, k, a, b, 2, 64) }
	abortRuns := 0 // the case below abandons the window in the recorded run only
	cases := map[string]struct {
		hostile func() error
		ok      bool // Capture may succeed
	}{
		"nested Capture": {func() error {
			g, err := s.Capture(chain)
			if g != nil {
				g.Release()
			}
			return err
		}, false},
		"Capture of another stream": {func() error {
			g, err := other.Capture(func() error { return gputest.Chain(other, k, oa, ob, 2, 64) })
			if g != nil {
				g.Release()
			}
			return err
		}, true},
		"nested Capture, its error ignored": {func() error {
			g, _ := s.Capture(chain)
			if g != nil {
				g.Release()
			}
			return nil
		}, false},
		"AbortCapture, then a window of its own": {func() error {
			if abortRuns++; abortRuns == 1 {
				return nil // the warmup
			}
			if err := s.AbortCapture(); err != nil {
				return err
			}
			if err := s.PrepareCapture(); err != nil {
				return err
			}
			if err := s.BeginCapture(); err != nil {
				return err
			}
			return chain()
		}, false},
		"Sync":                     {s.Sync, false},
		"Read":                     {func() error { _, err := s.Read(a); return err }, false},
		"ProfileReplay":            {func() error { _, err := s.ProfileReplay(old); return err }, false},
		"StartProfile":             {func() error { _, err := s.StartProfile(); return err }, false},
		"AbortCapture":             {s.AbortCapture, false},
		"Trim":                     {func() error { _, err := s.Trim(); return err }, false},
		"GraphPrepare":             {s.PrepareCapture, false},
		"Replay of an older graph": {old.Replay, true},
	}
	for name, c := range cases {
		calls := 0
		var graph *recorder.Graph
		err := within(t, 30*time.Second, name, func() error {
			var err error
			graph, err = s.Capture(func() error {
				calls++
				if err := chain(); err != nil {
					return err
				}
				return c.hostile()
			})
			return err
		})
		switch {
		case err == nil && !c.ok:
			t.Errorf("%s inside a capture step: Capture succeeded", name)
		case err != nil && c.ok:
			t.Errorf("%s inside a capture step: Capture failed: %v", name, err)
		case err != nil && !errors.Is(err, lifecycle.ErrGraphState) && !errors.Is(err, recorder.ErrInvalidArgument):
			t.Errorf("%s inside a capture step: want an error wrapping ErrGraphState or ErrInvalidArgument, got %v", name, err)
		}
		if graph != nil {
			graph.Release()
		}
		wantState(t, name+" inside a capture step leaves NoCapture", s, lifecycle.NoCapture)
		// A profile the step left running is ended, or refused, with a typed error.
		if tok, err := s.StartProfile(); err == nil {
			if _, err := s.EndProfile(tok); err != nil {
				t.Errorf("%s: EndProfile: %v", name, err)
			}
		} else if !errors.Is(err, recorder.ErrInvalidArgument) {
			t.Errorf("%s: StartProfile after the capture: %v", name, err)
		}
		if err := s.Sync(); err != nil {
			t.Errorf("%s: Sync after the capture: %v", name, err)
		}
		before := gputest.Read(t, s, a)
		gputest.MustChain(t, s, k, a, b, 2, 64)
		gputest.WantEqual(t, name+": the stream computes after the capture", gputest.Plus(before, 2), gputest.Read(t, s, a))
	}
}

// TestCaptureTransitionsRightAfterHeavyEagerTrafficRecordExactlyTheWindow:
// the capture lifecycle moves right behind heavy eager traffic — goroutines
// launching and replaying on the stream until just before GraphPrepare,
// during the warmup (which executes, so their work runs too), and right
// before BeginCapture, EndCapture and AbortCapture (past 512 dispatches from
// one goroutine before BeginCapture, so the stream stalls or waits for its
// submitter), while a second stream keeps launching throughout. The sealed
// graphs replay exactly what they recorded, aborted captures leave nothing
// recorded, and every counter equals the Go model; nothing but the
// documented lifecycle refusals is returned.
func TestCaptureTransitionsRightAfterHeavyEagerTrafficRecordExactlyTheWindow(t *testing.T) {
	skipIfShort(t)
	d := gputest.Open(t, wgpu.Options{})
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	for _, opts := range [][]recorder.Option{nil, {recorder.WithPreEncode(true), recorder.WithFlushDelay(0)}} {
		s := gputest.Stream(t, d, opts...)
		other := gputest.Stream(t, d)
		ox := gputest.Upload(t, other, gputest.Fill(counterElems, 0))
		var oruns atomic.Int64
		ostop := make(chan struct{})
		var owg sync.WaitGroup
		owg.Add(1)
		go func() {
			defer owg.Done()
			bumpUntil(t, other, add, ox, &oruns, ostop)
		}()
		const workers = 3
		xs := make([]*recorder.Buffer, workers)
		want := make([]float32, workers)
		for i := range xs {
			xs[i] = gputest.Upload(t, s, gputest.Fill(counterElems, 0))
		}
		long := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
		glong, err := s.Capture(func() error {
			for range 64 {
				if err := bump(s, add, long, 1); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		wantLong := float32(64)
		// traffic runs the workers at once, each n launches on its own
		// counter, and one of them replays the 64-dispatch graph too.
		traffic := func(n int) {
			var wg sync.WaitGroup
			for i := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := range n {
						if err := bump(s, add, xs[i], 1); err != nil {
							t.Errorf("worker %d: %v", i, err)
							return
						}
						if i == 0 && j%50 == 0 {
							if err := glong.Replay(); err != nil {
								t.Errorf("worker %d: %v", i, err)
								return
							}
						}
					}
				}()
				want[i] += float32(n)
				if i == 0 {
					wantLong += 64 * float32((n+49)/50)
				}
			}
			wg.Wait()
		}
		y := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
		wantY := float32(0)
		step := func() error {
			for range 5 {
				if err := bump(s, add, y, 2); err != nil {
					return err
				}
			}
			return nil
		}
		for round := range 2 {
			// 1: traffic, then the whole capture at once.
			traffic(200)
			g1, err := s.Capture(step)
			if err != nil {
				t.Fatalf("round %d: Capture right after traffic: %v", round, err)
			}
			wantY += 10
			// 2: traffic inside the warmup, then BeginCapture at once.
			if err := s.PrepareCapture(); err != nil {
				t.Fatal(err)
			}
			traffic(100)
			if err := step(); err != nil {
				t.Fatal(err)
			}
			wantY += 10
			traffic(520)
			if err := s.BeginCapture(); err != nil {
				t.Fatalf("round %d: BeginCapture right after traffic: %v", round, err)
			}
			if err := step(); err != nil {
				t.Fatal(err)
			}
			g2, err := s.EndCapture()
			if err != nil {
				t.Fatalf("round %d: EndCapture: %v", round, err)
			}
			// 3: traffic, GraphPrepare, AbortCapture at once; traffic,
			// GraphPrepare, BeginCapture, AbortCapture.
			traffic(200)
			if err := s.PrepareCapture(); err != nil {
				t.Fatal(err)
			}
			if err := s.AbortCapture(); err != nil {
				t.Fatalf("round %d: AbortCapture from Prepare after traffic: %v", round, err)
			}
			if err := s.PrepareCapture(); err != nil {
				t.Fatal(err)
			}
			traffic(200)
			if err := s.BeginCapture(); err != nil {
				t.Fatal(err)
			}
			if err := step(); err != nil { // recorded, never run
				t.Fatal(err)
			}
			if err := s.AbortCapture(); err != nil {
				t.Fatalf("round %d: AbortCapture from Capture after traffic: %v", round, err)
			}
			if _, err := s.EndCapture(); !errors.Is(err, lifecycle.ErrGraphState) {
				t.Fatalf("round %d: EndCapture after AbortCapture: want ErrGraphState, got %v", round, err)
			}
			for _, g := range []*recorder.Graph{g1, g2} {
				if g.Len() != 5 {
					t.Fatalf("round %d: a sealed graph holds %d dispatches, want 5", round, g.Len())
				}
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
				wantY += 10
				g.Release()
			}
			for i, x := range xs {
				gputest.WantEqual(t, fmt.Sprintf("round %d: worker %d's counter", round, i), gputest.Fill(counterElems, want[i]), gputest.Read(t, s, x))
			}
			gputest.WantEqual(t, fmt.Sprintf("round %d: the 64-dispatch graph's counter", round), gputest.Fill(counterElems, wantLong), gputest.Read(t, s, long))
			gputest.WantEqual(t, fmt.Sprintf("round %d: the captured step's counter", round), gputest.Fill(counterElems, wantY), gputest.Read(t, s, y))
		}
		close(ostop)
		owg.Wait()
		gputest.WantEqual(t, "the other stream's counter", gputest.Fill(counterElems, float32(oruns.Load())), gputest.Read(t, other, ox))
	}
}

// bumpUntil bumps x on s until stop closes, counting the launches in runs.
func bumpUntil(t *testing.T, s *recorder.Stream, k *wgpu.Kernel, x *recorder.Buffer, runs *atomic.Int64, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		if err := bump(s, k, x, 1); err != nil {
			t.Errorf("the other stream's launch: %v", err)
			return
		}
		runs.Add(1)
	}
}
