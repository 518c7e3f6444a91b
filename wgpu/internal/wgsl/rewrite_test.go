package wgsl

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRewriteChangesOnlyWhatTheCompilerCannotRead: Kernel.Source differs
// from the input in exactly the forms docs/wgsl.md lists (overrides
// become consts; trailing commas, directives, const_assert, @diagnostic and
// @must_use go; abstract operands the bundled compiler cannot convert are
// spelled out) and keeps every line where it was, so the compiler's
// diagnostics point at the author's lines.
func TestRewriteChangesOnlyWhatTheCompilerCannotRead(t *testing.T) {
	for _, tc := range rewriteCases {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src + rewriteEntry
			k, err := Specialize(src, "entry_", Options{Constants: tc.constants})
			if err != nil {
				t.Fatalf("Specialize: %v", err)
			}
			got := strings.TrimSuffix(k.Source, rewriteEntry)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("the rewrite differs (-want +got):\n%s", diff)
			}
			if strings.Count(got, "\n") != strings.Count(tc.src, "\n") {
				t.Errorf("the rewrite has %d lines; the source had %d", strings.Count(got, "\n"), strings.Count(tc.src, "\n"))
			}
		})
	}
}

// rewriteEntry is appended to each rewrite case to give it an entry point.
const rewriteEntry = "@compute @workgroup_size(1) fn entry_() {}\n"

var rewriteCases = []struct {
	name      string
	src       string
	constants map[string]float64
	want      string
}{
	{
		name: "a typed override becomes a const of its type",
		src:  "override n: u32 = 8;\n",
		want: "const n: u32 = 8u;\n",
	},
	{
		name: "untyped overrides take their initializer's concretized type",
		src:  "override i = 2;\noverride f = 2.5;\noverride u = 2u;\noverride b = 1 < 2;\noverride h = 1.5h;\n",
		want: "const i: i32 = 2i;\nconst f: f32 = 2.5f;\nconst u: u32 = 2u;\nconst b: bool = true;\nconst h: f16 = 1.5h;\n",
	},
	{
		name:      "values from constants replace initializers",
		src:       "@id(3) override n: i32 = 8;\noverride x: f32;\noverride on: bool = true;\n",
		constants: map[string]float64{"3": -3, "x": 0.1, "on": 0},
		want:      "const n: i32 = -3i;\nconst x: f32 = 0.1f;\nconst on: bool = false;\n",
	},
	{
		name: "an override's type is kept as written, alias and all",
		src:  "alias Count = u32;\noverride n: Count = 4;\n",
		want: "alias Count = u32;\nconst n: Count = 4u;\n",
	},
	{
		name: "line breaks inside a declaration stay, comments inside it go",
		src:  "@id(0)\n// the block size\noverride /* x */ n\n  : u32\n  = 8;  // after\nconst m = 1;\n",
		want: "const n: u32 = 8u;\n\n\n\n  // after\nconst m = 1;\n",
	},
	{
		name: "an untyped override's type is left to the suffix where the module shadows the type's name",
		src:  "alias i32 = u32;\noverride x = 5i;\noverride y: i32 = 5;\n",
		want: "alias i32 = u32;\nconst x = 5i;\nconst y: i32 = 5u;\n",
	},
	{
		name: "an override initializer that names other overrides gets the value",
		src:  "override a = 3u;\noverride b = a * a + 1u;\n",
		want: "const a: u32 = 3u;\nconst b: u32 = 10u;\n",
	},
	{
		name: "a trailing comma inside an override's @id goes with the declaration",
		src:  "@id(1,) override n = 1;\n",
		want: "const n: i32 = 1i;\n",
	},
	{
		name: "trailing commas in every kind of attribute list",
		src: "struct S { @align(16,) @size(16 ,) a: f32 }\n" +
			"@group(0,) @binding(1,)\nvar<storage, read_write> s: S;\n" +
			"@compute @workgroup_size(8, 8,) @diagnostic(off, derivative_uniformity,)\n" +
			"fn main(@builtin(global_invocation_id,) id: vec3u) { s.a = f32(id.x); }\n",
		want: "struct S { @align(16) @size(16 ) a: f32 }\n" +
			"@group(0) @binding(1)\nvar<storage, read_write> s: S;\n" +
			"@compute @workgroup_size(8, 8) \n" +
			"fn main(@builtin(global_invocation_id) id: vec3u) { s.a = f32(id.x); }\n",
	},
	{
		name: "directives, const_assert and template-list commas go; comments and CRLF stay",
		src: "enable f16;\r\ndiagnostic(off, derivative_uniformity);\r\n/* override x = 1; @binding(0,) */\r\n" +
			"const_assert 1 < 2;\r\nalias A = array<f32, 4,>;\r\nfn f(a: u32,) -> u32 { return max(a, 1,); }\r\n",
		want: "\r\n\r\n/* override x = 1; @binding(0,) */\r\n" +
			"\r\nalias A = array<f32, 4>;\r\nfn f(a: u32,) -> u32 { return max(a, 1u,); }\r\n",
	},
	{
		name: "abstract integers become the type their context needs",
		src: "@group(0) @binding(0) var<storage, read_write> c: array<u32>;\n" +
			"@group(0) @binding(1) var<storage, read_write> n: atomic<u32>;\n" +
			"const K = 3;\nfn g(x: u32) -> f32 { let y: f32 = 1; return y * 2; }\n" +
			"fn h() { c[0] = 1; c[1] += K; atomicAdd(&n, 1); switch c[2] { case 1, 2: {} default: {} }\n" +
			"  c[3] = select(0, 1, c[4] > K); c[5] = clamp(c[6], 0, 10); _ = g(3); var i = 0; i += 1; }\n",
		want: "@group(0) @binding(0) var<storage, read_write> c: array<u32>;\n" +
			"@group(0) @binding(1) var<storage, read_write> n: atomic<u32>;\n" +
			"const K = 3;\nfn g(x: u32) -> f32 { let y: f32 = 1f; return y * 2; }\n" +
			"fn h() { c[0] = 1u; c[1] += 3u; atomicAdd(&n, 1u); switch c[2] { case 1u, 2u: {} default: {} }\n" +
			"  c[3] = select(0u, 1u, c[4] > 3u); c[5] = clamp(c[6], 0u, 10u); _ = g(3u); var i = 0; i += 1; }\n",
	},
	{
		name: "a texture call's level and bias are f32, a depth texture's level and array indices integers",
		src: "@group(0) @binding(0) var t: texture_2d<f32>;\n@group(0) @binding(1) var s: sampler;\n" +
			"@group(0) @binding(2) var ta: texture_2d_array<f32>;\n@group(0) @binding(3) var dt: texture_depth_2d;\n" +
			"fn h(uv: vec2f) -> vec4f { return textureSampleLevel(t, s, uv, 0) + textureSampleLevel(ta, s, uv, 1, 2)\n" +
			"  + textureSampleBias(t, s, uv, 1) + textureSampleLevel(dt, s, uv, 0) + textureLoad(t, vec2(1, 2), 0); }\n",
		want: "@group(0) @binding(0) var t: texture_2d<f32>;\n@group(0) @binding(1) var s: sampler;\n" +
			"@group(0) @binding(2) var ta: texture_2d_array<f32>;\n@group(0) @binding(3) var dt: texture_depth_2d;\n" +
			"fn h(uv: vec2f) -> vec4f { return textureSampleLevel(t, s, uv, 0f) + textureSampleLevel(ta, s, uv, 1, 2f)\n" +
			"  + textureSampleBias(t, s, uv, 1f) + textureSampleLevel(dt, s, uv, 0) + textureLoad(t, vec2(1, 2), 0); }\n",
	},
	{
		// naga v22 takes only i32 there; WGSL i32 or u32.
		name: "a u32 level, sample or array index of textureLoad becomes i32",
		src: "@group(0) @binding(0) var t: texture_2d<u32>;\n@group(0) @binding(1) var ta: texture_2d_array<f32>;\n" +
			"@group(0) @binding(2) var tm: texture_multisampled_2d<f32>;\n@group(0) @binding(3) var dt: texture_depth_2d;\n" +
			"@group(0) @binding(4) var s: sampler;\n" +
			"fn h(l: u32, p: vec2u) -> f32 { return f32(textureLoad(t, p, l + 1u).x) + textureLoad(ta, p, l, 0u).x\n" +
			"  + textureLoad(tm, p, 3u).x + textureLoad(dt, p, 0i) + textureLoad(t, p, 0).y + textureSampleLevel(dt, s, vec2f(p), l); }\n",
		want: "@group(0) @binding(0) var t: texture_2d<u32>;\n@group(0) @binding(1) var ta: texture_2d_array<f32>;\n" +
			"@group(0) @binding(2) var tm: texture_multisampled_2d<f32>;\n@group(0) @binding(3) var dt: texture_depth_2d;\n" +
			"@group(0) @binding(4) var s: sampler;\n" +
			"fn h(l: u32, p: vec2u) -> f32 { return f32(textureLoad(t, p, i32(l + 1u)).x) + textureLoad(ta, p, i32(l), i32(0u)).x\n" +
			"  + textureLoad(tm, p, i32(3u)).x + textureLoad(dt, p, 0i) + textureLoad(t, p, 0).y + textureSampleLevel(dt, s, vec2f(p), i32(l)); }\n",
	},
	{
		name: "function-scope consts are replaced by their values; counts and attribute expressions by theirs",
		src: "const A = 2;\n@group(A - 2) @binding(A + 1) var<storage, read_write> c: array<u32, A * 4>;\n" +
			"fn h() { const k: u32 = 4; const f = k * 2; var a: array<f32, f>; c[0] = k + f; let z = f; var<function> w: u32 = k; }\n",
		want: "const A = 2;\n@group(0) @binding(3) var<storage, read_write> c: array<u32, 8>;\n" +
			"fn h() {   var a: array<f32, 8u> = array<f32, 8u>(); c[0] = 4u + 8u; let z = 8u; var w: u32 = 4u; }\n",
	},
	{
		// Found by fuzzing: removing the template joined keyword and name.
		name: "var<function> with no space before the name keeps them apart",
		src:  "fn h() -> i32 { var<function>A: i32 = 2; var<function>\nB = A; return A + B; }\n",
		want: "fn h() -> i32 { var A: i32 = 2; var\nB = A; return A + B; }\n",
	},
}

// TestOverrideLiteralsReadBackExactly: each value is spelled with its type's suffix, and
// reads back to exactly the same value of that type.
func TestOverrideLiteralsReadBackExactly(t *testing.T) {
	for _, tc := range []struct {
		v    value
		want string
	}{
		{value{kind: scalarU32, i: 8}, "8u"},
		{value{kind: scalarU32, i: math.MaxUint32}, "4294967295u"},
		{value{kind: scalarI32, i: -3}, "-3i"},
		{value{kind: scalarI32, i: math.MinInt32}, "(-2147483647i - 1i)"},
		{value{kind: scalarF32, f: 1.5}, "1.5f"},
		{value{kind: scalarF32, f: 8}, "8f"},
		{value{kind: scalarF32, f: float64(float32(0.1))}, "0.1f"},
		{value{kind: scalarF32, f: 1e6}, "1e+06f"},
		{value{kind: scalarF32, f: math.MaxFloat32}, "3.4028235e+38f"},
		{value{kind: scalarF32, f: math.SmallestNonzeroFloat32}, "1e-45f"},
		{value{kind: scalarF32, f: math.Copysign(0, -1)}, "-0f"},
		{value{kind: scalarF16, f: 0.0999755859375}, "0.099975586h"},
		{value{kind: scalarBool, i: 1}, "true"},
		{value{kind: scalarBool}, "false"},
	} {
		got := wgslLiteral(tc.v)
		if got != tc.want {
			t.Errorf("the literal for %v %s is %s; want %s", tc.v, tc.v.kind, got, tc.want)
		}
		m, err := parse("const c = " + got + ";")
		if err != nil {
			t.Errorf("%s does not parse: %v", got, err)
			continue
		}
		back, err := newChecker(m).constValue(m.names["c"].(*constDecl))
		if err != nil || back.kind != tc.v.kind || back.i != tc.v.i || math.Float64bits(back.f) != math.Float64bits(tc.v.f) {
			t.Errorf("%s reads back as %v %s (%v); want %v %s", got, back, back.kind, err, tc.v, tc.v.kind)
		}
	}
}

// TestPointerArgumentsIntoPartOfAVariableAreRefused: without the language
// extension unrestricted_pointer_parameters a pointer argument must be the
// address of a whole variable or a pointer parameter. naga v22 does not
// check it and aborts the process writing SPIR-V for &a[i] or &s.m, so the
// front-end refuses such an argument with an *Error at it, and still
// accepts the whole-variable forms.
func TestPointerArgumentsIntoPartOfAVariableAreRefused(t *testing.T) {
	const head = "@group(0) @binding(0) var<storage, read_write> o: array<f32>;\n" +
		"struct S { x: f32, y: f32 }\nvar<private> pa: array<f32, 4>;\n" +
		"fn setf(p: ptr<function, f32>) { *p = 9.0; }\nfn setp(p: ptr<private, f32>) { *p = 9.0; }\n" +
		"fn seta(p: ptr<function, array<f32, 2>>) { (*p)[0] = 1.0; }\n"
	for _, tc := range []struct{ name, body, arg string }{
		{"an array element", "var a: array<f32, 2>; setf(&a[1]); o[0] = a[1];", "&a[1]"},
		{"a struct member", "var s = S(1.0, 2.0); setf(&s.y); o[0] = s.y;", "&s.y"},
		{"a parenthesised element of a private array", "setp((&pa[2])); o[0] = pa[2];", "(&pa[2])"},
		{"a let bound to an element", "var a: array<f32, 2>; let p = &a[0]; setf(p); o[0] = a[0];", "p"},
		{"an element through a pointer parameter", "o[0] = 1.0; }\nfn setb(p: ptr<function, array<f32, 2>>) { setf(&(*p)[0]);", "&(*p)[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := head + "@compute @workgroup_size(1) fn main() { " + tc.body + " }\n"
			_, err := Specialize(src, "main", Options{})
			var se *Error
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "points into part of a variable ("+tc.arg+")") ||
				!strings.Contains(se.Msg, "unrestricted_pointer_parameters") {
				t.Errorf("Specialize = %v; want an *Error saying %s points into part of a variable", err, tc.arg)
			}
		})
	}
	for _, tc := range []struct{ name, body string }{
		{"a whole function variable", "var f = 1.0; setf(&f); o[0] = f;"},
		{"a whole variable, parenthesised", "var a: array<f32, 2>; seta(&(a)); o[0] = a[0];"},
		{"a let bound to a whole variable, and *& of it", "var f = 1.0; let p = &f; setf(p); setf(&*p); o[0] = f;"},
		{"a shadowing let bound to a whole variable", "var a: array<f32, 2>; var f = 1.0; let p = &a[0]; { let p = &f; setf(p); } o[0] = *p;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := head + "@compute @workgroup_size(1) fn main() { " + tc.body + " }\n"
			if _, err := Specialize(src, "main", Options{}); err != nil {
				t.Errorf("Specialize refused a whole-variable pointer argument: %v", err)
			}
		})
	}
}

// TestBuiltinsTheCompilerGetsWrongBecomeHelpers: pack4x8snorm and
// pack2x16snorm become helpers on every backend (naga v22's SPIR-V spills
// a negative component's sign over the other bytes on lavapipe); on
// OpenGL the bit-counting builtins become helpers returning highp (GLSL ES
// declares their results lowp), and a loop body's let that its continuing
// block reads becomes a var (naga v22's GLSL re-evaluates the let's
// expression there). The lines stay where they were, and the rewritten
// module reads back unchanged.
func TestBuiltinsTheCompilerGetsWrongBecomeHelpers(t *testing.T) {
	const head = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n@compute @workgroup_size(1) fn main() {\n"
	for _, tc := range []struct {
		name, body string
		opengl     bool
		want       string // the body as rewritten
		helpers    []string
	}{
		{"pack4x8snorm", "o[0] = pack4x8snorm(vec4(-0.25, 0.5, 1.0, -2.0));", false, "o[0] = _sg_pack4x8snorm(vec4(-0.25, 0.5, 1.0, -2.0));",
			[]string{"fn _sg_pack4x8snorm(e: vec4<f32>) -> u32 { let c = vec4<u32>(vec4<i32>(floor(clamp(e, vec4<f32>(-1.0), vec4<f32>(1.0)) * 127.0 + 0.5))) & vec4<u32>(255u); return c.x | (c.y << 8u) | (c.z << 16u) | (c.w << 24u); }"}},
		{"pack2x16snorm on OpenGL too", "o[0] = pack2x16snorm(vec2f(-0.5));", true, "o[0] = _sg_pack2x16snorm(vec2f(-0.5));",
			[]string{"fn _sg_pack2x16snorm(e: vec2<f32>) -> u32 { let c = vec2<u32>(vec2<i32>(floor(clamp(e, vec2<f32>(-1.0), vec2<f32>(1.0)) * 32767.0 + 0.5))) & vec2<u32>(65535u); return c.x | (c.y << 16u); }"}},
		{"dot4U8Packed, which naga v22 does not know, with an abstract argument", "o[0] = dot4U8Packed(o[1], 0x01010101);", false,
			"o[0] = _sg_dot4U8Packed(o[1], 16843009u);",
			[]string{"fn _sg_dot4U8Packed(a: u32, b: u32) -> u32 { return dot(vec4<u32>(a & 255u, (a >> 8u) & 255u, (a >> 16u) & 255u, a >> 24u), vec4<u32>(b & 255u, (b >> 8u) & 255u, (b >> 16u) & 255u, b >> 24u)); }"}},
		{"unpack4xI8 typed for what follows", "let v = unpack4xI8(o[1]); o[0] = u32(v.x + 1);", false,
			"let v = _sg_unpack4xI8(o[1]); o[0] = u32(v.x + 1);",
			[]string{"fn _sg_unpack4xI8(a: u32) -> vec4<i32> { return bitcast<vec4<i32>>(vec4<u32>(a << 24u, a << 16u, a << 8u, a)) >> vec4<u32>(24u); }"}},
		{"conversions of runtime f32 to integers saturate, vectors too", "let v = vec2<i32>(vec2f(f32(o[1]))); o[0] = u32(f32(o[2]));", false,
			"let v = _sg_to_vec2_i32_vec2_f32(vec2f(f32(o[1]))); o[0] = _sg_to_u32_f32(f32(o[2]));",
			[]string{"fn _sg_to_vec2_i32_vec2_f32(e: vec2<f32>) -> vec2<i32> { return select(vec2<i32>(2147483647i), select(vec2<i32>(-2147483647i - 1i), vec2<i32>(e), e >= vec2<f32>(-2147483648.0)), e <= vec2<f32>(2147483520.0)); }",
				"fn _sg_to_u32_f32(e: f32) -> u32 { return select(u32(4294967295u), select(u32(0u), u32(e), e >= f32(0.0)), e <= f32(4294967040.0)); }"}},
		{"integer conversions stay; an abstract float converted is folded (naga v22 refuses it at run time)", "o[0] = u32(i32(o[1])) + u32(2.5) + u32(vec2u(o[2]).x);", true,
			"o[0] = u32(i32(o[1])) + 2u + u32(vec2u(o[2]).x);", nil},
		{"extractBits and insertBits clamp on OpenGL", "o[0] = extractBits(o[1], 30u, 4u) + insertBits(o[1], 1u, 30u, o[2]);", true,
			"o[0] = _sg_extractBits_u32(o[1], 30u, 4u) + _sg_insertBits_u32(o[1], 1u, 30u, o[2]);",
			[]string{"fn _sg_extractBits_u32(e: u32, offset: u32, count: u32) -> u32 { let o = min(offset, 32u); return extractBits(e, o, min(count, 32u - o)); }",
				"fn _sg_insertBits_u32(e: u32, newbits: u32, offset: u32, count: u32) -> u32 { let o = min(offset, 32u); return insertBits(e, newbits, o, min(count, 32u - o)); }"}},
		{"extractBits is clamped on Vulkan too", "o[0] = extractBits(o[1], 30u, 4u);", false, "o[0] = _sg_extractBits_u32(o[1], 30u, 4u);",
			[]string{"fn _sg_extractBits_u32(e: u32, offset: u32, count: u32) -> u32 { let o = min(offset, 32u); return extractBits(e, o, min(count, 32u - o)); }"}},
		{"bit counts stay on Vulkan", "o[0] = countOneBits(o[1]) * 10000u;", false, "o[0] = countOneBits(o[1]) * 10000u;", nil},
		{"bit counts on OpenGL, scalar and vector, i32 and u32", "o[0] = countTrailingZeros(o[1]) * 10000u + u32(firstLeadingBit(i32(o[2])));\n" +
			"let v = countOneBits(vec2u(o[3])); o[1] = countTrailingZeros(o[2]);", true,
			"o[0] = _sg_countTrailingZeros_u32(o[1]) * 10000u + u32(_sg_firstLeadingBit_i32(i32(o[2])));\n" +
				"let v = _sg_countOneBits_vec2_u32(vec2u(o[3])); o[1] = _sg_countTrailingZeros_u32(o[2]);",
			[]string{"fn _sg_countTrailingZeros_u32(e: u32) -> u32 { return countTrailingZeros(e); }",
				"fn _sg_firstLeadingBit_i32(e: i32) -> i32 { return firstLeadingBit(e); }",
				"fn _sg_countOneBits_vec2_u32(e: vec2<u32>) -> vec2<u32> { return countOneBits(e); }"}},
		{"clamp of integers with runtime bounds is WGSL's min(max()), everywhere; ordered constant bounds stay", "o[0] = clamp(o[1], o[2], 7u) + clamp(o[3], 0u, 10u);", false,
			"o[0] = _sg_clamp_u32(o[1], o[2], 7u) + clamp(o[3], 0u, 10u);",
			[]string{"fn _sg_clamp_u32(e: u32, low: u32, high: u32) -> u32 { return min(max(e, low), high); }"}},
		{"clamp with constant bounds out of order, of i32 and of f32 (the H200's GL gave neither of the two results WGSL allows for f32), ordered f32 bounds stay", "let v = clamp(vec2i(i32(o[1])), vec2i(2), vec2i(-2)); o[0] = u32(clamp(f32(o[1]), 3.0, 1.0)) + u32(v.x) + u32(clamp(f32(o[2]), 0.0, 1.0));", false,
			"let v = _sg_clamp_vec2_i32(vec2i(i32(o[1])), vec2i(2), vec2i(-2)); o[0] = _sg_to_u32_f32(_sg_clamp_f32(f32(o[1]), 3.0, 1.0)) + u32(v.x) + _sg_to_u32_f32(clamp(f32(o[2]), 0.0, 1.0));",
			[]string{"fn _sg_clamp_vec2_i32(e: vec2<i32>, low: vec2<i32>, high: vec2<i32>) -> vec2<i32> { return min(max(e, low), high); }",
				"fn _sg_clamp_f32(e: f32, low: f32, high: f32) -> f32 { return min(max(e, low), high); }",
				"fn _sg_to_u32_f32(e: f32) -> u32 { return select(u32(4294967295u), select(u32(0u), u32(e), e >= f32(0.0)), e <= f32(4294967040.0)); }"}},
		{"atomicLoad is an atomic or of zero on OpenGL", "o[0] = u32(atomicLoad(&w)) + atomicLoad(&(wu[1]));\n}\nvar<workgroup> w: atomic<i32>;\nvar<workgroup> wu: array<atomic<u32>, 2>;\nfn g() {", true,
			"o[0] = u32(atomicOr(&w, 0i)) + atomicOr(&(wu[1]), 0u);\n}\nvar<workgroup> w: atomic<i32>;\nvar<workgroup> wu: array<atomic<u32>, 2>;\nfn g() {", nil},
		{"textureNumLevels is 1 on OpenGL, through textureDimensions", "o[0] = textureNumLevels(tx) + textureNumLevels(t1);\n}\n@group(0) @binding(1) var tx: texture_3d<f32>;\n@group(0) @binding(2) var t1: texture_1d<u32>;\nfn g() {", true,
			"o[0] = (1u + 0u * textureDimensions(tx).x) + (1u + 0u * textureDimensions(t1));\n}\n@group(0) @binding(1) var tx: texture_3d<f32>;\n@group(0) @binding(2) var t1: texture_1d<u32>;\nfn g() {", nil},
		{"textureNumLevels stays on Vulkan", "o[0] = textureNumLevels(tx);\n}\n@group(0) @binding(1) var tx: texture_2d<f32>;\nfn g() {", false,
			"o[0] = textureNumLevels(tx);\n}\n@group(0) @binding(1) var tx: texture_2d<f32>;\nfn g() {", nil},
		{"atomicLoad stays on Vulkan", "o[0] = atomicLoad(&wu);\n}\nvar<workgroup> wu: atomic<u32>;\nfn g() {", false,
			"o[0] = atomicLoad(&wu);\n}\nvar<workgroup> wu: atomic<u32>;\nfn g() {", nil},
		{"a let the continuing block reads, on OpenGL", "var i = 0u;\nloop {\n  let sq = i * i; let other = sq; let p = &i;\n  continuing { i++; break if sq > (*p); }\n}",
			true, "var i = 0u;\nloop {\n  var sq = i * i; let other = sq; let p = &i;\n  continuing { i++; break if sq > (*p); }\n}", nil},
		{"the same let stays one on Vulkan", "var i = 0u;\nloop {\n  let sq = i * i;\n  continuing { i++; break if sq > 9u; }\n}",
			false, "var i = 0u;\nloop {\n  let sq = i * i;\n  continuing { i++; break if sq > 9u; }\n}", nil},
		{"a shadowing function name is not a builtin", "o[0] = 1u;\n}\nfn pack4x8snorm(v: vec4f) -> u32 { return 0u; }\nfn g() { _ = pack4x8snorm(vec4f());", false,
			"o[0] = 1u;\n}\nfn pack4x8snorm(v: vec4f) -> u32 { return 0u; }\nfn g() { _ = pack4x8snorm(vec4f(0f));", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.body + "\n}\n"
			k, err := Specialize(src, "main", Options{OpenGL: tc.opengl})
			if err != nil {
				t.Fatal(err)
			}
			want := head + tc.want + "\n}\n"
			for _, h := range tc.helpers {
				want += h + "\n"
			}
			if diff := cmp.Diff(want, k.Source); diff != "" {
				t.Errorf("rewritten module (-want +got):\n%s", diff)
			}
			again, err := Specialize(k.Source, "main", Options{OpenGL: tc.opengl})
			if err != nil || again.Source != k.Source {
				t.Errorf("the rewritten module does not read back unchanged (%v):\n%s", err, again.Source)
			}
		})
	}
}

// TestStructLayoutAttributesBecomePaddingOnOpenGL: naga v22's GLSL writer
// ignores @size and @align, so on OpenGL a struct they lay out loses them
// and gets u32 padding members where they put space, on the same lines; a
// struct built by a constructor with arguments cannot gain members and is
// refused; other backends keep the attributes.
func TestStructLayoutAttributesBecomePaddingOnOpenGL(t *testing.T) {
	const use = "@group(0) @binding(0) var<storage, read_write> o: array<Outer>;\n@compute @workgroup_size(1) fn main() { o[0].tail = 1u; }\n"
	src := "struct Inner { a: u32, @size(16) b: u32, @align(16) c: vec2u }\n" +
		"struct Outer { x: u32, @align(32)\n inner: Inner, tail: u32, }\n" + use
	k, err := Specialize(src, "main", Options{OpenGL: true})
	if err != nil {
		t.Fatal(err)
	}
	// Inner: a @0, b @4 (size 16), c @32 (align 16), size 48.
	// Outer: x @0, inner @32, tail @80, size 96 (align 32).
	want := "struct Inner { a: u32,  b: u32, _sg_pad0: u32, _sg_pad1: u32, _sg_pad2: u32, _sg_pad3: u32, _sg_pad4: u32, _sg_pad5: u32,  c: vec2u, _sg_pad6: u32, _sg_pad7: u32 }\n" +
		"struct Outer { x: u32, _sg_pad0: u32, _sg_pad1: u32, _sg_pad2: u32, _sg_pad3: u32, _sg_pad4: u32, _sg_pad5: u32, _sg_pad6: u32, \n inner: Inner, tail: u32, _sg_pad7: u32, _sg_pad8: u32, _sg_pad9: u32, }\n" + use
	if diff := cmp.Diff(want, k.Source); diff != "" {
		t.Errorf("padded on OpenGL (-want +got):\n%s", diff)
	}
	if k, err := Specialize(src, "main", Options{}); err != nil || k.Source != src {
		t.Errorf("other backends must keep the attributes: %v\n%s", err, k.Source)
	}
	built := src + "fn f() -> Inner { return Inner(1u, 2u, vec2u()); }\n"
	_, err = Specialize(built, "main", Options{OpenGL: true})
	var se *Error
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "struct Inner places members with @size or @align") {
		t.Errorf("Specialize = %v; want an *Error saying Inner cannot be padded", err)
	}
	natural := "struct P { @size(12) v: vec3f, @align(4) w: f32, @align(16) c: vec4f }\n" +
		"@group(0) @binding(0) var<storage, read_write> o: array<P>;\n@compute @workgroup_size(1) fn main() { o[0] = P(vec3f(), 1.0, vec4f()); }\n"
	if _, err := Specialize(natural, "main", Options{OpenGL: true}); err != nil {
		t.Errorf("attributes that move nothing need no padding, so a constructor is fine: %v", err)
	}
}

// TestPointerCompositeAccessIsSpelledOut: WGSL lets a member or index
// access start from a pointer (p.m, p[i]); naga v22 refuses it, so the
// base is written (*p), innermost of any division helper's parentheses.
func TestPointerCompositeAccessIsSpelledOut(t *testing.T) {
	const head = "struct S { n: i32, v: vec2<i32>, d: array<i32> }\n@group(0) @binding(0) var<storage, read_write> b: S;\n" +
		"fn f(a: ptr<function, array<i32, 4>>, y: i32) -> i32 { return a[1] / y; }\n@compute @workgroup_size(1) fn main() {\n"
	for _, tc := range []struct{ name, body, want string }{
		{"a let pointer's member, index and arrayLength", "let p = &b; p.v[1] = i32(arrayLength(&p.d)) + p.d[0];",
			"let p = &b; (*p).v[1] = i32(arrayLength(&(*p).d)) + (*p).d[0];"},
		{"through a parenthesised address", "(&b).n = 1;", "(*(&b)).n = 1;"},
		{"a dereferenced pointer is left alone", "let p = &b; (*p).n = 2;", "let p = &b; (*p).n = 2;"},
		{"a division of a pointer's member", "let p = &b; b.n = p.n / p.v.x;", "let p = &b; b.n = _sg_div_i32((*p).n , (*p).v.x);"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := Specialize(head+tc.body+"\n}\n", "main", Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, rest, _ := strings.Cut(k.Source, "fn main() {\n")
			got, _, _ := strings.Cut(rest, "\n")
			if got != tc.want {
				t.Errorf("rewritten\n got %s\nwant %s", got, tc.want)
			}
			if !strings.Contains(k.Source, "return (*a)[1]") && !strings.Contains(k.Source, "_sg_div_i32((*a)[1] , y)") {
				t.Errorf("the pointer parameter's index is not spelled out:\n%s", k.Source)
			}
		})
	}
}

// TestConstArraysIndexedAtRunTimeBecomePrivateVars: naga v22 indexes a
// const array only by a constant, WGSL by any index; a const array
// indexed at run time and referred to by no module-scope declaration
// becomes a var<private> with its type spelled out, on the same line: the
// type as written, or an inferred array's concretized type (indexed at run
// time, WGSL concretizes array(7, 8) to array<i32, 2> first). The others
// stay as they are.
func TestConstArraysIndexedAtRunTimeBecomePrivateVars(t *testing.T) {
	const use = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n@compute @workgroup_size(1) fn main() { o[0] = A[o[1]] + bitcast<u32>(B[o[2]]) + C[1] + D[o[3]] + u32(E[o[4]]); }\n"
	src := "const A = array<u32, 2>(1u, 2u);\nconst B: array<f32, 2> = array(0.5, 1.5);\nconst C = array<u32, 2>(3u, 4u);\n" +
		"const D = array<u32, 2>(5u, 6u);\nconst DD = D[0];\nconst E = array(7, 8);\n" + use
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "var<private> A: array<u32, 2> = array<u32, 2>(1u, 2u);\nvar<private> B: array<f32, 2> = array(0.5, 1.5);\nconst C = array<u32, 2>(3u, 4u);\n" +
		"const D = array<u32, 2>(5u, 6u);\nconst DD = D[0];\nvar<private> E: array<i32, 2> = array(7, 8);\n" + use
	if diff := cmp.Diff(want, k.Source); diff != "" {
		t.Errorf("rewritten (-want +got):\n%s", diff)
	}
	lets := "struct R { vals: array<u32, 2> }\n@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n@compute @workgroup_size(1) fn main() {\n" +
		"  let a = array<u32, 2>(1u, 2u); let m = mat2x2f(); let b = a; let p = &o; let s = frexp(vec2f()); let v = vec2u(); let r = R();\n" +
		"  o[0] = a[o[1]] + u32(m[o[2]].x > 0.0) + b[1] + p[0] + u32(s.exp[o[3]]) + v[o[4]] + r.vals[o[5]];\n}\n"
	if k, err := Specialize(lets, "main", Options{}); err != nil || !strings.Contains(k.Source, "  var a = array<u32, 2>(1u, 2u); var m = mat2x2f(); let b = a; let p = &o; let s = frexp(_sg_frexp_vec2_f32(vec2f(0f))); let v = vec2u(0u); var r = R();\n") {
		t.Errorf("lets of arrays and matrices indexed at run time must become vars, the others stay: %v\n%s", err, k.Source)
	}
	shadowed := "const A = array<u32, 2>(1u, 2u);\n@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
		"@compute @workgroup_size(1) fn main() { var A = array<u32, 2>(); o[0] = A[o[1]]; }\n"
	if k, err := Specialize(shadowed, "main", Options{}); err != nil || k.Source != shadowed {
		t.Errorf("a local that shadows the const is indexed, not the const: %v\n%s", err, k.Source)
	}
}

// TestAbstractVec3ArraysAndConstPartsIndexedAtRunTime: an abstract array
// of vec3 converted to a concrete array (a typed var or let, a constructor
// or call argument, a module var whose type the rewrite writes out, a
// module const made a var<private>) gets its type spelled in the
// constructor, since naga v22 converted it with the abstract element's
// layout and then refused it ("Initializer doesn't match the variable
// type"); arrays of other elements stay as written. A module const matrix
// or struct indexed at run time becomes a var<private> of its concretized
// type as an array does, and so does a const indexed at run time through
// a part of it (T[1][i], Q.rows[i]), which naga v22 refused ("may only be
// indexed by a constant").
func TestAbstractVec3ArraysAndConstPartsIndexedAtRunTime(t *testing.T) {
	src := "struct S { a: array<vec3f, 2> }\n" +
		"struct R { rows: array<u32, 3> }\n" +
		"@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
		"var<private> P = array(vec3(1.0), vec3(2.0));\n" +
		"const C: array<vec3f, 2> = array(vec3(1.0), vec3(2.0));\n" +
		"const M = mat2x2(1.0, 2.0, 3.0, 4.0);\n" +
		"const T = array<array<u32, 2>, 2>(array<u32, 2>(1u, 2u), array<u32, 2>(3u, 4u));\n" +
		"const Q = R(array<u32, 3>(5u, 6u, 7u));\n" +
		"const N = array(array(vec3(1, 2, 3)), array(vec3(4, 5, 6)));\n" +
		"fn f(a: array<vec3f, 2>) -> array<vec3f, 2> { return array(vec3(0.5), a[1]); }\n" +
		"@compute @workgroup_size(1) fn main() {\n" +
		"  var p: array<vec3i, 2> = array(vec3(1), vec3(2, 3, 4));\n" +
		"  let s = S(array(vec3(1.0), vec3(2.0)));\n" +
		"  let q = f(array(vec3(1.0), vec3(2.0)));\n" +
		"  var w: array<vec2f, 2> = array(vec2(1.0), vec2(2.0));\n" +
		"  o[0] = u32(P[o[1]].x + C[o[2]].y + M[o[3]].x + s.a[1].z + q[0].x + w[1].y) + u32(p[o[4]].x) + T[1][o[5]] + Q.rows[o[6]] + u32(N[o[7]][0].z);\n" +
		"}\n"
	want := "struct S { a: array<vec3f, 2> }\n" +
		"struct R { rows: array<u32, 3> }\n" +
		"@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
		"var<private> P: array<vec3<f32>, 2> = array<vec3<f32>, 2>(vec3(1.0), vec3(2.0));\n" +
		"var<private> C: array<vec3f, 2> = array<vec3<f32>, 2>(vec3(1.0), vec3(2.0));\n" +
		"var<private> M: mat2x2<f32> = mat2x2(1.0, 2.0, 3.0, 4.0);\n" +
		"var<private> T: array<array<u32, 2>, 2> = array<array<u32, 2>, 2>(array<u32, 2>(1u, 2u), array<u32, 2>(3u, 4u));\n" +
		"var<private> Q: R = R(array<u32, 3>(5u, 6u, 7u));\n" +
		"var<private> N: array<array<vec3<i32>, 1>, 2> = array<array<vec3<i32>, 1>, 2>(array<vec3<i32>, 1>(vec3(1, 2, 3)), array<vec3<i32>, 1>(vec3(4, 5, 6)));\n" +
		"fn f(a: array<vec3f, 2>) -> array<vec3f, 2> { return array(vec3(0.5), a[1]); }\n" +
		"@compute @workgroup_size(1) fn main() {\n" +
		"  var p: array<vec3i, 2> = array<vec3<i32>, 2>(vec3(1), vec3(2, 3, 4));\n" +
		"  let s = S(array<vec3<f32>, 2>(vec3(1.0), vec3(2.0)));\n" +
		"  let q = f(array<vec3<f32>, 2>(vec3(1.0), vec3(2.0)));\n" +
		"  var w: array<vec2f, 2> = array(vec2(1.0), vec2(2.0));\n" +
		"  o[0] = _sg_to_u32_f32(P[o[1]].x + C[o[2]].y + M[o[3]].x + s.a[1].z + q[0].x + w[1].y) + u32(p[o[4]].x) + T[1][o[5]] + Q.rows[o[6]] + u32(N[o[7]][0].z);\n" +
		"}\n" +
		"fn _sg_to_u32_f32(e: f32) -> u32 { return select(u32(4294967295u), select(u32(0u), u32(e), e >= f32(0.0)), e <= f32(4294967040.0)); }\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, k.Source); diff != "" {
		t.Errorf("rewritten (-want +got):\n%s", diff)
	}
	// A const a module-scope declaration refers to stays a const, and a
	// struct const read only at constant indices stays as written.
	kept := "struct R { rows: array<u32, 3> }\nconst Q = R(array<u32, 3>(5u, 6u, 7u));\nconst K = Q.rows[1];\nconst U = R(array<u32, 3>(1u, 2u, 3u));\n" +
		"@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n@compute @workgroup_size(1) fn main() { o[0] = Q.rows[o[1]] + K + U.rows[2]; }\n"
	if k, err := Specialize(kept, "main", Options{}); err != nil || k.Source != kept {
		t.Errorf("consts that must stay consts were changed: %v\n%s", err, k.Source)
	}
}

// TestGeneratedWGSLFormsNagaRefusesAreRewritten: valid WGSL that
// generators write and naga v22 refuses, each rewritten on its own line:
// code after a return (Skia's and Tint's output) is deleted; a function
// returning a value that ends in a loop gets a return naga can see; a
// module-scope var without a type gets its initializer's type; an inferred
// const array indexed at run time becomes a var<private> of its
// concretized type; an array parameter indexed at run time is copied into
// a var of its name; an indexed call result goes through a helper; a
// function-scope const array indexed at run time becomes a var; an
// abstract vector const where a vec2<u32> is needed is converted; an
// abstract vector constructor indexed at run time gets its type.
func TestGeneratedWGSLFormsNagaRefusesAreRewritten(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
		"fn f(x: u32) -> u32 { loop { if x > 0u { return 1u; } return 2u; } }\n" +
		"fn h() -> u32 { { return 3u; } }\n" +
		"var<private> seed = vec2(5u, 6u);\nvar<private> n = 1;\nconst V = vec2(1, 2);\nconst A = array(1u, 2u);\n" +
		"fn at(a: array<u32, 2>, i: u32) -> u32 { return a[i]; }\n" +
		"fn g() -> array<u32, 2> { return A; }\n" +
		"@compute @workgroup_size(1) fn main() {\n" +
		"  const W = array(1u, 2u);\n" +
		"  let v: vec2<u32> = V;\n" +
		"  o[0] = W[o[1]] + A[o[2]] + at(A, o[3]) + g()[o[4]] + v.x + V.y + seed.x + u32(n) + f(o[6]) + h() + u32(vec2(1, 2)[o[5]]);\n" +
		"  loop { if o[7] > 0u { break; } continue; o[8] = 1u; continuing { o[7] = 1u; } }\n" +
		"  return; o[1] = 2u; /* gone */\n}\n"
	want := "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
		"fn f(x: u32) -> u32 { loop { if x > 0u { return 1u; } return 2u; }  return u32(); }\n" +
		"fn h() -> u32 { { return 3u; } }\n" +
		"var<private> seed: vec2<u32> = vec2(5u, 6u);\nvar<private> n: i32 = 1;\nconst V = vec2(1, 2);\nvar<private> A: array<u32, 2> = array(1u, 2u);\n" +
		"fn at(_sg_arg_a: array<u32, 2>, i: u32) -> u32 { var a = _sg_arg_a; return a[i]; }\n" +
		"fn g() -> array<u32, 2> { return A; }\n" +
		"@compute @workgroup_size(1) fn main() {\n" +
		"  var   W = array(1u, 2u);\n" +
		"  let v: vec2<u32> = vec2<u32>(V);\n" +
		"  o[0] = W[o[1]] + A[o[2]] + at(A, o[3]) + _sg_index_array_u32_2_u32(g(), o[4]) + v.x + vec2<u32>(V).y + seed.x + u32(n) + f(o[6]) + h() + u32(vec2<i32>(1, 2)[o[5]]);\n" +
		"  loop { if o[7] > 0u { break; } continue; continuing { o[7] = 1u; } }\n" +
		"  return; \n}\n" +
		"fn _sg_index_array_u32_2_u32(a: array<u32, 2>, i: u32) -> u32 { var v = a; return v[i]; }\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, k.Source); diff != "" {
		t.Errorf("rewritten (-want +got):\n%s", diff)
	}
	if again, err := Specialize(k.Source, "main", Options{}); err != nil || again.Source != k.Source {
		t.Errorf("the rewritten module does not read back unchanged: %v\n%s", err, again.Source)
	}
}

// TestBuiltinsNagaLacksOrMistypesBecomeHelpers: quantizeToF16, which naga
// v22 does not know, becomes a helper of its argument's type; ldexp's
// abstract exponent stays an integer where its result is converted to f32
// (ldexp(1.0, 2) keeps its i32 exponent, now the ldexp helper's
// argument); and on OpenGL
// a bit-counting builtin of an abstract argument gets the
// helper of the type the context converts it to (countOneBits(7) stored
// into a u32 calls the u32 helper, not the i32 one).
func TestBuiltinsNagaLacksOrMistypesBecomeHelpers(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n@group(0) @binding(1) var<storage, read_write> f: array<f32>;\n" +
		"@compute @workgroup_size(1) fn main() {\n" +
		"  f[0] = quantizeToF16(f[1]) + quantizeToF16(vec3(0.1, 0.2, 0.3)).z + ldexp(1.0, 2);\n" +
		"  o[0] = countOneBits(7);\n  let c = countOneBits(7);\n  o[1] = u32(c);\n}\n"
	k, err := Specialize(src, "main", Options{OpenGL: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"f[0] = _sg_quantizeToF16_f32(f[1]) + _sg_quantizeToF16_vec3_f32(vec3(0.1, 0.2, 0.3)).z + _sg_ldexp_f32(1.0, 2);",
		"fn _sg_ldexp_f32(e: f32, x: i32) -> f32 { let h = x / i32(2i) + select(i32(0i), i32(1i), e < f32(0.0)); return ldexp(ldexp(e, h), x - h); }",
		"o[0] = _sg_countOneBits_u32(7u);",
		"let c = _sg_countOneBits_i32(7);",
		"fn _sg_quantizeToF16_f32(e: f32) -> f32 { let b = bitcast<u32>(e); let n = bitcast<f32>((b + u32(4095u) + ((b >> u32(13u)) & u32(1u))) & u32(4294959104u)); let s = round(e * f32(16777216.0)) / f32(16777216.0); return select(select(n, s, abs(e) < f32(0.00006103515625)), e, !(abs(e) < f32(65520.0))); }",
		"fn _sg_quantizeToF16_vec3_f32(e: vec3<f32>) -> vec3<f32> { let b = bitcast<vec3<u32>>(e); let n = bitcast<vec3<f32>>((b + vec3<u32>(4095u) + ((b >> vec3<u32>(13u)) & vec3<u32>(1u))) & vec3<u32>(4294959104u)); let s = round(e * vec3<f32>(16777216.0)) / vec3<f32>(16777216.0); return select(select(n, s, abs(e) < vec3<f32>(0.00006103515625)), e, !(abs(e) < vec3<f32>(65520.0))); }",
	} {
		if !strings.Contains(k.Source, want) {
			t.Errorf("the rewrite lacks %q:\n%s", want, k.Source)
		}
	}
	if again, err := Specialize(k.Source, "main", Options{OpenGL: true}); err != nil || again.Source != k.Source {
		t.Errorf("the rewritten module does not read back unchanged: %v\n%s", err, again.Source)
	}
}

// TestAbstractConstsWhereAnotherTypeIsNeededAreConverted: naga v22 types a
// const of abstract integers as i32 at its declaration; where WGSL converts
// it to u32 or f32 (a vector const, a function-scope one, an element of an
// array const at a constant index), the use is wrapped in the conversion.
// An index at run time concretizes to i32 first, as WGSL says, so such a
// use is left for the compiler to refuse.
func TestAbstractConstsWhereAnotherTypeIsNeededAreConverted(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> c: array<u32>;\n@group(0) @binding(1) var<storage, read_write> f: array<f32>;\n" +
		"const V = vec2(1, 2);\nconst S = array(16, 32, 64);\nconst P = array(vec2(1, 2), vec2(3, 4));\n" +
		"@compute @workgroup_size(1) fn main() {\n" +
		"  const L = vec2(5, 6);\n" +
		"  let a: vec2<u32> = L + V;\n  let n: u32 = S[1] + L.y;\n  let w: vec2<f32> = P[1];\n  c[0] = S[c[1]];\n  f[0] = V[c[2]];\n}\n"
	want := "  let   L = vec2(5, 6);\n" +
		"  let a: vec2<u32> = vec2<u32>(L) + vec2<u32>(V);\n  let n: u32 = u32(S[1]) + vec2<u32>(L).y;\n  let w: vec2<f32> = vec2<f32>(P[1]);\n  c[0] = S[c[1]];\n  f[0] = V[c[2]];\n}\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(k.Source, want) {
		t.Errorf("rewritten:\n%s\nwant it to end in:\n%s", k.Source, want)
	}
}

// TestWordsOnlyTheBundledCompilerReservesAreRenamed: naga v22 refuses
// `handle`, `signed`, `inout` and some HLSL words as names, which WGSL
// allows; every token of such a name gets the helpers' prefix, the entry
// point's too, and nothing else changes.
func TestWordsOnlyTheBundledCompilerReservesAreRenamed(t *testing.T) {
	src := "struct Slot { handle: u32, signed: i32 }\n" +
		"@group(0) @binding(0) var<storage, read_write> inout: array<Slot>;\n" +
		"fn ComputeShader(s: Slot) -> u32 { return s.handle + u32(s.signed); } // handle\n" +
		"@compute @workgroup_size(1) fn handle() { let handle = ComputeShader(inout[0]); inout[1].handle = handle; }\n"
	k, err := Specialize(src, "handle", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "struct Slot { _sg_handle: u32, _sg_signed: i32 }\n" +
		"@group(0) @binding(0) var<storage, read_write> _sg_inout: array<Slot>;\n" +
		"fn _sg_ComputeShader(s: Slot) -> u32 { return s._sg_handle + u32(s._sg_signed); } // handle\n" +
		"@compute @workgroup_size(1) fn _sg_handle() { let _sg_handle = _sg_ComputeShader(_sg_inout[0]); _sg_inout[1]._sg_handle = _sg_handle; }\n"
	if diff := cmp.Diff(want, k.Source); diff != "" {
		t.Errorf("rewritten module (-want +got):\n%s", diff)
	}
	if k.Entry != "_sg_handle" {
		t.Errorf("Entry = %q, want _sg_handle", k.Entry)
	}
	if len(k.Resources) != 1 || k.Resources[0].Name != "inout" {
		t.Errorf("Resources = %+v, want the one binding, named as the author wrote it", k.Resources)
	}
}

// TestConstantEqualityBecomesItsValue: naga v22 evaluated == and != of two
// abstract operands wrongly (1 == 1 false, 1 != 1 true, on every backend)
// and compared constant f32 operands by their bits (0.0f == -0.0f false),
// so a scalar comparison of constants becomes its value and an abstract
// vector one compares concrete values; comparisons with a run-time operand
// stay.
func TestConstantEqualityBecomesItsValue(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\nconst K = 4;\n" +
		"@compute @workgroup_size(1) fn main() {\n" +
		"  const k = 3;\n" +
		"  let a = 1 == 1; let b = 0.5 != 0.5; let c = k == 3; let d = K != 4; let e = 0.0f == -0.0f; let f = 1 == 1.0;\n" +
		"  let v = vec2(1, 2) == vec2(1, 3); let w = vec2(1.5, 2) != vec2(1.5, 3.0); let x = o[0] == 1; let y = 2u == 2u;\n}\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"let a = true; let b = false; let c = true; let d = false; let e = true; let f = true;",
		"let v = vec2(1, 2) == vec2<i32>(vec2(1, 3)); let w = vec2(1.5, 2) != vec2<f32>(vec2(1.5, 3.0)); let x = o[0] == 1; let y = 2u == 2u;",
	} {
		if !strings.Contains(k.Source, want) {
			t.Errorf("the rewrite lacks %q:\n%s", want, k.Source)
		}
	}
}

// TestFrexpAndAtan2GoThroughHelpers: frexp's argument is flushed when
// subnormal and atan2 answers y = ±0 itself, at run time; a module-scope
// const's initializer, which must stay a constant expression, keeps the
// builtin.
func TestFrexpAndAtan2GoThroughHelpers(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> o: array<f32>;\nconst G = frexp(1.5).exp;\n" +
		"@compute @workgroup_size(1) fn main() { let r = frexp(o[0]); let v = frexp(vec3(o[1])); o[2] = r.fract + atan2(o[3], -1.0) + f32(G); }\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"const G = frexp(1.5).exp;",
		"let r = frexp(_sg_frexp_f32(o[0])); let v = frexp(_sg_frexp_vec3_f32(vec3(o[1]))); o[2] = r.fract + _sg_atan2_f32(o[3], -1.0) + f32(G);",
		"fn _sg_frexp_f32(e: f32) -> f32 { return select(e, e * f32(0.0), abs(e) < f32(1.17549435e-38)); }",
		"fn _sg_atan2_f32(y: f32, x: f32) -> f32 { return select(atan2(y, x), select(f32(0.0), f32(3.14159274), x < f32(0.0)), y == f32(0.0)); }",
	} {
		if !strings.Contains(k.Source, want) {
			t.Errorf("the rewrite lacks %q:\n%s", want, k.Source)
		}
	}
	again, err := Specialize(k.Source, "main", Options{})
	if err != nil || again.Source != k.Source {
		t.Errorf("the rewritten module must read back unchanged (%v):\n%s", err, again.Source)
	}
}

// TestConstantUnpack2x16floatBecomesItsValue: lavapipe folded
// unpack2x16float of a constant into a vector with the high half lost, so
// a constant argument's call becomes its exact value; a run-time one, or a
// half that is infinite or NaN, stays.
func TestConstantUnpack2x16floatBecomesItsValue(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
		"@compute @workgroup_size(1) fn main() { let a = unpack2x16float(0x3c00bc00u); let b = unpack2x16float(0x80000001u); let c = unpack2x16float(o[0]); let d = unpack2x16float(0x7c000000u); }\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "let a = vec2<f32>(-1f, 1f); let b = vec2<f32>(5.9604645e-08f, -0.0f); let c = unpack2x16float(o[0]); let d = unpack2x16float(0x7c000000u);"
	if !strings.Contains(k.Source, want) {
		t.Errorf("the rewrite lacks %q:\n%s", want, k.Source)
	}
}

// TestSqrtOfConstantsBecomesItsValue: sqrt in a module-scope const or an
// override initializer, which naga v22 does not evaluate ("Not
// implemented as constant expression: Sqrt built-in function"), becomes
// its value, correctly rounded to its argument's type (an AbstractInt
// argument is an AbstractFloat); a function-scope const's use too. A
// negative argument, NaN in WGSL's constant evaluation, is not folded.
func TestSqrtOfConstantsBecomesItsValue(t *testing.T) {
	src := "const PHI = (1.0 + sqrt(5.0)) / 2.0;\nconst R: f32 = sqrt(2.0);\nconst I = sqrt(16);\noverride O = sqrt(9.0);\n" +
		"@group(0) @binding(0) var<storage, read_write> o: array<f32>;\n" +
		"@compute @workgroup_size(1) fn main() { const L = sqrt(3.0f); o[0] = PHI + R + I + O + L + sqrt(o[1]); }\n"
	want := "const PHI = 1.618033988749895;\nconst R: f32 = 1.4142135f;\nconst I = 4.0;\nconst O: f32 = 3f;\n" +
		"@group(0) @binding(0) var<storage, read_write> o: array<f32>;\n" +
		"@compute @workgroup_size(1) fn main() {  o[0] = PHI + R + I + O + 1.7320508f + sqrt(o[1]); }\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, k.Source); diff != "" {
		t.Errorf("rewritten (-want +got):\n%s", diff)
	}
	if float32(math.Sqrt(2)) != 1.4142135 || (1+math.Sqrt(5))/2 != 1.618033988749895 {
		t.Fatal("the expected literals are not the correctly rounded values")
	}
	for _, bad := range []string{"const N = sqrt(-1.0);\n", "const N = sqrt(1u);\n"} {
		src := bad + "@compute @workgroup_size(1) fn main() { _ = N; }\n"
		if k, err := Specialize(src, "main", Options{}); err != nil || k.Source != src {
			t.Errorf("%q must be left to the compiler, which refuses it: %v\n%s", bad, err, k.Source)
		}
	}
}

// TestAbstractVec3ConstsNamedWholeAreSpelled: a const of abstract
// array-of-vec3 type named whole where an array<vec3<f32>, N> is needed (a
// function argument, a typed let) becomes that type's constructor of its
// elements at constant indices: naga v22 converted the whole constant with
// the abstract element's layout and refused it ("Argument 0 value [4]
// doesn't match the type [5]").
func TestAbstractVec3ConstsNamedWholeAreSpelled(t *testing.T) {
	src := "const FACE = array(vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0));\n" +
		"fn pick(b: array<vec3f, 2>, i: u32) -> vec3f { return b[i]; }\n" +
		"@group(0) @binding(0) var<storage, read_write> o: array<f32>;\n" +
		"@compute @workgroup_size(1) fn main() { const L = array(vec3(2.0), vec3(3.0)); let b: array<vec3f, 2> = L; o[0] = pick(FACE, 1u).y + b[1].x; }\n"
	want := "const FACE = array(vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0));\n" +
		"fn pick(_sg_arg_b: array<vec3f, 2>, i: u32) -> vec3f { var b = _sg_arg_b; return b[i]; }\n" +
		"@group(0) @binding(0) var<storage, read_write> o: array<f32>;\n" +
		"@compute @workgroup_size(1) fn main() { let   L = array(vec3(2.0), vec3(3.0)); let b: array<vec3f, 2> = array<vec3<f32>, 2>(L[0], L[1]); o[0] = pick(array<vec3<f32>, 2>(FACE[0], FACE[1]), 1u).y + b[1].x; }\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, k.Source); diff != "" {
		t.Errorf("rewritten (-want +got):\n%s", diff)
	}
}

// TestShiftsOfAbstractIntegersAreConcretizedAsWGSLSays: naga v22 keeps a
// shifted abstract integer abstract and then refuses it ("failed to
// convert expression to a concrete type"). Shifted by an amount known only
// at run time it is an i32 in WGSL (a run-time expression has no abstract
// type, and i32 ranks before u32), so its literal is spelled i32, alone,
// negated, complemented or in a vector constructor, unless its context
// converted it (the u32 let); a named const stays as written. Shifted by a
// constant amount (1 << LOG_N) it is a constant and becomes its value: an
// abstract literal, or one of the type its context converted it to, the
// whole shift replaced (nested shifts once, lines kept).
func TestShiftsOfAbstractIntegersAreConcretizedAsWGSLSays(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> o: array<i32>;\nconst ONE = 1;\nconst LOG_N: u32 = 4u;\noverride S: u32 = 2u;\n" +
		"@compute @workgroup_size(1) fn main() { let k = u32(o[0]); let lo = -(1 << (k - 1u)); let hi = (1 << (k - 1u)) - 1; let m: u32 = 1 << k;" +
		" let v = vec2(-8, 8) >> vec2(k); let c = ONE << k; let d = 4 >> 1u; o[1] = lo + hi + i32(m) + v.x + c + d + (~0 << k); }\n" +
		"fn g() -> f32 { let n = 1 << LOG_N; let u: u32 = (1 << S) << 1u; let f = 0.5 * (-1 <<\n 3u); o[1 << S] = n; return f + f32(u); }\n"
	want := "@group(0) @binding(0) var<storage, read_write> o: array<i32>;\nconst ONE = 1;\nconst LOG_N: u32 = 4u;\nconst S: u32 = 2u;\n" +
		"@compute @workgroup_size(1) fn main() { let k = u32(o[0]); let lo = -(1i << (k - 1u)); let hi = (1i << (k - 1u)) - 1; let m: u32 = 1u << k;" +
		" let v = vec2(-8i, 8i) >> vec2(k); let c = ONE << k; let d = 2; o[1] = lo + hi + i32(m) + v.x + c + d + (~0i << k); }\n" +
		"fn g() -> f32 { let n = 16; let u: u32 = 8u; let f = 0.5 * ((-8f)\n); o[4] = n; return f + f32(u); }\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, k.Source); diff != "" {
		t.Errorf("rewritten (-want +got):\n%s", diff)
	}
}

// atomicUniformLoadModule calls workgroupUniformLoad on workgroup atomics
// in each form the rewrite takes (and once on a plain workgroup var, which
// stays).
const atomicUniformLoadModule = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
	"struct S { x: u32, c: array<atomic<i32>, 2> }\n" +
	"var<workgroup> a: atomic<u32>;\nvar<workgroup> arr: array<atomic<u32>, 4>;\nvar<workgroup> s: array<S, 2>;\nvar<workgroup> plain: u32;\n" +
	"const K = 1;\n" +
	"@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) l: u32) {\n" +
	"  atomicAdd(&a, 1u); let v = workgroupUniformLoad(&a); if l == 0u { o[0] = v; }\n" +
	"  let w = workgroupUniformLoad(&arr[o[1] / o[2]]) + workgroupUniformLoad(&a) + workgroupUniformLoad(&plain);\n" +
	"  let z = workgroupUniformLoad(&s[o[3]].c[\n     K]) + workgroupUniformLoad(&(s[0]).c[i32(l)]);\n" +
	"  for (var i = 0u; i < workgroupUniformLoad(&arr[2]); i++) { workgroupBarrier(); }\n}\n"

// TestAtomicWorkgroupUniformLoadBecomesAHelper: naga v22 lacks
// workgroupUniformLoad's atomic overload (it typed the result as the atomic
// and refused its use). Each call becomes one of a helper appended after
// the last line: a barrier, an atomic load into a var<workgroup> of the
// element type, and workgroupUniformLoad of that var. The pointer's
// indices are the helper's arguments, in order and with their own rewrites
// (a division's helper), a constant index its value; identical pointers
// share a helper, each element type a temporary. Lines stay where they
// were, the temporaries count as workgroup storage where the entry point
// reaches a call, and the rewritten module reads back unchanged. On OpenGL
// the load is atomicOr(p, 0), as every atomicLoad there.
func TestAtomicWorkgroupUniformLoadBecomesAHelper(t *testing.T) {
	src := atomicUniformLoadModule
	want := "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
		"struct S { x: u32, c: array<atomic<i32>, 2> }\n" +
		"var<workgroup> a: atomic<u32>;\nvar<workgroup> arr: array<atomic<u32>, 4>;\nvar<workgroup> s: array<S, 2>;\nvar<workgroup> plain: u32;\n" +
		"const K = 1;\n" +
		"@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) l: u32) {\n" +
		"  atomicAdd(&a, 1u); let v = _sg_uniform_load1(); if l == 0u { o[0] = v; }\n" +
		"  let w = _sg_uniform_load2(_sg_div_u32(o[1] , o[2])) + _sg_uniform_load1() + workgroupUniformLoad(&plain);\n" +
		"  let z = _sg_uniform_load3(o[3])\n + _sg_uniform_load4(i32(l));\n" +
		"  for (var i = 0u; i < _sg_uniform_load5(); i++) { workgroupBarrier(); }\n}\n" +
		"fn _sg_div_u32(a: u32, b: u32) -> u32 { return a / max(b, 1u); }\n" +
		"var<workgroup> _sg_uniform_u32: u32;\n" +
		"fn _sg_uniform_load1() -> u32 { workgroupBarrier(); _sg_uniform_u32 = atomicLoad(&a); return workgroupUniformLoad(&_sg_uniform_u32); }\n" +
		"fn _sg_uniform_load2(_sg_index1: u32) -> u32 { workgroupBarrier(); _sg_uniform_u32 = atomicLoad(&arr[_sg_index1]); return workgroupUniformLoad(&_sg_uniform_u32); }\n" +
		"var<workgroup> _sg_uniform_i32: i32;\n" +
		"fn _sg_uniform_load3(_sg_index1: u32) -> i32 { workgroupBarrier(); _sg_uniform_i32 = atomicLoad(&s[_sg_index1].c[1]); return workgroupUniformLoad(&_sg_uniform_i32); }\n" +
		"fn _sg_uniform_load4(_sg_index1: i32) -> i32 { workgroupBarrier(); _sg_uniform_i32 = atomicLoad(&s[0].c[_sg_index1]); return workgroupUniformLoad(&_sg_uniform_i32); }\n" +
		"fn _sg_uniform_load5() -> u32 { workgroupBarrier(); _sg_uniform_u32 = atomicLoad(&arr[2]); return workgroupUniformLoad(&_sg_uniform_u32); }\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, k.Source); diff != "" {
		t.Errorf("rewritten (-want +got):\n%s", diff)
	}
	// a, arr, s (array<S, 2>: 24 bytes) and plain, then the two temporaries.
	if wantStorage := uint64(16 + 16 + 32 + 16 + 2*16); k.WorkgroupStorage != wantStorage {
		t.Errorf("WorkgroupStorage = %d, want %d (the temporaries included)", k.WorkgroupStorage, wantStorage)
	}
	if again, err := Specialize(k.Source, "main", Options{}); err != nil {
		t.Errorf("the rewritten module must read back: %v", err)
	} else if again.Source != k.Source || again.WorkgroupStorage != k.WorkgroupStorage {
		t.Errorf("the rewritten module must read back unchanged, with storage %d (got %d):\n%s", k.WorkgroupStorage, again.WorkgroupStorage, again.Source)
	}
	gl, err := Specialize(src, "main", Options{OpenGL: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"_sg_uniform_u32 = atomicOr(&a, 0u);", "_sg_uniform_i32 = atomicOr(&s[_sg_index1].c[1], 0i);"} {
		if !strings.Contains(gl.Source, w) {
			t.Errorf("the OpenGL rewrite lacks %q:\n%s", w, gl.Source)
		}
	}
	if again, err := Specialize(gl.Source, "main", Options{OpenGL: true}); err != nil {
		t.Errorf("the OpenGL rewrite must read back: %v", err)
	} else if again.Source != gl.Source {
		t.Errorf("the OpenGL rewrite must read back unchanged:\n%s", again.Source)
	}

	// An entry point that reaches no call does not count the temporaries;
	// names already in the source move the helpers to another prefix.
	src = "var<workgroup> a: atomic<u32>;\n@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n" +
		"fn f() -> u32 { return workgroupUniformLoad(&a); } // not _sg_uniform_load1\n" +
		"@compute @workgroup_size(1) fn main() { o[0] = f(); }\n@compute @workgroup_size(1) fn other() { o[1] = 1u; }\n"
	for entry, storage := range map[string]uint64{"main": 32, "other": 0} {
		k, err := Specialize(src, entry, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(k.Source, "fn f() -> u32 { return _sg1_uniform_load1(); }") {
			t.Errorf("%s: the call must use the _sg1_ prefix, the source holding _sg_:\n%s", entry, k.Source)
		}
		if k.WorkgroupStorage != storage {
			t.Errorf("%s: WorkgroupStorage = %d, want %d", entry, k.WorkgroupStorage, storage)
		}
	}
}

// TestAtomicWorkgroupUniformLoadThroughAPointerIsRefused: the helper takes
// the pointer's indices, not the pointer (naga v22 needs
// unrestricted_pointer_parameters for a workgroup pointer parameter and
// aborts on a pointer into part of a variable), so a pointer held in a let
// or parameter, or dereferenced in the argument, is an *Error naming the
// argument rather than a module naga v22 refuses.
func TestAtomicWorkgroupUniformLoadThroughAPointerIsRefused(t *testing.T) {
	const head = "struct S { c: array<atomic<u32>, 2> }\nvar<workgroup> a: atomic<u32>;\nvar<workgroup> s: S;\n" +
		"@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n"
	for _, tc := range []struct{ name, code, arg string }{
		{"a let holding the address", "@compute @workgroup_size(1) fn main() { let p = &a; o[0] = workgroupUniformLoad(p); }", "p"},
		{"a let holding a part's address", "@compute @workgroup_size(1) fn main() { let p = &s.c[1]; o[0] = workgroupUniformLoad(p); }", "p"},
		{"a dereferenced let", "@compute @workgroup_size(1) fn main() { let p = &s; o[0] = workgroupUniformLoad(&(*p).c[0]); }", "&(*p).c[0]"},
		{"a member through a let", "@compute @workgroup_size(1) fn main() { let p = &s; o[0] = workgroupUniformLoad(&p.c[0]); }", "&p.c[0]"},
		{"a pointer parameter", "fn f(p: ptr<workgroup, atomic<u32>>) -> u32 { return workgroupUniformLoad(p); }\n" +
			"@compute @workgroup_size(1) fn main() { o[0] = f(&a); }", "p"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Specialize(head+tc.code+"\n", "main", Options{})
			var se *Error
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "workgroupUniformLoad("+tc.arg+") of an atomic") {
				t.Errorf("Specialize = %v; want an *Error naming workgroupUniformLoad(%s)", err, tc.arg)
			}
		})
	}
}

// TestKnownExtensionsAreAcceptedAndRemoved: every enable-extension WGSL
// defines and every language extension the rewrite or the compiler
// provides is accepted, in one directive or several, and the directive
// removed (naga v22 does not parse them); an unknown one is an *Error
// (TestSpecializeKeepsItsContract).
func TestKnownExtensionsAreAcceptedAndRemoved(t *testing.T) {
	src := "enable f16, clip_distances;\nenable dual_source_blending, subgroups,;\n" +
		"requires readonly_and_readwrite_storage_textures, packed_4x8_integer_dot_product;\n" +
		"requires unrestricted_pointer_parameters;\nrequires pointer_composite_access;\n" +
		"@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n@compute @workgroup_size(1) fn main() { o[0] = 1u; }\n"
	k, err := Specialize(src, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "\n\n\n\n\n" + src[strings.Index(src, "@group"):]; k.Source != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", k.Source, want)
	}
}
