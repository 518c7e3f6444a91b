package tests

import (
	"encoding/binary"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// The kernels NVIDIA's compilers computed differently alone and between two
// parts of a fused kernel (docs/fusion.md, "What no WGSL construct fixes"),
// each in the middle of an A B A chain of a kernel that fuses: a float
// division followed by an add (H100, Vulkan: 1 ULP in about 1 element of
// 1500), a transcendental of a constant held in a var (H200, GL: the last
// two bits of every element), a constant held in a var folded into a
// sum (H200, Vulkan: -0 for +0) and a transcendental of an expression a
// product with a constant zero makes constant (H100, GL: the last bit).

const contextOuter = `struct P { n: u32, c: f32, _p0: u32, _p1: u32 }
@group(0) @binding(0) var<storage, read> in0: array<f32>;
@group(0) @binding(1) var<storage, read> in1: array<f32>;
@group(0) @binding(2) var<storage, read> in2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: P;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x + gid.y * 32u;
	if (i >= p.n) { return; }
	let v0 = in0[i];
	let v1 = in1[i];
	var t = (sqrt(v1) + sqrt(v0));
	out[i] = exp((t * t));
}
`

// contextMiddle is a middle kernel of the form the H100 differed on: two
// inputs, an output, params; body computes t from v0, v1 and p.c.
func contextMiddle(body string) string {
	return `struct P { n: u32, c: f32, _p0: u32, _p1: u32 }
@group(0) @binding(0) var<storage, read> in0: array<f32>;
@group(0) @binding(1) var<storage, read> in1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: P;
fn f(x: f32, y: f32) -> f32 { return sqrt(x); }
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x + gid.y * 32u;
	if (i >= arrayLength(&out)) { return; }
	let q: ptr<storage, f32, read> = &in0[i];
	let v0 = *q;
	let v1 = in1[i];
` + body + `
}
`
}

// TestKernelsACompilerComputesDifferentlyFusedStayUnfusedAndExact: in an
// A B A chain, a middle kernel that divides floats or computes with a
// constant held in a var stays unfused, with its reason in String, while
// the outer kernels and an arithmetic middle kernel fuse; every chain's
// words equal the plain stream's over rounds of random data with
// infinities, NaNs, signed zeros and subnormals.
func TestKernelsACompilerComputesDifferentlyFusedStayUnfusedAndExact(t *testing.T) {
	cases := []struct {
		name, body string
		reason     string // "" when the middle kernel fuses
	}{
		{"division then add", "\tvar t = ((tanh(p.c) / v1) + exp(3.0f));\n\tt = f(t, p.c);\n\tout[i] = exp((v0 + t));", "it divides floats (line 14)"},
		{"transcendental of a var", "\tvar t = 1.5f;\n\tout[i] = exp(sqrt(t));", "it computes with a float constant held in a variable or passed to a function, which only the driver folds (line 15)"},
		{"var folded into a sum", "\tvar t = abs(3.0f);\n\tout[i] = (t - (v1 + 3.0f));", "it computes with a float constant held in a variable or passed to a function, which only the driver folds (line 15)"},
		{"product with a constant zero", "\tout[i] = exp(abs(sqrt(3.0f) - ((p.c * 0.0f) - sqrt(0.0f)))) + v0;", "it multiplies a float by a constant zero (line 14)"},
		{"arithmetic", "\tvar t = ((tanh(p.c) * v1) + exp(3.0f));\n\tt = f(t, p.c);\n\tout[i] = exp((v0 + t));", ""},
	}
	d := gputest.Open(t, wgpu.Options{})
	outer := gputest.Kernel(t, d, contextOuter)
	fs := gputest.Stream(t, d, recorder.WithFusion(true))
	ps := gputest.Stream(t, d)
	const n, rounds = 1000, 20
	for _, c := range cases {
		middle := gputest.Kernel(t, d, contextMiddle(c.body))
		rng := rand.New(rand.NewSource(7))
		bufs := func(s *recorder.Stream) []*recorder.Buffer {
			var bs []*recorder.Buffer
			for range 5 {
				bs = append(bs, gputest.Empty(t, s, 4*n))
			}
			return bs
		}
		fb, pb := bufs(fs), bufs(ps)
		var c0, c1 uint32
		chain := func(s *recorder.Stream, b []*recorder.Buffer) error {
			g := recorder.Groups(4, 4, 1)
			if err := s.Launch(outer, g, b[4], b[4], b[2], b[3], recorder.ParamsOf(n, c0, 0, 0)); err != nil {
				return err
			}
			if err := s.Launch(middle, g, b[4], b[0], b[2], recorder.ParamsOf(n, c1, 0, 0)); err != nil {
				return err
			}
			return s.Launch(outer, g, b[2], b[3], b[2], b[0], recorder.ParamsOf(n, c0, 0, 0))
		}
		for r := range rounds {
			c0, c1 = randWord(rng, "f32"), randWord(rng, "f32")
			init := make([][]byte, 5)
			for i := range init {
				init[i] = make([]byte, 4*n)
				for j := range n {
					binary.LittleEndian.PutUint32(init[i][4*j:], randWord(rng, "f32"))
				}
			}
			for _, w := range []struct {
				s *recorder.Stream
				b []*recorder.Buffer
			}{{fs, fb}, {ps, pb}} {
				for i := range init {
					if err := w.s.Write(w.b[i], 0, init[i]); err != nil {
						t.Fatal(err)
					}
				}
			}
			fg, err := fs.Capture(func() error { return chain(fs, fb) }, recorder.WithoutWarmup())
			if err != nil {
				t.Fatalf("%s: Capture on the fusing stream: %v", c.name, err)
			}
			pg, err := ps.Capture(func() error { return chain(ps, pb) }, recorder.WithoutWarmup())
			if err != nil {
				t.Fatalf("%s: Capture on the plain stream: %v", c.name, err)
			}
			if r == 0 {
				wantDispatches := 3
				if c.reason == "" && d.FusesChainedFloats() {
					wantDispatches = 1
				}
				if got := fg.Stats().Dispatches; got != wantDispatches {
					t.Errorf("%s: the fused graph has %d dispatches, want %d: %v", c.name, got, wantDispatches, fg)
				}
				if c.reason != "" && !strings.Contains(fg.String(), c.reason) {
					t.Errorf("%s: String does not say %q:\n%v", c.name, c.reason, fg)
				}
			}
			for _, g := range []*recorder.Graph{fg, pg} {
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
			}
			var got, want [][]uint32
			for i := range fb {
				got = append(got, gputest.ReadU32(t, fs, fb[i]))
				want = append(want, gputest.ReadU32(t, ps, pb[i]))
			}
			canonicalNaNs(got)
			canonicalNaNs(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s, round %d: the fusing stream's words differ from the plain stream's (-plain +fusing):\n%s", c.name, r, firstLines(diff, 12))
			}
			fg.Release()
			pg.Release()
		}
	}
}

// TestContextReasonsNameEachKernel: a graph whose kernels stay unfused for
// several context-dependent reasons lists each with its kernel.
func TestContextReasonsNameEachKernel(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, recorder.WithFusion(true))
	outer := gputest.Kernel(t, d, contextOuter)
	div := gputest.Kernel(t, d, contextMiddle("\tout[i] = v0 / v1;"), wgpu.WithLabel("ratio"))
	cmpK := gputest.Kernel(t, d, contextMiddle("\tout[i] = select(v0, v1, v0 > v1);"), wgpu.WithLabel("larger"))
	b := make([]*recorder.Buffer, 5)
	for i := range b {
		b[i] = gputest.Upload(t, s, gputest.Ramp(1000, float32(i)))
	}
	g := gputest.Capture(t, s, func() {
		grid := recorder.Groups(4, 4, 1)
		for _, k := range []*wgpu.Kernel{div, cmpK} {
			if err := s.Launch(outer, grid, b[4], b[4], b[2], b[3], recorder.ParamsOf(uint32(1000), math.Float32bits(0.5), 0, 0)); err != nil {
				t.Fatal(err)
			}
			if err := s.Launch(k, grid, b[4], b[0], b[2], recorder.ParamsOf(uint32(1000), 0, 0, 0)); err != nil {
				t.Fatal(err)
			}
		}
	})
	defer g.Release()
	for _, want := range []string{"kernel ratio: it divides floats (line 14)", "kernel larger: it compares floats (line 14)"} {
		if !strings.Contains(g.String(), want) {
			t.Errorf("String does not say %q:\n%v", want, g)
		}
	}
}
