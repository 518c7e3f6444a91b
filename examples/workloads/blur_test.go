package workloads_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/softgraph/softgraph/examples/workloads"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// blurTestImage is a reproducible w×h RGBA8 image: noise over the full
// 0–255 range (so extremes and every rounding case occur), with a hard
// black-to-white vertical edge and a white square, which a blur must
// visibly soften.
func blurTestImage(w, h int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	pix := make([]byte, 4*w*h)
	for y := range h {
		for x := range w {
			p := pix[4*(y*w+x):]
			switch {
			case x >= w/3 && x < w/3+5 && y >= h/3 && y < h/3+5:
				p[0], p[1], p[2], p[3] = 255, 255, 255, 255
			case y < h/4:
				v := byte(0)
				if x >= w/2 {
					v = 255
				}
				p[0], p[1], p[2], p[3] = v, v, v, 255
			default:
				for c := range 4 {
					p[c] = byte(r.UintN(256))
				}
			}
		}
	}
	return pix
}

func blurDesc(w, h int) recorder.TextureDesc {
	return recorder.TextureDesc{Width: uint32(w), Height: uint32(h), Format: workloads.BlurFormat}
}

// TestBlurMatchesReferenceBitForBitAtEveryRadius: eagerly, for every radius
// from 0 (a copy through both passes) to MaxBlurRadius, the two passes
// through sampler and storage textures produce BlurReference's bytes
// exactly. A sampler that filtered, missed texel centres or wrapped
// instead of clamping, a params uniform packed off WGSL's layout (f32 and
// u32 fields mixed in @group(1)), or a unorm conversion that rounded
// differently would each change some bytes.
func TestBlurMatchesReferenceBitForBitAtEveryRadius(t *testing.T) {
	s := openStream(t)
	const w, h = 45, 29 // not multiples of the 8×8 workgroup
	pix := blurTestImage(w, h, 1)
	src, err := s.UploadTexture(blurDesc(w, h), pix)
	if err != nil {
		t.Fatalf("UploadTexture: %v", err)
	}
	t.Cleanup(src.Release)
	dst, err := s.NewTexture(blurDesc(w, h))
	if err != nil {
		t.Fatalf("NewTexture: %v", err)
	}
	t.Cleanup(dst.Release)
	for radius := 0; radius <= workloads.MaxBlurRadius; radius++ {
		b, err := workloads.NewBlur(s, w, h, radius)
		if err != nil {
			t.Fatalf("NewBlur(radius %d): %v", radius, err)
		}
		if err := b.Run(src, dst); err != nil {
			t.Fatalf("Run(radius %d): %v", radius, err)
		}
		got, err := s.ReadTexture(dst)
		if err != nil {
			t.Fatalf("ReadTexture: %v", err)
		}
		b.Release()
		want := workloads.BlurReference(pix, w, h, radius)
		wantIdentical(t, fmt.Sprintf("the GPU blur of radius %d must equal BlurReference byte for byte", radius), want, got)
		if radius == 0 {
			wantIdentical(t, "a blur of radius 0 copies the image", pix, got)
		}
	}
}

// TestBlurGraphReplaysBitIdenticalToEagerAndReference: a graph captured
// from Run(img, img) blurs img once more at every replay (its warmup was
// the first blur), and after k runs either way the image is BlurReference
// applied k times, bit for bit; a graph captured from Run(src, dst), whose
// dst was overwritten after the capture, writes the blur into it again
// when replayed. Without the replay re-running both passes on the
// textures' current contents, the first would stop after one blur and
// the second would leave the overwritten pixels.
func TestBlurGraphReplaysBitIdenticalToEagerAndReference(t *testing.T) {
	s := openStream(t)
	const w, h, radius, runs = 53, 38, 3, 5
	pix := blurTestImage(w, h, 2)
	b, err := workloads.NewBlur(s, w, h, radius)
	if err != nil {
		t.Fatalf("NewBlur: %v", err)
	}
	t.Cleanup(b.Release)
	upload := func() *recorder.Texture {
		tex, err := s.UploadTexture(b.Desc(), pix)
		if err != nil {
			t.Fatalf("UploadTexture: %v", err)
		}
		t.Cleanup(tex.Release)
		return tex
	}
	want := pix
	for range runs {
		want = workloads.BlurReference(want, w, h, radius)
	}

	eagerImg := upload()
	for range runs {
		if err := b.Run(eagerImg, eagerImg); err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	eager, err := s.ReadTexture(eagerImg)
	if err != nil {
		t.Fatalf("ReadTexture: %v", err)
	}
	wantIdentical(t, "five eager blurs in place must equal BlurReference applied five times", want, eager)

	img := upload()
	g, err := s.Capture(func() error { return b.Run(img, img) })
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	t.Cleanup(g.Release)
	if st := g.Stats(); st.Dispatches != 2 || st.Textures != 2 {
		t.Fatalf("a blur graph is two dispatches over two textures (image and intermediate); got %s", g)
	}
	for range runs - 1 {
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay: %v", err)
		}
	}
	replayed, err := s.ReadTexture(img)
	if err != nil {
		t.Fatalf("ReadTexture: %v", err)
	}
	wantIdentical(t, "the capture's warmup and four replays must blur five times, bit-identical to eager", eager, replayed)

	// Out of place: overwrite dst with the source through a radius-0 blur
	// (a copy), then replay.
	src := upload()
	dst, err := s.NewTexture(b.Desc())
	if err != nil {
		t.Fatalf("NewTexture: %v", err)
	}
	t.Cleanup(dst.Release)
	g2, err := s.Capture(func() error { return b.Run(src, dst) })
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	t.Cleanup(g2.Release)
	copier, err := workloads.NewBlur(s, w, h, 0)
	if err != nil {
		t.Fatalf("NewBlur(radius 0): %v", err)
	}
	t.Cleanup(copier.Release)
	if err := copier.Run(src, dst); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, err := s.ReadTexture(dst); err != nil {
		t.Fatalf("ReadTexture: %v", err)
	} else {
		wantIdentical(t, "test setup: the radius-0 blur copies the source over dst", pix, got)
	}
	if err := g2.Replay(); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	got, err := s.ReadTexture(dst)
	if err != nil {
		t.Fatalf("ReadTexture: %v", err)
	}
	wantIdentical(t, "replaying Run(src, dst) must write the blur into dst again", workloads.BlurReference(pix, w, h, radius), got)

	// The graph keeps the Blur's sampler and intermediate texture alive
	// after the Blur's Release.
	b.Release()
	if err := copier.Run(src, dst); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := g2.Replay(); err != nil {
		t.Fatalf("Replay after the Blur's Release: %v", err)
	}
	got, err = s.ReadTexture(dst)
	if err != nil {
		t.Fatalf("ReadTexture: %v", err)
	}
	wantIdentical(t, "a graph replays after the Blur that made it is released (it pins the sampler and the intermediate texture)", workloads.BlurReference(pix, w, h, radius), got)
}

// TestBlurRefusesWhatItCannotDoExactlyAndStillWorks: a radius past
// MaxBlurRadius (sums no longer exact in f32) or below 0, an empty image,
// and a texture of another size or format are refused on the host with
// wgpu.ErrInvalidArgument, nothing enqueued, and the Blur then still blurs.
func TestBlurRefusesWhatItCannotDoExactlyAndStillWorks(t *testing.T) {
	s := openStream(t)
	for _, c := range []struct{ w, h, r int }{{8, 8, workloads.MaxBlurRadius + 1}, {8, 8, -1}, {0, 8, 1}, {8, 0, 1}} {
		if _, err := workloads.NewBlur(s, c.w, c.h, c.r); !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Errorf("NewBlur(%d×%d, radius %d) must fail with ErrInvalidArgument; got %v", c.w, c.h, c.r, err)
		}
	}
	const w, h = 16, 12
	b, err := workloads.NewBlur(s, w, h, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Release)
	pix := blurTestImage(w, h, 3)
	src, err := s.UploadTexture(b.Desc(), pix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Release)
	small, err := s.NewTexture(blurDesc(w-1, h))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(small.Release)
	float, err := s.NewTexture(recorder.TextureDesc{Width: w, Height: h, Format: "rgba32float"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(float.Release)
	for _, bad := range []*recorder.Texture{nil, small, float} {
		if err := b.Run(src, bad); !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Errorf("Run into %v must fail with ErrInvalidArgument; got %v", bad, err)
		}
	}
	if err := b.Run(src, src); err != nil {
		t.Fatalf("after refused calls the Blur still runs: %v", err)
	}
	got, err := s.ReadTexture(src)
	if err != nil {
		t.Fatal(err)
	}
	wantIdentical(t, "after refused calls the Blur still blurs exactly", workloads.BlurReference(pix, w, h, 2), got)
}

// TestBlurWeightsAreBinomialAndSumToAPowerOfFour: the reference's weights
// are the rows of Pascal's triangle, whose sum 4^r is what the kernel's
// norm divides by exactly.
func TestBlurWeightsAreBinomialAndSumToAPowerOfFour(t *testing.T) {
	wantIdentical(t, "radius 2 weights are C(4, k)", []uint32{1, 4, 6, 4, 1}, workloads.BlurWeights(2))
	for r := 0; r <= workloads.MaxBlurRadius; r++ {
		var sum uint32
		for _, v := range workloads.BlurWeights(r) {
			sum += v
		}
		if sum != 1<<(2*r) {
			t.Errorf("radius %d weights sum to %d, want 4^%d", r, sum, r)
		}
		if max := 255 * sum; max >= 1<<24 {
			t.Errorf("radius %d: 255·4^r = %d is not below 2^24, so f32 sums would not be exact", r, max)
		}
	}
}

// unormProbeWGSL samples every texel of a 64×1 rgba8unorm texture at its
// centre, writing the f32 values to out and round(v·255)/255 to dst: the
// two conversions blur.wgsl relies on.
const unormProbeWGSL = `
@group(0) @binding(0) var samp: sampler;
@group(0) @binding(1) var src: texture_2d<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4f>;
@group(0) @binding(3) var dst: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
	let v = textureSampleLevel(src, samp, (vec2f(f32(id.x), 0.0) + 0.5) / vec2f(64.0, 1.0), 0.0);
	out[id.x] = v;
	textureStore(dst, vec2i(i32(id.x), 0), round(v * 255.0) / 255.0);
}
`

// TestSampledUnorm8CodesRoundTripExactly: the blur's exactness rests on two
// conversions, checked here for all 256 codes: a nearest sample at a texel
// centre, times 255 and rounded, is the texel's code again, and a store of
// code/255 reads back as that code. It does not rest on the sample being
// the correctly rounded code/255: Mesa's llvmpipe (Vulkan and GL alike)
// returns code·fl(1/255), one ulp off for about half the codes, which the
// test logs; a reference that summed code/255 in f32 would differ there.
func TestSampledUnorm8CodesRoundTripExactly(t *testing.T) {
	s := openStream(t)
	k, err := s.Device().Kernel(unormProbeWGSL, "main")
	if err != nil {
		t.Fatal(err)
	}
	pix := make([]byte, 256)
	for i := range pix {
		pix[i] = byte(i)
	}
	desc := blurDesc(64, 1)
	src, err := s.UploadTexture(desc, pix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Release)
	dst, err := s.NewTexture(desc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dst.Release)
	out, err := s.Alloc(256 * 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(out.Release)
	samp, err := s.NewSampler(recorder.SamplerDesc{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(samp.Release)
	if err := s.Launch(k, recorder.Groups(1, 1, 1), samp, src, out, dst); err != nil {
		t.Fatal(err)
	}
	v, err := recorder.ReadSlice[float32](s, out)
	if err != nil {
		t.Fatal(err)
	}
	offByOne := 0
	for c, f := range v {
		if got := math.Round(float64(f) * 255); got != float64(c) {
			t.Errorf("code %d sampled as %v: round(v·255) = %v, not the code, so the blur could not be exact", c, f, got)
		}
		if f != float32(c)/255 {
			offByOne++
		}
	}
	t.Logf("%d of 256 codes sample to something other than the correctly rounded code/255", offByOne)
	back, err := s.ReadTexture(dst)
	if err != nil {
		t.Fatal(err)
	}
	wantIdentical(t, "storing round(v·255)/255 to rgba8unorm must give back every code", pix, back)
}
