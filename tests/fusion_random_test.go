package tests

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// The differential test of fusion: random pointwise kernels, written the
// ways people write them (lets, helpers, private state, typed pointers,
// in-place updates, guards by a params field or by arrayLength, 1-D and
// 8x8 workgroups), chained at random over shared buffers with aliased
// inputs, run on a fusing and on a plain stream from the same contents and
// compared word for word. Values include infinities, NaNs, signed zeros
// and overflowing magnitudes, where a compiler that forwards one kernel's
// result into the next kernel's arithmetic (contracting a multiply and an
// add, or simplifying (x - y) + y to x) computes other bits than the
// kernels did apart.

const (
	randN    = 1000 // not a multiple of 64: the guards matter
	randRow  = 32   // the 2-D kernels' row: index gid.x + gid.y * 32
	randBufs = 5    // buffers of each element type
)

// randKernel is one generated kernel.
type randKernel struct {
	src     string
	typ     string // f32 or u32
	nin     int    // read-only inputs in0..in{nin-1}
	inPlace bool   // it reads out too
	twoD    bool   // @workgroup_size(8, 8), index gid.x + gid.y * 32u
	params  bool   // it binds a uniform p {n, c}
	arith   bool   // f32 without comparisons, min, max, division or fma: it fuses everywhere
	// producer: not pointwise, an epilogue's producer (newRandProducer)
	producer bool
	k        *wgpu.Kernel
}

// randExpr writes a random expression of type typ over leaves; no
// operation has only literals for operands (a constant expression that
// overflows or divides by zero does not compile).
func randExpr(rng *rand.Rand, typ string, leaves []string, depth int, arithmetic bool) string {
	e, _ := randExprConst(rng, typ, leaves, depth, arithmetic)
	return e
}

// randExprConst is randExpr, and whether the expression is a literal;
// arithmetic leaves out float comparisons, min and max.
func randExprConst(rng *rand.Rand, typ string, leaves []string, depth int, arithmetic bool) (string, bool) {
	if depth == 0 || rng.Intn(4) == 0 {
		if rng.Intn(5) == 0 {
			if typ == "f32" {
				return []string{"1.5f", "-0.75f", "3.0f", "0.0f", "1e30f", "-2.5e-3f"}[rng.Intn(6)], true
			}
			return []string{"3u", "7u", "0u", "1u", "4294967295u", "65536u"}[rng.Intn(6)], true
		}
		return leaves[rng.Intn(len(leaves))], false
	}
	x, cx := randExprConst(rng, typ, leaves, depth-1, arithmetic)
	y, cy := randExprConst(rng, typ, leaves, depth-1, arithmetic)
	if cx && cy {
		y = leaves[rng.Intn(len(leaves))]
	}
	ops := []string{"+", "-", "*", "/", "min", "max", "select"}
	switch {
	case typ == "u32":
		ops = append(ops, "^", "%")
	case arithmetic:
		// Float operations that are correctly rounded or have NaN results
		// defined: the float kernels that fuse on every adapter.
		ops = []string{"+", "-", "*", "exp", "tanh", "sqrt", "abs"}
	default:
		// Division and fma, whose rounding is the implementation's, keep
		// a kernel unfused as min and max do (Kernel.ContextDependent).
		ops = append(ops, "fma")
	}
	switch op := ops[rng.Intn(len(ops))]; op {
	case "exp", "tanh", "sqrt", "abs":
		return fmt.Sprintf("%s(%s)", op, x), false
	case "fma":
		return fmt.Sprintf("fma(%s, %s, %s)", x, y, leaves[rng.Intn(len(leaves))]), false
	case "min", "max":
		return fmt.Sprintf("%s(%s, %s)", op, x, y), false
	case "select":
		return fmt.Sprintf("select(%s, %s, %s > %s)", x, y, x, y), false
	default:
		return fmt.Sprintf("(%s %s %s)", x, op, y), false
	}
}

// newRandKernel writes one kernel's WGSL.
func newRandKernel(rng *rand.Rand, typ string, twoD bool) *randKernel {
	k := &randKernel{typ: typ, nin: 1 + rng.Intn(3), inPlace: rng.Intn(3) == 0, twoD: twoD, params: rng.Intn(4) != 0}
	k.arith = typ == "f32" && rng.Intn(2) == 0
	var b strings.Builder
	if k.params {
		fmt.Fprintf(&b, "struct P { n: u32, c: %s, _p0: u32, _p1: u32 }\n", typ)
	}
	for i := range k.nin {
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read> in%d: array<%s>;\n", i, i, typ)
	}
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read_write> out: array<%s>;\n", k.nin, typ)
	if k.params {
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<uniform> p: P;\n", k.nin+1)
	}
	private := rng.Intn(3) == 0
	if private {
		fmt.Fprintf(&b, "var<private> acc: %s;\n", typ)
	}
	leaves := []string{}
	for i := range k.nin {
		leaves = append(leaves, fmt.Sprintf("v%d", i))
	}
	if k.inPlace {
		leaves = append(leaves, "old")
	}
	if k.params {
		leaves = append(leaves, "p.c")
	}
	helper := rng.Intn(3) == 0
	if helper {
		// Every kernel calls its helper f: the fused module must keep them
		// apart.
		fmt.Fprintf(&b, "fn f(x: %s, y: %s) -> %s { return %s; }\n", typ, typ, typ, randExpr(rng, typ, []string{"x", "y"}, 2, k.arith))
	}
	if twoD {
		b.WriteString("@compute @workgroup_size(8, 8)\n")
	} else {
		b.WriteString("@compute @workgroup_size(64)\n")
	}
	b.WriteString("fn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n")
	if twoD {
		fmt.Fprintf(&b, "\tlet i = gid.x + gid.y * %du;\n", randRow)
	} else {
		b.WriteString("\tlet i = gid.x;\n")
	}
	if k.params && rng.Intn(2) == 0 {
		b.WriteString("\tif (i >= p.n) { return; }\n")
	} else {
		b.WriteString("\tif (i >= arrayLength(&out)) { return; }\n")
	}
	for i := range k.nin {
		if i == 0 && rng.Intn(4) == 0 {
			fmt.Fprintf(&b, "\tlet q: ptr<storage, %s, read> = &in0[i];\n\tlet v0 = *q;\n", typ)
			continue
		}
		fmt.Fprintf(&b, "\tlet v%d = in%d[i];\n", i, i)
	}
	if k.inPlace {
		b.WriteString("\tlet old = out[i];\n")
	}
	fmt.Fprintf(&b, "\tvar t = %s;\n", randExpr(rng, typ, leaves, 3, k.arith))
	if helper {
		fmt.Fprintf(&b, "\tt = f(t, %s);\n", leaves[rng.Intn(len(leaves))])
	}
	if private {
		fmt.Fprintf(&b, "\tacc = t;\n\tacc = %s;\n\tt = acc;\n", randExpr(rng, typ, append(leaves, "acc"), 2, k.arith))
	}
	fmt.Fprintf(&b, "\tout[i] = %s;\n}\n", randExpr(rng, typ, append(leaves, "t", "t"), 2, k.arith))
	k.src = b.String()
	// A declared p the body never reads is not bound (and stays in the
	// module: fusion drops such declarations).
	k.params = k.params && strings.Contains(k.src[strings.Index(k.src, "fn main"):], "p.")
	return k
}

// newRandProducer writes a kernel that is not pointwise but can begin a
// chain as an epilogue's producer: a loop of gathered reads, optionally a
// workgroup tile exchanged across a barrier, and one guarded store per
// invocation at its index.
func newRandProducer(rng *rand.Rand, typ string, twoD bool) *randKernel {
	k := &randKernel{typ: typ, nin: 1 + rng.Intn(2), twoD: twoD, producer: true}
	k.arith = typ == "f32" && rng.Intn(2) == 0
	var b strings.Builder
	for i := range k.nin {
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read> in%d: array<%s>;\n", i, i, typ)
	}
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read_write> out: array<%s>;\n", k.nin, typ)
	shared := rng.Intn(2) == 0
	if shared {
		fmt.Fprintf(&b, "var<workgroup> tile: array<%s, 64>;\n", typ)
	}
	if twoD {
		b.WriteString("@compute @workgroup_size(8, 8)\n")
	} else {
		b.WriteString("@compute @workgroup_size(64)\n")
	}
	b.WriteString("fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {\n")
	if twoD {
		fmt.Fprintf(&b, "\tlet i = gid.x + gid.y * %du;\n", randRow)
	} else {
		b.WriteString("\tlet i = gid.x;\n")
	}
	zero := "0u"
	if typ == "f32" {
		zero = "0.0f"
	}
	fmt.Fprintf(&b, "\tlet n = arrayLength(&in0);\n\tvar acc: %s = %s;\n", typ, zero)
	fmt.Fprintf(&b, "\tfor (var k = 0u; k < %du; k = k + 1u) {\n\t\tlet j = (i * 7u + k * 13u) %% n;\n", 2+rng.Intn(6))
	leaves := []string{"acc"}
	for i := range k.nin {
		fmt.Fprintf(&b, "\t\tlet v%d = in%d[j %% arrayLength(&in%d)];\n", i, i, i)
		leaves = append(leaves, fmt.Sprintf("v%d", i))
	}
	fmt.Fprintf(&b, "\t\tacc = %s;\n\t}\n", randExpr(rng, typ, leaves, 2, k.arith))
	if shared {
		b.WriteString("\ttile[li] = acc;\n\tworkgroupBarrier();\n")
		fmt.Fprintf(&b, "\tlet nb = tile[(li + 1u) %% 64u];\n\tacc = %s;\n", randExpr(rng, typ, []string{"acc", "nb"}, 2, k.arith))
	}
	b.WriteString("\tif (i < arrayLength(&out)) {\n")
	fmt.Fprintf(&b, "\t\tout[i] = %s;\n\t}\n}\n", randExpr(rng, typ, []string{"acc", "acc", "in0[i % n]"}, 2, k.arith))
	k.src = b.String()
	return k
}

// randStep is one launch: a kernel and the buffers (indices into its
// type's pool) of its inputs and output.
type randStep struct {
	k   *randKernel
	in  []int
	out int
	c   uint32 // p.c's bits
}

// randWorld is one stream's buffers.
type randWorld struct {
	s    *recorder.Stream
	bufs map[string][]*recorder.Buffer
	// counts, when set, are Vars holding the 1-D and 2-D workgroup counts:
	// the chain is dispatched from them (IndirectVar) instead of by counts.
	counts *[2]*recorder.Var
}

// randCounts makes s's Vars of the 1-D and 2-D kernels' workgroup counts,
// the counts run uses when a chain is dispatched indirectly.
func randCounts(t *testing.T, s *recorder.Stream) *[2]*recorder.Var {
	t.Helper()
	var vs [2]*recorder.Var
	for i, c := range [2][3]uint32{{(randN + 63) / 64, 1, 1}, {randRow / 8, (randN + randRow*8 - 1) / (randRow * 8), 1}} {
		v, err := s.NewVar(recorder.ParamsOf(c[0], c[1], c[2]))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(v.Release)
		vs[i] = v
	}
	return &vs
}

func newRandWorld(t *testing.T, s *recorder.Stream, init map[string][][]uint32) *randWorld {
	t.Helper()
	w := &randWorld{s: s, bufs: map[string][]*recorder.Buffer{}}
	for _, typ := range []string{"f32", "u32"} {
		for _, v := range init[typ] {
			b := gputest.UploadU32(t, s, v...)
			w.bufs[typ] = append(w.bufs[typ], b)
		}
	}
	return w
}

func (w *randWorld) run(steps []randStep) error {
	for _, st := range steps {
		var args []recorder.Arg
		for _, i := range st.in {
			args = append(args, w.bufs[st.k.typ][i])
		}
		args = append(args, w.bufs[st.k.typ][st.out])
		if st.k.params {
			args = append(args, recorder.ParamsOf(randN, st.c, 0, 0))
		}
		d := recorder.Groups((randN+63)/64, 1, 1)
		if st.k.twoD {
			d = recorder.Groups(randRow/8, (randN+randRow*8-1)/(randRow*8), 1)
		}
		if w.counts != nil {
			d = recorder.IndirectVar(w.counts[0], 0)
			if st.k.twoD {
				d = recorder.IndirectVar(w.counts[1], 0)
			}
		}
		if err := w.s.Launch(st.k.k, d, args...); err != nil {
			return fmt.Errorf("launch of\n%s: %w", st.k.src, err)
		}
	}
	return nil
}

func (w *randWorld) words(t *testing.T) map[string][][]uint32 {
	t.Helper()
	out := map[string][][]uint32{}
	for typ, bs := range w.bufs {
		for _, b := range bs {
			out[typ] = append(out[typ], gputest.ReadU32(t, w.s, b))
		}
	}
	return out
}

// randWord is a value for a buffer: mostly ordinary numbers, with the
// special values that expose a compiler's liberties.
func randWord(rng *rand.Rand, typ string) uint32 {
	if typ == "u32" {
		switch rng.Intn(6) {
		case 0:
			return 0
		case 1:
			return math.MaxUint32 - uint32(rng.Intn(4))
		}
		return uint32(rng.Intn(1 << uint(1+rng.Intn(31))))
	}
	var f float32
	switch rng.Intn(12) {
	case 0:
		f = float32(math.Inf(1 - 2*rng.Intn(2)))
	case 1:
		f = float32(math.NaN())
	case 2:
		f = float32(math.Copysign(0, float64(1-2*rng.Intn(2))))
	case 3:
		f = float32(rng.NormFloat64() * 1e37)
	case 4:
		f = float32(rng.NormFloat64() * 1e-38)
	default:
		f = float32(rng.NormFloat64() * 8)
	}
	return math.Float32bits(f)
}

// randChains is how many chains the test runs: SOFTGRAPH_FUSION_CHAINS
// when set (the H200 runs use 10000), else a count for the suite.
func randChains(t *testing.T) int {
	if v := os.Getenv("SOFTGRAPH_FUSION_CHAINS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SOFTGRAPH_FUSION_CHAINS=%q: want a positive count", v)
		}
		return n
	}
	switch {
	case testing.Short():
		return 6
	case os.Getenv("SOFTGRAPH_LONG") == "1":
		return 400
	}
	return 30
}

// TestRandomFusedChainsEqualUnfusedBitForBit: on random chains of random
// pointwise kernels (f32 and u32, 1-D and 2-D, aliased and in-place
// buffers, special values), a fusing stream leaves every word as a plain
// stream does, after the capture's run and after a replay, and fuses. A
// fused kernel whose compiler shares or forwards values between its parts
// fails here on NVIDIA (a NaN of the plain stream came out as a number,
// Vulkan; last bits differed, OpenGL), which lavapipe and llvmpipe do not
// show.
func TestRandomFusedChainsEqualUnfusedBitForBit(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	fs, ps := gputest.Stream(t, d, recorder.WithFusion(true)), gputest.Stream(t, d)
	// A second plain stream is the control: where two plain graphs of
	// one chain already differ, the driver computes a kernel differently
	// from one run to another, and fusion cannot be judged on that chain.
	cs := gputest.Stream(t, d)
	// One chain in four is dispatched from Vars holding the same counts.
	counts := map[*recorder.Stream]*[2]*recorder.Var{fs: randCounts(t, fs), ps: randCounts(t, ps), cs: randCounts(t, cs)}
	indirectChains, indirectFused := 0, 0
	driverDiffers := 0
	seed := int64(1)
	if v := os.Getenv("SOFTGRAPH_FUSION_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	rng := rand.New(rand.NewSource(seed))
	// A pool of kernels per (type, dimension), drawn from with repeats: a
	// chain of one kernel several times (A B A B A) shares its names,
	// helpers and private state in every part.
	pool := map[[2]string][]*randKernel{}
	producers := map[[2]string][]*randKernel{} // epilogue producers, which begin a chain
	for _, typ := range []string{"f32", "u32"} {
		for _, dim := range []string{"1d", "2d"} {
			for range 12 {
				k := newRandKernel(rng, typ, dim == "2d")
				k.k = gputest.Kernel(t, d, k.src)
				pool[[2]string{typ, dim}] = append(pool[[2]string{typ, dim}], k)
			}
			for range 4 {
				k := newRandProducer(rng, typ, dim == "2d")
				k.k = gputest.Kernel(t, d, k.src)
				producers[[2]string{typ, dim}] = append(producers[[2]string{typ, dim}], k)
			}
		}
	}
	chains := randChains(t)
	var failures []string
	plain, fused, fusedGraphs, fusedFloat, nanOnly := 0, 0, 0, 0, 0
	start := time.Now()
	for c := range chains {
		typ := []string{"f32", "u32"}[rng.Intn(2)]
		init := map[string][][]uint32{}
		for _, ty := range []string{"f32", "u32"} {
			for range randBufs {
				v := make([]uint32, randN)
				for i := range v {
					v[i] = randWord(rng, ty)
				}
				init[ty] = append(init[ty], v)
			}
		}
		var steps []randStep
		dim := []string{"1d", "2d"}[rng.Intn(2)]
		for range 2 + rng.Intn(9) {
			if rng.Intn(5) == 0 {
				dim = []string{"1d", "2d"}[rng.Intn(2)]
			}
			ks := pool[[2]string{typ, dim}]
			if rng.Intn(4) == 0 {
				ks = producers[[2]string{typ, dim}]
			}
			k := ks[rng.Intn(len(ks))]
			if rng.Intn(3) == 0 && len(steps) > 0 && steps[len(steps)-1].k.twoD == k.twoD {
				k = steps[max(0, len(steps)-2)].k // A B A
			}
			st := randStep{k: k, out: rng.Intn(randBufs), c: randWord(rng, typ)}
			for range k.nin {
				i := rng.Intn(randBufs)
				for i == st.out {
					i = rng.Intn(randBufs)
				}
				st.in = append(st.in, i) // inputs may repeat: aliased reads
			}
			steps = append(steps, st)
		}
		fw, pw := newRandWorld(t, fs, init), newRandWorld(t, ps, init)
		indirect := rng.Intn(4) == 0
		if indirect {
			fw.counts, pw.counts = counts[fs], counts[ps]
			indirectChains++
		}
		pg, err := ps.Capture(func() error { return pw.run(steps) })
		if err != nil {
			t.Fatalf("chain %d: Capture on the plain stream: %v", c, err)
		}
		fg, err := fs.Capture(func() error { return fw.run(steps) })
		if err != nil {
			failures = append(failures, fmt.Sprintf("chain %d: the fusing stream refused a capture the plain stream seals: %v", c, err))
			pg.Release()
			continue
		}
		graphs := [2]*recorder.Graph{fg, pg}
		for _, g := range graphs {
			if err := g.Replay(); err != nil {
				t.Fatalf("chain %d: Replay: %v", c, err)
			}
		}
		want, got := pw.words(t), fw.words(t)
		cw := newRandWorld(t, cs, init)
		if indirect {
			cw.counts = counts[cs]
		}
		cg, err := cs.Capture(func() error { return cw.run(steps) })
		if err != nil {
			t.Fatalf("chain %d: Capture on the control stream: %v", c, err)
		}
		if err := cg.Replay(); err != nil {
			t.Fatalf("chain %d: Replay on the control stream: %v", c, err)
		}
		control := cw.words(t)
		cg.Release()
		for _, bs := range cw.bufs {
			for _, b := range bs {
				b.Release()
			}
		}
		canonicalNaNs(control["f32"])
		plainNaN := map[string][][]uint32{"f32": slices.Clone(want["f32"]), "u32": want["u32"]}
		for i := range plainNaN["f32"] {
			plainNaN["f32"][i] = slices.Clone(plainNaN["f32"][i])
		}
		canonicalNaNs(plainNaN["f32"])
		if diff := cmp.Diff(plainNaN, control); diff != "" {
			// Only a kernel a compiler may compute differently in another
			// context (a float min, max, comparison or fma) explains two
			// plain graphs disagreeing; anything else is a bug.
			dependent := false
			for _, st := range steps {
				dependent = dependent || (st.k.typ == "f32" && !st.k.arith)
			}
			if !dependent {
				t.Errorf("chain %d (%s): two plain graphs of context-independent kernels differ (-plain +control):\n%s", c, typ, firstLines(diff, 12))
			}
			driverDiffers++
			if driverDiffers <= 2 {
				t.Logf("chain %d (%s): two plain graphs differ, the driver's (min, max, comparisons of a NaN); not counted:\n%s", c, typ, firstLines(diff, 8))
			}
			for _, g := range []*recorder.Graph{fg, pg} {
				g.Release()
			}
			for _, w := range []*randWorld{fw, pw} {
				for _, bs := range w.bufs {
					for _, b := range bs {
						b.Release()
					}
				}
			}
			continue
		}
		if cmp.Diff(want, got) != "" {
			nanOnly++
		}
		canonicalNaNs(want["f32"])
		canonicalNaNs(got["f32"])
		if diff := cmp.Diff(want, got); diff != "" {
			nanOnly--
			var b strings.Builder
			fmt.Fprintf(&b, "chain %d (%s, seed %d) differs (-plain +fusing):\n%s\nfused graph: %v\nkernels:\n", c, typ, seed, firstLines(diff, 12), graphs[0])
			for _, st := range steps {
				fmt.Fprintf(&b, "in %v out %d:\n%s\n", st.in, st.out, st.k.src)
			}
			failures = append(failures, b.String())
		}
		plain += graphs[1].Stats().Dispatches
		fused += graphs[0].Stats().Dispatches
		if graphs[0].Stats().Dispatches < graphs[1].Stats().Dispatches {
			fusedGraphs++
			if typ == "f32" {
				fusedFloat++
			}
			if indirect {
				indirectFused++
			}
		}
		for _, g := range graphs {
			g.Release()
		}
		for _, w := range []*randWorld{fw, pw} {
			for _, bs := range w.bufs {
				for _, b := range bs {
					b.Release()
				}
			}
		}
	}
	t.Logf("%d random chains (seed %d) in %v: %d dispatches plain, %d fused; %d of %d graphs fused something (%d of them f32, %d of the %d dispatched indirectly); %d differed; %d differed only in a NaN's sign or payload; %d left out, where two plain graphs differed",
		chains, seed, time.Since(start).Round(time.Millisecond), plain, fused, fusedGraphs, chains, fusedFloat, indirectFused, indirectChains, len(failures), nanOnly, driverDiffers)
	for i, f := range failures {
		if i == 3 {
			t.Errorf("... and %d more differing chains", len(failures)-3)
			break
		}
		t.Error(f)
	}
	if fused*10 > plain*9 {
		t.Errorf("random chains fused to %d dispatches of %d: fusion is not happening", fused, plain)
	}
	if indirectChains >= 10 && indirectFused == 0 {
		t.Errorf("none of %d chains dispatched indirectly fused anything", indirectChains)
	}
}

// firstLines is s cut to n lines.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n")
}

// canonicalNaNs makes every f32 NaN one word. Which NaN an operation
// returns when it meets two (its operands' signs and payloads) is the
// compiler's to choose, by WGSL and IEEE 754 alike: lavapipe returns
// 0x7fc00000 or 0xffc00000 for one kernel as it happens to order the
// operands of a commutative add. That a word is NaN is compared; which
// NaN is not (docs/fusion.md).
func canonicalNaNs(bufs [][]uint32) {
	for _, b := range bufs {
		for i, w := range b {
			if math.IsNaN(float64(math.Float32frombits(w))) {
				b[i] = 0x7fc00000
			}
		}
	}
}

// TestFusedGraphLoopsNeverCrashTheProcess: capturing, replaying and
// releasing 100 random fused graphs (fresh kernels and buffers each time),
// in a fresh process, several times over, never aborts it and leaves the
// next device working. Generated fused modules once corrupted Mesa's heap
// here (a SIGSEGV in wgpu-core's triage or glibc's malloc in about half the
// runs). SOFTGRAPH_LONG=1 runs it 20 times.
func TestFusedGraphLoopsNeverCrashTheProcess(t *testing.T) {
	runs := 2
	if os.Getenv("SOFTGRAPH_LONG") == "1" {
		runs = 20
	}
	for range runs {
		gputest.InFreshProcess(t, func(t *testing.T) {
			d := gputest.Open(t, wgpu.Options{})
			s := gputest.Stream(t, d, recorder.WithFusion(true))
			rng := rand.New(rand.NewSource(100)) // the same graphs every run: the crash was one run in two
			fused := 0
			for c := range 100 {
				typ := []string{"f32", "u32"}[rng.Intn(2)]
				twoD := rng.Intn(2) == 0
				var steps []randStep
				for j := range 2 + rng.Intn(6) {
					k := newRandKernel(rng, typ, twoD)
					if j == 0 && rng.Intn(3) == 0 {
						k = newRandProducer(rng, typ, twoD)
					}
					var err error
					if k.k, err = d.Kernel(k.src, "main"); err != nil {
						t.Fatalf("graph %d: Kernel: %v\n%s", c, err, k.src)
					}
					st := randStep{k: k, out: rng.Intn(randBufs), c: randWord(rng, typ)}
					for range k.nin {
						i := rng.Intn(randBufs)
						for i == st.out {
							i = rng.Intn(randBufs)
						}
						st.in = append(st.in, i)
					}
					steps = append(steps, st)
				}
				init := map[string][][]uint32{}
				for range randBufs {
					v := make([]uint32, randN)
					for i := range v {
						v[i] = randWord(rng, typ)
					}
					init[typ] = append(init[typ], v)
				}
				w := newRandWorld(t, s, init)
				g, err := s.Capture(func() error { return w.run(steps) })
				if err != nil {
					t.Fatalf("graph %d: Capture: %v", c, err)
				}
				for range 2 {
					if err := g.Replay(); err != nil {
						t.Fatalf("graph %d: Replay: %v", c, err)
					}
				}
				if g.Stats().Dispatches < len(steps) {
					fused++
				}
				g.Release()
				for _, bs := range w.bufs {
					for _, b := range bs {
						b.Release()
					}
				}
				for _, st := range steps {
					st.k.k.Release()
				}
			}
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			if fused < 50 {
				t.Errorf("only %d of 100 graphs fused anything: the loop does not exercise fusion", fused)
			}
		})
		if gputest.InChild(t.Name()) {
			break
		}
	}
}
