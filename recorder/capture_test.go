package recorder_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/softgraph/softgraph/internal/lockrank"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

func wantGraphState(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("%s must be refused with lifecycle.ErrGraphState, got %v", what, err)
	}
}

// TestCaptureReplaysExactly: a 150-launch ping-pong with params metadata;
// warmup + 2 replays = 3 passes of results; then an input rewrite feeds the
// next replay.
func TestCaptureReplaysExactly(t *testing.T) {
	for _, pre := range []bool{false, true} {
		t.Run(fmt.Sprintf("preencode=%v", pre), func(t *testing.T) { captureReplaysExactly(t, pre) })
	}
}

func captureReplaysExactly(t *testing.T, pre bool) {
	d, s := gputest.OpenStream(t, recorder.WithPreEncode(pre))
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	in := gputest.Ramp(100, 0)
	a := gputest.Upload(t, s, in)
	b, _ := s.Alloc(a.Size())
	g := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, b, 150, 100) })
	gputest.WantEqual(t, "after warmup only (the recorded run must not execute)", gputest.Plus(in, 150), gputest.Read(t, s, a))
	for range 2 {
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	gputest.WantEqual(t, "warmup + 2 replays", gputest.Plus(in, 450), gputest.Read(t, s, a))
	if err := recorder.WriteSlice(s, a, 0, gputest.Fill(100, -1000)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "a rewritten input feeds the next replay", gputest.Fill(100, -850), gputest.Read(t, s, a))
	st := g.Stats()
	gputest.WantEqual(t, "stats (dispatches, kernels, bind groups)", [3]int{150, 1, 2}, [3]int{st.Dispatches, st.Kernels, st.BindGroups})
	gputest.WantEqual(t, "Len", 150, g.Len())
}

// TestCaptureOrderIsEnforcedAndRefusalsChangeNothing: only
// NoCapture→Prepare→Capture→NoCapture; every out-of-order call is refused,
// changes no state, and the stream stays usable and re-capturable; a
// capture begun inside the window (refused) fails that capture, whose
// graph would lack what the nested capture meant to record.
func TestCaptureOrderIsEnforcedAndRefusalsChangeNothing(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(8, 0))
	b, _ := s.Alloc(a.Size())
	wantGraphState(t, "BeginCapture without GraphPrepare", s.BeginCapture())
	_, err := s.EndCapture()
	wantGraphState(t, "EndCapture with nothing recording", err)
	gputest.WantEqual(t, "state after refusals", lifecycle.NoCapture, s.State())
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	wantGraphState(t, "a second GraphPrepare", s.PrepareCapture())
	_, err = s.EndCapture()
	wantGraphState(t, "EndCapture while only prepared", err)
	gputest.WantEqual(t, "state after refusals in Prepare", lifecycle.Prepare, s.State())
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	wantGraphState(t, "GraphPrepare while recording", s.PrepareCapture())
	wantGraphState(t, "BeginCapture while recording", s.BeginCapture())
	gputest.WantEqual(t, "state after refusals in Capture", lifecycle.Capture, s.State())
	gputest.MustChain(t, s, k, a, b, 2, 8)
	g, err := s.EndCapture()
	var ce *recorder.CaptureError
	if g != nil || !errors.As(err, &ce) || !errors.Is(err, lifecycle.ErrGraphState) || !strings.Contains(err.Error(), "PrepareCapture") {
		t.Fatalf("a capture begun inside the window fails the capture with a *CaptureError naming it; got %v, %v", g, err)
	}
	gputest.WantEqual(t, "state after the failed capture", lifecycle.NoCapture, s.State())
	g1 := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, b, 2, 8) })
	before := gputest.Read(t, s, a)
	if err := g1.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the graph of 2 add-ones", gputest.Plus(before, 2), gputest.Read(t, s, a))
	g2 := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, b, 1, 8) })
	if g2.Len() != 1 {
		t.Fatalf("re-capture recorded %d launches, want 1", g2.Len())
	}
}

// TestLaunchesInTheCaptureWindowAreRecordedNotExecuted: in Capture, Launch
// appends to the recording; the recorded work must not run at capture time.
func TestLaunchesInTheCaptureWindowAreRecordedNotExecuted(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(16, 1))
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(3)); err != nil {
			t.Fatal(err)
		}
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	gputest.WantEqual(t, "nothing ran at capture time", gputest.Fill(16, 1), gputest.Read(t, s, x))
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "one replay = 3^5", gputest.Fill(16, 243), gputest.Read(t, s, x))
}

// TestReadSyncAndProfileAreRefusedWhileRecordingAndFailTheCapture: they
// fail on the spot, and EndCapture fails with a *CaptureError naming each
// (a caller that ignored the refusals would otherwise get a graph the
// step it wrote does not describe); the stream then records again.
func TestReadSyncAndProfileAreRefusedWhileRecordingAndFailTheCapture(t *testing.T) {
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
	_, err := s.Read(x)
	wantGraphState(t, "Read while recording", err)
	wantGraphState(t, "Sync while recording", s.Sync())
	_, err = s.StartProfile()
	wantGraphState(t, "StartProfile while recording", err)
	g, err := s.EndCapture()
	var ce *recorder.CaptureError
	if g != nil || !errors.As(err, &ce) {
		t.Fatalf("refused reads, syncs and profiles inside the window must fail EndCapture with a *CaptureError and no graph: got %v, %v", g, err)
	}
	for _, op := range []string{"Read: ", "Sync: ", "Profile: "} {
		if !strings.Contains(err.Error(), op) {
			t.Errorf("the CaptureError must name each refused call; %q is missing from %v", op, err)
		}
	}
	// The failed capture left the stream usable and re-capturable.
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
		t.Fatal(err)
	}
	g, err = s.EndCapture()
	if err != nil {
		t.Fatalf("a capture after the failed one: %v", err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the capture recorded its launch", gputest.Fill(16, 2), gputest.Read(t, s, x))
}

// TestAWriteWhileRecordingFailsEndCapture: Write returns nil, applies
// nothing, and makes EndCapture fail; afterwards the stream is in NoCapture,
// usable, and a new capture works.
func TestAWriteWhileRecordingFailsEndCapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(16, 1))
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := recorder.WriteSlice(s, x, 0, gputest.Fill(16, 7)); err != nil {
		t.Fatalf("a write while recording is rejected lazily: it must return nil, got %v", err)
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
		t.Fatal(err)
	}
	g, err := s.EndCapture()
	var ce *recorder.CaptureError
	if g != nil || !errors.As(err, &ce) || !errors.Is(err, lifecycle.ErrGraphState) || !strings.Contains(err.Error(), "write") {
		t.Fatalf("EndCapture after a write in the window must fail naming the write, got graph=%v err=%v", g, err)
	}
	gputest.WantEqual(t, "state after the failed EndCapture", lifecycle.NoCapture, s.State())
	gputest.WantEqual(t, "the rejected write applied nothing", gputest.Fill(16, 1), gputest.Read(t, s, x))
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

// TestAFailedWarmupAbortsBeginCapture: a device error during warmup makes
// BeginCapture fail and Abort to NoCapture; the stream is usable and
// re-capturable.
func TestAFailedWarmupAbortsBeginCapture(t *testing.T) {
	d, s, f := faultyStream(t)
	ok := gputest.Kernel(t, d, gputest.AddConstWGSL)
	w := gputest.Upload(t, s, gputest.Fill(4, 0))
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	f.FailFinishes(1) // the warmup's batch is refused by the device
	if err := s.Launch(ok, recorder.Groups(1, 1, 1), w, gputest.F32(1)); err != nil {
		t.Fatal(err)
	}
	err := s.BeginCapture()
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) || !errors.Is(err, wgpu.ErrValidation) || ce.Op != "BeginCapture" {
		t.Fatalf("BeginCapture after a failed warmup must return a BeginCapture *CaptureError wrapping the validation error, got %v", err)
	}
	gputest.WantEqual(t, "state after the failed BeginCapture", lifecycle.NoCapture, s.State())
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(4, 1))
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(3)); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "re-captured after the abort (warmup ×3, replay ×3)", gputest.Fill(4, 9), gputest.Read(t, s, x))
}

// TestAFailedSealLeavesTheStreamInNoCapture: a launch that fails device
// validation inside the window makes EndCapture fail with that diagnostic;
// the state moved first, so the stream is in NoCapture and usable.
func TestAFailedSealLeavesTheStreamInNoCapture(t *testing.T) {
	d, s, f := faultyStream(t)
	ok := gputest.Kernel(t, d, gputest.AddConstWGSL)
	w := gputest.Upload(t, s, gputest.Fill(4, 0))
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(ok, recorder.Groups(1, 1, 1), w, gputest.F32(1)); err != nil {
		t.Fatal(err)
	}
	f.FailFinishes(1) // the device refuses the recording when EndCapture validates it
	_, err := s.EndCapture()
	if !errors.Is(err, wgpu.ErrValidation) || !errors.Is(err, lifecycle.ErrGraphState) || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("EndCapture must fail with the device's diagnostic, got %v", err)
	}
	gputest.WantEqual(t, "state", lifecycle.NoCapture, s.State())
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(4, 1))
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(5)); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "usable after the failed seal", gputest.Fill(4, 5), gputest.Read(t, s, x))
}

// TestAnIntermediateReleasedInTheWindowIsPinnedByTheGraph: an intermediate
// allocated and released inside the window is pinned by the graph; sentinels
// allocated after capture never alias it, and the capture run reuses the
// warmup's slices instead of growing the pools.
func TestAnIntermediateReleasedInTheWindowIsPinnedByTheGraph(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	in := gputest.Upload(t, s, gputest.Fill(64, 1))
	out, _ := s.Alloc(256)
	step := func() {
		tmp, err := s.Alloc(256)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), in, tmp, gputest.U32(64)); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), tmp, out, gputest.U32(64)); err != nil {
			t.Fatal(err)
		}
		tmp.Release()
	}
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	step()
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	pagesAtBegin := s.MemoryStats().Pages
	step()
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if got := s.MemoryStats().Pages; got != pagesAtBegin {
		t.Fatalf("the capture run must reuse the warmup's slices: pages %d at BeginCapture, %d after", pagesAtBegin, got)
	}
	var sentinels []*recorder.Buffer
	for range 8 {
		sb := gputest.Upload(t, s, gputest.Fill(64, -7))
		sentinels = append(sentinels, sb)
	}
	if err := recorder.WriteSlice(s, in, 0, gputest.Fill(64, 10)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "replay through the pinned intermediate", gputest.Fill(64, 12), gputest.Read(t, s, out))
	for i, sb := range sentinels {
		gputest.WantEqual(t, "sentinel "+string(rune('0'+i))+" untouched", gputest.Fill(64, -7), gputest.Read(t, s, sb))
	}
	if st := g.Stats(); st.Buffers != 3 || st.RetainedBytes == 0 {
		t.Fatalf("the graph pins in, tmp and out: %+v", st)
	}
}

// TestTheParamsCacheEvictsNothingInTheWindowAndPinsTheGraphsEntries: with a
// 2-entry params cache, a graph using 6 distinct params keeps all of them
// (capture mode evicts nothing, and entries are pinned), even after
// normal-mode launches churn the cache.
func TestTheParamsCacheEvictsNothingInTheWindowAndPinsTheGraphsEntries(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithMetadataCache(2))
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(16, 1))
	step := func() {
		for i := 1; i <= 6; i++ {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(float32(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	g := gputest.Capture(t, s, step) // warmup: x = 720
	if m := s.MemoryStats(); m.ParamsEntries < 6 {
		t.Fatalf("capture mode must cache every entry: %d entries", m.ParamsEntries)
	}
	for i := 10; i < 30; i++ { // churn in normal mode: 0.5 then 2, many distinct
		f := float32(0.5)
		if i%2 == 1 {
			f = 2
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(f*float32(i)/float32(i))); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(float32(i)/float32(i))); err != nil {
			t.Fatal(err)
		}
	}
	gputest.WantEqual(t, "after warmup and churn", gputest.Fill(16, 720), gputest.Read(t, s, x))
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "replay with pinned params", gputest.Fill(16, 720*720), gputest.Read(t, s, x))
}

// TestIndirectCountsAreReadAtReplayTime: an indirect dispatch is recorded as
// indirect; changing the counts between replays changes what runs. Many
// replays without a sync are fine.
func TestIndirectCountsAreReadAtReplayTime(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(256, 1))
	counts := make([]byte, 12)
	binary.LittleEndian.PutUint32(counts[0:], 1)
	binary.LittleEndian.PutUint32(counts[4:], 1)
	binary.LittleEndian.PutUint32(counts[8:], 1)
	ind, err := s.Upload(counts)
	if err != nil {
		t.Fatal(err)
	}
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Indirect(ind, 0), x, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
	})
	// warmup: first 64 elements ×2.
	binary.LittleEndian.PutUint32(counts[0:], 4)
	if err := s.Write(ind, 0, counts); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	want := gputest.Fill(256, 8)
	for i := range 64 {
		want[i] = 16
	}
	gputest.WantEqual(t, "warmup over 1 group, 3 replays over 4 groups", want, gputest.Read(t, s, x))
}

// TestACaptureRecordsOnlyItsOwnStreamsLaunches: a capture on one stream
// records only that stream's launches; another stream keeps working during
// the window.
func TestACaptureRecordsOnlyItsOwnStreamsLaunches(t *testing.T) {
	d, s := gputest.OpenStream(t)
	s2, err := recorder.New(d)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(16, 1))
	y := gputest.Upload(t, s2, gputest.Fill(16, 1))
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	var got []float32
	go func() {
		defer wg.Done()
		for range 4 {
			if err := s2.Launch(k, recorder.Groups(1, 1, 1), y, gputest.F32(3)); err != nil {
				t.Error(err)
			}
		}
		got, err = recorder.ReadSlice[float32](s2, y)
	}()
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the other stream ran normally during the window", gputest.Fill(16, 81), got)
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if g.Len() != 1 {
		t.Fatalf("the graph holds %d launches; only its own stream's one belongs in it", g.Len())
	}
}

// TestReleaseWhileAReplayIsEnqueuedStillComputesIt: the replay still computes
// what was captured, a later write cannot overtake it, and Replay after
// Release returns ErrReleased.
func TestReleaseWhileAReplayIsEnqueuedStillComputesIt(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 0))
	out, _ := s.Alloc(256)
	step := func() {
		tmp, _ := s.Alloc(256)
		gputest.MustChain(t, s, k, a, tmp, 1, 64)
		gputest.MustChain(t, s, k, tmp, out, 1, 64)
		tmp.Release()
	}
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	step()
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	step()
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	g.Release()
	g.Release()   // idempotent
	for range 4 { // reuse whatever the graph freed
		b, _ := s.Alloc(256)
		if err := recorder.WriteSlice(s, b, 0, gputest.Fill(64, 99)); err != nil {
			t.Fatal(err)
		}
	}
	gputest.WantEqual(t, "the enqueued replay computed the captured work", gputest.Fill(64, 2), gputest.Read(t, s, out))
	if err := g.Replay(); !errors.Is(err, wgpu.ErrReleased) {
		t.Fatalf("Replay after Release must return ErrReleased, got %v", err)
	}
}

// TestReplayAllocatesNothingPerDispatch: the replay loop allocates nothing in
// Go, whatever the graph's length.
func TestReplayAllocatesNothingPerDispatch(t *testing.T) {
	if lockrank.Checked {
		t.Skip("the lockrank build's order checks allocate on every lock")
	}
	for _, pre := range []bool{false, true} {
		t.Run(fmt.Sprintf("preencode=%v", pre), func(t *testing.T) { replayDoesNotAllocate(t, pre) })
	}
}

func replayDoesNotAllocate(t *testing.T, pre bool) {
	d, s := gputest.OpenStream(t, recorder.WithPreEncode(pre))
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 0))
	b, _ := s.Alloc(256)
	allocs := map[int]float64{}
	for _, n := range []int{10, 400} {
		g := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, b, n, 64) })
		// Steady state: the first replays start the pre-encoder and grow
		// the stream's batch lists and record pools (how many batches are
		// in flight at once depends on the submitter's timing). A short
		// graph's run after a sync point is served from its ramp, whose
		// command buffers are finished ahead and so need more records in
		// flight: the warm-up makes runs of the measured length, each
		// ended by a sync point, so the measured run is not the first to
		// use a ramp.
		for range 3 {
			for range 21 { // AllocsPerRun(20) replays 21 times
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
		}
		// The least of three measured runs: a pool that still grows under
		// a loaded host's timing (one more batch in flight than ever
		// before) shows in one run, an allocation per replay in all.
		allocs[n] = math.Inf(1)
		for range 3 {
			allocs[n] = min(allocs[n], testing.AllocsPerRun(20, func() {
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
			}))
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// AllocsPerRun counts every goroutine's allocations. On OpenGL the
	// background submitter's waits for the GPU poll on a goroutine of
	// their own (a few allocations per wait, not per dispatch; seen on the
	// H200: 3 per replay of 400 dispatches): tolerated there, not elsewhere.
	slack := 0.0
	if d.Info().Backend == wgpu.BackendGL {
		slack = 4
	}
	if allocs[10] > slack || allocs[400] > slack {
		t.Fatalf("Replay must not allocate (%v allowed on this backend): %v allocs per replay by length", slack, allocs)
	}
}

// TestReleaseRightAfterAReplayNeverHangs: the first replay starts the
// background pre-encoder; releasing the graph at once must not wait for a
// command buffer the worker never started (a hang seen on the H200).
func TestReleaseRightAfterAReplayNeverHangs(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 0))
	b, _ := s.Alloc(256)
	for range 50 {
		g := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, b, 2, 64) })
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		g.Release()
	}
	gputest.WantEqual(t, "50 × (warmup 2 + replay 2) add-ones", gputest.Fill(64, 200), gputest.Read(t, s, a))
}
