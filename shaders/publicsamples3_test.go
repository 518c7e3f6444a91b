package shaders_test

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// Probe round 5: compute shaders as real public code writes them — wgpu's
// examples (storage_texture's Mandelbrot, hello_synchronization),
// webgpu-samples (bitonicSort's flip/disperse steps, the particles
// sample's probability map), onnxruntime-web and tfjs-backend-webgpu
// generated kernels (LayerNormalization, Where over packed bools, Gather
// with int64 indices, CumSum, ArgMax, naive Conv2D, MatMulNBits),
// bevy_hanabi's PCG random numbers, a BVH builder's Morton codes, a
// compute rasterizer, kishimisu's override-sized prefix sum, marching
// cubes, an ocean FFT's butterfly texture, and image, stencil, sparse and
// binning kernels — each in its author's style (overrides without
// defaults, abstract literals, odd struct alignment, atomics through
// structs, two variables at one binding, directives), compiled by
// dev.Kernel, run on real data and compared with a Go reference bit for
// bit, or within a stated tolerance where the GPU rounds a division or
// evaluates a transcendental function. A sample that was refused before
// this round says so in its comment ("was refused": the front-end now
// rewrites what naga v22 refused).

// p3U32s decodes little-endian words.
func p3U32s(raw []byte) []uint32 {
	v := make([]uint32, len(raw)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return v
}

// p3F32s decodes little-endian f32s.
func p3F32s(raw []byte) []float32 {
	v := make([]float32, len(raw)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v
}

// p3Params packs v with WGSL's uniform layout, failing the test on error.
func p3Params(t *testing.T, v any) recorder.Params {
	t.Helper()
	p, err := recorder.ParamsFrom(v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// within reports whether a and b differ by at most d.
func within(a, b, d int) bool { return a-b <= d && b-a <= d }

// ---------------------------------------------------------------------------
// wgpu examples/storage_texture: a Mandelbrot set written into an rgba8unorm
// storage texture.

const wgpuStorageTextureMandelbrot = `const MAX_ITERATIONS: u32 = 50u;

@group(0)
@binding(0)
var texture: texture_storage_2d<rgba8unorm, write>;

@compute
@workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var final_iteration = MAX_ITERATIONS;
    var c = vec2(
        // Translated to put everything nicely in frame.
        (f32(id.x) / f32(textureDimensions(texture).x)) * 3.0 - 2.25,
        (f32(id.y) / f32(textureDimensions(texture).y)) * 3.0 - 1.5
    );
    var current_z = c;
    var next_z: vec2<f32>;
    for (var i = 0u; i < MAX_ITERATIONS; i++) {
        next_z.x = (current_z.x * current_z.x - current_z.y * current_z.y) + c.x;
        next_z.y = (2.0 * current_z.x * current_z.y) + c.y;
        current_z = next_z;
        if length(current_z) > 4.0 {
            final_iteration = i;
            break;
        }
    }
    let value = f32(final_iteration) / f32(MAX_ITERATIONS);

    textureStore(texture, vec2(i32(id.x), i32(id.y)), vec4(value, value, value, 1.0));
}
`

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

// TestPublic3WgpuStorageTextureMandelbrot: every pixel whose iteration
// count does not depend on how the GPU rounds (the count is the same in
// float32 with and without contraction, in float64, and with c moved by
// three ulps either way) stores round(255 × count / 50) within one 8-bit
// step, and alpha 255; at least four pixels in five are such pixels.
func TestPublic3WgpuStorageTextureMandelbrot(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, wgpuStorageTextureMandelbrot, "main", nil)
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
// wgpu examples/hello_synchronization.

const wgpuHelloSynchronization = `@group(0)
@binding(0)
var<storage, read_write> output: array<u32>;

var<workgroup> count: atomic<u32>;

@compute
@workgroup_size(16)
fn patient_main(
    @builtin(local_invocation_id) local_id: vec3<u32>,
) {
    atomicAdd(&count, 1u);
    workgroupBarrier();
    if (local_id.x == 0u) {
        output[0] = atomicLoad(&count);
    }
}

@compute
@workgroup_size(16)
fn hasty_main(
    @builtin(local_invocation_id) local_id: vec3<u32>,
) {
    atomicAdd(&count, 1u);
    if (local_id.x == 0u) {
        output[0] = atomicLoad(&count);
    }
}
`

// TestPublic3WgpuHelloSynchronization: with the barrier the first
// invocation sees all 16 increments of the workgroup counter; without it,
// at least its own and at most 16 (workgroup memory starts at zero in each
// dispatch).
func TestPublic3WgpuHelloSynchronization(t *testing.T) {
	d, s := openStream(t)
	patient := rwKernel(t, d, wgpuHelloSynchronization, "patient_main", nil)
	hasty := rwKernel(t, d, wgpuHelloSynchronization, "hasty_main", nil)
	for round := 0; round < 3; round++ {
		out := upU32(t, s, []uint32{0xdead})
		launch(t, s, patient, recorder.Groups(1, 1, 1), out)
		wantSame(t, "patient count", []uint32{16}, readU32(t, s, out))
		launch(t, s, hasty, recorder.Groups(1, 1, 1), out)
		if got := readU32(t, s, out)[0]; got < 1 || got > 16 {
			t.Errorf("hasty count = %d, want 1..16", got)
		}
	}
}

// ---------------------------------------------------------------------------
// webgpu-samples bitonicSort: the NaiveBitonicCompute shader for a
// workgroup size of 8, stepped by the host through local and global flips
// and disperses, output copied back to input between steps.

const webgpuSamplesBitonic = `
struct Uniforms {
  width: f32,
  height: f32,
  algo: u32,
  blockHeight: u32,
}

// Create local workgroup data that can contain all elements
var<workgroup> local_data: array<u32, 16>;

// Define groups (functions refer to this data)
@group(0) @binding(0) var<storage, read> input_data: array<u32>;
@group(0) @binding(1) var<storage, read_write> output_data: array<u32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
@group(0) @binding(3) var<storage, read_write> counter: atomic<u32>;

// Compare and swap values in local_data
fn local_compare_and_swap(idx_before: u32, idx_after: u32) {
  //idx_before should always be < idx_after
  if (local_data[idx_after] < local_data[idx_before]) {
    atomicAdd(&counter, 1);
    var temp: u32 = local_data[idx_before];
    local_data[idx_before] = local_data[idx_after];
    local_data[idx_after] = temp;
  }
  return;
}

// invoke_id goes from 0 to workgroupSize
fn get_flip_indices(invoke_id: u32, block_height: u32) -> vec2<u32> {
  // Caculate index offset (i.e move indices into correct block)
  let block_offset: u32 = ((2 * invoke_id) / block_height) * block_height;
  let half_height = block_height / 2;
  // Calculate index spacing
  var idx: vec2<u32> = vec2<u32>(
    invoke_id % half_height, block_height - (invoke_id % half_height) - 1,
  );
  idx.x += block_offset;
  idx.y += block_offset;
  return idx;
}

fn get_disperse_indices(invoke_id: u32, block_height: u32) -> vec2<u32> {
  var block_offset: u32 = ((2 * invoke_id) / block_height) * block_height;
  let half_height = block_height / 2;
  var idx: vec2<u32> = vec2<u32>(
    invoke_id % half_height, (invoke_id % half_height) + half_height
  );
  idx.x += block_offset;
  idx.y += block_offset;
  return idx;
}

fn global_compare_and_swap(idx_before: u32, idx_after: u32) {
  if (input_data[idx_after] < input_data[idx_before]) {
    output_data[idx_before] = input_data[idx_after];
    output_data[idx_after] = input_data[idx_before];
  }
}

// Constants/enum
const ALGO_NONE = 0;
const ALGO_LOCAL_FLIP = 1;
const ALGO_LOCAL_DISPERSE = 2;
const ALGO_GLOBAL_FLIP = 3;

// Our compute shader will execute specified # of invocations or elements / 2 invocations
@compute @workgroup_size(8, 1, 1)
fn computeMain(
  @builtin(global_invocation_id) global_id: vec3<u32>,
  @builtin(local_invocation_id) local_id: vec3<u32>,
  @builtin(workgroup_id) workgroup_id: vec3<u32>,
) {

  let offset = 8 * 2 * workgroup_id.x;
  // If we will perform a local swap, then populate the local data
  if (uniforms.algo <= 2) {
    // Assign range of input_data to local_data.
    // Range cannot exceed maxWorkgroupsX * 2
    // Each invocation will populate the workgroup data... (1 invocation for every 2 elements)
    local_data[local_id.x * 2] = input_data[offset + local_id.x * 2];
    local_data[local_id.x * 2 + 1] = input_data[offset + local_id.x * 2 + 1];
  }

  //...and wait for each other to finish their own bit of data population.
  workgroupBarrier();

  switch uniforms.algo {
    case 1: { // Local Flip
      let idx = get_flip_indices(local_id.x, uniforms.blockHeight);
      local_compare_and_swap(idx.x, idx.y);
    }
    case 2: { // Local Disperse
      let idx = get_disperse_indices(local_id.x, uniforms.blockHeight);
      local_compare_and_swap(idx.x, idx.y);
    }
    case 3: { // Global Flip
      let idx = get_flip_indices(global_id.x, uniforms.blockHeight);
      global_compare_and_swap(idx.x, idx.y);
    }
    case 4: {
      let idx = get_disperse_indices(global_id.x, uniforms.blockHeight);
      global_compare_and_swap(idx.x, idx.y);
    }
    default: {

    }
  }

  // Ensure that all invocations have swapped their own regions of data
  workgroupBarrier();

  if (uniforms.algo <= ALGO_LOCAL_DISPERSE) {
    //Repopulate global data with local data
    output_data[offset + local_id.x * 2] = local_data[local_id.x * 2];
    output_data[offset + local_id.x * 2 + 1] = local_data[local_id.x * 2 + 1];
  }

}
`

type bitonicUniforms struct {
	Width, Height     float32
	Algo, BlockHeight uint32
}

// TestPublic3WebGPUSamplesBitonicSort: the host-driven schedule sorts 64
// keys (ties included) and the swap counter, bumped only by local steps,
// equals the reference's count of local swaps.
func TestPublic3WebGPUSamplesBitonicSort(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, webgpuSamplesBitonic, "computeMain", nil)
	const n, span = 64, 16 // elements; elements one workgroup holds
	keys := seq(n, func(i int) uint32 { return lcg(i*7+3) >> 26 })
	ref := append([]uint32(nil), keys...)
	localSwaps := uint32(0)
	in := upU32(t, s, keys)
	out := upU32(t, s, keys)
	counter := upU32(t, s, []uint32{0})
	step := func(flip bool, height uint32) {
		algo := uint32(3)
		if !flip {
			algo = 4
		}
		if height <= span {
			algo -= 2
		}
		if err := s.Copy(in, 0, out, 0, 4*n); err != nil {
			t.Fatal(err)
		}
		launch(t, s, k, recorder.Groups(n/span, 1, 1), in, out, p3Params(t, bitonicUniforms{8, 8, algo, height}), counter)
		for id := uint32(0); id < n/2; id++ {
			off := (2 * id / height) * height
			half := height / 2
			a, b := id%half+off, id%half+half+off
			if flip {
				b = height - id%half - 1 + off
			}
			if ref[b] < ref[a] {
				ref[a], ref[b] = ref[b], ref[a]
				if algo <= 2 {
					localSwaps++
				}
			}
		}
	}
	for k := uint32(2); k <= n; k *= 2 {
		step(true, k)
		for j := k / 2; j >= 2; j /= 2 {
			step(false, j)
		}
	}
	sorted := append([]uint32(nil), keys...)
	for i := range sorted {
		for j := i + 1; j < len(sorted); j++ {
			if sorted[j] < sorted[i] {
				sorted[i], sorted[j] = sorted[j], sorted[i]
			}
		}
	}
	wantSame(t, "the reference schedule sorts", sorted, ref)
	wantSame(t, "sorted keys", ref, readU32(t, s, out))
	wantSame(t, "local swaps counted", []uint32{localSwaps}, readU32(t, s, counter))
}

// ---------------------------------------------------------------------------
// webgpu-samples particles: probabilityMap.wgsl, whose two entry points
// declare tex_in and tex_out at the same @binding(3).

const webgpuSamplesProbabilityMap = `struct UBO {
  width : u32,
}

struct Buffer {
  weights : array<f32>,
}

@binding(0) @group(0) var<uniform> ubo : UBO;
@binding(1) @group(0) var<storage, read> buf_in : Buffer;
@binding(2) @group(0) var<storage, read_write> buf_out : Buffer;
@binding(3) @group(0) var tex_in : texture_2d<f32>;
@binding(3) @group(0) var tex_out : texture_storage_2d<rgba8unorm, write>;

////////////////////////////////////////////////////////////////////////////////
// import_level
//
// Loads the alpha channel from a texel of the source image, and writes it to
// the buf_out.weights.
////////////////////////////////////////////////////////////////////////////////
@compute @workgroup_size(64)
fn import_level(@builtin(global_invocation_id) coord : vec3u) {
  _ = &buf_in;
  let offset = coord.x + coord.y * ubo.width;
  buf_out.weights[offset] = textureLoad(tex_in, vec2i(coord.xy), 0).w;
}

////////////////////////////////////////////////////////////////////////////////
// export_level
//
// Loads 4 f32 weight values from buf_in.weights, and stores summed value into
// buf_out.weights, along with the calculated 'probabilty' vec4 values into the
// mip level of tex_out. See simulate() in particle.wgsl to understand the
// probability logic.
////////////////////////////////////////////////////////////////////////////////
@compute @workgroup_size(64)
fn export_level(@builtin(global_invocation_id) coord : vec3u) {
  if (all(coord.xy < vec2u(textureDimensions(tex_out)))) {
    let dst_offset = coord.x    + coord.y    * ubo.width;
    let src_offset = coord.x*2u + coord.y*2u * ubo.width;

    let a = buf_in.weights[src_offset + 0u];
    let b = buf_in.weights[src_offset + 1u];
    let c = buf_in.weights[src_offset + 0u + ubo.width];
    let d = buf_in.weights[src_offset + 1u + ubo.width];
    let sum = dot(vec4f(a, b, c, d), vec4f(1.0));

    buf_out.weights[dst_offset] = sum / 4.0;

    let probabilities = vec4f(a, a+b, a+b+c, sum) / max(sum, 0.0001);
    textureStore(tex_out, vec2i(coord.xy), probabilities);
  }
}
`

// TestPublic3WebGPUSamplesProbabilityMap: import_level copies each texel's
// alpha (k/255) into the weights; export_level sums 2×2 blocks into the
// weights at the next level and stores the cumulative probabilities as
// rgba8unorm texels (within one 8-bit step).
func TestPublic3WebGPUSamplesProbabilityMap(t *testing.T) {
	d, s := openStream(t)
	imp := rwKernel(t, d, webgpuSamplesProbabilityMap, "import_level", nil)
	exp := rwKernel(t, d, webgpuSamplesProbabilityMap, "export_level", nil)
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
// kishimisu/WebGPU-Radix-Sort's prefix sum: overrides without defaults in
// @workgroup_size and a workgroup array size, 2D workgroups flattened with
// local_invocation_index, select(items[i], 0, ...), d >>= 1.

const kishimisuPrefixSum = `@group(0) @binding(0) var<storage, read_write> items: array<u32>;
@group(0) @binding(1) var<storage, read_write> blockSums: array<u32>;

override WORKGROUP_SIZE_X: u32;
override WORKGROUP_SIZE_Y: u32;
override THREADS_PER_WORKGROUP: u32;
override ITEMS_PER_WORKGROUP: u32;
override ELEMENT_COUNT: u32;

var<workgroup> temp: array<u32, ITEMS_PER_WORKGROUP*2>;

@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y, 1)
fn reduce_downsweep(
    @builtin(workgroup_id) w_id: vec3<u32>,
    @builtin(num_workgroups) w_dim: vec3<u32>,
    @builtin(local_invocation_index) TID: u32, // Local thread ID
) {
    let WORKGROUP_ID = w_id.x + w_id.y * w_dim.x;
    let WID = WORKGROUP_ID * THREADS_PER_WORKGROUP;
    let GID = WID + TID; // Global thread ID

    let ELM_TID = TID * 2; // Element pair local ID
    let ELM_GID = GID * 2; // Element pair global ID

    // Load input to shared memory
    temp[ELM_TID]     = select(items[ELM_GID], 0, ELM_GID >= ELEMENT_COUNT);
    temp[ELM_TID + 1] = select(items[ELM_GID + 1], 0, ELM_GID + 1 >= ELEMENT_COUNT);

    var offset: u32 = 1;

    // Up-sweep (reduce) phase
    for (var d: u32 = ITEMS_PER_WORKGROUP >> 1; d > 0; d >>= 1) {
        workgroupBarrier();

        if (TID < d) {
            var ai: u32 = offset * (ELM_TID + 1) - 1;
            var bi: u32 = offset * (ELM_TID + 2) - 1;
            temp[bi] += temp[ai];
        }

        offset *= 2;
    }

    // Save workgroup sum and clear last element
    if (TID == 0) {
        let last_offset = ITEMS_PER_WORKGROUP - 1;

        blockSums[WORKGROUP_ID] = temp[last_offset];
        temp[last_offset] = 0;
    }

    // Down-sweep phase
    for (var d: u32 = 1; d < ITEMS_PER_WORKGROUP; d *= 2) {
        offset >>= 1;
        workgroupBarrier();

        if (TID < d) {
            var ai: u32 = offset * (ELM_TID + 1) - 1;
            var bi: u32 = offset * (ELM_TID + 2) - 1;

            let t: u32 = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    workgroupBarrier();

    // Copy result from shared memory to global memory
    if (ELM_GID >= ELEMENT_COUNT) {
        return;
    }
    items[ELM_GID] = temp[ELM_TID];

    if (ELM_GID + 1 >= ELEMENT_COUNT) {
        return;
    }
    items[ELM_GID + 1] = temp[ELM_TID + 1];
}

@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y, 1)
fn add_block_sums(
    @builtin(workgroup_id) w_id: vec3<u32>,
    @builtin(num_workgroups) w_dim: vec3<u32>,
    @builtin(local_invocation_index) TID: u32, // Local thread ID
) {
    let WORKGROUP_ID = w_id.x + w_id.y * w_dim.x;
    let WID = WORKGROUP_ID * THREADS_PER_WORKGROUP;
    let GID = WID + TID; // Global thread ID

    let ELM_ID = GID * 2;

    if (ELM_ID >= ELEMENT_COUNT) {
        return;
    }

    let blockSum = blockSums[WORKGROUP_ID];

    items[ELM_ID] += blockSum;

    if (ELM_ID + 1 >= ELEMENT_COUNT) {
        return;
    }

    items[ELM_ID + 1] += blockSum;
}
`

// TestPublic3KishimisuPrefixSum: the two-level scan (scan each block of
// 128, scan the block sums in one workgroup, add them back) gives the
// exclusive prefix sum of 1000 keys, wrapping as u32 does; the workgroup
// size reported is the overrides'.
func TestPublic3KishimisuPrefixSum(t *testing.T) {
	d, s := openStream(t)
	consts := func(n int) map[string]float64 {
		return map[string]float64{"WORKGROUP_SIZE_X": 8, "WORKGROUP_SIZE_Y": 8, "THREADS_PER_WORKGROUP": 64,
			"ITEMS_PER_WORKGROUP": 128, "ELEMENT_COUNT": float64(n)}
	}
	const n = 1000
	const blocks = (n + 127) / 128
	scan := rwKernel(t, d, kishimisuPrefixSum, "reduce_downsweep", consts(n))
	if got := scan.WorkgroupSize(); got != [3]uint32{8, 8, 1} {
		t.Errorf("WorkgroupSize() = %v, want [8 8 1]", got)
	}
	scanSums := rwKernel(t, d, kishimisuPrefixSum, "reduce_downsweep", consts(blocks))
	add := rwKernel(t, d, kishimisuPrefixSum, "add_block_sums", consts(n))
	in := seq(n, func(i int) uint32 { return lcg(i) >> 4 })
	items := upU32(t, s, in)
	sums := empty(t, s, blocks)
	total := empty(t, s, 1)
	launch(t, s, scan, recorder.Groups(blocks, 1, 1), items, sums)
	launch(t, s, scanSums, recorder.Groups(1, 1, 1), sums, total)
	launch(t, s, add, recorder.Groups(blocks, 1, 1), items, sums)
	want := make([]uint32, n)
	acc := uint32(0)
	for i, v := range in {
		want[i] = acc
		acc += v
	}
	wantSame(t, "exclusive scan", want, readU32(t, s, items))
	wantSame(t, "grand total", []uint32{acc}, readU32(t, s, total))
}

// ---------------------------------------------------------------------------
// onnxruntime-web LayerNormalization (layer-norm.ts), vectorised by 4, the
// uniform bound after the storage buffers.

const ortLayerNorm = `struct Uniforms { norm_count:u32, norm_size_vectorized:u32, norm_size:f32, epsilon:f32 };
@group(0) @binding(6) var<uniform> uniforms: Uniforms;

  @group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
  @group(0) @binding(1) var<storage, read> scale: array<vec4<f32>>;
  @group(0) @binding(2) var<storage, read> bias: array<vec4<f32>>;
  @group(0) @binding(3) var<storage, read_write> output: array<vec4<f32>>;
  @group(0) @binding(4) var<storage, read_write> mean_data_output: array<f32>;
  @group(0) @binding(5) var<storage, read_write> inv_std_output: array<f32>;

  @compute @workgroup_size(64, 1, 1)
  fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
    @builtin(workgroup_id) workgroup_id : vec3<u32>,
    @builtin(local_invocation_index) local_idx : u32,
    @builtin(local_invocation_id) local_id : vec3<u32>,
    @builtin(num_workgroups) num_workgroups : vec3<u32>) {
    let workgroup_index = workgroup_id.z * num_workgroups[0] * num_workgroups[1] +
          workgroup_id.y * num_workgroups[0] + workgroup_id.x;
    let global_idx = workgroup_index * 64u + local_idx;

    if (global_idx >= uniforms.norm_count) { return; }
    let offset = global_idx * uniforms.norm_size_vectorized;
    var mean_vector = vec4<f32>(0);
    var mean_square_vector = vec4<f32>(0);

    for (var h: u32 = 0u; h < uniforms.norm_size_vectorized; h++) {
      let value = vec4<f32>(x[h + offset]);
      mean_vector += value;
      mean_square_vector += value * value;
    }
    let mean = (mean_vector.x + mean_vector.y + mean_vector.z + mean_vector.w) / uniforms.norm_size;
    let inv_std_dev = inverseSqrt((mean_square_vector.x + mean_square_vector.y + mean_square_vector.z + mean_square_vector.w) / uniforms.norm_size - mean * mean + uniforms.epsilon);

    for (var j: u32 = 0; j < uniforms.norm_size_vectorized; j++) {
      let f32input = vec4<f32>(x[j + offset]);
      let f32scale = vec4<f32>(scale[j]);
      output[j + offset] =  vec4<f32>((f32input - mean) * inv_std_dev * f32scale + vec4<f32>(bias[j]));
    }
    mean_data_output[global_idx] = mean;
    inv_std_output[global_idx] = inv_std_dev;
  }
`

// TestPublic3ORTLayerNorm: 70 rows of 24 (two workgroups, the second
// partly idle) normalise like the float64 reference, within 2e-5 relative
// (inverseSqrt and the f32 sums); the means within 1e-6 (exact sums of
// quarters, divided).
func TestPublic3ORTLayerNorm(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, ortLayerNorm, "main", nil)
	const rows, cols = 70, 24
	x := seqF(rows*cols, func(i int) float32 { return float32(int(lcg(i)>>27)-16) / 4 })
	sc := seqF(cols, func(i int) float32 { return 0.5 + float32(i)/8 })
	bi := seqF(cols, func(i int) float32 { return float32(i%5) - 2 })
	out, mean, inv := empty(t, s, rows*cols), empty(t, s, rows), empty(t, s, rows)
	par := p3Params(t, struct {
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

const ortWhereGreater = `@group(0) @binding(0) var<storage, read> c_data: array<u32>;
@group(0) @binding(1) var<storage, read> a_data: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b_data: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> bool_output: array<u32>;
struct Uniforms { vec_size:u32, c_cols:u32 };
@group(0) @binding(5) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64, 1, 1)
fn where_main(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.vec_size) { return; }
  output[global_idx] = select(b_data[global_idx], a_data[global_idx], vec4<bool>(bool(c_data[global_idx] & 0xFFu), bool(c_data[global_idx] & 0xFF00u), bool(c_data[global_idx] & 0xFF0000u), bool(c_data[global_idx] & 0xFF000000u)));
}

@compute @workgroup_size(64, 1, 1)
fn where_broadcast(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.vec_size) { return; }
  let offset_c0 = (global_idx * 4u + 0u) % uniforms.c_cols;
  let index_c0 = offset_c0 / 4u;
  let component_c0 = offset_c0 % 4u;
  let offset_c1 = (global_idx * 4u + 1u) % uniforms.c_cols;
  let index_c1 = offset_c1 / 4u;
  let component_c1 = offset_c1 % 4u;
  let offset_c2 = (global_idx * 4u + 2u) % uniforms.c_cols;
  let index_c2 = offset_c2 / 4u;
  let component_c2 = offset_c2 % 4u;
  let offset_c3 = (global_idx * 4u + 3u) % uniforms.c_cols;
  let index_c3 = offset_c3 / 4u;
  let component_c3 = offset_c3 % 4u;
  output[global_idx][0] = select(b_data[0][0], a_data[global_idx][0], bool(c_data[index_c0] & (0xffu << (component_c0 * 8))));
  output[global_idx][1] = select(b_data[0][0], a_data[global_idx][1], bool(c_data[index_c1] & (0xffu << (component_c1 * 8))));
  output[global_idx][2] = select(b_data[0][0], a_data[global_idx][2], bool(c_data[index_c2] & (0xffu << (component_c2 * 8))));
  output[global_idx][3] = select(b_data[0][0], a_data[global_idx][3], bool(c_data[index_c3] & (0xffu << (component_c3 * 8))));
}

@compute @workgroup_size(64, 1, 1)
fn greater_main(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.vec_size) { return; }
  bool_output[global_idx] = dot(vec4<u32>(0x1, 0x100, 0x10000, 0x1000000), vec4<u32>(a_data[global_idx] > b_data[global_idx]));
}
`

// TestPublic3ORTWhereAndGreater: Where picks a where the byte of its
// packed condition is non-zero (any non-zero byte, not only 1), with and
// without a broadcast condition row; Greater packs a > b back into bytes
// of 0 or 1 (NaN compares false).
func TestPublic3ORTWhereAndGreater(t *testing.T) {
	d, s := openStream(t)
	where := rwKernel(t, d, ortWhereGreater, "where_main", nil)
	bcast := rwKernel(t, d, ortWhereGreater, "where_broadcast", nil)
	greater := rwKernel(t, d, ortWhereGreater, "greater_main", nil)
	const vecs = 75 // 300 elements
	a := seqF(4*vecs, func(i int) float32 { return float32(int(lcg(i)>>28) - 8) })
	b := seqF(4*vecs, func(i int) float32 { return float32(int(lcg(i+999)>>28) - 8) })
	b[5], a[6] = float32(math.NaN()), float32(math.NaN())
	cond := make([]byte, 4*vecs)
	for i := range cond {
		cond[i] = []byte{0, 1, 0, 0x80, 7, 0}[lcg(i+7)>>29%6]
	}
	condWords := p3U32s(cond)
	par := p3Params(t, struct{ VecSize, CCols uint32 }{vecs, 12})
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
	wantSame(t, "Greater packed into bytes", p3U32s(gt), readU32(t, s, boolOut))
}

// ---------------------------------------------------------------------------
// onnxruntime-web Gather (gather.ts) over axis 0 with int64 indices read as
// vec2<u32>, negative ones wrapped by axisDimLimit; the uniform's vec2
// members sit at 8-byte boundaries after three scalars.

const ortGather = `struct Uniforms { outputSize:u32, axisDimLimit:i32, axis:u32, data_shape:vec2<u32>, data_strides:vec2<u32>, inputIndices_shape:u32, inputIndices_strides:u32, output_shape:vec2<u32>, output_strides:vec2<u32> };
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

  @group(0) @binding(0) var<storage, read> data: array<f32>;
  @group(0) @binding(1) var<storage, read> inputIndices: array<vec2<u32>>;
  @group(0) @binding(2) var<storage, read_write> output: array<f32>;

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

  fn i2o_data(indices: vec2<u32>) -> u32 {
    return uniforms.data_strides[1] * (indices[1])+uniforms.data_strides[0] * (indices[0]);
  }

  fn i2o_inputIndices(indices: u32) -> u32 {
    return indices;
  }

  @compute @workgroup_size(64, 1, 1)
  fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
    @builtin(workgroup_id) workgroup_id : vec3<u32>,
    @builtin(local_invocation_index) local_idx : u32,
    @builtin(local_invocation_id) local_id : vec3<u32>,
    @builtin(num_workgroups) num_workgroups : vec3<u32>) {
    let workgroup_index = workgroup_id.z * num_workgroups[0] * num_workgroups[1] +
          workgroup_id.y * num_workgroups[0] + workgroup_id.x;
    let global_idx = workgroup_index * 64u + local_idx;

    if (global_idx >= uniforms.outputSize) { return; }
    let outputIndices = o2i_output(global_idx);
    var indicesIndices  = u32(0);
    indicesIndices = outputIndices[0];
    var idx = i32(inputIndices[i2o_inputIndices(indicesIndices)].x);
    if (idx < 0) {
      idx = idx + uniforms.axisDimLimit;
    }
    var dataIndices : vec2<u32>;
    dataIndices[0] = u32(idx);
    dataIndices[1] = outputIndices[1];
    let value = data[i2o_data(dataIndices)];
    output[global_idx] = value;
  }
`

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

// TestPublic3ORTGatherInt64Indices: rows of a 9×7 table gathered by 13
// int64 indices, negative ones counting from the end, bit for bit; the
// uniform, hand-packed at WGSL's offsets, equals ParamsFrom's packing.
func TestPublic3ORTGatherInt64Indices(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, ortGather, "main", nil)
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
	par := p3Params(t, u)
	// offsets 0, 4, 8, then 16 (vec2 align 8), 24, 32, 36, 40, 48; size 64.
	hand := f32s(uint32(n), rows, 0, 0, rows, cols, cols, 1, uint32(len(idx)), 1, uint32(len(idx)), cols, cols, 1, 0, 0)
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

// TestPublic3ORTCumSum: the four attribute combinations along each axis of
// a 6×11 i32 tensor equal the reference's running sums, wrapping as i32.
func TestPublic3ORTCumSum(t *testing.T) {
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
			k := rwKernel(t, d, ortCumSum(exclusive, reverse), "main", nil)
			for axis := uint32(0); axis < 2; axis++ {
				par := p3Params(t, struct {
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

const tfjsArgMax = `struct Uniforms { NAN : f32, INFINITY : f32, xShape : vec2<i32>, xShapeStrides: i32, outShape : i32, size : i32, infinityValue : f32, };
@group(0) @binding(0) var<storage, read_write> result: array<i32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

var<private> localId: vec3<u32>;
var<private> localIndex: u32;
var<private> globalId: vec3<u32>;
var<private> numWorkgroups: vec3<u32>;
var<private> workgroupId: vec3<u32>;

fn isnan(val: f32) -> bool {
  let floatToUint: u32 = bitcast<u32>(val);
  return (floatToUint & 0x7fffffffu) > 0x7f800000u;
}

fn getGlobalIndex() -> i32 {
  let localInvocationIndex = localId.z * 64u + localId.y * 64u + localId.x;
  return i32((workgroupId.z * numWorkgroups.x * numWorkgroups.y +
    workgroupId.y * numWorkgroups.x + workgroupId.x) * 64u + localInvocationIndex);
}

fn getIndexFromCoords2D(coords : vec2<i32>, shape : vec2<i32>) -> i32 {
  return dot(coords, vec2<i32>(shape.y, 1));
}

fn getX(d0 : i32, d1 : i32) -> f32 {
  return f32(x[getIndexFromCoords2D(vec2<i32>(d0,d1),
    uniforms.xShape)]);
}

fn setOutputAtIndexI32(flatIndex : i32, value : i32) {
  result[flatIndex] = i32(value);
}

fn DIV_CEIL(a : u32, b : u32) -> u32 {
  return ((a - 1u) / b + 1u);
}

@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>,
          @builtin(global_invocation_id) GlobalId : vec3<u32>,
          @builtin(local_invocation_index) LocalIndex: u32,
          @builtin(workgroup_id) WorkgroupId : vec3<u32>,
          @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  localId = LocalId;
  localIndex = LocalIndex;
  globalId = GlobalId;
  numWorkgroups = NumWorkgroups;
  workgroupId = WorkgroupId;
  main(getGlobalIndex());
}

var<workgroup> xBestIndices : array<i32, 64>;
var<workgroup> xBestValues : array<f32, 64>;

fn main(index : i32) {
  let outputIndex = index / 64;
  let reduceLength = uniforms.xShape[1];

  var bestIndex = i32(localId.x);
  var bestValue = uniforms.infinityValue;
  let outputCoords = outputIndex;
  for (var k = i32(localId.x); k < reduceLength && outputIndex < uniforms.size;
      k = k + 64) {
    let candidate = getX(outputCoords, k);
    if (!isnan(candidate) && candidate > bestValue) {
      bestValue = candidate;
      bestIndex = k;
    }
  }
  xBestValues[localId.x] = bestValue;
  xBestIndices[localId.x] = bestIndex;
  workgroupBarrier();

  var reduceSize = min(u32(reduceLength), 64u);
  for (var currentSize = reduceSize / 2u; reduceSize > 1u;
      currentSize = reduceSize / 2u) {
    let interval = DIV_CEIL(reduceSize, 2u);
    if (localId.x < currentSize) {
      let candidate = xBestValues[localId.x + interval];
      if (candidate > bestValue || (candidate == bestValue && xBestIndices[localId.x + interval] < bestIndex)) {
        bestValue = candidate;
        bestIndex = xBestIndices[localId.x + interval];
        xBestValues[localId.x] = bestValue;
        xBestIndices[localId.x] = bestIndex;
      }
    }
    reduceSize = interval;
    workgroupBarrier();
  }

  if (localId.x == 0u && outputIndex < uniforms.size) {
    setOutputAtIndexI32(outputIndex, xBestIndices[localId.x]);
  }
}
`

type tfjsArgMaxUniforms struct {
	NAN, INFINITY  float32
	XShape         [2]int32
	XShapeStrides  int32
	OutShape, Size int32
	InfinityValue  float32
}

// TestPublic3TFJSArgMax: the index of the first largest non-NaN value of
// each row, for rows longer than the workgroup (100) and shorter and odd
// (37), with ties and NaNs placed to catch a wrong tie-break.
func TestPublic3TFJSArgMax(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, tfjsArgMax, "_start", nil)
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
		par := p3Params(t, tfjsArgMaxUniforms{nan, float32(math.Inf(1)), [2]int32{rows, int32(cols)}, int32(cols), rows, rows, float32(math.Inf(-1))})
		out := upI32(t, s, make([]int32, rows))
		launch(t, s, k, recorder.Groups(rows, 1, 1), out, upload(t, s, x), par)
		wantSame(t, "argmax of each row", want, readI32(t, s, out))
	}
}

// ---------------------------------------------------------------------------
// tfjs-backend-webgpu Conv2DNaiveProgram, fused with a bias and leaky ReLU:
// a uniform where an i32 packs into a vec3's last four bytes, vec4<i32>
// coordinates with all(), dot of integer vectors as index math.

const tfjsConv2DNaive = `struct Uniforms { NAN : f32, INFINITY : f32, xShape : vec4<i32>, xShapeStrides: vec3<i32>, WShape : vec4<i32>, WShapeStrides: vec3<i32>, biasShape : i32, outShape : vec4<i32>, outShapeStrides: vec3<i32>, size : i32, filterDims : vec2<i32>, pads : vec2<i32>, strides : vec2<i32>, dilations : vec2<i32>, alpha : f32, };
@group(0) @binding(0) var<storage, read_write> result: array<f32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> W: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<uniform> uniforms: Uniforms;

var<private> localId: vec3<u32>;
var<private> workgroupId: vec3<u32>;
var<private> numWorkgroups: vec3<u32>;

fn getGlobalIndex() -> i32 {
  return i32((workgroupId.z * numWorkgroups.x * numWorkgroups.y +
    workgroupId.y * numWorkgroups.x + workgroupId.x) * 64u + localId.x);
}

fn getCoordsFromIndex(index : i32) -> vec4<i32> {
  var index2 = index;let d0 = index2 / uniforms.outShapeStrides.x; index2 = index2 - d0 * uniforms.outShapeStrides.x;let d1 = index2 / uniforms.outShapeStrides.y; index2 = index2 - d1 * uniforms.outShapeStrides.y;let d2 = index2 / uniforms.outShapeStrides.z; let d3 = index2 - d2 * uniforms.outShapeStrides.z;
  return vec4<i32>(d0,d1,d2,d3);
}

fn getOutputCoords() -> vec4<i32> {
  let globalIndex = getGlobalIndex();
  return getCoordsFromIndex(globalIndex);
}

fn getIndexFromCoords4D(coords : vec4<i32>, shape : vec4<i32>) -> i32 {
  return dot(coords, vec4<i32>(
      shape.y * shape.z * shape.w, shape.z * shape.w, shape.w, 1));
}

fn getOutputIndexFromCoords(coords : vec4<i32>) -> i32 {
  return dot(coords, vec4<i32>(
    uniforms.outShapeStrides.x, uniforms.outShapeStrides.y, uniforms.outShapeStrides.z, 1));
}

fn setOutputAtIndex(flatIndex : i32, value : f32) {
  result[flatIndex] = f32(value);
}

fn setOutputAtCoords(d0 : i32, d1 : i32, d2 : i32, d3 : i32, value : f32) {
  let flatIndex = getOutputIndexFromCoords(vec4<i32>(d0, d1, d2, d3));
  setOutputAtIndex(flatIndex, value);
}

fn getX(d0 : i32, d1 : i32, d2 : i32, d3 : i32) -> f32 {
  return f32(x[getIndexFromCoords4D(vec4<i32>(d0,d1,d2,d3),
    uniforms.xShape)]);
}

fn getW(d0 : i32, d1 : i32, d2 : i32, d3 : i32) -> f32 {
  return f32(W[getIndexFromCoords4D(vec4<i32>(d0,d1,d2,d3),
    uniforms.WShape)]);
}

fn coordsInBounds4D(coord : vec4<i32>, shape : vec4<i32>) -> bool {
  return all(coord >= vec4<i32>(0)) &&
      all(coord < shape);
}

fn activation(a : f32, outCoord : vec4<i32>) -> f32 {
  let b = a * uniforms.alpha;
  return select(b, a, a >= 0.0);
}

fn readInp(batch : i32, row : i32, col : i32, chan : i32) -> f32 {
  let coords = vec4<i32>(batch, row, col, chan);
  if (coordsInBounds4D(coords, uniforms.xShape)) {
    return  getX(batch, row, col, chan);
  } else {
   return 0.0;
  }
}

fn readFilt(row : i32, col : i32, xChannel : i32, outChannel : i32) -> f32{
  let coords = vec4<i32>(row, col, xChannel, outChannel);
  if(coordsInBounds4D(coords, uniforms.WShape)) {
    return getW(row, col, xChannel, outChannel);
   } else {
    return 0.0;
   }
}

fn writeResult(batch : i32, row : i32, col : i32, chan : i32, valueIn : f32) {
  let coords = vec4<i32>(batch, row, col, chan);
  if (coordsInBounds4D(coords, uniforms.outShape)) {
    var value = valueIn;
    value = value + bias[chan];
    value = activation(value, coords);
    setOutputAtCoords(coords[0], coords[1], coords[2], coords[3], value);
  }
}

@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>,
          @builtin(workgroup_id) WorkgroupId : vec3<u32>,
          @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  localId = LocalId;
  workgroupId = WorkgroupId;
  numWorkgroups = NumWorkgroups;
  main(getGlobalIndex());
}

fn main(index : i32) {
  let coords = getOutputCoords();
  let batch = coords[0];
  let outChannel = coords[3];
  var acc = 0.0;
  for (var row = 0; row < uniforms.filterDims[0]; row = row + 1) {
    for (var col = 0; col < uniforms.filterDims[1]; col = col + 1) {
      let xRow = coords[1] * uniforms.strides[0] + uniforms.dilations[0] * row - uniforms.pads[0];
      let xCol = coords[2] * uniforms.strides[1] + uniforms.dilations[1] * col - uniforms.pads[1];
      for (var xChannel = 0; xChannel < uniforms.xShape[3]; xChannel = xChannel + 1) {
        let v = readInp(batch, xRow, xCol, xChannel);
        let f = readFilt(row, col, xChannel, outChannel);
        acc = acc + v * f;
      }
    }
  }
  writeResult(batch, coords[1], coords[2], outChannel, acc);
}
`

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

// TestPublic3TFJSConv2DNaive: an NHWC convolution with padding, strides
// and dilation over small integers (so every sum is exact), plus bias and
// leaky ReLU by 1/4, equals the reference bit for bit; the uniform's i32
// after a vec3 sits at byte 76 of a 160-byte struct.
func TestPublic3TFJSConv2DNaive(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, tfjsConv2DNaive, "_start", nil)
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
		par := p3Params(t, u)
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

const ortMatMulNBits = `override HAS_ZERO_POINTS: bool = true;
struct Uniforms { M:u32, N:u32, K:u32, blocks_per_col:u32 };
@group(0) @binding(5) var<uniform> uniforms: Uniforms;
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read> zero_points: array<u32>;
@group(0) @binding(4) var<storage, read_write> output: array<f32>;

fn get_zero_point(n: u32, block: u32) -> f32 {
  let zero_point_index = n * uniforms.blocks_per_col + block;
  let zero_point_word = zero_points[zero_point_index / 8u];
  // The default zero point is 8 for unsigned 4-bit quantization.
  return select(8.0, f32(extractBits(zero_point_word, (zero_point_index % 8u) * 4u, 4u)), HAS_ZERO_POINTS);
}

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let col = global_id.x;
  let row = global_id.y;
  if (col >= uniforms.N || row >= uniforms.M) {
    return;
  }
  var inter_result = 0.0;
  for (var block: u32 = 0; block < uniforms.blocks_per_col; block++) {
    let scale = scales[col * uniforms.blocks_per_col + block];
    let zero_point = get_zero_point(col, block);
    let b_data = b[col * uniforms.blocks_per_col + block];
    var a_offset = (row * uniforms.K + block * 32u) / 4u;
    for (var i: u32 = 0; i < 4; i++) {
      let b_value = b_data[i];
      let b_value_lower = unpack4xU8(b_value & 0x0F0F0F0Fu);
      let b_value_upper = unpack4xU8((b_value >> 4) & 0x0F0F0F0Fu);
      let b_quantized_values = mat2x4<f32>(f32(b_value_lower[0]), f32(b_value_upper[0]), f32(b_value_lower[1]), f32(b_value_upper[1]), f32(b_value_lower[2]), f32(b_value_upper[2]), f32(b_value_lower[3]), f32(b_value_upper[3]));
      let b_dequantized_values = (b_quantized_values - mat2x4<f32>(zero_point, zero_point, zero_point, zero_point, zero_point, zero_point, zero_point, zero_point)) * scale;
      let a_data0 = a[a_offset];
      let a_data1 = a[a_offset + 1];
      inter_result += dot(a_data0, b_dequantized_values[0]) + dot(a_data1, b_dequantized_values[1]);
      a_offset += 2;
    }
  }
  output[row * uniforms.N + col] = inter_result;
}
`

// TestPublic3ORTMatMulNBits: a 5×64 by 64×9 product with 4-bit weights,
// scales that are powers of two and small integer activations (every sum
// exact), with packed zero points and with the default 8, bit for bit.
func TestPublic3ORTMatMulNBits(t *testing.T) {
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
		k := rwKernel(t, d, ortMatMulNBits, "main", consts)
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
// bevy_hanabi's particle init pass: the PCG hash of reedbeta's "Hash
// Functions for GPU Rendering", a var<private> seed, bitcast to make a
// float in [1, 2), the 1. literal, a dead list recycled with atomicSub and
// an alive list grown with atomicAdd through a RenderIndirect struct of
// atomics, bind groups 0 to 3.

const hanabiInit = `struct Particle {
    position: vec3<f32>,
    age: f32,
    velocity: vec3<f32>,
    lifetime: f32,
};

struct ParticlesBuffer {
    particles: array<Particle>,
};

struct SimParams {
    dt: f32,
    time: f32,
};

struct Spawner {
    transform: mat3x4<f32>, // transposed (row-major)
    spawn: atomic<i32>,
    seed: u32,
    count_unused: u32,
    effect_index: u32,
};

struct IndirectBuffer {
    indices: array<u32>,
};

struct RenderIndirectBuffer {
    vertex_count: u32,
    instance_count: atomic<u32>,
    base_index: u32,
    vertex_offset: i32,
    base_instance: u32,
    alive_count: atomic<u32>,
    dead_count: atomic<u32>,
    max_spawn: atomic<u32>,
    ping: u32,
};

@group(0) @binding(0) var<uniform> sim_params : SimParams;
@group(1) @binding(0) var<storage, read_write> particle_buffer : ParticlesBuffer;
@group(1) @binding(1) var<storage, read_write> indirect_buffer : IndirectBuffer;
@group(2) @binding(0) var<storage, read_write> spawner : Spawner; // NOTE - same group as update
@group(3) @binding(0) var<storage, read_write> render_indirect : RenderIndirectBuffer;

var<private> seed : u32 = 0u;

const tau: f32 = 6.283185307179586476925286766559;

// Rand: PCG
// https://www.reedbeta.com/blog/hash-functions-for-gpu-rendering/
fn pcg_hash(input: u32) -> u32 {
    var state: u32 = input * 747796405u + 2891336453u;
    var word: u32 = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

fn to_float01(u: u32) -> f32 {
    // Note: could generate only 24 bits of randomness
    return bitcast<f32>((u & 0x007fffffu) | 0x3f800000u) - 1.;
}

// Random floating-point number in [0:1]
fn frand() -> f32 {
    seed = pcg_hash(seed);
    return to_float01(pcg_hash(seed));
}

struct PosVel {
    pos: vec3<f32>,
    vel: vec3<f32>,
};

fn init_pos_vel(index: u32) -> PosVel {
    var ret : PosVel;
    // Sphere center
    let center = vec3<f32>(0., 0., 0.);
    // Sphere radius
    let radius = 2.;
    // Radial speed
    let speed = 1.5;
    // Spawn randomly along the sphere surface using Archimedes's theorem
    var theta = frand() * tau;
    var z = frand() * 2. - 1.;
    var phi = acos(z);
    var sinphi = sin(phi);
    var x = sinphi * cos(theta);
    var y = sinphi * sin(theta);
    var dir = vec3<f32>(x, y, z);
    ret.pos = center + radius * dir;
    // Radial speed away from sphere center
    ret.vel = dir * speed;
    return ret;
}

fn init_lifetime() -> f32 {
    return 5.0;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) global_invocation_id: vec3<u32>) {
    let thread_index = global_invocation_id.x;

    // Cap to max number of dead particles, copied from dead_count at the end of the
    // previous iteration, and constant during this pass (unlike dead_count).
    let max_spawn = atomicLoad(&render_indirect.max_spawn);
    if (thread_index >= max_spawn) {
        return;
    }

    // Recycle a dead particle
    let dead_index = atomicSub(&render_indirect.dead_count, 1u) - 1u;
    let index = indirect_buffer.indices[3u * dead_index + 2u];

    // Update PRNG seed
    seed = pcg_hash(index ^ spawner.seed);

    // Initialize new particle
    var particle = Particle();
    {
        let index = index; // shadowed, as generated modifier code does
        let posVel = init_pos_vel(index);
        particle.position = posVel.pos;
        particle.velocity = posVel.vel;
    }
    particle.lifetime = init_lifetime();
    particle.age = 0.0;

    // Store
    particle_buffer.particles[index] = particle;

    // Add to alive list
    let ping = render_indirect.ping;
    let indirect_index = atomicAdd(&render_indirect.alive_count, 1u);
    indirect_buffer.indices[3u * indirect_index + ping] = index;

    // Add to render list
    atomicAdd(&render_indirect.instance_count, 1u);
}
`

func pcgHash(input uint32) uint32 {
	state := input*747796405 + 2891336453
	word := ((state >> ((state >> 28) + 4)) ^ state) * 277803737
	return (word >> 22) ^ word
}

func toFloat01(u uint32) float32 { return math.Float32frombits(u&0x007fffff|0x3f800000) - 1 }

// TestPublic3HanabiParticleInit: 40 spawns recycle the top 40 entries of
// a dead list of 100 into the alive list after its 10 live entries (as a
// set: the order is the invocations'), bump the counters exactly, leave
// other particles alone, and initialise each recycled particle from
// pcg_hash(index ^ seed): age and lifetime exactly, position and velocity
// on the sphere within 5e-4 (acos, and sin and cos of up to 2π).
func TestPublic3HanabiParticleInit(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, hanabiInit, "main", nil)
	const capacity, dead, alive, spawn, spawnerSeed = 128, 100, 10, 40, 0x1234567
	indices := make([]uint32, 3*capacity)
	for i := range indices {
		indices[i] = 0xAAAAAAAA
	}
	for i := 0; i < dead; i++ {
		indices[3*i+2] = uint32((i*37 + 11) % capacity)
	}
	particles := seqF(8*capacity, func(int) float32 { return -7 })
	spawner := make([]uint32, 16) // mat3x4 (48 bytes), spawn, seed, count_unused, effect_index
	spawner[13] = spawnerSeed
	ri := []uint32{6, 0, 0, 0, 0, alive, dead, spawn, 0}
	pb, ib, sb, rb := upload(t, s, particles), upU32(t, s, indices), upU32(t, s, spawner), upU32(t, s, ri)
	launch(t, s, k, recorder.Groups(1, 1, 1), pb, ib, sb, rb) // sim_params is declared, not used: not bound

	wantSame(t, "render indirect counters", []uint32{6, spawn, 0, 0, 0, alive + spawn, dead - spawn, spawn, 0}, readU32(t, s, rb))
	gotIdx := readU32(t, s, ib)
	var recycled, listed []uint32
	for i := dead - spawn; i < dead; i++ {
		recycled = append(recycled, indices[3*i+2])
	}
	for i := alive; i < alive+spawn; i++ {
		listed = append(listed, gotIdx[3*i])
	}
	slices.Sort(recycled)
	slices.Sort(listed)
	wantSame(t, "alive entries appended (as a set)", recycled, listed)
	for i := range gotIdx { // nothing else in the lists moved
		if i%3 == 0 && i/3 >= alive && i/3 < alive+spawn {
			continue
		}
		if gotIdx[i] != indices[i] {
			t.Errorf("indices[%d] = %#x, want %#x", i, gotIdx[i], indices[i])
		}
	}
	got := read(t, s, pb)
	want := append([]float32(nil), particles...)
	for _, idx := range recycled {
		seed := pcgHash(idx ^ spawnerSeed)
		seed = pcgHash(seed)
		theta := float64(toFloat01(pcgHash(seed))) * 6.283185307179586
		seed = pcgHash(seed)
		z := float64(toFloat01(pcgHash(seed))*2 - 1)
		sinphi := math.Sin(math.Acos(z))
		dir := [3]float64{sinphi * math.Cos(theta), sinphi * math.Sin(theta), z}
		p := want[8*idx:][:8]
		for c := 0; c < 3; c++ {
			p[c] = float32(2 * dir[c])
			p[4+c] = float32(1.5 * dir[c])
		}
		p[3], p[7] = 0, 5
	}
	// WGSL bounds sin and cos by 2^-11 absolute on [-π, π] (theta reaches
	// 2π; lavapipe was 6e-5 off there) and acos by atan2's and sqrt's.
	wantSame(t, "particles", want, got, near(5e-4))
	for _, idx := range recycled { // age and lifetime exactly
		wantSame(t, "age and lifetime", []float32{0, 5}, []float32{got[8*idx+3], got[8*idx+7]})
	}
}

// ---------------------------------------------------------------------------
// A linear BVH builder's first passes (Karras 2012, as WebGPU path tracers
// port it): scene bounds by atomicMin/atomicMax over the bits of positive
// floats through a struct of atomics, then 30-bit Morton codes of the
// primitives' centroids, from an array of AABBs of two vec3 each.

const lbvhMorton = `struct AABB {
    min: vec3<f32>,
    max: vec3<f32>,
};

struct SceneBounds {
    min_x: atomic<u32>, min_y: atomic<u32>, min_z: atomic<u32>,
    max_x: atomic<u32>, max_y: atomic<u32>, max_z: atomic<u32>,
};

@group(0) @binding(0) var<storage, read> aabbs: array<AABB>;
@group(0) @binding(1) var<storage, read_write> bounds: SceneBounds;
@group(0) @binding(2) var<storage, read_write> morton_codes: array<u32>;
@group(0) @binding(3) var<storage, read_write> primitive_ids: array<u32>;

// Expands a 10-bit integer into 30 bits by inserting 2 zeros after each bit.
fn expandBits(v: u32) -> u32 {
    var x = v & 0x3ffu;
    x = (x | (x << 16u)) & 0x030000FFu;
    x = (x | (x <<  8u)) & 0x0300F00Fu;
    x = (x | (x <<  4u)) & 0x030C30C3u;
    x = (x | (x <<  2u)) & 0x09249249u;
    return x;
}

// Calculates a 30-bit Morton code for the given 3D point located within
// the unit cube [0,1].
fn morton3D(p: vec3<f32>) -> u32 {
    let q = vec3<u32>(clamp(p * 1024.0, vec3(0.0), vec3(1023.0)));
    return (expandBits(q.x) << 2u) | (expandBits(q.y) << 1u) | expandBits(q.z);
}

@compute @workgroup_size(64)
fn compute_bounds(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&aabbs)) {
        return;
    }
    let box = aabbs[i];
    // Non-negative floats order like their bit patterns.
    atomicMin(&bounds.min_x, bitcast<u32>(box.min.x));
    atomicMin(&bounds.min_y, bitcast<u32>(box.min.y));
    atomicMin(&bounds.min_z, bitcast<u32>(box.min.z));
    atomicMax(&bounds.max_x, bitcast<u32>(box.max.x));
    atomicMax(&bounds.max_y, bitcast<u32>(box.max.y));
    atomicMax(&bounds.max_z, bitcast<u32>(box.max.z));
}

@compute @workgroup_size(64)
fn compute_morton(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&aabbs)) {
        return;
    }
    let lo = bitcast<vec3<f32>>(vec3(atomicLoad(&bounds.min_x), atomicLoad(&bounds.min_y), atomicLoad(&bounds.min_z)));
    let hi = bitcast<vec3<f32>>(vec3(atomicLoad(&bounds.max_x), atomicLoad(&bounds.max_y), atomicLoad(&bounds.max_z)));
    let box = aabbs[i];
    let centroid = 0.5 * (box.min + box.max);
    let extent = max(hi - lo, vec3(1e-6));
    morton_codes[i] = morton3D((centroid - lo) / extent);
    primitive_ids[i] = i;
}
`

func expandBits(v uint32) uint32 {
	x := v & 0x3ff
	x = (x | x<<16) & 0x030000FF
	x = (x | x<<8) & 0x0300F00F
	x = (x | x<<4) & 0x030C30C3
	x = (x | x<<2) & 0x09249249
	return x
}

// TestPublic3LBVHMortonCodes: the scene bounds are the exact extremes, and
// every Morton code equals the reference's (bounds spanning [0, 1], [0, 2]
// and [0, 4], corners on multiples of 1/512, so every step is exact).
func TestPublic3LBVHMortonCodes(t *testing.T) {
	d, s := openStream(t)
	kb := rwKernel(t, d, lbvhMorton, "compute_bounds", nil)
	km := rwKernel(t, d, lbvhMorton, "compute_morton", nil)
	const n = 150
	scale := [3]float32{1, 2, 4}
	boxes := make([]float32, 0, 8*n)
	lo, hi := [3]float32{9, 9, 9}, [3]float32{}
	var cents [][3]float32
	for i := 0; i < n; i++ {
		var a, b, c [3]float32
		for k := 0; k < 3; k++ {
			x := float32(lcg(3*i+k)>>23) / 512 * scale[k] // [0, scale)
			w := float32(lcg(7*i+k)>>27) / 512 * scale[k]
			a[k], b[k] = x, min(x+w, scale[k])
			if i == 0 {
				a[k] = 0
			}
			if i == 1 {
				b[k] = scale[k]
			}
			lo[k], hi[k] = min(lo[k], a[k]), max(hi[k], b[k])
			c[k] = (a[k] + b[k]) / 2
		}
		cents = append(cents, c)
		boxes = append(boxes, a[0], a[1], a[2], 0, b[0], b[1], b[2], 0)
	}
	bb := upU32(t, s, []uint32{0xffffffff, 0xffffffff, 0xffffffff, 0, 0, 0})
	codes, ids := empty(t, s, n), empty(t, s, n)
	ab := upload(t, s, boxes)
	launch(t, s, kb, recorder.Groups(3, 1, 1), ab, bb)
	launch(t, s, km, recorder.Groups(3, 1, 1), ab, bb, codes, ids)
	wantSame(t, "scene bounds", bitsOf([]float32{lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]}), readU32(t, s, bb))
	want := make([]uint32, n)
	for i, c := range cents {
		var q [3]uint32
		for k := 0; k < 3; k++ {
			q[k] = uint32(min(max((c[k]-lo[k])/(hi[k]-lo[k])*1024, 0), 1023))
		}
		want[i] = expandBits(q[0])<<2 | expandBits(q[1])<<1 | expandBits(q[2])
	}
	wantSame(t, "morton codes", want, readU32(t, s, codes))
	wantSame(t, "primitive ids", seq(n, func(i int) uint32 { return uint32(i) }), readU32(t, s, ids))
}

// ---------------------------------------------------------------------------
// Marching cubes' classification pass (Paul Bourke's "Polygonising a
// scalar field", as WebGPU ports write it): a texture_3d<f32> sampled at
// the eight corners through an abstract const array of vec3 offsets (with
// a trailing comma; was refused: made a var<private> array<vec3<i32>, 8>,
// its abstract initializer did not match the type for naga v22, and is now
// spelled array<vec3<i32>, 8>(...)), the 256-entry edge table as a module
// const indexed at run time, countOneBits into an atomic vertex count.

const marchingCubesClassify = `struct Params {
    isolevel: f32,
    grid: vec3<u32>,
}

@group(0) @binding(0) var volume: texture_3d<f32>;
@group(0) @binding(1) var<storage, read_write> cube_index: array<u32>;
@group(0) @binding(2) var<storage, read_write> vertex_count: atomic<u32>;
@group(0) @binding(3) var<uniform> params: Params;

const cornerOffsets = array(
    vec3(0, 0, 0), vec3(1, 0, 0), vec3(1, 1, 0), vec3(0, 1, 0),
    vec3(0, 0, 1), vec3(1, 0, 1), vec3(1, 1, 1), vec3(0, 1, 1),
);

const edgeTable = array<u32, 256>(
    0x0, 0x109, 0x203, 0x30a, 0x406, 0x50f, 0x605, 0x70c, 0x80c, 0x905, 0xa0f, 0xb06, 0xc0a, 0xd03, 0xe09, 0xf00,
    0x190, 0x99, 0x393, 0x29a, 0x596, 0x49f, 0x795, 0x69c, 0x99c, 0x895, 0xb9f, 0xa96, 0xd9a, 0xc93, 0xf99, 0xe90,
    0x230, 0x339, 0x33, 0x13a, 0x636, 0x73f, 0x435, 0x53c, 0xa3c, 0xb35, 0x83f, 0x936, 0xe3a, 0xf33, 0xc39, 0xd30,
    0x3a0, 0x2a9, 0x1a3, 0xaa, 0x7a6, 0x6af, 0x5a5, 0x4ac, 0xbac, 0xaa5, 0x9af, 0x8a6, 0xfaa, 0xea3, 0xda9, 0xca0,
    0x460, 0x569, 0x663, 0x76a, 0x66, 0x16f, 0x265, 0x36c, 0xc6c, 0xd65, 0xe6f, 0xf66, 0x86a, 0x963, 0xa69, 0xb60,
    0x5f0, 0x4f9, 0x7f3, 0x6fa, 0x1f6, 0xff, 0x3f5, 0x2fc, 0xdfc, 0xcf5, 0xfff, 0xef6, 0x9fa, 0x8f3, 0xbf9, 0xaf0,
    0x650, 0x759, 0x453, 0x55a, 0x256, 0x35f, 0x55, 0x15c, 0xe5c, 0xf55, 0xc5f, 0xd56, 0xa5a, 0xb53, 0x859, 0x950,
    0x7c0, 0x6c9, 0x5c3, 0x4ca, 0x3c6, 0x2cf, 0x1c5, 0xcc, 0xfcc, 0xec5, 0xdcf, 0xcc6, 0xbca, 0xac3, 0x9c9, 0x8c0,
    0x8c0, 0x9c9, 0xac3, 0xbca, 0xcc6, 0xdcf, 0xec5, 0xfcc, 0xcc, 0x1c5, 0x2cf, 0x3c6, 0x4ca, 0x5c3, 0x6c9, 0x7c0,
    0x950, 0x859, 0xb53, 0xa5a, 0xd56, 0xc5f, 0xf55, 0xe5c, 0x15c, 0x55, 0x35f, 0x256, 0x55a, 0x453, 0x759, 0x650,
    0xaf0, 0xbf9, 0x8f3, 0x9fa, 0xef6, 0xfff, 0xcf5, 0xdfc, 0x2fc, 0x3f5, 0xff, 0x1f6, 0x6fa, 0x7f3, 0x4f9, 0x5f0,
    0xb60, 0xa69, 0x963, 0x86a, 0xf66, 0xe6f, 0xd65, 0xc6c, 0x36c, 0x265, 0x16f, 0x66, 0x76a, 0x663, 0x569, 0x460,
    0xca0, 0xda9, 0xea3, 0xfaa, 0x8a6, 0x9af, 0xaa5, 0xbac, 0x4ac, 0x5a5, 0x6af, 0x7a6, 0xaa, 0x1a3, 0x2a9, 0x3a0,
    0xd30, 0xc39, 0xf33, 0xe3a, 0x936, 0x83f, 0xb35, 0xa3c, 0x53c, 0x435, 0x73f, 0x636, 0x13a, 0x33, 0x339, 0x230,
    0xe90, 0xf99, 0xc93, 0xd9a, 0xa96, 0xb9f, 0x895, 0x99c, 0x69c, 0x795, 0x49f, 0x596, 0x29a, 0x393, 0x99, 0x190,
    0xf00, 0xe09, 0xd03, 0xc0a, 0xb06, 0xa0f, 0x905, 0x80c, 0x70c, 0x605, 0x50f, 0x406, 0x30a, 0x203, 0x109, 0x0,
);

@compute @workgroup_size(4, 4, 4)
fn classify(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id >= params.grid)) {
        return;
    }
    var cubeindex = 0u;
    for (var i = 0; i < 8; i++) {
        let p = vec3<i32>(id) + cornerOffsets[i];
        if (textureLoad(volume, p, 0).r < params.isolevel) {
            cubeindex |= 1u << u32(i);
        }
    }
    let edges = edgeTable[cubeindex];
    let cell = id.x + params.grid.x * (id.y + params.grid.y * id.z);
    cube_index[cell] = cubeindex | (edges << 8u);
    if (edges != 0u) {
        atomicAdd(&vertex_count, countOneBits(edges));
    }
}
`

// TestPublic3MarchingCubesClassify: over a 7×6×5 field of a sphere's
// distance (cells 6×5×4, the workgroups partly outside), each cell's
// corner mask and edge mask, and the total of crossed edges, equal the
// reference's (which derives each edge bit from its two corners, not from
// the table).
func TestPublic3MarchingCubesClassify(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, marchingCubesClassify, "classify", nil)
	const w, h, dd = 7, 6, 5
	field := make([]float32, w*h*dd)
	for z := 0; z < dd; z++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				dx, dy, dz := float32(x)-3, float32(y)-2.5, float32(z)-2
				field[(z*h+y)*w+x] = dx*dx + dy*dy + dz*dz + float32(lcg(x+7*y+49*z)>>30)
			}
		}
	}
	tex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Depth: dd, Format: "r32float"}, asBytesF(field))
	grid := [3]uint32{w - 1, h - 1, dd - 1}
	cells := int(grid[0] * grid[1] * grid[2])
	par := p3Params(t, struct {
		Iso  float32
		Grid [3]uint32
	}{6.5, grid})
	out, count := empty(t, s, cells), upU32(t, s, []uint32{0})
	launch(t, s, k, recorder.Groups(2, 2, 1), tex, out, count, par)
	offs := [8][3]int{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}
	edges := [12][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}
	want := make([]uint32, cells)
	total := uint32(0)
	for z := 0; z < int(grid[2]); z++ {
		for y := 0; y < int(grid[1]); y++ {
			for x := 0; x < int(grid[0]); x++ {
				ci := uint32(0)
				for i, o := range offs {
					if field[((z+o[2])*h+y+o[1])*w+x+o[0]] < 6.5 {
						ci |= 1 << i
					}
				}
				em := uint32(0)
				for e, ab := range edges {
					if ci>>ab[0]&1 != ci>>ab[1]&1 {
						em |= 1 << e
					}
				}
				total += uint32(bits.OnesCount32(em))
				want[x+int(grid[0])*(y+int(grid[1])*z)] = ci | em<<8
			}
		}
	}
	wantSame(t, "cube and edge masks", want, readU32(t, s, out))
	wantSame(t, "vertex count", []uint32{total}, readU32(t, s, count))
}

// ---------------------------------------------------------------------------
// Grayscale and Sobel edge magnitude, as WebGPU image-filter demos write it:
// a diagnostic directive, Sobel kernels as module const mat3x3f indexed at
// run time (was refused: naga v22's "may only be indexed by a constant";
// such a const now becomes a var<private> as a const array does), clamp of
// coordinates to the edge with vec2(0) and dims - 1, an rgba8unorm texture
// in and an r32float storage texture out.

const sobelFilter = `diagnostic(off, derivative_uniformity);

@group(0) @binding(0) var inputTex: texture_2d<f32>;
@group(0) @binding(1) var outputTex: texture_storage_2d<r32float, write>;

const sobelX = mat3x3f(-1, 0, 1, -2, 0, 2, -1, 0, 1);
const sobelY = mat3x3f(-1, -2, -1, 0, 0, 0, 1, 2, 1);

fn luminance(c: vec3<f32>) -> f32 {
    return dot(c, vec3(0.2126, 0.7152, 0.0722));
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let dims = vec2<i32>(textureDimensions(inputTex));
    let coord = vec2<i32>(gid.xy);
    if (coord.x >= dims.x || coord.y >= dims.y) {
        return;
    }
    var gx = 0.0;
    var gy = 0.0;
    for (var j = 0; j < 3; j++) {
        for (var i = 0; i < 3; i++) {
            let p = clamp(coord + vec2(i - 1, j - 1), vec2(0), dims - 1);
            let l = luminance(textureLoad(inputTex, p, 0).rgb);
            gx += sobelX[i][j] * l;
            gy += sobelY[i][j] * l;
        }
    }
    textureStore(outputTex, coord, vec4(length(vec2(gx, gy)), 0.0, 0.0, 1.0));
}
`

// TestPublic3SobelEdgeMagnitude: on a 13×10 image the edge magnitude of
// every pixel is the float64 reference's within 1e-5 (sums of weighted
// luminances and a square root).
func TestPublic3SobelEdgeMagnitude(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, sobelFilter, "main", nil)
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
	wantSame(t, "edge magnitude", want, p3F32s(readTex(t, s, out)), near(1e-5))
}

// ---------------------------------------------------------------------------
// A Jacobi step for Poisson's equation with a shared-memory tile and halo,
// as GPU stencil tutorials write it: const tile sizes in @workgroup_size
// and in a nested workgroup array, a cooperative strided load by
// local_invocation_index, zero (Dirichlet) boundaries from a helper.

const jacobiHalo = `struct Params {
    width: u32,
    height: u32,
}

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> rhs: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

const TILE = 8u;
const HALO = 1u;
const SIZE = TILE + 2u * HALO;

var<workgroup> tile: array<array<f32, SIZE>, SIZE>;

fn load(x: i32, y: i32) -> f32 {
    // Dirichlet boundary: zero outside the grid
    if (x < 0 || y < 0 || x >= i32(params.width) || y >= i32(params.height)) {
        return 0.0;
    }
    return src[u32(y) * params.width + u32(x)];
}

@compute @workgroup_size(TILE, TILE)
fn jacobi(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(local_invocation_id) lid: vec3u,
    @builtin(local_invocation_index) li: u32,
) {
    let origin = vec2<i32>(wid.xy * TILE) - vec2(i32(HALO));
    for (var i = li; i < SIZE * SIZE; i += TILE * TILE) {
        let ty = i / SIZE;
        let tx = i % SIZE;
        tile[ty][tx] = load(origin.x + i32(tx), origin.y + i32(ty));
    }
    workgroupBarrier();

    let g = wid.xy * TILE + lid.xy;
    if (g.x >= params.width || g.y >= params.height) {
        return;
    }
    let c = lid.xy + vec2(HALO);
    let sum = tile[c.y][c.x - 1u] + tile[c.y][c.x + 1u] + tile[c.y - 1u][c.x] + tile[c.y + 1u][c.x];
    dst[g.y * params.width + g.x] = 0.25 * (sum + rhs[g.y * params.width + g.x]);
}
`

// TestPublic3JacobiSharedTile: six ping-pong steps on a 20×13 grid (tiles
// cut by its edges) equal the reference bit for bit: every value is a
// multiple of 4^-6 well inside f32's precision, so the sums are exact.
func TestPublic3JacobiSharedTile(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, jacobiHalo, "jacobi", nil)
	const w, h = 20, 13
	rhs := make([]float32, w*h)
	for i := range rhs {
		if lcg(i)>>28 == 3 {
			rhs[i] = float32(4 * (lcg(i+1) >> 29))
		}
	}
	rhs[0], rhs[w*h-1] = 16, 8
	a, b := upload(t, s, make([]float32, w*h)), empty(t, s, w*h)
	rb := upload(t, s, rhs)
	par := recorder.ParamsOf[uint32](w, h)
	cur := make([]float32, w*h)
	for step := 0; step < 6; step++ {
		launch(t, s, k, recorder.Groups(3, 2, 1), a, rb, b, par)
		a, b = b, a
		next := make([]float32, w*h)
		at := func(x, y int) float32 {
			if x < 0 || y < 0 || x >= w || y >= h {
				return 0
			}
			return cur[y*w+x]
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				next[y*w+x] = 0.25 * (at(x-1, y) + at(x+1, y) + at(x, y-1) + at(x, y+1) + rhs[y*w+x])
			}
		}
		cur = next
	}
	wantSame(t, "after six steps", bitsOf(cur), bitsOf(read(t, s, a)))
}

// ---------------------------------------------------------------------------
// Sparse matrix times vector over CSR, the two classic kernels: one
// invocation per row, and one workgroup per row whose first invocation
// reads the row's bounds and broadcasts them with workgroupUniformLoad,
// then a tree reduction.

const csrSpMV = `@group(0) @binding(0) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(1) var<storage, read> col_idx: array<u32>;
@group(0) @binding(2) var<storage, read> values: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn spmv_scalar(@builtin(global_invocation_id) gid: vec3u) {
    let row = gid.x;
    if (row + 1u >= arrayLength(&row_ptr)) {
        return;
    }
    var dot = 0.0;
    for (var j = row_ptr[row]; j < row_ptr[row + 1u]; j++) {
        dot += values[j] * x[col_idx[j]];
    }
    y[row] = dot;
}

const WG = 32u;
var<workgroup> row_bounds: vec2<u32>;
var<workgroup> partial: array<f32, WG>;

@compute @workgroup_size(WG)
fn spmv_vector(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lane: u32) {
    let row = wid.x;
    if (row + 1u >= arrayLength(&row_ptr)) {
        return;
    }
    if (lane == 0u) {
        row_bounds = vec2(row_ptr[row], row_ptr[row + 1u]);
    }
    let bounds = workgroupUniformLoad(&row_bounds);
    var acc = 0.0;
    for (var j = bounds.x + lane; j < bounds.y; j += WG) {
        acc += values[j] * x[col_idx[j]];
    }
    partial[lane] = acc;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
        if (lane < stride) {
            partial[lane] += partial[lane + stride];
        }
        workgroupBarrier();
    }
    if (lane == 0u) {
        y[row] = partial[0];
    }
}
`

// TestPublic3CSRSpMV: both kernels give the reference's y = A·x for a
// 50×40 matrix with empty rows and a row longer than the workgroup (small
// integers: every sum exact).
func TestPublic3CSRSpMV(t *testing.T) {
	d, s := openStream(t)
	scalar := rwKernel(t, d, csrSpMV, "spmv_scalar", nil)
	vector := rwKernel(t, d, csrSpMV, "spmv_vector", nil)
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
// Particle binning for neighbour search (SPH and collision demos): Teschner
// et al.'s spatial hash with wrapping i32 products and abs, a counting
// sort in three passes (count with atomicAdd, a workgroup scan that turns
// the counts into cursors with atomicStore, scatter into the slot
// atomicAdd returns).

const spatialHashBinning = `struct Particle {
    pos: vec3<f32>,
    radius: f32,
}

struct GridParams {
    cell_size: f32,
    table_size: u32,
    count: u32,
}

@group(0) @binding(0) var<storage, read> particles: array<Particle>;
@group(0) @binding(1) var<storage, read_write> cell_count: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> cell_start: array<u32>;
@group(0) @binding(3) var<storage, read_write> sorted_ids: array<u32>;
@group(0) @binding(4) var<storage, read_write> particle_cell: array<u32>;
@group(0) @binding(5) var<uniform> grid: GridParams;

fn cell_coord(p: vec3<f32>) -> vec3<i32> {
    return vec3<i32>(floor(p / grid.cell_size));
}

// Teschner et al. 2003, "Optimized Spatial Hashing for Collision Detection
// of Deformable Objects"
fn hash_cell(c: vec3<i32>) -> u32 {
    let h = (c.x * 73856093) ^ (c.y * 19349663) ^ (c.z * 83492791);
    return u32(abs(h)) % grid.table_size;
}

@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= grid.count) {
        return;
    }
    let cell = hash_cell(cell_coord(particles[i].pos));
    particle_cell[i] = cell;
    atomicAdd(&cell_count[cell], 1u);
}

var<workgroup> scan: array<u32, 64>;

@compute @workgroup_size(64)
fn prefix(@builtin(local_invocation_index) li: u32) {
    let v = select(0u, atomicLoad(&cell_count[li]), li < grid.table_size);
    scan[li] = v;
    workgroupBarrier();
    for (var off = 1u; off < 64u; off <<= 1u) {
        let add = select(0u, scan[li - off], li >= off);
        workgroupBarrier();
        scan[li] += add;
        workgroupBarrier();
    }
    if (li < grid.table_size) {
        cell_start[li] = scan[li] - v; // exclusive
        atomicStore(&cell_count[li], 0u); // now the scatter cursor
    }
}

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= grid.count) {
        return;
    }
    let cell = particle_cell[i];
    let slot = atomicAdd(&cell_count[cell], 1u);
    sorted_ids[cell_start[cell] + slot] = i;
}
`

func teschnerHash(c [3]int32, table uint32) uint32 {
	h := c[0]*73856093 ^ c[1]*19349663 ^ c[2]*83492791
	if h < 0 {
		h = -h // MinInt32 stays MinInt32, as WGSL's abs
	}
	return uint32(h) % table
}

// TestPublic3SpatialHashBinning: 300 particles (negative coordinates too)
// land in the reference's cells; cell starts are the exclusive scan of
// the counts; each cell's slice of the sorted ids holds exactly its
// particles (in any order); the cursors end at the counts.
func TestPublic3SpatialHashBinning(t *testing.T) {
	d, s := openStream(t)
	kc := rwKernel(t, d, spatialHashBinning, "count", nil)
	kp := rwKernel(t, d, spatialHashBinning, "prefix", nil)
	ks := rwKernel(t, d, spatialHashBinning, "scatter", nil)
	const n, table, cellSize = 300, 61, 0.25
	parts := make([]float32, 0, 4*n)
	cells := make([]uint32, n)
	counts := make([]uint32, table)
	for i := 0; i < n; i++ {
		var c [3]int32
		for k := 0; k < 3; k++ {
			v := float32(int(lcg(3*i+k)>>22)-512) / 256 // [-2, 2) in steps of 1/256
			parts = append(parts, v)
			c[k] = int32(math.Floor(float64(v / cellSize)))
		}
		parts = append(parts, 0.01)
		cells[i] = teschnerHash(c, table)
		counts[cells[i]]++
	}
	starts := make([]uint32, table)
	for c := 1; c < table; c++ {
		starts[c] = starts[c-1] + counts[c-1]
	}
	par := p3Params(t, struct {
		CellSize         float32
		TableSize, Count uint32
	}{cellSize, table, n})
	pb, cc, cs := upload(t, s, parts), upU32(t, s, make([]uint32, table)), empty(t, s, table)
	sorted, pc := empty(t, s, n), empty(t, s, n)
	launch(t, s, kc, recorder.Groups(5, 1, 1), pb, cc, pc, par)
	wantSame(t, "particle cells", cells, readU32(t, s, pc))
	wantSame(t, "cell counts", counts, readU32(t, s, cc))
	launch(t, s, kp, recorder.Groups(1, 1, 1), cc, cs, par)
	wantSame(t, "cell starts", starts, readU32(t, s, cs))
	launch(t, s, ks, recorder.Groups(5, 1, 1), cc, cs, sorted, pc, par)
	wantSame(t, "cursors end at the counts", counts, readU32(t, s, cc))
	got := readU32(t, s, sorted)
	for c := 0; c < table; c++ {
		var want []uint32
		for i := 0; i < n; i++ {
			if cells[i] == uint32(c) {
				want = append(want, uint32(i))
			}
		}
		slice := append([]uint32(nil), got[starts[c]:starts[c]+counts[c]]...)
		slices.Sort(slice)
		wantSame(t, "particles of a cell", want, slice, cmpopts.EquateEmpty())
	}
}

// ---------------------------------------------------------------------------
// A persistent-threads work queue: each workgroup's first invocation takes
// the next item from a global atomic into a workgroup atomic, and the
// workgroup reads it with workgroupUniformLoad's atomic overload (WGSL §
// 17.11.4: workgroupUniformLoad(p: ptr<workgroup, atomic<T>, read_write>)
// -> T), so the loop exit and its barriers stay uniform. Was refused:
// naga v22 lacks that overload ("Incompatible operands:
// GreaterEqual(Atomic(...), _)"); the front-end now calls a helper that
// loads the atomic between barriers into a workgroup temporary and returns
// workgroupUniformLoad of it.

const persistentQueue = `@group(0) @binding(0) var<storage, read_write> queue_head: atomic<u32>;
@group(0) @binding(1) var<storage, read> items: array<u32>;
@group(0) @binding(2) var<storage, read> data: array<u32>;
@group(0) @binding(3) var<storage, read_write> sums: array<u32>;

const ROW = 64u;
var<workgroup> next_item: atomic<u32>;
var<workgroup> partial: array<u32, ROW>;

@compute @workgroup_size(ROW)
fn persistent(@builtin(local_invocation_index) li: u32) {
    loop {
        if (li == 0u) {
            atomicStore(&next_item, atomicAdd(&queue_head, 1u));
        }
        let item = workgroupUniformLoad(&next_item);
        if (item >= arrayLength(&items)) {
            break;
        }
        partial[li] = data[items[item] * ROW + li];
        workgroupBarrier();
        for (var s = ROW / 2u; s > 0u; s >>= 1u) {
            if (li < s) {
                partial[li] += partial[li + s];
            }
            workgroupBarrier();
        }
        if (li == 0u) {
            sums[item] = partial[0];
        }
    }
}
`

// TestPublic3PersistentWorkQueueWithAtomicUniformLoad: three workgroups
// drain a queue of 11 row sums; each sum is the reference's and the head
// ends past the queue by one per workgroup.
func TestPublic3PersistentWorkQueueWithAtomicUniformLoad(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, persistentQueue, "persistent", nil)
	const rowsN, itemsN = 16, 11
	data := seq(rowsN*64, func(i int) uint32 { return lcg(i) >> 8 })
	items := seq(itemsN, func(i int) uint32 { return uint32(i*5+3) % rowsN })
	head := upU32(t, s, []uint32{0})
	sums := empty(t, s, itemsN)
	launch(t, s, k, recorder.Groups(3, 1, 1), head, upU32(t, s, items), upU32(t, s, data), sums)
	want := make([]uint32, itemsN)
	for i, r := range items {
		for j := 0; j < 64; j++ {
			want[i] += data[int(r)*64+j]
		}
	}
	wantSame(t, "row sums", want, readU32(t, s, sums))
	wantSame(t, "queue head", []uint32{itemsN + 3}, readU32(t, s, head))
}

// ---------------------------------------------------------------------------
// workgroupUniformLoad's atomic overload in every argument form the
// front-end rewrites: a whole workgroup atomic, an array element at a run
// time u32 index and at a constant one, a struct member of an array
// element at an i32 index; its result as a for loop's trip count, and
// re-read as a while loop's condition, with barriers inside both.

const atomicUniformLoadForms = `struct Counter {
    hits: atomic<u32>,
    delta: atomic<i32>,
}

@group(0) @binding(0) var<storage, read> cfg: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

var<workgroup> total: atomic<u32>;
var<workgroup> slots: array<atomic<u32>, 4>;
var<workgroup> counters: array<Counter, 2>;
var<workgroup> acc: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    atomicAdd(&total, li);
    atomicAdd(&slots[li % 4u], 1u + wg.x);
    atomicAdd(&counters[1].hits, 1u);
    atomicSub(&counters[1].delta, i32(li));
    let k = cfg[0];
    let t = workgroupUniformLoad(&total);
    let s = workgroupUniformLoad(&slots[k]);
    let h = workgroupUniformLoad(&counters[1].hits);
    let d = workgroupUniformLoad(&counters[i32(cfg[1])].delta);

    acc[li] = 0u;
    let rounds = workgroupUniformLoad(&slots[(k + 1u) % 4u]) / 16u;
    for (var r = 0u; r < rounds; r++) {
        workgroupBarrier();
        acc[li] += li + r;
        workgroupBarrier();
    }

    var n = 0u;
    while (workgroupUniformLoad(&counters[0].hits) < 5u) {
        if (li == 0u) {
            atomicAdd(&counters[0].hits, 1u);
        }
        n++;
        workgroupBarrier();
    }

    let o = (wg.x * 64u + li) * 6u;
    out[o] = t;
    out[o + 1u] = s;
    out[o + 2u] = h;
    out[o + 3u] = bitcast<u32>(d);
    out[o + 4u] = acc[li];
    out[o + 5u] = n;
}
`

// TestPublic3AtomicUniformLoadForms: two workgroups of 64 read every
// counter as the Go reference computes it once all 64 added (the sum of
// 0..63, 16 adds of 1 + workgroup per slot, 64 hits, -2016), run the for
// loop 1 + workgroup times and the while loop 5 times.
func TestPublic3AtomicUniformLoadForms(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, atomicUniformLoadForms, "main", nil)
	const groups = 2
	out := empty(t, s, groups*64*6)
	launch(t, s, k, recorder.Groups(groups, 1, 1), upU32(t, s, []uint32{2, 1}), out)
	var want []uint32
	for wg := uint32(0); wg < groups; wg++ {
		rounds := 1 + wg // slot (2 + 1) % 4 holds 16 * (1 + wg)
		delta := int32(-2016)
		for li := uint32(0); li < 64; li++ {
			acc := rounds*li + rounds*(rounds-1)/2
			want = append(want, 2016, 16*(1+wg), 64, uint32(delta), acc, 5)
		}
	}
	wantSame(t, "per invocation: total, slot, hits, delta, for-loop sum, while-loop count", want, readU32(t, s, out))
}

// ---------------------------------------------------------------------------
// An ocean FFT's butterfly texture (Flügge's "Realtime GPGPU FFT ocean
// water simulation", as WebGPU ocean demos port it): twiddle factors and
// the butterfly's input indices per stage in an rgba32float storage
// texture, the first stage's indices bit-reversed with reverseBits,
// select over unsigned index arithmetic.

const oceanButterfly = `struct Params {
    N: u32,
    log2N: u32,
}

@group(0) @binding(0) var butterfly: texture_storage_2d<rgba32float, write>;
@group(0) @binding(1) var<uniform> params: Params;

const PI: f32 = 3.1415926535897932384626433832795;

@compute @workgroup_size(1, 16, 1)
fn precompute_butterfly(@builtin(global_invocation_id) id: vec3<u32>) {
    let stage = id.x;
    let y = id.y;
    let N = params.N;
    let k = f32((y * (N >> (stage + 1u))) % N);
    let twiddle = vec2<f32>(cos(2.0 * PI * k / f32(N)), sin(2.0 * PI * k / f32(N)));
    let span = 1u << stage;
    let top_wing = (y % (span << 1u)) < span;
    let shift = 32u - params.log2N;
    if (stage == 0u) {
        let a = select(y - 1u, y, top_wing);
        let b = select(y, y + 1u, top_wing);
        textureStore(butterfly, vec2<i32>(id.xy), vec4(twiddle, f32(reverseBits(a) >> shift), f32(reverseBits(b) >> shift)));
    } else {
        let a = select(y - span, y, top_wing);
        let b = select(y, y + span, top_wing);
        textureStore(butterfly, vec2<i32>(id.xy), vec4(twiddle, f32(a), f32(b)));
    }
}
`

// TestPublic3OceanFFTButterflyTexture: for N = 32 every texel's indices
// are the reference's exactly and its twiddle within 5e-4 (WGSL bounds
// sin and cos by 2^-11 on [-π, π]; the angle reaches 2π).
func TestPublic3OceanFFTButterflyTexture(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, oceanButterfly, "precompute_butterfly", nil)
	const n, log2n = 32, 5
	tex := newTex(t, s, recorder.TextureDesc{Width: log2n, Height: n, Format: "rgba32float"}, nil)
	launch(t, s, k, recorder.Groups(log2n, n/16, 1), tex, recorder.ParamsOf[uint32](n, log2n))
	got := p3F32s(readTex(t, s, tex))
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

const labelPropagation = `requires readonly_and_readwrite_storage_textures;

@group(0) @binding(0) var labels: texture_storage_2d<r32uint, read_write>;
@group(0) @binding(1) var<storage, read_write> changed: atomic<u32>;

const BACKGROUND = 0xffffffffu;
const NEIGHBOURS = array(vec2(1, 0), vec2(-1, 0), vec2(0, 1), vec2(0, -1));

@compute @workgroup_size(8, 8)
fn propagate(@builtin(global_invocation_id) gid: vec3u) {
    let dims = vec2<i32>(textureDimensions(labels));
    let p = vec2<i32>(gid.xy);
    if (any(p >= dims)) {
        return;
    }
    let own = textureLoad(labels, p).x;
    if (own == BACKGROUND) {
        return;
    }
    var best = own;
    for (var i = 0u; i < 4u; i++) {
        let q = p + NEIGHBOURS[i];
        if (any(q < vec2(0)) || any(q >= dims)) {
            continue;
        }
        best = min(best, textureLoad(labels, q).x); // the background never wins
    }
    if (best < own) {
        textureStore(labels, p, vec4(best, 0u, 0u, 0u));
        atomicMax(&changed, 1u);
    }
}
`

// TestPublic3LabelPropagationReadWriteTexture: on a 19×14 mask every
// foreground pixel ends with the smallest index of its 4-connected
// component, background pixels keep their mark, and the loop stops by
// itself (fewer passes than pixels).
func TestPublic3LabelPropagationReadWriteTexture(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, labelPropagation, "propagate", nil)
	const w, h = 19, 14
	init := make([]uint32, w*h)
	for i := range init {
		init[i] = uint32(i)
		if lcg(i*3)>>30 == 0 || (i%w == 9 && i/w != 3) { // a wall with one gap
			init[i] = 0xffffffff
		}
	}
	tex := newTex(t, s, recorder.TextureDesc{Width: w, Height: h, Format: "r32uint"}, asBytesU(init))
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
	wantSame(t, "component labels", want, p3U32s(readTex(t, s, tex)))
}

// ---------------------------------------------------------------------------
// OmarShehata/webgpu-compute-rasterizer: triangles projected by a mat4x4
// in a uniform after two f32 (offset 16), a Vertex struct of three f32 (a
// 12-byte stride), atomicMin into an array<atomic<u32>> inside a struct,
// nested for loops with continue, tinyrenderer's barycentric() with an
// early return, an unused line-drawing helper, and a clear entry point.

const computeRasterizer = `struct ColorBuffer {
  values: array<atomic<u32>>,
};

struct UBO {
  screenWidth: f32,
  screenHeight: f32,
  modelViewProjectionMatrix: mat4x4<f32>,
};

struct Vertex { x: f32, y: f32, z: f32, };

struct VertexBuffer {
  values: array<Vertex>,
};

@group(0) @binding(0) var<storage, read_write> outputColorBuffer : ColorBuffer;
@group(0) @binding(1) var<storage, read> vertexBuffer : VertexBuffer;
@group(0) @binding(2) var<uniform> uniforms : UBO;

// From: https://github.com/ssloy/tinyrenderer/wiki/Lesson-2:-Triangle-rasterization-and-back-face-culling
fn barycentric(v1: vec3<f32>, v2: vec3<f32>, v3: vec3<f32>, p: vec2<f32>) -> vec3<f32> {
  let u = cross(
    vec3<f32>(v3.x - v1.x, v2.x - v1.x, v1.x - p.x),
    vec3<f32>(v3.y - v1.y, v2.y - v1.y, v1.y - p.y)
  );

  if (abs(u.z) < 1.0) {
    return vec3<f32>(-1.0, 1.0, 1.0);
  }

  return vec3<f32>(1.0 - (u.x+u.y)/u.z, u.y/u.z, u.x/u.z);
}

fn get_min_max(v1: vec3<f32>, v2: vec3<f32>, v3: vec3<f32>) -> vec4<f32> {
  var min_max = vec4<f32>();
  min_max.x = min(min(v1.x, v2.x), v3.x);
  min_max.y = min(min(v1.y, v2.y), v3.y);
  min_max.z = max(max(v1.x, v2.x), v3.x);
  min_max.w = max(max(v1.y, v2.y), v3.y);

  return min_max;
}

fn color_pixel(x: u32, y: u32, r: u32, g: u32, b: u32) {
  let pixelID = u32(x + y * u32(uniforms.screenWidth)) * 3u;

  atomicMin(&outputColorBuffer.values[pixelID + 0u], r);
  atomicMin(&outputColorBuffer.values[pixelID + 1u], g);
  atomicMin(&outputColorBuffer.values[pixelID + 2u], b);
}

fn draw_triangle(v1: vec3<f32>, v2: vec3<f32>, v3: vec3<f32>) {
  let min_max = get_min_max(v1, v2, v3);
  let startX = u32(min_max.x);
  let startY = u32(min_max.y);
  let endX = u32(min_max.z);
  let endY = u32(min_max.w);

  for (var x: u32 = startX; x <= endX; x = x + 1u) {
    for (var y: u32 = startY; y <= endY; y = y + 1u) {
      let bc = barycentric(v1, v2, v3, vec2<f32>(f32(x), f32(y)));

      if (bc.x < 0.0 || bc.y < 0.0 || bc.z < 0.0) {
        continue;
      }
      let R = 255.0 * bc.x;
      let G = 255.0 * bc.y;
      let B = 255.0 * bc.z;
      color_pixel(x, y, u32(R), u32(G), u32(B));
    }
  }
}

fn draw_line(v1: vec3<f32>, v2: vec3<f32>) {
  let v1Vec = vec2<f32>(v1.x, v1.y);
  let v2Vec = vec2<f32>(v2.x, v2.y);

  let dist = i32(distance(v1Vec, v2Vec));
  for (var i = 0; i < dist; i = i + 1) {
    let x = u32(v1.x + f32(v2.x - v1.x) * (f32(i) / f32(dist)));
    let y = u32(v1.y + f32(v2.y - v1.y) * (f32(i) / f32(dist)));
    color_pixel(x, y, 255u, 255u, 255u);
  }
}

fn project(v: Vertex) -> vec3<f32> {
  var screenPos = uniforms.modelViewProjectionMatrix * vec4<f32>(v.x, v.y, v.z, 1.0);
  screenPos.x = (screenPos.x / screenPos.w) * uniforms.screenWidth;
  screenPos.y = (screenPos.y / screenPos.w) * uniforms.screenHeight;

  return vec3<f32>(screenPos.x, screenPos.y, screenPos.w);
}

fn is_off_screen(v: vec3<f32>) -> bool {
  if (v.x < 0.0 || v.x > uniforms.screenWidth || v.y < 0.0 || v.y > uniforms.screenHeight) {
    return true;
  }

  return false;
}

@compute @workgroup_size(256, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let index = global_id.x * 3u;

  let v1 = project(vertexBuffer.values[index + 0u]);
  let v2 = project(vertexBuffer.values[index + 1u]);
  let v3 = project(vertexBuffer.values[index + 2u]);

  if (is_off_screen(v1) || is_off_screen(v2) || is_off_screen(v3)) {
    return;
  }

  draw_triangle(v1, v2, v3);
}

@compute @workgroup_size(256, 1)
fn clear(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let index = global_id.x * 3u;

  atomicStore(&outputColorBuffer.values[index + 0u], 255u);
  atomicStore(&outputColorBuffer.values[index + 1u], 255u);
  atomicStore(&outputColorBuffer.values[index + 2u], 255u);
}
`

// TestPublic3ComputeRasterizer: after clear, 40 small overlapping
// triangles (one off screen, the rest padded with degenerate ones to fill
// the workgroup) leave every pixel's channels at the minimum, over the
// triangles covering it, of 255 × its barycentric coordinates, within one
// step (the GPU rounds the divisions). Coverage is exact (vertices on
// pixel corners, so u is exact) except on a triangle's edge, where a
// barycentric coordinate is 0 only if the division is correctly rounded:
// WGSL allows 2.5 ULP, and on the H200 such pixels went either way, so
// they are not compared.
func TestPublic3ComputeRasterizer(t *testing.T) {
	d, s := openStream(t)
	clear := rwKernel(t, d, computeRasterizer, "clear", nil)
	raster := rwKernel(t, d, computeRasterizer, "main", nil)
	const w, h = 32, 16 // powers of two: vertex coordinates × size are exact
	const tris = 40
	type v3 = [3]float64
	var verts []float32
	var screen [][3]v3
	for i := 0; i < tris; i++ {
		var tri [3]v3
		bx, by := int(lcg(2*i)>>27)%(w-8), int(lcg(2*i+1)>>27)%(h-8)
		for j := 0; j < 3; j++ {
			px := bx + int(lcg(6*i+2*j)>>29)
			py := by + int(lcg(6*i+2*j+1)>>29)
			if i == 5 && j == 1 {
				px = w + 3 // off screen: skipped
			}
			// The matrix below translates x by 1/8 of the screen.
			verts = append(verts, float32(px-w/8)/w, float32(py)/h, 0.5)
			tri[j] = v3{float64(px), float64(py), 1}
		}
		screen = append(screen, tri)
	}
	verts = append(verts, make([]float32, 3*3*(256-tris))...)
	mvp := [4][4]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0.125, 0, 0, 1}}
	par := p3Params(t, struct {
		W, H float32
		MVP  [4][4]float32
	}{w, h, mvp})
	if len(par) != 80 {
		t.Fatalf("UBO packs to %d bytes, want 80", len(par))
	}
	color := empty(t, s, 3*w*h)
	vb := upload(t, s, verts)
	launch(t, s, clear, recorder.Groups(w*h/256, 1, 1), color) // binds only the colour buffer
	launch(t, s, raster, recorder.Groups(1, 1, 1), color, vb, par)
	want := make([]int, 3*w*h)
	for i := range want {
		want[i] = 255
	}
	edge := make([]bool, w*h)
	for _, tri := range screen {
		off := false
		for _, v := range tri {
			off = off || v[0] < 0 || v[0] > w || v[1] < 0 || v[1] > h
		}
		if off {
			continue
		}
		a, b, c := tri[0], tri[1], tri[2]
		x0, x1 := int(min(a[0], b[0], c[0])), int(max(a[0], b[0], c[0]))
		y0, y1 := int(min(a[1], b[1], c[1])), int(max(a[1], b[1], c[1]))
		for x := x0; x <= x1; x++ {
			for y := y0; y <= y1; y++ {
				// u = cross((c.x-a.x, b.x-a.x, a.x-px), (c.y-a.y, b.y-a.y, a.y-py))
				p := v3{c[0] - a[0], b[0] - a[0], a[0] - float64(x)}
				q := v3{c[1] - a[1], b[1] - a[1], a[1] - float64(y)}
				u := v3{p[1]*q[2] - p[2]*q[1], p[2]*q[0] - p[0]*q[2], p[0]*q[1] - p[1]*q[0]}
				if math.Abs(u[2]) < 1 {
					continue
				}
				bc := v3{1 - (u[0]+u[1])/u[2], u[1] / u[2], u[0] / u[2]}
				for _, c := range bc {
					if math.Abs(c) < 1e-5 {
						// On an edge: the GPU's division may land either
						// side of 0 and draw the pixel or not.
						edge[y*w+x] = true
					}
				}
				if bc[0] < 0 || bc[1] < 0 || bc[2] < 0 {
					continue
				}
				for ch := 0; ch < 3; ch++ {
					want[3*(y*w+x)+ch] = min(want[3*(y*w+x)+ch], int(255*bc[ch]))
				}
			}
		}
	}
	got := readU32(t, s, color)
	bad, drawn, edges := 0, 0, 0
	for i := range want {
		if edge[i/3] {
			edges++
			continue
		}
		if want[i] != 255 {
			drawn++
		}
		if !within(int(got[i]), want[i], 1) {
			bad++
			if bad < 10 {
				t.Errorf("pixel (%d, %d) channel %d = %d, want %d", i/3%w, i/3/w, i%3, got[i], want[i])
			}
		}
	}
	t.Logf("%d channels drawn and compared, %d on a triangle's edge not compared", drawn, edges)
	if drawn < 100 {
		t.Errorf("only %d channels drawn off triangle edges: the scene is too sparse to test anything", drawn)
	}
}

// ---------------------------------------------------------------------------
// An elementwise "ubershader" picking its operation from a uniform opcode,
// as small ML runtimes write one: a helper whose switch returns from every
// clause (case lists, default in the middle, a case list with a trailing
// comma), an integer power by loop { ... continuing { i++; } }, bitcast
// into countOneBits, an alias of vec4, a uniform named info.

const uberElementwise = `alias float4 = vec4<f32>;

struct Info {
    op: u32,
    n: u32,
    alpha: f32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> info: Info;

fn ipow(x: f32, n: i32) -> f32 {
    var r = 1.0;
    var i = 0;
    loop {
        if i >= n { break; }
        r *= x;
        continuing {
            i++;
        }
    }
    return r;
}

fn apply(op: u32, x: f32, y: f32) -> f32 {
    switch op {
        case 0u, 1u: {
            return select(x + y, x - y, op == 1u);
        }
        case 2u: {
            return x * y;
        }
        default: {
            return x;
        }
        case 3u, 4u, {
            return select(max(x, y), min(x, y), op == 4u);
        }
        case 5u: {
            return ipow(x, i32(y));
        }
        case 6u: {
            return f32(countOneBits(bitcast<u32>(x)));
        }
        case 7u: {
            return select(info.alpha * x, x, x >= 0.0);
        }
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= info.n) {
        return;
    }
    out[i] = apply(info.op, a[i], b[i]);
}

@compute @workgroup_size(16)
fn main_vec4(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x * 4u;
    if (i >= info.n) {
        return;
    }
    var r: float4;
    for (var c = 0u; c < 4u; c++) {
        r[c] = apply(info.op, a[i + c], b[i + c]);
    }
    out[i] = r.x; out[i + 1u] = r.y; out[i + 2u] = r.z; out[i + 3u] = r.w;
}
`

// TestPublic3UberElementwise: every opcode (and one past them, taking the
// default) over 100 pairs of small integers, through both entry points,
// equals the reference bit for bit.
func TestPublic3UberElementwise(t *testing.T) {
	d, s := openStream(t)
	scalar := rwKernel(t, d, uberElementwise, "main", nil)
	vec4 := rwKernel(t, d, uberElementwise, "main_vec4", nil)
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
		par := p3Params(t, struct {
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
// Möller–Trumbore ray/triangle intersection, as WebGPU path tracers write
// it: structs of vec3 (a Ray of 32 bytes, a Triangle of 48), a
// ptr<function, Hit> parameter read through p.t (pointer composite access)
// and written whole with a struct constructor, a closest-hit loop bounded
// by arrayLength.

const mollerTrumbore = `struct Ray {
    origin: vec3f,
    direction: vec3f,
}

struct Triangle {
    v0: vec3f,
    v1: vec3f,
    v2: vec3f,
}

struct Hit {
    t: f32,
    u: f32,
    v: f32,
    index: i32,
}

const EPSILON = 1e-7;

@group(0) @binding(0) var<storage, read> rays: array<Ray>;
@group(0) @binding(1) var<storage, read> triangles: array<Triangle>;
@group(0) @binding(2) var<storage, read_write> hits: array<Hit>;

fn intersect(ray: Ray, tri: Triangle, hit: ptr<function, Hit>, index: i32) {
    let e1 = tri.v1 - tri.v0;
    let e2 = tri.v2 - tri.v0;
    let p = cross(ray.direction, e2);
    let det = dot(e1, p);
    if (abs(det) < EPSILON) {
        return; // parallel
    }
    let inv_det = 1.0 / det;
    let s = ray.origin - tri.v0;
    let u = dot(s, p) * inv_det;
    if (u < 0.0 || u > 1.0) {
        return;
    }
    let q = cross(s, e1);
    let v = dot(ray.direction, q) * inv_det;
    if (v < 0.0 || u + v > 1.0) {
        return;
    }
    let t = dot(e2, q) * inv_det;
    if (t > EPSILON && t < hit.t) {
        *hit = Hit(t, u, v, index);
    }
}

@compute @workgroup_size(64)
fn trace(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= arrayLength(&rays)) {
        return;
    }
    var hit = Hit(1e30, 0.0, 0.0, -1);
    let ray = rays[i];
    for (var k = 0u; k < arrayLength(&triangles); k++) {
        intersect(ray, triangles[k], &hit, i32(k));
    }
    hits[i] = hit;
}
`

// TestPublic3MollerTrumbore: 90 rays (some missing, some through several
// triangles at different depths, none within 1e-3 of an edge) find the
// reference's closest triangle exactly, and its t, u and v within 1e-5.
func TestPublic3MollerTrumbore(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, mollerTrumbore, "trace", nil)
	const nTri, nRay = 12, 90
	type vec = [3]float64
	tris := make([][3]vec, nTri)
	var triData []float32
	for i := range tris {
		cx, cy := float64(lcg(2*i)>>28), float64(lcg(2*i+1)>>28) // 0..15
		z := 1 + 0.5*float64(i)                                  // distinct depths
		tris[i] = [3]vec{{cx - 3, cy - 2, z}, {cx + 4, cy - 1, z + 0.25}, {cx, cy + 5, z - 0.25}}
		for _, v := range tris[i] {
			triData = append(triData, float32(v[0]), float32(v[1]), float32(v[2]), 0)
		}
	}
	sub := func(a, b vec) vec { return vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	dot := func(a, b vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	crs := func(a, b vec) vec { return vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]} }
	var rayData []float32
	var want []float32
	var wantIdx []int32
	pts := random(42, 3*1000, 1) // lcg's successive values fall on a lattice here
	for cand := 0; len(wantIdx) < nRay; cand++ {
		o := vec{math.Round(float64(pts[3*cand]+1)*20)/2 - 4, math.Round(float64(pts[3*cand+1]+1)*20)/2 - 4, -10}
		dir := vec{math.Round(float64(pts[3*cand+2])*4) / 64, 0.03125, 1}
		best, bu, bv, bi := 1e30, 0.0, 0.0, int32(-1)
		ambiguous := false
		for i, tr := range tris {
			e1, e2 := sub(tr[1], tr[0]), sub(tr[2], tr[0])
			p := crs(dir, e2)
			det := dot(e1, p)
			sv := sub(o, tr[0])
			u := dot(sv, p) / det
			q := crs(sv, e1)
			v := dot(dir, q) / det
			tt := dot(e2, q) / det
			for _, m := range []float64{u, v, 1 - u - v} {
				ambiguous = ambiguous || math.Abs(m) < 1e-3
			}
			if u < 0 || u > 1 || v < 0 || u+v > 1 || tt <= 1e-7 || tt >= best {
				continue
			}
			best, bu, bv, bi = tt, u, v, int32(i)
		}
		if ambiguous {
			continue
		}
		rayData = append(rayData, float32(o[0]), float32(o[1]), float32(o[2]), 0, float32(dir[0]), float32(dir[1]), float32(dir[2]), 0)
		want = append(want, float32(best), float32(bu), float32(bv))
		wantIdx = append(wantIdx, bi)
	}
	hits := empty(t, s, 4*nRay)
	launch(t, s, k, recorder.Groups(2, 1, 1), upload(t, s, rayData), upload(t, s, triData), hits)
	raw := readU32(t, s, hits)
	var got []float32
	var gotIdx []int32
	missed := 0
	for i := 0; i < nRay; i++ {
		got = append(got, math.Float32frombits(raw[4*i]), math.Float32frombits(raw[4*i+1]), math.Float32frombits(raw[4*i+2]))
		gotIdx = append(gotIdx, int32(raw[4*i+3]))
		if wantIdx[i] < 0 {
			missed++
		}
	}
	if missed == 0 || missed == nRay {
		t.Errorf("%d of %d rays miss: the scene does not test both outcomes", missed, nRay)
	} else {
		t.Logf("%d of %d rays miss", missed, nRay)
	}
	wantSame(t, "closest triangle", wantIdx, gotIdx)
	wantSame(t, "t, u, v", want, got, near(1e-5))
}

// ---------------------------------------------------------------------------
// A geodesic-sphere generator's first subdivision (planet and icosphere
// demos): the golden ratio as a const of sqrt (was refused: naga v22 does
// not evaluate sqrt in a constant; the front-end now does), the
// icosahedron's vertices as an abstract const array of vec3 (a trailing
// comma; was refused as in marching cubes), its faces as an
// array<vec3<u32>, 20>, both indexed at run time; mix and normalize onto a
// sphere whose radius is a bare f32 uniform, into an array<vec3<f32>>.

const icosphereSubdivide = `const PHI = (1.0 + sqrt(5.0)) / 2.0;

// The 12 vertices and 20 faces of an icosahedron.
const ICO_VERTICES = array(
    vec3(-1.0,  PHI, 0.0), vec3( 1.0,  PHI, 0.0), vec3(-1.0, -PHI, 0.0), vec3( 1.0, -PHI, 0.0),
    vec3(0.0, -1.0,  PHI), vec3(0.0,  1.0,  PHI), vec3(0.0, -1.0, -PHI), vec3(0.0,  1.0, -PHI),
    vec3( PHI, 0.0, -1.0), vec3( PHI, 0.0,  1.0), vec3(-PHI, 0.0, -1.0), vec3(-PHI, 0.0,  1.0),
);

const ICO_FACES = array<vec3<u32>, 20>(
    vec3(0u, 11u, 5u), vec3(0u, 5u, 1u), vec3(0u, 1u, 7u), vec3(0u, 7u, 10u), vec3(0u, 10u, 11u),
    vec3(1u, 5u, 9u), vec3(5u, 11u, 4u), vec3(11u, 10u, 2u), vec3(10u, 7u, 6u), vec3(7u, 1u, 8u),
    vec3(3u, 9u, 4u), vec3(3u, 4u, 2u), vec3(3u, 2u, 6u), vec3(3u, 6u, 8u), vec3(3u, 8u, 9u),
    vec3(4u, 9u, 5u), vec3(2u, 4u, 11u), vec3(6u, 2u, 10u), vec3(8u, 6u, 7u), vec3(9u, 8u, 1u),
);

@group(0) @binding(0) var<storage, read_write> positions: array<vec3<f32>>;
@group(0) @binding(1) var<uniform> radius: f32;

fn on_sphere(p: vec3<f32>) -> vec3<f32> {
    return normalize(p) * radius;
}

@compute @workgroup_size(32)
fn subdivide(@builtin(global_invocation_id) gid: vec3u) {
    let f = gid.x;
    if (f >= 20u) {
        return;
    }
    let face = ICO_FACES[f];
    let a = ICO_VERTICES[face.x];
    let b = ICO_VERTICES[face.y];
    let c = ICO_VERTICES[face.z];
    let base = f * 6u;
    positions[base + 0u] = on_sphere(a);
    positions[base + 1u] = on_sphere(b);
    positions[base + 2u] = on_sphere(c);
    positions[base + 3u] = on_sphere(mix(a, b, 0.5));
    positions[base + 4u] = on_sphere(mix(b, c, 0.5));
    positions[base + 5u] = on_sphere(mix(c, a, 0.5));
}
`

// TestPublic3IcosphereSubdivide: the 120 vertices (each face's corners and
// edge midpoints) lie where the float64 reference puts them, within 1e-5
// of the radius (normalize's inverse square root).
func TestPublic3IcosphereSubdivide(t *testing.T) {
	d, s := openStream(t)
	k := rwKernel(t, d, icosphereSubdivide, "subdivide", nil)
	phi := (1 + math.Sqrt(5)) / 2
	verts := [12][3]float64{{-1, phi, 0}, {1, phi, 0}, {-1, -phi, 0}, {1, -phi, 0}, {0, -1, phi}, {0, 1, phi},
		{0, -1, -phi}, {0, 1, -phi}, {phi, 0, -1}, {phi, 0, 1}, {-phi, 0, -1}, {-phi, 0, 1}}
	faces := [20][3]int{{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4}, {11, 10, 2},
		{10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10},
		{8, 6, 7}, {9, 8, 1}}
	const radius = 2.5
	want := make([]float32, 0, 4*120)
	onSphere := func(p [3]float64) {
		n := math.Sqrt(p[0]*p[0] + p[1]*p[1] + p[2]*p[2])
		want = append(want, float32(p[0]/n*radius), float32(p[1]/n*radius), float32(p[2]/n*radius), -1)
	}
	mid := func(a, b [3]float64) [3]float64 {
		return [3]float64{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}
	}
	for _, f := range faces {
		a, b, c := verts[f[0]], verts[f[1]], verts[f[2]]
		for _, p := range [][3]float64{a, b, c, mid(a, b), mid(b, c), mid(c, a)} {
			onSphere(p)
		}
	}
	out := upload(t, s, seqF(4*120, func(int) float32 { return -1 }))
	launch(t, s, k, recorder.Groups(1, 1, 1), out, recorder.ParamsOf[float32](radius))
	wantSame(t, "subdivided vertices (the fourth lane is padding)", want, read(t, s, out), near(1e-5))
}

// ---------------------------------------------------------------------------
// Refusals that are right: real public shaders that need what this device
// or the bundled compiler does not offer, and pre-2022 WGSL that public
// repositories still carry. Each is a compile error (wgpu.ErrCompile) and
// the device keeps working.

// TestPublic3UnsupportedOrOutdatedWGSLIsRefused: f16 on a device made
// without shader-f16, a requires of unrestricted_pointer_parameters (which
// wgpu v22 does not implement) with a storage pointer parameter, enable
// subgroups with subgroup builtins, old syntax (module-scope let,
// @stage(compute), [[block]] attributes, a let redeclared in one scope,
// a parameter redeclared at the top of its body, the reserved word meta
// as a name), and an enable or requires of a name the implementation does
// not know, which WGSL makes a shader-creation error (they were removed
// and the module compiled).
func TestPublic3UnsupportedOrOutdatedWGSLIsRefused(t *testing.T) {
	d, s := openStream(t)
	const out = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n"
	for _, tc := range []struct{ name, src, why string }{
		{"f16 without shader-f16", "enable f16;\n@group(0) @binding(0) var<storage, read_write> o: array<f16>;\n" +
			"@compute @workgroup_size(1) fn main() { o[0] = 1.5h; }", "f16"},
		{"a storage pointer parameter under requires unrestricted_pointer_parameters", "requires unrestricted_pointer_parameters;\n" + out +
			"fn put(p: ptr<storage, array<u32>, read_write>) { (*p)[0] = 3u; }\n@compute @workgroup_size(1) fn main() { put(&o); }", "pointer"},
		{"subgroup builtins", "enable subgroups;\n" + out +
			"@compute @workgroup_size(4) fn main(@builtin(subgroup_invocation_id) sid: u32) { o[0] = subgroupAdd(1u); }", "subgroup"},
		{"a module-scope let (bevy_hanabi before WGSL's const)", out + "let tau: f32 = 6.283185307179586;\n" +
			"@compute @workgroup_size(1) fn main() { o[0] = u32(tau); }", "let"},
		{"@stage(compute)", out + "@stage(compute) @workgroup_size(1) fn main() { o[0] = 1u; }", "stage"},
		{"[[block]] and [[group(0), binding(0)]]", "[[block]] struct B { v: array<u32>; };\n[[group(0), binding(0)]] var<storage, read_write> o: B;\n" +
			"@compute @workgroup_size(1) fn main() { o.v[0] = 1u; }", "["},
		{"a let redeclared in one scope", out + "@compute @workgroup_size(1) fn main() { let index = 1u; let index = 2u; o[0] = index; }", "index"},
		{"a parameter redeclared at the top of its body", out + "fn f(x: u32) -> u32 { var x = x + 1u; return x; }\n" +
			"@compute @workgroup_size(1) fn main() { o[0] = f(1u); }", "x"},
		{"meta, a reserved word, as a name", out + "@compute @workgroup_size(1) fn main() { let meta = 1u; o[0] = meta; }", "meta"},
		{"an unknown enable-extension", "enable frobnicate;\n" + out + "@compute @workgroup_size(1) fn main() { o[0] = 1u; }", "enable frobnicate"},
		{"an unknown language extension", "requires frobnicate;\n" + out + "@compute @workgroup_size(1) fn main() { o[0] = 1u; }", "requires frobnicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.Kernel(tc.src, "main")
			var ce *wgpu.CompileError
			if !errors.Is(err, wgpu.ErrCompile) || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("Kernel = %v; want a *CompileError (ErrCompile) mentioning %q", err, tc.why)
			}
		})
	}
	k := rwKernel(t, d, out+"@compute @workgroup_size(1) fn main() { o[0] = 7u; }", "main", nil)
	b := empty(t, s, 1)
	launch(t, s, k, recorder.Groups(1, 1, 1), b)
	wantSame(t, "a kernel compiled after the refusals", []uint32{7}, readU32(t, s, b))
}

// ---------------------------------------------------------------------------
// Symmetric n-bit quantisation as quantisation kernels write it, the range
// from abstract-integer shifts: -(1 << (bits - 1u)) and (1 << (bits - 1u))
// - 1 are i32 by WGSL's rules (a shift by a run-time amount concretizes
// its abstract operand to i32). Was refused: naga v22 kept the shifted
// literal abstract ("failed to convert expression to a concrete type");
// the front-end now spells it 1i.

const symmetricQuantize = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> q: array<i32>;
@group(0) @binding(2) var<uniform> cfg: vec2<f32>; // scale, bits

fn quantize(v: f32, scale: f32, bits: u32) -> i32 {
    let lo = -(1 << (bits - 1u));
    let hi = (1 << (bits - 1u)) - 1;
    return clamp(i32(round(v / scale)), lo, hi);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= arrayLength(&x)) {
        return;
    }
    q[i] = quantize(x[i], cfg.x, u32(cfg.y));
}
`

// TestPublic3SymmetricQuantizeAbstractShifts: 4-bit and 8-bit
// quantisation of 100 values clamps to [-8, 7] and [-128, 127] and rounds
// half to even, as the reference does.
func TestPublic3SymmetricQuantizeAbstractShifts(t *testing.T) {
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
// A cube-map face basis kept as an abstract const array of vec3 and passed
// whole to a helper taking array<vec3f, 6>, as environment-map
// prefiltering kernels do. Was refused: naga v22 converted the constant
// with the abstract element's layout ("Argument 0 value [4] doesn't match
// the type [5]"); the front-end now passes array<vec3<f32>, 6>(F[0], ...).

const cubeFaceBasis = `const FACE_FORWARD = array(
    vec3(1.0, 0.0, 0.0), vec3(-1.0, 0.0, 0.0),
    vec3(0.0, 1.0, 0.0), vec3(0.0, -1.0, 0.0),
    vec3(0.0, 0.0, 1.0), vec3(0.0, 0.0, -1.0),
);

@group(0) @binding(0) var<storage, read_write> dirs: array<vec4<f32>>;

fn face_direction(basis: array<vec3f, 6>, face: u32, uv: vec2f) -> vec3f {
    let f = basis[face];
    // the two axes across the face: any pair orthogonal to f
    let up = select(vec3(0.0, 1.0, 0.0), vec3(0.0, 0.0, 1.0), abs(f.y) > 0.5);
    let right = cross(up, f);
    return normalize(f + uv.x * right + uv.y * cross(f, right));
}

@compute @workgroup_size(6)
fn main(@builtin(local_invocation_index) face: u32) {
    dirs[face] = vec4(face_direction(FACE_FORWARD, face, vec2(0.0)), 0.0);
}
`

// TestPublic3CubeFaceBasisPassedWhole: the centre direction of each face
// is its forward axis, exactly.
func TestPublic3CubeFaceBasisPassedWhole(t *testing.T) {
	d, s := openStream(t)
	k, err := d.Kernel(cubeFaceBasis, "main")
	if err != nil {
		t.Fatalf("an abstract const array of vec3 passed whole where an array<vec3f, N> is needed must compile: %v", err)
	}
	out := empty(t, s, 4*6)
	launch(t, s, k, recorder.Groups(1, 1, 1), out)
	want := []float32{1, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0}
	wantSame(t, "face directions", want, read(t, s, out))
}

// ---------------------------------------------------------------------------
// The compile-error hint about u/i suffixes goes with refusals caused by
// abstract integers only. naga v22's "Argument 0 value [3] doesn't match
// the type [5]" also reports an f32 array of the wrong length, an abstract
// float const passed as a u32 and a float array const passed as an array
// of u32: the hint pointed those at integer suffixes (the element count in
// array<f32, 3> and any untyped const counted as abstract integers).

// TestPublic3SuffixHintOnlyForAbstractIntegers: each module is refused
// (ErrCompile); only the untyped integer array passed as an array<u32, 2>
// gets the hint.
// TestPublic3IntegerArrayConstPassedAsU32Array: const A = array(1, 2)
// passed where array<u32, 2> is expected is valid WGSL (each abstract
// integer converts); naga v22 typed A array<i32, 2> and refused it, and the
// rewrite now spells the conversion. The result is read back.
func TestPublic3IntegerArrayConstPassedAsU32Array(t *testing.T) {
	d, s := openStream(t)
	src := "const A = array(1, 2);\nconst F = array(1, 2.5);\n@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
		"fn second(a: array<u32, 2>) -> u32 { return a[1]; }\nfn half(a: array<f32, 2>) -> f32 { return a[1] * 2.0; }\n" +
		"@compute @workgroup_size(1) fn main() { o[0] = second(A); o[1] = u32(half(F)); }"
	k, err := d.Kernel(src, "main")
	if err != nil {
		t.Fatalf("Kernel: %v", err)
	}
	o := empty(t, s, 2)
	launch(t, s, k, recorder.Groups(1, 1, 1), o)
	if diff := cmp.Diff([]uint32{2, 5}, readU32(t, s, o)); diff != "" {
		t.Errorf("second(A), half(F) (-want +got):\n%s", diff)
	}
}

func TestPublic3SuffixHintOnlyForAbstractIntegers(t *testing.T) {
	d, _ := openStream(t)
	const out = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n"
	for _, tc := range []struct {
		name, src string
		hint      bool
	}{
		{"an abstract float const passed as a u32", "const X = 1.5;\n" + out +
			"fn f(a: u32) -> u32 { return a + 1u; }\n@compute @workgroup_size(1) fn main() { o[0] = f(X); }", false},
		{"an f32 array of the wrong length", out +
			"fn f(a: array<f32, 2>) -> f32 { return a[0]; }\n@compute @workgroup_size(1) fn main() { o[0] = u32(f(array<f32, 3>(1.0, 2.0, 3.0))); }", false},
		{"a float array const passed as an array of u32", "const B = array(1.5, 2.5);\n" + out +
			"fn second(a: array<u32, 2>) -> u32 { return a[1]; }\n@compute @workgroup_size(1) fn main() { o[1] = second(B); }", false},
		// Valid with non-negative elements (converted since session 7,
		// TestPublic3IntegerArrayConstPassedAsU32Array); with a negative
		// one no conversion exists, and the compiler's type error gets the
		// suffix hint.
		{"a negative integer array const passed as an array of u32", "const A = array(-1, 2);\n" + out +
			"fn second(a: array<u32, 2>) -> u32 { return a[1]; }\n@compute @workgroup_size(1) fn main() { o[1] = second(A); }", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.Kernel(tc.src, "main")
			var ce *wgpu.CompileError
			if !errors.Is(err, wgpu.ErrCompile) || !errors.As(err, &ce) {
				t.Fatalf("Kernel = %v; want a *CompileError (ErrCompile)", err)
			}
			if got := ce.Hint != ""; got != tc.hint {
				t.Errorf("hint given = %v, want %v:\n%v", got, tc.hint, err)
			}
		})
	}
}
