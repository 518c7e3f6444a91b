package wgsl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shippedKernel reads one of the kernels shipped in shaders/.
func shippedKernel(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shaders", name+".wgsl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const shippedIndex = "global_invocation_id.y * num_workgroups.x * 256u + global_invocation_id.x"

// TestShippedElementwiseKernelsArePointwise: the shipped elementwise
// kernels are the chains fusion is for; each is pointwise with the folded
// 2-D index, and bias reads (bias[i % cols]) count as gathered, not as a
// reason to refuse. Without this, fusion would silently never happen on the
// kernels the README promises it for.
func TestShippedElementwiseKernelsArePointwise(t *testing.T) {
	cases := []struct {
		name     string
		gathered []bool
	}{
		{"add", []bool{false, false, false, false}},
		{"add_one", []bool{false, false, false}},
		{"mul", []bool{false, false, false, false}},
		{"scale", []bool{false, false, false}},
		{"axpy", []bool{false, false, false}},
		{"bias_gelu", []bool{false, true, false, false}},
		{"bias_relu", []bool{false, true, false, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pw, err := AnalyzePointwise(shippedKernel(t, c.name), c.name)
			if err != nil {
				t.Fatalf("AnalyzePointwise: %v; want pointwise", err)
			}
			if pw.Index != shippedIndex || pw.WorkgroupSize != 256 {
				t.Errorf("index %q, workgroup size %d; want %q, 256", pw.Index, pw.WorkgroupSize, shippedIndex)
			}
			if diff := cmp.Diff(c.gathered, pw.Gathered); diff != "" {
				t.Errorf("gathered resources (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"global_invocation_id", "num_workgroups"}, pw.Builtins); diff != "" {
				t.Errorf("builtins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShippedReductionsAreNotPointwise: kernels that couple invocations or
// write at an offset index are refused, each with the reason a user would
// need to see in Graph.String.
func TestShippedReductionsAreNotPointwise(t *testing.T) {
	cases := map[string]string{
		"copy":     "read_write storage dst is indexed at p.dst_offset + i",
		"sum":      "workgroup memory",
		"softmax":  "workgroup memory",
		"rms_norm": "workgroup memory",
		"matmul":   "workgroup memory",
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := AnalyzePointwise(shippedKernel(t, name), name)
			var pe *PointwiseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrNotPointwise) {
				t.Fatalf("AnalyzePointwise = %v; want a *PointwiseError wrapping ErrNotPointwise", err)
			}
			if !strings.Contains(pe.Reason, want) {
				t.Errorf("reason %q; want it to contain %q", pe.Reason, want)
			}
		})
	}
}

const pwDecls = "@group(0) @binding(0) var<storage, read> x: array<f32>;\n@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n"

// TestPointwiseAnalysisExplainsEachRefusal: each construct that could let
// one invocation observe another's element (or that the analysis does not
// understand) refuses with a reason naming it; the accepted forms (guards
// on arrayLength with an early return, gid.x used directly, helpers that
// touch no storage, loops over a private value) are accepted.
func TestPointwiseAnalysisExplainsEachRefusal(t *testing.T) {
	entry := func(body string) string {
		return pwDecls + "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n" + body + "\n}\n"
	}
	cases := []struct {
		name, src, reason string // reason "" means pointwise
	}{
		{"direct gid.x", entry("y[id.x] = x[id.x] * 2.0;"), ""},
		{"early return guard", entry("let i = id.x;\nif (i >= arrayLength(&y)) { return; }\ny[i] = x[i] + 1.0;"), ""},
		{"helper without storage", pwDecls + "fn twice(v: f32) -> f32 { return v * 2.0; }\n@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { y[id.x] = twice(x[id.x]); }\n", ""},
		{"loop over a private value", entry("var acc = 0.0;\nfor (var k = 0u; k < 4u; k++) { acc += x[id.x]; }\ny[id.x] = acc;"), ""},
		{"gathered read-only read", entry("y[id.x] = x[id.x + 1u];"), ""},
		{"write at a data-dependent index", entry("y[u32(x[id.x])] = 1.0;"), "read_write storage y is indexed at u32(x[id.x])"},
		{"two invocation indices", entry("y[id.x] = x[id.x];\ny[id.y] = 2.0;"), "y is indexed at global_invocation_id.x and at global_invocation_id.y"},
		{"loop index into read_write", entry("for (var k = 0u; k < 4u; k++) { y[k] = x[id.x]; }"), "read_write storage y is indexed at k"},
		{"barrier", entry("workgroupBarrier();\ny[id.x] = x[id.x];"), "calls workgroupBarrier, which synchronizes invocations"},
		{"storage barrier", entry("storageBarrier();\ny[id.x] = x[id.x];"), "synchronizes invocations"},
		{"atomics", "@group(0) @binding(0) var<storage, read_write> n: atomic<u32>;\n@compute @workgroup_size(64)\nfn main() { atomicAdd(&n, 1u); }\n", "is atomic"},
		{"workgroup memory", pwDecls + "var<workgroup> tile: array<f32, 64>;\n@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { tile[0] = 1.0; y[id.x] = tile[0]; }\n", "workgroup"},
		{"two-dimensional workgroup over a row", pwDecls + "@compute @workgroup_size(8, 8)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { let i = id.x + id.y * 32u; y[i] = x[i]; }\n", ""},
		{"two-dimensional workgroup, x alone", pwDecls + "@compute @workgroup_size(8, 8)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { y[id.x] = x[id.x]; }\n", ""},
		{"typed pointer into storage", entry("let q: ptr<storage, f32, read> = &x[id.x];\ny[id.x] = *q + 1.0;"), ""},
		{"storage texture", "@group(0) @binding(0) var t: texture_storage_2d<rgba8unorm, write>;\n@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { textureStore(t, vec2<u32>(id.xy), vec4<f32>(1.0)); }\n", "binds t"},
		{"helper with storage", pwDecls + "fn put(i: u32) { y[i] = 1.0; }\n@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { put(id.x); y[id.x] = x[id.x]; }\n", "function put, which the entry point calls, uses storage y"},
		{"pointer to storage", entry("let p = &y;\n(*p)[id.x] = x[id.x];"), "storage y is used other than as y[index]"},
		{"override", "override k: f32 = 1.0;\n" + entry("y[id.x] = k * x[id.x];"), "overrides"},
		{"unused resource", pwDecls + "@group(0) @binding(2) var<storage, read> z: array<f32>;\n@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { y[id.x] = x[id.x]; }\n", ""},
		{"unused resource another function names", pwDecls + "@group(0) @binding(2) var<storage, read> z: array<f32>;\nfn other() -> f32 { return z[0]; }\n@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { y[id.x] = x[id.x]; }\n", "declares z, which the entry point does not use but other code names"},
		{"two entry points", entry("y[id.x] = x[id.x];") + "@compute @workgroup_size(64)\nfn other() {}\n", "2 entry points"},
		{"local invocation builtin struct", pwDecls + "struct In { @builtin(global_invocation_id) id: vec3<u32> }\n@compute @workgroup_size(64)\nfn main(in: In) { y[in.id.x] = x[in.id.x]; }\n", "parameter in is not a builtin value"},
		{"subgroup builtin", pwDecls + "@compute @workgroup_size(64)\nfn main(@builtin(subgroup_invocation_id) s: u32) { y[s] = x[s]; }\n", "@builtin(subgroup_invocation_id)"},
		{"shadowing let", entry("let v = x[id.x];\nlet x = 1.0;\ny[id.x] = x + v;"), "declares x twice or over a module-scope name"},
		{"no storage index", entry("let n = arrayLength(&y) + arrayLength(&x);"), "no storage at an invocation index"},
		{"index shared by two invocations", entry("y[id.x / 2u] = x[id.x];"), "index global_invocation_id.x / 2u is not one the analysis knows to differ between invocations"},
		{"constant index", entry("y[0] = x[0];"), "index 0 is not one"},
		{"fold by another size", pwDecls + "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) { let i = gid.y * nwg.x * 256u + gid.x; y[i] = x[i]; }\n", "is not one the analysis knows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pw, err := AnalyzePointwise(c.src, "main")
			if c.reason == "" {
				if err != nil {
					t.Fatalf("AnalyzePointwise: %v; want pointwise", err)
				}
				if pw.Index == "" {
					t.Errorf("pointwise with an empty index")
				}
				return
			}
			var pe *PointwiseError
			if !errors.As(err, &pe) {
				// Some refusals come from Specialize itself (the source does
				// not reflect); those must still be errors.
				if err == nil {
					t.Fatalf("AnalyzePointwise accepted it; want a refusal containing %q", c.reason)
				}
				t.Fatalf("AnalyzePointwise = %v; want a *PointwiseError containing %q", err, c.reason)
			}
			if !strings.Contains(pe.Reason, c.reason) {
				t.Errorf("reason %q; want it to contain %q", pe.Reason, c.reason)
			}
		})
	}
}

// TestFuseRunsPartsInOrderUnderOneEntryPoint: the fused module specializes
// (what Device.Kernel does first), binds one variable per slot in group 0
// with read_write wherever any part writes the slot's buffer, and calls each
// part's body in order; a name both parts declare (Params, p) stays two
// names.
func TestFuseRunsPartsInOrderUnderOneEntryPoint(t *testing.T) {
	add, scale := shippedKernel(t, "add"), shippedKernel(t, "scale")
	// add(a=s0, b=s1, out=s2, p=s3), then scale(x=s2, y=s0, p=s4): scale
	// reads add's output and writes add's first input.
	src, err := Fuse([]FusePart{
		{Source: add, Entry: "add", Slots: []uint32{0, 1, 2, 3}, ReadWrite: []bool{true, false, false, false}},
		{Source: scale, Entry: "scale", Slots: []uint32{2, 0, 4}, ReadWrite: []bool{true, false, false}},
	})
	if err != nil {
		t.Fatal(err)
	}
	k, err := Specialize(src, FusedEntry, Options{})
	if err != nil {
		t.Fatalf("Specialize(fused): %v\n%s", err, src)
	}
	type res struct {
		Binding uint32
		Name    string
		Kind    ResourceKind
		Type    string
	}
	var got []res
	for _, r := range k.Resources {
		if r.Group != 0 {
			t.Errorf("%s in group %d; want 0", r.Name, r.Group)
		}
		got = append(got, res{r.Binding, r.Name, r.Kind, r.Type})
	}
	want := []res{
		{0, "f0_a", ResourceStorage, "array<f32>"},
		{1, "f0_b", ResourceReadOnlyStorage, "array<f32>"},
		{2, "f0_out", ResourceStorage, "array<f32>"},
		{3, "f0_p", ResourceUniform, "f0_Params"},
		{4, "f1_p", ResourceUniform, "f1_Params"},
		{5, "_sg_zero", ResourceUniform, "array<vec4<u32>, 16>"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fused resources (-want +got):\n%s\n%s", diff, src)
	}
	if k.WorkgroupSize != [3]uint32{256, 1, 1} {
		t.Errorf("workgroup size %v; want 256", k.WorkgroupSize)
	}
	// Each part after the first takes the builtins plus a zero word of its
	// own, which the compiler cannot see through: no load or arithmetic is
	// shared, moved or contracted across parts.
	call0 := strings.Index(src, "f0_add(_global_invocation_id, _num_workgroups);")
	call1 := strings.Index(src, "f1_scale(_global_invocation_id + vec3<u32>(_sg_zero[0][1]), _num_workgroups + vec3<u32>(_sg_zero[0][1]));")
	if call0 < 0 || call1 < call0 {
		t.Errorf("the fused entry point does not call add, then scale with its own zero words:\n%s", src)
	}
	if !strings.Contains(src, "@group(0) @binding(5) var<uniform> _sg_zero: array<vec4<u32>, 16>;") || FuseZeroBinding([]FusePart{{Slots: []uint32{0, 1, 2, 3}}, {Slots: []uint32{2, 0, 4}}}) != 5 {
		t.Errorf("the zero words are not bound one past the last slot:\n%s", src)
	}
	if strings.Contains(src, "Barrier") {
		t.Errorf("the fused module synchronizes invocations, which no part did:\n%s", src)
	}
	// Scale's body now writes through add's variable a.
	if !strings.Contains(src, "f0_a[i] = f1_p.a * f0_out[i];") {
		t.Errorf("scale's store was not renamed onto the shared slots:\n%s", src)
	}
}

// TestFuseRefusesMismatchedParts: parts with different indices or sharing a
// slot with different types cannot be fused; Fuse says so instead of
// writing a module that computes something else.
func TestFuseRefusesMismatchedParts(t *testing.T) {
	direct := pwDecls + "@compute @workgroup_size(256)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { y[id.x] = x[id.x]; }\n"
	words := "@group(0) @binding(0) var<storage, read> x: array<u32>;\n@group(0) @binding(1) var<storage, read_write> y: array<u32>;\n@compute @workgroup_size(256)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) { y[id.x] = x[id.x]; }\n"
	cases := []struct {
		name  string
		parts []FusePart
		want  string
	}{
		{"different index", []FusePart{
			{Source: shippedKernel(t, "add_one"), Entry: "add_one", Slots: []uint32{0, 1, 2}, ReadWrite: []bool{false, false, false}},
			{Source: direct, Entry: "main", Slots: []uint32{1, 3}, ReadWrite: []bool{false, false}},
		}, "index"},
		{"shared slot of two types", []FusePart{
			{Source: direct, Entry: "main", Slots: []uint32{0, 1}, ReadWrite: []bool{false, false}},
			{Source: words, Entry: "main", Slots: []uint32{1, 2}, ReadWrite: []bool{false, false}},
		}, "a shared binding needs one type"},
		{"not pointwise", []FusePart{
			{Source: shippedKernel(t, "copy"), Entry: "copy", Slots: []uint32{0, 1, 2}, ReadWrite: []bool{false, false, false}},
		}, "not pointwise"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, err := Fuse(c.parts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Fuse = %v (source %d bytes); want an error containing %q", err, len(src), c.want)
			}
		})
	}
}

// TestPointwiseIndexIsOneToOneOnlyOnItsDispatches: an index that folds the
// workgroup grid is one-to-one only on the dispatches it was written for;
// fusing dispatches where two invocations share an element would let one
// see the other's stores in an order the unfused graph does not have.
func TestPointwiseIndexIsOneToOneOnlyOnItsDispatches(t *testing.T) {
	main := func(index string) string {
		return pwDecls + "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {\n\tlet i = " + index + ";\n\ty[i] = x[i];\n}\n"
	}
	type dispatch struct{ x, y, z uint32 }
	cases := []struct {
		name, index string
		fold        Fold
		ok, not     []dispatch
	}{
		{"x alone", "id.x", Fold{Kind: FoldNone}, []dispatch{{70000, 1, 1}}, []dispatch{{4, 2, 1}, {4, 1, 2}}},
		{"folded over num_workgroups", "id.y * nwg.x * 64u + id.x", Fold{Kind: FoldGroups}, []dispatch{{65535, 65535, 1}}, []dispatch{{4, 1, 2}}},
		{"folded over a constant", "id.x + id.y * 65535u * 64u", Fold{Kind: FoldConstant, K: 65535 * 64}, []dispatch{{65535, 3, 1}, {70000, 1, 1}}, []dispatch{{65536, 2, 1}, {1, 1, 2}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pw, err := AnalyzePointwise(main(c.index), "main")
			if err != nil {
				t.Fatal(err)
			}
			if pw.Fold != c.fold {
				t.Errorf("fold %+v; want %+v", pw.Fold, c.fold)
			}
			for _, d := range c.ok {
				if !pw.OneToOne(d.x, d.y, d.z) {
					t.Errorf("OneToOne(%v) = false; the index %s differs between all its invocations", d, pw.Index)
				}
			}
			for _, d := range c.not {
				if pw.OneToOne(d.x, d.y, d.z) {
					t.Errorf("OneToOne(%v) = true; two invocations share index %s there", d, pw.Index)
				}
			}
		})
	}
}

// TestFusePartsOfOneKernelNameItsStructsAlike: parts of one kernel that
// share a slot of a struct type use that slot's values under the one type
// it is declared with. Each part keeps its own renamed declarations, but a
// later part that named its struct by its own prefix would copy an
// f0_Particle read from the shared slot into a var of f1_Particle, which
// OpenGL (GLSL compares struct types by name) refuses to compile, so
// EndCapture failed on GL for a chain of wgpu's boids kernel fused with
// itself.
func TestFusePartsOfOneKernelNameItsStructsAlike(t *testing.T) {
	src := `struct Particle { pos: vec2<f32>, vel: vec2<f32> }
alias Vel = vec2<f32>;
@group(0) @binding(0) var<storage, read_write> ps: array<Particle>;
fn step(p: Particle) -> Particle { var q: Particle = p; let v: Vel = q.vel; q.pos = q.pos + v; return q; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) { var p: Particle = ps[id.x]; ps[id.x] = step(p); }
`
	part := FusePart{Source: src, Entry: "main", Slots: []uint32{0}, ReadWrite: []bool{true}}
	fused, err := Fuse([]FusePart{part, part, part})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Specialize(fused, FusedEntry, Options{}); err != nil {
		t.Fatalf("Specialize(fused): %v\n%s", err, fused)
	}
	for k := range 3 {
		body := fused[strings.Index(fused, fmt.Sprintf("// part %d:", k)):]
		if next := strings.Index(body[1:], "// part "); next >= 0 {
			body = body[:next+1]
		}
		for _, want := range []string{
			"var p: f0_Particle = f0_ps[id.x];",
			fmt.Sprintf("fn f%d_step(p: f0_Particle) -> f0_Particle", k),
			"var q: f0_Particle = p;",
			"let v: f0_Vel = q.vel;",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("part %d must use the shared slot's struct as f0_Particle (%q):\n%s", k, want, body)
			}
		}
	}
}

// TestContextDependentMarksFloatComparisonsMinMaxFMAAndDivision: a float
// kernel that compares floats, takes their min or max (directly, in a
// helper, or through select of a comparison), calls fma or divides floats
// is context-dependent; one of float +, - and * and exp/tanh/sqrt, or one
// comparing or dividing only integers, is not.
func TestContextDependentMarksFloatComparisonsMinMaxFMAAndDivision(t *testing.T) {
	checkFlags(t, "ContextDependent", []flagCase{
		{"arithmetic", flagModule("", "b[i] = (a[i] * 2.0 + 1.0) * (a[i] - 3.0);"), false},
		{"division", flagModule("", "b[i] = (a[i] * 2.0 + 1.0) / (a[i] - 3.0);"), true},
		{"division assigned", flagModule("", "var x = a[i]; x /= 3.0; b[i] = x;"), true},
		{"float remainder", flagModule("", "b[i] = a[i] % 3.0;"), true},
		{"integer division", flagModule("", "u[i] = u[i] / 3u + u[i] % 7u; b[i] = a[i] + 1.0;"), false},
		{"gelu", flagModule("", "let x = a[i]; b[i] = 0.5 * x * (1.0 + tanh(0.7978846 * (x + 0.044715 * x * x * x))) + exp(x) + sqrt(abs(x));"), false},
		{"integer compare", flagModule("", "u[i] = select(1u, 2u, u[i] > 7u); b[i] = a[i] + 1.0;"), false},
		{"float compare", flagModule("", "b[i] = select(a[i], 0.0, a[i] > 0.0);"), true},
		{"min", flagModule("", "b[i] = min(a[i], 1.5);"), true},
		{"clamp in helper", flagModule("fn f(x: f32) -> f32 { return clamp(x, 0.0, 1.0); }\n", "b[i] = f(a[i]);"), true},
		{"fma", flagModule("", "b[i] = fma(a[i], 2.0, 1.0);"), true},
		{"vector max", flagModule("", "let v = max(vec2<f32>(a[i], 1.0), vec2<f32>(0.0)); b[i] = v.x;"), true},
	}, contextFlag)
}
