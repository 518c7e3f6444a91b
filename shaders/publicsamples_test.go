package shaders_test

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// The public-samples suite: compute shaders written the way well-known
// public sources write them (wgpu's examples, Bevy's game of life,
// tfjs-webgpu and onnxruntime-web generated kernels, three.js-style
// particle updates, the WebGPU Fundamentals histograms, a Blelloch scan),
// in our own words, each over forms the real-world suite does not reach:
// naga's operator precedence where WGSL's grammar wants parentheses,
// `default` inside a case list, a `continuing` that reads the body's let,
// uniforms of arrays of vec4 indexed at run time, integer dot products,
// nested uniform structs with @align and @size, only @group(1) or
// @group(2). Each is compiled by dev.Kernel, launched and compared with a
// Go reference bit for bit, or within a tolerance stated where the GPU
// evaluates a square root.

// TestPublicSampleShadersComputeLikeTheirReference: every sample compiles
// as written and computes what its Go reference does.
func TestPublicSampleShadersComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	for _, tc := range publicSampleCases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, d, s) })
	}
}

func collatzRef(n uint32) uint32 {
	i := uint32(0)
	for n > 1 {
		if n%2 == 0 {
			n /= 2
		} else {
			if n >= 1431655765 {
				return 0xFFFFFFFF
			}
			n = 3*n + 1
		}
		i++
	}
	return i
}

// bevyHash is the integer hash Bevy's game of life seeds its board with.
func bevyHash(v uint32) uint32 {
	s := v ^ 2747636419
	s *= 2654435769
	s ^= s >> 16
	s *= 2654435769
	s ^= s >> 16
	s *= 2654435769
	return s
}

func texelsU32(t *testing.T, s *recorder.Stream, tex *recorder.Texture) []uint32 {
	t.Helper()
	raw, err := s.ReadTexture(tex)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]uint32, len(raw)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return v
}

func bitsOf(v []float32) []uint32 {
	u := make([]uint32, len(v))
	for i, x := range v {
		u[i] = math.Float32bits(x)
	}
	return u
}

func f32s(u ...uint32) []byte {
	b := make([]byte, 0, 4*len(u))
	for _, x := range u {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

func fb(x float32) uint32 { return math.Float32bits(x) }

//go:embed testdata/wgsl/wgpu_hello_compute.wgsl
var wgslWgpuHelloCompute string

//go:embed testdata/wgsl/bevy_game_of_life.wgsl
var wgslBevyGameOfLife string

//go:embed testdata/wgsl/naga_operator_precedence.wgsl
var wgslNagaOperatorPrecedence string

//go:embed testdata/wgsl/tfjs_webgpu_transpose.wgsl
var wgslTfjsWebgpuTranspose string

//go:embed testdata/wgsl/onnxruntime_web_transpose.wgsl
var wgslOnnxruntimeWebTranspose string

//go:embed testdata/wgsl/tfjs_tiled_matmul_vec4.wgsl
var wgslTfjsTiledMatmulVec4 string

//go:embed testdata/wgsl/three_js_style_particles_in_group.wgsl
var wgslThreeJsStyleParticlesInGroup string

//go:embed testdata/wgsl/webgpu_fundamentals_histogram.wgsl
var wgslWebgpuFundamentalsHistogram string

//go:embed testdata/wgsl/webgpu_fundamentals_chunked_histogram.wgsl
var wgslWebgpuFundamentalsChunkedHistogram string

//go:embed testdata/wgsl/blelloch_exclusive_scan.wgsl
var wgslBlellochExclusiveScan string

//go:embed testdata/wgsl/packed_4x8_integer_builtins.wgsl
var wgslPacked4x8IntegerBuiltins string

//go:embed testdata/wgsl/nested_scope_shadowing.wgsl
var wgslNestedScopeShadowing string

//go:embed testdata/wgsl/switch_default_in_case_list.wgsl
var wgslSwitchDefaultInCaseList string

//go:embed testdata/wgsl/overrides.wgsl
var wgslOverrides string

//go:embed testdata/wgsl/array_aliases.wgsl
var wgslArrayAliases string

//go:embed testdata/wgsl/i32_bit_builtins.wgsl
var wgslI32BitBuiltins string

//go:embed testdata/wgsl/float_builtins_at_run_time.wgsl
var wgslFloatBuiltinsAtRunTime string

//go:embed testdata/wgsl/continuing_reads_body_let.wgsl
var wgslContinuingReadsBodyLet string

//go:embed testdata/wgsl/group.wgsl
var wgslGroup string

//go:embed testdata/wgsl/storage_struct_size_align.wgsl
var wgslStorageStructSizeAlign string

//go:embed testdata/wgsl/pointer_composite_access.wgsl
var wgslPointerCompositeAccess string

//go:embed testdata/wgsl/wgsl_edge_rules.wgsl
var wgslWgslEdgeRules string

//go:embed testdata/wgsl/runtime_indexed_const_array.wgsl
var wgslRuntimeIndexedConstArray string

//go:embed testdata/wgsl/runtime_indexed_let_array.wgsl
var wgslRuntimeIndexedLetArray string

//go:embed testdata/wgsl/array_length_in_struct.wgsl
var wgslArrayLengthInStruct string

//go:embed testdata/wgsl/wgpu_boids.wgsl
var wgslWgpuBoids string

var publicSampleCases = []rwCase{
	{"wgpu hello-compute: Collatz steps with loop, break, % and an early return", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWgpuHelloCompute
		k := rwKernel(t, d, src, "main", nil)
		// wgpu's repeated-compute: the same pipeline over fresh inputs, read back each time.
		for round := 0; round < 3; round++ {
			in := seq(40, func(i int) uint32 { return uint32(i + 1) })
			in[37], in[38], in[39] = 27, 1431655765, lcg(round)>>1|1
			b := upU32(t, s, in)
			launch(t, s, k, recorder.Groups(40, 1, 1), b)
			wantSame(t, "iterations", seq(40, func(i int) uint32 { return collatzRef(in[i]) }), readU32(t, s, b))
		}
	}},
	{"Bevy game of life: hash with naga's precedence (state ^ state >> 16u), num_workgroups, two entry points over textures", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslBevyGameOfLife
		const w, h = 16, 8
		initK := rwKernel(t, d, src, "init", nil)
		seeded, err := s.NewTexture(recorder.TextureDesc{Width: w, Height: h, Format: "r32uint"})
		if err != nil {
			t.Fatal(err)
		}
		launch(t, s, initK, recorder.Groups(w/8, h/8, 1), seeded)
		board := make([]uint32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if float32(bevyHash(uint32(y)<<16|uint32(x)))/float32(4294967295.0) > float32(0.9) {
					board[y*w+x] = 1
				}
			}
		}
		wantSame(t, "seeded board", board, texelsU32(t, s, seeded))

		// update reads a sampled copy of a board rich enough to exercise every rule.
		for i := range board {
			board[i] = lcg(i) >> 30 & 1
		}
		asF := make([]float32, len(board))
		for i, v := range board {
			asF[i] = float32(v)
		}
		in, err := s.UploadTexture(recorder.TextureDesc{Width: w, Height: h, Format: "r32float"}, asBytesF(asF))
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.NewTexture(recorder.TextureDesc{Width: w, Height: h, Format: "r32uint"})
		if err != nil {
			t.Fatal(err)
		}
		launch(t, s, rwKernel(t, d, src, "update", nil), recorder.Groups(w/8, h/8, 1), in, out)
		want := make([]uint32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				n := uint32(0)
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						if dx != 0 || dy != 0 {
							n += board[(y+dy+h)%h*w+(x+dx+w)%w]
						}
					}
				}
				if n == 3 || n == 2 && board[y*w+x] == 1 {
					want[y*w+x] = 1
				}
			}
		}
		wantSame(t, "next generation", want, texelsU32(t, s, out))
	}},
	{"naga's precedence for operators WGSL wants parenthesised", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslNagaOperatorPrecedence
		k := rwKernel(t, d, src, "main", nil)
		ins := []uint32{0, 1, 3, 5, 8, 9, 0xF0, 0xDEADBEEF}
		buf := make([]uint32, 8*len(ins))
		want := make([]uint32, 8*len(ins))
		b2u := func(c bool) uint32 {
			if c {
				return 1
			}
			return 0
		}
		for i, a := range ins {
			buf[8*i] = a
			copy(want[8*i:], []uint32{a, a&3 | 16, a ^ a>>4, (a + 1) << 2, b2u((a < 2) == (a < 4)), a >> 1 >> 2,
				b2u(a > 0 && a < 9 || a == 0), (a % 5 * 3) ^ (a / 3) | 1})
		}
		b := upU32(t, s, buf)
		launch(t, s, k, recorder.Groups(uint32(len(ins)), 1, 1), b)
		wantSame(t, "values", want, readU32(t, s, b))
	}},
	{"tfjs-webgpu transpose: getCoordsFromIndex by uniform strides, dot of vec4<i32>, isnan by bits", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslTfjsWebgpuTranspose
		k := rwKernel(t, d, src, "_start", nil)
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
			want[o] = fb(v)
		}
		wantSame(t, "result bits", want, bitsOf(read(t, s, out)))
	}},
	{"onnxruntime-web transpose: shapes in a uniform array<vec4<u32>> indexed [i / 4][i % 4], global_idx from num_workgroups, ptr<function, array> helper", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslOnnxruntimeWebTranspose
		k := rwKernel(t, d, src, "main", nil)
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
		k := rwKernel(t, d, src, "main", nil)
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
	{"three.js-style particles in @group(1) only: vec3 + f32 packing, @size padding, @align(16) colour, struct constructor reset", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslThreeJsStyleParticlesInGroup
		k := rwKernel(t, d, src, "main", nil)
		const n = 70 // 48 bytes each; dyadic values keep every step exact
		data := make([]float32, 12*n)
		for i := 0; i < n; i++ {
			copy(data[12*i:], []float32{float32(i % 5), -float32(i % 3), 0.5, float32(i%4) * 0.25,
				0.5, float32(i%7) - 3, -0.25, 99, 0.125, 0.25, 0.5, 0.75})
		}
		want := append([]float32(nil), data...)
		const dt = 0.25
		for i := 0; i < n; i++ {
			p := want[12*i : 12*i+12]
			p[5] -= 9.5 * dt
			for c := 0; c < 3; c++ {
				p[c] += p[4+c] * dt
			}
			p[3] -= dt
			if p[3] <= 0 {
				copy(p, []float32{0, 0, 0, 1, 0, 1, 0, 0})
			}
			p[11] = p[3]
		}
		b := upload(t, s, data)
		launch(t, s, k, recorder.Groups(2, 1, 1), b, recorder.ParamsOf[float32](dt))
		// _pad is written back as the struct copy holds it: 99, or 0 after a reset.
		wantSame(t, "particles", want, read(t, s, b))
	}},
	{"WebGPU Fundamentals histogram: luminance of texels, bins = arrayLength of array<atomic<u32>>", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWebgpuFundamentalsHistogram
		k := rwKernel(t, d, src, "cs", nil)
		const w, h, nb = 7, 5, 16
		px := make([]float32, 4*w*h)
		want := make([]uint32, nb)
		for i := 0; i < w*h; i++ {
			bin := int(lcg(i) >> 28) // grey at the centre of its bin: far from any edge
			g := (float32(bin) + 0.5) / nb
			copy(px[4*i:], []float32{g, g, g, 1})
			want[bin]++
		}
		tex, err := s.UploadTexture(recorder.TextureDesc{Width: w, Height: h, Format: "rgba32float"}, asBytesF(px))
		if err != nil {
			t.Fatal(err)
		}
		bins := upU32(t, s, make([]uint32, nb))
		launch(t, s, k, recorder.Groups(8, 8, 1), bins, tex)
		wantSame(t, "bins", want, readU32(t, s, bins))
	}},
	{"WebGPU Fundamentals chunked histogram: workgroup atomics, atomicStore/atomicLoad, array<array<u32, N>>, then a strided reduce over array<array<vec4u, 4>>", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWebgpuFundamentalsChunkedHistogram
		cs := rwKernel(t, d, src, "cs", nil)
		reduce := rwKernel(t, d, src, "reduce", nil)
		const w, h = 8, 8 // four chunks of 4×4
		px := make([]float32, 4*w*h)
		want := make([]uint32, 16)
		for i := 0; i < w*h; i++ {
			bin := int(lcg(i) >> 28)
			copy(px[4*i:], []float32{(float32(bin) + 0.5) / 16, 0, 0, 1})
			want[bin]++
		}
		tex, err := s.UploadTexture(recorder.TextureDesc{Width: w, Height: h, Format: "rgba32float"}, asBytesF(px))
		if err != nil {
			t.Fatal(err)
		}
		chunks := upU32(t, s, seq(4*16, func(int) uint32 { return 0xDEAD })) // cs overwrites every count
		launch(t, s, cs, recorder.Groups(2, 2, 1), chunks, tex)
		launch(t, s, reduce, recorder.Groups(2, 1, 1), chunks, recorder.ParamsOf[uint32](1))
		launch(t, s, reduce, recorder.Groups(1, 1, 1), chunks, recorder.ParamsOf[uint32](2))
		wantSame(t, "histogram in chunk 0", want, readU32(t, s, chunks)[:16])
	}},
	{"Blelloch exclusive scan in workgroup memory with workgroupUniformLoad of the total", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslBlellochExclusiveScan
		k := rwKernel(t, d, src, "main", nil)
		in := seq(65, func(i int) uint32 { return lcg(i) >> 20 })
		want := make([]uint32, 65)
		for i := 1; i <= 64; i++ {
			want[i] = want[i-1] + in[i-1]
		}
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "scan and total", want, readU32(t, s, b))
	}},
	{"packed 4x8 integer builtins: dot4U8Packed, dot4I8Packed, pack4xI8 and friends, with abstract arguments", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslPacked4x8IntegerBuiltins
		k := rwKernel(t, d, src, "main", nil)
		a, b := uint32(0x80FF7F05), uint32(0xFE017F90)
		bytesOf := func(x uint32) [4]uint32 { return [4]uint32{x & 255, x >> 8 & 255, x >> 16 & 255, x >> 24} }
		ab, bb := bytesOf(a), bytesOf(b)
		var du uint32
		var di int32
		var p5, p6, p7, p8 uint32
		for i := 0; i < 4; i++ {
			du += ab[i] * bb[i]
			ai, bi := int32(int8(ab[i])), int32(int8(bb[i]))
			di += ai * bi
			p5 |= uint32(uint8(ai*2)) << (8 * i)
			p6 |= (bb[i] + 1) & 255 << (8 * i)
			p7 |= uint32(uint8(int8(min(127, max(-128, ai*2))))) << (8 * i)
			p8 |= min(255, bb[i]*2) << (8 * i)
		}
		b2 := upU32(t, s, []uint32{a, b, 0, 0, 0, 0, 0, 0, 0, 0})
		launch(t, s, k, recorder.Groups(1, 1, 1), b2)
		wantSame(t, "packed", []uint32{a, b, du, uint32(di), ab[0] + ab[1] + ab[2] + ab[3], p5, p6, p7, p8,
			uint32(int32(int8(ab[3]))) ^ bb[0]}, readU32(t, s, b2))
	}},
	{"let, var and const shadowing across nested scopes and a module const", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslNestedScopeShadowing
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, make([]uint32, 7))
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "values", []uint32{3, 5, 12, 200, 5, 12, 11}, readU32(t, s, b))
	}},
	{"switch with default inside a case list, a colon-less case and case lists", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslSwitchDefaultInCaseList
		k := rwKernel(t, d, src, "main", nil)
		vs := seq(9, func(i int) uint32 { return uint32(i) })
		ws := []int32{-3, -2, -1, 0, 4, 5, 4, -1, 9}
		vb, wb := upU32(t, s, vs), upI32(t, s, ws)
		launch(t, s, k, recorder.Groups(9, 1, 1), vb, wb)
		wantSame(t, "u32 switch", []uint32{10, 10, 20, 30, 20, 20, 20, 20, 20}, readU32(t, s, vb))
		wantSame(t, "i32 switch", []int32{0, -10, -10, 0, 40, 0, 40, -10, 0}, readI32(t, s, wb))
	}},
	{"overrides: one derived by division, used in a workgroup array size expression and the workgroup size", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslOverrides
		k := rwKernel(t, d, src, "main", map[string]float64{"WG": 32, "SCALE": 0.5})
		if k.WorkgroupSize() != [3]uint32{32, 1, 1} {
			t.Errorf("WorkgroupSize = %v; want [32 1 1]", k.WorkgroupSize())
		}
		in := seqF(32, func(i int) float32 { return float32(i) })
		b := upload(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		want := append([]float32(nil), in...)
		for i := 0; i < 16; i++ {
			want[i] = in[i]*0.5 + in[i+16]*0.5
		}
		wantSame(t, "v", want, read(t, s, b))
	}},
	{"aliases of arrays, nested arrays, structs and runtime arrays", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslArrayAliases
		k := rwKernel(t, d, src, "main", nil)
		in := seqF(16, func(i int) float32 { return float32(i) + 0.5 })
		want := append([]float32(nil), in...)
		for y := 0; y < 4; y++ {
			want[4*y] = float32(6 + 16*y)
			want[4*y+2], want[4*y+3] = in[4*y+3], in[4*y+2]
		}
		b := upload(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "pairs", want, read(t, s, b))
	}},
	{"i32 bit builtins: firstLeadingBit of negatives, sign-extending extractBits, insertBits with -1", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslI32BitBuiltins
		k := rwKernel(t, d, src, "main", nil)
		xs := []int32{0, -1, 1, -2, 0x12345670, -0x1234568, math.MinInt32, math.MaxInt32, 0x800}
		buf := make([]int32, 8*len(xs))
		want := make([]int32, 8*len(xs))
		for i, x := range xs {
			buf[8*i] = x
			u := uint32(x)
			flb := int32(-1)
			if x > 0 {
				flb = int32(31 - bits.LeadingZeros32(u))
			} else if x < -1 {
				flb = int32(31 - bits.LeadingZeros32(^u))
			}
			ftb := int32(-1)
			if x != 0 {
				ftb = int32(bits.TrailingZeros32(u))
			}
			uflb := int32(-1)
			if u != 0 {
				uflb = int32(31 - bits.LeadingZeros32(u))
			}
			copy(want[8*i:], []int32{x, flb, x << 20 >> 24, ftb, int32(bits.OnesCount32(u)), int32(bits.Reverse32(u)),
				int32(u&0x0FFFFFFF | 0xF0000000), uflb + int32(bits.LeadingZeros32(u))*100 + int32(bits.TrailingZeros32(u))*10000})
		}
		b := upI32(t, s, buf)
		launch(t, s, k, recorder.Groups(uint32(len(xs)), 1, 1), b)
		wantSame(t, "bits", want, readI32(t, s, b))
	}},
	{"float builtins at run time: fract, floor, round half to even, trunc, sign, saturate, fma, bitcast of a vec4", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslFloatBuiltinsAtRunTime
		k := rwKernel(t, d, src, "main", nil)
		in := []float32{-1.25, -1.5, 2.5, -3.5, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0}
		b := upload(t, s, in)
		u := empty(t, s, 8)
		launch(t, s, k, recorder.Groups(1, 1, 1), b, u)
		// x = a with x[2] += 1, then w = fma(x, 2, w): -1.25*2 - 3.5 = -6 exactly.
		wantSame(t, "floats", []float32{-1.25, -1.5, 2.5, -3.5, 0.75, -2, 2, -4, 0, -1, -1, 1, -1.25, -1.5, 3.5, -1.25 - 1.5 + 3.5 - 6},
			read(t, s, b))
		unorm := func(x float64) uint32 { return uint32(math.Floor(0.5 + 255*min(1, max(0, x)))) }
		snorm := func(x float64) uint32 { return uint32(int8(math.Floor(0.5+127*min(1, max(-1, x))))) & 0xff }
		wantSame(t, "bitcast and packs", []uint32{fb(-1.25), fb(-1.5), fb(2.5), fb(-3.5),
			unorm(0.25) | unorm(1.5)<<8 | unorm(-1)<<16 | unorm(0.75)<<24,
			snorm(-0.25) | snorm(0.5)<<8 | snorm(1)<<16 | snorm(-2)<<24,
			uint32(math.Floor(0.5+65535*0.5)) | uint32(math.Floor(0.5+65535*0.125))<<16,
			uint32(uint16(int16(math.Floor(0.5+32767*-0.5)))) | uint32(math.Floor(0.5+32767*0.25))<<16}, readU32(t, s, u))
	}},
	{"loop whose continuing reads the body's let, and break if", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslContinuingReadsBodyLet
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, []uint32{50, 0, 0})
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		acc, i := uint32(0), uint32(0)
		for {
			sq := i * i
			if sq%2 == 1 {
				acc += 1000
			} else {
				acc += sq
			}
			i++
			if sq > 50 {
				break
			}
		}
		wantSame(t, "acc and i", []uint32{50, acc, i}, readU32(t, s, b))
	}},
	{"@group(2) only: a uniform of nested struct arrays with explicit @align and @size", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslGroup
		k := rwKernel(t, d, src, "main", nil)
		// count @0; lights @16, stride 32 (color @0 sized 16, intensity @16); tail @112 sized 32; extra @144; size 160.
		u := make([]uint32, 40)
		u[0] = 3
		for i := 0; i < 3; i++ {
			copy(u[4+8*i:], []uint32{fb(9), fb(float32(i) + 0.5), fb(9), 0, fb(float32(2 * (i + 1)))})
		}
		u[28], u[29], u[36] = 7, 40, 2
		o := empty(t, s, 4)
		launch(t, s, k, recorder.Groups(1, 1, 1), recorder.Params(f32s(u...)), o)
		wantSame(t, "lights", []float32{0.5 * 2, 1.5 * 4, 2.5 * 6, 42}, read(t, s, o))
	}},
	{"an array of structs in storage laid out by @size and @align, one nested in another", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslStorageStructSizeAlign
		k := rwKernel(t, d, src, "main", nil)
		// Inner: a @0, b @4, c @32, size 48. Outer: x @0, inner @32, tail @80, size 96.
		in := seq(48, func(i int) uint32 { return uint32(1000 + i) })
		want := append([]uint32(nil), in...)
		for e := 0; e < 2; e++ {
			w := want[24*e:]
			w[20] = w[0] + w[8] + w[9] + w[17]
			w[16] = uint32(7 * e)
		}
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "structs", want, readU32(t, s, b))
	}},
	{"pointer composite access: p.member and p[i] through let pointers and pointer parameters, inside a division", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslPointerCompositeAccess
		k := rwKernel(t, d, src, "main", nil)
		data := []int32{3, -4, 5, 6, -2, -7, 0, 9}
		buf := upI32(t, s, append([]int32{0, 0, 0, 0}, data...))
		launch(t, s, k, recorder.Groups(1, 1, 1), buf)
		// bump: n = -2, v.y = -2 / -2 = 1; -7 / 0 = -7 and -7 % 0 = 0 in WGSL.
		wantSame(t, "header", []int32{8, 3 - 4 + 5 + 100, -7, 1 + 0}, readI32(t, s, buf)[:4])
	}},
	{"WGSL's edge rules: saturating float-to-int conversions, shifts modulo 32, clamped extractBits/insertBits, atomics in a struct", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWgslEdgeRules
		k := rwKernel(t, d, src, "main", nil)
		fs := upload(t, s, []float32{-1.5, 3e9, 5e9, -3e9, 7.9})
		o := upU32(t, s, append(make([]uint32, 14), 33, 4))
		cb := upU32(t, s, []uint32{10, 1, 100, 200})
		launch(t, s, k, recorder.Groups(1, 1, 1), fs, o, cb)
		// u32(-1.5) = 0; i32(3e9) = MaxInt32; u32(5e9) = MaxUint32; i32(-3e9) = MinInt32;
		// shifts by 33 shift by 1; offset 30 with count 4 extracts or inserts 2 bits.
		wantSame(t, "o", []uint32{0, math.MaxInt32, math.MaxUint32, 0x80000000, math.MaxInt32, 7, 7, 2, 0x40000000, 0xFFFFFFFC, 3, 0xC0000000, 0xFFFFFFFF, 0, 33, 4},
			readU32(t, s, o))
		// flags: 1 | 6 = 7, ^ 3 = 4, then exchanged for 9; data[0] = 10 + 4.
		wantSame(t, "counters", []uint32{15, 9, 14, 200}, readU32(t, s, cb))
	}},
	{"a module const array indexed at run time, a bool override gate, while over workgroupUniformLoad, select over vec3<bool>", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslRuntimeIndexedConstArray
		k := rwKernel(t, d, src, "main", map[string]float64{"GATE": 1})
		o := upU32(t, s, []uint32{3, 6, 0, 0, 0, 0, 0, 0})
		launch(t, s, k, recorder.Groups(1, 1, 1), o)
		// select picks (7, 2, 9); LUT[2] twice and LUT[1]; 1 + 3 + 14; i = 0, 3, 9 and n = 3;
		// m * (1, 1) = (1 + 6, ...) plus WEIGHTS[0] * 8.
		wantSame(t, "o", []uint32{3, 6, 729, 7, 80, 18, 3012, 9}, readU32(t, s, o))
	}},
	{"a let's array indexed at run time, a struct with an array returned by a helper, abs of MinInt32, workgroup vec3 array", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslRuntimeIndexedLetArray
		k := rwKernel(t, d, src, "main", nil)
		o := upI32(t, s, []int32{5, 3, 0, 0, math.MinInt32, 0, 0})
		launch(t, s, k, recorder.Groups(1, 1, 1), o)
		wantSame(t, "o", []int32{5, 3, 5*3 + 4 + 5*2, math.MinInt32, math.MinInt32, 3 + 2, 59}, readI32(t, s, o))
	}},
	{"arrayLength of a runtime array inside a struct, directly and through a let pointer", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslArrayLengthInStruct
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, append(make([]uint32, 4), seq(13, func(i int) uint32 { return fb(float32(i)) })...))
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "header", []uint32{13, 13, 12, 0}, readU32(t, s, b)[:4])
	}},
	{"wgpu boids: struct arrays, loop with continue and continuing, distance, normalize; tolerance for the square roots", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWgpuBoids
		k := rwKernel(t, d, src, "main", nil)
		const n = 96
		par := []float32{0.04, 0.1, 0.025, 0.025, 0.02, 0.05, 0.005}
		ps := make([]float32, 4*n)
		for i := 0; i < n; i++ {
			// a 12×8 lattice 0.06 apart, jittered: neighbours sit well inside or outside each rule's radius.
			ps[4*i] = -0.99 + 0.06*float32(i%12) + float32(lcg(i)>>24)/25600
			ps[4*i+1] = -0.3 + 0.06*float32(i/12) + float32(lcg(i+n)>>24)/25600
			ps[4*i+2] = float32(int(lcg(i+2*n)>>24)-128) / 1280
			ps[4*i+3] = float32(int(lcg(i+3*n)>>24)-128) / 1280
		}
		want := make([]float32, 4*n)
		dist := func(ax, ay, bx, by float32) float32 {
			return float32(math.Hypot(float64(ax-bx), float64(ay-by)))
		}
		for i := 0; i < n; i++ {
			px, py, vx, vy := ps[4*i], ps[4*i+1], ps[4*i+2], ps[4*i+3]
			var cmx, cmy, cvx, cvy, colx, coly float32
			cm, cv := 0, 0
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				qx, qy := ps[4*j], ps[4*j+1]
				dd := dist(qx, qy, px, py)
				if dd < par[1] {
					cmx, cmy, cm = cmx+qx, cmy+qy, cm+1
				}
				if dd < par[2] {
					colx, coly = colx-(qx-px), coly-(qy-py)
				}
				if dd < par[3] {
					cvx, cvy, cv = cvx+ps[4*j+2], cvy+ps[4*j+3], cv+1
				}
			}
			if cm > 0 {
				cmx, cmy = cmx*(1/float32(cm))-px, cmy*(1/float32(cm))-py
			}
			if cv > 0 {
				cvx, cvy = cvx*(1/float32(cv)), cvy*(1/float32(cv))
			}
			vx = vx + cmx*par[4] + colx*par[5] + cvx*par[6]
			vy = vy + cmy*par[4] + coly*par[5] + cvy*par[6]
			l := float32(math.Hypot(float64(vx), float64(vy)))
			c := min(max(l, 0), 0.1)
			vx, vy = vx/l*c, vy/l*c
			px, py = px+vx*par[0], py+vy*par[0]
			if px < -1 {
				px = 1
			}
			if px > 1 {
				px = -1
			}
			if py < -1 {
				py = 1
			}
			if py > 1 {
				py = -1
			}
			copy(want[4*i:], []float32{px, py, vx, vy})
		}
		dst := empty(t, s, 4*n)
		launch(t, s, k, recorder.Groups(2, 1, 1), recorder.ParamsOf(par...), upload(t, s, ps), dst)
		// distance, length and normalize take square roots, which Vulkan and
		// GL allow to be a few ulp off; everything else is f32 arithmetic.
		wantSame(t, "particles", want, read(t, s, dst), near(1e-6))
	}},
}

// TestPointerArgumentIntoPartOfAVariableIsRefusedNotFatal: &a[i] or &s.m as
// a pointer argument needs WGSL's unrestricted_pointer_parameters, which
// the bundled compiler lacks and, unchecked, aborts the process on. Kernel
// refuses it with a *CompileError and the device keeps working. Run in a
// fresh process, so a regression is this test's failure, not the suite's.
func TestPointerArgumentIntoPartOfAVariableIsRefusedNotFatal(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := openStream(t)
		for _, arg := range []string{"&a[1]", "&st.y", "q"} {
			src := `@group(0) @binding(0) var<storage, read_write> o: array<f32>;
struct S { x: f32, y: f32 }
fn setf(p: ptr<function, f32>) { *p = 9.0; }
@compute @workgroup_size(1)
fn main() {
  var a = array<f32, 2>(1.0, 2.0);
  var st = S(1.0, 2.0);
  let q = &a[0];
  setf(` + arg + `);
  o[0] = a[0] + a[1] + st.y;
}`
			_, err := d.Kernel(src, "main")
			var ce *wgpu.CompileError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "points into part of a variable ("+arg+")") {
				t.Errorf("Kernel(setf(%s)) = %v; want a *CompileError saying the argument points into part of a variable", arg, err)
			}
		}
		k := rwKernel(t, d, "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n"+
			"fn setu(p: ptr<function, u32>) { *p = 7u; }\n@compute @workgroup_size(1) fn main() { var x = 0u; setu(&x); o[0] = x; }", "main", nil)
		b := empty(t, s, 1)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "a kernel passing a whole variable, compiled after the refusals", []uint32{7}, readU32(t, s, b))
	})
}
