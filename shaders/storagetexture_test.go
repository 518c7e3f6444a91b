package shaders_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// readWriteTextureWGSL adds 1 to every texel of a read-write r32float
// storage texture in place, the way Bevy's Game of Life reads and writes
// its r32float state textures.
const readWriteTextureWGSL = `
@group(0) @binding(0) var state: texture_storage_2d<r32float, read_write>;
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let dims = textureDimensions(state);
	if (id.x >= dims.x || id.y >= dims.y) { return; }
	let v = textureLoad(state, vec2<i32>(id.xy));
	textureStore(state, vec2<i32>(id.xy), v + vec4<f32>(1.0, 0.0, 0.0, 0.0));
}
`

// TestReadWriteStorageTexturesWork: a kernel that loads from and stores to
// one read_write storage texture compiles, launches and computes. wgpu
// refuses read-only and read-write storage textures unless the device was
// made with its native TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES feature,
// which Open now requests wherever the adapter has it (lavapipe and Mesa's
// GL both do); without it this kernel failed when its layout was made.
func TestReadWriteStorageTexturesWork(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, readWriteTextureWGSL)
	const w, h = 6, 5
	start := make([]float32, w*h)
	raw := make([]byte, 4*w*h)
	for i := range start {
		start[i] = float32(i) / 4
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(start[i]))
	}
	tex, err := s.UploadTexture(recorder.TextureDesc{Width: w, Height: h, Format: "r32float"}, raw)
	if err != nil {
		t.Fatal(err)
	}
	const runs = 3
	for range runs {
		if err := s.Launch(k, recorder.Groups(2, 2, 1), tex); err != nil {
			t.Fatal(err)
		}
	}
	out, err := s.ReadTexture(tex)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, w*h)
	want := make([]float32, w*h)
	for i := range got {
		got[i] = math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
		want[i] = start[i] + runs
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("three in-place increments of a read_write r32float texture (-want +got):\n%s", d)
	}
}
