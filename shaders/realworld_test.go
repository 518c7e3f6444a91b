package shaders_test

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// The real-world suite: compute shaders of the kinds public samples carry
// (boids, life, blur, sorts, scans, histograms, matmuls, FFT, N-body),
// written in the unusual-but-valid WGSL those samples use — attributes in
// any order with trailing commas, abstract literals in every position,
// overrides in workgroup sizes and workgroup array sizes, function-scope
// consts, pointer parameters, atomics, builtins in structs, several entry
// points, sparse bind groups, textures — each compiled by dev.Kernel, run
// on the adapter and compared with a Go reference: bit for bit, or within
// a stated tolerance where the GPU evaluates a transcendental function.

// rwKernel compiles entry of src with constants, failing the test with the
// compiler's diagnostic.
func rwKernel(t *testing.T, d *wgpu.Device, src, entry string, constants map[string]float64) *wgpu.Kernel {
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

type rwCase struct {
	name string
	run  func(t *testing.T, d *wgpu.Device, s *recorder.Stream)
}

// TestRealWorldShadersComputeLikeTheirReference: every kernel of the
// suite compiles as written and computes what its Go reference does. A
// refusal names the construct the front-end or the compiler could not
// read; a difference is a mis-specialisation.
func TestRealWorldShadersComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	for _, tc := range realWorldCases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, d, s) })
	}
}

//go:embed testdata/wgsl/add_one_reordered_attributes.wgsl
var wgslAddOneReorderedAttributes string

//go:embed testdata/wgsl/saxpy_aliased_uniform.wgsl
var wgslSaxpyAliasedUniform string

//go:embed testdata/wgsl/game_of_life_select.wgsl
var wgslGameOfLifeSelect string

//go:embed testdata/wgsl/boids_like_particles.wgsl
var wgslBoidsLikeParticles string

//go:embed testdata/wgsl/histogram.wgsl
var wgslHistogram string

//go:embed testdata/wgsl/tree_reduction_override.wgsl
var wgslTreeReductionOverride string

//go:embed testdata/wgsl/inclusive_prefix_scan.wgsl
var wgslInclusivePrefixScan string

//go:embed testdata/wgsl/workgroup_bitonic_sort.wgsl
var wgslWorkgroupBitonicSort string

//go:embed testdata/wgsl/radix_sort_digit_pass.wgsl
var wgslRadixSortDigitPass string

//go:embed testdata/wgsl/naive_matmul_uniform_dims.wgsl
var wgslNaiveMatmulUniformDims string

//go:embed testdata/wgsl/workgroup_tiled_matmul.wgsl
var wgslWorkgroupTiledMatmul string

//go:embed testdata/wgsl/workgroup_tile_transpose.wgsl
var wgslWorkgroupTileTranspose string

//go:embed testdata/wgsl/box_blur_texture.wgsl
var wgslBoxBlurTexture string

//go:embed testdata/wgsl/storage_texture_gradient.wgsl
var wgslStorageTextureGradient string

//go:embed testdata/wgsl/texture_sample_level_nearest.wgsl
var wgslTextureSampleLevelNearest string

//go:embed testdata/wgsl/radix2_fft16.wgsl
var wgslRadix2Fft16 string

//go:embed testdata/wgsl/n_body_step.wgsl
var wgslNBodyStep string

//go:embed testdata/wgsl/atomic_float_max.wgsl
var wgslAtomicFloatMax string

//go:embed testdata/wgsl/atomic_i32_negative_operands.wgsl
var wgslAtomicI32NegativeOperands string

//go:embed testdata/wgsl/workgroup_uniform_load_broadcast.wgsl
var wgslWorkgroupUniformLoadBroadcast string

//go:embed testdata/wgsl/three_entry_points.wgsl
var wgslThreeEntryPoints string

//go:embed testdata/wgsl/only_group.wgsl
var wgslOnlyGroup string

//go:embed testdata/wgsl/sparse_bindings.wgsl
var wgslSparseBindings string

//go:embed testdata/wgsl/overrides_2.wgsl
var wgslOverrides2 string

//go:embed testdata/wgsl/pointer_parameters.wgsl
var wgslPointerParameters string

//go:embed testdata/wgsl/const_expressions.wgsl
var wgslConstExpressions string

//go:embed testdata/wgsl/abstract_literal_operands.wgsl
var wgslAbstractLiteralOperands string

//go:embed testdata/wgsl/switch_case_lists.wgsl
var wgslSwitchCaseLists string

//go:embed testdata/wgsl/loop_continuing_nested_exit.wgsl
var wgslLoopContinuingNestedExit string

//go:embed testdata/wgsl/let_shadowing.wgsl
var wgslLetShadowing string

//go:embed testdata/wgsl/builtins_input_struct.wgsl
var wgslBuiltinsInputStruct string

//go:embed testdata/wgsl/bit_builtins_abstract_offsets.wgsl
var wgslBitBuiltinsAbstractOffsets string

//go:embed testdata/wgsl/directives_and_local_const.wgsl
var wgslDirectivesAndLocalConst string

//go:embed testdata/wgsl/matrices.wgsl
var wgslMatrices string

//go:embed testdata/wgsl/pack_and_unpack_builtins.wgsl
var wgslPackAndUnpackBuiltins string

//go:embed testdata/wgsl/i32_division_and_shift.wgsl
var wgslI32DivisionAndShift string

//go:embed testdata/wgsl/transcendentals.wgsl
var wgslTranscendentals string

//go:embed testdata/wgsl/private_lookup_table.wgsl
var wgslPrivateLookupTable string

//go:embed testdata/wgsl/stream_compaction.wgsl
var wgslStreamCompaction string

//go:embed testdata/wgsl/softmax_of_a_row.wgsl
var wgslSoftmaxOfARow string

//go:embed testdata/wgsl/onnx_elementwise_vec4.wgsl
var wgslOnnxElementwiseVec4 string

//go:embed testdata/wgsl/cornell_box_style_accumulation.wgsl
var wgslCornellBoxStyleAccumulation string

//go:embed testdata/wgsl/texture_3d_load.wgsl
var wgslTexture3dLoad string

var realWorldCases = []rwCase{
	{"add one, attributes reordered with trailing commas and comments everywhere", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslAddOneReorderedAttributes
		k := rwKernel(t, d, src, "main", nil)
		in := seqF(200, func(i int) float32 { return float32(i) * 0.5 })
		a, b := upload(t, s, in), empty(t, s, 200)
		launch(t, s, k, recorder.Groups(4, 1, 1), a, b)
		wantSame(t, "dst", seqF(200, func(i int) float32 { return in[i] + 1 }), read(t, s, b))
	}},
	{"saxpy with an aliased uniform struct and an untyped override", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslSaxpyAliasedUniform
		k := rwKernel(t, d, src, "saxpy", map[string]float64{"WG": 16})
		if k.WorkgroupSize() != [3]uint32{16, 1, 1} {
			t.Errorf("WorkgroupSize = %v; want [16 1 1] from the constant", k.WorkgroupSize())
		}
		xs := seqF(100, func(i int) float32 { return float32(i) })
		ys := seqF(100, func(i int) float32 { return float32(2 * i) })
		params := recorder.Params(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, math.Float32bits(3)), 100))
		yb := upload(t, s, ys)
		launch(t, s, k, recorder.Groups(7, 1, 1), params, upload(t, s, xs), yb)
		wantSame(t, "y", seqF(100, func(i int) float32 { return 3*xs[i] + ys[i] }), read(t, s, yb))
	}},
	{"game of life with select, abstract literals and let shadowing", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslGameOfLifeSelect
		k := rwKernel(t, d, src, "life", nil)
		const w = 16
		grid := seq(w*w, func(i int) uint32 { return lcg(i) >> 31 })
		want := make([]uint32, w*w)
		for y := 0; y < w; y++ {
			for x := 0; x < w; x++ {
				n := uint32(0)
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						if dx != 0 || dy != 0 {
							n += grid[((y+dy+w)%w)*w+(x+dx+w)%w]
						}
					}
				}
				if n == 3 || grid[y*w+x] == 1 && n == 2 {
					want[y*w+x] = 1
				}
			}
		}
		out := empty(t, s, w*w)
		launch(t, s, k, recorder.Groups(2, 2, 1), upU32(t, s, grid), out)
		wantSame(t, "next generation", want, readU32(t, s, out))
	}},
	{"boids-like particles: struct with a runtime-sized array last, uniform dt", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslBoidsLikeParticles
		k := rwKernel(t, d, src, "step", nil)
		const n = 50
		data := make([]float32, 4+4*n) // count (and padding to 8), then 50 × {pos, vel}
		data[0] = math.Float32frombits(n)
		for i := 0; i < n; i++ {
			copy(data[2+4*i:], []float32{float32(i%10) - 5, float32(i%7) - 3, float32(i%3) - 1, 1 - float32(i%5)*0.5})
		}
		want := slices.Clone(data)
		for i := 0; i < n; i++ {
			p := want[2+4*i : 2+4*i+4]
			for c := 0; c < 2; c++ {
				p[c] += p[2+c] * 0.5
				if math.Abs(float64(p[c])) > 4 {
					p[2+c] = -p[2+c]
				}
				p[c] = max(-4, min(4, p[c]))
			}
		}
		b := upload(t, s, data[:2+4*n])
		launch(t, s, k, recorder.Groups(1, 1, 1), recorder.ParamsOf[float32](0.5, 4), b)
		wantSame(t, "particles", want[:2+4*n], read(t, s, b))
	}},
	{"histogram: workgroup atomics sized by an override, then global atomicAdd", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslHistogram
		k := rwKernel(t, d, src, "main", map[string]float64{"7": 64, "BINS": 32})
		vals := seq(1000, func(i int) uint32 { return lcg(i) >> 7 })
		want := make([]uint32, 32)
		for _, v := range vals {
			want[v%32]++
		}
		h := upU32(t, s, make([]uint32, 32))
		launch(t, s, k, recorder.Groups(16, 1, 1), upU32(t, s, vals), h)
		wantSame(t, "histogram", want, readU32(t, s, h))
	}},
	{"tree reduction with an override workgroup size and shift-assign", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslTreeReductionOverride
		k := rwKernel(t, d, src, "reduce", map[string]float64{"BLOCK": 64})
		in := seq(64*8, func(i int) uint32 { return lcg(i) >> 12 })
		want := make([]uint32, 8)
		for i, v := range in {
			want[i/64] += v
		}
		out := empty(t, s, 8)
		launch(t, s, k, recorder.Groups(8, 1, 1), upU32(t, s, in), out)
		wantSame(t, "block sums", want, readU32(t, s, out))
	}},
	{"inclusive prefix scan (Hillis-Steele) with double buffering in workgroup memory", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslInclusivePrefixScan
		k := rwKernel(t, d, src, "scan", nil)
		in := seq(256, func(i int) uint32 { return lcg(i) >> 20 })
		want := slices.Clone(in)
		for i := 1; i < len(want); i++ {
			want[i] += want[i-1]
		}
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "prefix sums", want, readU32(t, s, b))
	}},
	{"bitonic sort of one workgroup with a helper over workgroup memory", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWorkgroupBitonicSort
		k := rwKernel(t, d, src, "sort", nil)
		in := seq(128, func(i int) uint32 { return lcg(i*7) >> 8 })
		want := slices.Clone(in)
		slices.Sort(want)
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "sorted keys", want, readU32(t, s, b))
	}},
	{"radix sort digit pass: count, scan and scatter in one workgroup", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslRadixSortDigitPass
		k := rwKernel(t, d, src, "main", nil)
		in := seq(64, func(i int) uint32 { return lcg(i) })
		want := slices.Clone(in)
		sort.SliceStable(want, func(a, b int) bool { return (want[a]>>4)&15 < (want[b]>>4)&15 })
		out := empty(t, s, 64)
		launch(t, s, k, recorder.Groups(1, 1, 1), recorder.ParamsOf[uint32](4, 0, 0, 0), upU32(t, s, in), out)
		wantSame(t, "keys after the digit pass", want, readU32(t, s, out))
	}},
	{"naive matmul with dimensions in a uniform and vec3u builtins", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslNaiveMatmulUniformDims
		k := rwKernel(t, d, src, "matmul", nil)
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
			k := rwKernel(t, d, src, "main", map[string]float64{"TILE": tile})
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
		k := rwKernel(t, d, src, "transpose", nil)
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
	{"box blur over a texture_2d<f32> with textureLoad and clamped coordinates", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslBoxBlurTexture
		k := rwKernel(t, d, src, "blur", nil)
		const w, h = 8, 6
		pix := seqF(w*h, func(i int) float32 { return float32(lcg(i) >> 28) })
		tex, err := s.UploadTexture(recorder.TextureDesc{Width: w, Height: h, Format: "r32float"}, asBytesF(pix))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						want[y*w+x] += pix[min(max(y+dy, 0), h-1)*w+min(max(x+dx, 0), w-1)]
					}
				}
			}
		}
		out := empty(t, s, w*h)
		launch(t, s, k, recorder.Groups(2, 2, 1), tex, out)
		wantSame(t, "blurred sums", want, read(t, s, out))
	}},
	{"texture_storage_2d write of a gradient, read back as texels", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslStorageTextureGradient
		k := rwKernel(t, d, src, "main", nil)
		tex, err := s.NewTexture(recorder.TextureDesc{Width: 12, Height: 9, Format: "r32uint"})
		if err != nil {
			t.Fatal(err)
		}
		launch(t, s, k, recorder.Groups(2, 2, 1), tex)
		raw, err := s.ReadTexture(tex)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, 12*9)
		for i := range got {
			got[i] = binary.LittleEndian.Uint32(raw[4*i:])
		}
		wantSame(t, "texels", seq(12*9, func(i int) uint32 { return uint32(i%12*100 + i/12) }), got)
	}},
	{"textureSampleLevel with a nearest sampler at texel centres", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslTextureSampleLevelNearest
		k := rwKernel(t, d, src, "main", nil)
		texels := make([]byte, 4*4*4)
		for i := range texels {
			texels[i] = byte(lcg(i) >> 24)
		}
		tex, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8unorm"}, texels)
		if err != nil {
			t.Fatal(err)
		}
		smp, err := s.NewSampler(recorder.SamplerDesc{})
		if err != nil {
			t.Fatal(err)
		}
		out := empty(t, s, 4*16)
		launch(t, s, k, recorder.Groups(1, 1, 1), smp, tex, out)
		wantSame(t, "sampled texels", seqF(64, func(i int) float32 { return float32(texels[i]) / 255 }), read(t, s, out), near(1e-6))
	}},
	{"radix-2 FFT of 16 points with complex vec2 and a ptr<function> array", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslRadix2Fft16
		k := rwKernel(t, d, src, "main", nil)
		in := seqF(32, func(i int) float32 {
			if i%2 == 1 {
				return 0
			}
			return float32(math.Sin(float64(i)/3)) + float32(i%4)
		})
		want := make([]float32, 32)
		for f := 0; f < 16; f++ {
			var re, im float64
			for n := 0; n < 16; n++ {
				a := -2 * math.Pi * float64(f*n) / 16
				re += float64(in[2*n]) * math.Cos(a)
				im += float64(in[2*n]) * math.Sin(a)
			}
			want[2*f], want[2*f+1] = float32(re), float32(im)
		}
		b := upload(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		// sin and cos on the GPU: WGSL's accuracy for them is absolute
		// 2^-11 in [-π, π]; summed over 16 points of magnitude < 5.
		wantSame(t, "spectrum", want, read(t, s, b), near(0.05))
	}},
	{"N-body step: inverseSqrt with a softening override, tolerance for the transcendental", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslNBodyStep
		k := rwKernel(t, d, src, "main", nil)
		const n = 40
		bs := make([]float32, 8*n)
		for i := 0; i < n; i++ {
			copy(bs[8*i:], []float32{float32(i % 5), float32(i % 7), float32(i % 3), 1 + float32(i%2)})
		}
		want := make([]float32, 4*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i == j {
					continue
				}
				var r [3]float64
				d2 := 0.0
				for c := 0; c < 3; c++ {
					r[c] = float64(bs[8*j+c] - bs[8*i+c])
					d2 += r[c] * r[c]
				}
				inv := 1 / math.Sqrt(d2+float64(float32(0.01)))
				for c := 0; c < 3; c++ {
					want[4*i+c] += float32(float64(bs[8*j+3]) * r[c] * inv * inv * inv)
				}
			}
		}
		out := empty(t, s, 4*n)
		launch(t, s, k, recorder.Groups(2, 1, 1), upload(t, s, bs), out)
		// inverseSqrt: WGSL allows 2 ULP; relative 1e-4 covers the sum.
		wantSame(t, "accelerations", want, read(t, s, out), near(1e-3))
	}},
	{"atomicCompareExchangeWeak loop builds an atomic float max", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslAtomicFloatMax
		if d.Info().Backend == wgpu.BackendGL {
			// naga v22's GLSL writer has no spelling for the result struct
			// of atomicCompareExchangeWeak; the kernel must be refused with
			// that diagnostic, not abort the process.
			if _, err := d.Kernel(src, "main"); err == nil {
				t.Fatal("Kernel compiled atomicCompareExchangeWeak on OpenGL; this test expects naga v22's refusal — run the comparison")
			} else {
				t.Skipf("OpenGL: naga v22 cannot write atomicCompareExchangeWeak's result struct in GLSL (%.80s...)", err)
			}
		}
		k := rwKernel(t, d, src, "main", nil)
		xs := seqF(300, func(i int) float32 { return float32(lcg(i)>>8) / 1000 })
		best := upU32(t, s, []uint32{0})
		launch(t, s, k, recorder.Groups(5, 1, 1), upload(t, s, xs), best)
		wantSame(t, "max", []uint32{math.Float32bits(slices.Max(xs))}, readU32(t, s, best))
	}},
	{"atomicMax, atomicMin and atomicSub on i32 with negative abstract operands", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		// Each invocation's atomicLoad must see its own atomicOr; the
		// exchange stores one value every invocation agrees on (an exchange
		// of a loaded value would race with the other invocations' ors).
		src := wgslAtomicI32NegativeOperands
		k := rwKernel(t, d, src, "main", nil)
		xs := make([]int32, 64)
		for i := range xs {
			xs[i] = int32(lcg(i)) >> 4
		}
		st := upI32(t, s, []int32{math.MinInt32, math.MaxInt32, 0, 0, 0, 0})
		launch(t, s, k, recorder.Groups(2, 1, 1), upI32(t, s, xs), st)
		wantSame(t, "stats", []int32{slices.Max(xs), slices.Min(xs), -64, -1, 64, 0x55}, readI32(t, s, st))
	}},
	{"workgroupUniformLoad broadcasts a value chosen by one invocation", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWorkgroupUniformLoadBroadcast
		k := rwKernel(t, d, src, "main", nil)
		in := seq(96, func(i int) uint32 { return uint32(i) })
		want := seq(96, func(i int) uint32 { return uint32(i) + uint32(i/32*32)*2 })
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(3, 1, 1), b)
		wantSame(t, "data", want, readU32(t, s, b))
	}},
	{"one module, three entry points with different bindings, each picked", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslThreeEntryPoints
		fa := rwKernel(t, d, src, "fillA", nil)
		sb := rwKernel(t, d, src, "scaleB", nil)
		ab := rwKernel(t, d, src, "addAB", nil)
		wantSame(t, "fillA bindings", 1, len(fa.Bindings()))
		wantSame(t, "scaleB bindings", 2, len(sb.Bindings()))
		wantSame(t, "addAB bindings", 3, len(ab.Bindings()))
		A, B := empty(t, s, 32), upU32(t, s, seq(32, func(i int) uint32 { return 3 }))
		kv := recorder.ParamsOf[uint32](5, 7, 0, 0)
		launch(t, s, fa, recorder.Groups(2, 1, 1), A)
		launch(t, s, sb, recorder.Groups(2, 1, 1), B, kv)
		launch(t, s, ab, recorder.Groups(2, 1, 1), A, B, kv)
		wantSame(t, "a", seq(32, func(i int) uint32 { return uint32(i) + 15 + 7 }), readU32(t, s, A))
	}},
	{"only @group(1) bindings", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslOnlyGroup
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, seq(8, func(i int) uint32 { return uint32(i) }))
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "squares", seq(8, func(i int) uint32 { return uint32(i * i) }), readU32(t, s, b))
	}},
	{"sparse bindings across groups 0 and 2, and an unused declared binding", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslSparseBindings
		k := rwKernel(t, d, src, "main", nil)
		var names []string
		for _, b := range k.Bindings() {
			names = append(names, b.Name)
		}
		wantSame(t, "launch order", []string{"x", "y", "add"}, names)
		y := empty(t, s, 4)
		launch(t, s, k, recorder.Groups(1, 1, 1), upU32(t, s, []uint32{1, 2, 3, 4}), y, recorder.ParamsOf[uint32](10))
		wantSame(t, "y", []uint32{11, 12, 13, 14}, readU32(t, s, y))
	}},
	{"overrides: bool gate, f32 default, @id without default, one depending on another", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslOverrides2
		for _, tc := range []struct {
			c    map[string]float64
			want func(float32) float32
		}{
			{map[string]float64{"12": 3}, func(x float32) float32 { return x*2 + 7 }},
			{map[string]float64{"0": 1, "offset": -1, "scale": 0.5}, func(x float32) float32 { return x*x*0.5 - 1 }},
		} {
			k := rwKernel(t, d, src, "main", tc.c)
			in := []float32{1, 2, 3, 4}
			b := upload(t, s, in)
			launch(t, s, k, recorder.Groups(1, 1, 1), b)
			wantSame(t, "v", seqF(4, func(i int) float32 { return tc.want(in[i]) }), read(t, s, b))
		}
	}},
	{"pointer parameters: ptr<function> and ptr<private>", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslPointerParameters
		k := rwKernel(t, d, src, "main", nil)
		out := empty(t, s, 4)
		launch(t, s, k, recorder.Groups(1, 1, 1), out)
		total := uint32(13 + 14 + 15 + 16)
		wantSame(t, "out", []uint32{total, total, total, total}, readU32(t, s, out))
	}},
	{"const expressions: sizes, masks and shifts written as expressions", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslConstExpressions
		k := rwKernel(t, d, src, "main", nil)
		wantSame(t, "workgroup size", [3]uint32{8, 1, 1}, k.WorkgroupSize())
		out := empty(t, s, 17)
		launch(t, s, k, recorder.Groups(1, 1, 1), out)
		want := make([]uint32, 17)
		for i := uint32(0); i < 8; i++ {
			want[i] = (i*37)&15 + i<<2
		}
		want[16] = 17
		wantSame(t, "out", want, readU32(t, s, out))
	}},
	{"abstract literals in select, min, max, clamp, vector constructors, returns and arguments", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslAbstractLiteralOperands
		k := rwKernel(t, d, src, "main", nil)
		ub := upU32(t, s, []uint32{9, 7, 1, 0, 0, 0})
		fb := upload(t, s, []float32{-2, 0.25, 4, -1})
		launch(t, s, k, recorder.Groups(1, 1, 1), ub, fb)
		wantSame(t, "u", []uint32{20, 3, 4, 42, 3, 9}, readU32(t, s, ub))
		wantSame(t, "f", []float32{0, 2.5, 1, 9}, read(t, s, fb), near(1e-6))
	}},
	{"switch with case lists, trailing commas, default in the middle, and a const selector", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslSwitchCaseLists
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, []uint32{0, 1, 2, 3, 4, 5, 2, 9})
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "v", []uint32{100, 100, 200, 300, 300, 999, 200, 1000}, readU32(t, s, b))
	}},
	{"loop with continuing and break if, while, and a labelled-like nested exit", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslLoopContinuingNestedExit
		k := rwKernel(t, d, src, "collatz", nil)
		in := seq(16, func(i int) uint32 { return uint32(i + 1) })
		want := make([]uint32, 16)
		for i, n := range in {
			steps := uint32(0)
			for n > 1 && steps < 1000 {
				if n%2 == 0 {
					n /= 2
				} else {
					n = 3*n + 1
				}
				steps++
			}
			want[i] = steps + 3
		}
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "steps", want, readU32(t, s, b))
	}},
	{"let shadowing in nested blocks and of a module-scope name", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslLetShadowing
		k := rwKernel(t, d, src, "main", nil)
		out := empty(t, s, 5)
		launch(t, s, k, recorder.Groups(1, 1, 1), out)
		wantSame(t, "out", []uint32{100, 1, 11, 23, 1}, readU32(t, s, out))
	}},
	{"builtins gathered in an input struct, 2D dispatch and num_workgroups", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslBuiltinsInputStruct
		k := rwKernel(t, d, src, "main", nil)
		out := empty(t, s, 4*6*4)
		launch(t, s, k, recorder.Groups(3, 2, 1), out)
		want := make([]uint32, 4*6*4)
		for y := 0; y < 4; y++ {
			for x := 0; x < 6; x++ {
				lx, ly := x%2, y%2
				copy(want[4*(y*6+x):], []uint32{uint32(x / 2), uint32(y / 2), uint32(lx*10 + ly), uint32(ly*2+lx) + 200})
			}
		}
		wantSame(t, "ids", want, readU32(t, s, out))
	}},
	{"bit builtins with abstract offsets and counts", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslBitBuiltinsAbstractOffsets
		k := rwKernel(t, d, src, "main", nil)
		x := uint32(0x12345670)
		b := upU32(t, s, []uint32{x, 0, 0, 0, 0, 0, 0})
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		want := []uint32{x, uint32(bits.OnesCount32(x)), bits.Reverse32(x), (x >> 4) & 0xff, x&^0xff00 | 0xab00,
			uint32(31-bits.LeadingZeros32(x)) + uint32(bits.TrailingZeros32(x))*100, uint32(bits.LeadingZeros32(x >> 3))}
		wantSame(t, "bits", want, readU32(t, s, b))
	}},
	{"directives, const_assert, @must_use, @diagnostic and function-scope const", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslDirectivesAndLocalConst
		k := rwKernel(t, d, src, "main", nil)
		out := empty(t, s, 8)
		launch(t, s, k, recorder.Groups(1, 1, 1), out)
		wantSame(t, "out", seq(8, func(i int) uint32 { return uint32(i*i + 7) }), readU32(t, s, out))
	}},
	{"matrices: mat4x4 times vec4 and mat2x3 built from abstract literals", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslMatrices
		k := rwKernel(t, d, src, "main", nil)
		ms := seqF(64, func(i int) float32 { return float32(i%9) - 4 })
		vs := seqF(16, func(i int) float32 { return float32(i%4) + 1 })
		want := make([]float32, 16)
		for n := 0; n < 4; n++ {
			for r := 0; r < 4; r++ {
				for c := 0; c < 4; c++ {
					want[4*n+r] += ms[16*n+4*c+r] * vs[4*n+c]
				}
			}
			e := []float32{5, 7, 9, 1}
			for r := 0; r < 4; r++ {
				want[4*n+r] += e[r]
			}
		}
		b := upload(t, s, vs)
		launch(t, s, k, recorder.Groups(1, 1, 1), upload(t, s, ms), b)
		wantSame(t, "products", want, read(t, s, b))
	}},
	{"pack and unpack builtins", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslPackAndUnpackBuiltins
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, []uint32{0x11223344, 0, 0x3c004000, 0}) // halves 2.0 (low) and 1.0 (high)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "packed", []uint32{0x11223344, 0x44332211, 0x3c004000, 0x40004400}, readU32(t, s, b))
	}},
	{"i32 division, remainder and arithmetic shift follow WGSL", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslI32DivisionAndShift
		k := rwKernel(t, d, src, "main", nil)
		in := []int32{-7, -6, -1, 0, 1, 5, 7, -100}
		b := upI32(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		want := make([]int32, 8)
		for i, x := range in {
			want[i] = x/3*1000 + x%3*100 + x>>1
		}
		// Every input on every backend: on OpenGL, where GLSL's % is
		// undefined for negative operands, the front-end rewrites i32 %.
		wantSame(t, "v", want, readI32(t, s, b))
	}},
	{"transcendentals within WGSL's accuracy", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslTranscendentals
		k := rwKernel(t, d, src, "main", nil)
		in := seqF(16, func(i int) float32 { return float32(i)/4 - 2 })
		want := seqF(16, func(i int) float32 {
			x := float64(in[i])
			return float32(math.Exp(x*0.5) + math.Sin(x)*math.Cos(x) + math.Sqrt(math.Abs(x)) + math.Log2(x*x+1) + math.Tanh(x))
		})
		b := upload(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "v", want, read(t, s, b), near(1e-3))
	}},
	{"var<private> lookup table initialised with an array constructor, module const array", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslPrivateLookupTable
		k := rwKernel(t, d, src, "main", nil)
		out := empty(t, s, 4)
		launch(t, s, k, recorder.Groups(1, 1, 1), out)
		wantSame(t, "v", []uint32{40, 60, 80, 80}, readU32(t, s, out))
	}},
	{"stream compaction with a workgroup atomic counter and vec4<bool> any/all", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslStreamCompaction
		k := rwKernel(t, d, src, "main", nil)
		xs := make([]int32, 256)
		for i := range xs {
			xs[i] = int32(lcg(i)>>29) - 5
		}
		var want []uint32
		for i := 0; i < 64; i++ {
			v := xs[4*i : 4*i+4]
			if slices.Min(v) > -5 && slices.Contains(v, 0) {
				want = append(want, uint32(i))
			}
		}
		keep, cnt := empty(t, s, 64), empty(t, s, 1)
		launch(t, s, k, recorder.Groups(1, 1, 1), upI32(t, s, xs), keep, cnt)
		c := readU32(t, s, cnt)[0]
		got := slices.Sorted(slices.Values(readU32(t, s, keep)[:min(c, 64)]))
		wantSame(t, "kept indices", want, got, cmpopts.EquateEmpty())
	}},
	{"softmax of a row: workgroup max and sum reductions, exp within tolerance", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslSoftmaxOfARow
		k := rwKernel(t, d, src, "softmax", nil)
		in := seqF(64, func(i int) float32 { return float32(lcg(i)>>26) / 8 })
		m := slices.Max(in)
		var sum float64
		for _, x := range in {
			sum += math.Exp(float64(x - m))
		}
		want := seqF(64, func(i int) float32 { return float32(math.Exp(float64(in[i]-m)) / sum) })
		b := upload(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "softmax", want, read(t, s, b), near(1e-4))
	}},
	{"onnx-style elementwise kernel with vec4 loads, a uniform of i32 and u32, and for-loop strides", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslOnnxElementwiseVec4
		k := rwKernel(t, d, src, "main", nil)
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
	{"cornell-box-style accumulation: hash-based random numbers in u32, written into a storage texture", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslCornellBoxStyleAccumulation
		k := rwKernel(t, d, src, "main", nil)
		tex, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba32float"})
		if err != nil {
			t.Fatal(err)
		}
		launch(t, s, k, recorder.Groups(1, 1, 1), tex)
		raw, err := s.ReadTexture(tex)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, 64)
		for y := uint32(0); y < 4; y++ {
			for x := uint32(0); x < 4; x++ {
				seed := y*1000 + x
				rand := func() float32 {
					seed = seed*747796405 + 2891336453
					word := ((seed >> ((seed >> 28) + 4)) ^ seed) * 277803737
					return float32((word>>22)^word) / 4294967296.0
				}
				var c [3]float32
				for i := 0; i < 4; i++ {
					for ch := 0; ch < 3; ch++ {
						c[ch] += rand()
					}
				}
				p := want[4*(y*4+x):]
				for ch := 0; ch < 3; ch++ {
					p[ch] = float32(math.Floor(float64(c[ch] * 16)))
				}
				p[3] = 1
			}
		}
		got := make([]float32, 64)
		for i := range got {
			got[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		wantSame(t, "accumulated", want, got)
	}},
	{"a 3D dispatch over a texture_3d with textureLoad", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslTexture3dLoad
		k := rwKernel(t, d, src, "main", nil)
		vals := seq(4*4*2, func(i int) uint32 { return lcg(i) >> 16 })
		tex, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 4, Depth: 2, Format: "r32uint"}, asBytesU(vals))
		if err != nil {
			t.Fatal(err)
		}
		out := empty(t, s, 32)
		launch(t, s, k, recorder.Groups(2, 2, 1), tex, out)
		wantSame(t, "out", seq(32, func(i int) uint32 { return vals[i] + 1 }), readU32(t, s, out))
	}},
}

func asBytesF(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func asBytesU(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// TestInvalidRealWorldWGSLIsRefusedWithADiagnostic: mistakes ported
// samples really contain are refused by Kernel with a *CompileError naming
// the problem, and the device keeps working; none aborts the process.
func TestInvalidRealWorldWGSLIsRefusedWithADiagnostic(t *testing.T) {
	d, s := openStream(t)
	for _, tc := range []struct{ name, src, want string }{
		{"a runtime-sized workgroup array", "var<workgroup> w: array<u32>;\n@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
			"@compute @workgroup_size(1) fn main() { w[0] = 1u; o[0] = w[0]; }", "does not have a fixed size"},
		{"a storage pointer parameter without unrestricted_pointer_parameters", "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
			"fn f(p: ptr<storage, array<u32>, read_write>) { (*p)[0] = 1u; }\n@compute @workgroup_size(1) fn main() { f(&o); }", "pointer"},
		{"an i32 override multiplied by a u32", "override B = 4;\n@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
			"@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3u) { o[0] = g.x * B; }", "Multiply"},
		{"a false function-scope const_assert", "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
			"@compute @workgroup_size(1) fn main() { const K = 2; const_assert K > 3; o[0] = 1u; }", "const_assert K > 3 is false"},
		{"an unknown builtin", "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
			"@compute @workgroup_size(1) fn main() { o[0] = frobnicate(1u); }", "frobnicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.Kernel(tc.src, "main")
			var ce *wgpu.CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Kernel returned %v (%T); want a *CompileError", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("the diagnostic does not mention %q:\n%v", tc.want, err)
			}
			k := rwKernel(t, d, "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n@compute @workgroup_size(1) fn main() { o[0] = 7; }", "main", nil)
			b := empty(t, s, 1)
			launch(t, s, k, recorder.Groups(1, 1, 1), b)
			wantSame(t, "a kernel compiled after the refusal", []uint32{7}, readU32(t, s, b))
		})
	}
}
