package shaders_test

import (
	"encoding/binary"
	"math"
	"math/bits"
	"testing"

	"github.com/softgraph/softgraph/recorder"
)

// Operations whose result WGSL defines but SPIR-V, GLSL or Vulkan leave to
// the driver for some operands: shifts by the bit width or more, signed
// remainders of negative operands, clamp with low > high, bit-field ranges
// past 32 bits, a thread reading back its own atomic. lavapipe and llvmpipe
// happen to agree with WGSL on many of these; a discrete GPU's compiler
// does not have to, so each is compared with WGSL's definition.
func TestDriverLeftOperationsFollowWGSL(t *testing.T) {
	d, s := openStream(t)
	src := `@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
@group(0) @binding(2) var<storage, read_write> o: array<u32>;
const K = 24u;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  if (i >= arrayLength(&a)) { return; }
  let x = a[i];
  let y = b[i];
  let ux = bitcast<u32>(x);
  let uy = bitcast<u32>(y);
  let base = i * K;
  o[base + 0u] = ux << uy;
  o[base + 1u] = ux >> uy;
  o[base + 2u] = bitcast<u32>(x >> uy);
  o[base + 3u] = bitcast<u32>(x << uy);
  o[base + 4u] = bitcast<u32>(clamp(x, y, 7));
  o[base + 5u] = clamp(ux, uy, 1000u);
  o[base + 6u] = bitcast<u32>(x % 3);
  o[base + 7u] = bitcast<u32>(x % -4);
  o[base + 8u] = bitcast<u32>(x / -4);
  o[base + 9u] = bitcast<u32>(x % 7i);
  o[base + 10u] = bitcast<u32>(abs(x));
  o[base + 11u] = bitcast<u32>(-x);
  o[base + 12u] = bitcast<u32>(x * y);
  o[base + 13u] = bitcast<u32>(firstLeadingBit(x));
  o[base + 14u] = firstLeadingBit(ux);
  o[base + 15u] = firstTrailingBit(ux);
  o[base + 16u] = countLeadingZeros(ux) + 100u * countTrailingZeros(ux);
  o[base + 17u] = bitcast<u32>(countOneBits(x));
  o[base + 18u] = bitcast<u32>(extractBits(x, uy % 40u, 9u));
  o[base + 19u] = extractBits(ux, uy % 40u, 12u);
  o[base + 20u] = insertBits(ux, 0xABCDu, uy % 40u, 12u);
  let v = vec2<u32>(ux, uy) << vec2<u32>(uy, ux);
  o[base + 21u] = v.x ^ v.y;
  o[base + 22u] = bitcast<u32>(dot(vec2(x, y), vec2(y, x)));
  o[base + 23u] = reverseBits(ux) ^ bitcast<u32>(min(x, y)) ^ max(ux, uy);
}`
	k := mustKernel(t, d, src, "main", nil)
	xs := []int32{0, 1, -1, 7, -7, 8, -8, 100, -100, 12345, -12345, math.MaxInt32, math.MinInt32, 0x55555555, -0x2AAAAAAB, 3}
	ys := []int32{0, 31, 32, 33, 63, 64, 100, -1, 5, -5, 1, 2, 35, 36, 39, 1 << 20}
	const K = 24
	want := make([]uint32, len(xs)*K)
	for i := range xs {
		x, y := xs[i], ys[i]
		ux, uy := uint32(x), uint32(y)
		sh := uy % 32
		w := want[i*K:]
		w[0] = ux << sh
		w[1] = ux >> sh
		w[2] = uint32(x >> sh)
		w[3] = uint32(x << sh)
		w[4] = uint32(min(max(x, y), 7))
		w[5] = min(max(ux, uy), 1000)
		w[6] = uint32(x % 3)
		w[7] = uint32(x % -4)
		w[8] = uint32(x / -4)
		w[9] = uint32(x % 7)
		w[10] = uint32(absI32(x))
		w[11] = uint32(-x)
		w[12] = uint32(x * y)
		w[13] = uint32(firstLeadingBitI32(x))
		w[14] = firstLeadingBitU32(ux)
		w[15] = firstTrailingBitU32(ux)
		w[16] = uint32(bits.LeadingZeros32(ux)) + 100*uint32(bits.TrailingZeros32(ux))
		w[17] = uint32(bits.OnesCount32(ux))
		w[18] = uint32(extractBitsI32(x, uy%40, 9))
		w[19] = extractBitsU32(ux, uy%40, 12)
		w[20] = insertBitsU32(ux, 0xABCD, uy%40, 12)
		w[21] = (ux << (uy % 32)) ^ (uy << (ux % 32))
		w[22] = uint32(x*y + y*x)
		w[23] = bits.Reverse32(ux) ^ uint32(min(x, y)) ^ max(ux, uy)
	}
	out, err := s.Alloc(uint64(len(want) * 4))
	if err != nil {
		t.Fatal(err)
	}
	launch(t, s, k, recorder.Groups(1, 1, 1), upI32(t, s, xs), upI32(t, s, ys), out)
	got := readU32(t, s, out)
	for i := range xs {
		wantSame(t, "pair ("+itoa(xs[i])+", "+itoa(ys[i])+")", want[i*K:(i+1)*K], got[i*K:(i+1)*K])
	}
}

// A thread's atomicLoad sees its own earlier atomicOr (WGSL: atomics on one
// location are ordered within an invocation), whatever the other
// invocations do to the same word.
func TestAtomicLoadSeesTheInvocationsOwnAtomic(t *testing.T) {
	d, s := openStream(t)
	src := `@group(0) @binding(0) var<storage, read_write> words: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> seen: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let bit = 1u << (g.x % 32u);
  atomicOr(&words[g.x / 32u], bit);
  seen[g.x] = select(0u, 1u, (atomicLoad(&words[g.x / 32u]) & bit) != 0u);
  atomicStore(&words[8u + g.x / 32u], 5u);
  seen[g.x] += atomicLoad(&words[8u + g.x / 32u]) * 2u;
}`
	k := mustKernel(t, d, src, "main", nil)
	const n = 256
	words := upU32(t, s, make([]uint32, 16))
	seenB := upU32(t, s, make([]uint32, n))
	launch(t, s, k, recorder.Groups(n/64, 1, 1), words, seenB)
	want := make([]uint32, n)
	for i := range want {
		want[i] = 11
	}
	wantSame(t, "seen", want, readU32(t, s, seenB))
	wantW := make([]uint32, 16)
	for i := 0; i < 8; i++ {
		wantW[i] = 0xFFFFFFFF
		wantW[8+i] = 5
	}
	wantSame(t, "words", wantW, readU32(t, s, words))
}

func itoa(v int32) string {
	return fmtInt(int64(v))
}

func fmtInt(v int64) string {
	if v < 0 {
		return "-" + fmtInt(-v)
	}
	if v < 10 {
		return string(rune('0' + v))
	}
	return fmtInt(v/10) + string(rune('0'+v%10))
}

func absI32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

func firstLeadingBitU32(x uint32) uint32 {
	if x == 0 {
		return 0xFFFFFFFF
	}
	return uint32(31 - bits.LeadingZeros32(x))
}

func firstLeadingBitI32(x int32) int32 {
	if x == 0 || x == -1 {
		return -1
	}
	u := uint32(x)
	if x < 0 {
		u = ^u
	}
	return int32(31 - bits.LeadingZeros32(u))
}

func firstTrailingBitU32(x uint32) uint32 {
	if x == 0 {
		return 0xFFFFFFFF
	}
	return uint32(bits.TrailingZeros32(x))
}

func extractBitsU32(e, offset, count uint32) uint32 {
	o := min(offset, 32)
	c := min(count, 32-o)
	if c == 0 {
		return 0
	}
	return (e >> o) & (1<<c - 1)
}

func extractBitsI32(e int32, offset, count uint32) int32 {
	o := min(offset, 32)
	c := min(count, 32-o)
	if c == 0 {
		return 0
	}
	v := uint32(e>>o) & (1<<c - 1)
	if v&(1<<(c-1)) != 0 {
		v |= ^uint32(0) << c
	}
	return int32(v)
}

func insertBitsU32(e, n, offset, count uint32) uint32 {
	o := min(offset, 32)
	c := min(count, 32-o)
	if c == 0 {
		return e
	}
	mask := (uint32(1)<<c - 1) << o
	return (e &^ mask) | ((n << o) & mask)
}

// WGSL zero-initialises workgroup memory at the start of every workgroup
// and every variable declared without an initializer; a GPU's shared
// memory and registers are not cleared between dispatches or invocations.
// The first kernel leaves garbage in the workgroup array; the second must
// still see zeros.
func TestUninitialisedVariablesStartAtZero(t *testing.T) {
	d, s := openStream(t)
	dirty := mustKernel(t, d, `var<workgroup> tile: array<u32, 256>;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3u) {
  tile[li] = 0xDEAD0000u | li;
  workgroupBarrier();
  o[wg.x * 256u + li] = tile[255u - li];
}`, "main", nil)
	clean := mustKernel(t, d, `var<workgroup> tile: array<u32, 256>;
var<workgroup> count: atomic<u32>;
var<private> pv: vec2<u32>;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3u) {
  var acc: u32;
  var arr: array<u32, 4>;
  if (li % 2u == 0u) { acc += 1u; arr[li % 4u] = 5u; }
  let t = tile[255u - li];
  workgroupBarrier();
  atomicAdd(&count, 1u);
  workgroupBarrier();
  o[wg.x * 256u + li] = t + acc * 10u + (arr[0] + arr[1] + arr[2] + arr[3]) * 100u + (pv.x + pv.y) * 1000u + atomicLoad(&count) * 100000u;
}`, "main", nil)
	const groups = 8
	out, err := s.Alloc(groups * 256 * 4)
	if err != nil {
		t.Fatal(err)
	}
	launch(t, s, dirty, recorder.Groups(groups, 1, 1), out)
	launch(t, s, clean, recorder.Groups(groups, 1, 1), out)
	want := make([]uint32, groups*256)
	for i := range want {
		li := i % 256
		if li%2 == 0 {
			want[i] = 10 + 500
		}
		want[i] += 256 * 100000
	}
	wantSame(t, "o", want, readU32(t, s, out))
}

// Names WGSL allows but the bundled compiler reserves (handle, signed,
// inout, HLSL's shader-stage words) compile and run, the entry point's
// included.
func TestNamesOnlyTheBundledCompilerReservesCompile(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, `struct Slot { handle: u32, signed: i32 }
@group(0) @binding(0) var<storage, read_write> inout: array<Slot>;
fn ComputeShader(s: Slot) -> u32 { return s.handle * 2u + u32(s.signed); }
@compute @workgroup_size(4)
fn handle(@builtin(global_invocation_id) g: vec3u) {
  let handle = ComputeShader(inout[g.x]);
  inout[g.x].handle = handle;
}`, "handle", nil)
	b := upU32(t, s, []uint32{1, 10, 2, 20, 3, 30, 4, 40})
	launch(t, s, k, recorder.Groups(1, 1, 1), b)
	wantSame(t, "slots", []uint32{12, 10, 24, 20, 36, 30, 48, 40}, readU32(t, s, b))
}

// quantizeToF16 rounds to the nearest binary16 value, ties to even, with
// binary16's subnormals below 2^-14. The front-end computes it with
// integer arithmetic: the H200's Vulkan driver folded the
// unpack2x16float(pack2x16float(e)) pair it first used into e.
func TestQuantizeToF16RoundsAsBinary16(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, `@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<storage, read_write> w: array<vec2<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x >= arrayLength(&v)) { return; }
  let x = v[g.x];
  v[g.x] = quantizeToF16(x);
  w[g.x] = quantizeToF16(vec2(x, -x));
}`, "main", nil)
	in := []float32{0, 1.0 / 3, 0.1, -0.3, 1, 1 + 1.0/2048, 1 + 3.0/2048, 1 + 5.0/4096, 2049, 2051, 65504, 65519,
		6.103515625e-05, 6.0e-05, 1.0 / (1 << 25), 3.0 / (1 << 26), 5.0 / (1 << 25), 1.0 / (1 << 15), 123.456, -7.77e-6, 1e-9, 3.14159}
	want := make([]float32, len(in))
	wantV := make([]float32, 2*len(in))
	for i, x := range in {
		want[i] = f16Reference(x)
		wantV[2*i], wantV[2*i+1] = f16Reference(x), f16Reference(-x)
	}
	vb := upload(t, s, in)
	wb, err := s.Alloc(uint64(8 * len(in)))
	if err != nil {
		t.Fatal(err)
	}
	launch(t, s, k, recorder.Groups(1, 1, 1), vb, wb)
	wantSame(t, "scalar", bitsOf(want), bitsOf(read(t, s, vb)))
	wantSame(t, "vec2", bitsOf(wantV), bitsOf(read(t, s, wb)))
}

// f16Reference is x rounded to binary16 in float64: the spacing of
// binary16 values at x's binade (2^-24 below 2^-14), ties to even.
func f16Reference(x float32) float32 {
	a := math.Abs(float64(x))
	if a == 0 {
		return x
	}
	e := math.Max(math.Floor(math.Log2(a)), -14)
	ulp := math.Ldexp(1, int(e)-10)
	return float32(math.Copysign(math.RoundToEven(a/ulp)*ulp, float64(x)))
}

// Two-row matrices in a uniform (mat2x2, mat3x2, mat4x2, alone, in a
// struct, in an array) are read at WGSL's offsets, their columns 8 bytes
// apart: on OpenGL naga's std140 block put them 16 apart, so the front-end
// declares such a uniform read-only storage there. A branch on the value
// before a workgroupBarrier stays uniform, and both a buffer and Params
// bind to it.
func TestTwoRowMatricesInAUniformReadWGSLsLayout(t *testing.T) {
	d, s := openStream(t)
	k := mustKernel(t, d, `struct M {
  a: mat2x2<f32>,
  s: f32,
  b: mat3x2<f32>,
  c: mat4x2f,
  v: vec3<f32>,
  arr: array<mat2x2<f32>, 2>,
}
@group(0) @binding(0) var<uniform> m: M;
@group(0) @binding(1) var<uniform> lone: mat3x2<f32>;
@group(0) @binding(2) var<storage, read_write> o: array<f32>;
var<workgroup> w: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
  if (m.s > 0.0) {
    w[li] = m.s;
    workgroupBarrier();
  }
  if (li != 0u) { return; }
  var i = 0u;
  for (var c = 0u; c < 2u; c++) { for (var r = 0u; r < 2u; r++) { o[i] = m.a[c][r]; i++; } }
  for (var c = 0u; c < 3u; c++) { for (var r = 0u; r < 2u; r++) { o[i] = m.b[c][r]; i++; } }
  for (var c = 0u; c < 4u; c++) { for (var r = 0u; r < 2u; r++) { o[i] = m.c[c][r]; i++; } }
  o[i] = m.v.z; i++;
  for (var e = 0u; e < 2u; e++) { for (var c = 0u; c < 2u; c++) { o[i] = m.arr[e][c].y; i++; } }
  for (var c = 0u; c < 3u; c++) { o[i] = lone[c].x + lone[c].y; i++; }
  o[i] = w[63];
}`, "main", nil)
	// WGSL's layout: a at 0 (16 bytes), s at 16, b at 24 (align 8, 24
	// bytes), c at 48 (32 bytes), v at 80, arr at 96 (2 × 16): 128 bytes.
	words := make([]float32, 32)
	put := func(off int, v ...float32) { copy(words[off/4:], v) }
	put(0, 1, 2, 3, 4)
	put(16, 5)
	put(24, 6, 7, 8, 9, 10, 11)
	put(48, 12, 13, 14, 15, 16, 17, 18, 19)
	put(80, 20, 21, 22)
	put(96, 23, 24, 25, 26, 27, 28, 29, 30)
	raw := make([]byte, 4*len(words))
	for i, v := range words {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	var lone recorder.Params
	for _, v := range []float32{1, 10, 2, 20, 3, 30} {
		lone = binary.LittleEndian.AppendUint32(lone, math.Float32bits(v))
	}
	want := []float32{1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 22, 24, 26, 28, 30, 11, 22, 33, 5}
	for _, asBuffer := range []bool{false, true} {
		out, err := s.Alloc(uint64(4 * len(want)))
		if err != nil {
			t.Fatal(err)
		}
		var arg recorder.Arg = recorder.Params(raw)
		if asBuffer {
			b, err := s.Upload(raw)
			if err != nil {
				t.Fatal(err)
			}
			arg = b
		}
		launch(t, s, k, recorder.Groups(1, 1, 1), arg, lone, out)
		wantSame(t, map[bool]string{false: "from Params", true: "from a buffer"}[asBuffer], want, read(t, s, out))
	}
}
