package tests

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// The forms real code is written in, each fused (or refused, where fusing
// would be wrong) and compared with the plain stream word for word.

// formsRun captures step on a fusing and a plain stream of device
// d (each making its buffers with mk), replays once, and returns the fused
// graph and both streams' words of the buffers mk returned.
func formsRun(t *testing.T, d *wgpu.Device, mk func(s *recorder.Stream) []*recorder.Buffer, step func(s *recorder.Stream, bs []*recorder.Buffer) error) (*recorder.Graph, [2][][]uint32) {
	t.Helper()
	var out [2][][]uint32
	var fused *recorder.Graph
	for i, s := range []*recorder.Stream{gputest.Stream(t, d, recorder.WithFusion(true)), gputest.Stream(t, d)} {
		bs := mk(s)
		g, err := s.Capture(func() error { return step(s, bs) })
		if err != nil {
			t.Fatalf("Capture on the %s stream: %v", []string{"fusing", "plain"}[i], err)
		}
		t.Cleanup(g.Release)
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			out[i] = append(out[i], gputest.ReadU32(t, s, b))
		}
		if i == 0 {
			fused = g
		}
	}
	if diff := cmp.Diff(out[1], out[0]); diff != "" {
		t.Fatalf("the fused graph differs (-plain +fused):\n%s\n%v", diff, fused)
	}
	return fused, out
}

func ramp(n int, f func(i int) uint32) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

// TestFusionTreatsTwoWrapsOfOneNativeBufferAsOneBuffer: a kernel writing
// through one wrap of a native buffer and one reading a neighbour through
// another wrap of it are not fused (the read is of what the chain writes,
// at another index), so the capture seals and computes the plain stream's
// values; fused, the device refused the dispatch or the read raced.
func TestFusionTreatsTwoWrapsOfOneNativeBufferAsOneBuffer(t *testing.T) {
	const n = 1000
	d := gputest.Open(t, wgpu.Options{})
	write := gputest.Kernel(t, d, `@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> w: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i >= arrayLength(&w)) { return; }
	w[i] = a[i] * 3u + 1u;
}`)
	shifted := gputest.Kernel(t, d, `@group(0) @binding(0) var<storage, read> r: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i + 1u >= arrayLength(&r)) { return; }
	o[i] = r[i + 1u] + 5u;
}`)
	var outs [2][]uint32
	var fused *recorder.Graph
	for si, s := range []*recorder.Stream{gputest.Stream(t, d, recorder.WithFusion(true)), gputest.Stream(t, d)} {
		a := gputest.UploadU32(t, s, ramp(n, func(i int) uint32 { return uint32(i) })...)
		base := gputest.UploadU32(t, s, make([]uint32, n)...)
		o := gputest.UploadU32(t, s, make([]uint32, n)...)
		w1, err := s.WrapBuffer(base.Native(), 4*n)
		if err != nil {
			t.Fatal(err)
		}
		w2, err := s.WrapBuffer(base.Native(), 4*n)
		if err != nil {
			t.Fatal(err)
		}
		g, err := s.Capture(func() error {
			if err := s.Launch(write, recorder.Groups(16, 1, 1), a, w1); err != nil {
				return err
			}
			return s.Launch(shifted, recorder.Groups(16, 1, 1), w2, o)
		})
		if err != nil {
			t.Fatalf("Capture (fusing %v): %v", si == 0, err)
		}
		t.Cleanup(g.Release)
		outs[si] = gputest.ReadU32(t, s, o)
		if si == 0 {
			fused = g
		}
	}
	want := ramp(n, func(i int) uint32 {
		if i+1 >= n {
			return 0
		}
		return uint32(i+1)*3 + 1 + 5
	})
	if diff := cmp.Diff(want, outs[0]); diff != "" {
		t.Errorf("fusing stream (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, outs[1]); diff != "" {
		t.Errorf("plain stream (-want +got):\n%s", diff)
	}
	if got := fused.Stats().Dispatches; got != 2 {
		t.Errorf("fused to %d dispatches; two wraps of one buffer are one buffer, read at another index than written: want 2", got)
	}
	if s := fused.String(); !strings.Contains(s, "reads r at other indices than its own, and the chain writes it") {
		t.Errorf("String does not say why the pair was not fused: %s", s)
	}
}

// TestFusionFusesTheFormsPeopleWrite: 8x8 workgroups over a row index,
// typed pointers into storage that another kernel of the chain writes, and
// declarations the entry point does not use (a header shared by a family
// of kernels) all fuse into one dispatch, computing the plain values.
func TestFusionFusesTheFormsPeopleWrite(t *testing.T) {
	const n, row = 1000, 32
	header := `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> unused: array<f32>;
`
	d := gputest.Open(t, wgpu.Options{})
	gputest.RequireChainedFloatFusion(t, d)
	k1 := gputest.Kernel(t, d, header+`@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x + gid.y * 32u;
	if (i >= arrayLength(&y)) { return; }
	let q: ptr<storage, f32, read> = &x[i];
	y[i] = *q * 1.5 + 0.25;
}`)
	k2 := gputest.Kernel(t, d, header+`@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x + gid.y * 32u;
	if (i >= arrayLength(&y)) { return; }
	let q: ptr<storage, f32, read> = &x[i];
	let v = *q;
	y[i] = v * v - 2.0;
}`)
	groups := recorder.Groups(row/8, (n+row*8-1)/(row*8), 1)
	g, _ := formsRun(t, d, func(s *recorder.Stream) []*recorder.Buffer {
		return []*recorder.Buffer{gputest.Upload(t, s, gputest.Ramp(n, -3)), gputest.Upload(t, s, make([]float32, n)), gputest.Upload(t, s, make([]float32, n))}
	}, func(s *recorder.Stream, bs []*recorder.Buffer) error {
		// x -> y, then y (read through the pointer) -> z, then z -> x.
		for _, st := range []struct {
			k        *wgpu.Kernel
			src, dst int
		}{{k1, 0, 1}, {k2, 1, 2}, {k1, 2, 0}, {k2, 0, 1}} {
			if err := s.Launch(st.k, groups, bs[st.src], bs[st.dst]); err != nil {
				return err
			}
		}
		return nil
	})
	if got := g.Stats().Dispatches; got != 1 {
		t.Errorf("fused to %d dispatches, want 1: %v", got, g)
	}
}

// TestFusedNamesNeverCaptureALocalNamedLikeAPrefixedOne: the fusion pass
// prefixes module-scope names (scale becomes f0_scale); a local or a
// parameter already named f0_scale or f0_K, or like a shared binding's
// prefixed name (f0_x), must not capture the renamed uses. The chains
// still fuse and compute the plain values; before, the first two computed
// with the local (13 became 15, 31 became 11) and the third did not
// compile fused.
func TestFusedNamesNeverCaptureALocalNamedLikeAPrefixedOne(t *testing.T) {
	const n = 64
	d := gputest.Open(t, wgpu.Options{})
	gputest.RequireChainedFloatFusion(t, d)
	head := "@group(0) @binding(0) var<storage, read_write> x: array<u32>;\n"
	for name, src := range map[string]string{
		"a local f0_scale": `const scale = 2u;
` + head + `@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i >= arrayLength(&x)) { return; }
	let f0_scale = 3u;
	x[i] = x[i] * scale + f0_scale;
}`,
		"a parameter f0_K": `const K = 5u;
fn helper(f0_K: u32) -> u32 { return f0_K * K; }
` + head + `@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i >= arrayLength(&x)) { return; }
	x[i] = helper(x[i]) + 1u;
}`,
		"a local f0_x": head + `@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i >= arrayLength(&x)) { return; }
	let f0_x = 1000u;
	x[i] = x[i] * 3u + f0_x;
}`,
	} {
		t.Run(name, func(t *testing.T) {
			k := gputest.Kernel(t, d, src)
			g, _ := formsRun(t, d, func(s *recorder.Stream) []*recorder.Buffer {
				return []*recorder.Buffer{gputest.UploadU32(t, s, ramp(n, func(i int) uint32 { return uint32(i) })...)}
			}, func(s *recorder.Stream, bs []*recorder.Buffer) error {
				for range 2 {
					if err := s.Launch(k, recorder.Groups(1, 1, 1), bs[0]); err != nil {
						return err
					}
				}
				return nil
			})
			if got := g.Stats().Dispatches; got != 1 {
				t.Errorf("fused to %d dispatches, want 1: %v", got, g)
			}
		})
	}
}

// TestFusionFusesKernelsCompiledWithConstants: kernels whose overrides
// are set with WithConstants (and one left at its defaults) fuse as the
// text they were compiled from, each part with its own values.
func TestFusionFusesKernelsCompiledWithConstants(t *testing.T) {
	const n = 1000
	src := `override scale: f32 = 2.0;
override bias: f32 = 0.5;
override wg: u32 = 64u;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(wg)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i >= arrayLength(&y)) { return; }
	y[i] = x[i] * scale + bias;
}`
	d := gputest.Open(t, wgpu.Options{})
	gputest.RequireChainedFloatFusion(t, d)
	k1 := gputest.Kernel(t, d, src, wgpu.WithConstants(map[string]float64{"scale": 3, "bias": -1.25}))
	k2 := gputest.Kernel(t, d, src, wgpu.WithConstants(map[string]float64{"scale": 0.5}))
	k3 := gputest.Kernel(t, d, src)
	g, _ := formsRun(t, d, func(s *recorder.Stream) []*recorder.Buffer {
		return []*recorder.Buffer{gputest.Upload(t, s, gputest.Ramp(n, -7)), gputest.Upload(t, s, make([]float32, n))}
	}, func(s *recorder.Stream, bs []*recorder.Buffer) error {
		for i, k := range []*wgpu.Kernel{k1, k2, k3, k1} {
			if err := s.Launch(k, recorder.Groups(16, 1, 1), bs[i%2], bs[1-i%2]); err != nil {
				return err
			}
		}
		return nil
	})
	if got := g.Stats().Dispatches; got != 1 {
		t.Errorf("fused to %d dispatches, want 1: %v", got, g)
	}
}

// TestFusedKernelsCompileOncePerSourceWhileAGraphHoldsThem: a chain
// captured twice compiles its fused kernel once (the second graph's
// FusionCompileTime is zero) and both graphs replay after either is
// released; once neither holds it, a capture compiles it again.
func TestFusedKernelsCompileOncePerSourceWhileAGraphHoldsThem(t *testing.T) {
	const n = 1000
	d := gputest.Open(t, wgpu.Options{})
	gputest.RequireChainedFloatFusion(t, d)
	s := gputest.Stream(t, d, recorder.WithFusion(true))
	k := gputest.Kernel(t, d, `@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i >= arrayLength(&y)) { return; }
	y[i] = y[i] * 0.5 + 1.0;
}`)
	b := gputest.Upload(t, s, make([]float32, n))
	capture := func() *recorder.Graph {
		g, err := s.Capture(func() error {
			for range 4 {
				if err := s.Launch(k, recorder.Groups(16, 1, 1), b); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Stats().Dispatches; got != 1 {
			t.Fatalf("fused to %d dispatches, want 1", got)
		}
		return g
	}
	g1 := capture()
	g2 := capture()
	if g1.Stats().FusionCompiles != 1 || g2.Stats().FusionCompiles != 0 || g2.Stats().FusionCompileTime != 0 {
		t.Errorf("FusionCompiles %d then %d (FusionCompileTime %v then %v); want a compile for the first graph and none for the second", g1.Stats().FusionCompiles, g2.Stats().FusionCompiles, g1.Stats().FusionCompileTime, g2.Stats().FusionCompileTime)
	}
	g1.Release()
	if err := g2.Replay(); err != nil {
		t.Fatalf("the second graph's replay after the first's release: %v", err)
	}
	// y = y/2 + 1 from 0 is 2 - 2^(1-k) after k steps, exactly: two
	// captures' runs and one replay are 12.
	gputest.WantFloats(t, "y", gputest.Fill(n, 2-1.0/2048), gputest.Read(t, s, b))
	g2.Release()
	g3 := capture()
	defer g3.Release()
	if g3.Stats().FusionCompiles != 1 {
		t.Errorf("a capture after every holder was released compiled %d fused kernels, want 1", g3.Stats().FusionCompiles)
	}
}
