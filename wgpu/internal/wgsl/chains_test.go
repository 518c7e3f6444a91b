package wgsl

import "testing"

// TestChainsFloatsMarksOneFloatOperationFeedingAnother: a kernel where a
// float operation takes another's result, in one expression or through a
// let, a var, a helper's argument or return, or a compound assignment,
// chains floats; one applying single operations to loaded values, exact
// builtins, or integer arithmetic does not.
func TestChainsFloatsMarksOneFloatOperationFeedingAnother(t *testing.T) {
	checkFlags(t, "ChainsFloats", []flagCase{
		{"multiply then add", flagModule("", "b[i] = a[i] * 1.5 + 0.25;"), true},
		{"through a let", flagModule("", "let x = a[i] * p.x; b[i] = x + p.y;"), true},
		{"through a var", flagModule("", "var x = a[i]; x = x * 2.0; b[i] = exp(x);"), true},
		{"compound assignment", flagModule("", "var acc = 0.0; acc += a[i] * 2.0; b[i] = acc;"), true},
		{"through a helper's argument", flagModule("fn f(x: f32) -> f32 { return x + 1.0; }\n", "b[i] = f(a[i] * 2.0);"), true},
		{"through a helper's return", flagModule("fn f(x: f32) -> f32 { return x * 2.0; }\n", "b[i] = f(a[i]) - 1.0;"), true},
		{"through private", flagModule("var<private> s: f32;\n", "s = a[i] * 2.0; b[i] = s + 1.0;"), true},
		{"transcendental of a sum", flagModule("", "b[i] = exp(a[i] - 3.0);"), true},
		{"one add", flagModule("", "b[i] = a[i] + p.x;"), false},
		{"one in place", flagModule("", "let old = b[i]; b[i] = old * a[i];"), false},
		{"one transcendental", flagModule("", "b[i] = tanh(a[i]);"), false},
		{"exact builtins around one operation", flagModule("", "b[i] = abs(select(-(a[i] + 1.0), a[i], a[i] == 0.0));"), false},
		{"integers", flagModule("", "u[i] = u[i] * 3u + 7u; b[i] = a[i] * 2.0;"), false},
		{"a var holding a load", flagModule("", "var x = a[i]; x = -x; b[i] = x * p.x;"), false},
	}, chainFlag)
}
