package tests

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestReleaseRacingALaunchNeverHandsOnePageToTwoBuffers: a Buffer released
// while another goroutine launches with it either makes the launch fail
// with ErrReleased or lets it run on the old contents; its memory is never
// handed to a new Buffer while the launch's batch still holds it, so the
// launch reads 1 (never the new buffer's 3), the new buffer keeps 3, and
// no page reference count is ever dropped twice (the pool logs that at
// debug level; the test fails on it). Runs in a fresh process. Without it,
// Launch checked "released" before taking the stream lock and the page
// reference under it: a Release in that gap put the page on the free list
// while a batch held it, two live Buffers shared it (x read 3, want 1) and
// then "page reference count below zero" panicked.
func TestReleaseRacingALaunchNeverHandsOnePageToTwoBuffers(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		var logs syncLog
		d := gputest.Open(t, wgpu.Options{})
		s := gputest.Stream(t, d, recorder.WithLogger(logs.logger()), recorder.WithFlushDelay(0))
		k := gputest.Kernel(t, d, gputest.CopyWGSL)
		launched, refused := 0, 0
		for round := range 300 {
			x := gputest.Upload(t, s, gputest.Fill(16, 1))
			out := gputest.Upload(t, s, gputest.Fill(16, 0))
			var launchErr error
			var wg sync.WaitGroup
			start := make(chan struct{})
			wg.Add(2)
			go func() { defer wg.Done(); <-start; launchErr = s.Launch(k, recorder.Groups(1, 1, 1), x, out) }()
			go func() {
				defer wg.Done()
				<-start
				if round%2 == 1 {
					runtime.Gosched()
				}
				x.Release()
			}()
			close(start)
			wg.Wait()
			// Same size, same class: handed x's page if it went back to the
			// free list too early.
			z := gputest.Upload(t, s, gputest.Fill(16, 3))
			want := gputest.Fill(16, 1)
			switch {
			case launchErr == nil:
				launched++
			case errors.Is(launchErr, wgpu.ErrReleased):
				refused++
				want = gputest.Fill(16, 0)
			default:
				t.Fatalf("round %d: a launch racing Release returns nil or ErrReleased, got %v", round, launchErr)
			}
			gputest.WantEqual(t, fmt.Sprintf("round %d: the launch racing Release read the released buffer's contents, never the new buffer's", round), want, gputest.Read(t, s, out))
			gputest.WantEqual(t, fmt.Sprintf("round %d: the buffer allocated after the Release keeps its own contents", round), gputest.Fill(16, 3), gputest.Read(t, s, z))
			out.Release()
			z.Release()
		}
		t.Logf("300 rounds: %d launches ran, %d were refused as released", launched, refused)
		if strings.Contains(logs.String(), "below zero") {
			t.Fatalf("a page reference was dropped twice:\n%s", grepLines(logs.String(), "below zero"))
		}
	})
}

// TestProfileReplayRacingReleaseReturnsAProfileOnlyOfAReplayThatRan: a
// ProfileReplay racing the graph's Release returns nil only when the
// replay ran, and otherwise an error wrapping ErrReleased: the buffer the
// graph increments ends up exactly at warmups + successful ProfileReplays.
// Without it, on GL (no timestamps), ProfileReplay once returned nil with a
// wall-clock profile of a replay that never ran.
func TestProfileReplayRacingReleaseReturnsAProfileOnlyOfAReplayThatRan(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	want, ran, refused := float32(0), 0, 0
	for round := range 100 {
		g := gputest.Capture(t, s, func() {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
				t.Fatal(err)
			}
		})
		want++ // the warmup
		var profErr error
		var prof recorder.ReplayProfile
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() { defer wg.Done(); <-start; prof, profErr = s.ProfileReplay(g) }()
		go func() {
			defer wg.Done()
			<-start
			if round%2 == 0 {
				runtime.Gosched()
			}
			g.Release()
		}()
		close(start)
		wg.Wait()
		switch {
		case profErr == nil:
			ran++
			want++
			if prof.Method == 0 {
				t.Fatalf("round %d: a successful ProfileReplay says how it measured", round)
			}
		case errors.Is(profErr, wgpu.ErrReleased):
			refused++
		default:
			t.Fatalf("round %d: ProfileReplay racing Release returns nil or ErrReleased, got %v", round, profErr)
		}
		gputest.WantEqual(t, fmt.Sprintf("round %d: the buffer counts the warmups and the ProfileReplays that returned nil (%d ran, %d refused so far)", round, ran, refused),
			gputest.Fill(64, want), gputest.Read(t, s, x))
	}
	t.Logf("100 rounds (%v): %d profiled replays ran, %d were refused as released", d.Info(), ran, refused)
}

// TestGraphCallsRacingReleaseAndReplayKeepTheirContracts: goroutines
// replay, profile, rebind, save, describe and release graphs of one stream
// at once, while another stream loads truncated and garbled graph files.
// Every error wraps a sentinel, nothing panics or races (run with -race),
// and afterwards the stream computes.
func TestGraphCallsRacingReleaseAndReplayKeepTheirContracts(t *testing.T) {
	skipIfShort(t)
	d, s := gputest.OpenStream(t)
	s2 := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())
	spare := gputest.Empty(t, s, a.Size())
	var file bytes.Buffer
	{
		g := gputest.Capture(t, s, func() {
			if err := gputest.Chain(s, k, a, b, 2, 64); err != nil {
				t.Fatal(err)
			}
		})
		if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
			t.Fatal(err)
		}
	}
	sentinels := []error{wgpu.ErrClosed, wgpu.ErrReleased, wgpu.ErrInvalidArgument, lifecycle.ErrGraphState, recorder.ErrGraphFile}
	typed := func(what string, err error) {
		if err == nil {
			return
		}
		for _, s := range sentinels {
			if errors.Is(err, s) {
				return
			}
		}
		t.Errorf("%s: an error wrapping no sentinel: %v", what, err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for round := 0; time.Now().Before(deadline); round++ {
		g, err := s.Capture(func() error { return gputest.Chain(s, k, a, b, 2, 64) })
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		run := func(f func()) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if p := noPanic(f); p != "" {
					t.Errorf("round %d: panicked: %s", round, p)
				}
			}()
		}
		run(func() {
			for range 4 {
				typed("Replay", g.Replay())
			}
		})
		run(func() { _, err := s.ProfileReplay(g); typed("ProfileReplay", err) })
		run(func() {
			g2, err := g.Rebind(a, spare)
			typed("Rebind", err)
			if err == nil {
				typed("Replay of a rebound graph", g2.Replay())
				g2.Release()
			}
		})
		run(func() { _, err := g.Save(io.Discard, recorder.SaveOptions{Contents: true}); typed("Save", err) })
		run(func() { _ = g.String(); typed("WriteDOT", g.WriteDOT(io.Discard)); _ = g.Buffers() })
		run(func() { time.Sleep(time.Duration(round%5) * time.Millisecond); g.Release() })
		run(func() {
			data := file.Bytes()
			cut := data[:(round*37)%len(data)]
			if g3, err := s2.LoadGraph(bytes.NewReader(cut)); err == nil {
				g3.Release()
			} else {
				typed("LoadGraph of a truncated file", err)
			}
			bad := bytes.Clone(data)
			bad[(round*53)%len(bad)] ^= 0x5a
			if g3, err := s2.LoadGraph(bytes.NewReader(bad)); err == nil {
				g3.Release()
			} else {
				typed("LoadGraph of a garbled file", err)
			}
		})
		wg.Wait()
		if err := s.Sync(); err != nil {
			t.Fatalf("round %d: Sync after the race: %v", round, err)
		}
	}
	if err := recorder.WriteSlice(s, a, 0, gputest.Fill(64, 1)); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the stream computes after the races", gputest.Fill(64, 3), gputest.Read(t, s, gputest.MustChain(t, s, k, a, b, 2, 64)))
}

// TestSaveRacingReleaseWritesOnlyTheGraphsContents: Save with Contents
// reads the graph's buffers one by one; a Release of the graph and its
// buffers meanwhile must not let another buffer take their memory before
// Save has read it. The file then holds what the graph's buffers held, or
// Save fails with ErrReleased; never another buffer's data. Without the
// fix Save held no reference and read memory the pool had handed out again.
func TestSaveRacingReleaseWritesOnlyTheGraphsContents(t *testing.T) {
	skipIfShort(t)
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	const n = 24
	deadline := time.Now().Add(3 * time.Second)
	for round := 0; time.Now().Before(deadline); round++ {
		bufs := make([]*recorder.Buffer, n)
		for i := range bufs {
			bufs[i] = gputest.Upload(t, s, gputest.Fill(64, 7))
		}
		g, err := s.Capture(func() error {
			for _, b := range bufs {
				if err := s.Launch(k, recorder.Groups(1, 1, 1), b, gputest.F32(0)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var file bytes.Buffer
		saved := make(chan error, 1)
		go func() { _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); saved <- err }()
		time.Sleep(time.Duration(round%4) * time.Millisecond)
		g.Release()
		var others []*recorder.Buffer
		for _, b := range bufs {
			b.Release()
			o := gputest.Upload(t, s, gputest.Fill(64, 99))
			others = append(others, o)
		}
		err = <-saved
		for _, o := range others {
			o.Release()
		}
		if err != nil {
			if !errors.Is(err, wgpu.ErrReleased) {
				t.Fatalf("round %d: Save racing Release: want nil or ErrReleased, got %v", round, err)
			}
			continue
		}
		loaded, err := s.LoadGraph(&file)
		if err != nil {
			t.Fatalf("round %d: loading what Save wrote: %v", round, err)
		}
		for i, b := range loaded.Buffers() {
			v, err := recorder.ReadSlice[float32](s, b)
			if err != nil {
				t.Fatal(err)
			}
			if v[0] != 7 {
				loaded.Release()
				t.Fatalf("round %d: buffer %d of the saved graph holds %v, another buffer's data (want 7)", round, i, v[0])
			}
		}
		loaded.Release()
		for _, b := range loaded.Buffers() {
			b.Release()
		}
	}
}

// TestReleasedBufferMemoryIsReusedOnlyAfterItsBatchIsSubmitted: a
// buffer bumped up to one dispatch before, at and after a batch boundary
// (the batch still open, or just handed to the submitter) and released at
// once, directly or after a graph binding it was released too, gives its
// memory back to the pool only once that work is submitted: a buffer of
// the same size made right after (which the pool serves from the freed
// page) and written, or set by a kernel, reads back exactly what was put in
// it, never the old buffer's bumps landing on it.
func TestReleasedBufferMemoryIsReusedOnlyAfterItsBatchIsSubmitted(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	scale := gputest.Kernel(t, d, gputest.ScaleWGSL)
	for _, opts := range [][]recorder.Option{{recorder.WithFlushDelay(0)}, nil} {
		s := gputest.Stream(t, d, opts...)
		for k, size := range batchSizes[:6] {
			for delta := -1; delta <= 1; delta++ {
				for _, viaGraph := range []bool{false, true} {
					what := fmt.Sprintf("flush timer %v, batch %d (%d), %+d, graph %v", opts == nil, k, size, delta, viaGraph)
					if err := s.Sync(); err != nil {
						t.Fatal(err)
					}
					for _, c := range batchSizes[:k] {
						junk := gputest.Empty(t, s, 4*counterElems)
						for range c {
							if err := bump(s, add, junk, 1); err != nil {
								t.Fatal(err)
							}
						}
						junk.Release()
						if err := s.Flush(); err != nil {
							t.Fatal(err)
						}
					}
					x := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
					n := size + delta
					var g *recorder.Graph
					if viaGraph {
						var err error
						if g, err = s.Capture(func() error { return bump(s, add, x, 1) }); err != nil {
							t.Fatal(err)
						}
						n-- // the warmup
					}
					for range n {
						var err error
						if g != nil {
							err = g.Replay()
						} else {
							err = bump(s, add, x, 1)
						}
						if err != nil {
							t.Fatalf("%s: %v", what, err)
						}
					}
					if g != nil {
						g.Release()
					}
					x.Release()
					// The next buffers of x's size: written, and set by a
					// kernel (x *= 0 then += 7).
					for i := range 3 {
						y := gputest.Upload(t, s, gputest.Fill(counterElems, float32(-1-i)))
						z := gputest.Empty(t, s, 4*counterElems)
						if err := s.Launch(scale, recorder.Groups(1, 1, 1), z, gputest.F32(0)); err != nil {
							t.Fatal(err)
						}
						if err := bump(s, add, z, 7); err != nil {
							t.Fatal(err)
						}
						gputest.WantEqual(t, what+": a buffer written right after the release", gputest.Fill(counterElems, float32(-1-i)), gputest.Read(t, s, y))
						gputest.WantEqual(t, what+": a buffer set by a kernel right after the release", gputest.Fill(counterElems, 7), gputest.Read(t, s, z))
						y.Release()
						z.Release()
					}
				}
			}
		}
	}
}

// TestGraphAndBufferReleaseRacingReplaysKeepTheMemoryWithTheGraphs:
// goroutines replay a 3-dispatch graph and a pre-encoded 64-dispatch one
// (whose encoder goroutine holds a finished command buffer) as fast as they
// can while another releases both graphs, and the caller's handle of the
// buffer they bump, at a random moment. Replays return nil or ErrReleased
// and nothing else; the buffer's memory stays with the graphs (a copy the
// graphs make of it into a buffer never released counts exactly the warmups
// and the replays that returned nil); and afterwards no command buffer,
// program or encoder of the graphs is left alive.
func TestGraphAndBufferReleaseRacingReplaysKeepTheMemoryWithTheGraphs(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	cp := gputest.Kernel(t, d, gputest.CopyWGSL)
	for round, delay := range []time.Duration{0, 200 * time.Microsecond, 2 * time.Millisecond, 8 * time.Millisecond} {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true))
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		before := live(t, d)
		x := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
		out := gputest.Empty(t, s, x.Size())
		capture := func(n int) *recorder.Graph {
			g, err := s.Capture(func() error {
				for range n {
					if err := bump(s, add, x, 1); err != nil {
						return err
					}
				}
				return s.Launch(cp, recorder.Groups(1, 1, 1), x, out)
			})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		g3, g63 := capture(3), capture(63)
		want := float32(3 + 63)
		var added [2]atomic.Int64
		var errs collect
		var wg sync.WaitGroup
		ready := make(chan struct{}, 4)
		for gi, g := range []*recorder.Graph{g3, g63} {
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := 0; ; n++ {
						err := g.Replay()
						if n == 0 {
							ready <- struct{}{}
						}
						if err != nil {
							if !errors.Is(err, wgpu.ErrReleased) {
								errs.add(fmt.Errorf("round %d: Replay racing Release: want nil or ErrReleased, got %v", round, err))
							}
							return
						}
						added[gi].Add(1)
					}
				}()
			}
		}
		for range 4 {
			<-ready
		}
		time.Sleep(delay) // widens the window only
		x.Release()
		g63.Release()
		g3.Release()
		waitAll(t, &wg, time.Minute, "replays racing Release")
		errs.report(t)
		if t.Failed() {
			return
		}
		want += 3*float32(added[0].Load()) + 63*float32(added[1].Load())
		gputest.WantEqual(t, fmt.Sprintf("round %d: the copy counts the warmups and %d + %d replays", round, added[0].Load(), added[1].Load()), gputest.Fill(counterElems, want), gputest.Read(t, s, out))
		out.Release()
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Trim(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		after := live(t, d)
		if after.CommandBuffers != 0 || after.Programs != before.Programs {
			t.Fatalf("round %d: after releasing both graphs %d command buffers and %d programs are alive (before: %+v, after: %+v)", round, after.CommandBuffers, after.Programs, before, after)
		}
		wantLiveBounded(t, fmt.Sprintf("round %d: native objects after releasing everything", round), before, after)
	}
}

// TestProfileReplayWithAFloorRacingReleaseRunsEveryRoundOrNone:
// ProfileReplay with WithFloor(3) runs the graph once and then three more
// times; a Release of the graph racing it may refuse it (ErrReleased), but
// then it must not have run anything, and when it returns a profile all four
// runs happened: the counter the graph bumps equals the warmup plus four per
// profile returned.
// TestProfileReplayRacingReleaseReturnsAProfileOnlyOfAReplayThatRan checks
// this without a floor. Regression: Release freed the graph's program while
// the floor rounds encoded it with the stream's lock released; a
// ProfileReplay now holds the program to its end (Graph.profiling).
func TestProfileReplayWithAFloorRacingReleaseRunsEveryRoundOrNone(t *testing.T) {
	d, s := gputest.OpenStream(t)
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
	want := float32(0)
	var refused, profiled int
	var bad []string
	for round := range 40 {
		g, err := s.Capture(func() error { return bump(s, add, x, 1) })
		if err != nil {
			t.Fatal(err)
		}
		want++ // the warmup
		released := make(chan struct{})
		go func() {
			defer close(released)
			time.Sleep(time.Duration(round%8) * 250 * time.Microsecond) // widens the window only
			g.Release()
		}()
		_, err = s.ProfileReplay(g, recorder.WithFloor(3))
		<-released
		switch {
		case err == nil:
			profiled++
			want += 4
		case errors.Is(err, wgpu.ErrReleased):
			refused++
		default:
			t.Fatalf("round %d: ProfileReplay racing Release: want nil or ErrReleased, got %v", round, err)
		}
		got := gputest.Read(t, s, x)
		if got[0] != want {
			bad = append(bad, fmt.Sprintf("round %d: ProfileReplay returned %v, and the counter is %v where the model says %v", round, err, got[0], want))
			want = got[0] // go on from what ran
		}
	}
	t.Logf("%d profiles returned, %d refused", profiled, refused)
	if len(bad) > 0 {
		t.Errorf("%d of 40 ProfileReplays racing Release ran the graph yet returned an error (or the reverse):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}
