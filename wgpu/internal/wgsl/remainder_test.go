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
@group(0) @binding(0) var<storage, read_write> a: array<i32>;
@group(0) @binding(1) var<storage, read_write> u: array<u32>;
var<private> n: i32;
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

// remHelper is the scalar helper the rewrite appends; the vector helpers
// call it component by component.
const remHelper = "fn _sg_rem_i32(a: i32, b: i32) -> i32 { let d = select(b, 1i, b == 0i || b == -1i); return a - d * (a / d); }"

// TestOpenGLRewritesSignedRemaindersIntoHelperCalls: with Options.OpenGL,
// every remainder of concrete i32 scalars or vectors in a function body
// becomes a call of a helper appended after the last line (GLSL leaves %
// undefined for negative operands); operands stay in order and are written
// once (a call's arguments are evaluated once, left to right), precedence
// is kept, other edits inside operands still apply, and what is not an i32
// remainder evaluated at run time (u32, f32, abstract constants, a `%=` on
// u32) is copied as written. Every line keeps its number.
func TestOpenGLRewritesSignedRemaindersIntoHelperCalls(t *testing.T) {
	vec := func(n int) string {
		v := "vec" + strconv.Itoa(n) + "<i32>"
		var args []string
		for _, c := range "xyzw"[:n] {
			args = append(args, "_sg_rem_i32(a."+string(c)+", b."+string(c)+")")
		}
		return "fn _sg_rem_vec" + strconv.Itoa(n) + "_i32(a: " + v + ", b: " + v + ") -> " + v + " { return " + v + "(" + strings.Join(args, ", ") + "); }"
	}
	for _, tc := range []struct {
		name, stmt, want string
		helpers          []string // appended after the last line; nil: none
	}{
		{"scalar operands", "a[2] = x % y;", "a[2] = _sg_rem_i32(x , y);", []string{remHelper}},
		{"operands that call functions stay in order, each once", "a[2] = f(x) % f(y);", "a[2] = _sg_rem_i32(f(x) , f(y));", []string{remHelper}},
		{"unary minus binds tighter; * and + stay outside", "a[2] = -x % y * 2 + 1;", "a[2] = _sg_rem_i32(-x , y) * 2 + 1;", []string{remHelper}},
		{"a remainder on the right of +", "a[2] = x + y % 3;", "a[2] = x + _sg_rem_i32(y , 3);", []string{remHelper}},
		{"left-associative chain nests", "a[2] = x % y % 3;", "a[2] = _sg_rem_i32(_sg_rem_i32(x , y) , 3);", []string{remHelper}},
		{"parenthesised nested remainder", "a[2] = x % (y % 3);", "a[2] = _sg_rem_i32(x , (_sg_rem_i32(y , 3)));", []string{remHelper}},
		{"no spaces around the operator", "a[2] = x%y;", "a[2] = _sg_rem_i32(x,y);", []string{remHelper}},
		{"abstract literal dividend with an i32 divisor", "a[2] = -7 % y;", "a[2] = _sg_rem_i32(-7 , y);", []string{remHelper}},
		{"a function-scope const operand becomes its value inside the call", "a[2] = x % L;", "a[2] = _sg_rem_i32(x , 5);", []string{remHelper}},
		{"typed module const and i32() conversion", "a[2] = KI % i32(g.x);", "a[2] = _sg_rem_i32(KI , i32(g.x));", []string{remHelper}},
		{"remainder inside an index and a call argument", "a[x % 2] = f(y % 3);", "a[_sg_rem_i32(x , 2)] = f(_sg_rem_i32(y , 3));", []string{remHelper}},
		{"in a let, a return-free if condition and a switch selector", "if x % 2 == 1 { switch y % 3 { case 1 % 2: {} default: {} } }", "if _sg_rem_i32(x , 2) == 1 { switch _sg_rem_i32(y , 3) { case 1 % 2: {} default: {} } }", []string{remHelper}},
		{"vector operands", "v = v % vec2<i32>(3, -3);", "v = _sg_rem_vec2_i32(v , vec2<i32>(3, -3));", []string{remHelper, vec(2)}},
		{"a scalar divisor of a vector is splatted", "v = v % y;", "v = _sg_rem_vec2_i32(v , vec2<i32>(y));", []string{remHelper, vec(2)}},
		{"a scalar dividend of a vector is splatted", "w = 7 % w;", "w = _sg_rem_vec4_i32(vec4<i32>(7) , w);", []string{remHelper, vec(4)}},
		{"a nested scalar remainder splatted into a vector one", "v = v % (x % 5);", "v = _sg_rem_vec2_i32(v , vec2<i32>((_sg_rem_i32(x , 5))));", []string{remHelper, vec(2)}},
		{"compound assignment", "s %= y + 1;", "s = _sg_rem_i32(s, y + 1);", []string{remHelper}},
		{"compound assignment on an indexed left-hand side with a remainder inside", "a[x % 4] %= y;", "a[_sg_rem_i32(x , 4)] = _sg_rem_i32(a[_sg_rem_i32(x , 4)], y);", []string{remHelper}},
		{"compound assignment of a vector by a scalar", "v %= 3;", "v = _sg_rem_vec2_i32(v, vec2<i32>(3));", []string{remHelper, vec(2)}},
		{"compound assignment of a vector component", "v.x %= y % 3;", "v.x = _sg_rem_i32(v.x, _sg_rem_i32(y , 3));", []string{remHelper}},
		{"u32 remainders are untouched", "u[0] = u[1] % 3u; u[2] %= g.x;", "u[0] = u[1] % 3u; u[2] %= g.x;", nil},
		{"f32 remainders are untouched", "a[2] = i32(fl % 2.5);", "a[2] = i32(fl % 2.5);", nil},
		{"abstract constant remainders are left to the compiler", "a[2] = -7 % 3 + K % 3;", "a[2] = -7 % 3 + K % 3;", nil},
		{"a function-scope const initializer is evaluated, not rewritten", "const M = -7 % 3; a[2] = M;", " a[2] = (-1);", nil},
		{"array counts are constant expressions", "var arr: array<i32, 7 % 4>; a[2] = arr[0];", "var arr: array<i32, 3>; a[2] = arr[0];", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := remModule + "  " + tc.stmt + remEnd
			k, err := Specialize(src, "remEntry", Options{OpenGL: true})
			if err != nil {
				t.Fatalf("Specialize: %v", err)
			}
			body, helpers, _ := strings.Cut(k.Source, remEnd)
			if n, m := strings.Count(body, "\n"), strings.Count(remModule, "\n"); n != m {
				t.Errorf("the statement is on line %d; it was on line %d", n+1, m+1)
			}
			if diff := cmp.Diff("  "+tc.want, body[strings.LastIndex(body, "\n")+1:]); diff != "" {
				t.Errorf("the rewritten statement differs (-want +got):\n%s", diff)
			}
			var wantHelpers string
			if tc.helpers != nil {
				wantHelpers = strings.Join(tc.helpers, "\n") + "\n"
			}
			if diff := cmp.Diff(wantHelpers, helpers); diff != "" {
				t.Errorf("the helpers appended after the last line differ (-want +got):\n%s", diff)
			}
			if again, err := Specialize(k.Source, "remEntry", Options{}); err != nil {
				t.Errorf("the rewritten module does not read back: %v\n%s", err, k.Source)
			} else if !strings.HasPrefix(again.Source, body) {
				t.Errorf("the rewritten module reads back changed:\n%s", again.Source)
			}
			plain, err := Specialize(src, "remEntry", Options{})
			if err != nil {
				t.Fatalf("Specialize without OpenGL: %v", err)
			}
			if strings.Contains(plain.Source, "_sg_") {
				t.Errorf("without Options.OpenGL the remainders must stay as written:\n%s", plain.Source)
			}
			if tc.helpers == nil && plain.Source != k.Source {
				t.Errorf("with no i32 remainder evaluated at run time, OpenGL must change nothing more:\n%s\nagainst\n%s", k.Source, plain.Source)
			}
		})
	}
}

// TestOpenGLRemainderRewriteKeepsLineNumbers: the helpers come after the
// author's last line, on lines of their own even when the module ends in a
// line comment, so a diagnostic's line still points at the author's line.
func TestOpenGLRemainderRewriteKeepsLineNumbers(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> a: array<i32>;\n@compute @workgroup_size(1)\nfn main() {\n  a[0] = a[1]\n    %\n    a[2];\n  var v = vec3i(a[0], a[1], a[2]);\n  v %= vec3i(\n    a[3]);\n  a[0] = v.x;\n} // no line break at the end"
	k, err := Specialize(src, "main", Options{OpenGL: true})
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

// TestOpenGLRemainderHelpersAvoidTheModulesNames: when the source already
// holds the helpers' prefix anywhere (a name, a comment), the helpers take
// the first prefix it does not hold, so no declaration of the author's is
// shadowed or redeclared.
func TestOpenGLRemainderHelpersAvoidTheModulesNames(t *testing.T) {
	src := "fn _sg_rem_i32(a: i32) -> i32 { return a; } // _sg1_\n@group(0) @binding(0) var<storage, read_write> a: array<i32>;\n@compute @workgroup_size(1) fn main() { a[0] = _sg_rem_i32(a[1]) % a[2]; }\n"
	k, err := Specialize(src, "main", Options{OpenGL: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(k.Source, "a[0] = _sg2_rem_i32(_sg_rem_i32(a[1]) , a[2]);") || !strings.Contains(k.Source, "\nfn _sg2_rem_i32(a: i32, b: i32)") {
		t.Errorf("the helper should be named _sg2_rem_i32, the first free prefix:\n%s", k.Source)
	}
}

// TestOpenGLRefusesACompoundRemainderWhoseTargetHasSideEffects: `lhs %= rhs`
// becomes `lhs = helper(lhs, rhs)`, evaluating lhs twice; when lhs calls a
// user function (or an atomic) that would repeat its side effect, so
// Specialize refuses with an *Error at the operator that says how to write
// it, instead of computing something else. Without OpenGL it is accepted.
func TestOpenGLRefusesACompoundRemainderWhoseTargetHasSideEffects(t *testing.T) {
	src := remModule + "  a[f(0)] %= 3;" + remEnd
	_, err := Specialize(src, "remEntry", Options{OpenGL: true})
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("Specialize = %v; want an *Error refusing the %%= whose left-hand side calls f", err)
	}
	if se.Line != strings.Count(remModule, "\n")+1 || !strings.Contains(se.Msg, "f()") || !strings.Contains(se.Msg, "let i") {
		t.Errorf("error %v: want it on line %d naming f() and the fix", err, strings.Count(remModule, "\n")+1)
	}
	if _, err := Specialize(src, "remEntry", Options{}); err != nil {
		t.Errorf("without OpenGL the statement is copied as written, but Specialize failed: %v", err)
	}
	// A builtin conversion in the index is pure: rewritten, not refused.
	if _, err := Specialize(remModule+"  a[u32(x)] %= 3;"+remEnd, "remEntry", Options{OpenGL: true}); err != nil {
		t.Errorf("a pure left-hand side must be rewritten: %v", err)
	}
}
