package shaders_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// The sample suites (samples_*_test.go) run compute shaders as public code
// writes them: wgpu's and webgpu-samples' examples, onnxruntime-web, tfjs,
// TVM and cubecl generated kernels, simulations, image and geometry
// kernels, and WGSL written to reach the language's corners. Each shader is
// kept as its author wrote it, in testdata/wgsl/NAME.wgsl (embedded by the
// test that runs it), compiled by dev.Kernel, run on real data and compared
// with a Go reference bit for bit, or within a stated tolerance where the GPU
// rounds a division or evaluates a transcendental function. Where a test
// edits the author's text (filling in a template, composing an import,
// adding an entry point to a library) its comment says so. The front end's
// rewrite of each file is also checked without a GPU, line by line, by the
// golden corpus of wgpu/internal/wgsl (corpus_test.go).
//
// This file holds what the suites share: compiling, uploading and reading
// back, the struct-layout words, float64 vectors and matrices for the
// references, and tolerances.

// wordsOf decodes little-endian words.
func wordsOf(raw []byte) []uint32 {
	v := make([]uint32, len(raw)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return v
}

// floatsOf decodes little-endian f32s.
func floatsOf(raw []byte) []float32 {
	v := make([]float32, len(raw)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v
}

// paramsOf packs v with WGSL's uniform layout, failing the test on error.
func paramsOf(t *testing.T, v any) recorder.Params {
	t.Helper()
	p, err := recorder.ParamsFrom(v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// within reports whether a and b differ by at most d.
func within(a, b, d int) bool { return a-b <= d && b-a <= d }

// layoutWords packs a struct layout into little-endian words.
type layoutWords []uint32

func (w *layoutWords) at(off int) {
	for len(*w)*4 < off {
		*w = append(*w, 0)
	}
}
func (w *layoutWords) f32(off int, v ...float32) {
	for i, x := range v {
		w.at(off + 4*i + 4)
		(*w)[off/4+i] = math.Float32bits(x)
	}
}
func (w *layoutWords) u32(off int, v ...uint32) {
	for i, x := range v {
		w.at(off + 4*i + 4)
		(*w)[off/4+i] = x
	}
}
func (w *layoutWords) i32(off int, v ...int32) {
	for i, x := range v {
		w.at(off + 4*i + 4)
		(*w)[off/4+i] = uint32(x)
	}
}
func (w layoutWords) bytes() []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}
func (w layoutWords) f(i int) float32 { return math.Float32frombits(w[i]) }

// fixedRand is a fixed-seed source, so a failure reproduces.
func fixedRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// sampleKernel is mustKernel, logging first the construct the module exercises
// (why), which a failure then shows beside the compiler's diagnostic.
func sampleKernel(t *testing.T, d *wgpu.Device, src, entry string, constants map[string]float64, why string) *wgpu.Kernel {
	t.Helper()
	if why != "" {
		t.Logf("the construct this module exercises: %s", why)
	}
	return mustKernel(t, d, src, entry, constants)
}

func uploadWords(t *testing.T, s *recorder.Stream, w layoutWords) *recorder.Buffer {
	t.Helper()
	return upU32(t, s, w)
}

func readWords(t *testing.T, s *recorder.Stream, b *recorder.Buffer) layoutWords {
	t.Helper()
	return layoutWords(readU32(t, s, b))
}

// v3 is a float64 3-vector of the references.
type v3 [3]float64

func (a v3) add(b v3) v3        { return v3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a v3) sub(b v3) v3        { return v3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a v3) scale(s float64) v3 { return v3{a[0] * s, a[1] * s, a[2] * s} }
func (a v3) dot(b v3) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// m3 is a column-major 3×3 matrix: m3[c] is column c.
type m3 [3]v3

func (m m3) mulV(v v3) v3 { return m[0].scale(v[0]).add(m[1].scale(v[1])).add(m[2].scale(v[2])) }
func (m m3) add(n m3) m3  { return m3{m[0].add(n[0]), m[1].add(n[1]), m[2].add(n[2])} }
func (m m3) scale(s float64) m3 {
	return m3{m[0].scale(s), m[1].scale(s), m[2].scale(s)}
}
func (m m3) transpose() m3 {
	var t m3
	for c := 0; c < 3; c++ {
		for r := 0; r < 3; r++ {
			t[c][r] = m[r][c]
		}
	}
	return t
}

// closeTo reports whether got is within abs + rel×|want| of want.
func closeTo(got, want, abs, rel float64) bool {
	return math.Abs(got-want) <= abs+rel*math.Abs(want)
}

// m4 is a column-major 4×4 matrix of the splat reference.
type m4 [4][4]float64

func (m m4) mulV(v [4]float64) [4]float64 {
	var r [4]float64
	for c := 0; c < 4; c++ {
		for k := 0; k < 4; k++ {
			r[k] += m[c][k] * v[c]
		}
	}
	return r
}

func (m m3) mul(n m3) m3 { return m3{m.mulV(n[0]), m.mulV(n[1]), m.mulV(n[2])} }

// relTol compares f32 results within abs + rel×|want|.
func relTol(abs, rel float64) cmp.Option {
	return cmp.Comparer(func(a, b float32) bool {
		return closeTo(float64(a), float64(b), abs, rel) || closeTo(float64(b), float64(a), abs, rel)
	})
}

// lattice returns n values on a 1/q lattice in [-lim, lim], exact in f32.
func lattice(seed uint64, n int, lim, q float64) []float32 {
	r := fixedRand(seed)
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.Round((2*r.Float64()-1)*lim*q) / q)
	}
	return v
}

// texelsU32 reads tex back as little-endian words.
func texelsU32(t *testing.T, s *recorder.Stream, tex *recorder.Texture) []uint32 {
	t.Helper()
	return wordsOf(readTex(t, s, tex))
}

// bitsOf is the bits of each f32.
func bitsOf(v []float32) []uint32 {
	u := make([]uint32, len(v))
	for i, x := range v {
		u[i] = math.Float32bits(x)
	}
	return u
}

// mustKernel compiles entry of src with constants, failing the test with the
// compiler's diagnostic.
func mustKernel(t *testing.T, d *wgpu.Device, src, entry string, constants map[string]float64) *wgpu.Kernel {
	t.Helper()
	var opts []wgpu.KernelOption
	if constants != nil {
		opts = append(opts, wgpu.WithConstants(constants))
	}
	k, err := d.Kernel(src, entry, opts...)
	if err != nil {
		t.Fatalf("Kernel(%q) refused valid WGSL: %v", entry, err)
	}
	return k
}

func upU32(t *testing.T, s *recorder.Stream, v []uint32) *recorder.Buffer {
	t.Helper()
	b, err := recorder.UploadSlice(s, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func upI32(t *testing.T, s *recorder.Stream, v []int32) *recorder.Buffer {
	t.Helper()
	b, err := recorder.UploadSlice(s, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readU32(t *testing.T, s *recorder.Stream, b *recorder.Buffer) []uint32 {
	t.Helper()
	v, err := recorder.ReadSlice[uint32](s, b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func readI32(t *testing.T, s *recorder.Stream, b *recorder.Buffer) []int32 {
	t.Helper()
	v, err := recorder.ReadSlice[int32](s, b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func wantSame[T any](t *testing.T, what string, want, got T, opts ...cmp.Option) {
	t.Helper()
	if diff := cmp.Diff(want, got, opts...); diff != "" {
		t.Errorf("%s: the GPU result differs from the Go reference (-want +got):\n%s", what, diff)
	}
}

// near compares floats within tol, relative to max(1, |want|).
func near(tol float64) cmp.Option {
	return cmp.Comparer(func(a, b float32) bool {
		return math.Abs(float64(a)-float64(b)) <= tol*math.Max(1, math.Abs(float64(a)))
	})
}

func seq(n int, f func(i int) uint32) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

func seqF(n int, f func(i int) float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

func lcg(i int) uint32 { return uint32(i)*2654435761 + 12345 }

type sampleCase struct {
	name string
	run  func(t *testing.T, d *wgpu.Device, s *recorder.Stream)
}

// asBytesF encodes f32s little-endian.
func asBytesF(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// asBytesU encodes words little-endian (uniforms and texture uploads).
func asBytesU(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}
