package wgsl

import "testing"

// TestChainsFloatsMarksOneFloatOperationFeedingAnother: a kernel where a
// float operation takes another's result, in one expression or through a
// let, a var, a helper's argument or return, or a compound assignment,
// chains floats; one applying single operations to loaded values, exact
// builtins, or integer arithmetic does not.
func TestChainsFloatsMarksOneFloatOperationFeedingAnother(t *testing.T) {
	head := "@group(0) @binding(0) var<storage, read> a: array<f32>;\n@group(0) @binding(1) var<storage, read_write> b: array<f32>;\n@group(0) @binding(2) var<storage, read_write> u: array<u32>;\n@group(0) @binding(3) var<uniform> p: vec4<f32>;\n"
	body := func(decls, stmts string) string {
		return head + decls + "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n\tlet i = gid.x;\n\tif (i >= arrayLength(&b)) { return; }\n\t" + stmts + "\n}\n"
	}
	cases := []struct {
		name, src string
		want      bool
	}{
		{"multiply then add", body("", "b[i] = a[i] * 1.5 + 0.25;"), true},
		{"through a let", body("", "let x = a[i] * p.x; b[i] = x + p.y;"), true},
		{"through a var", body("", "var x = a[i]; x = x * 2.0; b[i] = exp(x);"), true},
		{"compound assignment", body("", "var acc = 0.0; acc += a[i] * 2.0; b[i] = acc;"), true},
		{"through a helper's argument", body("fn f(x: f32) -> f32 { return x + 1.0; }\n", "b[i] = f(a[i] * 2.0);"), true},
		{"through a helper's return", body("fn f(x: f32) -> f32 { return x * 2.0; }\n", "b[i] = f(a[i]) - 1.0;"), true},
		{"through private", body("var<private> s: f32;\n", "s = a[i] * 2.0; b[i] = s + 1.0;"), true},
		{"transcendental of a sum", body("", "b[i] = exp(a[i] - 3.0);"), true},
		{"one add", body("", "b[i] = a[i] + p.x;"), false},
		{"one in place", body("", "let old = b[i]; b[i] = old * a[i];"), false},
		{"one transcendental", body("", "b[i] = tanh(a[i]);"), false},
		{"exact builtins around one operation", body("", "b[i] = abs(select(-(a[i] + 1.0), a[i], a[i] == 0.0));"), false},
		{"integers", body("", "u[i] = u[i] * 3u + 7u; b[i] = a[i] * 2.0;"), false},
		{"a var holding a load", body("", "var x = a[i]; x = -x; b[i] = x * p.x;"), false},
	}
	for _, c := range cases {
		k, err := Specialize(c.src, "main", Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if k.ChainsFloats != c.want || (k.ChainReason != "") != c.want {
			t.Errorf("%s: ChainsFloats = %v (%q), want %v", c.name, k.ChainsFloats, k.ChainReason, c.want)
		}
	}
}
