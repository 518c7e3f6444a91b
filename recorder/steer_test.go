package recorder_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestGraphKeepsCallerBuffersAliveAfterTheirRelease: a graph holds a
// reference to every buffer it binds, whoever allocated it. Releasing the
// caller's in/out after capture must not hand their memory to new buffers:
// sentinels stay untouched and the replay still computes into its own (now
// graph-owned) memory, as a second graph reading that memory shows.
func TestGraphKeepsCallerBuffersAliveAfterTheirRelease(t *testing.T) {
	d, s := gputest.OpenStream(t)
	add := gputest.Kernel(t, d, gputest.AddOneWGSL)
	cp := gputest.Kernel(t, d, gputest.CopyWGSL)
	in := gputest.Upload(t, s, gputest.Fill(64, 1))
	out, _ := s.Alloc(256)
	result, _ := s.Alloc(256)
	compute := gputest.Capture(t, s, func() {
		if err := s.Launch(add, recorder.Groups(1, 1, 1), in, out, gputest.U32(64)); err != nil {
			t.Fatal(err)
		}
	})
	observe := gputest.Capture(t, s, func() {
		if err := s.Launch(cp, recorder.Groups(1, 1, 1), out, result); err != nil {
			t.Fatal(err)
		}
	})
	in.Release()
	out.Release()
	var sentinels []*recorder.Buffer
	for range 6 {
		sentinels = append(sentinels, gputest.Upload(t, s, gputest.Fill(64, -5)))
	}
	if err := compute.Replay(); err != nil {
		t.Fatal(err)
	}
	if err := observe.Replay(); err != nil {
		t.Fatal(err)
	}
	for _, sb := range sentinels {
		gputest.WantEqual(t, "a sentinel allocated after the release", gputest.Fill(64, -5), gputest.Read(t, s, sb))
	}
	gputest.WantEqual(t, "the replay computed into the graph-owned out", gputest.Fill(64, 2), gputest.Read(t, s, result))
}

// TestRebindSwapsDoubleBufferedInputsWithoutRecapture: one captured step
// reads from input A; rebinding A→B makes the same graph read B, then back.
func TestRebindSwapsDoubleBufferedInputsWithoutRecapture(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 10))
	b := gputest.Upload(t, s, gputest.Fill(64, 20))
	out, _ := s.Alloc(256)
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), a, out, gputest.U32(64)); err != nil {
			t.Fatal(err)
		}
	})
	if err := g.Replay(); err != nil { // also starts the pre-encoder, which Rebind must invalidate
		t.Fatal(err)
	}
	gputest.WantEqual(t, "bound to a", gputest.Fill(64, 11), gputest.Read(t, s, out))
	gb, err := g.Rebind(a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Release()
	if err := gb.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "rebound to b", gputest.Fill(64, 21), gputest.Read(t, s, out))
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the original graph still reads a: Rebind made a new graph", gputest.Fill(64, 11), gputest.Read(t, s, out))
	ga, err := gb.Rebind(b, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ga.Release()
	gb.Release() // the graph rebound from it stays valid
	if err := ga.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "rebound back to a, after the graph in between was released", gputest.Fill(64, 11), gputest.Read(t, s, out))
}

// TestRebindServesTwoRequestsWithOneCapturedStep: the same graph serves two
// requests by rebinding both its input and its output.
func TestRebindServesTwoRequestsWithOneCapturedStep(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	cp := gputest.Kernel(t, d, gputest.CopyWGSL)
	req1, out1 := gputest.Upload(t, s, gputest.Fill(64, 3)), gputest.Upload(t, s, gputest.Fill(64, 0))
	req2, out2 := gputest.Upload(t, s, gputest.Fill(64, 7)), gputest.Upload(t, s, gputest.Fill(64, 0))
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(cp, recorder.Groups(1, 1, 1), req1, out1); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), out1, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
	})
	serve := func(g *recorder.Graph, out *recorder.Buffer) []float32 {
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		return gputest.Read(t, s, out)
	}
	gputest.WantEqual(t, "request 1", gputest.Fill(64, 6), serve(g, out1))
	g2, err := g.Rebind(req1, req2)
	if err != nil {
		t.Fatal(err)
	}
	g3, err := g2.Rebind(out1, out2)
	if err != nil {
		t.Fatal(err)
	}
	g2.Release()
	defer g3.Release()
	gputest.WantEqual(t, "request 2 through the same captured step", gputest.Fill(64, 14), serve(g3, out2))
	gputest.WantEqual(t, "request 1's output is no longer written", gputest.Fill(64, 6), gputest.Read(t, s, out1))
}

// TestRebindRefusesWhatWouldBreakTheGraph: size mismatch, a buffer the graph
// does not bind, a released or nil new buffer, a usage conflict and a
// recording stream are each refused, and the graph is unchanged.
func TestRebindRefusesWhatWouldBreakTheGraph(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	out, _ := s.Alloc(256)
	other, _ := s.Alloc(256)
	small, _ := s.Alloc(128)
	gone, _ := s.Alloc(256)
	gone.Release()
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), a, out, gputest.U32(64)); err != nil {
			t.Fatal(err)
		}
	})
	cases := []struct {
		name     string
		old, new *recorder.Buffer
		want     error
		msg      string
	}{
		{"size", a, small, wgpu.ErrInvalidArgument, "128 bytes"},
		{"not bound", other, small, wgpu.ErrInvalidArgument, "old is 256"},
		{"not bound same size", other, gone, wgpu.ErrReleased, "new buffer"},
		{"unbound old", other, gputest.Upload(t, s, gputest.Fill(64, 0)), wgpu.ErrInvalidArgument, "does not bind the old buffer"},
		{"nil new", a, nil, wgpu.ErrInvalidArgument, "new buffer is nil"},
		{"nil old", nil, a, wgpu.ErrInvalidArgument, "old buffer is nil"},
		{"conflict", a, out, wgpu.ErrInvalidArgument, "read-write and read-only"},
	}
	for _, c := range cases {
		ng, err := g.Rebind(c.old, c.new)
		if ng != nil || !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: want no graph and %v mentioning %q, got %v, %v", c.name, c.want, c.msg, ng, err)
		}
	}
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Rebind(a, other); !errors.Is(err, lifecycle.ErrGraphState) {
		t.Errorf("Rebind while recording must be refused with ErrGraphState, got %v", err)
	}
	if g2, err := s.EndCapture(); g2 != nil || !errors.Is(err, lifecycle.ErrGraphState) || !strings.Contains(err.Error(), "Rebind: ") {
		g2.Release()
		t.Fatalf("a Rebind refused inside the window must fail EndCapture naming it; got %v, %v", g2, err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "after refused rebinds the graph is unchanged (warmup + replay)", gputest.Fill(64, 2), gputest.Read(t, s, out))
}

// TestCaptureScopeRecordsAStepAndAbortsCleanly: s.Capture runs the step as
// warmup and as the recording; a step error (either run) is returned
// wrapped and leaves the stream in NoCapture, usable and re-capturable.
func TestCaptureScopeRecordsAStepAndAbortsCleanly(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(16, 1))
	step := func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)) }
	g, err := s.Capture(step)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "warmup ×2, replay ×2", gputest.Fill(16, 4), gputest.Read(t, s, x))

	boom := errors.New("boom")
	for _, failOn := range []int{1, 2} {
		calls := 0
		_, err := s.Capture(func() error {
			calls++
			if err := step(); err != nil {
				return err
			}
			if calls == failOn {
				return boom
			}
			return recorder.WriteSlice(s, x, 0, gputest.Fill(16, 1)) // rejected lazily while recording
		})
		if !errors.Is(err, boom) {
			t.Fatalf("a step failing on run %d: want the step's error wrapped, got %v", failOn, err)
		}
		gputest.WantEqual(t, "state after the aborted scope", lifecycle.NoCapture, s.State())
		if err := s.Sync(); err != nil {
			t.Fatalf("the aborted window's rejected writes must not leak into the next sync: %v", err)
		}
	}
	if _, err := s.Capture(nil); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Fatalf("Capture(nil) must be refused, got %v", err)
	}
}

// TestReplayWhileRecordingAppendsAChildGraph: replaying a sealed graph on
// its recording stream appends its dispatches; the new graph pins what the
// child pins, so it still works after the child is released.
func TestReplayWhileRecordingAppendsAChildGraph(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(16, 1))
	child := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(3)); err != nil {
			t.Fatal(err)
		}
	}) // x = 3
	parent := gputest.Capture(t, s, func() {
		if err := child.Replay(); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
	}) // warmup: x = 3·3·2 = 18
	if parent.Len() != 2 {
		t.Fatalf("the parent holds the child's dispatch and its own: Len %d, want 2", parent.Len())
	}
	child.Release()
	if err := parent.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "parent replay after the child's release", gputest.Fill(16, 108), gputest.Read(t, s, x))
}

// TestSeveralGraphsReplayOnlyTheirOwnDispatches: two workloads captured on
// one stream, replays interleaved; each replays only itself.
func TestSeveralGraphsReplayOnlyTheirOwnDispatches(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(16, 1))
	y := gputest.Upload(t, s, gputest.Fill(16, 1))
	gx := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
	})
	gy := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), y, gputest.F32(3)); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), y, gputest.F32(3)); err != nil {
			t.Fatal(err)
		}
	})
	for _, g := range []*recorder.Graph{gx, gy, gx, gx, gy} {
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	gputest.WantEqual(t, "x: warmup ×2, 3 replays ×2", gputest.Fill(16, 16), gputest.Read(t, s, x))
	gputest.WantEqual(t, "y: warmup ×9, 2 replays ×9", gputest.Fill(16, 729), gputest.Read(t, s, y))
	gputest.WantEqual(t, "live graphs in MemoryStats", 2, s.MemoryStats().Graphs)
}

// TestGraphDescribesItselfAsTextAndDOT: a 3-kernel chain a→b→c→a shows its
// kernels, buffers and read-after-write edges.
func TestGraphDescribesItselfAsTextAndDOT(t *testing.T) {
	d, s := gputest.OpenStream(t)
	add := gputest.Kernel(t, d, gputest.AddOneWGSL)
	scale := gputest.Kernel(t, d, gputest.ScaleWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b, _ := s.Alloc(256)
	c, _ := s.Alloc(1024)
	g := gputest.Capture(t, s, func() {
		for _, err := range []error{
			s.Launch(add, recorder.Groups(1, 1, 1), a, b, gputest.U32(64)),
			s.Launch(scale, recorder.Groups(4, 1, 1), b, gputest.F32(2)),
			s.Launch(add, recorder.Groups(1, 1, 1), b, c, gputest.U32(64)),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	var dot bytes.Buffer
	if err := g.WriteDOT(&dot); err != nil {
		t.Fatal(err)
	}
	want := `digraph softgraph {
  node [shape=box, fontname="monospace"];
  d0 [label="0: main\ngroups 1×1×1"];
  d1 [label="1: main\ngroups 4×1×1"];
  d0 -> d1 [label="b1"];
  d2 [label="2: main\ngroups 1×1×1"];
  d1 -> d2 [label="b1"];
}
`
	gputest.WantEqual(t, "DOT of a 3-kernel chain", want, dot.String())
	str := g.String()
	for _, part := range []string{"3 dispatches", "main ×2", "main#2 ×1", "b0 256 B", "b1 256 B", "b2 1024 B", "params: 2 (32 B)"} {
		if !strings.Contains(str, part) {
			t.Errorf("String() = %q, want it to contain %q", str, part)
		}
	}
}

// TestProfileReplayTimesEveryDispatch: per-dispatch GPU times with kernel
// names where timestamps exist, the whole replay otherwise.
func TestProfileReplayTimesEveryDispatch(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(4096, 0))
	b, _ := s.Alloc(a.Size())
	g := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, b, 6, 4096) })
	p, err := s.ProfileReplay(g)
	if err != nil {
		t.Fatal(err)
	}
	if !(p.Total > 0) {
		t.Fatalf("total GPU time must be positive: %+v", p)
	}
	if d.Info().Timestamps {
		if p.Method != recorder.ProfileTimestamps || len(p.Dispatches) != 6 {
			t.Fatalf("with timestamps: want 6 timed dispatches, got %v with %d", p.Method, len(p.Dispatches))
		}
		for i, dt := range p.Dispatches {
			if dt.Index != i || dt.Kernel != "main" || dt.Dispatch != "groups 64×1×1" {
				t.Errorf("dispatch %d described as %+v", i, dt)
			}
		}
	} else if p.Method != recorder.ProfileWallClock {
		t.Fatalf("without timestamps the fallback must say so: %v", p.Method)
	}
	gputest.WantEqual(t, "the profiled replay computed (warmup 6 + replay 6)", gputest.Fill(4096, 12), gputest.Read(t, s, a))
}

// TestProfileReplayTimesGraphsLongerThanOneQuerySet: a graph with more
// dispatches than one timestamp query set holds is timed dispatch by
// dispatch across several sets, every set resolved before the profile waits
// for any, and the replay computes what it captured.
func TestProfileReplayTimesGraphsLongerThanOneQuerySet(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	const n = 2*2048 + 6 // three query sets of 2048 dispatches at most
	a := gputest.Upload(t, s, gputest.Fill(64, 0))
	b, _ := s.Alloc(a.Size())
	g := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, b, n, 64) })
	p, err := s.ProfileReplay(g)
	if err != nil {
		t.Fatal(err)
	}
	if d.Info().Timestamps {
		got := make([]int, len(p.Dispatches))
		for i, dt := range p.Dispatches {
			got[i] = dt.Index
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("timed dispatches of a %d-dispatch graph, by index (-want +got):\n%s", n, diff)
		}
	} else if p.Method != recorder.ProfileWallClock || !(p.Total > 0) {
		t.Fatalf("without timestamps: want a positive wall time, got %+v", p)
	}
	gputest.WantEqual(t, "the profiled replay computed (warmup n + replay n)", gputest.Fill(64, 2*n), gputest.Read(t, s, a))
}

// TestMemoryStatsAccountForPoolsGraphsAndParams: the numbers add up and the
// pool-growth debug line carries them.
func TestMemoryStatsAccountForPoolsGraphsAndParams(t *testing.T) {
	var logs bytes.Buffer
	d, s := gputest.OpenStream(t, recorder.WithLogger(zerolog.New(&logs).Level(zerolog.DebugLevel)))
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x, _ := s.Alloc(4096)
	y, _ := s.Alloc(100)
	m := s.MemoryStats()
	if m.Pages != 2 || m.Reserved != 4096+256 || m.InUse != m.Reserved || m.Free != 0 {
		t.Fatalf("two live buffers (4096 B and a 256 B class): %+v", m)
	}
	y.Release()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	m = s.MemoryStats()
	if m.Free != 256 || m.InUse != 4096 {
		t.Fatalf("a released buffer is free memory: %+v", m)
	}
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
	})
	m = s.MemoryStats()
	if m.Graphs != 1 || m.GraphPinned != 4096 || len(m.PerGraph) != 1 || m.PerGraph[0].Pinned < 4096 || m.ParamsEntries != 1 || m.Params == 0 {
		t.Fatalf("one graph pinning x and one params slot: %+v", m)
	}
	g.Release()
	if m := s.MemoryStats(); m.Graphs != 0 || m.GraphPinned != 0 {
		t.Fatalf("a released graph pins nothing: %+v", m)
	}
	if !strings.Contains(logs.String(), `"message":"pool grew"`) || !strings.Contains(logs.String(), `"reserved":`) {
		t.Fatalf("pool growth must be logged with the accounting; log:\n%s", logs.String())
	}
}
