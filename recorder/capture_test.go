package recorder_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// capture runs step as warmup and as the recorded run, and returns the graph.
func capture(t testing.TB, s *recorder.Stream, step func()) *recorder.Graph {
	t.Helper()
	if err := s.GraphPrepare(); err != nil {
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
	t.Cleanup(g.Release)
	return g
}

func wantGraphState(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("%s must be refused with lifecycle.ErrGraphState, got %v", what, err)
	}
}

// TestCaptureReplaysExactly is the capture issue's done-criterion: a
// 150-launch ping-pong with params metadata; warmup + 2 replays = 3 passes
// of results; then an input rewrite feeds the next replay.
func TestCaptureReplaysExactly(t *testing.T) {
	for _, pre := range []bool{false, true} {
		t.Run(fmt.Sprintf("preencode=%v", pre), func(t *testing.T) { captureReplaysExactly(t, pre) })
	}
}

func captureReplaysExactly(t *testing.T, pre bool) {
	d, s := openStream(t, recorder.WithPreEncode(pre))
	k := kernel(t, d, addOneWGSL)
	in := iota(100, 0)
	a := upload(t, s, in)
	b, _ := s.Empty(a.Size())
	g := capture(t, s, func() { chain(t, s, k, a, b, 150, 100) })
	wantEqual(t, "after warmup only (the recorded run must not execute)", plus(in, 150), read(t, s, a))
	for range 2 {
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	wantEqual(t, "warmup + 2 replays", plus(in, 450), read(t, s, a))
	if err := recorder.WriteSlice(s, a, 0, fill(100, -1000)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "a rewritten input feeds the next replay", fill(100, -850), read(t, s, a))
	st := g.Stats()
	wantEqual(t, "stats (dispatches, kernels, bind groups)", [3]int{150, 1, 2}, [3]int{st.Dispatches, st.Kernels, st.BindGroups})
	wantEqual(t, "Len", 150, g.Len())
}

// TestRule1CaptureOrderIsEnforcedAndRefusalsChangeNothing: only
// NoCapture→Prepare→Capture→NoCapture; every out-of-order call is refused,
// changes nothing, and the stream stays usable and re-capturable.
func TestRule1CaptureOrderIsEnforcedAndRefusalsChangeNothing(t *testing.T) {
	d, s := openStream(t)
	k := kernel(t, d, addOneWGSL)
	a := upload(t, s, fill(8, 0))
	b, _ := s.Empty(a.Size())
	wantGraphState(t, "BeginCapture without GraphPrepare", s.BeginCapture())
	_, err := s.EndCapture()
	wantGraphState(t, "EndCapture with nothing recording", err)
	wantEqual(t, "state after refusals", lifecycle.NoCapture, s.State())
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	wantGraphState(t, "a second GraphPrepare", s.GraphPrepare())
	_, err = s.EndCapture()
	wantGraphState(t, "EndCapture while only prepared", err)
	wantEqual(t, "state after refusals in Prepare", lifecycle.Prepare, s.State())
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	wantGraphState(t, "GraphPrepare while recording", s.GraphPrepare())
	wantGraphState(t, "BeginCapture while recording", s.BeginCapture())
	wantEqual(t, "state after refusals in Capture", lifecycle.Capture, s.State())
	chain(t, s, k, a, b, 2, 8)
	g, err := s.EndCapture()
	if err != nil {
		t.Fatalf("the capture survives refused transitions: %v", err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "the graph of 2 add-ones", fill(8, 2), read(t, s, a))
	g2 := capture(t, s, func() { chain(t, s, k, a, b, 1, 8) })
	if g2.Len() != 1 {
		t.Fatalf("re-capture recorded %d launches, want 1", g2.Len())
	}
}

// TestRule2LaunchesAreRecordedNotExecuted: in Capture, Launch appends to the
// recording; the recorded work must not run at capture time.
func TestRule2LaunchesAreRecordedNotExecuted(t *testing.T) {
	d, s := openStream(t)
	k := kernel(t, d, scaleWGSL)
	x := upload(t, s, fill(16, 1))
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(3)); err != nil {
			t.Fatal(err)
		}
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	wantEqual(t, "nothing ran at capture time", fill(16, 1), read(t, s, x))
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "one replay = 3^5", fill(16, 243), read(t, s, x))
}

// TestRule3ReadSyncProfileAreRefusedWhileRecordingWithoutPoisoningTheCapture:
// they fail on the spot; EndCapture still succeeds.
func TestRule3ReadSyncProfileAreRefusedWhileRecordingWithoutPoisoningTheCapture(t *testing.T) {
	d, s := openStream(t)
	k := kernel(t, d, scaleWGSL)
	x := upload(t, s, fill(16, 1))
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(2)); err != nil {
		t.Fatal(err)
	}
	_, err := s.Read(x)
	wantGraphState(t, "Read while recording", err)
	wantGraphState(t, "Sync while recording", s.Sync())
	_, err = s.StartProfile()
	wantGraphState(t, "StartProfile while recording", err)
	g, err := s.EndCapture()
	if err != nil {
		t.Fatalf("refused reads, syncs and profiles must not poison the capture: %v", err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "the capture recorded its launch", fill(16, 2), read(t, s, x))
}

// TestRule4WriteWhileRecordingFailsEndCapture: Write returns nil, applies
// nothing, and makes EndCapture fail; afterwards the stream is in
// NoCapture, usable, and a new capture works.
func TestRule4WriteWhileRecordingFailsEndCapture(t *testing.T) {
	d, s := openStream(t)
	k := kernel(t, d, scaleWGSL)
	x := upload(t, s, fill(16, 1))
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := recorder.WriteSlice(s, x, 0, fill(16, 7)); err != nil {
		t.Fatalf("a write while recording is rejected lazily: it must return nil, got %v", err)
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(2)); err != nil {
		t.Fatal(err)
	}
	g, err := s.EndCapture()
	var ce *recorder.CaptureError
	if g != nil || !errors.As(err, &ce) || !errors.Is(err, lifecycle.ErrGraphState) || !strings.Contains(err.Error(), "write") {
		t.Fatalf("EndCapture after a write in the window must fail naming the write, got graph=%v err=%v", g, err)
	}
	wantEqual(t, "state after the failed EndCapture", lifecycle.NoCapture, s.State())
	wantEqual(t, "the rejected write applied nothing", fill(16, 1), read(t, s, x))
	g = capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(2)); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "a new capture works (warmup ×2, replay ×2)", fill(16, 4), read(t, s, x))
}

// TestRule5FailedWarmupAbortsBeginCapture: a device error during warmup
// makes BeginCapture fail and Abort to NoCapture; the stream is usable and
// re-capturable.
func TestRule5FailedWarmupAbortsBeginCapture(t *testing.T) {
	d, s := openStream(t)
	bad := kernel(t, d, fixedWGSL)
	small, _ := s.Empty(16)
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(bad, recorder.Groups(1, 1, 1), small); err != nil {
		t.Fatal(err)
	}
	err := s.BeginCapture()
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) || !errors.Is(err, wgpu.ErrValidation) || ce.Op != "begin_capture" {
		t.Fatalf("BeginCapture after a failed warmup must return a begin_capture *CaptureError wrapping the validation error, got %v", err)
	}
	wantEqual(t, "state after the failed BeginCapture", lifecycle.NoCapture, s.State())
	k := kernel(t, d, scaleWGSL)
	x := upload(t, s, fill(4, 1))
	g := capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(3)); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "re-captured after the abort (warmup ×3, replay ×3)", fill(4, 9), read(t, s, x))
}

// TestRule5FailedSealLeavesNoCapture: a launch that fails device validation
// inside the window makes EndCapture fail with that diagnostic; the state
// moved first, so the stream is in NoCapture and usable.
func TestRule5FailedSealLeavesNoCapture(t *testing.T) {
	d, s := openStream(t)
	bad := kernel(t, d, fixedWGSL)
	small, _ := s.Empty(16)
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(bad, recorder.Groups(1, 1, 1), small); err != nil {
		t.Fatal(err)
	}
	_, err := s.EndCapture()
	if !errors.Is(err, wgpu.ErrValidation) || !errors.Is(err, lifecycle.ErrGraphState) || !strings.Contains(err.Error(), "expects 256") {
		t.Fatalf("EndCapture must fail with the device's diagnostic, got %v", err)
	}
	wantEqual(t, "state", lifecycle.NoCapture, s.State())
	k := kernel(t, d, scaleWGSL)
	x := upload(t, s, fill(4, 1))
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(5)); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "usable after the failed seal", fill(4, 5), read(t, s, x))
}

// TestRule6ReleasedIntermediateIsPinnedByTheGraph: an intermediate
// allocated and released inside the window is pinned by the graph;
// sentinels allocated after capture never alias it, and the capture run
// reuses the warmup's slices instead of growing the pools.
func TestRule6ReleasedIntermediateIsPinnedByTheGraph(t *testing.T) {
	d, s := openStream(t)
	k := kernel(t, d, addOneWGSL)
	in := upload(t, s, fill(64, 1))
	out, _ := s.Empty(256)
	step := func() {
		tmp, err := s.Empty(256)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), in, tmp, u32params(64)); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), tmp, out, u32params(64)); err != nil {
			t.Fatal(err)
		}
		tmp.Release()
	}
	if err := s.GraphPrepare(); err != nil {
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
		sb := upload(t, s, fill(64, -7))
		sentinels = append(sentinels, sb)
	}
	if err := recorder.WriteSlice(s, in, 0, fill(64, 10)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "replay through the pinned intermediate", fill(64, 12), read(t, s, out))
	for i, sb := range sentinels {
		wantEqual(t, "sentinel "+string(rune('0'+i))+" untouched", fill(64, -7), read(t, s, sb))
	}
	if st := g.Stats(); st.Buffers != 3 || st.RetainedBytes == 0 {
		t.Fatalf("the graph pins in, tmp and out: %+v", st)
	}
}

// TestRule7CacheCapturesAcrossTheWindowAndPinsEntries: with a 2-entry
// params cache, a graph using 6 distinct params keeps all of them (capture
// mode evicts nothing, and entries are pinned), even after normal-mode
// launches churn the cache.
func TestRule7CacheCapturesAcrossTheWindowAndPinsEntries(t *testing.T) {
	d, s := openStream(t, recorder.WithMetadataCache(2))
	k := kernel(t, d, scaleWGSL)
	x := upload(t, s, fill(16, 1))
	step := func() {
		for i := 1; i <= 6; i++ {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(float32(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	g := capture(t, s, step) // warmup: x = 720
	if m := s.MemoryStats(); m.ParamsEntries < 6 {
		t.Fatalf("capture mode must cache every entry: %d entries", m.ParamsEntries)
	}
	for i := 10; i < 30; i++ { // churn in normal mode: 0.5 then 2, many distinct
		f := float32(0.5)
		if i%2 == 1 {
			f = 2
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(f*float32(i)/float32(i))); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(float32(i)/float32(i))); err != nil {
			t.Fatal(err)
		}
	}
	wantEqual(t, "after warmup and churn", fill(16, 720), read(t, s, x))
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "replay with pinned params", fill(16, 720*720), read(t, s, x))
}

// TestRule8IndirectCountsAreReadAtReplayTime: an indirect dispatch is
// recorded as indirect; changing the counts between replays changes what
// runs. Many replays without a sync are fine.
func TestRule8IndirectCountsAreReadAtReplayTime(t *testing.T) {
	d, s := openStream(t)
	k := kernel(t, d, scaleWGSL)
	x := upload(t, s, fill(256, 1))
	counts := make([]byte, 12)
	binary.LittleEndian.PutUint32(counts[0:], 1)
	binary.LittleEndian.PutUint32(counts[4:], 1)
	binary.LittleEndian.PutUint32(counts[8:], 1)
	ind, err := s.Upload(counts)
	if err != nil {
		t.Fatal(err)
	}
	g := capture(t, s, func() {
		if err := s.Launch(k, recorder.Indirect(ind, 0), x, f32params(2)); err != nil {
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
	want := fill(256, 8)
	for i := range 64 {
		want[i] = 16
	}
	wantEqual(t, "warmup over 1 group, 3 replays over 4 groups", want, read(t, s, x))
}

// TestRule9CaptureIsolatesStreams: a capture on one stream records only
// that stream's launches; another stream keeps working during the window.
func TestRule9CaptureIsolatesStreams(t *testing.T) {
	d, s := openStream(t)
	s2, err := recorder.New(d)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	k := kernel(t, d, scaleWGSL)
	x := upload(t, s, fill(16, 1))
	y := upload(t, s2, fill(16, 1))
	if err := s.GraphPrepare(); err != nil {
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
			if err := s2.Launch(k, recorder.Groups(1, 1, 1), y, f32params(3)); err != nil {
				t.Error(err)
			}
		}
		got, err = recorder.ReadSlice[float32](s2, y)
	}()
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, f32params(2)); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "the other stream ran normally during the window", fill(16, 81), got)
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if g.Len() != 1 {
		t.Fatalf("the graph holds %d launches; only its own stream's one belongs in it", g.Len())
	}
}

// TestRule10ReleaseWhileReplayIsEnqueued: the replay still computes what was
// captured, a later write cannot overtake it, and Replay after Release
// returns ErrReleased.
func TestRule10ReleaseWhileReplayIsEnqueued(t *testing.T) {
	d, s := openStream(t, recorder.WithPreEncode(true))
	k := kernel(t, d, addOneWGSL)
	a := upload(t, s, fill(64, 0))
	out, _ := s.Empty(256)
	step := func() {
		tmp, _ := s.Empty(256)
		chain(t, s, k, a, tmp, 1, 64)
		chain(t, s, k, tmp, out, 1, 64)
		tmp.Release()
	}
	if err := s.GraphPrepare(); err != nil {
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
		b, _ := s.Empty(256)
		if err := recorder.WriteSlice(s, b, 0, fill(64, 99)); err != nil {
			t.Fatal(err)
		}
	}
	wantEqual(t, "the enqueued replay computed the captured work", fill(64, 2), read(t, s, out))
	if err := g.Replay(); !errors.Is(err, wgpu.ErrReleased) {
		t.Fatalf("Replay after Release must return ErrReleased, got %v", err)
	}
}

// TestRule11ReplayDoesNotAllocatePerDispatch: the replay loop allocates
// nothing in Go, whatever the graph's length.
func TestRule11ReplayDoesNotAllocatePerDispatch(t *testing.T) {
	for _, pre := range []bool{false, true} {
		t.Run(fmt.Sprintf("preencode=%v", pre), func(t *testing.T) { replayDoesNotAllocate(t, pre) })
	}
}

func replayDoesNotAllocate(t *testing.T, pre bool) {
	d, s := openStream(t, recorder.WithPreEncode(pre))
	k := kernel(t, d, addOneWGSL)
	a := upload(t, s, fill(64, 0))
	b, _ := s.Empty(256)
	allocs := map[int]float64{}
	for _, n := range []int{10, 400} {
		g := capture(t, s, func() { chain(t, s, k, a, b, n, 64) })
		allocs[n] = testing.AllocsPerRun(5, func() {
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
		})
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	if allocs[10] != 0 || allocs[400] != 0 {
		t.Fatalf("Replay must not allocate: %v allocs per replay by length", allocs)
	}
}

// TestReleaseRightAfterAReplayNeverHangs: the first replay starts the
// background pre-encoder; releasing the graph at once must not wait for a
// command buffer the worker never started (a hang seen on the H200).
func TestReleaseRightAfterAReplayNeverHangs(t *testing.T) {
	d, s := openStream(t, recorder.WithPreEncode(true))
	k := kernel(t, d, addOneWGSL)
	a := upload(t, s, fill(64, 0))
	b, _ := s.Empty(256)
	for range 50 {
		g := capture(t, s, func() { chain(t, s, k, a, b, 2, 64) })
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		g.Release()
	}
	wantEqual(t, "50 × (warmup 2 + replay 2) add-ones", fill(64, 200), read(t, s, a))
}
