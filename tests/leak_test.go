package tests

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// longRun reports whether the long forms of the leak tests run: with
// -short=false (the default) and SOFTGRAPH_LONG=1. Otherwise a shortened
// form runs that still asserts flatness.
func longRun() bool { return !testing.Short() && os.Getenv("SOFTGRAPH_LONG") == "1" }

// encodersPerStream bounds the encoders a stream holds: its own, and one
// per batch its background submitter may have in flight (3).
const encodersPerStream = 1 + 3

// heapSlack is how much the Go heap may grow between checkpoints: the
// test's own bookkeeping, not a per-iteration cost.
const heapSlack = 1 << 20

// footprint is what must stay flat over a long run.
type footprint struct {
	Reserved      uint64
	Pages         int
	Params        uint64
	ParamsEntries int
	BindGroups    int
	Graphs        int
	Live          driver.Live
	Heap          uint64 // Go heap after GC; compared with slack, not exactly
}

func measure(t *testing.T, s *recorder.Stream, d *wgpu.Device) footprint {
	t.Helper()
	if err := s.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	m := s.MemoryStats()
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return footprint{
		Reserved: m.Reserved, Pages: m.Pages, Params: m.Params, ParamsEntries: m.ParamsEntries,
		BindGroups: m.BindGroups, Graphs: m.Graphs, Live: live(t, d), Heap: ms.HeapAlloc,
	}
}

// wantFlat compares the end of a run with its early checkpoint: exactly,
// except for the Go heap, which may grow by heapSlack.
func wantFlat(t *testing.T, what string, early, end footprint) {
	t.Helper()
	t.Logf("%s: early %+v; end %+v", what, early, end)
	e, f := early, end
	e.Heap, f.Heap = 0, 0
	e.Live.Encoders, f.Live.Encoders = 0, 0
	if d := cmp.Diff(e, f); d != "" {
		t.Errorf("%s: pools, caches and live native objects must stay flat between the early checkpoint and the end (-early +end):\n%s", what, d)
	}
	// A stream keeps spare encoders for the batches its background
	// submitter has in flight; how many it needed by the early checkpoint
	// depends on timing, so they are bounded, not compared exactly.
	if n := end.Live.Encoders; n > max(early.Live.Encoders, encodersPerStream) {
		t.Errorf("%s: live encoders grew from %d to %d, past the %d a stream may keep: an encoder leaks per iteration", what, early.Live.Encoders, n, encodersPerStream)
	}
	if end.Heap > early.Heap+heapSlack {
		t.Errorf("%s: the Go heap grew from %d to %d KiB (slack %d KiB): something is retained per iteration", what, early.Heap>>10, end.Heap>>10, heapSlack>>10)
	}
}

// TestReplayingAGraphLeaksNothing: replaying a 150-dispatch graph over and
// over (100,000 times with SOFTGRAPH_LONG=1, 300 otherwise) keeps the
// stream's pools, params and bind group caches, the device's live native
// objects (buffers, bind groups, encoders, command buffers, query sets,
// kernels) and the Go heap flat, and the result stays exact. Without it, a
// replay that retains a command buffer, a bind group reference or a Go
// allocation per run exhausts a long-running server.
func TestReplayingAGraphLeaksNothing(t *testing.T) {
	replays := 300
	if longRun() {
		replays = 100_000
	}
	const dispatches, elems = 150, 64
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(elems, 0))
	b := gputest.Empty(t, s, a.Size())
	g := gputest.Capture(t, s, func() {
		if err := gputest.Chain(s, k, a, b, dispatches, elems); err != nil {
			t.Fatal(err)
		}
	})

	if g.Len() != dispatches {
		t.Fatalf("the graph holds %d dispatches, want %d", g.Len(), dispatches)
	}
	replay := func(n int) {
		for i := range n {
			if err := g.Replay(); err != nil {
				t.Fatalf("replay %d: %v", i, err)
			}
			if i%64 == 63 {
				if err := s.Sync(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	early := max(replays/10, 30)
	replay(early)
	first := measure(t, s, d)
	start := time.Now()
	replay(replays - early)
	last := measure(t, s, d)
	t.Logf("%d replays of %d dispatches in %v", replays-early, dispatches, time.Since(start))
	wantFlat(t, fmt.Sprintf("%d replays", replays), first, last)
	gputest.WantEqual(t, "warmup + every replay added 150", gputest.Fill(elems, float32(dispatches*(replays+1))), gputest.Read(t, s, a))
}

// TestCaptureReleaseCyclesLeakNothing: capturing a step that allocates and
// releases an intermediate inside the window, replaying it and releasing
// the graph, cycle after cycle (10,000 with SOFTGRAPH_LONG=1, 200 otherwise),
// keeps the pools (the persistent capture pool included), the params and
// bind group caches, the live native objects and the Go heap flat. Without
// it, pinned pages, params entries or pre-encoders that a released graph
// fails to give back accumulate with every capture.
func TestCaptureReleaseCyclesLeakNothing(t *testing.T) {
	cycles := 200
	if longRun() {
		cycles = 10_000
	}
	const elems = 64
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	scale := gputest.Kernel(t, d, gputest.ScaleWGSL)
	a := gputest.Upload(t, s, gputest.Fill(elems, 0))
	out := gputest.Empty(t, s, a.Size())
	step := func() error {
		tmp, err := s.Empty(a.Size())
		if err != nil {
			return err
		}
		defer tmp.Release()
		if err := gputest.Chain(s, k, a, tmp, 2, elems); err != nil { // a += 2
			return err
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), a, out, gputest.U32(elems)); err != nil { // out = a + 1
			return err
		}
		return s.Launch(scale, recorder.Groups(1, 1, 1), out, gputest.F32(-1)) // out = -(a + 1)
	}
	total := float32(0)
	cycle := func(i int) {
		if i > 0 && i%16 == 0 {
			// Values stay exact: check, then reset the input now and then.
			gputest.WantEqual(t, fmt.Sprintf("before cycle %d: out = -(a+1)", i), gputest.Fill(elems, -(total+1)), gputest.Read(t, s, out))
			if err := recorder.WriteSlice(s, a, 0, gputest.Fill(elems, 0)); err != nil {
				t.Fatal(err)
			}
			total = 0
		}
		if err := s.GraphPrepare(); err != nil {
			t.Fatalf("cycle %d: GraphPrepare: %v", i, err)
		}
		if err := step(); err != nil {
			t.Fatalf("cycle %d: warmup: %v", i, err)
		}
		if err := s.BeginCapture(); err != nil {
			t.Fatalf("cycle %d: BeginCapture: %v", i, err)
		}
		if err := step(); err != nil {
			t.Fatalf("cycle %d: recording: %v", i, err)
		}
		g, err := s.EndCapture()
		if err != nil {
			t.Fatalf("cycle %d: EndCapture: %v", i, err)
		}
		for range 2 {
			if err := g.Replay(); err != nil {
				t.Fatalf("cycle %d: Replay: %v", i, err)
			}
		}
		g.Release()
		total += 3 * 2 // warmup + 2 replays, each a += 2
	}
	early := max(cycles/10, 16)
	for i := range early {
		cycle(i)
	}
	first := measure(t, s, d)
	start := time.Now()
	for i := early; i < cycles; i++ {
		cycle(i)
	}
	last := measure(t, s, d)
	t.Logf("%d capture/replay/release cycles in %v", cycles-early, time.Since(start))
	wantFlat(t, fmt.Sprintf("%d capture/release cycles", cycles), first, last)
	if last.Graphs != 0 {
		t.Errorf("every graph was released, yet %d are live", last.Graphs)
	}
	gputest.WantEqual(t, "the last cycle's result", gputest.Fill(elems, -(total+1)), gputest.Read(t, s, out))
}
