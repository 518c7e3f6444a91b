package workloads

import (
	_ "embed"
	"fmt"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

//go:embed blur.wgsl
var blurWGSL string

// BlurWGSL is the blur kernel's source (entry point "main"), as Blur
// compiles it.
func BlurWGSL() string { return blurWGSL }

// MaxBlurRadius is the largest radius Blur accepts: with 2r+1 binomial
// weights summing to 4^r, a weighted sum of 8-bit codes stays below 2^24
// (255·4^8 < 2^24), the largest integer f32 holds exactly, so the sums are
// exact in any order on every GPU.
const MaxBlurRadius = 8

// BlurFormat is the texel format Blur reads and writes.
const BlurFormat = "rgba8unorm"

// blurParams is blur.wgsl's struct BlurParams, packed by
// recorder.ParamsFrom (vec2<u32>, vec2<f32>, u32, f32: 24 bytes, rounded
// up to 32).
type blurParams struct {
	Size   [2]uint32
	Dir    [2]float32
	Radius uint32
	Norm   float32
}

// Blur is a separable binomial (Gaussian) blur of width×height rgba8unorm
// images: Run enqueues a horizontal pass from the source into an
// intermediate texture, then a vertical pass from it into the
// destination, each sampling through a nearest, clamp-to-edge sampler and
// writing a storage texture. Its result equals BlurReference bit for bit.
//
// A Blur may be used from one goroutine at a time.
type Blur struct {
	s             *recorder.Stream
	k             *wgpu.Kernel // owned by the device's kernel cache, never released here
	width, height uint32
	radius        int

	// samp and tmp are owned by the Blur and released by Release; a graph
	// that binds them keeps them alive past that.
	samp *recorder.Sampler
	tmp  *recorder.Texture

	horizontal, vertical recorder.Params
}

// NewBlur compiles the kernel and makes the sampler and the intermediate
// texture for width×height images blurred with the given radius (0, which
// copies, to MaxBlurRadius).
//
// It fails with an error wrapping wgpu.ErrInvalidArgument for a radius out
// of range or an image size the device refuses (zero, over
// maxTextureDimension2D, or more workgroups of 8×8 than
// maxComputeWorkgroupsPerDimension), and with the stream's errors.
func NewBlur(s *recorder.Stream, width, height, radius int) (*Blur, error) {
	const op = "workloads.NewBlur"
	if s == nil {
		return nil, &wgpu.Error{Op: op, Arg: "stream is nil", Err: wgpu.ErrInvalidArgument}
	}
	if radius < 0 || radius > MaxBlurRadius {
		return nil, &wgpu.Error{Op: op, Arg: fmt.Sprintf("radius=%d (0 to %d: larger sums would not be exact in f32)", radius, MaxBlurRadius), Err: wgpu.ErrInvalidArgument}
	}
	lim := s.Device().Info().Limits
	if width < 1 || height < 1 || uint64(width) > uint64(lim.MaxTextureDimension2D) || uint64(height) > uint64(lim.MaxTextureDimension2D) {
		return nil, &wgpu.Error{Op: op, Arg: fmt.Sprintf("size=%d×%d (1 to maxTextureDimension2D=%d per side)", width, height, lim.MaxTextureDimension2D), Err: wgpu.ErrInvalidArgument}
	}
	k, err := s.Device().Kernel(blurWGSL, "main")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	b := &Blur{s: s, k: k, width: uint32(width), height: uint32(height), radius: radius}
	if gx, gy := b.groups(); gx > lim.MaxComputeWorkgroupsPerDimension || gy > lim.MaxComputeWorkgroupsPerDimension {
		return nil, &wgpu.Error{Op: op, Arg: fmt.Sprintf("size=%d×%d needs %d×%d workgroups (limit %d per dimension)", width, height, gx, gy, lim.MaxComputeWorkgroupsPerDimension), Err: wgpu.ErrInvalidArgument}
	}
	norm := 1 / float32(uint32(1)<<(2*radius)) // a power of two: exact
	if b.horizontal, err = recorder.ParamsFrom(blurParams{Size: [2]uint32{b.width, b.height}, Dir: [2]float32{1, 0}, Radius: uint32(radius), Norm: norm}); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if b.vertical, err = recorder.ParamsFrom(blurParams{Size: [2]uint32{b.width, b.height}, Dir: [2]float32{0, 1}, Radius: uint32(radius), Norm: norm}); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	// The zero SamplerDesc is nearest and clamp-to-edge: at texel centres
	// it returns exactly the texel textureLoad would.
	if b.samp, err = s.NewSampler(recorder.SamplerDesc{}); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if b.tmp, err = s.NewTexture(b.desc()); err != nil {
		b.samp.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return b, nil
}

// desc describes the images the Blur takes.
func (b *Blur) desc() recorder.TextureDesc {
	return recorder.TextureDesc{Width: b.width, Height: b.height, Format: BlurFormat}
}

// Desc describes the textures Run takes: width×height rgba8unorm.
func (b *Blur) Desc() recorder.TextureDesc { return b.desc() }

// Radius is the number of taps on each side of the centre.
func (b *Blur) Radius() int { return b.radius }

// groups is the grid of 8×8 workgroups covering the image.
func (b *Blur) groups() (uint32, uint32) { return (b.width + 7) / 8, (b.height + 7) / 8 }

// Run enqueues the blur of src into dst, both width×height rgba8unorm
// textures of the Blur's stream. dst may be src: the horizontal pass reads
// src into the intermediate texture and the vertical pass writes dst from
// it, so a graph captured from Run(img, img) blurs img once more at every
// replay.
//
// Host-side errors (a nil, released or mis-sized texture) are returned on
// the spot and nothing is enqueued; device errors surface at the next
// ReadTexture or Sync.
func (b *Blur) Run(src, dst *recorder.Texture) error {
	for _, t := range []*recorder.Texture{src, dst} {
		if t == nil {
			return &wgpu.Error{Op: "workloads.Blur.Run", Arg: "texture is nil", Err: wgpu.ErrInvalidArgument}
		}
		if d := t.Desc(); d.Width != b.width || d.Height != b.height || d.Depth > 1 || d.Format != BlurFormat {
			return &wgpu.Error{Op: "workloads.Blur.Run", Arg: fmt.Sprintf("%s for a blur of %s", t, b.desc()), Err: wgpu.ErrInvalidArgument}
		}
	}
	gx, gy := b.groups()
	d := recorder.Groups(gx, gy, 1)
	if err := b.s.Launch(b.k, d, b.samp, src, b.tmp, b.horizontal); err != nil {
		return err
	}
	return b.s.Launch(b.k, d, b.samp, b.tmp, dst, b.vertical)
}

// Release frees the sampler and the intermediate texture. Graphs captured
// from Run keep them alive until they are released. Idempotent.
func (b *Blur) Release() {
	b.samp.Release()
	b.tmp.Release()
}

// BlurWeights are the 2r+1 binomial weights C(2r, k) of a blur of radius
// r, which sum to 4^r.
func BlurWeights(radius int) []uint32 {
	taps := uint32(2 * radius)
	w := make([]uint32, 0, taps+1)
	c := uint32(1)
	for k := uint32(0); k <= taps; k++ {
		w = append(w, c)
		c = c * (taps - k) / (k + 1)
	}
	return w
}

// BlurReference blurs a width×height image of tightly packed RGBA 8-bit
// texels (row-major, 4 bytes per texel) with the given radius, as Run does:
// a horizontal pass rounded to 8 bits, then a vertical one, each the
// BlurWeights-weighted sum of codes with coordinates clamped to the edge,
// divided by 4^radius and rounded to the nearest code, halves up. Integer
// arithmetic gives the very values the GPU's exact f32 sums do.
func BlurReference(pix []byte, width, height, radius int) []byte {
	tmp := blurPass(pix, width, height, radius, 1, 0)
	return blurPass(tmp, width, height, radius, 0, 1)
}

// blurPass is one pass of BlurReference along (dx, dy).
func blurPass(pix []byte, width, height, radius, dx, dy int) []byte {
	w := BlurWeights(radius)
	shift := uint(2 * radius)
	half := uint32(1) << shift >> 1 // 0 for radius 0, where nothing rounds
	out := make([]byte, len(pix))
	for y := range height {
		for x := range width {
			var sum [4]uint32
			for k, wk := range w {
				sx := min(max(x+(k-radius)*dx, 0), width-1)
				sy := min(max(y+(k-radius)*dy, 0), height-1)
				p := pix[4*(sy*width+sx):]
				for c := range 4 {
					sum[c] += wk * uint32(p[c])
				}
			}
			for c := range 4 {
				out[4*(y*width+x)+c] = byte((sum[c] + half) >> shift)
			}
		}
	}
	return out
}
