package shaders_test

import (
	_ "embed"
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// Machine-learning and tensor kernels as ML runtimes generate or write them:
// onnxruntime-web, tfjs-webgpu, TVM/web-llm, cubecl/burn, tinygrad, ggml,
// ratchet, wonnx, web-rwkv — matmuls (tiled, blocked, 4-bit), norms,
// softmax, attention scores, gather, cumsum, argmax, convolution, sparse
// matrix-vector products, quantisation, casts and elementwise kernels.

// TestMLSamplesComputeLikeTheirReference: every kernel of mlSampleCases
// compiles as written and computes what its Go reference does. A refusal
// names the construct the front-end or the compiler could not read; a
// difference is a mis-specialisation.
func TestMLSamplesComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	for _, tc := range mlSampleCases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, d, s) })
	}
}

var mlSampleCases = []sampleCase{
	{"TVM/web-llm: PODArgs uniform, blockIdx/gridDim/threadIdx, one-element arrays, k++ loop, floor division by select, workgroup tree sum, bitcast", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslTvmWebLlm
		k := mustKernel(t, d, src, "default_function_kernel", nil)
		a := seqF(512, func(i int) float32 { return float32(int(lcg(i)>>28) - 8) })
		bv := seq(128, func(i int) uint32 { return math.Float32bits(float32(i%7) * 0.25) })
		for _, n := range []int32{5, -3} {
			par := asBytesU(uint32(n), 3, math.Float32bits(0.5), 2)
			out := upload(t, s, make([]float32, 3*64))
			launch(t, s, k, recorder.Groups(3, 1, 1), out, upload(t, s, a), upU32(t, s, bv), recorder.Params(par))
			want := make([]float32, 3*64)
			for g := 0; g < 2; g++ {
				part := make([]float32, 64)
				for i := range part {
					for k := 0; k < 4; k++ {
						part[i] += a[g*256+i*4+k]
					}
				}
				sum := treeSum64(part)
				for i := 0; i < 64; i++ {
					want[g*64+i] = sum*0.5 + math.Float32frombits(bv[g*64+i]) + float32(floorDivTVM(int32(i)-32, n)*8)
				}
			}
			wantSame(t, "T_out", bitsOf(want), bitsOf(read(t, s, out)))
		}
	}},
	{"cubecl/burn: info array of strides and shapes, broadcasting index loop, arrayLength bound, l_N_M locals, loop { if ... { break; } }, helper after the entry point", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslCubeclBurn
		k := mustKernel(t, d, src, "main", nil)
		// out[4][6] = in0[4][6] + in1[1][6] broadcast over the rows.
		info := []uint32{2, 6, 1, 0, 1, 6, 1, 4, 6, 1, 6}
		in0 := seqF(24, func(i int) float32 { return float32(int(lcg(i)>>27) - 16) })
		in1 := seqF(6, func(i int) float32 { return float32(i) - 2.5 })
		out0, out1 := empty(t, s, 24), empty(t, s, 24)
		launch(t, s, k, recorder.Groups(1, 1, 1), upload(t, s, in0), upload(t, s, in1), out0, out1, upU32(t, s, info))
		w0, w1 := make([]float32, 24), make([]uint32, 24)
		for id := 0; id < 24; id++ {
			v := (in0[id] + in1[id%6]) * 0.5 * 0.5 * 0.5
			w0[id] = max(v, -2)
			w1[id] = uint32(id%6) << 8
			if v > 0 {
				w1[id] |= 1
			}
		}
		wantSame(t, "output_0", bitsOf(w0), bitsOf(read(t, s, out0)))
		wantSame(t, "output_1", w1, readU32(t, s, out1))
	}},
	{"ratchet/candle: vec4 GELU with tanh, a Meta uniform in @group(1), select(tanh(x), sign(x), abs(x) >= vec4(10.0)), 2D workgroup indexing; within 1e-5 for tanh", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslRatchetCandle
		k := mustKernel(t, d, src, "main", nil)
		x := random(41, 4*150, 6)
		x[0], x[1] = 12, -15
		y := empty(t, s, 4*150)
		launch(t, s, k, recorder.Groups(2, 2, 1), upload(t, s, x), y, recorder.Params(asBytesU(4*150, math.Float32bits(2))))
		want := make([]float32, len(x))
		for i, v := range x {
			v64 := float64(v)
			z := 0.7978845608028654 * (v64 + 0.044715*v64*v64*v64)
			th := math.Tanh(z)
			if math.Abs(z) >= 10 {
				th = math.Copysign(1, z)
			}
			want[i] = float32(v64 * (0.5 + 0.5*th) * 2)
		}
		wantSame(t, "Y", want, read(t, s, y), near(1e-5))
	}},
	{"wonnx: struct Array/ArrayVector wrappers, leaky ReLU over vec4 with a guarded gidx", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWonnx
		k := mustKernel(t, d, src, "main", nil)
		x := seqF(40, func(i int) float32 { return float32(int(lcg(i)>>27)-16) * 0.5 })
		o0, o1 := empty(t, s, 40), empty(t, s, 10)
		launch(t, s, k, recorder.Groups(1, 1, 1), upload(t, s, x), o0, o1)
		w0, w1 := make([]float32, 40), make([]float32, 10)
		for i, v := range x {
			w0[i] = max(v, 0) + min(v, 0)*float32(0.01)
			w1[i/4] += v
		}
		wantSame(t, "output_0", bitsOf(w0), bitsOf(read(t, s, o0)))
		wantSame(t, "output_1", bitsOf(w1), bitsOf(read(t, s, o1)))
	}},
	{"tfjs-webgpu transpose: getCoordsFromIndex by uniform strides, dot of vec4<i32>, isnan by bits", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslTfjsWebgpuTranspose
		k := mustKernel(t, d, src, "_start", nil)
		xs := [4]int32{2, 3, 4, 5} // out = transpose(x, [0, 3, 1, 2])
		os := [4]int32{2, 5, 3, 4}
		n := 2 * 3 * 4 * 5
		p, err := recorder.ParamsFrom(struct {
			NAN              float32
			XShape, OutShape [4]int32
			Strides          [3]int32
			Size             int32
		}{math.Float32frombits(0x7fc00000), xs, os, [3]int32{60, 12, 4}, int32(n)})
		if err != nil {
			t.Fatal(err)
		}
		in := seqF(n, func(i int) float32 { return float32(i) - 7.5 })
		in[11] = math.Float32frombits(0x7fc00123) // a NaN the kernel replaces by uniforms.NAN
		in[12] = float32(math.Inf(-1))            // not a NaN: kept
		out := empty(t, s, n)
		launch(t, s, k, recorder.Groups(2, 1, 1), out, upload(t, s, in), p)
		want := make([]uint32, n)
		for o := 0; o < n; o++ {
			c := [4]int{o / 60, o % 60 / 12, o % 12 / 4, o % 4}
			v := in[((c[0]*3+c[2])*4+c[3])*5+c[1]]
			if v != v {
				v = math.Float32frombits(0x7fc00000)
			}
			want[o] = bitsF(v)
		}
		wantSame(t, "result bits", want, bitsOf(read(t, s, out)))
	}},
	{"onnxruntime-web transpose: shapes in a uniform array<vec4<u32>> indexed [i / 4][i % 4], global_idx from num_workgroups, ptr<function, array> helper", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslOnnxruntimeWebTranspose
		k := mustKernel(t, d, src, "main", nil)
		in := [5]uint32{2, 3, 4, 2, 3}    // input shape
		perm := [5]int{4, 0, 2, 1, 3}     // output axis k is input axis perm[k]
		var ins, outShape, outs [5]uint32 // input strides, output shape and strides
		ins[4] = 1
		for i := 3; i >= 0; i-- {
			ins[i] = ins[i+1] * in[i+1]
		}
		for k, a := range perm {
			outShape[k] = in[a]
		}
		outs[4] = 1
		for i := 3; i >= 0; i-- {
			outs[i] = outs[i+1] * outShape[i+1]
		}
		vec := func(v [5]uint32, f func(k int) uint32) [2][4]uint32 {
			var r [2][4]uint32
			for k := range v {
				r[k/4][k%4] = f(k)
			}
			return r
		}
		n := int(outs[0] * outShape[0])
		p, err := recorder.ParamsFrom(struct {
			Size                   uint32
			Shape, Strides, Inputs [2][4]uint32 `wgsl:"array"`
		}{uint32(n), vec(outShape, func(k int) uint32 { return outShape[k] }), vec(outs, func(k int) uint32 { return outs[k] }),
			vec(ins, func(k int) uint32 { return ins[perm[k]] })})
		if err != nil {
			t.Fatal(err)
		}
		src0 := seqF(n, func(i int) float32 { return float32(i) })
		out := empty(t, s, n)
		launch(t, s, k, recorder.Groups(2, 2, 1), upload(t, s, src0), out, p)
		want := make([]float32, n)
		for o := range want {
			r, off := uint32(o), uint32(0)
			for k := 0; k < 5; k++ {
				off += r / outs[k] * ins[perm[k]]
				r %= outs[k]
			}
			want[o] = src0[off]
		}
		wantSame(t, "transposed", want, read(t, s, out))
	}},
	{"tfjs-style tiled matmul over vec4<f32> storage, local_invocation_index loads, select-guarded edges", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslTfjsTiledMatmulVec4
		k := mustKernel(t, d, src, "main", nil)
		const m, kk, n = 20, 10, 16 // every product and sum an exact small integer: bit for bit whatever the order or fusing
		a := seqF(m*kk, func(i int) float32 { return float32(int(lcg(i)>>28) - 8) })
		b := seqF(kk*n, func(i int) float32 { return float32(int(lcg(i+500)>>29) - 4) })
		want := make([]float32, m*n)
		for r := 0; r < m; r++ {
			for c := 0; c < n; c++ {
				for i := 0; i < kk; i++ {
					want[r*n+c] += a[r*kk+i] * b[i*n+c]
				}
			}
		}
		out := empty(t, s, m*n)
		launch(t, s, k, recorder.Groups(1, 2, 1), upload(t, s, a), upload(t, s, b), out, recorder.ParamsOf[int32](m, kk, n))
		wantSame(t, "C", want, read(t, s, out))
	}},
	{"naive matmul with dimensions in a uniform and vec3u builtins", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslNaiveMatmulUniformDims
		k := mustKernel(t, d, src, "matmul", nil)
		const m, n, kk = 12, 10, 7
		a := seqF(m*kk, func(i int) float32 { return float32(i%5) - 2 })
		b := seqF(kk*n, func(i int) float32 { return float32(i%3) + 1 })
		want := make([]float32, m*n)
		for r := 0; r < m; r++ {
			for c := 0; c < n; c++ {
				for x := 0; x < kk; x++ {
					want[r*n+c] += a[r*kk+x] * b[x*n+c]
				}
			}
		}
		out := empty(t, s, m*n)
		launch(t, s, k, recorder.Groups(2, 2, 1), recorder.ParamsOf[uint32](m, n, kk, 0), upload(t, s, a), upload(t, s, b), out)
		wantSame(t, "C", want, read(t, s, out))
	}},
	{"workgroup-tiled matmul: override TILE in workgroup_size and tile array sizes", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWorkgroupTiledMatmul
		for _, tile := range []float64{4, 8, 16} {
			k := mustKernel(t, d, src, "main", map[string]float64{"TILE": tile})
			const dim = 32
			a := seqF(dim*dim, func(i int) float32 { return float32(i%7) - 3 })
			b := seqF(dim*dim, func(i int) float32 { return float32(i%5) - 1 })
			want := make([]float32, dim*dim)
			for r := 0; r < dim; r++ {
				for c := 0; c < dim; c++ {
					for x := 0; x < dim; x++ {
						want[r*dim+c] += a[r*dim+x] * b[x*dim+c]
					}
				}
			}
			out := empty(t, s, dim*dim)
			g := uint32(dim / tile)
			launch(t, s, k, recorder.Groups(g, g, 1), upload(t, s, a), upload(t, s, b), out)
			wantSame(t, "tiled C", want, read(t, s, out))
		}
	}},
	{"transpose through a 2D workgroup tile array", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWorkgroupTileTranspose
		k := mustKernel(t, d, src, "transpose", nil)
		in := seqF(24*16, func(i int) float32 { return float32(i) })
		want := make([]float32, 24*16)
		for y := 0; y < 16; y++ {
			for x := 0; x < 24; x++ {
				want[x*16+y] = in[y*24+x]
			}
		}
		out := empty(t, s, 24*16)
		launch(t, s, k, recorder.Groups(3, 2, 1), upload(t, s, in), out)
		wantSame(t, "transposed", want, read(t, s, out))
	}},
	{"onnx-style elementwise kernel with vec4 loads, a uniform of i32 and u32, and for-loop strides", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslOnnxElementwiseVec4
		k := mustKernel(t, d, src, "main", nil)
		in := make([]int32, 4*40)
		for i := range in {
			in[i] = int32(i%13) - 6
		}
		want := make([]int32, len(in))
		for i, v := range in {
			want[i] = max(v*2-3, 0)
			if v < 0 {
				want[i]--
			}
		}
		out := upI32(t, s, make([]int32, len(in)))
		launch(t, s, k, recorder.Groups(1, 1, 1), upI32(t, s, in), out, recorder.ParamsOf[int32](40, -3, 16, 0))
		wantSame(t, "out", want, readI32(t, s, out))
	}},
}

// ---------------------------------------------------------------------------
// onnxruntime-web LayerNormalization (layer-norm.ts), vectorised by 4, the
// uniform bound after the storage buffers.

//go:embed testdata/wgsl/ort_layer_norm.wgsl
var ortLayerNorm string

// TestORTLayerNormComputesLikeItsReference: 70 rows of 24 (two workgroups, the second
// partly idle) normalise like the float64 reference, within 2e-5 relative
// (inverseSqrt and the f32 sums); the means within 1e-6 (exact sums of
// quarters, divided).
func TestORTLayerNormComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, ortLayerNorm, "main", nil)
	const rows, cols = 70, 24
	x := seqF(rows*cols, func(i int) float32 { return float32(int(lcg(i)>>27)-16) / 4 })
	sc := seqF(cols, func(i int) float32 { return 0.5 + float32(i)/8 })
	bi := seqF(cols, func(i int) float32 { return float32(i%5) - 2 })
	out, mean, inv := empty(t, s, rows*cols), empty(t, s, rows), empty(t, s, rows)
	par := paramsOf(t, struct {
		NormCount, NormSizeVec uint32
		NormSize, Eps          float32
	}{rows, cols / 4, cols, 1e-5})
	launch(t, s, k, recorder.Groups(2, 1, 1), upload(t, s, x), upload(t, s, sc), upload(t, s, bi), out, mean, inv, par)
	wantOut, wantMean, wantInv := make([]float32, rows*cols), make([]float32, rows), make([]float32, rows)
	for r := 0; r < rows; r++ {
		var sum, sq float64
		for c := 0; c < cols; c++ {
			v := float64(x[r*cols+c])
			sum += v
			sq += v * v
		}
		m := sum / cols
		is := 1 / math.Sqrt(sq/cols-m*m+1e-5)
		wantMean[r], wantInv[r] = float32(m), float32(is)
		for c := 0; c < cols; c++ {
			wantOut[r*cols+c] = float32((float64(x[r*cols+c])-m)*is*float64(sc[c]) + float64(bi[c]))
		}
	}
	// The sums are exact; the division by the row length may round
	// differently (WGSL allows 2.5 ULP; the H200 was 1 ULP off).
	wantSame(t, "mean", wantMean, read(t, s, mean), near(1e-6))
	wantSame(t, "inverse std dev", wantInv, read(t, s, inv), near(2e-5))
	wantSame(t, "normalised", wantOut, read(t, s, out), near(2e-5))
}

// ---------------------------------------------------------------------------
// onnxruntime-web Where (where.ts) and Greater (binary-op.ts): bools travel
// packed four to a u32, one per byte.

//go:embed testdata/wgsl/ort_where_greater.wgsl
var ortWhereGreater string

// TestORTWhereAndGreaterComputeLikeTheirReference: Where picks a where the byte of its
// packed condition is non-zero (any non-zero byte, not only 1), with and
// without a broadcast condition row; Greater packs a > b back into bytes
// of 0 or 1 (NaN compares false).
func TestORTWhereAndGreaterComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	where := mustKernel(t, d, ortWhereGreater, "where_main", nil)
	bcast := mustKernel(t, d, ortWhereGreater, "where_broadcast", nil)
	greater := mustKernel(t, d, ortWhereGreater, "greater_main", nil)
	const vecs = 75 // 300 elements
	a := seqF(4*vecs, func(i int) float32 { return float32(int(lcg(i)>>28) - 8) })
	b := seqF(4*vecs, func(i int) float32 { return float32(int(lcg(i+999)>>28) - 8) })
	b[5], a[6] = float32(math.NaN()), float32(math.NaN())
	cond := make([]byte, 4*vecs)
	for i := range cond {
		cond[i] = []byte{0, 1, 0, 0x80, 7, 0}[lcg(i+7)>>29%6]
	}
	condWords := wordsOf(cond)
	par := paramsOf(t, struct{ VecSize, CCols uint32 }{vecs, 12})
	out, boolOut := empty(t, s, 4*vecs), empty(t, s, vecs)
	ab, bb, cb := upload(t, s, a), upload(t, s, b), upU32(t, s, condWords)

	launch(t, s, where, recorder.Groups(2, 1, 1), cb, ab, bb, out, par)
	want := make([]float32, 4*vecs)
	for i := range want {
		want[i] = b[i]
		if cond[i] != 0 {
			want[i] = a[i]
		}
	}
	wantSame(t, "Where", bitsOf(want), bitsOf(read(t, s, out)))

	launch(t, s, bcast, recorder.Groups(2, 1, 1), cb, ab, bb, out, par)
	for i := range want {
		want[i] = b[0]
		if cond[i%12] != 0 {
			want[i] = a[i]
		}
	}
	wantSame(t, "Where with a broadcast condition row", bitsOf(want), bitsOf(read(t, s, out)))

	launch(t, s, greater, recorder.Groups(2, 1, 1), ab, bb, boolOut, par)
	gt := make([]byte, 4*vecs)
	for i := range gt {
		if a[i] > b[i] {
			gt[i] = 1
		}
	}
	wantSame(t, "Greater packed into bytes", wordsOf(gt), readU32(t, s, boolOut))
}

// ---------------------------------------------------------------------------
// onnxruntime-web Gather (gather.ts) over axis 0 with int64 indices read as
// vec2<u32>, negative ones wrapped by axisDimLimit; the uniform's vec2
// members sit at 8-byte boundaries after three scalars.

//go:embed testdata/wgsl/ort_gather.wgsl
var ortGather string

type ortGatherUniforms struct {
	OutputSize   uint32
	AxisDimLimit int32
	Axis         uint32
	DataShape    [2]uint32
	DataStrides  [2]uint32
	IdxShape     uint32
	IdxStrides   uint32
	OutShape     [2]uint32
	OutStrides   [2]uint32
}

// TestORTGatherWithInt64IndicesComputesLikeItsReference: rows of a 9×7 table gathered by 13
// int64 indices, negative ones counting from the end, bit for bit; the
// uniform, hand-packed at WGSL's offsets, equals ParamsFrom's packing.
func TestORTGatherWithInt64IndicesComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, ortGather, "main", nil)
	const rows, cols = 9, 7
	idx := []int64{0, 8, -1, -9, 3, 3, -4, 5, 1, 7, -2, 2, 6}
	data := seqF(rows*cols, func(i int) float32 { return float32(i)*1.5 - 20 })
	raw := make([]uint32, 0, 2*len(idx))
	for _, v := range idx {
		raw = append(raw, uint32(uint64(v)), uint32(uint64(v)>>32))
	}
	n := len(idx) * cols
	u := ortGatherUniforms{uint32(n), rows, 0, [2]uint32{rows, cols}, [2]uint32{cols, 1}, uint32(len(idx)), 1,
		[2]uint32{uint32(len(idx)), cols}, [2]uint32{cols, 1}}
	par := paramsOf(t, u)
	// offsets 0, 4, 8, then 16 (vec2 align 8), 24, 32, 36, 40, 48; size 64.
	hand := asBytesU(uint32(n), rows, 0, 0, rows, cols, cols, 1, uint32(len(idx)), 1, uint32(len(idx)), cols, cols, 1, 0, 0)
	wantSame(t, "uniform layout", []byte(hand), []byte(par))
	out := empty(t, s, n)
	launch(t, s, k, recorder.Groups(2, 1, 1), upload(t, s, data), upU32(t, s, raw), out, par)
	want := make([]float32, n)
	for i, v := range idx {
		if v < 0 {
			v += rows
		}
		copy(want[i*cols:], data[int(v)*cols:][:cols])
	}
	wantSame(t, "gathered rows", bitsOf(want), bitsOf(read(t, s, out)))
}

// ---------------------------------------------------------------------------
// onnxruntime-web CumSum (cumsum.ts): the exclusive and reverse attributes
// baked into the loop bounds as the generator writes them, the axis a
// uniform indexing the shape and the indices vector.

func ortCumSum(exclusive, reverse bool) string {
	index := " i32(inputIndices[uniforms.axis]) "
	max := "i32(uniforms.input_shape[uniforms.axis])"
	lower, upper := "0", index+" + 1"
	if exclusive {
		upper = index
	}
	if reverse {
		lower, upper = index, max
		if exclusive {
			lower = index + " + 1"
		}
	}
	return `struct Uniforms { output_size:u32, axis:u32, input_shape:vec2<u32>, input_strides:vec2<u32>, output_shape:vec2<u32>, output_strides:vec2<u32> };
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

  @group(0) @binding(0) var<storage, read> input: array<i32>;
  @group(0) @binding(1) var<storage, read_write> output: array<i32>;

  fn o2i_output(offset: u32) -> vec2<u32> {
    var indices: vec2<u32>;
    var current = offset;

    let dim1 = current / uniforms.output_strides[0];
    let rest1 = current % uniforms.output_strides[0];
    indices[0] = dim1;
    current = rest1;

    indices[1] = current;
    return indices;
  }

  fn i2o_input(indices: vec2<u32>) -> u32 {
    return uniforms.input_strides[1] * (indices[1])+uniforms.input_strides[0] * (indices[0]);
  }

  @compute @workgroup_size(64, 1, 1)
  fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
    @builtin(local_invocation_index) local_idx : u32) {
    let global_idx = global_id.x;

    if (global_idx >= uniforms.output_size) { return; }
                  var inputIndices = o2i_output(global_idx);
                  var sum = i32(0);
                  let first : i32 = ` + lower + `;
                  let last : i32 = ` + upper + `;
                  for (var i : i32 = first; i < last; i++) {
                    inputIndices[uniforms.axis] = u32(i);
                    sum = sum + input[i2o_input(inputIndices)];
                  }
                  output[global_idx] = sum;
  }
`
}

// TestORTCumSumComputesLikeItsReference: the four attribute combinations along each axis of
// a 6×11 i32 tensor equal the reference's running sums, wrapping as i32.
func TestORTCumSumComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	const rows, cols = 6, 11
	in := seq(rows*cols, func(i int) uint32 { return lcg(i) })
	in[3] = 0x7fffffff
	ins := make([]int32, len(in))
	for i, v := range in {
		ins[i] = int32(v)
	}
	inb := upI32(t, s, ins)
	for _, exclusive := range []bool{false, true} {
		for _, reverse := range []bool{false, true} {
			k := mustKernel(t, d, ortCumSum(exclusive, reverse), "main", nil)
			for axis := uint32(0); axis < 2; axis++ {
				par := paramsOf(t, struct {
					Size, Axis                               uint32
					InShape, InStrides, OutShape, OutStrides [2]uint32
				}{rows * cols, axis, [2]uint32{rows, cols}, [2]uint32{cols, 1}, [2]uint32{rows, cols}, [2]uint32{cols, 1}})
				out := empty(t, s, rows*cols)
				launch(t, s, k, recorder.Groups(2, 1, 1), inb, out, par)
				want := make([]int32, rows*cols)
				for r := 0; r < rows; r++ {
					for c := 0; c < cols; c++ {
						pos, n := c, cols
						at := func(j int) int32 { return ins[r*cols+j] }
						if axis == 0 {
							pos, n = r, rows
							at = func(j int) int32 { return ins[j*cols+c] }
						}
						lo, hi := 0, pos+1
						if exclusive {
							hi = pos
						}
						if reverse {
							lo, hi = pos, n
							if exclusive {
								lo = pos + 1
							}
						}
						for j := lo; j < hi; j++ {
							want[r*cols+c] += at(j)
						}
					}
				}
				wantSame(t, "cumsum", want, readI32(t, s, out))
				if t.Failed() {
					t.Fatalf("exclusive=%v reverse=%v axis=%d", exclusive, reverse, axis)
				}
			}
		}
	}
}

// ---------------------------------------------------------------------------
// tfjs-backend-webgpu ArgMax (argminmax_webgpu.ts): the generator's
// preamble (a Uniforms struct opening with NAN and INFINITY, var<private>
// copies of the builtins, an entry _start calling a user function main,
// its own isnan by bits, DIV_CEIL), workgroup arrays of best values and
// indices, a for loop whose update is not an increment.

//go:embed testdata/wgsl/tfjs_arg_max.wgsl
var tfjsArgMax string

type tfjsArgMaxUniforms struct {
	NAN, INFINITY  float32
	XShape         [2]int32
	XShapeStrides  int32
	OutShape, Size int32
	InfinityValue  float32
}

// TestTFJSArgMaxComputesLikeItsReference: the index of the first largest non-NaN value of
// each row, for rows longer than the workgroup (100) and shorter and odd
// (37), with ties and NaNs placed to catch a wrong tie-break.
func TestTFJSArgMaxComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, tfjsArgMax, "_start", nil)
	nan := float32(math.NaN())
	for _, cols := range []int{100, 37} {
		const rows = 5
		x := seqF(rows*cols, func(i int) float32 { return float32(lcg(i+cols) >> 29) })
		x[0], x[cols-1] = nan, 9 // row 0: the maximum last
		x[cols+70%cols], x[cols+3] = 9, 9
		x[2*cols+5] = nan
		for c := 0; c < cols; c++ { // row 3: all equal
			x[3*cols+c] = 2
		}
		want := make([]int32, rows)
		for r := 0; r < rows; r++ {
			best := -1
			for c := 0; c < cols; c++ {
				v := x[r*cols+c]
				if v == v && (best < 0 || v > x[r*cols+best]) {
					best = c
				}
			}
			want[r] = int32(best)
		}
		par := paramsOf(t, tfjsArgMaxUniforms{nan, float32(math.Inf(1)), [2]int32{rows, int32(cols)}, int32(cols), rows, rows, float32(math.Inf(-1))})
		out := upI32(t, s, make([]int32, rows))
		launch(t, s, k, recorder.Groups(rows, 1, 1), out, upload(t, s, x), par)
		wantSame(t, "argmax of each row", want, readI32(t, s, out))
	}
}

// ---------------------------------------------------------------------------
// tfjs-backend-webgpu Conv2DNaiveProgram, fused with a bias and leaky ReLU:
// a uniform where an i32 packs into a vec3's last four bytes, vec4<i32>
// coordinates with all(), dot of integer vectors as index math.

//go:embed testdata/wgsl/tfjs_conv2d_naive.wgsl
var tfjsConv2DNaive string

type tfjsConvUniforms struct {
	NAN, INFINITY                    float32
	XShape                           [4]int32
	XShapeStrides                    [3]int32
	WShape                           [4]int32
	WShapeStrides                    [3]int32
	BiasShape                        int32
	OutShape                         [4]int32
	OutShapeStrides                  [3]int32
	Size                             int32
	FilterDims, Pads, Strides, Dilat [2]int32
	Alpha                            float32
}

// TestTFJSNaiveConv2DComputesLikeItsReference: an NHWC convolution with padding, strides
// and dilation over small integers (so every sum is exact), plus bias and
// leaky ReLU by 1/4, equals the reference bit for bit; the uniform's i32
// after a vec3 sits at byte 76 of a 160-byte struct.
func TestTFJSNaiveConv2DComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, tfjsConv2DNaive, "_start", nil)
	const n, h, w, ci, kh, kw, co = 2, 7, 6, 3, 3, 2, 4
	x := seqF(n*h*w*ci, func(i int) float32 { return float32(int(lcg(i)>>29) - 3) })
	wt := seqF(kh*kw*ci*co, func(i int) float32 { return float32(int(lcg(i+500)>>30) - 2) })
	bias := []float32{1, -2, 0.5, 3}
	for _, geo := range []struct{ stride, pad, dil [2]int32 }{
		{[2]int32{2, 1}, [2]int32{1, 1}, [2]int32{1, 1}},
		{[2]int32{1, 1}, [2]int32{2, 0}, [2]int32{2, 3}},
	} {
		oh := (h+2*int(geo.pad[0])-int(geo.dil[0])*(kh-1)-1)/int(geo.stride[0]) + 1
		ow := (w+2*int(geo.pad[1])-int(geo.dil[1])*(kw-1)-1)/int(geo.stride[1]) + 1
		size := n * oh * ow * co
		u := tfjsConvUniforms{
			NAN: float32(math.NaN()), INFINITY: float32(math.Inf(1)),
			XShape: [4]int32{n, h, w, ci}, XShapeStrides: [3]int32{h * w * ci, w * ci, ci},
			WShape: [4]int32{kh, kw, ci, co}, WShapeStrides: [3]int32{kw * ci * co, ci * co, co},
			BiasShape: co, OutShape: [4]int32{n, int32(oh), int32(ow), co},
			OutShapeStrides: [3]int32{int32(oh * ow * co), int32(ow * co), co}, Size: int32(size),
			FilterDims: [2]int32{kh, kw}, Pads: geo.pad, Strides: geo.stride, Dilat: geo.dil, Alpha: 0.25,
		}
		par := paramsOf(t, u)
		if len(par) != 160 || binary.LittleEndian.Uint32(par[76:]) != co || binary.LittleEndian.Uint32(par[108:]) != uint32(size) {
			t.Fatalf("uniform packing: %d bytes, biasShape %d, size %d", len(par), binary.LittleEndian.Uint32(par[76:]), binary.LittleEndian.Uint32(par[108:]))
		}
		out := upload(t, s, seqF(size+64, func(int) float32 { return -99 }))
		launch(t, s, k, recorder.Groups(uint32((size+63)/64), 1, 1), out, upload(t, s, x), upload(t, s, wt), upload(t, s, bias), par)
		want := seqF(size+64, func(int) float32 { return -99 })
		for b := 0; b < n; b++ {
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					for oc := 0; oc < co; oc++ {
						acc := float32(0)
						for r := 0; r < kh; r++ {
							for c := 0; c < kw; c++ {
								iy := oy*int(geo.stride[0]) + int(geo.dil[0])*r - int(geo.pad[0])
								ix := ox*int(geo.stride[1]) + int(geo.dil[1])*c - int(geo.pad[1])
								if iy < 0 || iy >= h || ix < 0 || ix >= w {
									continue
								}
								for ic := 0; ic < ci; ic++ {
									acc += x[((b*h+iy)*w+ix)*ci+ic] * wt[((r*kw+c)*ci+ic)*co+oc]
								}
							}
						}
						v := acc + bias[oc]
						if v < 0 {
							v *= 0.25
						}
						want[((b*oh+oy)*ow+ox)*co+oc] = v
					}
				}
			}
		}
		wantSame(t, "conv2d", bitsOf(want), bitsOf(read(t, s, out)))
	}
}

// ---------------------------------------------------------------------------
// onnxruntime-web MatMulNBits: 4-bit weights in blocks of 32 (a vec4<u32>
// per block), unpacked with unpack4xU8 of the low and high nibbles into a
// mat2x4, a matrix minus a matrix of zero points times a scale, zero
// points packed eight to a u32 and read with extractBits.

//go:embed testdata/wgsl/ort_mat_mul_nbits.wgsl
var ortMatMulNBits string

// TestORTMatMulNBitsComputesLikeItsReference: a 5×64 by 64×9 product with 4-bit weights,
// scales that are powers of two and small integer activations (every sum
// exact), with packed zero points and with the default 8, bit for bit.
func TestORTMatMulNBitsComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	const m, n, kk = 5, 9, 64
	const blocks = kk / 32
	a := seqF(m*kk, func(i int) float32 { return float32(int(lcg(i)>>29) - 4) })
	q := make([]uint32, n*blocks*4)
	for i := range q {
		q[i] = lcg(i*3 + 1)
	}
	scales := seqF(n*blocks, func(i int) float32 { return float32(math.Ldexp(1, int(lcg(i)>>30)-2)) })
	zps := make([]uint32, (n*blocks+7)/8)
	for i := range zps {
		zps[i] = lcg(i + 77)
	}
	nib := func(col, k int) float32 { // the k-th 4-bit weight of a column
		word := q[(col*blocks+k/32)*4+(k%32)/8]
		e := k % 8 // element e: byte e/4 of the mat2x4 order below
		byteIdx := []int{0, 0, 1, 1, 2, 2, 3, 3}[e]
		shift := uint(byteIdx * 8)
		if e%2 == 1 {
			shift += 4
		}
		return float32(word >> shift & 0xF)
	}
	for _, withZP := range []bool{true, false} {
		consts := map[string]float64{"HAS_ZERO_POINTS": 0}
		if withZP {
			consts["HAS_ZERO_POINTS"] = 1
		}
		k := mustKernel(t, d, ortMatMulNBits, "main", consts)
		out := empty(t, s, m*n)
		launch(t, s, k, recorder.Groups(2, 1, 1), upload(t, s, a), upU32(t, s, q), upload(t, s, scales), upU32(t, s, zps), out,
			recorder.ParamsOf[uint32](m, n, kk, blocks))
		want := make([]float32, m*n)
		for r := 0; r < m; r++ {
			for c := 0; c < n; c++ {
				acc := float32(0)
				for k := 0; k < kk; k++ {
					zp := float32(8)
					if withZP {
						zi := c*blocks + k/32
						zp = float32(zps[zi/8] >> (uint(zi%8) * 4) & 0xF)
					}
					acc += a[r*kk+k] * (nib(c, k) - zp) * scales[c*blocks+k/32]
				}
				want[r*n+c] = acc
			}
		}
		wantSame(t, "dequantized product", bitsOf(want), bitsOf(read(t, s, out)))
	}
}

// ---------------------------------------------------------------------------
// Sparse matrix times vector over CSR, the two classic kernels: one
// invocation per row, and one workgroup per row whose first invocation
// reads the row's bounds and broadcasts them with workgroupUniformLoad,
// then a tree reduction.

//go:embed testdata/wgsl/csr_spmv.wgsl
var csrSpMV string

// TestCSRSpMVComputesLikeItsReference: both kernels give the reference's y = A·x for a
// 50×40 matrix with empty rows and a row longer than the workgroup (small
// integers: every sum exact).
func TestCSRSpMVComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	scalar := mustKernel(t, d, csrSpMV, "spmv_scalar", nil)
	vector := mustKernel(t, d, csrSpMV, "spmv_vector", nil)
	const rows, cols = 50, 40
	rowPtr := []uint32{0}
	var colIdx []uint32
	var vals []float32
	for r := 0; r < rows; r++ {
		n := int(lcg(r) >> 29) // 0..7
		if r == 7 {
			n = cols // a full row: longer than the workgroup
		}
		for j := 0; j < n; j++ {
			c := (r*7 + j*3) % cols
			if r == 7 {
				c = j
			}
			colIdx = append(colIdx, uint32(c))
			vals = append(vals, float32(int(lcg(len(vals))>>28)-8))
		}
		rowPtr = append(rowPtr, uint32(len(colIdx)))
	}
	x := seqF(cols, func(i int) float32 { return float32(i%9) - 4 })
	want := make([]float32, rows)
	for r := 0; r < rows; r++ {
		for j := rowPtr[r]; j < rowPtr[r+1]; j++ {
			want[r] += vals[j] * x[colIdx[j]]
		}
	}
	rp, ci, vb, xb := upU32(t, s, rowPtr), upU32(t, s, colIdx), upload(t, s, vals), upload(t, s, x)
	y := upload(t, s, seqF(rows, func(int) float32 { return 99 }))
	launch(t, s, scalar, recorder.Groups(1, 1, 1), rp, ci, vb, xb, y)
	wantSame(t, "y by row", want, read(t, s, y))
	y2 := upload(t, s, seqF(rows, func(int) float32 { return 99 }))
	launch(t, s, vector, recorder.Groups(rows, 1, 1), rp, ci, vb, xb, y2)
	wantSame(t, "y by workgroup", want, read(t, s, y2))
}

// ---------------------------------------------------------------------------
// An elementwise "ubershader" picking its operation from a uniform opcode,
// as small ML runtimes write one: a helper whose switch returns from every
// clause (case lists, default in the middle, a case list with a trailing
// comma), an integer power by loop { ... continuing { i++; } }, bitcast
// into countOneBits, an alias of vec4, a uniform named info.

//go:embed testdata/wgsl/uber_elementwise.wgsl
var uberElementwise string

// TestUberElementwiseComputesLikeItsReference: every opcode (and one past them, taking the
// default) over 100 pairs of small integers, through both entry points,
// equals the reference bit for bit.
func TestUberElementwiseComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	scalar := mustKernel(t, d, uberElementwise, "main", nil)
	vec4 := mustKernel(t, d, uberElementwise, "main_vec4", nil)
	const n = 100
	a := seqF(n, func(i int) float32 { return float32(int(lcg(i)>>28) - 8) })
	b := seqF(n, func(i int) float32 { return float32(lcg(i+300) >> 30) })
	ab, bb := upload(t, s, a), upload(t, s, b)
	ref := func(op uint32, x, y float32) float32 {
		switch op {
		case 0:
			return x + y
		case 1:
			return x - y
		case 2:
			return x * y
		case 3:
			return max(x, y)
		case 4:
			return min(x, y)
		case 5:
			r := float32(1)
			for i := 0; i < int(y); i++ {
				r *= x
			}
			return r
		case 6:
			return float32(bits.OnesCount32(math.Float32bits(x)))
		case 7:
			if x >= 0 {
				return x
			}
			return 0.125 * x
		}
		return x
	}
	for op := uint32(0); op <= 8; op++ {
		want := seqF(n, func(i int) float32 { return ref(op, a[i], b[i]) })
		par := paramsOf(t, struct {
			Op, N uint32
			Alpha float32
		}{op, n, 0.125})
		out := empty(t, s, n)
		launch(t, s, scalar, recorder.Groups(2, 1, 1), ab, bb, out, par)
		wantSame(t, "op "+string(rune('0'+op)), bitsOf(want), bitsOf(read(t, s, out)))
		out4 := empty(t, s, n)
		launch(t, s, vec4, recorder.Groups(2, 1, 1), ab, bb, out4, par)
		wantSame(t, "op "+string(rune('0'+op))+" by vec4", bitsOf(want), bitsOf(read(t, s, out4)))
	}
}

// ---------------------------------------------------------------------------
// Symmetric n-bit quantisation as quantisation kernels write it, the range
// from abstract-integer shifts: -(1 << (bits - 1u)) and (1 << (bits - 1u))
// - 1 are i32 by WGSL's rules (a shift by a run-time amount concretizes
// its abstract operand to i32). naga v22 alone keeps the shifted
// literal abstract ("failed to convert expression to a concrete type");
// the front end spells it 1i.

//go:embed testdata/wgsl/symmetric_quantize.wgsl
var symmetricQuantize string

// TestSymmetricQuantizeWithAbstractShiftsComputesLikeItsReference: 4-bit and 8-bit
// quantisation of 100 values clamps to [-8, 7] and [-128, 127] and rounds
// half to even, as the reference does.
func TestSymmetricQuantizeWithAbstractShiftsComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k, err := d.Kernel(symmetricQuantize, "main")
	if err != nil {
		t.Fatalf("an abstract integer shifted by a u32 and concretized by default (let lo = -(1 << (bits - 1u))) must compile: %v", err)
	}
	x := seqF(100, func(i int) float32 { return float32(int(lcg(i)>>24)-128) / 4 })
	xb := upload(t, s, x)
	for _, nb := range []int{4, 8} {
		const scale = 0.5
		out := empty(t, s, len(x))
		launch(t, s, k, recorder.Groups(2, 1, 1), xb, out, recorder.ParamsOf[float32](scale, float32(nb)))
		lo, hi := -(1 << (nb - 1)), 1<<(nb-1)-1
		want := make([]int32, len(x))
		for i, v := range x {
			want[i] = int32(min(max(int(math.RoundToEven(float64(v/scale))), lo), hi))
		}
		wantSame(t, "quantized", want, readI32(t, s, out))
	}
}

// ---------------------------------------------------------------------------
// cryscan/web-rwkv, src/shaders/softmax.wgsl: one workgroup of 128 per
// token over vec4 lanes, a bare u32 uniform, workgroup scalars named sum
// and maximum, reduction helpers that end in a barrier, dot(v, vec4(1.0)).

//go:embed testdata/wgsl/rwkv_softmax.wgsl
var rwkvSoftmax string

// rwkvSoftmaxSynced is rwkvSoftmax with a workgroupBarrier between the
// steps of its warp-synchronous tail (our edit). As written, invocations
// 0–31 fold sketch[index + 16u], ..., sketch[index + 1u] with no barrier,
// relying on a 32-wide warp running them in lockstep: a data race in WGSL's
// memory model. lavapipe runs a workgroup's invocations in small groups of
// lanes one after another, so invocation 0 reads sketch[8] before
// invocation 8 has folded sketch[24] into it, and the author's text computes
// other maxima and sums there (3000 of 3072 outputs differed with 1024
// channels). Not a rewrite or naga fault: with the barriers it is exact.
func rwkvSoftmaxSynced() string {
	src := rwkvSoftmax
	for _, st := range []string{"16u", "8u", "4u", "2u", "1u"} {
		for _, op := range []string{"sketch[index] = max(sketch[index], sketch[index + " + st + "]);",
			"sketch[index] += sketch[index + " + st + "];"} {
			src = strings.Replace(src, op, op+" }\n        workgroupBarrier();\n        if index < 32u {", 1)
		}
	}
	return src
}

func runRWKVSoftmax(t *testing.T, d *wgpu.Device, s *recorder.Stream, src string, dim, tokens int) {
	t.Helper()
	k := sampleKernel(t, d, src, "softmax", nil, "a bare u32 uniform, workgroup scalars named sum and maximum")
	x := lattice(uint64(11+dim), dim*tokens, 6, 64)
	out := empty(t, s, dim*tokens)
	launch(t, s, k, recorder.Groups(1, uint32(tokens), 1), paramsOf(t, struct{ Dim uint32 }{uint32(dim)}), upload(t, s, x), out)
	want := make([]float32, len(x))
	for tok := 0; tok < tokens; tok++ {
		row := x[tok*dim : (tok+1)*dim]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		sum := 0.0
		for _, v := range row {
			sum += math.Exp(float64(v) - m)
		}
		for i, v := range row {
			want[tok*dim+i] = float32(math.Exp(float64(v)-m) / sum)
		}
	}
	wantSame(t, "softmax", want, read(t, s, out), relTol(1e-9, 1e-4))
}

// TestRWKVSoftmaxComputesLikeItsReference: the author's text over tokens of one vec4 (the
// racy tail then folds only the neutral -1e30 and 0 lanes, so scheduling
// cannot matter), and rwkvSoftmaxSynced over three tokens of 1024
// channels; each output within 1e-4 relative of the float64 softmax.
func TestRWKVSoftmaxComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	runRWKVSoftmax(t, d, s, rwkvSoftmax, 4, 5)
	runRWKVSoftmax(t, d, s, rwkvSoftmaxSynced(), 1024, 3)
}

// ---------------------------------------------------------------------------
// gukush/slim_volunteer, server/kernels/webgpu/block_matmul.wgsl: 16×16
// tiles in nested workgroup arrays, a struct declaration closed by "};",
// the uniform bound last, a bool let combining two bounds.

//go:embed testdata/wgsl/slim_block_matmul.wgsl
var slimBlockMatmul string

// matMulF32 is the float64 product of rows×k A and k×cols B (exact for the
// lattice values the tests use).
func matMulF32(a, b []float32, rows, k, cols int) []float32 {
	c := make([]float32, rows*cols)
	for r := 0; r < rows; r++ {
		for j := 0; j < cols; j++ {
			acc := 0.0
			for i := 0; i < k; i++ {
				acc += float64(a[r*k+i]) * float64(b[i*cols+j])
			}
			c[r*cols+j] = float32(acc)
		}
	}
	return c
}

// TestBlockMatmulComputesLikeItsReference: 20×37 by 37×18 over 2×2 workgroups, values
// on a 1/4 lattice so every partial sum is exact: bit for bit.
func TestBlockMatmulComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, slimBlockMatmul, "main", nil, "struct Dims { ... }; closed by a semicolon")
	const rows, kk, cols = 20, 37, 18
	a, b := lattice(21, rows*kk, 2, 4), lattice(22, kk*cols, 2, 4)
	c := empty(t, s, rows*cols)
	launch(t, s, k, recorder.Groups(2, 2, 1), upload(t, s, a), upload(t, s, b), c,
		paramsOf(t, struct{ Rows, K, Cols, Pad uint32 }{rows, kk, cols, 0}))
	wantSame(t, "C", matMulF32(a, b, rows, kk, cols), read(t, s, c))
}

// ---------------------------------------------------------------------------
// jakobtroidl/web-mlp, shaders/tiled_mm.wgsl (the override version): an
// override with a default sizing @workgroup_size and two flat workgroup
// arrays of tile_size * tile_size, var<storage> with the default access,
// two lets on one line, a barrier inside the inner loop.

//go:embed testdata/wgsl/webml_tiled_matmul.wgsl
var webMLPTiledMM string

// TestWebMLPTiledMatmulComputesLikeItsReference: the tile indexes its workgroup arrays with
// the matrix width, so the kernel is right when width equals the tile:
// 16×16 with the override's default and 8×8 with tile_size = 8, bit for
// bit on a 1/4 lattice.
func TestWebMLPTiledMatmulComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	for _, n := range []int{16, 8} {
		var consts map[string]float64
		if n != 16 {
			consts = map[string]float64{"tile_size": float64(n)}
		}
		k := sampleKernel(t, d, webMLPTiledMM, "main", consts, "an override with a default in @workgroup_size and a workgroup array size")
		a, b := lattice(uint64(30+n), n*n, 2, 4), lattice(uint64(40+n), n*n, 2, 4)
		c := empty(t, s, n*n)
		launch(t, s, k, recorder.Groups(1, 1, 1), upload(t, s, a), upload(t, s, b), c,
			paramsOf(t, struct{ W, H uint32 }{uint32(n), uint32(n)}))
		wantSame(t, "C", matMulF32(a, b, n, n, n), read(t, s, c))
	}
}

// ---------------------------------------------------------------------------
// ggml-org/llama.cpp's ggml-webgpu rms_norm.wgsl, as vendored at
// ylsdamxssjxxdd/eva, thirdparty/whisper.cpp/ggml/src/ggml-webgpu/
// wgsl-shaders/rms_norm.wgsl: an override workgroup size without default,
// 13 u32 uniform members with eps passed as bits (bitcast<f32>), 0.0f and
// 1.0/sqrt, j++ loops over a run-time bound.

//go:embed testdata/wgsl/ggml_rmsnorm.wgsl
var ggmlRMSNorm string

// TestGGMLRMSNormComputesLikeItsReference: a 24×5×2×2 tensor, one invocation per row (20
// rows), within 2e-6 relative of float64 (sqrt and the division).
func TestGGMLRMSNormComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, ggmlRMSNorm, "main", map[string]float64{"wg_size": 64}, "an override workgroup size without default, bitcast<f32> of a u32 uniform")
	const ne0, ne1, ne2, ne3 = 24, 5, 2, 2
	x := lattice(51, ne0*ne1*ne2*ne3, 3, 32)
	var par layoutWords
	par.u32(0, 0, 0, ne0, ne0*ne1, ne0*ne1*ne2, ne0, ne0*ne1, ne0*ne1*ne2, ne0, ne1, ne2, ne3, math.Float32bits(1e-6))
	dst := empty(t, s, len(x))
	launch(t, s, k, recorder.Groups(1, 1, 1), upload(t, s, x), dst, uploadWords(t, s, par))
	want := make([]float32, len(x))
	for r := 0; r < ne1*ne2*ne3; r++ {
		sum := 0.0
		for j := 0; j < ne0; j++ {
			v := float64(x[r*ne0+j])
			sum += v * v
		}
		sc := 1 / math.Sqrt(sum/ne0+float64(float32(1e-6)))
		for j := 0; j < ne0; j++ {
			want[r*ne0+j] = float32(sc * float64(x[r*ne0+j]))
		}
	}
	wantSame(t, "rms norm", want, read(t, s, dst), relTol(1e-7, 2e-6))
}

// ---------------------------------------------------------------------------
// olafurjohannsson/kjarni, crates/kjarni-transformers/src/gpu_ops/
// primitives/layer_norm/layer_norm.wgsl: one invocation per row, var mean
// = 0.0 (an abstract float made f32), mean /= f32(...), the uniform first.

//go:embed testdata/wgsl/kjarni_layer_norm.wgsl
var kjarniLayerNorm string

// TestKjarniLayerNormComputesLikeItsReference: 7 rows of 20 within 1e-5 of float64.
func TestKjarniLayerNormComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, kjarniLayerNorm, "main", nil, "var mean = 0.0 accumulating f32")
	const m, n = 7, 20
	x, g, b := lattice(61, m*n, 4, 16), lattice(62, n, 2, 8), lattice(63, n, 1, 8)
	out := empty(t, s, m*n)
	launch(t, s, k, recorder.Groups(1, 1, 1), paramsOf(t, struct {
		M, N uint32
		Eps  float32
	}{m, n, 1e-5}), upload(t, s, x), upload(t, s, g), upload(t, s, b), out)
	want := make([]float32, m*n)
	for r := 0; r < m; r++ {
		mean, vr := 0.0, 0.0
		for i := 0; i < n; i++ {
			mean += float64(x[r*n+i])
		}
		mean /= n
		for i := 0; i < n; i++ {
			v := float64(x[r*n+i]) - mean
			vr += v * v
		}
		vr /= n
		is := 1 / math.Sqrt(vr+float64(float32(1e-5)))
		for i := 0; i < n; i++ {
			want[r*n+i] = float32((float64(x[r*n+i])-mean)*is*float64(g[i]) + float64(b[i]))
		}
	}
	wantSame(t, "layer norm", want, read(t, s, out), relTol(1e-5, 1e-5))
}

// ---------------------------------------------------------------------------
// marijnfs/zig-llm, src/shaders/attention_slate.wgsl (the grouped-query
// version): @binding before @group, a 1×16×16 workgroup, scaled dot
// products of a query head with its shared key head, var dot = 0.0f (dot
// as a variable name, shadowing the builtin).

//go:embed testdata/wgsl/zig_llm_attention_slate.wgsl
var zigLLMAttentionSlate string

// TestAttentionScoresComputeLikeTheirReference: 4 query heads over 2 key heads, 5
// positions, head size 4; the slate's first n_heads blocks (the kernel's
// h > n_heads lets one more head write past them) within 1e-6 relative.
func TestAttentionScoresComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, zigLLMAttentionSlate, "main", nil, "var dot shadowing the builtin dot")
	const dim, L, heads, kv = 16, 5, 4, 2
	q, kk := lattice(71, L*dim, 2, 8), lattice(72, L*dim, 2, 8)
	slate := empty(t, s, (heads+2)*L*L)
	var par layoutWords
	par.u32(0, dim, L, L, heads, kv, L)
	launch(t, s, k, recorder.Groups(L, 1, 1), slate, upload(t, s, kk), upload(t, s, q), uploadWords(t, s, par))
	dh := dim / heads
	want := make([]float32, heads*L*L)
	for h := 0; h < heads; h++ {
		for lq := 0; lq < L; lq++ {
			for lk := 0; lk < L; lk++ {
				acc := 0.0
				for j := 0; j < dh; j++ {
					acc += float64(q[lq*dim+h*dh+j]) * float64(kk[lk*dim+(h/(heads/kv))*dh+j])
				}
				want[h*L*L+lq*L+lk] = float32(acc / 2)
			}
		}
	}
	wantSame(t, "slate", want, read(t, s, slate)[:heads*L*L], relTol(1e-7, 1e-6))
}

// ---------------------------------------------------------------------------
// zhaohappy/libmedia, src/avrender/image/webgpu/wgsl/compute/
// uint2FloatBE.wgsl: byte-swapped 16-bit samples from a texture_2d<u32>
// normalised into r32float; attributes and fn on one line, vec2(x, y) of
// u32 vars as texture coordinates, vec4(value_no, 0, 0, 0) mixing an f32
// with abstract integers, var low = value & 0xff.

//go:embed testdata/wgsl/libmedia_uint2_float_be.wgsl
var libmediaUint2FloatBE string

// TestBigEndianUint2FloatComputesLikeItsReference: a 13×9 r32uint image of 16-bit
// big-endian samples into a 16×16 r32float texture; inside, the swapped
// value over 1023 within one f32 rounding of the quotient, outside zero.
func TestBigEndianUint2FloatComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, libmediaUint2FloatBE, "main", nil, "vec4(value_no, 0, 0, 0) and vec2(x, y) of u32 vars")
	const w, h, size, mx = 13, 9, 16, 1023
	raw := make([]uint32, w*h)
	for i := range raw {
		v := lcg(i) >> 22 // 10 bits
		raw[i] = v>>8 | v&0xff<<8
	}
	in := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "r32uint"}, layoutWords(raw).bytes())
	out := newTex(t, s, recorder.TextureDesc{Width: size, Height: size, Format: "r32float"}, nil)
	launch(t, s, k, recorder.Groups(2, 2, 1), paramsOf(t, struct{ Max, W, H uint32 }{mx, w, h}), in, out)
	want := make([]float32, size*size)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := raw[y*w+x]
			want[y*size+x] = float32(float64(v&0xff<<8|v>>8&0xff) / mx)
		}
	}
	wantSame(t, "normalised", want, floatsOf(readTex(t, s, out)), relTol(0, 3e-7))
}

// ---------------------------------------------------------------------------
// psvri/arrow-gpu, crates/cast/compute_shaders/i8/cast_f32.wgsl: i8 values
// packed four to a u32 widened to f32 with unpack4xI8 (WGSL's packed 4×8
// integer builtins), indexed with [0]..[3] on the vec4<i32>.

//go:embed testdata/wgsl/arrow_cast_i8_f32.wgsl
var arrowCastI8F32 string

// TestArrowCastI8ToF32ComputesLikeItsReference: 256 words (1024 i8), bit for bit.
func TestArrowCastI8ToF32ComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, arrowCastI8F32, "cast_f32", nil, "unpack4xI8")
	const n = 256
	words := seq(n, func(i int) uint32 { return lcg(i) ^ lcg(i+7)<<5 })
	out := empty(t, s, 4*n)
	launch(t, s, k, recorder.Groups(1, 1, 1), upU32(t, s, words), out)
	want := make([]float32, 4*n)
	for i, w := range words {
		for b := 0; b < 4; b++ {
			want[4*i+b] = float32(int8(w >> (8 * b)))
		}
	}
	wantSame(t, "widened", want, read(t, s, out))
}
