package shaders_test

import (
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

var publicSampleCases = []rwCase{
	{"wgpu hello-compute: Collatz steps with loop, break, % and an early return", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `@group(0)
@binding(0)
var<storage, read_write> v_indices: array<u32>; // this is used as both input and output for convenience

// The Collatz Conjecture states that for any integer n:
// If n is even, n = n/2; if n is odd, n = 3n+1.
fn collatz_iterations(n_base: u32) -> u32{
    var n: u32 = n_base;
    var i: u32 = 0u;
    loop {
        if (n <= 1u) {
            break;
        }
        if (n % 2u == 0u) {
            n = n / 2u;
        }
        else {
            // Overflow? (i.e. 3*n + 1 > 0xffffffffu?)
            if (n >= 1431655765u) {   // 0x55555555u
                return 4294967295u;   // 0xffffffffu
            }
            n = 3u * n + 1u;
        }
        i = i + 1u;
    }
    return i;
}

@compute
@workgroup_size(1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    v_indices[global_id.x] = collatz_iterations(v_indices[global_id.x]);
}`
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
		src := `@group(0) @binding(0) var input: texture_2d<f32>;
@group(0) @binding(1) var output: texture_storage_2d<r32uint, write>;

fn hash(value: u32) -> u32 {
    var state = value;
    state = state ^ 2747636419u;
    state = state * 2654435769u;
    state = state ^ state >> 16u;
    state = state * 2654435769u;
    state = state ^ state >> 16u;
    state = state * 2654435769u;
    return state;
}

fn randomFloat(value: u32) -> f32 {
    return f32(hash(value)) / 4294967295.0;
}

@compute @workgroup_size(8, 8, 1)
fn init(@builtin(global_invocation_id) invocation_id: vec3<u32>, @builtin(num_workgroups) num_workgroups: vec3<u32>) {
    let location = vec2<i32>(i32(invocation_id.x), i32(invocation_id.y));
    if invocation_id.x >= num_workgroups.x * 8u { return; }
    let randomNumber = randomFloat(invocation_id.y << 16u | invocation_id.x);
    let alive = randomNumber > 0.9;
    textureStore(output, location, vec4<u32>(u32(alive), 0u, 0u, 1u));
}

fn is_alive(location: vec2<i32>, offset_x: i32, offset_y: i32) -> i32 {
    let size = vec2<i32>(textureDimensions(input));
    let at = (location + vec2<i32>(offset_x, offset_y) + size) % size;
    let value: vec4<f32> = textureLoad(input, at, 0);
    return i32(value.x);
}

fn count_alive(location: vec2<i32>) -> i32 {
    return is_alive(location, -1, -1) +
           is_alive(location, -1,  0) +
           is_alive(location, -1,  1) +
           is_alive(location,  0, -1) +
           is_alive(location,  0,  1) +
           is_alive(location,  1, -1) +
           is_alive(location,  1,  0) +
           is_alive(location,  1,  1);
}

@compute @workgroup_size(8, 8, 1)
fn update(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let location = vec2<i32>(i32(invocation_id.x), i32(invocation_id.y));
    let n_alive = count_alive(location);
    var alive: bool;
    if (n_alive == 3) {
        alive = true;
    } else if (n_alive == 2) {
        let currently_alive = is_alive(location, 0, 0);
        alive = bool(currently_alive);
    } else {
        alive = false;
    }
    textureStore(output, location, vec4<u32>(u32(alive), 0u, 0u, 1u));
}`
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
		src := `@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let a = v[g.x * 8u];
  let o = g.x * 8u;
  v[o + 1u] = a & 3u | 16u;
  v[o + 2u] = a ^ a >> 4u;
  v[o + 3u] = a + 1u << 2u;
  v[o + 4u] = select(0u, 1u, a < 2u == a < 4u);
  v[o + 5u] = a >> 1u >> 2u;
  v[o + 6u] = select(0u, 1u, a > 0u && a < 9u || a == 0u);
  v[o + 7u] = a % 5u * 3u ^ a / 3u | 1u;
}`
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
		src := `struct Uniforms { NAN : f32, xShape : vec4<i32>, outShape : vec4<i32>, outShapeStrides : vec3<i32>, size : i32, };
@group(0) @binding(0) var<storage, read_write> result : array<f32>;
@group(0) @binding(1) var<storage, read> x : array<f32>;
@group(0) @binding(2) var<uniform> uniforms : Uniforms;

fn isnan(val: f32) -> bool {
  let floatToUint: u32 = bitcast<u32>(val);
  return (floatToUint & 0x7fffffffu) > 0x7f800000u;
}
fn getCoordsFromIndex(index : i32) -> vec4<i32> {
  var index2 = index;
  let d0 = index2 / uniforms.outShapeStrides.x; index2 = index2 - d0 * uniforms.outShapeStrides.x;
  let d1 = index2 / uniforms.outShapeStrides.y; index2 = index2 - d1 * uniforms.outShapeStrides.y;
  let d2 = index2 / uniforms.outShapeStrides.z; let d3 = index2 - d2 * uniforms.outShapeStrides.z;
  return vec4<i32>(d0,d1,d2,d3);
}
fn getIndexFromCoords4D(coords : vec4<i32>, shape : vec4<i32>) -> i32 {
  return dot(coords, vec4<i32>(shape.y * shape.z * shape.w, shape.z * shape.w, shape.w, 1));
}
fn getX(d0 : i32, d1 : i32, d2 : i32, d3 : i32) -> f32 {
  return f32(x[getIndexFromCoords4D(vec4<i32>(d0,d1,d2,d3), uniforms.xShape)]);
}
fn setOutputAtIndex(flatIndex : i32, value : f32) {
  result[flatIndex] = f32(value);
}
@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>,
          @builtin(global_invocation_id) GlobalId : vec3<u32>,
          @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  let index = i32(GlobalId.x);
  if (index < uniforms.size) {
    let resRC = getCoordsFromIndex(index);
    let v = getX(resRC.x, resRC.z, resRC.w, resRC.y);
    setOutputAtIndex(index, select(v, uniforms.NAN, isnan(v)));
  }
}`
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
		src := `struct Uniforms { output_size:u32, output_shape:array<vec4<u32>, 2>, output_strides:array<vec4<u32>, 2>, input_strides:array<vec4<u32>, 2> };
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

fn o2i_output(offset: u32) -> array<u32, 5> {
  var indices: array<u32, 5>;
  var current = offset;
  for (var i = 0; i < 4; i++) {
    let dimStride = uniforms.output_strides[i / 4][i % 4];
    let q = current / dimStride;
    let r = current % dimStride;
    indices[i] = q;
    current = r;
  }
  indices[4] = current;
  return indices;
}
fn get_input_offset(indices: ptr<function, array<u32, 5>>) -> u32 {
  var off = 0u;
  for (var i = 0u; i < 5u; i++) {
    off += (*indices)[i] * uniforms.input_strides[i / 4u][i % 4u];
  }
  return off;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
        @builtin(workgroup_id) workgroup_id : vec3<u32>,
        @builtin(local_invocation_index) local_idx : u32,
        @builtin(local_invocation_id) local_id : vec3<u32>,
        @builtin(num_workgroups) num_workgroups : vec3<u32>) {
  let global_idx = (workgroup_id.z * num_workgroups[0] * num_workgroups[1] +
        workgroup_id.y * num_workgroups[0] + workgroup_id.x) * 64u + local_idx;
  if (global_idx >= uniforms.output_size) { return; }
  var indices = o2i_output(global_idx);
  output[global_idx] = a[get_input_offset(&indices)];
}`
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
		src := `struct Uniforms { dimAOuter : i32, dimInner : i32, dimBOuter : i32, };
@group(0) @binding(0) var<storage, read> A : array<f32>;
@group(0) @binding(1) var<storage, read> B : array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> result : array<vec4<f32>>;
@group(0) @binding(3) var<uniform> uniforms : Uniforms;
const TileInner = 4;
var<workgroup> mm_Asub : array<vec4<f32>, 16>;
var<workgroup> mm_Bsub : array<vec4<f32>, TileInner * 4>;

fn mm_readA(row : i32, col : i32) -> f32 {
  let inBounds = row < uniforms.dimAOuter && col < uniforms.dimInner;
  return select(0.0, A[u32(select(0, row * uniforms.dimInner + col, inBounds))], inBounds);
}
fn mm_readB(row : i32, col4 : i32) -> vec4<f32> {
  if (row < uniforms.dimInner && col4 * 4 < uniforms.dimBOuter) {
    return B[row * uniforms.dimBOuter / 4 + col4];
  }
  return vec4<f32>(0.0);
}
fn mm_write(row : i32, col4 : i32, value : ptr<function, vec4<f32>>) {
  if (row < uniforms.dimAOuter && col4 * 4 < uniforms.dimBOuter) {
    result[row * uniforms.dimBOuter / 4 + col4] = *value;
  }
}

@compute @workgroup_size(4, 16, 1)
fn main(@builtin(local_invocation_id) localId : vec3<u32>,
        @builtin(local_invocation_index) localIndex : u32,
        @builtin(workgroup_id) workgroupId : vec3<u32>) {
  let tileRow = i32(localId.y);
  let tileCol = i32(localId.x);
  let globalRow = i32(workgroupId.y) * 16 + tileRow;
  let globalCol4 = i32(workgroupId.x) * 4 + tileCol;
  var acc = vec4<f32>(0.0);
  let numTiles = (uniforms.dimInner - 1) / TileInner + 1;
  for (var t = 0; t < numTiles; t++) {
    let li = i32(localIndex);
    if (li < 16) {
      let r = i32(workgroupId.y) * 16 + li;
      mm_Asub[li] = vec4<f32>(mm_readA(r, t * TileInner), mm_readA(r, t * TileInner + 1),
                              mm_readA(r, t * TileInner + 2), mm_readA(r, t * TileInner + 3));
    } else if (li < 32) {
      let k = (li - 16) / 4;
      mm_Bsub[li - 16] = mm_readB(t * TileInner + k, i32(workgroupId.x) * 4 + (li - 16) % 4);
    }
    workgroupBarrier();
    let a = mm_Asub[tileRow];
    for (var k = 0; k < TileInner; k++) {
      acc += a[k] * mm_Bsub[k * 4 + tileCol];
    }
    workgroupBarrier();
  }
  mm_write(globalRow, globalCol4, &acc);
}`
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
		src := `struct Particle {
  position : vec3<f32>,
  life : f32,
  velocity : vec3<f32>,
  @size(4) _pad : f32,
  @align(16) color : vec4<f32>,
}
@group(1) @binding(0) var<storage, read_write> particles : array<Particle>;
@group(1) @binding(1) var<uniform> dt : f32;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id : vec3u) {
  let i = id.x;
  if (i >= arrayLength(&particles)) { return; }
  var p = particles[i];
  p.velocity.y -= 9.5 * dt;
  p.position += p.velocity * dt;
  p.life -= dt;
  if (p.life <= 0.0) {
    p = Particle(vec3(0.0), 1.0, vec3(0.0, 1.0, 0.0), 0.0, p.color);
  }
  p.color.a = p.life;
  particles[i] = p;
}`
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
		src := `@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>;
@group(0) @binding(1) var ourTexture: texture_2d<f32>;

// from: https://www.w3.org/WAI/GL/wiki/Relative_luminance
const kSRGBLuminanceFactors = vec3f(0.2126, 0.7152, 0.0722);
fn srgbLuminance(color: vec3f) -> f32 {
  return saturate(dot(color, kSRGBLuminanceFactors));
}

@compute @workgroup_size(1) fn cs(
  @builtin(global_invocation_id) global_invocation_id: vec3u
) {
  let size = textureDimensions(ourTexture, 0);
  let position = global_invocation_id.xy;
  if (all(position < size)) {
    let numBins = f32(arrayLength(&bins));
    let lastBinIndex = u32(numBins - 1);
    let color = textureLoad(ourTexture, position, 0);
    let v = srgbLuminance(color.rgb);
    let bin = min(u32(v * numBins), lastBinIndex);
    atomicAdd(&bins[bin], 1u);
  }
}`
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
		src := `const chunkWidth = 4;
const chunkHeight = 4;
const chunkSize = chunkWidth * chunkHeight;
var<workgroup> bins: array<atomic<u32>, chunkSize>;
@group(0) @binding(0) var<storage, read_write> chunks: array<array<u32, chunkSize>>;
@group(0) @binding(1) var ourTexture: texture_2d<f32>;

@compute @workgroup_size(chunkWidth, chunkHeight, 1)
fn cs(
  @builtin(global_invocation_id) global_invocation_id: vec3u,
  @builtin(workgroup_id) workgroup_id: vec3u,
  @builtin(local_invocation_id) local_invocation_id: vec3u,
  @builtin(num_workgroups) num_workgroups: vec3u,
  @builtin(local_invocation_index) local_invocation_index: u32,
) {
  atomicStore(&bins[local_invocation_index], 0u);
  workgroupBarrier();
  let size = textureDimensions(ourTexture, 0);
  let position = global_invocation_id.xy;
  if (all(position < size)) {
    let numBins = f32(chunkSize);
    let lastBinIndex = u32(numBins - 1);
    let color = textureLoad(ourTexture, position, 0);
    let bin = min(u32(color.r * numBins), lastBinIndex);
    atomicAdd(&bins[bin], 1u);
  }
  workgroupBarrier();
  let chunk = workgroup_id.y * num_workgroups.x + workgroup_id.x;
  let bin = local_invocation_index;
  chunks[chunk][bin] = atomicLoad(&bins[bin]);
}

@group(0) @binding(0) var<storage, read_write> sums: array<array<vec4u, chunkSize / 4>>;
struct Uniforms { stride: u32, };
@group(0) @binding(2) var<uniform> uni: Uniforms;

@compute @workgroup_size(chunkSize / 4, 1, 1) fn reduce(
  @builtin(local_invocation_id) local_invocation_id: vec3u,
  @builtin(workgroup_id) workgroup_id: vec3u,
) {
  let chunk0 = workgroup_id.x * uni.stride * 2;
  let chunk1 = chunk0 + uni.stride;
  let sum = sums[chunk0][local_invocation_id.x] + sums[chunk1][local_invocation_id.x];
  sums[chunk0][local_invocation_id.x] = sum;
}`
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
		src := `var<workgroup> total: u32;
var<workgroup> temp: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) thid: u32) {
  const n = 64u;
  var offset = 1u;
  temp[2u * thid] = data[2u * thid];
  temp[2u * thid + 1u] = data[2u * thid + 1u];
  for (var d = n >> 1u; d > 0u; d >>= 1u) { // up-sweep
    workgroupBarrier();
    if (thid < d) {
      let ai = offset * (2u * thid + 1u) - 1u;
      let bi = offset * (2u * thid + 2u) - 1u;
      temp[bi] += temp[ai];
    }
    offset *= 2u;
  }
  if (thid == 0u) { total = temp[n - 1u]; temp[n - 1u] = 0u; }
  let sum = workgroupUniformLoad(&total);
  for (var d = 1u; d < n; d *= 2u) { // down-sweep
    offset >>= 1u;
    workgroupBarrier();
    if (thid < d) {
      let ai = offset * (2u * thid + 1u) - 1u;
      let bi = offset * (2u * thid + 2u) - 1u;
      let t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  workgroupBarrier();
  data[2u * thid] = temp[2u * thid];
  data[2u * thid + 1u] = temp[2u * thid + 1u];
  if (thid == 31u) { data[n] = sum; }
}`
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
		src := `@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main() {
  let a = v[0];
  let b = v[1];
  v[2] = dot4U8Packed(a, b);
  v[3] = bitcast<u32>(dot4I8Packed(a, b));
  v[4] = dot4U8Packed(a, 0x01010101);
  let ui = unpack4xI8(a);
  let uu = unpack4xU8(b);
  v[5] = pack4xI8(ui * vec4(2i)) ;
  v[6] = pack4xU8(uu + vec4(1u));
  v[7] = pack4xI8Clamp(ui * vec4(2i));
  v[8] = pack4xU8Clamp(uu * vec4(2u));
  v[9] = bitcast<u32>(ui.w) ^ uu.x;
}`
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
		src := `const X = 3u;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
fn f(X: u32) -> u32 { let y = X * 2u; { let X = y + 1u; return X; } }
@compute @workgroup_size(1)
fn main() {
  v[0] = X;
  let X = 5u;
  v[1] = X;
  {
    var X = X + 1u;
    X *= 2u;
    v[2] = X;
    for (var i = 0u; i < 2u; i++) { const X = 100u; v[3] += X; }
    v[5] = X;
  }
  v[4] = X;
  v[6] = f(X);
}`
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, make([]uint32, 7))
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "values", []uint32{3, 5, 12, 200, 5, 12, 11}, readU32(t, s, b))
	}},
	{"switch with default inside a case list, a colon-less case and case lists", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@group(0) @binding(1) var<storage, read_write> w: array<i32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  switch v[g.x] {
    case 0u, 1u: { v[g.x] = 10u; }
    case 2u, default, 7u: { v[g.x] = 20u; }
    case 3u { v[g.x] = 30u; }
  }
  switch (w[g.x]) {
    default { w[g.x] = 0; }
    case -1, -2 { w[g.x] = -10; }
    case 4: { w[g.x] = 40; fallthroughIsNotWGSL(); }
  }
}
fn fallthroughIsNotWGSL() {}`
		k := rwKernel(t, d, src, "main", nil)
		vs := seq(9, func(i int) uint32 { return uint32(i) })
		ws := []int32{-3, -2, -1, 0, 4, 5, 4, -1, 9}
		vb, wb := upU32(t, s, vs), upI32(t, s, ws)
		launch(t, s, k, recorder.Groups(9, 1, 1), vb, wb)
		wantSame(t, "u32 switch", []uint32{10, 10, 20, 30, 20, 20, 20, 20, 20}, readU32(t, s, vb))
		wantSame(t, "i32 switch", []int32{0, -10, -10, 0, 40, 0, 40, -10, 0}, readI32(t, s, wb))
	}},
	{"overrides: one derived by division, used in a workgroup array size expression and the workgroup size", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `override WG: u32 = 64;
override HALF = WG / 2u;
override SCALE: f32 = 1.5;
var<workgroup> tile: array<f32, HALF * 2u>;
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) li: u32) {
  tile[li] = v[li] * SCALE;
  workgroupBarrier();
  if li < HALF { v[li] = tile[li] + tile[li + HALF]; }
}`
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
		src := `alias Row = array<f32, 4>;
alias Tile = array<Row, 4>;
struct Pair { a: vec2f, b: vec2f }
alias PairT = Pair;
alias Pairs = array<PairT>;
@group(0) @binding(0) var<storage, read_write> ps: Pairs;
var<workgroup> t: Tile;
fn sumRow(r: Row) -> f32 { return r[0] + r[1] + r[2] + r[3]; }
@compute @workgroup_size(4, 4)
fn main(@builtin(local_invocation_id) l: vec3u) {
  t[l.y][l.x] = f32(l.x + l.y * 4u);
  workgroupBarrier();
  if l.x == 0u { var p: PairT = ps[l.y]; p.a.x = sumRow(t[l.y]); p.b = p.b.yx; ps[l.y] = p; }
}`
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
		src := `@group(0) @binding(0) var<storage, read_write> v: array<i32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let o = g.x * 8u;
  let x = v[o];
  v[o + 1u] = firstLeadingBit(x);
  v[o + 2u] = extractBits(x, 4u, 8u);
  v[o + 3u] = firstTrailingBit(x);
  v[o + 4u] = countOneBits(x);
  v[o + 5u] = reverseBits(x);
  v[o + 6u] = insertBits(x, -1, 28u, 4u);
  v[o + 7u] = i32(firstLeadingBit(bitcast<u32>(x))) + countLeadingZeros(x) * 100 + countTrailingZeros(x) * 10000;
}`
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
		src := `@group(0) @binding(0) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> u: array<vec4<u32>>;
fn bump(p: ptr<function, vec4<f32>>, i: i32) {
  (*p)[i] += 1.0;
  (*p).w = fma((*p).x, 2.0, (*p).w);
}
fn total(arr: ptr<function, array<f32, 4>>) -> f32 {
  var s = 0.0;
  for (var i = 0; i < 4; i++) { s += (*arr)[i]; }
  return s;
}
@compute @workgroup_size(1)
fn main() {
  let a = v[0];
  v[1] = vec4(fract(a.x), floor(a.y), round(a.z), round(a.w));
  v[2] = vec4(clamp(a.x * 4.0, 0.0, 5.0), trunc(a.y), sign(a.w), saturate(-a.x));
  var x = a;
  bump(&x, i32(v[3].x));
  var arr = array<f32, 4>(x.x, x.y, x.z, x.w);
  v[3] = vec4(x.xyz, total(&arr));
  u[0] = bitcast<vec4<u32>>(a);
  u[1] = vec4(pack4x8unorm(vec4(0.25, 1.5, -1.0, 0.75)), pack4x8snorm(vec4(-0.25, 0.5, 1.0, -2.0)), pack2x16unorm(vec2(0.5, 0.125)), pack2x16snorm(vec2(-0.5, 0.25)));
}`
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
		src := `@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main() {
  var i = 0u;
  var acc = 0u;
  loop {
    let sq = i * i;
    if (sq % 2u == 1u) { acc += 1000u; continue; }
    acc += sq;
    continuing {
      i++;
      break if sq > v[0];
    }
  }
  v[1] = acc;
  v[2] = i;
}`
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
		src := `struct Light { @size(16) color: vec3f, @align(16) intensity: f32 }
struct Scene { count: u32, @align(16) lights: array<Light, 3>, @size(32) tail: vec2u, extra: u32 }
@group(2) @binding(0) var<uniform> scene: Scene;
@group(2) @binding(3) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1)
fn main() {
  for (var i = 0u; i < scene.count; i++) { o[i] = scene.lights[i].color.y * scene.lights[i].intensity; }
  o[3] = f32(scene.tail.y + scene.extra);
}`
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
		src := `struct Inner { a: u32, @size(16) b: u32, @align(16) c: vec2u }
struct Outer { x: u32, @align(32) inner: Inner, tail: u32, }
@group(0) @binding(0) var<storage, read_write> o: array<Outer>;
@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
  o[i].tail = o[i].x + o[i].inner.a + o[i].inner.b + o[i].inner.c.y;
  o[i].inner.c.x = 7u * i;
}`
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
		src := `struct Buf { header: vec4<i32>, data: array<i32> }
struct Acc { n: i32, v: vec2<i32> }
@group(0) @binding(0) var<storage, read_write> b: Buf;
var<private> acc: Acc;
fn total(arr: ptr<function, array<i32, 4>>) -> i32 { var s = 0; for (var i = 0; i < 4; i++) { s += arr[i]; } return s; }
fn bump(a: ptr<private, Acc>, by: i32) { a.n += by; a.v[1] = a.n / by; }
@compute @workgroup_size(1)
fn main() {
  let p = &b;
  let n = arrayLength(&p.data);
  var arr = array<i32, 4>(p.data[0], p.data[1], p.data[2], p.data[3]);
  let q = &arr;
  q[3] = 100;
  bump(&acc, p.data[4]);
  p.header = vec4<i32>(i32(n), total(&arr), p.data[5] / p.data[6], acc.v.y + p.data[5] % p.data[6]);
}`
		k := rwKernel(t, d, src, "main", nil)
		data := []int32{3, -4, 5, 6, -2, -7, 0, 9}
		buf := upI32(t, s, append([]int32{0, 0, 0, 0}, data...))
		launch(t, s, k, recorder.Groups(1, 1, 1), buf)
		// bump: n = -2, v.y = -2 / -2 = 1; -7 / 0 = -7 and -7 % 0 = 0 in WGSL.
		wantSame(t, "header", []int32{8, 3 - 4 + 5 + 100, -7, 1 + 0}, readI32(t, s, buf)[:4])
	}},
	{"WGSL's edge rules: saturating float-to-int conversions, shifts modulo 32, clamped extractBits/insertBits, atomics in a struct", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `@group(0) @binding(0) var<storage, read_write> f: array<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
struct Counters { count: atomic<u32>, flags: atomic<u32>, data: array<u32> }
@group(0) @binding(2) var<storage, read_write> c: Counters;
@compute @workgroup_size(1)
fn main() {
  o[0] = u32(f[0]);
  o[1] = bitcast<u32>(i32(f[1]));
  o[2] = u32(f[2]);
  o[3] = bitcast<u32>(i32(f[3]));
  let v = vec2<i32>(vec2(f[1], f[4]));
  o[4] = bitcast<u32>(v.x);
  o[5] = bitcast<u32>(v.y);
  o[6] = vec4<u32>(vec4f(f[0], f[4], f[2], -0.0)).x + vec4<u32>(vec4f(f[0], f[4], f[2], -0.0)).y;
  let sh = o[14];
  o[7] = 1u << sh;
  o[8] = 0x80000000u >> sh;
  o[9] = bitcast<u32>(i32(-8) >> sh);
  o[10] = extractBits(0xF0000000u, 30u, o[15]);
  o[11] = insertBits(0u, 0xFu, 30u, o[15]);
  o[12] = bitcast<u32>(extractBits(vec2<i32>(-0x10000000), vec2u(28u).x, o[15]).y);
  let old = atomicAdd(&c.count, 5u);
  atomicOr(&c.flags, 6u);
  atomicXor(&c.flags, 3u);
  c.data[0] = old + atomicExchange(&c.flags, 9u);
}`
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
		src := `const LUT = array<u32, 4>(10u, 20u, 30u, 40u);
const WEIGHTS: array<f32, 3> = array(0.25, 0.5, 0.25);
const V = vec3(1, 2, 3);
override GATE: bool = true;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
var<workgroup> flag: u32;
fn pick(i: u32) -> u32 { return LUT[i & 3u]; }
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) li: u32) {
  if li == 0u { flag = o[0]; }
  var n = 0u;
  while n < workgroupUniformLoad(&flag) { n++; }
  if li != 0u { return; }
  let b = vec3<bool>(o[1] > 0u, false, true);
  let sv = select(vec3(1u, 2u, 3u), vec3(7u, 8u, 9u), b);
  o[2] = sv.x * 100u + sv.y * 10u + sv.z;
  o[3] = u32(true) + u32(o[1] > 5u) * 2u + u32(f32(b.x) * 4.0);
  o[4] = pick(o[1]) + LUT[o[1] % 4u] + LUT[1];
  o[5] = select(0u, 1u, GATE) + u32(V.z) + u32(dot(V, V));
  var acc = 0u;
  for (var i = 0u; i < 10u; i += 3u) { if i == 6u { continue; } acc += i; }
  o[6] = acc + n * 1000u;
  var m = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
  m[1][0] = f32(o[1]);
  o[7] = u32((m * vec2(1.0, 1.0)).x + WEIGHTS[o[0] % 3u] * 8.0);
}`
		k := rwKernel(t, d, src, "main", map[string]float64{"GATE": 1})
		o := upU32(t, s, []uint32{3, 6, 0, 0, 0, 0, 0, 0})
		launch(t, s, k, recorder.Groups(1, 1, 1), o)
		// select picks (7, 2, 9); LUT[2] twice and LUT[1]; 1 + 3 + 14; i = 0, 3, 9 and n = 3;
		// m * (1, 1) = (1 + 6, ...) plus WEIGHTS[0] * 8.
		wantSame(t, "o", []uint32{3, 6, 729, 7, 80, 18, 3012, 9}, readU32(t, s, o))
	}},
	{"a let's array indexed at run time, a struct with an array returned by a helper, abs of MinInt32, workgroup vec3 array", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `struct R { vals: array<i32, 4>, n: i32 }
@group(0) @binding(0) var<storage, read_write> o: array<i32>;
var<workgroup> pts: array<vec3<f32>, 4>;
fn make(x: i32) -> R { var r: R; for (var i = 0; i < 4; i++) { r.vals[i] = x * i; } r.n = 4; return r; }
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) li: u32) {
  pts[li] = vec3(f32(li), 1.0, 2.0);
  workgroupBarrier();
  if li != 0u { return; }
  let r = make(o[0]);
  let arr = r.vals;
  let j = o[1];
  o[2] = arr[j] + r.n + arr[0] + r.vals[j - 1];
  o[3] = abs(o[4]);
  o[5] = i32(pts[u32(j)].x + pts[3].z);
  let mv = max(vec2(o[0], o[1]), vec2(2, 9));
  o[6] = mv.x * 10 + mv.y;
}`
		k := rwKernel(t, d, src, "main", nil)
		o := upI32(t, s, []int32{5, 3, 0, 0, math.MinInt32, 0, 0})
		launch(t, s, k, recorder.Groups(1, 1, 1), o)
		wantSame(t, "o", []int32{5, 3, 5*3 + 4 + 5*2, math.MinInt32, math.MinInt32, 3 + 2, 59}, readI32(t, s, o))
	}},
	{"arrayLength of a runtime array inside a struct, directly and through a let pointer", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `struct Buf { header: vec4<u32>, data: array<f32> }
@group(0) @binding(0) var<storage, read_write> b: Buf;
@compute @workgroup_size(1)
fn main() {
  let p = &b;
  let n = arrayLength(&(*p).data);
  let m = arrayLength(&b.data);
  (*p).header = vec4u(n, m, u32((*p).data[n - 1u]), 0u);
}`
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, append(make([]uint32, 4), seq(13, func(i int) uint32 { return fb(float32(i)) })...))
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "header", []uint32{13, 13, 12, 0}, readU32(t, s, b)[:4])
	}},
	{"wgpu boids: struct arrays, loop with continue and continuing, distance, normalize; tolerance for the square roots", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `struct Particle {
  pos : vec2<f32>,
  vel : vec2<f32>,
};
struct SimParams {
  deltaT : f32,
  rule1Distance : f32,
  rule2Distance : f32,
  rule3Distance : f32,
  rule1Scale : f32,
  rule2Scale : f32,
  rule3Scale : f32,
};
@group(0) @binding(0) var<uniform> params : SimParams;
@group(0) @binding(1) var<storage, read> particlesSrc : array<Particle>;
@group(0) @binding(2) var<storage, read_write> particlesDst : array<Particle>;

@compute
@workgroup_size(64)
fn main(@builtin(global_invocation_id) global_invocation_id: vec3<u32>) {
  let total = arrayLength(&particlesSrc);
  let index = global_invocation_id.x;
  if (index >= total) {
    return;
  }
  var vPos : vec2<f32> = particlesSrc[index].pos;
  var vVel : vec2<f32> = particlesSrc[index].vel;
  var cMass : vec2<f32> = vec2<f32>(0.0, 0.0);
  var cVel : vec2<f32> = vec2<f32>(0.0, 0.0);
  var colVel : vec2<f32> = vec2<f32>(0.0, 0.0);
  var cMassCount : i32 = 0;
  var cVelCount : i32 = 0;
  var pos : vec2<f32>;
  var vel : vec2<f32>;
  var i : u32 = 0u;
  loop {
    if (i >= total) {
      break;
    }
    if (i == index) {
      continue;
    }
    pos = particlesSrc[i].pos;
    vel = particlesSrc[i].vel;
    if (distance(pos, vPos) < params.rule1Distance) {
      cMass += pos;
      cMassCount += 1;
    }
    if (distance(pos, vPos) < params.rule2Distance) {
      colVel -= pos - vPos;
    }
    if (distance(pos, vPos) < params.rule3Distance) {
      cVel += vel;
      cVelCount += 1;
    }
    continuing {
      i = i + 1u;
    }
  }
  if (cMassCount > 0) {
    cMass = cMass * (1.0 / f32(cMassCount)) - vPos;
  }
  if (cVelCount > 0) {
    cVel *= 1.0 / f32(cVelCount);
  }
  vVel = vVel + (cMass * params.rule1Scale) + (colVel * params.rule2Scale) + (cVel * params.rule3Scale);
  // clamp velocity for a more pleasing simulation
  vVel = normalize(vVel) * clamp(length(vVel), 0.0, 0.1);
  // kinematic update
  vPos += vVel * params.deltaT;
  // Wrap around boundary
  if (vPos.x < -1.0) { vPos.x = 1.0; }
  if (vPos.x > 1.0) { vPos.x = -1.0; }
  if (vPos.y < -1.0) { vPos.y = 1.0; }
  if (vPos.y > 1.0) { vPos.y = -1.0; }
  // Write back
  particlesDst[index] = Particle(vPos, vVel);
}`
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
