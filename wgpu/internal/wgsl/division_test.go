package wgsl

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// remModule declares what the remainder cases use; each case is one
// statement of the body of remEntry.
const remModule = `const K = 4;
const KI: i32 = -3;
const KU = 8u;
@group(0) @binding(0) var<storage, read_write> a: array<i32>;
@group(0) @binding(1) var<storage, read_write> u: array<u32>;
var<private> n: i32;
var<private> pv: array<vec2<i32>, 2>;
fn f(x: i32) -> i32 { n += 1; return x; }
@compute @workgroup_size(1)
fn remEntry(@builtin(global_invocation_id) g: vec3u) {
  let x = a[0];
  let y = a[1];
  var v = vec2<i32>(x, y);
  var w = vec4i(x, y, x, y);
  var s = x;
  let fl = f32(x);
  const L = 5;
`

const remEnd = "\n}\n"

// remHelper, divHelper, remU32Helper and divU32Helper are the scalar
// helpers the rewrite appends; the vector helpers call them component by
// component.
const (
	remHelper    = "fn _sg_rem_i32(a: i32, b: i32) -> i32 { let s = a >> 31u; let m = u32(abs(a)) % max(u32(abs(b)), 1u); return (i32(m) ^ s) - s; }"
	divHelper    = "fn _sg_div_i32(a: i32, b: i32) -> i32 { let s = (a ^ b) >> 31u; let m = u32(abs(a)) / max(u32(abs(b)), 1u); return (i32(m) ^ s) - s; }"
	remU32Helper = "fn _sg_rem_u32(a: u32, b: u32) -> u32 { return a % max(b, 1u); }"
	divU32Helper = "fn _sg_div_u32(a: u32, b: u32) -> u32 { return a / max(b, 1u); }"
)

// vecHelper is the helper of op ("rem", "div") on n-component vectors of
// elem ("i32", "u32").
func vecHelper(op, elem string, n int) string {
	v := "vec" + strconv.Itoa(n) + "<" + elem + ">"
	var args []string
	for _, c := range "xyzw"[:n] {
		args = append(args, "_sg_"+op+"_"+elem+"(a."+string(c)+", b."+string(c)+")")
	}
	return "fn _sg_" + op + "_vec" + strconv.Itoa(n) + "_" + elem + "(a: " + v + ", b: " + v + ") -> " + v + " { return " + v + "(" + strings.Join(args, ", ") + "); }"
}

// TestIntegerDivisionsBecomeHelperCalls: every runtime division or
// remainder of concrete i32 or u32 scalars or vectors in a function body
// becomes a call of a helper appended after the last line, which gives
// WGSL's result for every divisor (targets leave a zero divisor, and on
// OpenGL a negative i32 remainder, to the driver); operands stay in order
// and are written once (a call's arguments are evaluated once, left to
// right), precedence is kept, other edits inside operands still apply.
// What is exact as written is copied as written: f32, constant
// expressions, and a constant divisor other than 0 (and -1 for i32) — except
// an i32 remainder on OpenGL, whose negative dividend GLSL leaves
// undefined. Every line keeps its number.
func TestIntegerDivisionsBecomeHelperCalls(t *testing.T) {
	for _, tc := range []struct {
		name, stmt, want string
		helpers          []string // appended after the last line; nil: none
		// gl and glHelpers are what OpenGL gets where it differs.
		gl        string
		glHelpers []string
	}{
		{name: "scalar operands", stmt: "a[2] = x % y;", want: "a[2] = _sg_rem_i32(x , y);", helpers: []string{remHelper}},
		{name: "a scalar division", stmt: "a[2] = x / y;", want: "a[2] = _sg_div_i32(x , y);", helpers: []string{divHelper}},
		{name: "operands that call functions stay in order, each once", stmt: "a[2] = f(x) % f(y);", want: "a[2] = _sg_rem_i32(f(x) , f(y));", helpers: []string{remHelper}},
		{name: "unary minus binds tighter; * and + stay outside", stmt: "a[2] = -x % y * 2 + 1;", want: "a[2] = _sg_rem_i32(-x , y) * 2 + 1;", helpers: []string{remHelper}},
		{name: "a remainder on the right of +", stmt: "a[2] = x + y % (x + 3);", want: "a[2] = x + _sg_rem_i32(y , (x + 3));", helpers: []string{remHelper}},
		{name: "left-associative chain nests", stmt: "a[2] = x % y / x;", want: "a[2] = _sg_div_i32(_sg_rem_i32(x , y) , x);", helpers: []string{remHelper, divHelper}},
		{name: "parenthesised nested remainder", stmt: "a[2] = x % (y % x);", want: "a[2] = _sg_rem_i32(x , (_sg_rem_i32(y , x)));", helpers: []string{remHelper}},
		{name: "no spaces around the operator", stmt: "a[2] = x%y;", want: "a[2] = _sg_rem_i32(x,y);", helpers: []string{remHelper}},
		{name: "abstract literal dividend with an i32 divisor", stmt: "a[2] = -7 % y;", want: "a[2] = _sg_rem_i32(-7 , y);", helpers: []string{remHelper}},
		{name: "typed module const and i32() conversion", stmt: "a[2] = KI % i32(g.x);", want: "a[2] = _sg_rem_i32(KI , i32(g.x));", helpers: []string{remHelper}},
		{name: "remainder inside an index and a call argument", stmt: "a[x % y] = f(y / x);", want: "a[_sg_rem_i32(x , y)] = f(_sg_div_i32(y , x));", helpers: []string{remHelper, divHelper}},
		{name: "in an if condition and a switch selector, not a case value", stmt: "if x % y == 1 { switch y % x { case 1 % 2: {} default: {} } }", want: "if _sg_rem_i32(x , y) == 1 { switch _sg_rem_i32(y , x) { case 1 % 2: {} default: {} } }", helpers: []string{remHelper}},
		{name: "vector operands", stmt: "v = v % vec2<i32>(3, -3);", want: "v = _sg_rem_vec2_i32(v , vec2<i32>(3, -3));", helpers: []string{remHelper, vecHelper("rem", "i32", 2)}},
		{name: "a scalar divisor of a vector is splatted", stmt: "v = v / y;", want: "v = _sg_div_vec2_i32(v , vec2<i32>(y));", helpers: []string{divHelper, vecHelper("div", "i32", 2)}},
		{name: "a scalar dividend of a vector is splatted", stmt: "w = 7 % w;", want: "w = _sg_rem_vec4_i32(vec4<i32>(7) , w);", helpers: []string{remHelper, vecHelper("rem", "i32", 4)}},
		{name: "a nested scalar remainder splatted into a vector one", stmt: "v = v % (x % y);", want: "v = _sg_rem_vec2_i32(v , vec2<i32>((_sg_rem_i32(x , y))));", helpers: []string{remHelper, vecHelper("rem", "i32", 2)}},
		{name: "compound assignment", stmt: "s %= y + 1;", want: "s = _sg_rem_i32(s, y + 1);", helpers: []string{remHelper}},
		{name: "compound division", stmt: "s /= y;", want: "s = _sg_div_i32(s, y);", helpers: []string{divHelper}},
		{name: "compound assignment on an indexed left-hand side with a remainder inside", stmt: "a[x % y] %= y;", want: "a[_sg_rem_i32(x , y)] = _sg_rem_i32(a[_sg_rem_i32(x , y)], y);", helpers: []string{remHelper}},
		{name: "compound assignment of a vector by a runtime scalar", stmt: "v /= s;", want: "v = _sg_div_vec2_i32(v, vec2<i32>(s));", helpers: []string{divHelper, vecHelper("div", "i32", 2)}},
		{name: "compound assignment of a vector component", stmt: "v.x %= y % x;", want: "v.x = _sg_rem_i32(v.x, _sg_rem_i32(y , x));", helpers: []string{remHelper}},
		{name: "a compound assignment whose left-hand side calls a function evaluates it once through a pointer", stmt: "a[f(0)] %= y;", want: "{ let _sg_p1 = &(a[f(0)]); *_sg_p1 = _sg_rem_i32(*_sg_p1, y); }", helpers: []string{remHelper}},
		{name: "a pointer statement inside nested blocks, with divisions in lhs and rhs", stmt: "if x > 0 { loop { a[f(x % y)] /= f(y) / x; break; } }", want: "if x > 0 { loop { { let _sg_p1 = &(a[f(_sg_rem_i32(x , y))]); *_sg_p1 = _sg_div_i32(*_sg_p1, _sg_div_i32(f(y) , x)); } break; } }", helpers: []string{remHelper, divHelper}},
		{name: "a pointer statement in a for loop's body", stmt: "for (var k = 0; k < 2; k++) { a[f(k)] /= y; }", want: "for (var k = 0; k < 2; k++) { { let _sg_p1 = &(a[f(k)]); *_sg_p1 = _sg_div_i32(*_sg_p1, y); } }", helpers: []string{divHelper}},
		{name: "several pointer statements on one line each get their own name", stmt: "a[f(0)]/=y;a[f(1)] %= y; pv[f(0)] /= x;", want: "{ let _sg_p1 = &(a[f(0)]); *_sg_p1 = _sg_div_i32(*_sg_p1,y); }{ let _sg_p2 = &(a[f(1)]); *_sg_p2 = _sg_rem_i32(*_sg_p2, y); } { let _sg_p3 = &(pv[f(0)]); *_sg_p3 = _sg_div_vec2_i32(*_sg_p3, vec2<i32>(x)); }", helpers: []string{remHelper, divHelper, vecHelper("div", "i32", 2)}},
		{name: "a vector component left-hand side takes the vector's address", stmt: "pv[f(0)].y %= y;", want: "{ let _sg_p1 = &(pv[f(0)]); (*_sg_p1).y = _sg_rem_i32((*_sg_p1).y, y); }", helpers: []string{remHelper}},
		{name: "an indexed vector component evaluates the vector, then the index, once", stmt: "pv[f(0)][f(1)] /= y;", want: "{ let _sg_p1 = &(pv[f(0)]); let _sg_i1 = f(1); (*_sg_p1)[_sg_i1] = _sg_div_i32((*_sg_p1)[_sg_i1], y); }", helpers: []string{divHelper}},
		{name: "a local vector indexed by a call", stmt: "v[f(1)] %= y;", want: "{ let _sg_p1 = &(v); let _sg_i1 = f(1); (*_sg_p1)[_sg_i1] = _sg_rem_i32((*_sg_p1)[_sg_i1], y); }", helpers: []string{remHelper}},
		{name: "a parenthesised vector component left-hand side", stmt: "(pv[f(0)].x) /= y;", want: "{ let _sg_p1 = &( pv[f(0)]); (*_sg_p1).x = _sg_div_i32((*_sg_p1).x, y); }", helpers: []string{divHelper}},
		{name: "u32 operands", stmt: "u[0] = u[1] % g.x; u[2] /= g.y; u[3] = u[4] / u[5];", want: "u[0] = _sg_rem_u32(u[1] , g.x); u[2] = _sg_div_u32(u[2], g.y); u[3] = _sg_div_u32(u[4] , u[5]);", helpers: []string{remU32Helper, divU32Helper}},
		{name: "u32 vectors", stmt: "let q = g / g.x % vec3u(g.y);", want: "let q = _sg_rem_vec3_u32(_sg_div_vec3_u32(g , vec3<u32>(g.x)) , vec3u(g.y));", helpers: []string{remU32Helper, vecHelper("rem", "u32", 3), divU32Helper, vecHelper("div", "u32", 3)}},
		{name: "a constant non-zero u32 divisor needs no helper", stmt: "u[0] = u[1] % 3u + g.x / 64u + g.y / 64 + u[2] % K; u[2] %= 4u; u[3] /= KU;", want: "u[0] = u[1] % 3u + g.x / 64u + g.y / 64 + u[2] % 4u; u[2] %= 4u; u[3] /= KU;"},
		{name: "a constant i32 divisor other than 0 and -1 needs no helper for /", stmt: "a[2] = x / 2 + y / KI + x / L + x / -3;", want: "a[2] = x / 2 + y / KI + x / 5 + x / -3;"},
		{name: "a constant i32 divisor still needs the helper for % (negative operands are the driver's)", stmt: "a[2] = x % 2 + y % KI + x % L;", want: "a[2] = _sg_rem_i32(x , 2) + _sg_rem_i32(y , KI) + _sg_rem_i32(x , 5);", helpers: []string{remHelper}},
		{name: "a scalar constant divisor of a vector", stmt: "v = v / 3; v %= 4;", want: "v = v / 3; v = _sg_rem_vec2_i32(v, vec2<i32>(4));", helpers: []string{remHelper, vecHelper("rem", "i32", 2)}},
		{name: "a constant divisor 0 or -1 needs the helper", stmt: "a[2] = x / 0 + x % -1 + x / -1; u[0] = u[1] % 0u;", want: "a[2] = _sg_div_i32(x , 0) + _sg_rem_i32(x , -1) + _sg_div_i32(x , -1); u[0] = _sg_rem_u32(u[1] , 0u);", helpers: []string{remHelper, divHelper, remU32Helper}},
		{name: "f32 divisions are untouched", stmt: "a[2] = i32(fl % 2.5 + fl / fl);", want: "a[2] = _sg_to_i32_f32(fl % 2.5 + fl / fl);",
			helpers: []string{"fn _sg_to_i32_f32(e: f32) -> i32 { return select(i32(2147483647i), select(i32(-2147483647i - 1i), i32(e), e >= f32(-2147483648.0)), e <= f32(2147483520.0)); }"}},
		{name: "abstract constant expressions are left to the compiler", stmt: "a[2] = -7 % 3 + K % 3;", want: "a[2] = -7 % 3 + K % 3;"},
		{name: "typed constant expressions become their value", stmt: "a[2] = KI / 2 + KI % -1 + (KI - 1) % L; u[0] = KU / 3u;", want: "a[2] = (-1i) + 0i + (-4i); u[0] = 2u;"},
		{name: "a function-scope const initializer is evaluated, not rewritten", stmt: "const M = -7 % 3; a[2] = M;", want: " a[2] = (-1);"},
		{name: "array counts are constant expressions", stmt: "var arr: array<i32, 7 % 4>; a[2] = arr[0];", want: "var arr: array<i32, 3> = array<i32, 3>(); a[2] = arr[0];"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := remModule + "  " + tc.stmt + remEnd
			for _, gl := range []bool{false, true} {
				want, wantHelpers := tc.want, tc.helpers
				if gl && tc.gl != "" {
					want, wantHelpers = tc.gl, tc.glHelpers
				}
				k, err := Specialize(src, "remEntry", Options{OpenGL: gl})
				if err != nil {
					t.Fatalf("Specialize (OpenGL %v): %v", gl, err)
				}
				body, helpers, _ := strings.Cut(k.Source, remEnd)
				if n, m := strings.Count(body, "\n"), strings.Count(remModule, "\n"); n != m {
					t.Errorf("OpenGL %v: the statement is on line %d; it was on line %d", gl, n+1, m+1)
				}
				if diff := cmp.Diff("  "+want, body[strings.LastIndex(body, "\n")+1:]); diff != "" {
					t.Errorf("OpenGL %v: the rewritten statement differs (-want +got):\n%s", gl, diff)
				}
				var wantText string
				if wantHelpers != nil {
					wantText = strings.Join(wantHelpers, "\n") + "\n"
				}
				if diff := cmp.Diff(wantText, helpers); diff != "" {
					t.Errorf("OpenGL %v: the helpers appended after the last line differ (-want +got):\n%s", gl, diff)
				}
				again, err := Specialize(k.Source, "remEntry", Options{OpenGL: gl})
				if err != nil {
					t.Errorf("OpenGL %v: the rewritten module does not read back: %v\n%s", gl, err, k.Source)
				} else if again.Source != k.Source {
					t.Errorf("OpenGL %v: rewriting the rewritten module changed it again:\n%s", gl, again.Source)
				}
			}
		})
	}
}

// TestDivisionRewriteKeepsLineNumbers: the helpers come after the
// author's last line, on lines of their own even when the module ends in a
// line comment, so a diagnostic's line still points at the author's line.
func TestDivisionRewriteKeepsLineNumbers(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> a: array<i32>;\n@compute @workgroup_size(1)\nfn main() {\n  a[0] = a[1]\n    %\n    a[2];\n  var v = vec3i(a[0], a[1], a[2]);\n  v /= vec3i(\n    a[3]);\n  a[0] = v.x;\n} // no line break at the end"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines, srcLines := strings.Split(k.Source, "\n"), strings.Split(src, "\n")
	if len(lines) < len(srcLines)+1 || lines[len(srcLines)-1] != srcLines[len(srcLines)-1] {
		t.Fatalf("the author's last line moved or was joined with a helper:\n%s", k.Source)
	}
	for i, l := range srcLines {
		if strings.Count(l, "a[") > 0 && !strings.Contains(lines[i], "a[") {
			t.Errorf("line %d was %q and is now %q: every line keeps its number", i+1, l, lines[i])
		}
	}
	if !strings.HasPrefix(lines[len(srcLines)], "fn _sg_rem_i32(") {
		t.Errorf("the helpers do not start on the line after the author's last:\n%s", k.Source)
	}
	if _, err := Specialize(k.Source, "main", Options{}); err != nil {
		t.Errorf("the rewritten module does not read back: %v\n%s", err, k.Source)
	}
}

// TestDivisionHelpersAvoidTheModulesNames: when the source already holds
// the helpers' prefix anywhere (a name, a comment), the helpers take the
// first prefix it does not hold, so no declaration of the author's is
// shadowed or redeclared; and a function of the author's that only looks
// like a helper (same name, other body) is rewritten like any other.
func TestDivisionHelpersAvoidTheModulesNames(t *testing.T) {
	src := "fn _sg_rem_i32(a: i32, b: i32) -> i32 { return a % b; } // _sg1_\n@group(0) @binding(0) var<storage, read_write> a: array<i32>;\n@compute @workgroup_size(1) fn main() { a[0] = _sg_rem_i32(a[1], 2) % a[2]; }\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(k.Source, "a[0] = _sg2_rem_i32(_sg_rem_i32(a[1], 2) , a[2]);") || !strings.Contains(k.Source, "\nfn _sg2_rem_i32(a: i32, b: i32)") {
		t.Errorf("the helper should be named _sg2_rem_i32, the first free prefix:\n%s", k.Source)
	}
	if !strings.HasPrefix(k.Source, "fn _sg_rem_i32(a: i32, b: i32) -> i32 { return _sg2_rem_i32(a , b); }") {
		t.Errorf("the author's _sg_rem_i32 is not a helper of the rewrite and must be rewritten:\n%s", k.Source)
	}
}

// TestCompoundDivisionCallingAFunctionInAForHeaderIsRefused: a `/=` or
// `%=` that needs a helper and whose left-hand side calls a user function
// (or an atomic) must evaluate that side once, as WGSL does; a whole
// statement does so through a pointer, but a for loop's initializer or
// update clause cannot hold the statements that takes, so Specialize
// refuses there with an *Error at the operator that names the call, the
// for header and the fix, instead of repeating the call's side effect. The
// same statement in the loop's body is rewritten; where no helper is needed
// (a constant divisor that makes the operator exact) the header is copied
// as written and accepted.
func TestCompoundDivisionCallingAFunctionInAForHeaderIsRefused(t *testing.T) {
	line := strings.Count(remModule, "\n") + 1
	for _, stmt := range []string{
		"for (var k = 0; k < 2; a[f(k)] %= y) {}",
		"for (var k = 0; k < 2; a[f(k)] /= y) {}",
		"for (u[atomicAdd(&c, 1u)] /= g.x; x < 0;) {}",
		"for (; x < 0; pv[f(0)].x /= y) {}",
	} {
		for _, gl := range []bool{false, true} {
			src := "var<workgroup> c: atomic<u32>;\n" + remModule + "  " + stmt + remEnd
			_, err := Specialize(src, "remEntry", Options{OpenGL: gl})
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("%s (OpenGL %v): Specialize = %v; want an *Error refusing, in a for header, the compound assignment whose left-hand side calls a function", stmt, gl, err)
				continue
			}
			if se.Line != line+1 || !strings.Contains(se.Msg, "()") || !strings.Contains(se.Msg, "for loop's header") || !strings.Contains(se.Msg, "let i") {
				t.Errorf("%s (OpenGL %v): error %v; want it on line %d naming the call, the for header and the fix", stmt, gl, err, line+1)
			}
		}
	}
	if _, err := Specialize(remModule+"  for (var k = 0; k < 2; a[f(k)] /= 3) { a[f(k)] %= 3; }"+remEnd, "remEntry", Options{}); err != nil {
		t.Errorf("a constant divisor other than 0 and -1 needs no helper, so the for header must be accepted: %v", err)
	}
	if _, err := Specialize(remModule+"  for (var k = 0; k < 2; a[f(k)] %= 3) {}"+remEnd, "remEntry", Options{OpenGL: true}); err == nil {
		t.Errorf("on OpenGL an i32 %%= needs the helper for any divisor, so a[f(k)] %%= 3 in a for header must be refused")
	}
	// A builtin conversion in the index is pure: rewritten in place, even
	// in a for header.
	if _, err := Specialize(remModule+"  for (var k = 0; k < 2; a[u32(k)] %= y) {}"+remEnd, "remEntry", Options{}); err != nil {
		t.Errorf("a pure left-hand side must be rewritten: %v", err)
	}
}

// TestPointerRewriteKeepsLineNumbers: a compound division whose left-hand
// side calls a function and that spans several lines (a comment between
// lhs and operator included) becomes the pointer block on the same lines,
// so every later line keeps its number, and the result reads back.
func TestPointerRewriteKeepsLineNumbers(t *testing.T) {
	stmt := "pv[f(0)] // the target\n    .y\n    /=\n    y;\n  a[0] = n;"
	src := remModule + "  " + stmt + remEnd
	k, err := Specialize(src, "remEntry", Options{})
	if err != nil {
		t.Fatal(err)
	}
	body, _, _ := strings.Cut(k.Source, remEnd)
	lines := strings.Split(body, "\n")
	first := strings.Count(remModule, "\n")
	want := []string{"  { let _sg_p1 = &(pv[f(0)]); (*_sg_p1).y = _sg_div_i32((*_sg_p1).y,", "", "", "    y); }", "  a[0] = n;"}
	if diff := cmp.Diff(want, lines[first:]); diff != "" {
		t.Errorf("the statement moved to other lines (-want +got):\n%s", diff)
	}
	if again, err := Specialize(k.Source, "remEntry", Options{}); err != nil || again.Source != k.Source {
		t.Errorf("the rewritten module does not read back unchanged: %v\n%s", err, k.Source)
	}
}

// TestConstantDivisionByZeroIsRefused: WGSL makes an integer division or
// remainder by zero in a const-expression a shader-creation error (in an
// override-expression a pipeline-creation error), not a value, and so is
// a result out of range (MinInt32 / -1 of typed constants): a const
// declaration at module or function scope, and a constant expression in a
// function body, are refused with an *Error at the operator instead of
// being left to a compiler that might compute something.
func TestConstantDivisionByZeroIsRefused(t *testing.T) {
	const head = "@group(0) @binding(0) var<storage, read_write> a: array<i32>;\n"
	for _, tc := range []struct{ name, src string }{
		{"module-scope const", "const X = 7 / 0;\n" + head + "@compute @workgroup_size(1) fn main() { a[0] = X; }\n"},
		{"unused module-scope const", "const X = 7 % 0;\n" + head + "@compute @workgroup_size(1) fn main() { a[0] = 1; }\n"},
		{"function-scope const", head + "@compute @workgroup_size(1) fn main() { const X: i32 = 7 % 0; a[0] = X; }\n"},
		{"typed constants in a body", "const KI: i32 = 3;\n" + head + "@compute @workgroup_size(1) fn main() { a[0] = KI / 0; }\n"},
		{"typed constants whose quotient overflows", "const M: i32 = -2147483647 - 1;\n" + head + "@compute @workgroup_size(1) fn main() { a[0] = M / -1; }\n"},
		{"an override whose value is 0", "override N: u32 = 0u;\n" + head + "@compute @workgroup_size(1) fn main() { a[0] = i32(7u % N); }\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Specialize(tc.src, "main", Options{})
			var se *Error
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "divides by zero") && !strings.Contains(se.Msg, "overflows") {
				t.Errorf("Specialize = %v; want an *Error saying the constant expression divides by zero or overflows", err)
			}
		})
	}
	// Given another value, the override divides fine: the module is valid.
	src := "override N: u32 = 0u;\n" + head + "@compute @workgroup_size(1) fn main() { a[0] = i32(7u % N); }\n"
	if _, err := Specialize(src, "main", Options{Constants: map[string]float64{"N": 2}}); err != nil {
		t.Errorf("with N = 2 the module is valid: %v", err)
	}
}
