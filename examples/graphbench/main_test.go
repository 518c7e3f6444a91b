package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/examples/workloads"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// testedConfigs are one of each kind of config: a chain captured whole, a
// short graph replayed many times per pass, a Life graph, the mlp chain
// (recorder paths only) and a bitonic sort (nothing to fuse).
var testedConfigs = []string{"tiny_x150", "tiny_g1_x1000", "life64_g2_x200", "mlp_4k_x999", "sort4k_x78"}

// TestQuickRunWritesCompleteJSONAndEveryPathComputed runs the benchmark as
// a user would with -quick on one config of each kind, and checks that the
// JSON has every field for every path and that every path's result buffer
// held the expected value (the paths computed, they were not just timed).
func TestQuickRunWritesCompleteJSONAndEveryPathComputed(t *testing.T) {
	gputest.Open(t, wgpu.Options{}) // skips, or fails on CI, where no adapter exists
	dir := gputest.TempDir(t)
	jsonPath, svgPath := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.svg")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-quick", "-configs", strings.Join(testedConfigs, ","), "-json", jsonPath, "-svg", svgPath, "-save", dir}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "adapter: ") {
		t.Fatalf("the table starts with the adapter:\n%s", stdout.String())
	}
	rep := readReport(t, jsonPath)
	if rep.Adapter == "" || len(rep.Rows) != len(testedConfigs) {
		t.Fatalf("want the adapter and %d rows, got adapter=%q rows=%d", len(testedConfigs), rep.Adapter, len(rep.Rows))
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil || !bytes.HasPrefix(svg, []byte("<svg")) {
		t.Fatalf("the SVG chart is missing or empty: %v", err)
	}
	type identity struct {
		Config, Workload           string
		Elems                      uint32
		Kernels, GraphLen, Replays int
	}
	wantIDs := []identity{
		{"tiny_x150", "add_one", 64, 150, 150, 1},
		{"tiny_g1_x1000", "add_one_inplace", 64, 1000, 1, 1000},
		{"life64_g2_x200", "life", 64 * 64, 200, 2, 100},
		{"mlp_4k_x999", "mlp", 4096, 999, 999, 1},
		{"sort4k_x78", "sort", 4096, 78, 78, 1},
	}
	for i, r := range rep.Rows {
		t.Run(r.Config, func(t *testing.T) {
			if d := cmp.Diff(wantIDs[i], identity{r.Config, r.Workload, r.Elems, r.Kernels, r.GraphLen, r.Replays}); d != "" || r.Rounds < 3 {
				t.Fatalf("row identity (-want +got), and at least 3 rounds (got %d):\n%s", r.Rounds, d)
			}
			if !strings.Contains(stdout.String(), r.Config) || !bytes.Contains(svg, []byte(r.Config)) {
				t.Errorf("the table and the chart must list %s", r.Config)
			}
			checkRow(t, r)
			checkSavedGraph(t, dir, r.Config)
		})
	}
}

// checkSavedGraph loads the pair of files -save wrote for config in a fresh
// stream, replays the graph once from its saved initial contents and
// compares every buffer with the expected file's, as the replay tool's
// -check does. The replay must change something: a file saved with the
// wrong contents (or none) would compare equal to nothing.
func checkSavedGraph(t *testing.T, dir, config string) {
	t.Helper()
	s := gputest.Stream(t, gputest.Open(t, wgpu.Options{}))
	load := func(name string) *recorder.Graph {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("-save must write %s: %v", name, err)
		}
		defer f.Close()
		g, err := s.LoadGraph(f)
		if err != nil {
			t.Fatalf("LoadGraph(%s): %v", name, err)
		}
		t.Cleanup(g.Release)
		return g
	}
	in, want := load(config+".sgraph"), load(config+".expected.sgraph")
	contents := func(g *recorder.Graph) [][]byte {
		var out [][]byte
		for _, b := range g.Buffers() {
			v, err := recorder.ReadSlice[byte](s, b)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	before := contents(in)
	if err := in.Replay(); err != nil {
		t.Fatal(err)
	}
	after := contents(in)
	if cmp.Equal(before, after) {
		t.Fatalf("%s: one replay of the saved graph changed none of its buffers", config)
	}
	if d := cmp.Diff(contents(want), after); d != "" {
		t.Errorf("%s: one replay of the saved graph differs from the saved expected result (-want +got):\n%s", config, d)
	}
}

// checkRow checks one freshly measured row's fields.
func checkRow(t *testing.T, r row) {
	t.Helper()
	// Timings are checked for presence, sign and order, not for being
	// positive: a clock that ticks coarsely (Go's on Windows reads the
	// interrupt time, which wine on CI's Windows leg updates in steps of
	// milliseconds) reads a short interval as zero. That every path ran is
	// what Verified proves below.
	measured := func(m map[string]float64, p string) bool {
		v, ok := m[p]
		return ok && v >= 0 // false for NaN too
	}
	hand := r.Workload != "mlp" // the hand-written paths run one kernel: not mlp's chain
	ran := []string{"eager", "replay", "replay_inline", "fused"}
	if hand {
		ran = paths
	}
	for _, p := range ran {
		if !measured(r.E2E, p) || !measured(r.E2EMin, p) || !measured(r.E2EMax, p) || r.E2EMin[p] > r.E2E[p] || r.E2EMax[p] < r.E2E[p] {
			t.Errorf("path %s: e2e median %v, min %v, max %v must be present, non-negative and ordered", p, r.E2E[p], r.E2EMin[p], r.E2EMax[p])
		}
	}
	for _, p := range []string{"eager", "replay", "replay_inline"} {
		if !measured(r.Enqueue, p) {
			t.Errorf("enqueue µs/pass of %s must be present and non-negative, got %v", p, r.Enqueue[p])
		}
	}
	for _, p := range []string{"replay", "replay_inline"} {
		if !measured(r.EnqueuePerReplay, p) || math.Abs(r.EnqueuePerReplay[p]*float64(r.Replays)-r.Enqueue[p]) > 1e-6*r.Enqueue[p]+1e-9 {
			t.Errorf("enqueue µs/Replay of %s must be its enqueue per pass / %d replays: %v vs %v", p, r.Replays, r.EnqueuePerReplay[p], r.Enqueue[p])
		}
	}
	if !(r.Share >= 0) || !(r.CaptureMS >= 0) {
		t.Errorf("share %v and capture_ms %v must be non-negative", r.Share, r.CaptureMS)
	}
	// The ratios are the medians' quotients, side by side from this run.
	var keys []string
	for k := range r.Ratios {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	wantKeys := []string{"eager/replay", "fused/floor_unfused", "fused/replay"}
	if hand {
		wantKeys = []string{"eager/replay", "fused/floor_unfused", "fused/replay", "replay/floor", "replay/raw_best"}
	}
	if d := cmp.Diff(wantKeys, keys); d != "" {
		t.Errorf("ratio keys (-want +got):\n%s", d)
	}
	// floor_unfused is the gpu path's median, or without hand-written
	// paths the library's floor of the unfused graph.
	floor := r.E2E["gpu"]
	if !hand && r.LibProfile != nil {
		floor = r.LibProfile.Floor
	}
	if r.FloorUnfused != floor {
		t.Errorf("floor_unfused %v, want %v", r.FloorUnfused, floor)
	}
	if r.FusedDispatches < 1 || r.FusedDispatches > r.GraphLen {
		t.Errorf("the fused graph has %d dispatches, of %d", r.FusedDispatches, r.GraphLen)
	}
	// Life and the sort read their neighbours (the sort also counts swaps
	// with an atomic): their kernels are not pointwise, so the fused graph
	// keeps every dispatch and its summary says why each pair was not
	// fused. The other workloads are pointwise chains.
	switch r.Workload {
	case "life", "sort":
		pairs := fmt.Sprintf("%d adjacent pairs", r.GraphLen-1)
		if r.GraphLen == 2 {
			pairs = "1 adjacent pair"
		}
		want := "fused: 0 chains of 0 dispatches; not fused: " + pairs + " ("
		if r.FusedDispatches != r.GraphLen || !strings.HasPrefix(r.Fusion, want) || !strings.Contains(r.Fusion, " × kernel main: ") {
			t.Errorf("%s: nothing fuses, so the fused graph keeps its %d dispatches (got %d) and says why for every pair:\n got %q\nwant prefix %q", r.Config, r.GraphLen, r.FusedDispatches, r.Fusion, want)
		}
	default:
		if r.GraphLen >= 64 && r.FusedDispatches*2 > r.GraphLen && !strings.Contains(r.Fusion, "in a fused kernel (docs/fusion.md)") { // context-dependent float kernels stay unfused
			t.Errorf("%s: a chain of %d pointwise dispatches fused only to %d", r.Config, r.GraphLen, r.FusedDispatches)
		}
		if !strings.HasPrefix(r.Fusion, "fused: ") {
			t.Errorf("%s: the row must carry the fused graph's fusion summary, got %q", r.Config, r.Fusion)
		}
	}
	wantRatios := map[string]float64{
		"eager/replay":        r.E2E["eager"] / r.E2E["replay"],
		"fused/replay":        r.E2E["fused"] / r.E2E["replay"],
		"fused/floor_unfused": r.E2E["fused"] / floor,
	}
	if hand {
		best := math.Min(r.E2E["raw"], r.E2E["raw_chunked"])
		wantRatios["replay/raw_best"] = r.E2E["replay"] / best
		wantRatios["replay/floor"] = r.E2E["replay"] / r.E2E["gpu"]
	}
	for k, want := range wantRatios {
		if got := r.Ratios[k]; !(math.Abs(got-want) <= 1e-9*math.Abs(want)) && !(math.IsNaN(want) && math.IsNaN(got)) {
			t.Errorf("ratio %s is %v, want the medians' quotient %v", k, got, want)
		}
	}
	if !hand {
		checkVerified(t, r, ran)
		return
	}
	// raw_chunked's chunk is the sweep's fastest candidate, and the best
	// hand-written path is named with its chunk.
	cands := chunkCandidates(r.Kernels)
	if _, ok := r.ChunkSweep[r.RawChunk]; !ok || len(r.ChunkSweep) != len(cands) || !slices.Contains(cands, r.RawChunk) {
		t.Errorf("raw_chunked's chunk %d must be one of the swept candidates %v: sweep %v", r.RawChunk, cands, r.ChunkSweep)
	}
	for c, v := range r.ChunkSweep {
		if v < r.ChunkSweep[r.RawChunk] {
			t.Errorf("chunk %d (%v µs/k) beat the chosen chunk %d (%v µs/k) in the sweep", c, v, r.RawChunk, r.ChunkSweep[r.RawChunk])
		}
	}
	switch {
	case r.RawBestPath == "raw" && r.RawBestChunk == r.Kernels && r.E2E["raw"] <= r.E2E["raw_chunked"]:
	case r.RawBestPath == "raw_chunked" && r.RawBestChunk == r.RawChunk && r.E2E["raw_chunked"] < r.E2E["raw"]:
	default:
		t.Errorf("raw_best %s chunk %d must name the faster of raw (%v) and raw_chunked (%v, chunk %d)",
			r.RawBestPath, r.RawBestChunk, r.E2E["raw"], r.E2E["raw_chunked"], r.RawChunk)
	}
	// Non-negative, not positive: the coarse clock again.
	if lp := r.LibProfile; lp == nil || lp.Error != "" || lp.Method == "" || !(lp.Floor >= 0) || !(lp.GPU >= 0) {
		t.Errorf("the library's ProfileReplay of the graph must be reported, with its method and floor: %+v", lp)
	}
	checkVerified(t, r, ran)
}

// checkVerified: every path that ran computed what its dispatches compute.
func checkVerified(t *testing.T, r row, ran []string) {
	t.Helper()
	want := map[string]bool{}
	for _, p := range ran {
		want[p] = true
	}
	if d := cmp.Diff(want, r.Verified); d != "" {
		t.Fatalf("every path's result buffer must hold what its dispatches compute (-want +got):\n%s\n%v", d, r.VerifyError)
	}
}

// TestMergeReadsRunsWithoutTheNewFields merges a run written before the
// short-graph, Life and raw_chunked columns existed with a current one: the
// old row keeps its measurements, gains what they determine (graph = pass,
// per-Replay enqueue, replay/floor = its replay/gpu) and shows its
// replay/raw as against raw only; no GPU is needed.
func TestMergeReadsRunsWithoutTheNewFields(t *testing.T) {
	dir := gputest.TempDir(t)
	old := `{"adapter":"A","rows":[{"config":"tiny_x150","elems":64,"kernels":150,"rounds":5,
		"e2e_us_per_kernel":{"eager":3,"replay":2,"replay_inline":2.5,"raw":2.2,"gpu":1.5},
		"e2e_us_per_kernel_min":{"eager":2.9,"replay":1.9,"replay_inline":2.4,"raw":2.1,"gpu":1.4},
		"e2e_us_per_kernel_max":{"eager":3.1,"replay":2.1,"replay_inline":2.6,"raw":2.3,"gpu":1.6},
		"enqueue_us_per_pass":{"eager":300,"replay":60,"replay_inline":90},"share":0.67,"capture_ms":1,
		"ratios":{"eager/replay":1.5,"replay/raw":0.91,"replay/gpu":1.33},
		"verified":{"eager":true,"replay":true,"replay_inline":true,"raw":true,"gpu":true}}]}`
	cur := rowJSON(t, row{Config: "tiny_g2_x1000", Workload: "add_one_inplace", Elems: 64, Kernels: 1000, GraphLen: 2, Replays: 500, Rounds: 5,
		E2E:     map[string]float64{"eager": 3, "replay": 2, "replay_inline": 2, "raw": 2, "raw_chunked": 1.8, "gpu": 1.5},
		E2EMin:  map[string]float64{"eager": 3, "replay": 2, "replay_inline": 2, "raw": 2, "raw_chunked": 1.8, "gpu": 1.5},
		E2EMax:  map[string]float64{"eager": 3, "replay": 2, "replay_inline": 2, "raw": 2, "raw_chunked": 1.8, "gpu": 1.5},
		Enqueue: map[string]float64{"eager": 3000, "replay": 1000, "replay_inline": 1000}, EnqueuePerReplay: map[string]float64{"replay": 2, "replay_inline": 2},
		RawChunk: 64, RawBestPath: "raw_chunked", RawBestChunk: 64,
		Ratios:   map[string]float64{"eager/replay": 1.5, "replay/raw_best": 1.11, "replay/floor": 1.33},
		Verified: map[string]bool{"eager": true, "replay": true, "replay_inline": true, "raw": true, "raw_chunked": true, "gpu": true}})
	oldPath, curPath, outPath, svgPath := filepath.Join(dir, "old.json"), filepath.Join(dir, "cur.json"), filepath.Join(dir, "all.json"), filepath.Join(dir, "all.svg")
	if err := os.WriteFile(oldPath, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(curPath, []byte(`{"adapter":"A","rows":[`+cur+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if err := run([]string{"-merge", oldPath + "," + curPath, "-json", outPath, "-svg", svgPath}, &stdout, &bytes.Buffer{}); err != nil {
		t.Fatalf("merging an old run with a current one must work: %v", err)
	}
	for _, s := range []string{"tiny_x150", "150×1", "raw only", "tiny_g2_x1000", "2×500", "1.80 @64"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("the merged table must show %q:\n%s", s, stdout.String())
		}
	}
	var wide bytes.Buffer
	if err := run([]string{"-merge", oldPath + "," + curPath, "-wide"}, &wide, &bytes.Buffer{}); err != nil {
		t.Fatalf("-merge -wide: %v", err)
	}
	for _, s := range []string{"raw only", "chunk 64", "1.80 [1.80–1.80] @64"} {
		if !strings.Contains(wide.String(), s) {
			t.Errorf("the merged -wide table must show %q:\n%s", s, wide.String())
		}
	}
	raw, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Rows) != 2 {
		t.Fatalf("the merged JSON must hold both rows: %v", err)
	}
	o := rep.Rows[0]
	if o.GraphLen != 150 || o.Replays != 1 || o.EnqueuePerReplay["replay"] != 60 || o.Ratios["replay/floor"] != 1.33 || o.Ratios["replay/raw"] != 0.91 {
		t.Errorf("the old row must gain graph = pass, per-Replay enqueue and replay/floor, and keep replay/raw: %+v", o)
	}
	if _, ok := o.Ratios["replay/raw_best"]; ok {
		t.Errorf("the old row measured no raw_chunked: it must not claim a replay/raw_best")
	}
	if svg, err := os.ReadFile(svgPath); err != nil || !bytes.Contains(svg, []byte("tiny_x150")) {
		t.Errorf("the merged chart must draw the old row: %v", err)
	}
}

func rowJSON(t *testing.T, r row) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEveryConfigIsValidAndQuickCoversEachKind: each config's graph divides
// its pass (ping-pong graphs evenly), and -quick runs at least one short
// graph and one Life config, as the issue asks.
func TestEveryConfigIsValidAndQuickCoversEachKind(t *testing.T) {
	for _, c := range sweep {
		if err := c.validate(); err != nil {
			t.Error(err)
		}
	}
	kinds := map[string]bool{}
	for _, n := range quick {
		i := slices.IndexFunc(sweep, func(c config) bool { return c.Name == n })
		if i < 0 {
			t.Fatalf("quick config %s is not in the sweep", n)
		}
		kinds[sweep[i].Workload] = true
	}
	for _, k := range []string{"add_one", "add_one_inplace", "life", "mlp", "sort"} {
		if !kinds[k] {
			t.Errorf("-quick must run a %s config: %v", k, quick)
		}
	}
}

// TestLifeReferenceKnowsTheBlinker: the Go reference the GPU is checked
// against flips a blinker every generation, wraps around the edges, and
// restarts from its soup when asked for an earlier generation.
func TestLifeReferenceKnowsTheBlinker(t *testing.T) {
	const w, h = 5, 5
	r := &lifeReference{w: w, h: h, init: make([]uint32, w*h), nxt: make([]uint32, w*h)}
	for _, x := range []int{4, 0, 1} { // a horizontal blinker across the wrap, on row 2
		r.init[2*w+x] = 1
	}
	r.cur = slices.Clone(r.init)
	vertical := make([]uint32, w*h)
	for _, y := range []int{1, 2, 3} {
		vertical[y*w+0] = 1
	}
	if d := cmp.Diff(vertical, slices.Clone(r.at(1))); d != "" {
		t.Errorf("a blinker across the edge turns vertical after one generation (-want +got):\n%s", d)
	}
	if d := cmp.Diff(r.init, slices.Clone(r.at(2))); d != "" {
		t.Errorf("and back after two (-want +got):\n%s", d)
	}
	if err := r.check(vertical, 1); err != nil {
		t.Errorf("asking for an earlier generation must restart from the soup: %v", err)
	}
}

// TestLifeReferenceAgreesWithWorkloads: the parallel, incremental Go Life
// that checks whole runs computes examples/workloads' LifeReference
// generation for generation, on a square soup and on a grid whose height
// is not a multiple of the rows each CPU takes; without it a run could be
// checked against a different rule than the fresh passes.
func TestLifeReferenceAgreesWithWorkloads(t *testing.T) {
	for _, size := range [][2]int{{64, 64}, {37, 101}} {
		w, h := size[0], size[1]
		r := newLifeReference(w, h, 7)
		want := r.init
		for _, gens := range []int{1, 2, 5, 40} {
			want = workloads.LifeReference(want, w, h, gens-r.gen)
			if err := r.check(want, gens); err != nil {
				t.Fatalf("%d×%d: the run reference must equal workloads.LifeReference: %v", w, h, err)
			}
		}
	}
}

// TestConstOverridesKeepsTypeAndValue: the hand-written paths compile
// workloads' Life with each override turned into a const of its default,
// typed as WGSL types the override (i32 for an abstract int), so both
// sides compile the same program.
func TestConstOverridesKeepsTypeAndValue(t *testing.T) {
	got := constOverrides("override blockSize = 8;\noverride  scale : f32=0.5 ;\n@workgroup_size(blockSize)")
	want := "const blockSize: i32 = 8;\nconst scale: f32 = 0.5;\n@workgroup_size(blockSize)"
	if got != want {
		t.Errorf("constOverrides:\n got %q\nwant %q", got, want)
	}
}

func TestUnknownConfigIsRefusedWithTheList(t *testing.T) {
	err := run([]string{"-configs", "nope"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "tiny_x150") {
		t.Fatalf("an unknown config must be refused listing the known ones, got %v", err)
	}
}

// TestPathsFlagRefusesUnknownPathsWithTheList: -paths names paths from the
// table's list, and anything else is refused before a device is opened.
func TestPathsFlagRefusesUnknownPathsWithTheList(t *testing.T) {
	err := run([]string{"-configs", "tiny_x150", "-paths", "replay,fastest"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `"fastest"`) || !strings.Contains(err.Error(), "raw_chunked") {
		t.Fatalf("an unknown path must be refused naming it and listing the known ones, got %v", err)
	}
}

// TestPathsFlagTimesOnlyThePathsNamed: with -paths the run times and
// verifies those paths alone, its JSON stays valid (no ratio of a path that
// did not run), the hand-written loops are not even swept when none of them
// is named, and a config where none of them runs is an error.
func TestPathsFlagTimesOnlyThePathsNamed(t *testing.T) {
	gputest.Open(t, wgpu.Options{})
	jsonPath := filepath.Join(gputest.TempDir(t), "out.json")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-quick", "-configs", "tiny_g1_x1000", "-rounds", "3", "-paths", "replay,raw_chunked", "-json", jsonPath}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	rep := readReport(t, jsonPath)
	if len(rep.Rows) != 1 {
		t.Fatalf("want one row, got %d", len(rep.Rows))
	}
	r := rep.Rows[0]
	var ran, verified []string
	for _, p := range paths {
		if _, ok := r.E2E[p]; ok {
			ran = append(ran, p)
		}
		if r.Verified[p] {
			verified = append(verified, p)
		}
	}
	want := []string{"replay", "raw_chunked"}
	if d := cmp.Diff(want, ran); d != "" {
		t.Errorf("paths timed (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, verified); d != "" {
		t.Errorf("paths verified (-want +got):\n%s", d)
	}
	if got := r.Ratios["replay/raw_best"]; got <= 0 || r.RawBestPath != "raw_chunked" {
		t.Errorf("replay/raw_best = %v against %q; want a ratio against raw_chunked", got, r.RawBestPath)
	}
	if _, ok := r.Ratios["eager/replay"]; ok {
		t.Errorf("eager did not run, yet eager/replay = %v", r.Ratios["eager/replay"])
	}
	// Replay alone: the hand-written loops are neither built nor swept.
	if err := run([]string{"-quick", "-configs", "tiny_g1_x1000", "-rounds", "3", "-paths", "replay", "-json", jsonPath}, &stdout, &stderr); err != nil {
		t.Fatalf("run -paths replay: %v\n%s", err, stderr.String())
	}
	if rep = readReport(t, jsonPath); len(rep.Rows) != 1 {
		t.Fatalf("want one row, got %d", len(rep.Rows))
	}
	if r := rep.Rows[0]; len(r.ChunkSweep) != 0 || r.RawChunk != 0 || r.FloorUnfused != 0 || len(r.E2E) != 1 {
		t.Errorf("-paths replay: want replay alone, no chunk sweep and no floor; got E2E %v, sweep %v, chunk %d, floor %v", r.E2E, r.ChunkSweep, r.RawChunk, r.FloorUnfused)
	}
	err := run([]string{"-quick", "-configs", "mlp_4k_x999", "-paths", "raw"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "none of them runs") {
		t.Errorf("-paths raw on mlp (recorder paths only): want an error, got %v", err)
	}
}

// TestStreamOptionFlagsRefuseUnknownValues: -preencode and -background
// take auto, on or off, and anything else is refused naming the flag and
// the value before a device is opened.
func TestStreamOptionFlagsRefuseUnknownValues(t *testing.T) {
	for _, flag := range []string{"-preencode", "-background"} {
		err := run([]string{"-configs", "tiny_x150", flag, "sometimes"}, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), flag+` "sometimes"`) {
			t.Errorf("%s sometimes: want an error naming the flag and value, got %v", flag, err)
		}
	}
}

// TestSortCheckAcceptsOnlyTheSortedKeys: the sort row's check, which every
// path's result goes through, accepts sort.Slice's answer after whole
// sorts and the initial keys after none, and refuses the unsorted keys
// after a sort, one wrong key, and a dispatch count that is not whole
// sorts; and every sort config runs an even number of steps (k(k+1)/2 for
// 2^k keys), so a pass ends back in the first buffer. Without it a path
// that skipped or reordered steps could pass as verified.
func TestSortCheckAcceptsOnlyTheSortedKeys(t *testing.T) {
	if d := cmp.Diff([]int{0, 1, 3, 36, 78, 136, 210}, []int{sortSteps(1), sortSteps(2), sortSteps(4), sortSteps(256), sortSteps(4096), sortSteps(1 << 16), sortSteps(1 << 20)}); d != "" {
		t.Errorf("bitonic steps of 2^k keys are k(k+1)/2 (-want +got):\n%s", d)
	}
	if sortSteps(3) != 0 || sortSteps(0) != 0 {
		t.Errorf("a sort needs a power of two of keys")
	}
	c := sortCfg("sort4k_x78", 4096)
	w := newSortWorkload(c)
	steps := len(w.stepParams)
	if steps != 78 || c.Kernels != 78 || c.validate() != nil {
		t.Fatalf("sort4k: %d steps, %d dispatches, validate %v; want 78 and valid", steps, c.Kernels, c.validate())
	}
	sorted := workloads.SortReference(w.init)
	if slices.Equal(sorted, w.init) {
		t.Fatal("the random keys must not already be sorted")
	}
	if err := w.check(sorted, 2*steps); err != nil {
		t.Errorf("the sorted keys after two sorts must pass: %v", err)
	}
	if err := w.check(w.init, 0); err != nil {
		t.Errorf("the initial keys after no dispatch must pass: %v", err)
	}
	wrong := slices.Clone(sorted)
	wrong[len(wrong)/2]++
	for _, bad := range []struct {
		name  string
		out   []uint32
		steps int
	}{
		{"the unsorted keys after a sort", w.init, steps},
		{"one key off", wrong, steps},
		{"a partial sort", sorted, steps - 1},
		{"too few keys", sorted[1:], steps},
	} {
		if err := w.check(bad.out, bad.steps); err == nil {
			t.Errorf("%s must fail the check", bad.name)
		}
	}
	bad := sortCfg("sort512", 512) // 45 steps: odd, a pass would end in the second buffer
	if err := bad.validate(); err == nil {
		t.Errorf("a sort of an odd number of steps must be refused")
	}
}

// checkFits fails the test for every line of out wider than lineWidth
// runes: what a person reads in a terminal of 120 columns without
// wrapping. -wide is the one output allowed past it.
func checkFits(t *testing.T, what, out string) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > lineWidth {
			t.Errorf("%s: line %d is %d columns, the default report fits %d:\n%s", what, i+1, n, lineWidth, line)
		}
	}
}

// TestDefaultReportFitsInAHundredAndTwentyColumns runs the benchmark as a
// user would, with -quick on a chain graph replayed in short graphs and on
// the mlp chain (whose fused graph's own account names every dispatch of
// its chains), pre-encoding off: every line of the report fits 120
// columns, the fused chains are counted by kernel, and no line speaks of a
// ramp worker, which only pre-encoding runs.
func TestDefaultReportFitsInAHundredAndTwentyColumns(t *testing.T) {
	gputest.Open(t, wgpu.Options{})
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-quick", "-preencode", "off", "-configs", "tiny_g1_x1000,mlp_4k_x999"}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	checkFits(t, "-quick", out)
	if strings.Contains(out, "ramp worker") || strings.Contains(out, "pre-encoding (") {
		t.Errorf("with pre-encoding off there is no ramp worker to report:\n%s", out)
	}
	words := strings.Join(strings.Fields(out), " ") // the notes are wrapped
	for _, want := range []string{"tiny_g1_x1000", "1×1000", "mlp_4k_x999: the fused graph keeps ", "bias_gelu ×333, add ×333, scale ×333"} {
		if !strings.Contains(words, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "bias_gelu+add") {
		t.Errorf("the fused chains are counted by kernel, not named dispatch by dispatch:\n%s", out)
	}
}

// TestCommittedRunsPrintInAHundredAndTwentyColumns prints every graphbench
// run committed under docs/benchmarks (the oldest without the newer fields,
// the newest with fused graphs whose account lists 999 dispatches) as
// -merge does: each default report fits 120 columns, and each row's fused
// chains, where its account names them, come out as counts by kernel.
func TestCommittedRunsPrintInAHundredAndTwentyColumns(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../docs/benchmarks/*.json", "../../docs/benchmarks/experiments/*.json"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	printed := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rep report
		if json.Unmarshal(raw, &rep) != nil || len(rep.Rows) == 0 {
			continue // another tool's JSON (the solver's)
		}
		var out bytes.Buffer
		if err := run([]string{"-merge", f}, &out, &bytes.Buffer{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		checkFits(t, filepath.Base(f), out.String())
		if strings.Contains(out.String(), "+add+scale+") {
			t.Errorf("%s: a fused chain is named dispatch by dispatch:\n%s", f, out.String())
		}
		printed++
	}
	if printed < 10 {
		t.Fatalf("found %d graphbench runs under docs/benchmarks; the committed ones are more than 10", printed)
	}
}

// TestFusionIsSummarisedAsCountsByKernel: the graph's own account of a
// fusion, with chains named dispatch by dispatch (an old run's), by runs of
// one kernel (add_one×15) or not at all, reads as counts by kernel that
// add up to the fused dispatches; the reason pairs were not fused is kept;
// an account in another form is shown as it is, not miscounted.
func TestFusionIsSummarisedAsCountsByKernel(t *testing.T) {
	long := strings.Repeat("bias_gelu+add+scale+", 21) + "bias_gelu" // 64 dispatches
	for _, c := range []struct{ account, want string }{
		{"fused: 2 chains of 132 dispatches (" + long + " ×1, add+scale+" + long + "+add+scale ×1); not fused: 1 adjacent pairs (first: 63 bias_gelu, 64 add: a fused kernel runs at most 64 dispatches)",
			"fused 132 dispatches into 2 chains: bias_gelu ×44, add ×44, scale ×44; not fused: 1 adjacent pairs (first: 63 bias_gelu, 64 add: a fused kernel runs at most 64 dispatches)"},
		{"fused: 16 chains of 1000 dispatches (add_one×63 ×15, add_one×55 ×1)", "fused 1000 dispatches into 16 chains: add_one ×1000"},
		{"fused: 1 chain of 2 dispatches (add+scale ×1)", "fused 2 dispatches into 1 chain: add ×1, scale ×1"},
		{"fused: 0 chains of 0 dispatches; not fused: 77 adjacent pairs (first: 0 main, 1 main: kernel main: main calls atomicAdd, which is atomic)",
			"nothing fused; not fused: 77 adjacent pairs (first: 0 main, 1 main: kernel main: main calls atomicAdd, which is atomic)"},
		{"fused: 2 chains of 5 dispatches (add+scale ×2)", "fused: 2 chains of 5 dispatches (add+scale ×2)"}, // 4 counted, not 5
		{"fusion: something new", "fusion: something new"},
	} {
		if got := summariseFusion(c.account); got != c.want {
			t.Errorf("summariseFusion(%.60q…):\n got %q\nwant %q", c.account, got, c.want)
		}
	}
}

// readReport reads the JSON report a run wrote to path.
func readReport(t *testing.T, path string) report {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	return rep
}
