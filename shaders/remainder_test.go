package shaders_test

import (
	"errors"
	"math"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// WGSL defines integer `/` and `%` for every operand (WGSL § "Arithmetic
// Expressions"): i32 `a / b` is a when b is 0 or when a is the most negative
// i32 and b is -1, else a / b truncated toward zero; i32 `a % b` is 0 in
// those two cases, else a - b * trunc(a / b) (the sign of the dividend);
// u32 `a / b` is a and `a % b` is 0 when b is 0; f32 `a % b` is
// a - b * trunc(a / b). naga v22 leaves zero divisors to the driver
// (lavapipe: i32 x % 0 = -1, x / 0 = 0; u32 x / 0 = x % 0 = 0xFFFFFFFF), and
// on OpenGL writes GLSL's %, undefined for negative operands (llvmpipe
// gives -7 % 3 = 0), so softgraph's front-end rewrites the integer divisions
// that need it into helper calls; these tests hold every backend to WGSL
// bit for bit, against the Go model below.

// wgslDivI32, wgslRemI32, wgslDivU32 and wgslRemU32 are WGSL's integer
// division and remainder. Go's / and % compute the same for the other
// divisors (MinInt32 / -1 wraps to MinInt32 in Go too), but panic on 0.
func wgslDivI32(a, b int32) int32 {
	if b == 0 || a == math.MinInt32 && b == -1 {
		return a
	}
	return a / b
}

func wgslRemI32(a, b int32) int32 {
	if b == 0 || a == math.MinInt32 && b == -1 {
		return 0
	}
	return a % b
}

func wgslDivU32(a, b uint32) uint32 {
	if b == 0 {
		return a
	}
	return a / b
}

func wgslRemU32(a, b uint32) uint32 {
	if b == 0 {
		return 0
	}
	return a % b
}

// remainderPairs are (dividend, divisor) pairs: every sign combination,
// the overflow case MinInt32 % -1, zero divisors, the extremes, and
// pseudo-random ones of every magnitude.
func remainderPairs() (xs, ys []int32) {
	pairs := [][2]int32{
		{-7, 3}, {7, -3}, {-7, -3}, {7, 3}, {-1, 2}, {1, -2}, {0, -5}, {-6, 3},
		{-100, 7}, {100, -7}, {5, 9}, {-5, 9},
		{math.MinInt32, -1}, {math.MinInt32, 1}, {math.MinInt32, math.MaxInt32}, {math.MaxInt32, math.MinInt32},
		{math.MinInt32, math.MinInt32}, {math.MaxInt32, -1}, {math.MinInt32, 2}, {math.MinInt32 + 1, -2},
		{-7, 0}, {7, 0}, {0, 0}, {math.MinInt32, 0}, {math.MaxInt32, 0}, {-1, 0}, {0, -1}, {-1, -1},
	}
	for i := range 96 {
		x, y := int32(lcg(2*i)), int32(lcg(2*i+1))>>uint(i%31)
		if y == 0 {
			y = -3
		}
		pairs = append(pairs, [2]int32{x, y})
	}
	for _, p := range pairs {
		xs, ys = append(xs, p[0]), append(ys, p[1])
	}
	return xs, ys
}

// TestSignedRemainderFollowsWGSLOnEveryBackend: i32 % and / give WGSL's
// results for negative operands and zero divisors on the adapter under
// test — scalars,
// vectors (a scalar operand splatted), `%=` on an indexed left-hand side,
// nested remainders, a unary minus binding tighter than %, an abstract
// literal dividend — and each operand of a remainder is evaluated once, the
// dividend first. Without the OpenGL rewrite, llvmpipe's GL returns an
// unsigned remainder for every negative operand here.
func TestSignedRemainderFollowsWGSLOnEveryBackend(t *testing.T) {
	d, s := openStream(t)
	src := `@group(0) @binding(0) var<storage, read> xs: array<i32>;
@group(0) @binding(1) var<storage, read> ys: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;
var<private> trace: i32;
fn tag(id: i32, v: i32) -> i32 { trace = trace * 10 + id; return v; }
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  if i >= arrayLength(&xs) { return; }
  let x = xs[i];
  let y = ys[i];
  let o = 12u * i;
  out[o] = x % y;
  out[o + 1u] = x / y;
  trace = 0;
  out[o + 2u] = tag(1, x) % tag(2, y);
  out[o + 3u] = trace;
  out[o + 4u] = -x % y * 3 + 1;
  out[o + 5u] = (x % y) % 7 + x % (y % 7 + 8);
  let v = vec2<i32>(x, -x) % vec2<i32>(y, -y);
  out[o + 6u] = v.x;
  out[o + 7u] = v.y;
  var w = vec2<i32>(x, -x);
  w %= y;
  out[o + 8u] = w.y;
  out[o + 9u] = x;
  out[o + 9u] %= y;
  out[o + 10u] = bitcast<i32>(bitcast<u32>(x) % bitcast<u32>(y));
  out[o + 11u] = 7 % y;
}`
	k := mustKernel(t, d, src, "main", nil)
	xs, ys := remainderPairs()
	const stride = 12
	out := empty(t, s, stride*len(xs))
	launch(t, s, k, recorder.Groups(uint32(len(xs)+7)/8, 1, 1), upI32(t, s, xs), upI32(t, s, ys), out)
	got := readI32(t, s, out)
	for i := range xs {
		x, y := xs[i], ys[i]
		rem, div := wgslRemI32, wgslDivI32
		want := []int32{
			rem(x, y), div(x, y), rem(x, y), 12, rem(-x, y)*3 + 1, rem(rem(x, y), 7) + rem(x, rem(y, 7)+8),
			rem(x, y), rem(-x, -y), rem(-x, y), rem(x, y), int32(wgslRemU32(uint32(x), uint32(y))), rem(7, y),
		}
		what := []string{
			"x % y", "x / y", "tag(1, x) % tag(2, y)", "trace (operands once, dividend first)", "-x % y * 3 + 1",
			"(x % y) % 7 + x % (y % 7 + 8)", "(vec2(x, -x) % vec2(y, -y)).x", "(vec2(x, -x) % vec2(y, -y)).y",
			"(vec2(x, -x) %= y).y", "out[o + 9u] %= y", "u32(x) % u32(y)", "7 % y",
		}
		for j, w := range want {
			if g := got[stride*i+j]; g != w {
				t.Errorf("x = %d, y = %d: %s = %d on %v; WGSL gives %d", x, y, what[j], g, d.Info().Backend, w)
			}
		}
	}
}

// TestCompoundDivisionEvaluatesItsTargetOnce: `lhs /= rhs` and
// `lhs %= rhs` whose lhs calls a function evaluate lhs once, before rhs,
// as WGSL does, and give WGSL's result, on the adapter under test: the
// front-end takes lhs's address in a block of its own. Each call appends
// its id to a private trace, so 12 says lhs once then rhs once; the
// targets lie in storage, function, private and workgroup memory, some are
// vector components (whose address WGSL forbids, so the vector's is taken),
// one index is an atomicAdd counted in workgroup memory, two sites share a
// line and one runs in a loop body. Without the rewrite these shaders are
// refused; with one that copied lhs, the trace would hold its ids twice.
func TestCompoundDivisionEvaluatesItsTargetOnce(t *testing.T) {
	d, s := openStream(t)
	src := `@group(0) @binding(0) var<storage, read> xs: array<i32>;
@group(0) @binding(1) var<storage, read> ys: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;
var<private> trace: i32;
var<private> pv: array<vec2<i32>, 2>;
var<workgroup> wg: array<i32, 8>;
var<workgroup> ac: array<atomic<u32>, 8>;
fn tag(id: i32, v: i32) -> i32 { trace = trace * 10 + id; return v; }
fn tagu(id: i32, v: u32) -> u32 { trace = trace * 10 + id; return v; }
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(local_invocation_index) lid: u32) {
  let i = g.x;
  if i >= arrayLength(&xs) { return; }
  let x = xs[i];
  let y = ys[i];
  let o = 20u * i;
  out[o] = x;
  trace = 0;
  out[tagu(1, o)] %= tag(2, y);
  out[o + 1u] = trace;
  out[o + 2u] = x; out[o + 3u] = -x;
  trace = 0;
  out[tagu(1, o + 2u)] /= y; out[tagu(2, o + 3u)] %= tag(3, y);
  out[o + 4u] = trace;
  var fv = array<i32, 2>(x, -x);
  trace = 0;
  fv[tagu(1, 1u)] /= tag(2, y);
  out[o + 5u] = fv[1];
  out[o + 6u] = trace;
  pv[0] = vec2<i32>(x, -x);
  pv[1] = vec2<i32>(y, 7);
  trace = 0;
  pv[tagu(1, 0u)].y %= tag(2, y);
  out[o + 7u] = pv[0].y;
  out[o + 8u] = trace;
  trace = 0;
  pv[tagu(1, 1u)][tagu(2, 0u)] /= tag(3, x);
  out[o + 9u] = pv[1].x;
  out[o + 10u] = trace;
  wg[lid] = x;
  trace = 0;
  wg[tagu(1, lid)] %= tag(2, y);
  out[o + 11u] = wg[lid];
  out[o + 12u] = trace;
  atomicStore(&ac[lid], 0u);
  out[o + 13u] = y;
  out[o + 13u + atomicAdd(&ac[lid], 1u)] /= x;
  out[o + 14u] = i32(atomicLoad(&ac[lid]));
  var w = vec3<i32>(x, y, -x);
  trace = 0;
  w[tagu(1, 2u)] %= tag(2, y);
  out[o + 15u] = w.z;
  out[o + 16u] = trace;
  var fc = array<i32, 2>(x, y);
  trace = 0;
  for (var k = 0u; k < 2u; k++) {
    fc[tagu(i32(k) + 1, k)] %= y;
  }
  out[o + 17u] = fc[0];
  out[o + 18u] = fc[1];
  out[o + 19u] = trace;
}`
	k := mustKernel(t, d, src, "main", nil)
	xs, ys := remainderPairs()
	const stride = 20
	out := empty(t, s, stride*len(xs))
	launch(t, s, k, recorder.Groups(uint32(len(xs)+7)/8, 1, 1), upI32(t, s, xs), upI32(t, s, ys), out)
	got := readI32(t, s, out)
	what := []string{
		"storage out[f()] %= g(y)", "trace (lhs once, then rhs)",
		"storage out[f()] /= y (first of two on a line)", "storage out[f()] %= g(y) (second on the line)", "trace of the line",
		"function fv[f()] /= g(y)", "trace",
		"private vector component pv[f()].y %= g(y)", "trace",
		"private indexed vector component pv[f()][f()] /= g(x)", "trace (vector, index, rhs)",
		"workgroup wg[f()] %= g(y)", "trace",
		"out[o + atomicAdd(...)] /= x", "atomicAdd calls",
		"function vector w[f()] %= g(y)", "trace",
		"loop body fc[f(k)] %= y, k = 0", "k = 1", "trace of the loop",
	}
	for i := range xs {
		x, y := xs[i], ys[i]
		rem, div := wgslRemI32, wgslDivI32
		want := []int32{
			rem(x, y), 12,
			div(x, y), rem(-x, y), 123,
			div(-x, y), 12,
			rem(-x, y), 12,
			div(y, x), 123,
			rem(x, y), 12,
			div(y, x), 1,
			rem(-x, y), 12,
			rem(x, y), rem(y, y), 12,
		}
		for j, w := range want {
			if g := got[stride*i+j]; g != w {
				t.Errorf("x = %d, y = %d: %s = %d on %v; WGSL gives %d", x, y, what[j], g, d.Info().Backend, w)
			}
		}
	}
}

// TestIntegerDivisionByZeroFollowsWGSLOnEveryBackend: a runtime zero
// divisor gives WGSL's result on the adapter under test, not the driver's:
// x / 0 = x and x % 0 = 0 for i32 and u32, scalars, vectors (a scalar
// divisor splatted), `/=` and `%=`, and a literal zero divisor with a
// runtime dividend; MinInt32 / -1 = MinInt32 and MinInt32 % -1 = 0, also
// by the literal -1.
func TestIntegerDivisionByZeroFollowsWGSLOnEveryBackend(t *testing.T) {
	d, s := openStream(t)
	src := `@group(0) @binding(0) var<storage, read> xs: array<i32>;
@group(0) @binding(1) var<storage, read> zero: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  if i >= arrayLength(&xs) { return; }
  let x = xs[i];
  let z = zero[i];
  let ux = bitcast<u32>(x);
  let uz = u32(z);
  let o = 14u * i;
  out[o] = x % z;
  out[o + 1u] = x / z;
  out[o + 2u] = (vec3<i32>(1, x, 2) % z).y;
  out[o + 3u] = (vec2<i32>(x, 1) / vec2<i32>(z, 1)).x;
  var s = x;
  s /= z;
  out[o + 4u] = s;
  out[o + 5u] = x / 0;
  out[o + 6u] = x % -1 + x / -1;
  out[o + 7u] = bitcast<i32>(ux % uz);
  out[o + 8u] = bitcast<i32>(ux / uz);
  out[o + 9u] = bitcast<i32>((vec4<u32>(ux) / uz).w);
  out[o + 10u] = bitcast<i32>((vec2<u32>(ux, 3u) % vec2<u32>(uz, 2u)).x);
  var us = ux;
  us %= uz;
  out[o + 11u] = bitcast<i32>(us);
  us = ux;
  us /= 0u;
  out[o + 12u] = bitcast<i32>(us);
  out[o + 13u] = bitcast<i32>(ux % 0u);
}`
	k := mustKernel(t, d, src, "main", nil)
	xs := []int32{-7, 7, 0, -1, math.MinInt32, math.MaxInt32, 1, -2}
	const stride = 14
	out := empty(t, s, stride*len(xs))
	launch(t, s, k, recorder.Groups(1, 1, 1), upI32(t, s, xs), upI32(t, s, make([]int32, len(xs))), out)
	got := readI32(t, s, out)
	what := []string{"x % 0", "x / 0", "(vec3(1, x, 2) % 0).y", "(vec2(x, 1) / vec2(0, 1)).x", "x /= 0", "x / 0 (literal)",
		"x % -1 + x / -1", "u32 x % 0", "u32 x / 0", "u32 (vec4(x) / 0).w", "u32 (vec2(x, 3) % vec2(0, 2)).x",
		"u32 x %= 0", "u32 x /= 0u (literal)", "u32 x % 0u (literal)"}
	for i, x := range xs {
		ux := uint32(x)
		want := []int32{
			wgslRemI32(x, 0), wgslDivI32(x, 0), wgslRemI32(x, 0), wgslDivI32(x, 0), wgslDivI32(x, 0), wgslDivI32(x, 0),
			wgslRemI32(x, -1) + wgslDivI32(x, -1), int32(wgslRemU32(ux, 0)), int32(wgslDivU32(ux, 0)), int32(wgslDivU32(ux, 0)),
			int32(wgslRemU32(ux, 0)), int32(wgslRemU32(ux, 0)), int32(wgslDivU32(ux, 0)), int32(wgslRemU32(ux, 0)),
		}
		for j, w := range want {
			if g := got[stride*i+j]; g != w {
				t.Errorf("x = %d: %s = %d on %v; WGSL gives %d", x, what[j], g, d.Info().Backend, w)
			}
		}
	}
}

// TestUnsignedDivisionFollowsWGSLOnEveryBackend: u32 / and % give WGSL's
// results on the adapter under test for every divisor, zero included —
// runtime divisors, scalars and vectors, `/=` and `%=` — and the divisions
// by a non-zero constant (a literal, a const, an override) that the
// front-end leaves as written are exact too; and so are divisions whose
// other operand is an unsuffixed literal (4096 / y, 4096 % y, x / 0,
// x % 0), valid WGSL the helpers' calls once made naga refuse (it reads a
// literal argument as i32).
func TestUnsignedDivisionFollowsWGSLOnEveryBackend(t *testing.T) {
	d, s := openStream(t)
	src := `override N: u32;
const C = 7u;
@group(0) @binding(0) var<storage, read> xs: array<u32>;
@group(0) @binding(1) var<storage, read> ys: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  if i >= arrayLength(&xs) { return; }
  let x = xs[i];
  let y = ys[i];
  let o = 14u * i;
  out[o] = x / y;
  out[o + 1u] = x % y;
  let v = vec3<u32>(x, y, x) / vec3<u32>(y, x, 1u);
  out[o + 2u] = v.x;
  out[o + 3u] = v.y;
  var w = x;
  w %= y;
  out[o + 4u] = w;
  out[o + 5u] = x / 64u;
  out[o + 6u] = x % C;
  out[o + 7u] = x / N;
  out[o + 8u] = x % N;
  out[o + 9u] = (vec2<u32>(x) % y).y;
  out[o + 10u] = 4096 / y;
  out[o + 11u] = 4096 % y;
  out[o + 12u] = x / 0;
  out[o + 13u] = x % 0;
}`
	k := mustKernel(t, d, src, "main", map[string]float64{"N": 3})
	xs := []uint32{0, 1, 7, 64, 100, math.MaxUint32, math.MaxUint32, 5, 0, 12345}
	ys := []uint32{0, 0, 3, 64, 7, 0, math.MaxUint32, 9, 3, 1}
	for i := range 14 {
		xs, ys = append(xs, lcg(3*i)), append(ys, lcg(3*i+1)>>uint(2*i))
	}
	const stride = 14
	out := empty(t, s, stride*len(xs))
	launch(t, s, k, recorder.Groups(uint32(len(xs)+7)/8, 1, 1), upU32(t, s, xs), upU32(t, s, ys), out)
	got := readU32(t, s, out)
	what := []string{"x / y", "x % y", "(vec3(x, y, x) / vec3(y, x, 1)).x", "(vec3(x, y, x) / vec3(y, x, 1)).y", "x %= y",
		"x / 64u", "x % C (7u)", "x / N (override 3)", "x % N (override 3)", "(vec2(x) % y).y",
		"4096 / y", "4096 % y", "x / 0", "x % 0"}
	for i := range xs {
		x, y := xs[i], ys[i]
		want := []uint32{wgslDivU32(x, y), wgslRemU32(x, y), wgslDivU32(x, y), wgslDivU32(y, x), wgslRemU32(x, y),
			x / 64, x % 7, x / 3, x % 3, wgslRemU32(x, y),
			wgslDivU32(4096, y), wgslRemU32(4096, y), wgslDivU32(x, 0), wgslRemU32(x, 0)}
		for j, w := range want {
			if g := got[stride*i+j]; g != w {
				t.Errorf("x = %d, y = %d: %s = %d on %v; WGSL gives %d", x, y, what[j], g, d.Info().Backend, w)
			}
		}
	}
}

// TestConstantIntegerDivisionsFollowWGSL: divisions the front-end leaves
// as written because their divisor is a constant — i32 by constants other
// than 0 and -1 with negative dividends (on OpenGL the remainder still goes
// through the helper), whole constant expressions of typed constants —
// give WGSL's results; and a constant expression that divides by zero is
// refused at Kernel, as WGSL makes it an error rather than a value.
func TestConstantIntegerDivisionsFollowWGSL(t *testing.T) {
	d, s := openStream(t)
	src := `const KI: i32 = -7;
const M: i32 = -2147483647 - 1;
@group(0) @binding(0) var<storage, read> xs: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  if i >= arrayLength(&xs) { return; }
  let x = xs[i];
  let o = 8u * i;
  out[o] = x / 3;
  out[o + 1u] = x % 3;
  out[o + 2u] = x / -4;
  out[o + 3u] = x % -4;
  out[o + 4u] = KI % 3 + KI / 2;
  out[o + 5u] = M % -1;
  out[o + 6u] = (vec2<i32>(x, -x) % 5).y;
  out[o + 7u] = KI / -2 + M / 2;
}`
	k := mustKernel(t, d, src, "main", nil)
	xs := []int32{-7, 7, 0, -1, math.MinInt32, math.MaxInt32, 1, -2, -3, 3, -4, 4, -5, 5, 11, -11}
	const stride = 8
	out := empty(t, s, stride*len(xs))
	launch(t, s, k, recorder.Groups(uint32(len(xs)+7)/8, 1, 1), upI32(t, s, xs), out)
	got := readI32(t, s, out)
	what := []string{"x / 3", "x % 3", "x / -4", "x % -4", "KI % 3 + KI / 2", "M % -1", "(vec2(x, -x) % 5).y", "KI / -2 + M / 2"}
	for i, x := range xs {
		want := []int32{x / 3, x % 3, x / -4, x % -4, -7%3 + -7/2, 0, wgslRemI32(-x, 5), -7/-2 + math.MinInt32/2}
		for j, w := range want {
			if g := got[stride*i+j]; g != w {
				t.Errorf("x = %d: %s = %d on %v; WGSL gives %d", x, what[j], g, d.Info().Backend, w)
			}
		}
	}
	for _, bad := range []string{
		"const X = 7 / 0;\n@compute @workgroup_size(1) fn main() { _ = X; }\n",
		"@compute @workgroup_size(1) fn main() { const X: i32 = 7 % 0; _ = X; }\n",
		"const K: u32 = 7u;\n@compute @workgroup_size(1) fn main() { let y = K / 0u; _ = y; }\n",
	} {
		if _, err := d.Kernel(bad, "main"); !errors.Is(err, wgpu.ErrCompile) {
			t.Errorf("Kernel(%q) = %v; want a compile error: a constant division by zero is an error in WGSL", bad, err)
		}
	}
}

// TestFloatRemainderTruncatesOnEveryBackend: f32 % is x - y * trunc(x / y)
// (the sign of the dividend) on the adapter under test, OpenGL included,
// where GLSL's mod() would floor instead.
func TestFloatRemainderTruncatesOnEveryBackend(t *testing.T) {
	d, s := openStream(t)
	src := `@group(0) @binding(0) var<storage, read> xs: array<f32>;
@group(0) @binding(1) var<storage, read> ys: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  if g.x < arrayLength(&xs) { out[g.x] = xs[g.x] % ys[g.x]; }
}`
	k := mustKernel(t, d, src, "main", nil)
	xs := []float32{5.5, -5.5, 5.5, -5.5, 7, -7, 0.75, -0.75}
	ys := []float32{2, 2, -2, -2, 3, 3, 0.5, -0.5}
	out := empty(t, s, len(xs))
	launch(t, s, k, recorder.Groups(1, 1, 1), upload(t, s, xs), upload(t, s, ys), out)
	want := make([]float32, len(xs))
	for i := range xs {
		want[i] = float32(math.Mod(float64(xs[i]), float64(ys[i])))
	}
	wantSame(t, "x % y", want, read(t, s, out))
}
