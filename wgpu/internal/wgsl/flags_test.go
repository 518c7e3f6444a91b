package wgsl

import "testing"

// flagCase is a module and whether an analysis marks its entry point main.
type flagCase struct {
	name, src string
	want      bool
}

// flagModule is a module of the bindings the analyses' tests use (f32
// storage a, read, and b, read_write; u32 storage u; a uniform vec4 p), with
// decls at module scope and stmts in a 64-wide entry point main, after its
// guard on b's length (i is the invocation's index).
func flagModule(decls, stmts string) string {
	return "@group(0) @binding(0) var<storage, read> a: array<f32>;\n" +
		"@group(0) @binding(1) var<storage, read_write> b: array<f32>;\n" +
		"@group(0) @binding(2) var<storage, read_write> u: array<u32>;\n" +
		"@group(0) @binding(3) var<uniform> p: vec4<f32>;\n" + decls +
		"@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n\tlet i = gid.x;\n\tif (i >= arrayLength(&b)) { return; }\n\t" + stmts + "\n}\n"
}

// checkFlags specializes each case and compares what flag reads of the
// Kernel (a mark and its reason) with the case's want: the reason is given
// exactly when the kernel is marked.
func checkFlags(t *testing.T, what string, cases []flagCase, flag func(*Kernel) (bool, string)) {
	t.Helper()
	for _, c := range cases {
		k, err := Specialize(c.src, "main", Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, reason := flag(k)
		if got != c.want || (reason != "") != c.want {
			t.Errorf("%s: %s = %v (%q), want %v", c.name, what, got, reason, c.want)
		}
	}
}

func contextFlag(k *Kernel) (bool, string) { return k.ContextDependent, k.ContextReason }

func chainFlag(k *Kernel) (bool, string) { return k.ChainsFloats, k.ChainReason }
