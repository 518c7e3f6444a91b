package wgsl

import (
	"strings"
	"testing"
)

// marked rewrites src with each discovered template list delimited by « »,
// the way the WGSL specification illustrates template list discovery.
func marked(t *testing.T, src string) string {
	t.Helper()
	toks, err := scan(src)
	if err != nil {
		t.Fatalf("scan(%q): %v", src, err)
	}
	b := []byte(src)
	for _, l := range toks {
		switch l.kind {
		case tokTemplateStart:
			b[l.pos] = 0xAB
		case tokTemplateEnd:
			b[l.pos] = 0xBB
		}
	}
	return strings.NewReplacer("\xab", "«", "\xbb", "»").Replace(string(b))
}

// TestTemplateListsAreDiscoveredAsWGSLSays: a '<' opens a template list only as WGSL's
// discovery algorithm says; getting one wrong turns a comparison into a type
// or a type into a comparison, and the parse after it is garbage.
func TestTemplateListsAreDiscoveredAsWGSLSays(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"array<f32, 4>", "array«f32, 4»"},
		{"array<vec2<f32>>", "array«vec2«f32»»"},
		{"var<storage, read_write> x: array<f32>;", "var«storage, read_write» x: array«f32»;"},
		// The specification's own example: '>' inside parentheses is deeper.
		{"array<i32,select(2,3,a>b)>", "array«i32,select(2,3,a>b)»"},
		{"a < b;", "a < b;"},
		{"a<b>c", "a«b»c"},
		{"a<b || c>d", "a<b || c>d"},
		{"a<b && c>d", "a<b && c>d"},
		{"a << b; a <= b; a >= b; a >> b; a <<= 1; a >>= 1;", "a << b; a <= b; a >= b; a >> b; a <<= 1; a >>= 1;"},
		{"if (i < n && j > 0) {}", "if (i < n && j > 0) {}"},
		{"for (var i = 0; i<n; i++) {}", "for (var i = 0; i<n; i++) {}"},
		// A known ambiguity that WGSL resolves towards the template list.
		{"select(a<b, c>d, e)", "select(a«b, c»d, e)"},
		{"let v: vec2<f32>= x;", "let v: vec2«f32»= x;"},
		{"x = a<b; y = c>d;", "x = a<b; y = c>d;"},
		{"f(a<b, c);", "f(a<b, c);"},
		{"a[i<j] > k", "a[i<j] > k"},
		{"fn f() -> vec4<f32> {}", "fn f() -> vec4«f32» {}"},
		{"a/*<*/<b>", "a/*<*/«b»"},
		{"bitcast<vec2<u32>>(v)", "bitcast«vec2«u32»»(v)"},
	} {
		if got := marked(t, tc.src); got != tc.want {
			t.Errorf("template lists in %q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// TestLiteralsHaveWGSLTypesAndRanges: every numeric literal form WGSL has, its type and value,
// and the ones it refuses.
func TestLiteralsHaveWGSLTypesAndRanges(t *testing.T) {
	for _, tc := range []struct {
		text string
		want value
	}{
		{"0", value{kind: scalarAbstractInt}},
		{"0u", value{kind: scalarU32}},
		{"0i", value{kind: scalarI32}},
		{"0x0", value{kind: scalarAbstractInt}},
		{"0X1F", value{kind: scalarAbstractInt, i: 31}},
		{"0x1fu", value{kind: scalarU32, i: 31}},
		{"1u", value{kind: scalarU32, i: 1}},
		{"2147483647i", value{kind: scalarI32, i: 2147483647}},
		{"4294967295u", value{kind: scalarU32, i: 4294967295}},
		{"9223372036854775807", value{kind: scalarAbstractInt, i: 9223372036854775807}},
		{"1.5", value{kind: scalarAbstractFloat, f: 1.5}},
		{"1.", value{kind: scalarAbstractFloat, f: 1}},
		{".5", value{kind: scalarAbstractFloat, f: 0.5}},
		{"1e3", value{kind: scalarAbstractFloat, f: 1000}},
		{"1E-3f", value{kind: scalarF32, f: float64(float32(0.001))}},
		{"0.1f", value{kind: scalarF32, f: float64(float32(0.1))}},
		{"1f", value{kind: scalarF32, f: 1}},
		{"0f", value{kind: scalarF32}},
		{"2h", value{kind: scalarF16, f: 2}},
		{"65504h", value{kind: scalarF16, f: 65504}},
		{"0.1h", value{kind: scalarF16, f: 0.0999755859375}},
		{"0x1.8p1", value{kind: scalarAbstractFloat, f: 3}},
		{"0x1p-2f", value{kind: scalarF32, f: 0.25}},
		{"0x.8p1", value{kind: scalarAbstractFloat, f: 1}},
		{"0x1.8", value{kind: scalarAbstractFloat, f: 1.5}},
		{"0x1.fp0h", value{kind: scalarF16, f: 1.9375}},
	} {
		toks, err := scan(tc.text)
		if err != nil || len(toks) != 2 {
			t.Errorf("scan(%q) = %v, %v; want one literal", tc.text, toks, err)
			continue
		}
		got, msg := literal(tc.text, toks[0].kind == tokFloat)
		if msg != "" || got != tc.want {
			t.Errorf("literal %s = %+v %q; want %+v", tc.text, got, msg, tc.want)
		}
	}
	for _, tc := range []struct{ text, err string }{
		{"2147483648i", "literal 2147483648i is out of range for i32"},
		{"4294967296u", "literal 4294967296u is out of range for u32"},
		{"9223372036854775808", "literal 9223372036854775808 is out of range for AbstractInt"},
		{"1e39f", "literal 1e39f is out of range for f32"},
		{"65520h", "literal 65520h is out of range for f16"},
		{"1e309", "literal 1e309 is out of range for AbstractFloat"},
	} {
		toks, _ := scan(tc.text)
		if _, msg := literal(tc.text, toks[0].kind == tokFloat); msg != tc.err {
			t.Errorf("literal %s: got %q, want %q", tc.text, msg, tc.err)
		}
	}
	for _, tc := range []struct{ src, err string }{
		{"x = 01;", `wgsl:1:5: "01" is not a valid numeric literal`},
		{"x = 1abc;", `wgsl:1:5: "1abc" is not a valid numeric literal`},
		{"x = 0x;", `wgsl:1:5: "0x" is not a valid numeric literal`},
		{"x = 1.5e;", `wgsl:1:5: "1.5e" is not a valid numeric literal`},
		{"x = #;", `wgsl:1:5: unexpected character '#'`},
		{"/* é */ $", `wgsl:1:9: unexpected character '$'`},
		{"x\xff", "wgsl:1:2: the source is not valid UTF-8"},
	} {
		if _, err := scan(tc.src); err == nil || err.Error() != tc.err {
			t.Errorf("scan(%q): got error %v, want %s", tc.src, err, tc.err)
		}
	}
}

// TestConstantExpressionsEvaluateAsWGSLSays: scalar constant expressions evaluate as WGSL
// says, abstract types included, and every overflow or type mismatch is an
// error rather than a wrapped or converted value.
func TestConstantExpressionsEvaluateAsWGSLSays(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want string // "value type", or the error
	}{
		{"1 + 2", "3 AbstractInt"},
		{"1 + 2u", "3 u32"},
		{"2i * -3", "-6 i32"},
		{"7 / 2", "3 AbstractInt"},
		{"-7 / 2", "-3 AbstractInt"},
		{"-7 % 2", "-1 AbstractInt"},
		{"1 << 31u", "2147483648 AbstractInt"},
		{"1u << 31u", "2147483648 u32"},
		{"-8 >> 1u", "-4 AbstractInt"},
		{"0xF0u >> 4u", "15 u32"},
		{"~0u", "4294967295 u32"},
		{"~0", "-1 AbstractInt"},
		// naga's precedence, which is C's, for what WGSL's grammar refuses.
		{"0x0Fu & 0x3u | 0x10u", "19 u32"},
		{"0xF0u ^ 0xF0u >> 4u", "255 u32"},
		{"1u + 1u << 2u", "8 u32"},
		{"1u << 2u + 1u", "8 u32"},
		{"1 < 2 == 3 < 4", "true bool"},
		{"false && true || true", "true bool"},
		{"16u >> 1u >> 2u", "2 u32"},
		{"(0x0Fu & 0x3u) | 0x10u", "19 u32"},
		{"5 ^ 3", "6 AbstractInt"},
		{"!true", "false bool"},
		{"1.5 + 1", "2.5 AbstractFloat"},
		{"1.5f * 2", "3 f32"},
		{"0.1f + 0.2f", "0.30000001192092896 f32"},
		{"5.5 % 2.0", "1.5 AbstractFloat"},
		{"i32(3.9)", "3 i32"},
		{"i32(-3.9)", "-3 i32"},
		{"u32(-1i)", "4294967295 u32"},
		{"i32(4294967295u)", "-1 i32"},
		{"f32(1)", "1 f32"},
		{"f32(true)", "1 f32"},
		{"bool(2)", "true bool"},
		{"bool(0.0)", "false bool"},
		{"i32()", "0 i32"},
		{"u32(3e9)", "3000000000 u32"},
		{"min(3, 2u)", "2 u32"},
		{"max(1.5, 2)", "2 AbstractFloat"},
		{"abs(-5)", "5 AbstractInt"},
		{"abs(-2147483647i - 1i)", "-2147483648 i32"},
		{"clamp(5, 0, 3)", "3 AbstractInt"},
		{"clamp(-1.5, 0.0, 1)", "0 AbstractFloat"},
		{"select(1, 2, true)", "2 AbstractInt"},
		{"select(1u, 2, false)", "1 u32"},
		{"sqrt(16)", "4 AbstractFloat"},
		{"sqrt(2.0f)", "1.4142135381698608 f32"},
		{"(1.0 + sqrt(5.0)) / 2.0", "1.618033988749895 AbstractFloat"},
		{"1 < 2 && 2 > 1", "true bool"},
		{"1 == 1u", "true bool"},
		{"true & false", "false bool"},
		{"true != false", "true bool"},
		{"P", "3 AbstractInt"},
		{"P * Q", "6 u32"},
		{"Alias(7)", "7 u32"},
		// Errors.
		{"1i + 2u", "wgsl:1:14: mismatched operand types i32 and u32"},
		{"2147483647i + 1", "wgsl:1:23: 2147483647 + 1 overflows i32"},
		{"4294967295u + 1u", "wgsl:1:23: 4294967295 + 1 overflows u32"},
		{"0u - 1u", "wgsl:1:14: 0 - 1 overflows u32"},
		{"9223372036854775807 + 1", "wgsl:1:31: 9223372036854775807 + 1 overflows AbstractInt"},
		{"-2147483648i", "wgsl:1:12: literal 2147483648i is out of range for i32"},
		{"1 / 0", "wgsl:1:13: 1 / 0 divides by zero"},
		{"1 % 0", "wgsl:1:13: 1 % 0 divides by zero"},
		{"1i << 31u", "wgsl:1:14: 1 << 31 overflows i32"},
		{"1u << 32u", "wgsl:1:14: shift by 32 is not less than the 32 bits of u32"},
		{"1 << 2i", "wgsl:1:13: the shift amount must be u32, not i32"},
		{"1.0 / 0.0", "wgsl:1:15: 1 / 0 is not a finite AbstractFloat"},
		{"3e38f * 2", "wgsl:1:17: 3.0000000054977558e+38 * 2 is not a finite f32"},
		{"-1u", "wgsl:1:11: operator - does not apply to u32"},
		{"u32(-1)", "wgsl:1:11: -1 is out of range for u32"},
		{"true ^ false", "wgsl:1:16: operator ^ does not apply to bool"},
		{"true < false", "wgsl:1:16: operator < does not apply to bool"},
		{"1.5 & 1", "wgsl:1:15: operator & does not apply to AbstractFloat"},
		{"select(1, 2, 1)", "wgsl:1:11: select's condition must be bool, not AbstractInt"},
		{"min(1)", "wgsl:1:11: min takes 2 arguments, not 1"},
		{"i32(1, 2)", "wgsl:1:11: i32(...) takes at most one argument"},
		{"O", "wgsl:1:11: O is an override, but this needs a const-expression"},
		{"V", "wgsl:1:11: V is a var, not a constant"},
		{"F()", "wgsl:1:11: a call to function F is not a constant expression"},
		{"missing", "wgsl:1:11: unknown identifier missing"},
		{"vec2(1, 2).x", "wgsl:1:11: cannot evaluate vec2(1, 2).x: only scalar constant expressions are supported here"},
		{"sin(1.0)", "wgsl:1:11: cannot evaluate a call to sin here: only i32, u32, f32, f16, bool, min, max, abs, clamp, select and sqrt are evaluated"},
		{"sqrt(-4.0)", "wgsl:1:11: sqrt(-4) is not a number, which a constant expression must not be"},
		{"sqrt(4u)", "wgsl:1:11: sqrt takes a floating-point argument, not u32"},
		{"Loop", "wgsl:4:7: const Loop depends on itself"},
	} {
		src := "const X = " + tc.expr + ";\nconst P = 3; const Q = 2u; alias Alias = u32; override O = 1;\n" +
			"var<private> V: i32; fn F() -> i32 { return 1; }\nconst Loop = Loop + 1;\n"
		m, err := parse(src)
		if err != nil {
			if err.Error() != tc.want {
				t.Errorf("%s: got error %v, want %s", tc.expr, err, tc.want)
			}
			continue
		}
		v, err := newChecker(m).constValue(m.names["X"].(*constDecl))
		got := v.String() + " " + v.kind.String()
		if u, ok := err.(unsupported); ok {
			err = u.err
		}
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("const X = %s:\n got %s\nwant %s", tc.expr, got, tc.want)
		}
	}
}

// TestEntryPointsListEachStageInSourceOrder: EntryPoints is what "no such
// entry point" messages list, so its order is the source's.
func TestEntryPointsListEachStageInSourceOrder(t *testing.T) {
	src := "@vertex fn vs() -> @builtin(position) vec4f { return vec4f(); }\n" +
		"@compute @workgroup_size(1) fn b() {}\nfn helper() {}\n" +
		"@fragment fn fs() -> @location(0) vec4f { return vec4f(); }\n" +
		"@compute @workgroup_size(1) fn a() {}\n"
	for stage, want := range map[Stage][]string{
		StageCompute:  {"b", "a"},
		StageVertex:   {"vs"},
		StageFragment: {"fs"},
	} {
		got, err := EntryPoints(src, stage)
		if err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("EntryPoints(%s) = %v, %v; want %v", stage, got, err, want)
		}
	}
	if _, err := EntryPoints("fn (", StageCompute); err == nil || err.Error() != "wgsl:1:4: expected a function name, found '('" {
		t.Errorf("EntryPoints of malformed source: got error %v", err)
	}
}
