package recorder_test

import (
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// sampleTexelWGSL adds to x[0] the red channel of the texel at (0, 0)
// sampled through a sampler (nearest: the texel itself) and read directly.
const sampleTexelWGSL = `
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(1)
fn main() {
	x[0] = x[0] + textureSampleLevel(tex, smp, vec2<f32>(0.1, 0.1), 0.0).x * 255.0;
}
`

// TestRebindTextureAndSamplerSwapViewsWithoutRecapture: RebindTexture and
// RebindSampler give a new graph that reads another texture through
// another sampler, as Rebind does for buffers, while the original graph
// still reads the old ones; a texture of the wrong format for the binding
// and a texture the graph does not bind are refused.
func TestRebindTextureAndSamplerSwapViewsWithoutRecapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, sampleTexelWGSL)
	texel := func(v byte) *recorder.Texture {
		data := make([]byte, 4*4*4)
		for i := 0; i < len(data); i += 4 {
			data[i] = v
		}
		tx, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8unorm"}, data)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tx.Release)
		return tx
	}
	a, b := texel(3), texel(40)
	sa, err := s.NewSampler(recorder.SamplerDesc{})
	if err != nil {
		t.Fatal(err)
	}
	defer sa.Release()
	sb, err := s.NewSampler(recorder.SamplerDesc{Repeat: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Release()
	x := gputest.Upload(t, s, []float32{0})
	g, err := s.Capture(func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, sa, x) }, recorder.WithoutWarmup())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	gb, err := g.RebindTexture(a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Release()
	gbs, err := gb.RebindSampler(sa, sb)
	if err != nil {
		t.Fatal(err)
	}
	defer gbs.Release()
	for _, r := range []*recorder.Graph{g, gb, gbs} {
		if err := r.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	gputest.WantEqual(t, "the original reads a (3), both rebound graphs read b (40)", []float32{83}, gputest.Read(t, s, x))

	wrong, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "r32uint"})
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Release()
	_, err = g.RebindTexture(a, wrong)
	gputest.WantErr(t, "a texture of another sample type", err, []error{recorder.ErrInvalidArgument}, "Rebind")
	_, err = g.RebindTexture(b, a)
	gputest.WantErr(t, "a texture the graph does not bind", err, []error{recorder.ErrInvalidArgument}, "does not bind")
	cmpS, err := s.NewSampler(recorder.SamplerDesc{Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cmpS.Release()
	_, err = g.RebindSampler(sa, cmpS)
	gputest.WantErr(t, "a comparison sampler for a sampler", err, []error{recorder.ErrInvalidArgument}, "comparison")
}
