package shaders_test

import (
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

var realWorldCases = []rwCase{
	{"add one, attributes reordered with trailing commas and comments everywhere", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `// leading comment
@binding(0,) /* between */ @group(0,)
var<storage, read> src /* name */ : array<f32>;
@group(0) @binding(1) var<storage,read_write>dst:array<f32>;
@workgroup_size(64,) /* wg */ @compute
fn main(@builtin(global_invocation_id,) /* id */ gid: vec3u,) {
  let i = gid.x;
  if (i >= arrayLength(&src)) { return; }
  dst[i] = src[i] + 1; // abstract int meets f32
}`
		k := rwKernel(t, d, src, "main", nil)
		in := seqF(200, func(i int) float32 { return float32(i) * 0.5 })
		a, b := upload(t, s, in), empty(t, s, 200)
		launch(t, s, k, recorder.Groups(4, 1, 1), a, b)
		wantSame(t, "dst", seqF(200, func(i int) float32 { return in[i] + 1 }), read(t, s, b))
	}},
	{"saxpy with an aliased uniform struct and an untyped override", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `alias F = f32;
struct Params { a: F, n: u32, }
override WG = 32;
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage> x: array<F>;
@group(0) @binding(2) var<storage, read_write> y: array<F>;
@compute @workgroup_size(WG)
fn saxpy(@builtin(global_invocation_id) id: vec3<u32>) {
  if id.x < p.n { y[id.x] = p.a * x[id.x] + y[id.x]; }
}`
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
		src := `const W = 16u;
const H = 16;
@group(0) @binding(0) var<storage, read> cur: array<u32>;
@group(0) @binding(1) var<storage, read_write> next: array<u32>;
fn cell(x: i32, y: i32) -> u32 {
  {
    let x = (x + i32(W)) % i32(W); // shadows the parameter in a nested block
    let y = (y + H) % H;
    return cur[u32(y) * W + u32(x)];
  }
}
@compute @workgroup_size(8, 8)
fn life(@builtin(global_invocation_id) g: vec3u) {
  let x = i32(g.x);
  let y = i32(g.y);
  var n = 0u;
  for (var dy = -1; dy <= 1; dy++) {
    for (var dx = -1; dx <= 1; dx += 1) {
      if dx == 0 && dy == 0 { continue; }
      n += cell(x + dx, y + dy);
    }
  }
  let alive = cur[g.y * W + g.x] == 1;
  next[g.y * W + g.x] = select(0, 1, n == 3 || (alive && n == 2));
}`
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
		src := `struct Particle { pos: vec2<f32>, vel: vec2<f32>, }
struct Particles { count: u32, items: array<Particle>, }
struct Sim { dt: f32, bound: f32 }
@group(0) @binding(0) var<uniform> sim: Sim;
@group(0) @binding(1) var<storage, read_write> ps: Particles;
@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if i >= ps.count { return; }
  var p = ps.items[i];
  p.pos += p.vel * sim.dt;
  if abs(p.pos.x) > sim.bound { p.vel.x = -p.vel.x; }
  if abs(p.pos.y) > sim.bound { p.vel.y = -p.vel.y; }
  p.pos = clamp(p.pos, vec2(-sim.bound), vec2(sim.bound));
  ps.items[i] = p;
}`
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
		src := `override BINS: u32 = 16;
@id(7) override WG: u32;
@group(0) @binding(0) var<storage> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>>;
var<workgroup> local: array<atomic<u32>, BINS>;
@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) g: vec3u) {
  for (var b = li; b < BINS; b += WG) { atomicStore(&local[b], 0); }
  workgroupBarrier();
  if g.x < arrayLength(&values) { atomicAdd(&local[values[g.x] % BINS], 1); }
  workgroupBarrier();
  for (var b = li; b < BINS; b += WG) {
    let c = atomicLoad(&local[b]);
    if c > 0 { atomicAdd(&hist[b], c); }
  }
}`
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
		src := `override BLOCK: u32 = 128;
var<workgroup> partial: array<u32, BLOCK>;
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;
@compute @workgroup_size(BLOCK, 1, 1)
fn reduce(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u) {
  partial[lid.x] = input[wid.x * BLOCK + lid.x];
  workgroupBarrier();
  var stride = BLOCK / 2;
  loop {
    if stride == 0 { break; }
    if lid.x < stride { partial[lid.x] += partial[lid.x + stride]; }
    workgroupBarrier();
    stride >>= 1;
  }
  if lid.x == 0 { sums[wid.x] = partial[0]; }
}`
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
		src := `const N = 256;
var<workgroup> buf: array<array<u32, N>, 2>;
@group(0) @binding(0) var<storage, read_write> data: array<u32, N>;
@compute @workgroup_size(N)
fn scan(@builtin(local_invocation_index) i: u32) {
  var src = 0;
  buf[0][i] = data[i];
  workgroupBarrier();
  for (var off = 1u; off < N; off <<= 1u) {
    let dst = 1 - src;
    if i >= off { buf[dst][i] = buf[src][i] + buf[src][i - off]; } else { buf[dst][i] = buf[src][i]; }
    src = dst;
    workgroupBarrier();
  }
  data[i] = buf[src][i];
}`
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
		src := `const SIZE: u32 = 128;
var<workgroup> keys: array<u32, SIZE>;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
fn swapIf(a: u32, b: u32, up: bool) {
  let x = keys[a];
  let y = keys[b];
  if (x > y) == up { keys[a] = y; keys[b] = x; }
}
@compute @workgroup_size(64)
fn sort(@builtin(local_invocation_id) lid: vec3<u32>) {
  let t = lid.x;
  keys[t] = data[t];
  keys[t + 64] = data[t + 64];
  workgroupBarrier();
  for (var k = 2u; k <= SIZE; k *= 2) {
    for (var j = k / 2; j > 0; j /= 2) {
      // each thread handles one compare-exchange pair
      let i = 2 * j * (t / j) + t % j;
      let l = i + j;
      swapIf(i, l, (i & k) == 0);
      workgroupBarrier();
    }
  }
  data[t] = keys[t];
  data[t + 64] = keys[t + 64];
}`
		k := rwKernel(t, d, src, "sort", nil)
		in := seq(128, func(i int) uint32 { return lcg(i*7) >> 8 })
		want := slices.Clone(in)
		slices.Sort(want)
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "sorted keys", want, readU32(t, s, b))
	}},
	{"radix sort digit pass: count, scan and scatter in one workgroup", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `const RADIX = 1 << 4;
const N = 64;
struct Cfg { shift: u32 }
@group(0) @binding(0) var<uniform> cfg: Cfg;
@group(0) @binding(1) var<storage, read> keysIn: array<u32>;
@group(0) @binding(2) var<storage, read_write> keysOut: array<u32>;
var<workgroup> counts: array<atomic<u32>, RADIX>;
var<workgroup> offsets: array<u32, RADIX>;
fn digit(k: u32) -> u32 { return (k >> cfg.shift) & (RADIX - 1); }
@compute @workgroup_size(N)
fn main(@builtin(local_invocation_index) i: u32) {
  if i < RADIX { atomicStore(&counts[i], 0u); }
  workgroupBarrier();
  atomicAdd(&counts[digit(keysIn[i])], 1);
  workgroupBarrier();
  if i == 0 {
    var run = 0u;
    for (var r = 0; r < RADIX; r++) { offsets[r] = run; run += atomicLoad(&counts[r]); }
  }
  workgroupBarrier();
  // stable scatter: rank among equal digits before i
  let d = digit(keysIn[i]);
  var rank = 0u;
  for (var j = 0u; j < i; j++) { if digit(keysIn[j]) == d { rank++; } }
  keysOut[offsets[d] + rank] = keysIn[i];
}`
		k := rwKernel(t, d, src, "main", nil)
		in := seq(64, func(i int) uint32 { return lcg(i) })
		want := slices.Clone(in)
		sort.SliceStable(want, func(a, b int) bool { return (want[a]>>4)&15 < (want[b]>>4)&15 })
		out := empty(t, s, 64)
		launch(t, s, k, recorder.Groups(1, 1, 1), recorder.ParamsOf[uint32](4, 0, 0, 0), upU32(t, s, in), out)
		wantSame(t, "keys after the digit pass", want, readU32(t, s, out))
	}},
	{"naive matmul with dimensions in a uniform and vec3u builtins", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `struct Dims { M: u32, N: u32, K: u32, }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage> A: array<f32>;
@group(0) @binding(2) var<storage> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;
@compute @workgroup_size(8, 8)
fn matmul(@builtin(global_invocation_id) g: vec3u) {
  let row = g.y; let col = g.x;
  if row >= dims.M || col >= dims.N { return; }
  var acc = 0.0;
  for (var k = 0u; k < dims.K; k++) { acc += A[row * dims.K + k] * B[k * dims.N + col]; }
  C[row * dims.N + col] = acc;
}`
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
		src := `override TILE: u32 = 8u;
const DIM = 32u;
var<workgroup> tileA: array<f32, TILE * TILE>;
var<workgroup> tileB: array<f32, TILE * TILE>;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(TILE, TILE)
fn main(@builtin(local_invocation_id) l: vec3u, @builtin(workgroup_id) w: vec3u) {
  let row = w.y * TILE + l.y;
  let col = w.x * TILE + l.x;
  var sum: f32 = 0;
  for (var t = 0u; t < DIM / TILE; t++) {
    tileA[l.y * TILE + l.x] = a[row * DIM + t * TILE + l.x];
    tileB[l.y * TILE + l.x] = b[(t * TILE + l.y) * DIM + col];
    workgroupBarrier();
    for (var k = 0u; k < TILE; k++) { sum = fma(tileA[l.y * TILE + k], tileB[k * TILE + l.x], sum); }
    workgroupBarrier();
  }
  c[row * DIM + col] = sum;
}`
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
		src := `var<workgroup> tile: array<array<f32, 8 + 1>, 8>; // padded
@group(0) @binding(0) var<storage> inp: array<f32>;
@group(0) @binding(1) var<storage, read_write> outp: array<f32>;
const W = 24u; const H = 16u;
@compute @workgroup_size(8, 8, 1)
fn transpose(@builtin(local_invocation_id) l: vec3u, @builtin(workgroup_id) wg: vec3u) {
  tile[l.y][l.x] = inp[(wg.y * 8 + l.y) * W + wg.x * 8 + l.x];
  workgroupBarrier();
  outp[(wg.x * 8 + l.y) * H + wg.y * 8 + l.x] = tile[l.x][l.y];
}`
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
		src := `@group(0) @binding(0) var img: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(4, 4)
fn blur(@builtin(global_invocation_id) g: vec3u) {
  let size = vec2i(textureDimensions(img));
  let p = vec2i(g.xy);
  if any(p >= size) { return; }
  var acc = vec4(0.0);
  for (var dy = -1; dy <= 1; dy++) {
    for (var dx = -1; dx <= 1; dx++) {
      let q = clamp(p + vec2(dx, dy), vec2(0), size - 1);
      acc += textureLoad(img, q, 0);
    }
  }
  out[u32(p.y * size.x + p.x)] = acc.r; // a sum of small integers: exact
}`
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
		src := `@group(0) @binding(0) var dst: texture_storage_2d<r32uint, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let dims = textureDimensions(dst);
  if g.x >= dims.x || g.y >= dims.y { return; }
  textureStore(dst, g.xy, vec4(g.x * 100 + g.y, 0, 0, 1));
}`
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
		src := `@group(0) @binding(0) var smp: sampler;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(1) @binding(0) var<storage, read_write> out: array<vec4f>;
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let uv = (vec2f(g.xy) + 0.5) / vec2f(textureDimensions(tex, 0));
  out[g.y * 4 + g.x] = textureSampleLevel(tex, smp, uv, 0);
}`
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
		src := `const N = 16u;
const PI = 3.14159265358979;
@group(0) @binding(0) var<storage, read_write> sig: array<vec2<f32>, N>;
fn cmul(a: vec2f, b: vec2f) -> vec2f { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
fn bitrev(x: u32) -> u32 { return reverseBits(x) >> (32 - 4); }
fn fft(buf: ptr<function, array<vec2f, N>>) {
  for (var len = 2u; len <= N; len <<= 1) {
    let ang = -2 * PI / f32(len);
    for (var i = 0u; i < N; i += len) {
      for (var j = 0u; j < len / 2; j++) {
        let w = vec2(cos(ang * f32(j)), sin(ang * f32(j)));
        let u = (*buf)[i + j];
        let v = cmul((*buf)[i + j + len / 2], w);
        (*buf)[i + j] = u + v;
        (*buf)[i + j + len / 2] = u - v;
      }
    }
  }
}
@compute @workgroup_size(1)
fn main() {
  var a: array<vec2f, N>;
  for (var i = 0u; i < N; i++) { a[bitrev(i)] = sig[i]; }
  fft(&a);
  sig = a;
}`
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
		src := `override EPS: f32 = 0.01;
const G = 1.0;
struct Body { pos: vec4f, vel: vec4f }
@group(0) @binding(0) var<storage, read> bodies: array<Body>;
@group(0) @binding(1) var<storage, read_write> accel: array<vec4f>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let n = arrayLength(&bodies);
  let i = gid.x;
  if i >= n { return; }
  var a = vec3f();
  for (var j = 0u; j < n; j++) {
    if i == j { continue; }
    let r = bodies[j].pos.xyz - bodies[i].pos.xyz;
    let inv = inverseSqrt(dot(r, r) + EPS);
    a += G * bodies[j].pos.w * r * inv * inv * inv;
  }
  accel[i] = vec4(a, 0);
}`
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
		src := `@group(0) @binding(0) var<storage, read> xs: array<f32>;
@group(0) @binding(1) var<storage, read_write> best: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u) {
  if g.x >= arrayLength(&xs) { return; }
  let mine = bitcast<u32>(xs[g.x]); // non-negative floats order like their bits
  var old = atomicLoad(&best);
  loop {
    if bitcast<f32>(old) >= xs[g.x] { break; }
    let r = atomicCompareExchangeWeak(&best, old, mine);
    if r.exchanged { break; }
    old = r.old_value;
  }
}`
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
		src := `struct Stats { hi: atomic<i32>, lo: atomic<i32>, count: atomic<i32>, bits: atomic<u32>, own: atomic<u32>, ex: atomic<u32> }
@group(0) @binding(0) var<storage> xs: array<i32>;
@group(0) @binding(1) var<storage, read_write> st: Stats;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let v = xs[g.x];
  atomicMax(&st.hi, v);
  atomicMin(&st.lo, v);
  atomicSub(&st.count, 1);
  let bit = 1u << (g.x % 32);
  atomicOr(&st.bits, bit);
  if ((atomicLoad(&st.bits) & bit) != 0) { atomicAdd(&st.own, 1); }
  _ = atomicExchange(&st.ex, 0x50 | 5);
}`
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
		src := `var<workgroup> pivot: u32;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) w: vec3u) {
  if i == 0 { pivot = data[w.x * 32] * 2; }
  let p = workgroupUniformLoad(&pivot);
  data[w.x * 32 + i] += p;
}`
		k := rwKernel(t, d, src, "main", nil)
		in := seq(96, func(i int) uint32 { return uint32(i) })
		want := seq(96, func(i int) uint32 { return uint32(i) + uint32(i/32*32)*2 })
		b := upU32(t, s, in)
		launch(t, s, k, recorder.Groups(3, 1, 1), b)
		wantSame(t, "data", want, readU32(t, s, b))
	}},
	{"one module, three entry points with different bindings, each picked", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@group(1) @binding(0) var<uniform> k: vec4<u32>;
@compute @workgroup_size(16) fn fillA(@builtin(global_invocation_id) g: vec3u) { a[g.x] = g.x; }
@compute @workgroup_size(16) fn scaleB(@builtin(global_invocation_id) g: vec3u) { b[g.x] *= k.x; }
@compute @workgroup_size(16) fn addAB(@builtin(global_invocation_id) g: vec3u) { a[g.x] += b[g.x] + k.y; }`
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
		src := `@group(1) @binding(3) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8) fn main(@builtin(global_invocation_id) g: vec3u) { v[g.x] = v[g.x] * v[g.x]; }`
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, seq(8, func(i int) uint32 { return uint32(i) }))
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "squares", seq(8, func(i int) uint32 { return uint32(i * i) }), readU32(t, s, b))
	}},
	{"sparse bindings across groups 0 and 2, and an unused declared binding", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `@group(0) @binding(5) var<storage> x: array<u32>;
@group(0) @binding(9) var<storage, read_write> unused: array<u32>;
@group(2) @binding(1) var<uniform> add: u32;
@group(2) @binding(0) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) { y[g.x] = x[g.x] + add; }`
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
		src := `@id(0) override useSquare: bool = false;
override scale: f32 = 2.0;
@id(12) override offset: i32;
override total = offset * 2 + 1;
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  var x = v[g.x];
  if useSquare { x = x * x; }
  v[g.x] = x * scale + f32(total);
}`
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
		src := `var<private> counter: u32 = 0;
var<workgroup> shared_: array<u32, 4>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn bump(p: ptr<private, u32>, by: u32) { *p += by; }
fn fill(a: ptr<function, array<u32, 4>>, base: u32) { for (var i = 0; i < 4; i++) { (*a)[i] = base + u32(i); } }
fn sum4(w: ptr<function, array<u32, 4>>) -> u32 { return (*w)[0] + (*w)[1] + (*w)[2] + (*w)[3]; }
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
  var arr: array<u32, 4>;
  fill(&arr, 10);
  bump(&counter, 3);
  bump(&counter, arr[i]);
  shared_[i] = counter;
  workgroupBarrier();
  var copy = shared_;
  out[i] = sum4(&copy);
}`
		k := rwKernel(t, d, src, "main", nil)
		out := empty(t, s, 4)
		launch(t, s, k, recorder.Groups(1, 1, 1), out)
		total := uint32(13 + 14 + 15 + 16)
		wantSame(t, "out", []uint32{total, total, total, total}, readU32(t, s, out))
	}},
	{"const expressions: sizes, masks and shifts written as expressions", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `const LOG = 3;
const N = 1 << LOG;
const MASK = (1 << 4) - 1;
const HALF = N / 2;
const BIG = max(N, 4) * 2 + min(1, 2);
alias Row = array<u32, N * 2>;
@group(0) @binding(0) var<storage, read_write> out: array<u32, BIG>;
@compute @workgroup_size(HALF * 2)
fn main(@builtin(local_invocation_index) i: u32) {
  var r: Row;
  r[i] = (i * 37) & MASK;
  r[i + N] = i << 2;
  out[i] = r[i] + r[i + N];
  if i == 0 { out[BIG - 1] = u32(BIG); }
}`
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
		src := `@group(0) @binding(0) var<storage, read_write> u: array<u32>;
@group(0) @binding(1) var<storage, read_write> f: array<f32>;
fn twice(x: u32) -> u32 { return x * 2; }
fn zero() -> f32 { return 0; }
fn pick(c: bool) -> u32 { if c { return 1; } return 0; }
@compute @workgroup_size(1)
fn main() {
  u[0] = select(10, 20, u[0] > 5);
  u[1] = min(u[1], 3);
  u[2] = clamp(u[2], 4, 8);
  u[3] = twice(21);
  u[4] = max(vec2u(1), vec2(5, 2)).y + pick(true);
  let v: vec3<u32> = vec3(7, 8, 9);
  u[5] = v.z;
  f[0] = max(f[0], 0) + zero();
  f[1] = mix(0, 10, f[1]);
  f[2] = select(-1, 1, f[2] > 0);
  let w: f32 = 3;
  f[3] = pow(w, 2) + step(0, f[3]);
}`
		k := rwKernel(t, d, src, "main", nil)
		ub := upU32(t, s, []uint32{9, 7, 1, 0, 0, 0})
		fb := upload(t, s, []float32{-2, 0.25, 4, -1})
		launch(t, s, k, recorder.Groups(1, 1, 1), ub, fb)
		wantSame(t, "u", []uint32{20, 3, 4, 42, 3, 9}, readU32(t, s, ub))
		wantSame(t, "f", []float32{0, 2.5, 1, 9}, read(t, s, fb), near(1e-6))
	}},
	{"switch with case lists, trailing commas, default in the middle, and a const selector", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `const TWO = 2;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  switch v[g.x] {
    case 0, 1, { v[g.x] = 100; }
    default: { v[g.x] = 999; }
    case TWO: { v[g.x] = 200; }
    case 3, 4,: { v[g.x] = 300; }
  }
  var s: i32 = i32(g.x);
  switch s { case -1 { } case 7 { v[g.x] += 1; } default { } }
}`
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, []uint32{0, 1, 2, 3, 4, 5, 2, 9})
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "v", []uint32{100, 100, 200, 300, 300, 999, 200, 1000}, readU32(t, s, b))
	}},
	{"loop with continuing and break if, while, and a labelled-like nested exit", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(16)
fn collatz(@builtin(global_invocation_id) g: vec3u) {
  var n = v[g.x];
  var steps = 0u;
  loop {
    if n <= 1 { break; }
    if n % 2 == 0 { n /= 2; } else { n = 3 * n + 1; }
    continuing {
      steps++;
      break if steps >= 1000;
    }
  }
  var k = 0u;
  while (k < 3) { k += 1; }
  v[g.x] = steps + k;
}`
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
		src := `const x = 100u;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
  out[0] = x;
  let x = 1u;
  out[1] = x;
  {
    let x = x + 10;
    out[2] = x;
    { var x = x * 2; x += 1; out[3] = x; }
  }
  out[4] = x;
}`
		k := rwKernel(t, d, src, "main", nil)
		out := empty(t, s, 5)
		launch(t, s, k, recorder.Groups(1, 1, 1), out)
		wantSame(t, "out", []uint32{100, 1, 11, 23, 1}, readU32(t, s, out))
	}},
	{"builtins gathered in an input struct, 2D dispatch and num_workgroups", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `struct In {
  @builtin(global_invocation_id) gid: vec3<u32>,
  @builtin(local_invocation_id) lid: vec3<u32>,
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
}
@group(0) @binding(0) var<storage, read_write> out: array<vec4<u32>>;
@compute @workgroup_size(2, 2, 1)
fn main(in: In, @builtin(local_invocation_index) li: u32) {
  let w = in.nwg.x * 2;
  out[in.gid.y * w + in.gid.x] = vec4(in.wid.x, in.wid.y, in.lid.x * 10 + in.lid.y, li + in.nwg.y * 100);
}`
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
		src := `@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main() {
  let x = v[0];
  v[1] = countOneBits(x);
  v[2] = reverseBits(x);
  v[3] = extractBits(x, 4, 8);
  v[4] = insertBits(x, 0xAB, 8, 8);
  v[5] = firstLeadingBit(x) + countTrailingZeros(x) * 100;
  v[6] = countLeadingZeros(x >> 3);
}`
		k := rwKernel(t, d, src, "main", nil)
		x := uint32(0x12345670)
		b := upU32(t, s, []uint32{x, 0, 0, 0, 0, 0, 0})
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		want := []uint32{x, uint32(bits.OnesCount32(x)), bits.Reverse32(x), (x >> 4) & 0xff, x&^0xff00 | 0xab00,
			uint32(31-bits.LeadingZeros32(x)) + uint32(bits.TrailingZeros32(x))*100, uint32(bits.LeadingZeros32(x >> 3))}
		wantSame(t, "bits", want, readU32(t, s, b))
	}},
	{"directives, const_assert, @must_use, @diagnostic and function-scope const", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `diagnostic(off, derivative_uniformity);
const N = 8;
const_assert N % 4 == 0;
@group(0) @binding(0) var<storage, read_write> out: array<u32, N>;
@must_use fn sq(x: u32) -> u32 { return x * x; }
@diagnostic(warning, derivative_uniformity) @compute @workgroup_size(N)
fn main(@builtin(local_invocation_index) i: u32) {
  const K: u32 = 3;
  const K2 = K * 2 + 1;
  const_assert K2 == 7;
  var<function> acc: array<u32, K2>;
  acc[i % K2] = sq(i) + K2;
  out[i] = acc[i % K2];
}`
		k := rwKernel(t, d, src, "main", nil)
		out := empty(t, s, 8)
		launch(t, s, k, recorder.Groups(1, 1, 1), out)
		wantSame(t, "out", seq(8, func(i int) uint32 { return uint32(i*i + 7) }), readU32(t, s, out))
	}},
	{"matrices: mat4x4 times vec4 and mat2x3 built from abstract literals", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `@group(0) @binding(0) var<storage, read> m: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read_write> v: array<vec4f>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let k = mat2x3(1, 2, 3, 4, 5, 6);
  let e = k * vec2(1.0, 1.0);
  v[g.x] = m[g.x] * v[g.x] + vec4(e, 1);
}`
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
		src := `@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main() {
  let c = unpack4x8unorm(v[0]);
  v[1] = pack4x8unorm(c.wzyx);
  let h = unpack2x16float(v[2]);
  v[3] = pack2x16float(h * 2);
}`
		k := rwKernel(t, d, src, "main", nil)
		b := upU32(t, s, []uint32{0x11223344, 0, 0x3c004000, 0}) // halves 2.0 (low) and 1.0 (high)
		launch(t, s, k, recorder.Groups(1, 1, 1), b)
		wantSame(t, "packed", []uint32{0x11223344, 0x44332211, 0x3c004000, 0x40004400}, readU32(t, s, b))
	}},
	{"i32 division, remainder and arithmetic shift follow WGSL", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `@group(0) @binding(0) var<storage, read_write> v: array<i32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let x = v[g.x];
  v[g.x] = (x / 3) * 1000 + (x % 3) * 100 + (x >> 1);
}`
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
		src := `@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let x = v[g.x];
  v[g.x] = exp(x * 0.5) + sin(x) * cos(x) + sqrt(abs(x)) + log2(x * x + 1) + tanh(x);
}`
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
		src := `var<private> lut: array<u32, 4> = array(1u, 2u, 4u, 8u);
const weights = array<u32, 4>(10, 20, 30, 40);
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
  var w = weights;
  v[i] = lut[i] * w[3 - i];
}`
		k := rwKernel(t, d, src, "main", nil)
		out := empty(t, s, 4)
		launch(t, s, k, recorder.Groups(1, 1, 1), out)
		wantSame(t, "v", []uint32{40, 60, 80, 80}, readU32(t, s, out))
	}},
	{"stream compaction with a workgroup atomic counter and vec4<bool> any/all", func(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
		src := `var<workgroup> n: atomic<u32>;
@group(0) @binding(0) var<storage> xs: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read_write> keep: array<u32>;
@group(0) @binding(2) var<storage, read_write> count: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
  if i == 0 { atomicStore(&n, 0); }
  workgroupBarrier();
  let x = xs[i];
  if all(x > vec4(-5)) && any(x == vec4<i32>(0)) {
    let slot = atomicAdd(&n, 1);
    keep[slot] = i;
  }
  workgroupBarrier();
  if i == 0 { count = atomicLoad(&n); }
}`
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
		src := `override WG: u32 = 64;
var<workgroup> red: array<f32, WG>;
@group(0) @binding(0) var<storage, read_write> row: array<f32>;
fn reduce(i: u32, op: u32) -> f32 {
  for (var s = WG / 2; s > 0; s >>= 1) {
    if i < s {
      switch op { case 0u: { red[i] = max(red[i], red[i + s]); } default: { red[i] += red[i + s]; } }
    }
    workgroupBarrier();
  }
  return red[0];
}
@compute @workgroup_size(WG)
fn softmax(@builtin(local_invocation_index) i: u32) {
  red[i] = row[i];
  workgroupBarrier();
  let m = reduce(i, 0);
  workgroupBarrier();
  let e = exp(row[i] - m);
  red[i] = e;
  workgroupBarrier();
  let total = reduce(i, 1);
  row[i] = e / total;
}`
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
		src := `struct Uniforms { size: u32, bias: i32, stride: u32, _pad: u32, };
@group(0) @binding(0) var<storage, read> a: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<i32>>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
@compute @workgroup_size(16, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  for (var i = global_id.x; i < uniforms.size; i += uniforms.stride) {
    let v = a[i];
    out[i] = max(v * 2 + uniforms.bias, vec4(0)) - select(vec4(0), vec4(1), v < vec4(0));
  }
}`
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
		src := `@group(0) @binding(0) var accum: texture_storage_2d<rgba32float, write>;
var<private> seed: u32;
fn rand() -> f32 {
  seed = seed * 747796405u + 2891336453u;
  let word = ((seed >> ((seed >> 28) + 4)) ^ seed) * 277803737u;
  return f32((word >> 22) ^ word) / 4294967296.0;
}
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  seed = g.y * 1000 + g.x;
  var c = vec3(0.0);
  for (var i = 0; i < 4; i++) { c += vec3(rand(), rand(), rand()); }
  textureStore(accum, vec2<i32>(g.xy), vec4(floor(c * 16), 1.0));
}`
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
		src := `@group(0) @binding(0) var vol: texture_3d<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(2, 2, 2)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let d = textureDimensions(vol);
  out[(g.z * d.y + g.y) * d.x + g.x] = textureLoad(vol, g, 0).x + 1;
}`
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
