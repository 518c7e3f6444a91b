package recorder_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// openStream opens the default device and a stream on it, or skips when the
// machine has no adapter, unless SOFTGRAPH_REQUIRE_GPU=1 (set by CI), where
// a missing adapter fails.
func openStream(t testing.TB, opts ...recorder.Option) (*wgpu.Device, *recorder.Stream) {
	t.Helper()
	d := gputest.Open(t, wgpu.Options{})
	s, err := recorder.New(d, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		_ = d.Close()
	})
	return d, s
}

// addOne: dst = src + 1 over n = params.n elements.
const addOneWGSL = `
struct P { n: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: P;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < p.n) {
		dst[id.x] = src[id.x] + 1.0;
	}
}
`

// lenWGSL writes arrayLength(&a) to out[0].
const lenWGSL = `
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() { out[0] = arrayLength(&a); }
`

// scaleWGSL: x *= s (in place).
const scaleWGSL = `
struct P { s: f32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] * p.s; }
}
`

func kernel(t testing.TB, d *wgpu.Device, src string) *wgpu.Kernel {
	t.Helper()
	k, err := d.Kernel(src, "main")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func u32params(v ...uint32) recorder.Params {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	return b
}

func f32params(v float32) recorder.Params {
	return recorder.Params(f32bytes([]float32{v}))
}

func upload(t testing.TB, s *recorder.Stream, v []float32) *recorder.Buffer {
	t.Helper()
	b, err := recorder.UploadSlice(s, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func read(t testing.TB, s *recorder.Stream, b *recorder.Buffer) []float32 {
	t.Helper()
	v, err := recorder.ReadSlice[float32](s, b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func fill(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func iota(n int, start float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = start + float32(i)
	}
	return out
}

func plus(v []float32, d float32) []float32 {
	out := make([]float32, len(v))
	for i := range v {
		out[i] = v[i] + d
	}
	return out
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		u := mathFloat32bits(x)
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return b
}

func wantEqual[T any](t testing.TB, what string, want, got T) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s (-want +got):\n%s", what, d)
	}
}

// chain launches n add-one kernels ping-ponging a→b→a… and returns the
// buffer holding the last result.
func chain(t testing.TB, s *recorder.Stream, k *wgpu.Kernel, a, b *recorder.Buffer, n int, elems uint32) *recorder.Buffer {
	t.Helper()
	src, dst := a, b
	for range n {
		if err := s.Launch(k, recorder.Groups((elems+63)/64, 1, 1), src, dst, u32params(elems)); err != nil {
			t.Fatal(err)
		}
		src, dst = dst, src
	}
	return src
}
