package wgsl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestContextDependentMarksFloatOperationsOnHiddenConstants: a float
// operation whose operand the driver can know is constant while naga did
// not fold it (held in a var, a var<private> or a helper's parameter) makes
// a kernel context-dependent; constants naga folds, values from memory or
// the invocation, accumulators, loop counters and integer constants do not.
// The first three are the kernels the H200 computed differently alone and
// fused. A float product with a constant zero, which a driver may fold to
// zero and then fold what takes it (an H100's GL did so in one context and
// not another), marks it too; a product of constants, which naga folds,
// and an integer one do not.
func TestContextDependentMarksFloatOperationsOnHiddenConstants(t *testing.T) {
	checkFlags(t, "ContextDependent", []flagCase{
		{"transcendental of a var", flagModule("", "var t = 1.5f; b[i] = exp(sqrt(t));"), true},
		{"var folded into a sum", flagModule("", "var t = abs(3.0f); b[i] = t - (a[i] + 3.0f);"), true},
		{"var assigned after a loop", flagModule("", "var acc: f32 = 0.0f; for (var k = 0u; k < 4u; k = k + 1u) { acc = a[(i + k) % 8u]; } acc = 3.0f; b[i] = sqrt(acc);"), true},
		{"zeroed var", flagModule("", "var z: f32; b[i] = a[i] * z;"), true},
		{"private", flagModule("var<private> s: f32 = 2.0;\n", "b[i] = a[i] * s;"), true},
		{"helper parameter", flagModule("fn f(x: f32, y: f32) -> f32 { return x * y; }\n", "b[i] = f(a[i], 0.5f);"), true},
		{"through a pointer", flagModule("", "var t = 2.0f; let q = &t; b[i] = exp(*q);"), true},
		{"constant in one branch only", flagModule("", "var t = 2.0f; if (a[i] > 0.0) { t = a[i]; } b[i] = a[i] + t;"), true}, // (the comparison already marks it)
		{"product with a zero literal", flagModule("", "b[i] = exp(abs(sqrt(3.0f) - (a[i] * 0.0f - sqrt(0.0f))));"), true},
		{"product with a zero let", flagModule("", "let z = -0.0f; b[i] = z * a[i];"), true},
		{"product with an abstract zero", flagModule("", "b[i] = a[i] * 0;"), true},
		{"product with a zero vector", flagModule("", "let v = vec4(a[i]) * vec4(0.0, -0.0, 0.0, f32()); b[i] = v.x;"), true},
		{"product with a zero-valued vector", flagModule("", "let v = vec4f() * vec4(a[i]); b[i] = v.x;"), true},
		{"product with a vector not all zero", flagModule("", "let v = vec4(a[i]) * vec4(0.0, 1.0, 0.0, 0.0); b[i] = v.y;"), false},
		{"dot with a zero vector", flagModule("", "b[i] = dot(vec2(a[i], 1.0), vec2f());"), true},
		{"zero let shadowed", flagModule("", "let z = 0.0; let w = z; { let z = a[i]; b[i] = a[i] * w + z; }"), true},
		{"let shadowing a zero", flagModule("", "let z = a[i]; let w = z; { let z = 0.0; b[i] = a[i] * w + z; }"), false},
		{"compound product with zero", flagModule("", "var t = a[i]; t *= 0.0; b[i] = exp(t);"), true},
		{"integer product with zero", flagModule("", "b[i] = a[i] + f32(i * 0u);"), false},
		{"product of two constants", flagModule("", "b[i] = a[i] + 2.0f * 0.0f;"), false},
		{"literals", flagModule("", "b[i] = (a[i] + 3.0f) - 3.0f + exp(sqrt(1.5f)) * tanh(3.0f);"), false},
		{"let of literals", flagModule("", "let c = 0.7978846f; let x = a[i]; b[i] = 0.5 * x * (1.0 + tanh(c * (x + 0.044715 * x * x * x)));"), false},
		{"const and uniform", flagModule("const K = 2.0f;\n", "b[i] = a[i] * K + p.x;"), false},
		{"var from memory", flagModule("", "var t = a[i]; t = t * 2.0; b[i] = exp(t);"), false},
		{"accumulator", flagModule("", "var acc: f32 = 0.0f; for (var k = 0u; k < 4u; k = k + 1u) { acc = acc + a[(i + k) % 8u] * 2.0; } b[i] = acc;"), false},
		{"loop accumulator", flagModule("", "var acc = 0.0f; var k = 0u; loop { if (k >= 4u) { break; } acc += a[k]; continuing { k = k + 1u; } } b[i] = acc;"), false},
		{"integer var", flagModule("", "var n = 3u; n = n * 2u; b[i] = a[i] * f32(i + n);"), false},
		{"var stored unchanged", flagModule("", "var t = 1.5f; b[i] = t;"), false},
		{"helper of memory", flagModule("fn f(x: f32) -> f32 { return x * x; }\n", "b[i] = f(a[i]);"), false},
	}, contextFlag)
}

// TestContextReasonNamesTheConstructAndItsLine: the reason fusion shows
// for a context-dependent kernel names the first construct and its line.
func TestContextReasonNamesTheConstructAndItsLine(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> b: array<f32>;\n" +
		"@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n" +
		"\tlet x = b[gid.x];\n" +
		"\tvar t = 1.5f;\n" +
		"\tb[gid.x] = x * 2.0 + exp(t) + x / 3.0;\n}\n"
	for _, c := range []struct{ src, want string }{
		{src, "it divides floats (line 6)"},
		{strings.Replace(src, " + x / 3.0", "", 1), "it computes with a float constant held in a variable or passed to a function, which only the driver folds (line 6)"},
		{strings.Replace(src, " + x / 3.0", " + max(x, 1.0)", 1), "it calls max on floats (line 6)"},
	} {
		k, err := Specialize(c.src, "main", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, k.ContextReason); diff != "" {
			t.Errorf("ContextReason (-want +got):\n%s\n%s", diff, c.src)
		}
	}
}

// TestHiddenConstantsGiveUpOnACallTreeTooLargeToInline: a module whose
// helpers each call the one below twice, with loops and branches (2^30
// inlined calls), is marked context-dependent as too long to interpret
// (which keeps it unfused) after a bounded amount of work; interpreting
// it whole, or cloning every variable ever made at each branch, took
// minutes.
func TestHiddenConstantsGiveUpOnACallTreeTooLargeToInline(t *testing.T) {
	var b strings.Builder
	b.WriteString("@group(0) @binding(0) var<storage, read_write> o: array<f32>;\n")
	b.WriteString("fn h0(x: f32) -> f32 { var s = x; for (var i = 0u; i < 4u; i++) { s = s + x; } return s; }\n")
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&b, "fn h%d(x: f32) -> f32 { var t = x; if (all(vec2(true))) { t = h%d(x); } loop { t = h%d(t); if (any(vec2(true))) { break; } } return t; }\n", i, i-1, i-1)
	}
	b.WriteString("@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { o[g.x] = h29(o[g.x]); }\n")
	k, err := Specialize(b.String(), "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "its entry point is too long to show"; !k.ContextDependent || !strings.Contains(k.ContextReason, want) {
		t.Errorf("ContextDependent = %v (%q), want true with %q", k.ContextDependent, k.ContextReason, want)
	}
}
