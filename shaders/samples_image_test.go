package shaders_test

import (
	_ "embed"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// Image, texture and signal kernels: fractals and noise written into
// storage textures, edge detection, blur, histograms of images, a
// probability map, label propagation over a read-write texture, ocean FFT
// butterflies and permutations, a DFT, and a shader compiled by Slang.

// TestImageSamplesComputeLikeTheirReference: every kernel of imageSampleCases
// compiles as written and computes what its Go reference does. A refusal
// names the construct the front-end or the compiler could not read; a
// difference is a mis-specialisation.
func TestImageSamplesComputeLikeTheirReference(t *testing.T) {
	skipIfShort(t)
	d, s := openStream(t)
	for _, tc := range imageSampleCases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, d, s) })
	}
}

var imageSampleCases = []sampleCase{
	{"webgpu-samples image blur: a tile of array<array<vec3f, 128>, 4>, textureSampleLevel through a nearest sampler, vec2(4, 1) against vec2<u32>, a flip uniform in @group(1); within one 8-bit step", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslWebgpuSamplesImageBlur
		k := mustKernel(t, d, src, "main", nil)
		const w = 8
		texels := make([]byte, 4*w*w)
		for i := range texels {
			texels[i] = byte(lcg(i) >> 24)
		}
		in, err := s.UploadTexture(recorder.TextureDesc{Width: w, Height: w, Format: "rgba8unorm"}, texels)
		if err != nil {
			t.Fatal(err)
		}
		smp, err := s.NewSampler(recorder.SamplerDesc{})
		if err != nil {
			t.Fatal(err)
		}
		for _, flip := range []uint32{0, 1} {
			out, err := s.NewTexture(recorder.TextureDesc{Width: w, Height: w, Format: "rgba8unorm"})
			if err != nil {
				t.Fatal(err)
			}
			launch(t, s, k, recorder.Groups(1, w/4, 1), smp, recorder.ParamsOf[uint32](3, 126), in, out, recorder.ParamsOf(flip))
			got, err := s.ReadTexture(out)
			if err != nil {
				t.Fatal(err)
			}
			wt := float32(1.0) / 3
			for y := 0; y < w; y++ {
				for x := 0; x < w; x++ {
					for ch := 0; ch < 4; ch++ {
						var acc float32
						for f := -1; f <= 1; f++ {
							sx, sy := min(max(x+f, 0), w-1), y
							if flip == 1 {
								sx, sy = x, min(max(y+f, 0), w-1)
							}
							acc += wt * (float32(texels[4*(sy*w+sx)+ch]) / 255)
						}
						want := math.Round(float64(acc) * 255)
						if ch == 3 {
							want = 255
						}
						if g := float64(got[4*(y*w+x)+ch]); math.Abs(g-want) > 1 {
							t.Fatalf("flip %d: texel (%d, %d) channel %d = %v, want %v within one step", flip, x, y, ch, g, want)
						}
					}
				}
			}
		}
	}},
	{"box blur over a texture_2d<f32> with textureLoad and clamped coordinates", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslBoxBlurTexture
		k := mustKernel(t, d, src, "blur", nil)
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
		k := mustKernel(t, d, src, "main", nil)
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
		k := mustKernel(t, d, src, "main", nil)
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
		k := mustKernel(t, d, src, "main", nil)
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
	{"cornell-box-style accumulation: hash-based random numbers in u32, written into a storage texture", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := wgslCornellBoxStyleAccumulation
		k := mustKernel(t, d, src, "main", nil)
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
		k := mustKernel(t, d, src, "main", nil)
		vals := seq(4*4*2, func(i int) uint32 { return lcg(i) >> 16 })
		tex, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 4, Depth: 2, Format: "r32uint"}, asBytesU(vals...))
		if err != nil {
			t.Fatal(err)
		}
		out := empty(t, s, 32)
		launch(t, s, k, recorder.Groups(2, 2, 1), tex, out)
		wantSame(t, "out", seq(32, func(i int) uint32 { return vals[i] + 1 }), readU32(t, s, out))
	}},
}

// ---------------------------------------------------------------------------
// wgpu examples/storage_texture: a Mandelbrot set written into an rgba8unorm
// storage texture.

//go:embed testdata/wgsl/wgpu_storage_texture_mandelbrot.wgsl
var wgpuStorageTextureMandelbrot string

// mandelIters runs the example's iteration in float32 (fused: with a
// fused multiply-add where a GPU may contract one), or in float64.
func mandelIters(cx, cy float32, fused, wide bool) uint32 {
	if wide {
		x, y := float64(cx), float64(cy)
		for i := uint32(0); i < 50; i++ {
			x, y = x*x-y*y+float64(cx), 2*x*y+float64(cy)
			if math.Sqrt(x*x+y*y) > 4 {
				return i
			}
		}
		return 50
	}
	x, y := cx, cy
	for i := uint32(0); i < 50; i++ {
		var nx, ny float32
		if fused {
			nx = float32(math.FMA(float64(x), float64(x), float64(-(y*y)))) + cx
			ny = float32(math.FMA(float64(2*x), float64(y), float64(cy)))
		} else {
			nx = (x*x - y*y) + cx
			ny = (2 * x * y) + cy
		}
		x, y = nx, ny
		if float32(math.Sqrt(float64(x*x+y*y))) > 4 {
			return i
		}
	}
	return 50
}

// TestMandelbrotStorageTextureComputesLikeItsReference: every pixel whose iteration
// count does not depend on how the GPU rounds (the count is the same in
// float32 with and without contraction, in float64, and with c moved by
// three ulps either way) stores round(255 × count / 50) within one 8-bit
// step, and alpha 255; at least four pixels in five are such pixels.
func TestMandelbrotStorageTextureComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, wgpuStorageTextureMandelbrot, "main", nil)
	const w, h = 64, 48
	tex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "rgba8unorm"}, nil)
	launch(t, s, k, recorder.Groups(w/16, h/16, 1), tex)
	raw := readTex(t, s, tex)
	stable, bad := 0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			cx := float32(x)/float32(w)*3 - 2.25
			cy := float32(y)/float32(h)*3 - 1.5
			n := mandelIters(cx, cy, false, false)
			same := mandelIters(cx, cy, true, false) == n && mandelIters(cx, cy, false, true) == n
			for _, ulps := range []int32{-3, 3} {
				nudge := func(v float32) float32 { return math.Float32frombits(uint32(int32(math.Float32bits(v)) + ulps)) }
				same = same && mandelIters(nudge(cx), nudge(cy), false, false) == n
			}
			px := raw[4*(y*w+x):][:4]
			if px[3] != 255 {
				t.Errorf("pixel (%d, %d): alpha %d, want 255", x, y, px[3])
			}
			if !same {
				continue
			}
			stable++
			want := int(math.Round(float64(n) / 50 * 255))
			for c := 0; c < 3; c++ {
				if !within(int(px[c]), want, 1) {
					bad++
					if bad < 10 {
						t.Errorf("pixel (%d, %d) channel %d: %d, want %d (%d iterations)", x, y, c, px[c], want, n)
					}
				}
			}
		}
	}
	t.Logf("%d of %d pixels checked (%s)", stable, w*h, d.Info().Backend)
	if stable < w*h*4/5 {
		t.Errorf("only %d of %d pixels have a rounding-independent count", stable, w*h)
	}
}

// ---------------------------------------------------------------------------
// webgpu-samples particles: probabilityMap.wgsl, whose two entry points
// declare tex_in and tex_out at the same @binding(3).

//go:embed testdata/wgsl/webgpu_samples_probability_map.wgsl
var webgpuSamplesProbabilityMap string

// TestProbabilityMapComputesLikeItsReference: import_level copies each texel's
// alpha (k/255) into the weights; export_level sums 2×2 blocks into the
// weights at the next level and stores the cumulative probabilities as
// rgba8unorm texels (within one 8-bit step).
func TestProbabilityMapComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	imp := mustKernel(t, d, webgpuSamplesProbabilityMap, "import_level", nil)
	exp := mustKernel(t, d, webgpuSamplesProbabilityMap, "export_level", nil)
	const w, h = 64, 4
	img := make([]byte, 4*w*h)
	for i := range img {
		img[i] = byte(lcg(i) >> 24)
	}
	for i := 0; i < 6; i++ { // a few fully transparent blocks: the max(sum, 0.0001) path
		for _, o := range []int{0, 1, w, w + 1} {
			img[4*(2*i+o)+3] = 0
		}
	}
	tex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "rgba8unorm"}, img)
	ubo := recorder.ParamsOf[uint32](w)
	weights := empty(t, s, w*h)
	launch(t, s, imp, recorder.Groups(1, h, 1), ubo, empty(t, s, 1), weights, tex)
	want := seqF(w*h, func(i int) float32 { return float32(img[4*i+3]) / 255 })
	wantSame(t, "imported weights", want, read(t, s, weights), near(1e-6))

	next := empty(t, s, w*h)
	prob := newTex(t, s, recorder.TextureDesc{Width: w / 2, Height: h / 2, Format: "rgba8unorm"}, nil)
	launch(t, s, exp, recorder.Groups(1, h/2, 1), ubo, weights, next, prob)
	wantNext := make([]float32, w*h)
	var wantProb []int
	for y := 0; y < h/2; y++ {
		for x := 0; x < w/2; x++ {
			src := 2*x + 2*y*w
			a, b, c, dd := want[src], want[src+1], want[src+w], want[src+w+1]
			sum := a + b + c + dd
			wantNext[x+y*w] = sum / 4
			for _, p := range []float32{a, a + b, a + b + c, sum} {
				wantProb = append(wantProb, int(math.Round(float64(p/max(sum, 0.0001))*255)))
			}
		}
	}
	wantSame(t, "next level weights", wantNext, read(t, s, next), near(1e-6))
	raw := readTex(t, s, prob)
	for i, wv := range wantProb {
		if !within(int(raw[i]), wv, 1) {
			t.Errorf("probability texel %d channel %d: %d, want %d", i/4, i%4, raw[i], wv)
		}
	}
}

// ---------------------------------------------------------------------------
// Grayscale and Sobel edge magnitude, as WebGPU image-filter demos write it:
// a diagnostic directive, Sobel kernels as module const mat3x3f indexed at
// run time (naga v22 alone says "may only be indexed by a constant";
// the front end makes such a const a var<private>, as it does a const array), clamp of
// coordinates to the edge with vec2(0) and dims - 1, an rgba8unorm texture
// in and an r32float storage texture out.

//go:embed testdata/wgsl/sobel_filter.wgsl
var sobelFilter string

// TestSobelEdgeMagnitudeComputesLikeItsReference: on a 13×10 image the edge magnitude of
// every pixel is the float64 reference's within 1e-5 (sums of weighted
// luminances and a square root).
func TestSobelEdgeMagnitudeComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, sobelFilter, "main", nil)
	const w, h = 13, 10
	img := make([]byte, 4*w*h)
	for i := range img {
		img[i] = byte(lcg(i*5) >> 24)
	}
	for y := 0; y < h; y++ { // a hard vertical edge too
		for c := 0; c < 3; c++ {
			img[4*(y*w+6)+c] = 255
		}
	}
	in := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "rgba8unorm"}, img)
	out := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "r32float"}, nil)
	launch(t, s, k, recorder.Groups(2, 2, 1), in, out)
	kx := [3][3]float64{{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}} // [column i][row j]
	ky := [3][3]float64{{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}}
	lum := func(x, y int) float64 {
		x, y = min(max(x, 0), w-1), min(max(y, 0), h-1)
		p := img[4*(y*w+x):]
		return (0.2126*float64(p[0]) + 0.7152*float64(p[1]) + 0.0722*float64(p[2])) / 255
	}
	want := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var gx, gy float64
			for j := 0; j < 3; j++ {
				for i := 0; i < 3; i++ {
					l := lum(x+i-1, y+j-1)
					gx += kx[i][j] * l
					gy += ky[i][j] * l
				}
			}
			want[y*w+x] = float32(math.Hypot(gx, gy))
		}
	}
	wantSame(t, "edge magnitude", want, floatsOf(readTex(t, s, out)), near(1e-5))
}

// ---------------------------------------------------------------------------
// An ocean FFT's butterfly texture (Flügge's "Realtime GPGPU FFT ocean
// water simulation", as WebGPU ocean demos port it): twiddle factors and
// the butterfly's input indices per stage in an rgba32float storage
// texture, the first stage's indices bit-reversed with reverseBits,
// select over unsigned index arithmetic.

//go:embed testdata/wgsl/ocean_butterfly.wgsl
var oceanButterfly string

// TestOceanFFTButterflyTextureComputesLikeItsReference: for N = 32 every texel's indices
// are the reference's exactly and its twiddle within 5e-4 (WGSL bounds
// sin and cos by 2^-11 on [-π, π]; the angle reaches 2π).
func TestOceanFFTButterflyTextureComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, oceanButterfly, "precompute_butterfly", nil)
	const n, log2n = 32, 5
	tex := newTex(t, s, recorder.TextureDesc{Width: log2n, Height: n, Format: "rgba32float"}, nil)
	launch(t, s, k, recorder.Groups(log2n, n/16, 1), tex, recorder.ParamsOf[uint32](n, log2n))
	got := floatsOf(readTex(t, s, tex))
	var wantIdx, gotIdx []float32
	var wantTw, gotTw []float32
	for y := uint32(0); y < n; y++ {
		for stage := uint32(0); stage < log2n; stage++ {
			kk := float64((y * (n >> (stage + 1))) % n)
			span := uint32(1) << stage
			top := y%(span<<1) < span
			var a, b uint32
			switch {
			case stage == 0 && top:
				a, b = bits.Reverse32(y)>>(32-log2n), bits.Reverse32(y+1)>>(32-log2n)
			case stage == 0:
				a, b = bits.Reverse32(y-1)>>(32-log2n), bits.Reverse32(y)>>(32-log2n)
			case top:
				a, b = y, y+span
			default:
				a, b = y-span, y
			}
			texel := got[4*(y*log2n+stage):][:4]
			wantTw = append(wantTw, float32(math.Cos(2*math.Pi*kk/n)), float32(math.Sin(2*math.Pi*kk/n)))
			gotTw = append(gotTw, texel[0], texel[1])
			wantIdx = append(wantIdx, float32(a), float32(b))
			gotIdx = append(gotIdx, texel[2], texel[3])
		}
	}
	wantSame(t, "butterfly indices", wantIdx, gotIdx)
	wantSame(t, "twiddles", wantTw, gotTw, near(5e-4))
}

// ---------------------------------------------------------------------------
// Connected-component labelling by label propagation over a read_write
// r32uint storage texture, under a requires directive: each pixel takes
// the smallest label of its 4-neighbours (an abstract const array of
// vec2 offsets, continue past the border) and flags a change, until
// nothing changes.

//go:embed testdata/wgsl/label_propagation.wgsl
var labelPropagation string

// TestLabelPropagationOverAReadWriteTextureComputesLikeItsReference: on a 19×14 mask every
// foreground pixel ends with the smallest index of its 4-connected
// component, background pixels keep their mark, and the loop stops by
// itself (fewer passes than pixels).
func TestLabelPropagationOverAReadWriteTextureComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, labelPropagation, "propagate", nil)
	const w, h = 19, 14
	init := make([]uint32, w*h)
	for i := range init {
		init[i] = uint32(i)
		if lcg(i*3)>>30 == 0 || (i%w == 9 && i/w != 3) { // a wall with one gap
			init[i] = 0xffffffff
		}
	}
	tex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "r32uint"}, asBytesU(init...))
	flag := upU32(t, s, []uint32{0})
	passes := 0
	for ; passes < w*h; passes++ {
		if err := s.Clear(flag, 0, 4); err != nil {
			t.Fatal(err)
		}
		launch(t, s, k, recorder.Groups(3, 2, 1), tex, flag)
		if readU32(t, s, flag)[0] == 0 {
			break
		}
	}
	if passes == w*h {
		t.Fatalf("labels still changing after %d passes", passes)
	}
	// Reference: flood fill each component, labelling it with its least index.
	want := append([]uint32(nil), init...)
	seen := make([]bool, w*h)
	for i := range init {
		if init[i] == 0xffffffff || seen[i] {
			continue
		}
		comp, stack := []int{}, []int{i}
		seen[i] = true
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			comp = append(comp, p)
			x, y := p%w, p/w
			for _, o := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				nx, ny := x+o[0], y+o[1]
				if nx < 0 || ny < 0 || nx >= w || ny >= h {
					continue
				}
				q := ny*w + nx
				if init[q] != 0xffffffff && !seen[q] {
					seen[q] = true
					stack = append(stack, q)
				}
			}
		}
		least := slices.Min(comp)
		for _, p := range comp {
			want[p] = uint32(least)
		}
	}
	t.Logf("converged after %d passes", passes+1)
	wantSame(t, "component labels", want, wordsOf(readTex(t, s, tex)))
}

// ---------------------------------------------------------------------------
// gfx-rs/wgpu, examples/features/src/render_with_compute/shader.wgsl: a
// Shadertoy circle ported to Slang and compiled to WGSL by Slang 2026.4, as
// wgpu ships it — Slang's style: @align(16)/@align(4) on uniform members,
// u32(0) and i32(0) conversions of abstract literals, a lambda struct
// passed by value, a block statement `{var dim = ...; ((width_0)) =
// dim.x; ...};` followed by an empty statement with parenthesised
// assignment targets, f32 %, atan2 and vector component writes through
// horColour_0[i32(1)], into an rgba8unorm storage texture. (The comment
// header's playground link, 1.6 kB of base64, is shortened.)

//go:embed testdata/wgsl/wgpu_render_with_compute.wgsl
var wgpuRenderWithCompute string

// circleTexel is the shader's colour at pixel (x, y) of a w×h image at
// frame, in float64, with WGSL's f32 % (truncated); jitter moves the
// transcendental results by about their GPU error, so the caller can tell
// stable pixels from those near a discontinuity.
func circleTexel(x, y, w, h int, frame float64, jitter float64) [4]float64 {
	tau := 3.14159274101257324 * 2
	px, py := (float64(x)*2-float64(w))/float64(h), (float64(y)*2-float64(h))/float64(h)
	s3 := math.Atan2(px, py)/tau + jitter*1e-6
	uv := [2]float64{s3, math.Hypot(px, py) * 0.75 * (1 + jitter*1e-6)}
	t := frame / 60
	a := math.Abs((s3 - t/3) * 3)
	xcol := a - 3*math.Trunc(a/3)
	hor := [3]float64{0.25, 0.25, 0.25}
	switch {
	case xcol < 1:
		hor[0] += 1 - xcol
		hor[1] += xcol
	case xcol < 2:
		hor[1] += 2 - xcol
		hor[2] += xcol - 1
	default:
		hor[2] += 3 - xcol
		hor[0] += xcol - 2
	}
	u1 := [2]float64{2*uv[0] - 1, 2*uv[1] - 1}
	k := math.Min(10, math.Max(0, math.Floor(5+10*math.Cos(t))))
	v := (0.69999998807907104 + 0.5*(math.Cos(u1[0]*10*tau*0.15000000596046448*k)+jitter*1e-4)) * math.Abs(1/(30*u1[1]))
	return [4]float64{v * hor[0], v * hor[1], v * hor[2], 1}
}

// TestRenderWithComputeComputesLikeItsReference: at frame 100 (floor(5 + 10 cos t) =
// 4, away from its edges) every pixel of a 64×48 image whose 8-bit codes
// do not move by more than one when the transcendentals move by their
// error stores codes within one of the reference, and at least nine
// pixels in ten are such pixels.
func TestRenderWithComputeComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, wgpuRenderWithCompute, "imageMain", nil,
		"Slang output: {...}; with ((width_0)) = dim.x, @align on uniform members, u32(0)")
	const w, h, frame = 64, 48, 100
	tex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "rgba8unorm"}, nil)
	launch(t, s, k, recorder.Groups(w/16, h/16, 1), recorder.ParamsOf[float32](1.5, frame, 0, 0), tex)
	got := readTex(t, s, tex)
	code := func(v float64) int { return int(math.Round(math.Min(1, math.Max(0, v)) * 255)) }
	checked, bad := 0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			lo, hi := circleTexel(x, y, w, h, frame, -1), circleTexel(x, y, w, h, frame, 1)
			mid := circleTexel(x, y, w, h, frame, 0)
			stable := true
			for c := 0; c < 4; c++ {
				stable = stable && within(code(lo[c]), code(mid[c]), 1) && within(code(hi[c]), code(mid[c]), 1)
			}
			if !stable {
				continue
			}
			checked++
			for c := 0; c < 4; c++ {
				if g := int(got[4*(y*w+x)+c]); !within(g, code(mid[c]), 2) {
					bad++
					if bad < 10 {
						t.Errorf("pixel (%d, %d) channel %d = %d, want %d", x, y, c, g, code(mid[c]))
					}
				}
			}
		}
	}
	if checked < w*h*9/10 {
		t.Errorf("only %d of %d pixels are stable enough to check", checked, w*h)
	}
	if bad > 0 {
		t.Errorf("%d channels differ", bad)
	}
}

// ---------------------------------------------------------------------------
// rayan-syed/wgpu-dft, src/dft/dft_col.wgsl: a DFT down each column, a
// vec2<i32> uniform, radians(180.0) for pi, fract of the phase.

//go:embed testdata/wgsl/wgpu_dftcol.wgsl
var wgpuDFTCol string

// TestDFTOverColumnsComputesLikeItsReference: a 12×5 complex matrix; every frequency within
// 2e-5 per unit of the column's magnitude of the float64 DFT.
func TestDFTOverColumnsComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, wgpuDFTCol, "main", nil, "radians(180.0) as a let, a vec2<i32> uniform")
	const rows, cols = 12, 5
	in := lattice(81, 2*rows*cols, 1, 64)
	out := empty(t, s, 2*rows*cols)
	var par layoutWords
	par.i32(0, rows, cols)
	launch(t, s, k, recorder.Groups(1, 1, 1), upload(t, s, in), out, uploadWords(t, s, par))
	got := read(t, s, out)
	for c := 0; c < cols; c++ {
		for l := 0; l < rows; l++ {
			var re, im, mag float64
			for r := 0; r < rows; r++ {
				a := -2 * math.Pi * float64(r*l%rows) / rows
				x, y := float64(in[2*(r*cols+c)]), float64(in[2*(r*cols+c)+1])
				re += x*math.Cos(a) - y*math.Sin(a)
				im += x*math.Sin(a) + y*math.Cos(a)
				mag += math.Hypot(x, y)
			}
			o := l*cols + c
			if !closeTo(float64(got[2*o]), re, 2e-5*mag+1e-6, 0) || !closeTo(float64(got[2*o+1]), im, 2e-5*mag+1e-6, 0) {
				t.Errorf("column %d frequency %d: (%g, %g), want (%g, %g)", c, l, got[2*o], got[2*o+1], re, im)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// andrewdr0st/webgpu-renderer, shaders/perlin.wgsl: gradient noise into an
// r32float storage texture, attributes and fn on one line, a module const
// after nothing, and a user function named smoothstep with one parameter
// that shadows the three-parameter builtin (WGSL lets a module declaration
// shadow a builtin function's name).

//go:embed testdata/wgsl/perlin_wgsl.wgsl
var perlinWGSL string

// TestPerlinNoiseWithAUserSmoothstepComputesLikeItsReference: a 24×16 texture (3×2 lattice cells);
// every texel within 2e-3 of the float64 noise (cos and sin of angles up
// to 100 radians).
func TestPerlinNoiseWithAUserSmoothstepComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, perlinWGSL, "perlinNoise", nil, "a user fn smoothstep(t) shadowing the builtin")
	const w, h = 24, 16
	tex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "r32float"}, nil)
	launch(t, s, k, recorder.Groups(w/8, h/8, 1), tex)
	got := floatsOf(readTex(t, s, tex))
	wang := func(x, y uint32) float64 {
		seed := x*1664525 + y*1013904223
		seed ^= seed >> 16
		seed *= 2246822519
		seed ^= seed >> 13
		seed *= 3266489917
		seed ^= seed >> 16
		return float64(float32(seed)) / 0x10000000
	}
	fade := func(t float64) float64 { return t * t * t * (t*(t*6-15) + 10) }
	mix := func(a, b, t float64) float64 { return a*(1-t) + b*t }
	want := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			wx, wy := uint32(x/8), uint32(y/8)
			px, py := float64(x%8)*0.125+0.0625, float64(y%8)*0.125+0.0625
			dg := func(dx, dy uint32) float64 {
				a := wang(wx+dx, wy+dy) * 6.28318530718
				return math.Cos(a)*(float64(dx)-px) + math.Sin(a)*(float64(dy)-py)
			}
			u, v := fade(px), fade(py)
			want[y*w+x] = float32(mix(mix(dg(0, 0), dg(1, 0), u), mix(dg(0, 1), dg(1, 1), u), v)*0.5 + 0.5)
		}
	}
	wantSame(t, "noise", want, got, relTol(2e-3, 0))
}

// ---------------------------------------------------------------------------
// loganzartman/webgpu-stable-fluids, src/computeModule.wgsl: a module
// const k = u32(1103515245), an integer hash over vec3<u32> with .yzx
// swizzles and vec3<u32>(8) shifts, 1.0/f32(u32(0xffffffff)), all() of a
// vector comparison against vec2u(uniforms.N).

//go:embed testdata/wgsl/stable_fluids_junk.wgsl
var stableFluidsJunk string

// TestStableFluidsHashTextureComputesLikeItsReference: N = 20 of a 32×32 texture; the
// texels inside hold the hash's x scaled by 2^-32 (f32(0xffffffff) rounds
// to 2^32), bit for bit, the rest stay zero.
func TestStableFluidsHashTextureComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	kk := sampleKernel(t, d, stableFluidsJunk, "fillWithJunk", nil, "const k = u32(1103515245), y.yzx in a hash")
	const n, size = 20, 32
	tex := newTex(t, s, recorder.TextureDesc{Width: size, Height: size, Format: "r32float"}, nil)
	launch(t, s, kk, recorder.Groups(2, 2, 1), paramsOf(t, struct {
		N    uint32
		Time float32
	}{n, 1.5}), tex)
	got := floatsOf(readTex(t, s, tex))
	const k = 1103515245
	want := make([]float32, size*size)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			v := [3]uint32{uint32(x), uint32(y), 1500}
			for r := 0; r < 3; r++ {
				v = [3]uint32{(v[0]>>8 ^ v[1]) * k, (v[1]>>8 ^ v[2]) * k, (v[2]>>8 ^ v[0]) * k}
			}
			want[y*size+x] = float32(v[0]) * float32(1.0/4294967296.0)
		}
	}
	wantSame(t, "density", want, got)
}

// ---------------------------------------------------------------------------
// Draedon123/Ocean-Simulation, build/shaders/butterflyTexture.wgsl with
// build/shaders/utils/complexNumber.wgsl appended (the shader calls its
// complexExp; the project concatenates the files): var <storage> with a
// space, the f32 % operator, an f32 compared with the abstract 0, vec2f()
// zero construction, textureStore at a vec2u, a const declared after the
// entry point that uses it through a helper, -2 * PI * k / N.

//go:embed testdata/wgsl/draedon_butterfly.wgsl
var draedonButterfly string

// TestOceanButterflyTextureComputesLikeItsReference: N = 64, six stages; twiddles within
// 1e-5 of float64 and the input indices exact.
func TestOceanButterflyTextureComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, draedonButterfly, "main", nil, "var <storage>, f32 %, a const declared after its use")
	const n, stages = 64, 6
	rev := make([]float32, n)
	for i := range rev {
		rev[i] = float32(bits32Reverse(uint32(i), stages))
	}
	tex := newTex(t, s, recorder.TextureDesc{Width: stages, Height: n, Format: "rgba32float"}, nil)
	launch(t, s, k, recorder.Groups(stages, 1, 1), upload(t, s, rev), tex)
	got := floatsOf(readTex(t, s, tex))
	want := make([]float32, len(got))
	for y := 0; y < n; y++ {
		for x := 0; x < stages; x++ {
			span := float64(int(1) << x)
			kk := math.Mod(float64(y)*n/(span*2), n)
			a := -2 * math.Pi * kk / n
			top := math.Mod(float64(y), span*2) < span
			var i0, i1 float64
			switch {
			case x == 0 && top:
				i0, i1 = float64(rev[y]), float64(rev[y+1])
			case x == 0:
				i0, i1 = float64(rev[y-1]), float64(rev[y])
			case top:
				i0, i1 = float64(y), float64(y)+span
			default:
				i0, i1 = float64(y)-span, float64(y)
			}
			copy(want[4*(y*stages+x):], []float32{float32(math.Cos(a)), float32(math.Sin(a)), float32(i0), float32(i1)})
		}
	}
	wantSame(t, "butterfly", want, got, relTol(1e-5, 0))
}

// bits32Reverse reverses the low n bits of v.
func bits32Reverse(v uint32, n int) uint32 {
	r := uint32(0)
	for i := 0; i < n; i++ {
		r = r<<1 | v>>i&1
	}
	return r
}

// ---------------------------------------------------------------------------
// Draedon123/Ocean-Simulation, build/shaders/permute.wgsl: the IFFT's sign
// permutation from a read-only rg32float storage texture into an
// rgba32float one, f32((id.x + id.y) % 2) * -2 + 1 (abstract integers
// meeting an f32), var <uniform> with a space.

//go:embed testdata/wgsl/draedon_permute.wgsl
var draedonPermute string

// TestOceanPermuteComputesLikeItsReference: an 8×8 field; bit for bit (the one rounding is
// the f32 addition of 0.2). On OpenGL, where GLSL ES has no rg32float image
// format, Kernel refuses it with a *CompileError saying so.
func TestOceanPermuteComputesLikeItsReference(t *testing.T) {
	d, s := openStream(t)
	if isGL(d) {
		_, err := d.Kernel(draedonPermute, "main")
		wantRefused(t, err, "GLSL ES has no image format for rg32float")
		return
	}
	k := sampleKernel(t, d, draedonPermute, "main", nil, "a read-only rg32float storage texture, f32(u % 2) * -2 + 1")
	const n = 8
	field := lattice(111, 2*n*n, 8, 16)
	in := newTex(t, s, recorder.TextureDesc{Width: n, Height: n, Format: "rg32float"}, asBytesF(field))
	out := newTex(t, s, recorder.TextureDesc{Width: n, Height: n, Format: "rgba32float"}, nil)
	launch(t, s, k, recorder.Groups(n, n, 1), paramsOf(t, struct{ Size float32 }{n}), in, out)
	want := make([]float32, 4*n*n)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			p := float32(1)
			if (x+y)%2 == 1 {
				p = -1
			}
			v := float32(0.2) + p*field[2*(y*n+x)]/float32(n*n)
			copy(want[4*(y*n+x):], []float32{v, v, v, 1})
		}
	}
	wantSame(t, "permuted", want, floatsOf(readTex(t, s, out)))
}

// ---------------------------------------------------------------------------
// gummy77/gumgeon, functions/static/webgpu/planetgen/util/noise.js (the
// noiseWGSL library, Munrocket's gist of PCG and Jarzynski–Olano hashes
// and value noise): several statements to a line, bitcast<vec2u> of a
// vec2f, v >> vec2u(16u), f32(0xffffffff) (an abstract integer that rounds
// to 2^32), swizzles .yx .yy .xxyy .zzww, 1. / 289. literals. It has no
// entry point; the harness entry point after it is ours.

//go:embed testdata/wgsl/gumgeon_noise.wgsl
var gumgeonNoise string

//go:embed testdata/wgsl/gumgeon_noise_harness.wgsl
var gumgeonNoiseHarness string

func pcgHash11(n uint32) uint32 {
	h := n*747796405 + 2891336453
	h = (h>>(h>>28+4) ^ h) * 277803737
	return h>>22 ^ h
}

func pcgHash22(x, y uint32) (uint32, uint32) {
	x, y = x*1664525+1013904223, y*1664525+1013904223
	x += y * 1664525
	y += x * 1664525
	x, y = x^x>>16, y^y>>16
	x += y * 1664525
	y += x * 1664525
	return x ^ x>>16, y ^ y>>16
}

func pcgHash33(p [3]uint32) [3]uint32 {
	v := p
	for i := range v {
		v[i] = v[i]*1664525 + 1013904223
	}
	v[0] += v[1] * v[2]
	v[1] += v[2] * v[0]
	v[2] += v[0] * v[1]
	for i := range v {
		v[i] ^= v[i] >> 16
	}
	v[0] += v[1] * v[2]
	v[1] += v[2] * v[0]
	v[2] += v[0] * v[1]
	return v
}

func pcgHash44(p [4]uint32) [4]uint32 {
	v := p
	for i := range v {
		v[i] = v[i]*1664525 + 1013904223
	}
	step := func() {
		v[0] += v[1] * v[3]
		v[1] += v[2] * v[0]
		v[2] += v[0] * v[1]
		v[3] += v[1] * v[2]
	}
	step()
	for i := range v {
		v[i] ^= v[i] >> 16
	}
	step()
	return v
}

// valueNoise3 is Noise3 in float64 but with the module's f32 steps where a
// rounding moves floor or fract (x * (1/289), k * (1/41)).
func valueNoise3(p [3]float32) float64 {
	f := func(x float64) float32 { return float32(x) }
	mod289 := func(x float32) float32 { return x - float32(math.Floor(float64(x*f(1.0/289.0))))*289 }
	perm := func(x float32) float32 { return mod289((x*34 + 1) * x) }
	var a, d [3]float64
	for i := range a {
		a[i] = math.Floor(float64(p[i]))
		t := float64(p[i]) - a[i]
		d[i] = t * t * (3 - 2*t)
	}
	b := [4]float32{f(a[0]), f(a[0] + 1), f(a[1]), f(a[1] + 1)}
	k1 := [4]float32{perm(b[0]), perm(b[1]), perm(b[0]), perm(b[1])}
	k2 := [4]float32{perm(k1[0] + b[2]), perm(k1[1] + b[2]), perm(k1[0] + b[3]), perm(k1[1] + b[3])}
	var o3 [4]float64
	for i := range k2 {
		c := k2[i] + f(a[2])
		fr := func(x float32) float64 { y := float64(x * f(1.0/41.0)); return y - math.Floor(y) }
		o1, o2 := fr(perm(c)), fr(perm(c+1))
		o3[i] = o2*d[2] + o1*(1-d[2])
	}
	o4 := [2]float64{o3[1]*d[0] + o3[0]*(1-d[0]), o3[3]*d[0] + o3[2]*(1-d[0])}
	return o4[1]*d[1] + o4[0]*(1-d[1])
}

// TestHashAndValueNoiseComputeLikeTheirReference: 64 points; the hashes and rand11/rand22 bit for
// bit (the u32 → f32 conversion rounds to nearest and the division is by
// 2^32), Noise2 and Noise3 within 2e-5 of the reference.
func TestHashAndValueNoiseComputeLikeTheirReference(t *testing.T) {
	d, s := openStream(t)
	k := sampleKernel(t, d, gumgeonNoise+gumgeonNoiseHarness, "harness", nil, "bitcast<vec2u>(vec2f), f32(0xffffffff), statements sharing a line")
	const n = 64
	pts := lattice(151, 4*n, 3.5, 1024)
	out := empty(t, s, 16*n)
	launch(t, s, k, recorder.Groups(1, 1, 1), upload(t, s, pts), out)
	got := readU32(t, s, out)
	const inv = float32(1.0 / 4294967296.0)
	for i := 0; i < n; i++ {
		f := pts[4*i : 4*i+4]
		b := [4]uint32{math.Float32bits(f[0]), math.Float32bits(f[1]), math.Float32bits(f[2]), math.Float32bits(f[3])}
		h2x, h2y := pcgHash22(b[0], b[1])
		h3 := pcgHash33([3]uint32{b[0], b[1], b[2]})
		h4 := pcgHash44(b)
		want := []uint32{pcgHash11(b[0]), h2x, h2y, h3[0], h3[1], h3[2], h4[0], h4[1], h4[2], h4[3],
			math.Float32bits(float32(pcgHash11(b[0])) * inv), math.Float32bits(float32(h2x) * inv), math.Float32bits(float32(h2y) * inv)}
		wantSame(t, "hashes and rands", want, got[16*i:16*i+13])
		// Noise2 from the rands of the cell's corners.
		rx := func(x, y float64) float64 {
			hx, _ := pcgHash22(math.Float32bits(float32(x)), math.Float32bits(float32(y)))
			return float64(float32(hx) * inv)
		}
		bx, by := math.Floor(float64(f[0])), math.Floor(float64(f[1]))
		ss := func(x float64) float64 { x -= math.Floor(x); return x * x * (3 - 2*x) }
		fx, fy := ss(float64(f[0])), ss(float64(f[1]))
		mix := func(a, b, t float64) float64 { return a*(1-t) + b*t }
		n2 := mix(mix(rx(bx, by), rx(bx+1, by), fx), mix(rx(bx, by+1), rx(bx+1, by+1), fx), fy)
		if g := math.Float32frombits(got[16*i+13]); !closeTo(float64(g), n2, 2e-5, 0) {
			t.Errorf("point %d: Noise2 = %g, want %g", i, g, n2)
		}
		if g, w := math.Float32frombits(got[16*i+14]), valueNoise3([3]float32{f[0], f[1], f[2]}); !closeTo(float64(g), w, 2e-5, 0) {
			t.Errorf("point %d: Noise3 = %g, want %g", i, g, w)
		}
	}
}
