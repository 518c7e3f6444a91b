package tests

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// The fusion tests run one recorded step twice, on a stream that fuses and
// on one that does not, from the same initial contents, and compare every
// buffer bit for bit: a fused graph must compute exactly what the unfused
// one does.

const (
	fuseN    = 1000 // not a multiple of 256: the kernels' guards matter
	fuseRows = 25
	fuseCols = 40
)

// fuseKernels are the shipped kernels the chains draw from.
type fuseKernels struct {
	add, mul, scale, axpy, addOne, biasGELU, biasReLU, copy *wgpu.Kernel
}

func compileFuseKernels(t *testing.T, d *wgpu.Device) *fuseKernels {
	t.Helper()
	k := func(compile func(*wgpu.Device) (*wgpu.Kernel, error)) *wgpu.Kernel {
		kk, err := compile(d)
		if err != nil {
			t.Fatalf("compile: %v", err)
		}
		return kk
	}
	return &fuseKernels{k(shaders.Add.Compile), k(shaders.Mul.Compile), k(shaders.Scale.Compile), k(shaders.Axpy.Compile),
		k(shaders.AddOne.Compile), k(shaders.BiasGELU.Compile), k(shaders.BiasReLU.Compile), k(shaders.Copy.Compile)}
}

// fuseStep is one launch of a chain: a kernel by name, buffer indices into
// the world's pool (-1 is the bias buffer) and a scalar.
type fuseStep struct {
	kernel string
	args   []int
	a      float32
	n      uint32 // elements; fuseN unless a step covers fewer
}

// fuseWorld is one stream's buffers.
type fuseWorld struct {
	s    *recorder.Stream
	k    *fuseKernels
	pool []*recorder.Buffer
	bias *recorder.Buffer
}

func newFuseWorld(t *testing.T, s *recorder.Stream, k *fuseKernels, init [][]float32, bias []float32) *fuseWorld {
	t.Helper()
	w := &fuseWorld{s: s, k: k, bias: gputest.Upload(t, s, bias)}
	for _, v := range init {
		w.pool = append(w.pool, gputest.Upload(t, s, v))
	}
	return w
}

func (w *fuseWorld) buf(i int) *recorder.Buffer {
	if i < 0 {
		return w.bias
	}
	return w.pool[i]
}

func (w *fuseWorld) launch(st fuseStep) error {
	n := st.n
	if n == 0 {
		n = fuseN
	}
	g := shaders.ElementwiseGroups(n)
	b := w.buf
	a := st.args
	switch st.kernel {
	case "add":
		return w.s.Launch(w.k.add, g, b(a[0]), b(a[1]), b(a[2]), shaders.AddParams(n))
	case "mul":
		return w.s.Launch(w.k.mul, g, b(a[0]), b(a[1]), b(a[2]), shaders.MulParams(n))
	case "scale":
		return w.s.Launch(w.k.scale, g, b(a[0]), b(a[1]), shaders.ScaleParams(n, st.a))
	case "axpy":
		return w.s.Launch(w.k.axpy, g, b(a[0]), b(a[1]), shaders.AxpyParams(n, st.a))
	case "add_one":
		return w.s.Launch(w.k.addOne, g, b(a[0]), b(a[1]), shaders.AddOneParams(n))
	case "bias_gelu":
		return w.s.Launch(w.k.biasGELU, g, b(a[0]), b(a[1]), b(a[2]), shaders.BiasGELUParams(fuseRows, fuseCols))
	case "bias_relu":
		return w.s.Launch(w.k.biasReLU, g, b(a[0]), b(a[1]), b(a[2]), shaders.BiasReLUParams(fuseRows, fuseCols))
	case "copy":
		return w.s.Launch(w.k.copy, g, b(a[0]), b(a[1]), shaders.CopyParams(n, 0, 0))
	}
	return fmt.Errorf("unknown kernel %q", st.kernel)
}

func (w *fuseWorld) run(steps []fuseStep) error {
	for _, st := range steps {
		if err := w.launch(st); err != nil {
			return fmt.Errorf("%s %v: %w", st.kernel, st.args, err)
		}
	}
	return nil
}

// bits reads every buffer of the pool as raw words.
func (w *fuseWorld) bits(t *testing.T) [][]uint32 {
	t.Helper()
	out := make([][]uint32, len(w.pool))
	for i, b := range w.pool {
		out[i] = gputest.ReadU32(t, w.s, b)
	}
	return out
}

// randomChain draws steps over a pool of nbuf buffers: mostly fusible
// elementwise kernels, with copies and shorter dispatches that end chains.
func randomChain(rng *rand.Rand, nbuf, steps int) []fuseStep {
	pick := func(not ...int) int {
		for {
			i := rng.Intn(nbuf)
			ok := true
			for _, x := range not {
				ok = ok && i != x
			}
			if ok {
				return i
			}
		}
	}
	var out []fuseStep
	for len(out) < steps {
		a := float32(rng.Intn(7)-3) * 0.37
		switch rng.Intn(10) {
		case 0, 1:
			x, y := pick(), pick()
			out = append(out, fuseStep{kernel: []string{"add", "mul"}[rng.Intn(2)], args: []int{x, y, pick(x, y)}})
		case 2:
			x := pick()
			out = append(out, fuseStep{kernel: "scale", args: []int{x, pick(x)}, a: a})
		case 3, 4:
			x := pick()
			out = append(out, fuseStep{kernel: "axpy", args: []int{x, pick(x)}, a: a})
		case 5:
			x := pick()
			out = append(out, fuseStep{kernel: "add_one", args: []int{x, pick(x)}})
		case 6, 7:
			x := pick()
			out = append(out, fuseStep{kernel: []string{"bias_gelu", "bias_relu"}[rng.Intn(2)], args: []int{x, -1, pick(x)}})
		case 8:
			x := pick()
			out = append(out, fuseStep{kernel: "copy", args: []int{x, pick(x)}})
		case 9:
			x := pick()
			out = append(out, fuseStep{kernel: "add_one", args: []int{x, pick(x)}, n: fuseN / 2})
		}
	}
	return out
}

// fuseInit is nbuf random buffers and a bias, the same for every stream.
func fuseInit(rng *rand.Rand, nbuf int) ([][]float32, []float32) {
	init := make([][]float32, nbuf)
	for i := range init {
		init[i] = make([]float32, fuseN)
		for j := range init[i] {
			init[i][j] = float32(rng.NormFloat64() * 2)
		}
	}
	bias := make([]float32, fuseCols)
	for j := range bias {
		bias[j] = float32(rng.NormFloat64())
	}
	return init, bias
}

// fusePair opens a fusing and a plain stream on one device.
func fusePair(t *testing.T) (*wgpu.Device, *recorder.Stream, *recorder.Stream, *fuseKernels) {
	t.Helper()
	d := gputest.Open(t, wgpu.Options{})
	return d, gputest.Stream(t, d, recorder.WithFusion(true)), gputest.Stream(t, d), compileFuseKernels(t, d)
}

func captureSteps(t *testing.T, w *fuseWorld, steps []fuseStep) *recorder.Graph {
	t.Helper()
	g, err := w.s.Capture(func() error { return w.run(steps) })
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	t.Cleanup(g.Release)
	return g
}

func replay(t *testing.T, g *recorder.Graph, times int) {
	t.Helper()
	for range times {
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay: %v", err)
		}
	}
}

// TestFusedGraphEqualsUnfusedBitForBit: on random chains of the shipped
// elementwise kernels, a graph sealed WithFusion(true) has fewer dispatches
// and leaves every buffer bit for bit as the unfused graph does, after the
// warmup and after each replay. Without it, fusion could reorder a read
// before the write it depends on, drop a store, or change a float
// operation, and nothing would notice.
func TestFusedGraphEqualsUnfusedBitForBit(t *testing.T) {
	d, fs, ps, k := fusePair(t)
	// Twelve seeds by default: a fused kernel without the barrier between
	// parts differed in the last bit on one of the first ten on lavapipe
	// (a multiply of one part contracted with the next part's add).
	seeds, steps := 12, 24
	if testing.Short() {
		seeds = 2
	}
	if os.Getenv("SOFTGRAPH_LONG") == "1" {
		seeds = 200
	}
	fusedTotal, plainTotal := 0, 0
	for seed := range seeds {
		rng := rand.New(rand.NewSource(int64(seed)))
		nbuf := 3 + rng.Intn(3)
		init, bias := fuseInit(rng, nbuf)
		chain := randomChain(rng, nbuf, steps)
		fw, pw := newFuseWorld(t, fs, k, init, bias), newFuseWorld(t, ps, k, init, bias)
		fg, pg := captureSteps(t, fw, chain), captureSteps(t, pw, chain)
		if diff := cmp.Diff(pw.bits(t), fw.bits(t)); diff != "" {
			t.Fatalf("seed %d: after the warmup the fusing stream differs (-plain +fusing):\n%s", seed, diff)
		}
		replay(t, fg, 2)
		replay(t, pg, 2)
		if diff := cmp.Diff(pw.bits(t), fw.bits(t)); diff != "" {
			t.Fatalf("seed %d: a fused graph must leave every buffer bit for bit as the unfused one does (-unfused +fused):\n%s\nfused: %v", seed, diff, fg)
		}
		fusedTotal += fg.Stats().Dispatches
		plainTotal += pg.Stats().Dispatches
		if fg.Stats().Dispatches > pg.Stats().Dispatches {
			t.Errorf("seed %d: fused graph has %d dispatches, unfused %d", seed, fg.Stats().Dispatches, pg.Stats().Dispatches)
		}
	}
	if fusedTotal*2 > plainTotal && d.FusesChainedFloats() {
		// (Where chained float kernels stay unfused, axpy and bias_gelu
		// end the shipped kernels' chains: the words are still compared.)
		t.Errorf("random chains fused to %d dispatches of %d; want at most half: fusion is not happening", fusedTotal, plainTotal)
	}
}

// TestFusionKeepsEveryStoreAndInPlaceUpdates: a chain that writes a buffer,
// overwrites it, reads it in place (axpy) and writes it again computes the
// unfused values, and fuses into one dispatch: every store of every part
// is kept, in order, per element.
func TestFusionKeepsEveryStoreAndInPlaceUpdates(t *testing.T) {
	d, fs, ps, k := fusePair(t)
	gputest.RequireChainedFloatFusion(t, d)
	rng := rand.New(rand.NewSource(42))
	init, bias := fuseInit(rng, 3)
	chain := []fuseStep{
		{kernel: "add_one", args: []int{0, 1}},
		{kernel: "scale", args: []int{0, 1}, a: 3},
		{kernel: "axpy", args: []int{0, 1}, a: -0.5},
		{kernel: "axpy", args: []int{1, 0}, a: 2},
		{kernel: "bias_gelu", args: []int{0, -1, 2}},
		{kernel: "mul", args: []int{2, 1, 0}},
		{kernel: "add", args: []int{0, 0, 2}},
	}
	fw, pw := newFuseWorld(t, fs, k, init, bias), newFuseWorld(t, ps, k, init, bias)
	fg, pg := captureSteps(t, fw, chain), captureSteps(t, pw, chain)
	replay(t, fg, 3)
	replay(t, pg, 3)
	if diff := cmp.Diff(pw.bits(t), fw.bits(t)); diff != "" {
		t.Fatalf("fused results differ from unfused (-unfused +fused):\n%s", diff)
	}
	if got := fg.Stats().Dispatches; got != 1 {
		t.Errorf("a chain of %d pointwise dispatches fused to %d dispatches, want 1: %v", len(chain), got, fg)
	}
	if s := fg.String(); !strings.Contains(s, "fused: 1 chain of 7 dispatches (add_one+scale+axpy×2+bias_gelu+mul+add ×1)") {
		t.Errorf("String does not show the fused chain: %s", s)
	}
}

// TestFusionRefusesAChainThatGathersWhatItWrites: bias_gelu reads its bias
// at i % cols; when an earlier part writes that bias buffer, another
// invocation's element would be read before or after its write depending on
// scheduling, so the pair must not fuse, and String says why.
func TestFusionRefusesAChainThatGathersWhatItWrites(t *testing.T) {
	d, fs, ps, k := fusePair(t)
	gputest.RequireChainedFloatFusion(t, d)
	rng := rand.New(rand.NewSource(7))
	init, bias := fuseInit(rng, 3)
	// Buffer 0 is written by add_one, then used as bias_gelu's bias.
	chain := []fuseStep{
		{kernel: "add_one", args: []int{1, 0}},
		{kernel: "bias_gelu", args: []int{1, 0, 2}},
	}
	fw, pw := newFuseWorld(t, fs, k, init, bias), newFuseWorld(t, ps, k, init, bias)
	fg, pg := captureSteps(t, fw, chain), captureSteps(t, pw, chain)
	replay(t, fg, 1)
	replay(t, pg, 1)
	if diff := cmp.Diff(pw.bits(t), fw.bits(t)); diff != "" {
		t.Fatalf("results differ (-unfused +fused):\n%s", diff)
	}
	if got := fg.Stats().Dispatches; got != 2 {
		t.Errorf("fused to %d dispatches; a gathered read of a written buffer must keep 2", got)
	}
	if s := fg.String(); !strings.Contains(s, "reads bias at other indices than its own, and the chain writes it") {
		t.Errorf("String does not say why the pair was not fused: %s", s)
	}
	var dot bytes.Buffer
	if err := fg.WriteDOT(&dot); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dot.String(), "style=dotted") || !strings.Contains(dot.String(), "not fused: ") {
		t.Errorf("WriteDOT does not mark the unfused pair:\n%s", dot.String())
	}
}

// TestFusionSplitsChainsAtTheStorageBufferLimit: a chain that would bind
// more storage (or uniform) buffers than the device allows per shader
// stage is split into several fused dispatches, each within the limits,
// and still computes the unfused values.
func TestFusionSplitsChainsAtTheStorageBufferLimit(t *testing.T) {
	d, fs, ps, k := fusePair(t)
	limit := int(d.Info().Limits.MaxStorageBuffersPerShaderStage)
	if limit > 64 {
		t.Skipf("maxStorageBuffersPerShaderStage %d: a chain past it takes too long to compile here", limit)
	}
	nbuf := limit + 3
	rng := rand.New(rand.NewSource(3))
	init, bias := fuseInit(rng, nbuf)
	var chain []fuseStep
	for i := 0; i+1 < nbuf; i++ {
		chain = append(chain, fuseStep{kernel: "add_one", args: []int{i, i + 1}})
	}
	fw, pw := newFuseWorld(t, fs, k, init, bias), newFuseWorld(t, ps, k, init, bias)
	fg, pg := captureSteps(t, fw, chain), captureSteps(t, pw, chain)
	replay(t, fg, 1)
	replay(t, pg, 1)
	if diff := cmp.Diff(pw.bits(t), fw.bits(t)); diff != "" {
		t.Fatalf("results differ (-unfused +fused):\n%s", diff)
	}
	if got := fg.Stats().Dispatches; got < 2 || got >= len(chain) {
		t.Errorf("a chain binding %d storage buffers (limit %d) fused to %d dispatches; want it split in a few", nbuf, limit, got)
	}
	if s := fg.String(); !strings.Contains(s, "BuffersPerShaderStage") {
		t.Errorf("String does not say the chain was split at a limit: %s", s)
	}
}

// TestFusionStaysOutsideControlFlowBodies: dispatches in If and While
// bodies are left as recorded (they run through guarded variants or
// indirectly); the chains around them fuse, and the graph computes the
// unfused values whether the bodies run or not.
func TestFusionStaysOutsideControlFlowBodies(t *testing.T) {
	d, fs, ps, k := fusePair(t)
	countdown := gputest.Kernel(t, d, `
@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(1)
fn main() { c[0] = c[0] - 1u; }
`)
	rng := rand.New(rand.NewSource(11))
	init, bias := fuseInit(rng, 3)
	head := []fuseStep{{kernel: "add_one", args: []int{0, 1}}, {kernel: "scale", args: []int{1, 2}, a: 1.5}}
	body := []fuseStep{{kernel: "axpy", args: []int{2, 0}, a: 0.5}, {kernel: "bias_relu", args: []int{0, -1, 1}}}
	tail := []fuseStep{{kernel: "mul", args: []int{0, 1, 2}}, {kernel: "add", args: []int{2, 1, 0}}}
	for _, cond := range []uint32{0, 1} {
		t.Run(fmt.Sprintf("condition %d", cond), func(t *testing.T) {
			var worlds [2]*fuseWorld
			var graphs [2]*recorder.Graph
			for i, s := range []*recorder.Stream{fs, ps} {
				w := newFuseWorld(t, s, k, init, bias)
				c, err := recorder.UploadSlice(s, []uint32{cond})
				if err != nil {
					t.Fatal(err)
				}
				n, err := recorder.UploadSlice(s, []uint32{3})
				if err != nil {
					t.Fatal(err)
				}
				g, err := s.Capture(func() error {
					if err := w.run(head); err != nil {
						return err
					}
					if err := s.If(c, 0, func() error { return w.run(body) }); err != nil {
						return err
					}
					if err := s.While(n, 0, 4, func() error {
						if err := w.run(body); err != nil {
							return err
						}
						return s.Launch(countdown, recorder.Groups(1, 1, 1), n)
					}); err != nil {
						return err
					}
					return w.run(tail)
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(g.Release)
				if err := recorder.WriteSlice(s, n, 0, []uint32{3}); err != nil {
					t.Fatal(err)
				}
				replay(t, g, 1)
				worlds[i], graphs[i] = w, g
			}
			if diff := cmp.Diff(worlds[1].bits(t), worlds[0].bits(t)); diff != "" {
				t.Fatalf("results differ (-unfused +fused):\n%s\nfused: %v", diff, graphs[0])
			}
			if f, p := graphs[0].Stats().Dispatches, graphs[1].Stats().Dispatches; f != p-2 {
				t.Errorf("fused graph has %d dispatches, unfused %d; want the head and the tail fused (2 fewer)", f, p)
			}
			if s := graphs[0].String(); !strings.Contains(s, "inside an If or While body") {
				t.Errorf("String does not say bodies are not fused: %s", s)
			}
		})
	}
}

// TestRebindOfAFusedGraphFusesAgain: Rebind of a fused graph rebinds the
// recorded dispatches and fuses them again, so a rebinding that makes a
// fused pair's buffers alias is re-checked: here bias_gelu's bias becomes
// the buffer the chain writes, which must split the chain, and the rebound
// graph still computes what the unfused rebound graph does.
func TestRebindOfAFusedGraphFusesAgain(t *testing.T) {
	d, fs, ps, k := fusePair(t)
	gputest.RequireChainedFloatFusion(t, d)
	rng := rand.New(rand.NewSource(5))
	init, bias := fuseInit(rng, 4)
	// Buffer 3 is bias_gelu's bias (it reads the first cols elements);
	// nothing writes it, so the three dispatches fuse into one.
	chain := []fuseStep{
		{kernel: "add_one", args: []int{0, 1}},
		{kernel: "bias_gelu", args: []int{1, 3, 2}},
		{kernel: "axpy", args: []int{2, 0}, a: 0.25},
	}
	var worlds [2]*fuseWorld
	var rebound [2]*recorder.Graph
	for i, s := range []*recorder.Stream{fs, ps} {
		w := newFuseWorld(t, s, k, init, bias)
		g := captureSteps(t, w, chain)
		if i == 0 && g.Stats().Dispatches != 1 {
			t.Fatalf("captured fused graph has %d dispatches; want 1: %v", g.Stats().Dispatches, g)
		}
		// The bias becomes buffer 1, which add_one writes.
		rg, err := g.Rebind(w.pool[3], w.pool[1])
		if err != nil {
			t.Fatalf("Rebind: %v", err)
		}
		t.Cleanup(rg.Release)
		replay(t, rg, 2)
		worlds[i], rebound[i] = w, rg
	}
	if diff := cmp.Diff(worlds[1].bits(t), worlds[0].bits(t)); diff != "" {
		t.Fatalf("rebound results differ (-unfused +fused):\n%s\nfused: %v", diff, rebound[0])
	}
	if got := rebound[0].Stats().Dispatches; got != 2 {
		t.Errorf("rebound fused graph has %d dispatches; want 2 (add_one alone: it writes what bias_gelu gathers): %v", got, rebound[0])
	}
}

// TestFusedGraphSavesAndLoads: a saved fused graph stores the fused kernel's
// source and loads as fused; replayed on a plain stream it computes what
// the unfused graph computes.
func TestFusedGraphSavesAndLoads(t *testing.T) {
	_, fs, ps, k := fusePair(t)
	rng := rand.New(rand.NewSource(9))
	init, bias := fuseInit(rng, 4)
	chain := randomChain(rng, 4, 16)
	fw := newFuseWorld(t, fs, k, init, bias)
	fg := captureSteps(t, fw, chain)
	var file bytes.Buffer
	if _, err := fg.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatalf("Save: %v", err)
	}
	lg, err := ps.LoadGraph(bytes.NewReader(file.Bytes()))
	if err != nil {
		t.Fatalf("LoadGraph of a fused graph: %v", err)
	}
	t.Cleanup(lg.Release)
	if lg.Stats().Dispatches != fg.Stats().Dispatches {
		t.Errorf("loaded graph has %d dispatches, saved %d", lg.Stats().Dispatches, fg.Stats().Dispatches)
	}
	// The reference: the unfused chain from the contents the file holds
	// (the state after the fusing stream's warmup).
	snapshot := make([][]float32, len(fw.pool))
	for i, b := range fw.pool {
		snapshot[i] = gputest.Read(t, fs, b)
	}
	pw := newFuseWorld(t, ps, k, snapshot, bias)
	for range 2 {
		if err := pw.run(chain); err != nil {
			t.Fatal(err)
		}
	}
	replay(t, lg, 2)
	loaded := lg.Buffers()
	var got [][]uint32
	for _, b := range loaded {
		if b.Size() == uint64(4*fuseN) {
			got = append(got, gputest.ReadU32(t, ps, b))
		}
	}
	want := pw.bits(t)
	if len(got) < len(want) {
		t.Fatalf("loaded graph has %d data buffers, want at least %d", len(got), len(want))
	}
	// Buffers come in first-use order in both; match by content instead of
	// position: each unfused buffer must appear among the loaded ones.
	used := map[int]bool{}
	for _, st := range chain {
		for _, a := range st.args {
			used[a] = true
		}
	}
	for i, w := range want {
		if !used[i] {
			continue
		}
		found := false
		for _, g := range got {
			if cmp.Equal(w, g) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("buffer %d of the unfused replay matches no buffer of the loaded fused graph (first words %v)", i, w[:4])
		}
	}
}

// TestLoadingIntoAFusingStreamFuses: a graph file saved unfused, loaded by a
// stream WithFusion(true), is fused as a capture would be, and replays to
// the same bits as the same file loaded by a plain stream.
func TestLoadingIntoAFusingStreamFuses(t *testing.T) {
	_, fs, ps, k := fusePair(t)
	rng := rand.New(rand.NewSource(13))
	init, bias := fuseInit(rng, 4)
	chain := randomChain(rng, 4, 20)
	pg := captureSteps(t, newFuseWorld(t, ps, k, init, bias), chain)
	var file bytes.Buffer
	if _, err := pg.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatalf("Save: %v", err)
	}
	load := func(s *recorder.Stream) *recorder.Graph {
		g, err := s.LoadGraph(bytes.NewReader(file.Bytes()))
		if err != nil {
			t.Fatalf("LoadGraph: %v", err)
		}
		t.Cleanup(g.Release)
		replay(t, g, 2)
		return g
	}
	fl, pl := load(fs), load(ps)
	if f, p := fl.Stats().Dispatches, pl.Stats().Dispatches; f >= p {
		t.Errorf("loaded by a fusing stream the graph has %d dispatches, by a plain one %d; want fewer: %v", f, p, fl)
	}
	read := func(s *recorder.Stream, g *recorder.Graph) [][]uint32 {
		var out [][]uint32
		for _, b := range g.Buffers() {
			out = append(out, gputest.ReadU32(t, s, b))
		}
		return out
	}
	if diff := cmp.Diff(read(ps, pl), read(fs, fl)); diff != "" {
		t.Fatalf("the file loaded by a fusing stream computes differently (-plain +fusing):\n%s", diff)
	}
}

// TestFusedBodiesReturnOnlyFromThemselves: a kernel that returns early
// (past its buffer's end, or on odd elements) ends only its own body in
// the fused kernel: the next kernel still runs for that element, as its
// own dispatch did. Three such kernels fuse into one dispatch and compute
// what they computed apart.
func TestFusedBodiesReturnOnlyFromThemselves(t *testing.T) {
	d, fs, ps, _ := fusePair(t)
	const decls = "@group(0) @binding(0) var<storage, read> x: array<f32>;\n@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n"
	double := gputest.Kernel(t, d, decls+`
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i >= arrayLength(&y)) { return; }
	y[i] = x[i] * 2.0;
}`)
	odd := gputest.Kernel(t, d, decls+`
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= arrayLength(&y) || gid.x % 2u == 0u) { return; }
	y[gid.x] = x[gid.x] + 0.5;
}`)
	const n = 100 // two workgroups of 64: 28 invocations past the end
	var worlds [2][]*recorder.Buffer
	var graphs [2]*recorder.Graph
	for i, s := range []*recorder.Stream{fs, ps} {
		a := gputest.Upload(t, s, gputest.Ramp(n, 1))
		b := gputest.Empty(t, s, 4*n)
		c := gputest.Empty(t, s, 4*n)
		g, err := s.Capture(func() error {
			if err := s.Launch(double, recorder.Groups(2, 1, 1), a, b); err != nil {
				return err
			}
			if err := s.Launch(odd, recorder.Groups(2, 1, 1), b, c); err != nil {
				return err
			}
			return s.Launch(double, recorder.Groups(2, 1, 1), b, a)
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Release)
		replay(t, g, 2)
		worlds[i], graphs[i] = []*recorder.Buffer{a, b, c}, g
	}
	if got := graphs[0].Stats().Dispatches; got != 1 {
		t.Errorf("three pointwise dispatches fused to %d; want 1: %v", got, graphs[0])
	}
	for j := range worlds[0] {
		if diff := cmp.Diff(gputest.ReadU32(t, ps, worlds[1][j]), gputest.ReadU32(t, fs, worlds[0][j])); diff != "" {
			t.Errorf("buffer %d differs (-unfused +fused): an early return must end only its own body\n%s", j, diff)
		}
	}
}

// TestFusionLeavesKernelsSharingAStructBufferAsTheyAre: two different
// kernels that each declare the same struct and bind one buffer of it
// (one updates positions, the next velocities) are not fused, since each
// part of a fused module keeps its own declarations and one binding cannot
// have two struct types; the graph seals, says why, and computes the
// unfused values. Without it, the fusion pass let the pair join (their
// types are spelled alike) and EndCapture failed when the fused module
// was written, so a capture that worked without fusion failed with it.
func TestFusionLeavesKernelsSharingAStructBufferAsTheyAre(t *testing.T) {
	d, fs, ps, _ := fusePair(t)
	gputest.RequireChainedFloatFusion(t, d)
	const decls = "struct Particle { pos: vec2<f32>, vel: vec2<f32> }\n@group(0) @binding(0) var<storage, read_write> ps: array<Particle>;\n"
	move := gputest.Kernel(t, d, decls+`
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= arrayLength(&ps)) { return; }
	var p: Particle = ps[gid.x];
	p.pos = p.pos + p.vel * 0.5;
	ps[gid.x] = p;
}`)
	damp := gputest.Kernel(t, d, decls+`
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= arrayLength(&ps)) { return; }
	ps[gid.x].vel = ps[gid.x].vel * 0.9 - ps[gid.x].pos * 0.01;
}`)
	const n = 100 // particles: 400 floats
	var out [2][]uint32
	var graphs [2]*recorder.Graph
	for i, s := range []*recorder.Stream{fs, ps} {
		buf := gputest.Upload(t, s, gputest.Ramp(4*n, 1))
		g, err := s.Capture(func() error {
			for range 2 {
				if err := s.Launch(move, recorder.Groups(2, 1, 1), buf); err != nil {
					return err
				}
				if err := s.Launch(damp, recorder.Groups(2, 1, 1), buf); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Capture (fusion %v): %v", i == 0, err)
		}
		t.Cleanup(g.Release)
		replay(t, g, 2)
		out[i], graphs[i] = gputest.ReadU32(t, s, buf), g
	}
	if got := graphs[0].Stats().Dispatches; got != 4 {
		t.Errorf("two kernels sharing a struct buffer fused to %d dispatches; want the 4 recorded: %v", got, graphs[0])
	}
	if s := graphs[0].String(); !strings.Contains(s, "not fused: 3 adjacent pairs") || !strings.Contains(s, "Particle") {
		t.Errorf("String must say why each pair was not fused, naming the type: %s", s)
	}
	if diff := cmp.Diff(out[1], out[0]); diff != "" {
		t.Errorf("results differ (-unfused +fused):\n%s", diff)
	}
}
