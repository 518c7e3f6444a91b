package tests

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

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
	skipIfShort(t)
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
		tmp, err := s.Alloc(a.Size())
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
		if err := s.PrepareCapture(); err != nil {
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

// TestKernelReleaseFreesTheKernelAndDropsItFromTheCache: Kernel.Release
// frees the kernel's native objects (the driver's live kernel count goes
// back down once the work using them is done), drops it from the device's
// cache (compiling the same source again makes a new kernel, which works),
// and makes launches with the released *Kernel fail with ErrReleased.
// Without it the kernel cache only grew: 5000 distinct kernels cost 478 MB
// of RSS, with no way to give any of it back.
func TestKernelReleaseFreesTheKernelAndDropsItFromTheCache(t *testing.T) {
	d, s := gputest.OpenStream(t)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	const n = 50
	before := live(t, d).Kernels
	src := func(i int) string { return fmt.Sprintf("%s// kernel %d\n", gputest.AddConstWGSL, i) }
	var ks []*wgpu.Kernel
	for i := range n {
		k := gputest.Kernel(t, d, src(i))
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
			t.Fatal(err)
		}
		ks = append(ks, k)
	}
	if got := live(t, d).Kernels; got != before+n {
		t.Fatalf("%d distinct kernels: live kernels %d, want %d", n, got, before+n)
	}
	for _, k := range ks {
		k.Release()
		k.Release() // idempotent
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("work enqueued with a kernel released afterwards still runs: %v", err)
	}
	gputest.WantEqual(t, "every launch ran", gputest.Fill(64, n), gputest.Read(t, s, x))
	if got := live(t, d).Kernels; got != before {
		t.Fatalf("Kernel.Release must free the kernel once its work is done: live kernels %d, want %d", got, before)
	}
	gputest.WantErr(t, "a released kernel refuses launches", s.Launch(ks[0], recorder.Groups(1, 1, 1), x, gputest.F32(1)),
		[]error{wgpu.ErrReleased}, "Launch")
	k := gputest.Kernel(t, d, src(0))
	if k == ks[0] || k.Released() {
		t.Fatalf("Release must drop the kernel from the cache: compiling its source again must make a new, live kernel")
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the recompiled kernel works", gputest.Fill(64, n+1), gputest.Read(t, s, x))
}

// paramsOfSize is a Params blob of size bytes whose first float is c and
// whose rest is filled with a tag, so blobs of one size still differ.
func paramsOfSize(size int, c float32, tag uint32) recorder.Params {
	p := make(recorder.Params, size)
	binary.LittleEndian.PutUint32(p, math.Float32bits(c))
	for off := 4; off+4 <= size; off += 4 {
		binary.LittleEndian.PutUint32(p[off:], tag)
	}
	return p
}

// TestTrimGivesBackParamsPagesOnceNothingUsesThem: params blobs of many
// distinct sizes share uniform pages by size class (the cache does not grow
// a page per size), and Trim gives every params page back once nothing
// uses them: after an eager run of 64 sizes, and after a graph that pinned
// hundreds of distinct blobs is released. Without it params pages grew
// with every new size (8.7 MB after 64 sizes although entries stayed at
// 512) and 19 MiB of them stayed after the pinning graph was released and
// Trim ran.
func TestTrimGivesBackParamsPagesOnceNothingUsesThem(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithMetadataCache(8))
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	const sizes = 64
	for i := 1; i <= sizes; i++ {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, paramsOfSize(16*i, 1, uint32(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	m := s.MemoryStats()
	t.Logf("after %d params sizes: %s, %d entries", sizes, m, m.ParamsEntries)
	// Sizes 16..1024 bytes fall in a handful of power-of-two classes; a
	// page per class (64 KiB) is the most the cache may keep, never a page
	// per size.
	if limit := uint64(8 * 64 << 10); m.Params > limit {
		t.Fatalf("params of %d sizes must share pages by size class: %d bytes of params pages, want at most %d", sizes, m.Params, limit)
	}
	if _, err := s.Trim(); err != nil {
		t.Fatal(err)
	}
	if m := s.MemoryStats(); m.Params != 0 || m.ParamsEntries != 0 {
		t.Fatalf("Trim with nothing using the params cache gives every params page back: %d bytes, %d entries left", m.Params, m.ParamsEntries)
	}
	gputest.WantEqual(t, "every launch ran", gputest.Fill(64, sizes), gputest.Read(t, s, x))

	const blobs = 300
	g := gputest.Capture(t, s, func() {
		for i := range blobs {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, paramsOfSize(16*(1+i%64), 0, uint32(1000+i))); err != nil {
				t.Fatal(err)
			}
		}
	})
	pinned := s.MemoryStats()
	if pinned.Params == 0 || pinned.ParamsEntries < blobs {
		t.Fatalf("the graph pins its %d params blobs: %d bytes, %d entries", blobs, pinned.Params, pinned.ParamsEntries)
	}
	if _, err := s.Trim(); err != nil {
		t.Fatal(err)
	}
	if got := s.MemoryStats().ParamsEntries; got < blobs {
		t.Fatalf("Trim must not drop params a live graph pins: %d entries left, the graph uses %d", got, blobs)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	g.Release()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Trim(); err != nil {
		t.Fatal(err)
	}
	if m := s.MemoryStats(); m.Params != 0 || m.ParamsEntries != 0 {
		t.Fatalf("after the pinning graph is released, Trim gives its params pages back: %d bytes (%d while pinned), %d entries left", m.Params, pinned.Params, m.ParamsEntries)
	}
	gputest.WantEqual(t, "params values survived the trims (c = 0 throughout the graph)", gputest.Fill(64, sizes), gputest.Read(t, s, x))
}

// TestAbortCaptureFromPrepareThenTrimReclaimsTheWarmupsMemory: 300
// Empty(1 MiB) + Release in Prepare reserve 300 MiB (priming holds every
// page until BeginCapture: the documented cost); AbortCapture leaves
// Prepare without capturing, and Trim then gives all of it back. Inside
// the recording window an allocation released unbound is reused, so the
// same loop there reserves one page, not 300. Without it there was no way
// out of Prepare but capturing, persistent pages were never reused, and the
// 300 MiB stayed reserved.
func TestAbortCaptureFromPrepareThenTrimReclaimsTheWarmupsMemory(t *testing.T) {
	d, s := gputest.OpenStream(t)
	const n, size = 300, 1 << 20
	if _, err := s.Trim(); err != nil {
		t.Fatal(err)
	}
	base := s.MemoryStats().Reserved
	churn := func() {
		for range n {
			b := gputest.Empty(t, s, size)
			b.Release()
		}
	}
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	churn()
	primed := s.MemoryStats()
	t.Logf("after %d × Empty(1 MiB) + Release in Prepare: %s", n, primed)
	if err := s.AbortCapture(); err != nil {
		t.Fatalf("AbortCapture from Prepare: %v", err)
	}
	wantState(t, "AbortCapture leaves Prepare", s, lifecycle.NoCapture)
	if _, err := s.Trim(); err != nil {
		t.Fatalf("Trim after AbortCapture: %v", err)
	}
	if m := s.MemoryStats(); m.Reserved > base || m.Persistent != 0 {
		t.Fatalf("AbortCapture then Trim must give back the warmup's memory: reserved %d (was %d before Prepare, %d primed), persistent %d", m.Reserved, base, primed.Reserved, m.Persistent)
	}

	// In the window a released, unbound page is reused at once.
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	atBegin := s.MemoryStats().Reserved
	churn()
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
		t.Fatal(err)
	}
	if grew := s.MemoryStats().Reserved - atBegin; grew > size {
		t.Fatalf("%d × Empty + Release of unbound buffers while recording must reuse one page: reserved grew by %d bytes", n, grew)
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the stream computes after the aborted capture", gputest.Fill(64, 1), gputest.Read(t, s, x))
}

// wantLiveBounded fails unless after holds at most a few more native
// objects of each kind than before: the stream keeps a few spare encoders
// and staging buffers (its submitter's, one per size class), while a leak
// over a churn of thousands of cycles shows as hundreds.
func wantLiveBounded(t testing.TB, what string, before, after driver.Live) {
	t.Helper()
	b, a := reflect.ValueOf(before), reflect.ValueOf(after)
	for i := range b.NumField() {
		if a.Field(i).Int() > b.Field(i).Int()+4 {
			t.Errorf("%s: %s grew from %d to %d (all: %+v, before %+v)", what, b.Type().Field(i).Name, b.Field(i).Int(), a.Field(i).Int(), after, before)
		}
	}
}

// settleGoroutines waits up to 5 s for the goroutine count to fall to
// at most want, and returns it.
func settleGoroutines(want int) int {
	deadline := time.Now().Add(5 * time.Second)
	n := runtime.NumGoroutine()
	for n > want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// TestChurnKeepsMemoryStatsGoroutinesAndRSSFlat: thousands of
// allocate/use/release cycles of buffers, textures and samplers, graphs
// captured, replayed and released in a loop, streams and devices opened,
// used and closed in loops: afterwards MemoryStats accounts exactly
// (Reserved = InUse + Free, nothing in use once every handle is
// released, nothing reserved after Trim, no graph or texture left), the
// native objects alive return to what they were, the goroutine count
// returns to what it was, and the RSS grows by a bounded amount.
func TestChurnKeepsMemoryStatsGoroutinesAndRSSFlat(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		cycles := 3000
		if testing.Short() || raceEnabled {
			cycles = 600
		}
		d := gputest.Open(t, wgpu.Options{})
		k := gputest.Kernel(t, d, gputest.AddOneWGSL)
		tk := gputest.Kernel(t, d, textureGraphWGSL)
		s := gputest.Stream(t, d)
		check := func(what string) {
			t.Helper()
			m := s.MemoryStats()
			if m.Reserved != m.InUse+m.Free {
				t.Fatalf("%s: Reserved %d != InUse %d + Free %d", what, m.Reserved, m.InUse, m.Free)
			}
		}
		baseLive := live(t, d)
		// Warm every lazily made object up once.
		run := func(i int) {
			n := uint32(16 + 4*(i%50))
			a, err := recorder.UploadSlice(s, gputest.Fill(int(n), float32(i)))
			if err != nil {
				t.Fatal(err)
			}
			b := gputest.Empty(t, s, a.Size())
			if err := addOne(s, k, a, b, n); err != nil {
				t.Fatal(err)
			}
			if i%97 == 0 {
				gputest.WantEqual(t, fmt.Sprintf("cycle %d computes", i), gputest.Fill(int(n), float32(i+1)), gputest.Read(t, s, b))
			}
			a.Release()
			b.Release()
		}
		runTex := func(i int) {
			src, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8unorm"}, bytes.Repeat([]byte{byte(i)}, 64))
			if err != nil {
				t.Fatal(err)
			}
			dst, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "r32float"})
			if err != nil {
				t.Fatal(err)
			}
			smp, err := s.NewSampler(recorder.SamplerDesc{Linear: i%2 == 0})
			if err != nil {
				t.Fatal(err)
			}
			out := gputest.Empty(t, s, 64)
			if err := s.Launch(tk, recorder.Groups(1, 1, 1), src, smp, dst, out); err != nil {
				t.Fatal(err)
			}
			src.Release()
			dst.Release()
			smp.Release()
			out.Release()
		}
		runGraph := func(i int) {
			a := gputest.Upload(t, s, gputest.Fill(64, 0))
			b := gputest.Empty(t, s, a.Size())
			g, err := s.Capture(func() error { return gputest.Chain(s, k, a, b, 4, 64) })
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			if i%10 == 0 {
				gputest.WantEqual(t, "the graph computes", gputest.Fill(64, 8), gputest.Read(t, s, a))
			}
			g.Release()
			a.Release()
			b.Release()
		}
		for i := range 50 {
			run(i)
			runTex(i)
			runGraph(i)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Trim(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		goBefore := settleGoroutines(0)
		rssBefore := rss()
		liveBefore := live(t, d)
		for i := range cycles {
			run(i)
			if i%5 == 0 {
				runTex(i)
			}
			if i%20 == 0 {
				runGraph(i)
				check(fmt.Sprintf("cycle %d", i))
			}
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		m := s.MemoryStats()
		check("after the churn")
		if m.InUse != 0 || m.Graphs != 0 || m.Textures != 0 || m.GraphPinned != 0 || len(m.PerGraph) != 0 {
			t.Errorf("every handle released and the stream synced, yet MemoryStats says %+v", m)
		}
		freed, err := s.Trim()
		if err != nil {
			t.Fatal(err)
		}
		m2 := s.MemoryStats()
		if m2.Reserved != 0 || m2.Pages != 0 || m2.Free != 0 {
			t.Errorf("Trim with nothing in use must give every page back: freed %d, then %+v", freed, m2)
		}
		if freed < m.Reserved {
			t.Errorf("Trim returned %d bytes, the pool held %d free", freed, m.Reserved)
		}
		liveAfter := live(t, d)
		wantLiveBounded(t, "native objects alive after the churn and Trim", liveBefore, liveAfter)

		// Streams and devices opened, used and closed in a loop.
		churnStreamsAndDevices(t, d, k, liveBefore)
		runtime.GC()
		if n := settleGoroutines(goBefore); n > goBefore {
			buf := make([]byte, 1<<20)
			t.Errorf("goroutines: %d before the churn, %d after\n%s", goBefore, n, buf[:runtime.Stack(buf, true)])
		}
		if rssBefore > 0 {
			rss := rss()
			t.Logf("RSS %d MiB before the churn, %d MiB after; native objects %+v (at start %+v)", rssBefore>>20, rss>>20, liveAfter, baseLive)
			if rss > rssBefore+256<<20 {
				t.Errorf("RSS grew from %d MiB to %d MiB over the churn", rssBefore>>20, rss>>20)
			}
		}
	})
}

// churnStreamsAndDevices opens, uses and closes 40 streams on d (half of
// them replaying a graph Close releases), then devices with a stream each
// (some streams closed before their device, some after): the native
// objects alive stay within wantLiveBounded of liveBefore, and every
// device computes.
func churnStreamsAndDevices(t *testing.T, d *wgpu.Device, k *wgpu.Kernel, liveBefore driver.Live) {
	for i := range 40 {
		s2, err := recorder.New(d)
		if err != nil {
			t.Fatal(err)
		}
		a := gputest.Upload(t, s2, gputest.Fill(16, 1))
		b := gputest.Empty(t, s2, a.Size())
		if err := addOne(s2, k, a, b, 16); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			g, err := s2.Capture(func() error { return addOne(s2, k, a, b, 16) })
			if err != nil {
				t.Fatal(err)
			}
			_ = g.Replay() // released by Close
		}
		if err := s2.Close(); err != nil {
			t.Fatal(err)
		}
	}
	wantLiveBounded(t, "native objects alive after 40 streams opened and closed", liveBefore, live(t, d))
	devices := 15
	if testing.Short() || raceEnabled {
		devices = 5
	}
	for i := range devices {
		d2, err := wgpu.Open(wgpu.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s2, err := recorder.New(d2)
		if err != nil {
			t.Fatal(err)
		}
		k2, err := d2.Kernel(gputest.AddOneWGSL, "main")
		if err != nil {
			t.Fatal(err)
		}
		a := gputest.Upload(t, s2, gputest.Fill(16, float32(i)))
		b := gputest.Empty(t, s2, a.Size())
		if err := addOne(s2, k2, a, b, 16); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, fmt.Sprintf("device %d computes", i), gputest.Fill(16, float32(i+1)), gputest.Read(t, s2, b))
		if i%2 == 0 {
			_ = s2.Close()
		}
		if err := d2.Close(); err != nil {
			t.Fatal(err)
		}
		_ = s2.Close()
	}
}

// wideWGSL binds ten buffers in one group (past the bind group cache's
// key) and two in a second: out[i] = sum of the inputs' element i.
const wideWGSL = `
@group(0) @binding(0) var<storage, read> i0: array<f32>;
@group(0) @binding(1) var<storage, read> i1: array<f32>;
@group(0) @binding(2) var<storage, read> i2: array<f32>;
@group(0) @binding(3) var<storage, read> i3: array<f32>;
@group(0) @binding(4) var<storage, read> i4: array<f32>;
@group(0) @binding(5) var<storage, read> i5: array<f32>;
@group(0) @binding(6) var<storage, read> i6: array<f32>;
@group(0) @binding(7) var<storage, read> i7: array<f32>;
@group(0) @binding(8) var<storage, read> i8: array<f32>;
@group(0) @binding(9) var<storage, read_write> out: array<f32>;
@group(2) @binding(0) var<storage, read> j0: array<f32>;
@group(2) @binding(3) var<storage, read> j1: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x;
	if (i < arrayLength(&out)) {
		out[i] = i0[i] + i1[i] + i2[i] + i3[i] + i4[i] + i5[i] + i6[i] + i7[i] + i8[i] + j0[i] + j1[i];
	}
}
`

// TestUncachedBindGroupsOfWideLaunchesLeakNothing: launches binding more
// buffers in one group than the bind group cache keys (each gets a fresh
// bind group), eager and captured, thousands of times, compute right and
// leave the live bind groups, buffers and the stream's memory where they
// were.
func TestUncachedBindGroupsOfWideLaunchesLeakNothing(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, wideWGSL)
	var in []recorder.Arg
	for i := range 9 {
		in = append(in, gputest.Upload(t, s, gputest.Fill(64, float32(i))))
	}
	out := gputest.Empty(t, s, 256)
	j0 := gputest.Upload(t, s, gputest.Fill(64, 100))
	j1 := gputest.Upload(t, s, gputest.Fill(64, 1000))
	args := append(append(in, out), j0, j1)
	want := gputest.Fill(64, 36+1100)
	launch := func() error { return s.Launch(k, recorder.Groups(1, 1, 1), args...) }
	if err := launch(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "a wide launch sums its eleven inputs", want, gputest.Read(t, s, out))
	g := gputest.Capture(t, s, func() {
		for range 3 {
			if err := launch(); err != nil {
				t.Fatal(err)
			}
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	// The ramp steps a sync point readies for the graph's next run are
	// command buffers the stream keeps (at most five a ramp): counted
	// apart, once the ramp worker is done.
	settled := func() (driver.Live, recorder.MemoryStats) {
		m := settledStats(t, s)
		l := live(t, d)
		l.CommandBuffers -= int64(m.RampBuffers)
		return l, m
	}
	before, mBefore := settled()
	n := 2000
	if raceEnabled {
		n = 400
	}
	for i := range n {
		if err := launch(); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
		}
		if i%100 == 0 {
			ng, err := g.Rebind(j0, j1)
			if err != nil {
				t.Fatal(err)
			}
			if err := ng.Replay(); err != nil {
				t.Fatal(err)
			}
			ng.Release()
		}
	}
	gputest.WantEqual(t, "wide launches still compute", want, gputest.Read(t, s, out))
	after, mAfter := settled()
	wantLiveBounded(t, "native objects after thousands of wide launches", before, after)
	if mAfter.Reserved > mBefore.Reserved || mAfter.BindGroups > mBefore.BindGroups+4 || mAfter.Graphs != mBefore.Graphs {
		t.Errorf("MemoryStats grew over the wide launches: before %+v, after %+v", mBefore, mAfter)
	}
}
