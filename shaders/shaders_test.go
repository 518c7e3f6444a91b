package shaders_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// openStream opens the default device and a stream on it, or skips when the
// machine has no adapter, unless SOFTGRAPH_REQUIRE_GPU=1 (set by CI), where
// a missing adapter fails.
func openStream(t testing.TB) (*wgpu.Device, *recorder.Stream) {
	t.Helper()
	d := gputest.Open(t, wgpu.Options{})
	s, err := recorder.New(d)
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

// compiler is a Shader or one of the kernel types embedding it.
type compiler interface {
	Compile(*wgpu.Device) (*wgpu.Kernel, error)
}

func compile(t testing.TB, d *wgpu.Device, sh compiler) *wgpu.Kernel {
	t.Helper()
	k, err := sh.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func upload(t testing.TB, s *recorder.Stream, v []float32) *recorder.Buffer {
	t.Helper()
	b, err := recorder.UploadSlice(s, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func empty(t testing.TB, s *recorder.Stream, n int) *recorder.Buffer {
	t.Helper()
	b, err := s.Alloc(uint64(4 * n))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func launch(t testing.TB, s *recorder.Stream, k *wgpu.Kernel, d recorder.Dispatch, args ...recorder.Arg) {
	t.Helper()
	if err := s.Launch(k, d, args...); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, s *recorder.Stream, b *recorder.Buffer) []float32 {
	t.Helper()
	v, err := recorder.ReadSlice[float32](s, b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// random returns n values uniform in [-scale, scale) from a fixed seed, so
// a failure reproduces.
func random(seed uint64, n int, scale float32) []float32 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	v := make([]float32, n)
	for i := range v {
		v[i] = scale * (2*r.Float32() - 1)
	}
	return v
}

// approx compares f32 results with an f64 reference rounded to f32: the GPU
// rounds every step to f32 and may order sums differently.
var approx = cmpopts.EquateApprox(1e-5, 1e-6)

func wantClose(t testing.TB, what string, want, got []float32, opts ...cmp.Option) {
	t.Helper()
	if len(opts) == 0 {
		opts = []cmp.Option{approx}
	}
	if d := cmp.Diff(want, got, opts...); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}

// TestShadersDeclareTheDocumentedBindings: each kernel compiles, and its
// layout (derived from the WGSL) is the one its doc comment promises, so a
// launch that follows the doc binds every argument where the kernel reads it.
func TestShadersDeclareTheDocumentedBindings(t *testing.T) {
	d, _ := openStream(t)
	const (
		r  = wgpu.BindReadOnlyStorage
		rw = wgpu.BindStorage
		u  = wgpu.BindUniform
	)
	row := [3]uint32{256, 1, 1}
	for _, c := range []struct {
		sh       shaders.Shader
		bindings []wgpu.BindingKind
		wg       [3]uint32
	}{
		{shaders.AddOne.Shader, []wgpu.BindingKind{r, rw, u}, row},
		{shaders.Copy.Shader, []wgpu.BindingKind{r, rw, u}, row},
		{shaders.Scale.Shader, []wgpu.BindingKind{r, rw, u}, row},
		{shaders.Axpy.Shader, []wgpu.BindingKind{r, rw, u}, row},
		{shaders.Add.Shader, []wgpu.BindingKind{r, r, rw, u}, row},
		{shaders.Mul.Shader, []wgpu.BindingKind{r, r, rw, u}, row},
		{shaders.Sum.Shader, []wgpu.BindingKind{r, rw, u}, row},
		{shaders.MatMul.Shader, []wgpu.BindingKind{r, r, rw, u}, [3]uint32{16, 16, 1}},
		{shaders.Softmax.Shader, []wgpu.BindingKind{r, rw, u}, row},
		{shaders.RMSNorm.Shader, []wgpu.BindingKind{r, r, rw, u}, row},
		{shaders.BiasReLU.Shader, []wgpu.BindingKind{r, r, rw, u}, row},
		{shaders.BiasGELU.Shader, []wgpu.BindingKind{r, r, rw, u}, row},
	} {
		t.Run(c.sh.Name, func(t *testing.T) {
			k := compile(t, d, c.sh)
			var kinds []wgpu.BindingKind
			for _, b := range k.Bindings() {
				kinds = append(kinds, b.Kind)
			}
			if diff := cmp.Diff(c.bindings, kinds); diff != "" {
				t.Errorf("bindings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.wg, k.WorkgroupSize()); diff != "" {
				t.Errorf("workgroup size (-want +got):\n%s", diff)
			}
			if k2 := compile(t, d, c.sh); k2 != k {
				t.Errorf("compiling %s twice gave two kernels; the device should cache it", c.sh)
			}
		})
	}
}

// TestCompileRefusesANilDevice: a nil device is an argument error, not a
// panic.
func TestCompileRefusesANilDevice(t *testing.T) {
	_, err := shaders.AddOne.Compile(nil)
	if !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Fatalf("Compile(nil) = %v, want an error wrapping wgpu.ErrInvalidArgument", err)
	}
}

// TestParamsMatchTheDocumentedLayout: the builders write the 16-byte
// little-endian layouts the WGSL structs declare.
func TestParamsMatchTheDocumentedLayout(t *testing.T) {
	eps := math.Float32bits(1e-5)
	two := math.Float32bits(2)
	for _, c := range []struct {
		name string
		got  recorder.Params
		want []byte
	}{
		{"AddOne", shaders.AddOneParams(1000), []byte{0xe8, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"Copy", shaders.CopyParams(1, 2, 3), []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}},
		{"Scale", shaders.ScaleParams(7, 2), []byte{7, 0, 0, 0, byte(two), byte(two >> 8), byte(two >> 16), byte(two >> 24), 0, 0, 0, 0, 0, 0, 0, 0}},
		{"Axpy", shaders.AxpyParams(7, 2), []byte{7, 0, 0, 0, byte(two), byte(two >> 8), byte(two >> 16), byte(two >> 24), 0, 0, 0, 0, 0, 0, 0, 0}},
		{"Add", shaders.AddParams(1), []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"Mul", shaders.MulParams(1), []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"Sum", shaders.SumParams(0x01020304), []byte{4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"MatMul", shaders.MatMulParams(1, 2, 3), []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}},
		{"Softmax", shaders.SoftmaxParams(4, 5), []byte{4, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"RMSNorm", shaders.RMSNormParams(4, 5, 1e-5), []byte{4, 0, 0, 0, 5, 0, 0, 0, byte(eps), byte(eps >> 8), byte(eps >> 16), byte(eps >> 24), 0, 0, 0, 0}},
		{"BiasReLU", shaders.BiasReLUParams(4, 5), []byte{4, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"BiasGELU", shaders.BiasGELUParams(4, 5), []byte{4, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	} {
		if d := cmp.Diff(c.want, []byte(c.got)); d != "" {
			t.Errorf("%sParams (-want +got):\n%s", c.name, d)
		}
	}
}

// TestDispatchHelpersCoverEveryElement: the counts cover the sizes exactly
// where they can, and fold into y past the 65535 per-dimension limit.
func TestDispatchHelpersCoverEveryElement(t *testing.T) {
	for _, c := range []struct {
		name string
		got  recorder.Dispatch
		want string
	}{
		{"ElementwiseGroups(0)", shaders.ElementwiseGroups(0), "groups(1,1,1)"},
		{"ElementwiseGroups(1000)", shaders.ElementwiseGroups(1000), "groups(4,1,1)"},
		{"ElementwiseGroups(1024)", shaders.ElementwiseGroups(1024), "groups(4,1,1)"},
		{"ElementwiseGroups(65535*256)", shaders.ElementwiseGroups(65535 * 256), "groups(65535,1,1)"},
		{"ElementwiseGroups(65536*256)", shaders.ElementwiseGroups(65536 * 256), "groups(32768,2,1)"},
		{"ElementwiseGroups(max)", shaders.ElementwiseGroups(math.MaxUint32), "groups(65281,257,1)"},
		{"RowGroups(7)", shaders.RowGroups(7), "groups(7,1,1)"},
		{"RowGroups(70000)", shaders.RowGroups(70000), "groups(35000,2,1)"},
		{"MatMulGroups(1,77)", shaders.MatMulGroups(1, 77), "groups(5,1,1)"},
		{"MatMulGroups(33,45)", shaders.MatMulGroups(33, 45), "groups(3,3,1)"},
		{"MatMulGroups(0,0)", shaders.MatMulGroups(0, 0), "groups(1,1,1)"},
	} {
		if got := c.got.String(); got != c.want {
			t.Errorf("%s = %s, want %s", c.name, got, c.want)
		}
	}
	for n, want := range map[uint32]uint32{0: 1, 1: 1, 256: 1, 257: 2, 100000: 391, 391: 2, 2: 1} {
		if got := shaders.SumGroups(n); got != want {
			t.Errorf("SumGroups(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestAddOneMatchesReference: dst = src + 1 on 1000 elements (not a multiple
// of the workgroup size).
func TestAddOneMatchesReference(t *testing.T) {
	d, s := openStream(t)
	const n = 1000
	src := random(1, n, 10)
	want := make([]float32, n)
	for i, v := range src {
		want[i] = v + 1
	}
	in, out := upload(t, s, src), empty(t, s, n)
	launch(t, s, compile(t, d, shaders.AddOne), shaders.ElementwiseGroups(n), in, out, shaders.AddOneParams(n))
	wantClose(t, "add_one", want, read(t, s, out))
}

// TestCopyMovesWordsBetweenOffsetsBitForBit: a slice of one buffer lands at
// an offset of another, bits intact (a NaN payload too), the rest untouched.
func TestCopyMovesWordsBetweenOffsetsBitForBit(t *testing.T) {
	d, s := openStream(t)
	const n, srcOff, dstOff = 300, 17, 5
	src := random(3, 1000, 10)
	src[srcOff] = math.Float32frombits(0x7fc00123) // a NaN with a payload
	dst := make([]float32, 400)
	for i := range dst {
		dst[i] = -1
	}
	want := append([]float32(nil), dst...)
	copy(want[dstOff:dstOff+n], src[srcOff:srcOff+n])
	in, out := upload(t, s, src), upload(t, s, dst)
	launch(t, s, compile(t, d, shaders.Copy), shaders.ElementwiseGroups(n), in, out, shaders.CopyParams(n, srcOff, dstOff))
	got := read(t, s, out)
	bits := func(v []float32) []uint32 {
		b := make([]uint32, len(v))
		for i, x := range v {
			b[i] = math.Float32bits(x)
		}
		return b
	}
	if diff := cmp.Diff(bits(want), bits(got)); diff != "" {
		t.Fatalf("copy of %d words from %d to %d (-want +got):\n%s", n, srcOff, dstOff, diff)
	}
}

// TestKernelsTakeSizesFromParams: a kernel works on a prefix of larger
// buffers, reading n from its params; elements past n are left alone.
func TestKernelsTakeSizesFromParams(t *testing.T) {
	d, s := openStream(t)
	const size, n = 1000, 300
	src := random(2, size, 10)
	sentinel := make([]float32, size)
	for i := range sentinel {
		sentinel[i] = -12345
	}
	want := append([]float32(nil), sentinel...)
	for i := range n {
		want[i] = src[i] + 1
	}
	in, out := upload(t, s, src), upload(t, s, sentinel)
	// Dispatch for the whole buffer: the guard, not the dispatch, stops at n.
	launch(t, s, compile(t, d, shaders.AddOne), shaders.ElementwiseGroups(size), in, out, shaders.AddOneParams(n))
	wantClose(t, "add_one over the first 300 of 1000 elements", want, read(t, s, out))
}

// TestElementwiseFoldedDispatchReachesEveryElement: past 65535 workgroups
// the dispatch folds into y, and the kernels' linearised index still reaches
// every element exactly once.
func TestElementwiseFoldedDispatchReachesEveryElement(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 64 MiB")
	}
	d, s := openStream(t)
	const n = 65535*256 + 1000 // 65539 workgroups: groups(32770,2,1)
	src := make([]float32, n)
	for i := range src {
		src[i] = float32(i % 4096)
	}
	in, out := upload(t, s, src), empty(t, s, n)
	launch(t, s, compile(t, d, shaders.AddOne), shaders.ElementwiseGroups(n), in, out, shaders.AddOneParams(n))
	got := read(t, s, out)
	for i, v := range got {
		if want := src[i] + 1; v != want {
			t.Fatalf("dst[%d] = %v, want %v (first mismatch)", i, v, want)
		}
	}
}

// TestScaleMatchesReference: y = a·x on 1000 elements.
func TestScaleMatchesReference(t *testing.T) {
	d, s := openStream(t)
	const n, a = 1000, float32(-2.5)
	x := random(3, n, 10)
	want := make([]float32, n)
	for i, v := range x {
		want[i] = a * v
	}
	in, out := upload(t, s, x), empty(t, s, n)
	launch(t, s, compile(t, d, shaders.Scale), shaders.ElementwiseGroups(n), in, out, shaders.ScaleParams(n, a))
	wantClose(t, "scale", want, read(t, s, out))
}

// TestAxpyMatchesReference: y = a·x + y in place on 1000 elements.
func TestAxpyMatchesReference(t *testing.T) {
	d, s := openStream(t)
	const n, a = 1000, float32(0.75)
	x, y := random(4, n, 10), random(5, n, 10)
	want := make([]float32, n)
	for i := range x {
		want[i] = float32(float64(a)*float64(x[i]) + float64(y[i]))
	}
	xb, yb := upload(t, s, x), upload(t, s, y)
	launch(t, s, compile(t, d, shaders.Axpy), shaders.ElementwiseGroups(n), xb, yb, shaders.AxpyParams(n, a))
	wantClose(t, "axpy", want, read(t, s, yb))
}

// TestAddMatchesReference: out = a + b on 1000 elements.
func TestAddMatchesReference(t *testing.T) {
	d, s := openStream(t)
	const n = 1000
	a, b := random(6, n, 10), random(7, n, 10)
	want := make([]float32, n)
	for i := range a {
		want[i] = a[i] + b[i]
	}
	ab, bb, out := upload(t, s, a), upload(t, s, b), empty(t, s, n)
	launch(t, s, compile(t, d, shaders.Add), shaders.ElementwiseGroups(n), ab, bb, out, shaders.AddParams(n))
	wantClose(t, "add", want, read(t, s, out))
}

// TestMulMatchesReference: out = a ⊙ b on 1000 elements.
func TestMulMatchesReference(t *testing.T) {
	d, s := openStream(t)
	const n = 1000
	a, b := random(8, n, 10), random(9, n, 10)
	want := make([]float32, n)
	for i := range a {
		want[i] = a[i] * b[i]
	}
	ab, bb, out := upload(t, s, a), upload(t, s, b), empty(t, s, n)
	launch(t, s, compile(t, d, shaders.Mul), shaders.ElementwiseGroups(n), ab, bb, out, shaders.MulParams(n))
	wantClose(t, "mul", want, read(t, s, out))
}

// TestSumReducesToTheTotal: one level writes the per-workgroup partial sums;
// relaunching on the partial sums until one is left gives the total of
// 100000 elements (three levels: 391 partial sums, then 2, then 1).
func TestSumReducesToTheTotal(t *testing.T) {
	d, s := openStream(t)
	const n = 100000
	x := random(10, n, 1)
	k := compile(t, d, shaders.Sum)

	partials := make([]float32, shaders.SumGroups(n))
	var total float64
	for w := range partials {
		var p float64
		for _, v := range x[w*256 : min(n, (w+1)*256)] {
			p += float64(v)
		}
		partials[w] = float32(p)
		total += p
	}

	in := upload(t, s, x)
	first := empty(t, s, len(partials))
	launch(t, s, k, shaders.ElementwiseGroups(n), in, first, shaders.SumParams(n))
	wantClose(t, "first level: partial sums of 256 elements", partials, read(t, s, first))

	cur, m, levels := first, uint32(len(partials)), 1
	for m > 1 {
		next := empty(t, s, int(shaders.SumGroups(m)))
		launch(t, s, k, shaders.ElementwiseGroups(m), cur, next, shaders.SumParams(m))
		cur, m, levels = next, shaders.SumGroups(m), levels+1
	}
	if levels != 3 {
		t.Errorf("reducing %d elements took %d levels, want 3", n, levels)
	}
	got := read(t, s, cur)
	wantClose(t, "total", []float32{float32(total)}, got[:1], cmpopts.EquateApprox(0, 1e-3))
}

// TestSumOfNothingIsZero: n = 0 still writes out[0] = 0, so a reduction of
// an empty slice needs no special case.
func TestSumOfNothingIsZero(t *testing.T) {
	d, s := openStream(t)
	in, out := upload(t, s, []float32{5}), upload(t, s, []float32{7})
	launch(t, s, compile(t, d, shaders.Sum), shaders.ElementwiseGroups(0), in, out, shaders.SumParams(0))
	wantClose(t, "sum of zero elements", []float32{0}, read(t, s, out))
}

// garbage is n NaNs: a kernel that reads one, even to multiply it by zero,
// turns its result into NaN.
func garbage(n int) []float32 {
	return slices.Repeat([]float32{float32(math.NaN())}, n)
}

func matMulRef(a, b []float32, m, n, k int) []float32 {
	c := make([]float32, m*n)
	for i := range m {
		for j := range n {
			var acc float64
			for p := range k {
				acc += float64(a[i*k+p]) * float64(b[p*n+j])
			}
			c[i*n+j] = float32(acc)
		}
	}
	return c
}

// TestMatMulMatchesReference: C = A·B for a decode step (m = 1), sizes that
// are not multiples of the 16×16 tile, exact tiles, and k = 0.
func TestMatMulMatchesReference(t *testing.T) {
	d, s := openStream(t)
	k := compile(t, d, shaders.MatMul)
	for i, c := range []struct{ m, n, k int }{
		{1, 300, 77},
		{33, 17, 45},
		{16, 16, 16},
		{1, 1, 1},
		{40, 1, 300},
		{5, 3, 0},
	} {
		t.Run("", func(t *testing.T) {
			a := random(uint64(100+i), c.m*c.k, 1)
			b := random(uint64(200+i), c.k*c.n, 1)
			// A and B lie at the start of larger buffers whose slack holds
			// garbage: the kernel must stop at k from its params, not at the
			// end of the buffer, even where tiles hang past the matrices.
			ab := upload(t, s, append(a, garbage(16)...))
			bb := upload(t, s, append(b, garbage(16*(c.n+1))...))
			cb := upload(t, s, random(uint64(300+i), c.m*c.n, 100)) // garbage every element must overwrite
			launch(t, s, k, shaders.MatMulGroups(uint32(c.m), uint32(c.n)), ab, bb, cb,
				shaders.MatMulParams(uint32(c.m), uint32(c.n), uint32(c.k)))
			wantClose(t, "C", matMulRef(a, b, c.m, c.n, c.k), read(t, s, cb), cmpopts.EquateApprox(1e-4, 1e-5))
		})
	}
}

func softmaxRef(x []float32, rows, cols int) []float32 {
	y := make([]float32, len(x))
	for r := range rows {
		row := x[r*cols : (r+1)*cols]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		var sum float64
		for _, v := range row {
			sum += math.Exp(float64(v) - m)
		}
		for c, v := range row {
			y[r*cols+c] = float32(math.Exp(float64(v)-m) / sum)
		}
	}
	return y
}

// TestSoftmaxMatchesReference: row-wise softmax over rows longer and
// shorter than the workgroup, with logits large enough (±200) that exp
// overflows f32 unless the row max is subtracted first.
func TestSoftmaxMatchesReference(t *testing.T) {
	d, s := openStream(t)
	k := compile(t, d, shaders.Softmax)
	for i, c := range []struct {
		rows, cols int
		scale      float32
	}{
		{7, 1000, 5},
		{3, 5, 5},
		{2, 300, 200},
	} {
		t.Run("", func(t *testing.T) {
			x := random(uint64(400+i), c.rows*c.cols, c.scale)
			in, out := upload(t, s, x), empty(t, s, len(x))
			launch(t, s, k, shaders.RowGroups(uint32(c.rows)), in, out, shaders.SoftmaxParams(uint32(c.rows), uint32(c.cols)))
			wantClose(t, "softmax", softmaxRef(x, c.rows, c.cols), read(t, s, out))
		})
	}
}

// TestRMSNormMatchesReference: y = x / rms(x) · w per row, rows longer and
// shorter than the workgroup.
func TestRMSNormMatchesReference(t *testing.T) {
	d, s := openStream(t)
	k := compile(t, d, shaders.RMSNorm)
	const eps = 1e-5
	for i, c := range []struct{ rows, cols int }{{5, 777}, {3, 7}} {
		t.Run("", func(t *testing.T) {
			x := random(uint64(500+i), c.rows*c.cols, 3)
			w := random(uint64(600+i), c.cols, 2)
			want := make([]float32, len(x))
			for r := range c.rows {
				row := x[r*c.cols : (r+1)*c.cols]
				var sq float64
				for _, v := range row {
					sq += float64(v) * float64(v)
				}
				inv := 1 / math.Sqrt(sq/float64(c.cols)+eps)
				for j, v := range row {
					want[r*c.cols+j] = float32(float64(v) * inv * float64(w[j]))
				}
			}
			xb, wb, yb := upload(t, s, x), upload(t, s, w), empty(t, s, len(x))
			launch(t, s, k, shaders.RowGroups(uint32(c.rows)), xb, wb, yb, shaders.RMSNormParams(uint32(c.rows), uint32(c.cols), eps))
			wantClose(t, "rms_norm", want, read(t, s, yb), cmpopts.EquateApprox(1e-5, 1e-5))
		})
	}
}

// TestRowKernelsFoldPastTheDimensionLimit: with more than 65535 rows the
// row dispatch folds into y and every row is still normalised once.
func TestRowKernelsFoldPastTheDimensionLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("70000 workgroups on a software GPU")
	}
	d, s := openStream(t)
	const rows, cols = 70000, 2
	x := random(700, rows*cols, 5)
	in := upload(t, s, x)

	out := empty(t, s, len(x))
	launch(t, s, compile(t, d, shaders.Softmax), shaders.RowGroups(rows), in, out, shaders.SoftmaxParams(rows, cols))
	wantClose(t, "softmax over 70000 rows", softmaxRef(x, rows, cols), read(t, s, out))

	// With w = 1, every row of the result has a mean square of 1 (eps = 0).
	w := upload(t, s, []float32{1, 1})
	launch(t, s, compile(t, d, shaders.RMSNorm), shaders.RowGroups(rows), in, w, out, shaders.RMSNormParams(rows, cols, 0))
	got := read(t, s, out)
	ms := make([]float32, rows)
	for r := range rows {
		ms[r] = (got[2*r]*got[2*r] + got[2*r+1]*got[2*r+1]) / 2
	}
	wantClose(t, "mean square of each rms_norm row over 70000 rows", slices.Repeat([]float32{1}, rows), ms, cmpopts.EquateApprox(1e-5, 0))
}

func biasRef(x, bias []float32, cols int, act func(float64) float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(act(float64(v) + float64(bias[i%cols])))
	}
	return y
}

// TestBiasReLUMatchesReference: y = max(x + bias, 0) over 13×77.
func TestBiasReLUMatchesReference(t *testing.T) {
	d, s := openStream(t)
	const rows, cols = 13, 77
	x, bias := random(800, rows*cols, 3), random(801, cols, 1)
	want := biasRef(x, bias, cols, func(v float64) float64 { return math.Max(v, 0) })
	xb, bb, yb := upload(t, s, x), upload(t, s, bias), empty(t, s, len(x))
	launch(t, s, compile(t, d, shaders.BiasReLU), shaders.ElementwiseGroups(rows*cols), xb, bb, yb, shaders.BiasReLUParams(rows, cols))
	wantClose(t, "bias_relu", want, read(t, s, yb))
}

// TestBiasGELUMatchesReference: y = gelu_tanh(x + bias) over 13×77, with
// inputs out to ±60, where drivers that compute tanh through exp return NaN
// unless the kernel clamps its argument.
func TestBiasGELUMatchesReference(t *testing.T) {
	d, s := openStream(t)
	const rows, cols = 13, 77
	x, bias := random(900, rows*cols, 6), random(901, cols, 1)
	x[0], x[1] = 60, -60
	gelu := func(v float64) float64 {
		return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
	}
	want := biasRef(x, bias, cols, gelu)
	xb, bb, yb := upload(t, s, x), upload(t, s, bias), empty(t, s, len(x))
	launch(t, s, compile(t, d, shaders.BiasGELU), shaders.ElementwiseGroups(rows*cols), xb, bb, yb, shaders.BiasGELUParams(rows, cols))
	wantClose(t, "bias_gelu", want, read(t, s, yb), cmpopts.EquateApprox(1e-5, 1e-5))
}
