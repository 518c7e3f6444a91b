package wgsl

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checksKernel indexes bindings every way Check follows: a runtime array
// in a struct, a fixed array, a vector inside an array, a let pointer to
// an element and to the whole binding, and a helper function; and arrays
// it leaves alone (a local array and a workgroup one).
const checksKernel = `struct Rows { n: u32, data: array<vec4<f32>>, }
@group(0) @binding(0) var<storage, read_write> rows: Rows;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<uniform> lut: array<vec4<u32>, 4>;
var<workgroup> tile: array<f32, 8>;

fn get(i: u32) -> f32 { return src[i]; }

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	var local: array<f32, 2>;
	local[id.x & 1u] = 1.0;
	tile[id.x & 7u] = local[0];
	let p = &rows.data[id.x];
	(*p)[lut[id.x & 3u].y & 3u] = get(src[id.x] > 0.0);
	let q = &rows.data;
	q[0][1] = tile[0];
}
`

// TestCheckWrapsEveryBindingIndexAndKeepsLines: every index into a
// binding (and only those) is wrapped in the check, with the binding's
// length (arrayLength for runtime arrays, the count for fixed ones and
// vectors), each site naming its binding, function and line; the lines
// keep their numbers; and the variant specializes, reflecting the
// original resources plus the checks' two in the next group.
func TestCheckWrapsEveryBindingIndexAndKeepsLines(t *testing.T) {
	src := strings.Replace(checksKernel, "get(src[id.x] > 0.0)", "get(id.x) + src[id.x]", 1)
	c, err := Check(src, "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	orig, mod := strings.Split(src, "\n"), strings.Split(c.Source, "\n")
	if len(mod) < len(orig) {
		t.Fatalf("the variant has %d lines, the source %d", len(mod), len(orig))
	}
	for i, want := range []string{
		"fn get(i: u32) -> f32 { return src[softgraph_check(u32(i), arrayLength(&src), 0u)]; }",
		"\tlet p = &rows.data[softgraph_check(u32(id.x), arrayLength(&rows.data), 1u)];",
		"\t(*p)[softgraph_check(u32(lut[softgraph_check(u32(id.x & 3u), 4u, 2u)].y & 3u), 4u, 3u)] = get(id.x) + src[softgraph_check(u32(id.x), arrayLength(&src), 4u)];",
		"\tq[softgraph_check(u32(0), arrayLength(q), 5u)][softgraph_check(u32(1), 4u, 6u)] = tile[0];",
	} {
		found := false
		for _, l := range mod[:len(orig)] {
			found = found || l == want
		}
		if !found {
			t.Errorf("line %d: want %q in the variant", i, want)
		}
	}
	for i, l := range orig {
		if strings.Contains(l, "local[") || strings.Contains(l, "tile[id") {
			if mod[i] != l {
				t.Errorf("line %d: a local or workgroup access was changed: %q", i+1, mod[i])
			}
		}
	}
	wantSites := []CheckSite{
		{Name: "src", Group: 0, Binding: 1, Function: "get", Line: 7, Col: 36, Indexed: "src", Of: "elements"},
		{Name: "rows", Group: 0, Binding: 0, Function: "main", Line: 14, Col: 21, Indexed: "rows.data", Of: "elements"},
		{Name: "lut", Group: 0, Binding: 2, Function: "main", Line: 15, Col: 11, Indexed: "lut", Of: "elements"},
		{Name: "rows", Group: 0, Binding: 0, Function: "main", Line: 15, Col: 7, Indexed: "(*p)", Of: "components"},
		{Name: "src", Group: 0, Binding: 1, Function: "main", Line: 15, Col: 48, Indexed: "src", Of: "elements"},
		{Name: "rows", Group: 0, Binding: 0, Function: "main", Line: 17, Col: 4, Indexed: "q", Of: "elements"},
		{Name: "rows", Group: 0, Binding: 0, Function: "main", Line: 17, Col: 7, Indexed: "q[0]", Of: "components"},
	}
	if d := cmp.Diff(wantSites, c.Sites); d != "" {
		t.Errorf("sites (-want +got):\n%s", d)
	}
	if d := cmp.Diff(CheckLayout{Group: 1, State: 0, At: 1}, c.Layout); d != "" {
		t.Errorf("layout (-want +got):\n%s", d)
	}
	k, err := Specialize(c.Source, "main", Options{})
	if err != nil {
		t.Fatalf("the variant does not specialize: %v", err)
	}
	var got []string
	for _, r := range k.Resources {
		got = append(got, r.Name)
	}
	if d := cmp.Diff([]string{"rows", "src", "lut", "softgraph_check_state", "softgraph_check_at"}, got); d != "" {
		t.Errorf("resources (-want +got):\n%s", d)
	}
}

// TestCheckOfAKernelWithoutBindingIndicesIsTheSource: nothing to check
// means no variant: the source unchanged and no sites, so the recorder
// binds nothing more.
func TestCheckOfAKernelWithoutBindingIndicesIsTheSource(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> x: u32;\n@compute @workgroup_size(1)\nfn main() { var a: array<u32, 2>; x = a[1]; }\n"
	c, err := Check(src, "main", nil)
	if err != nil || c.Source != src || len(c.Sites) != 0 {
		t.Fatalf("Check = %+v, %v; want the source and no sites", c, err)
	}
}

// TestCheckTakesTheFirstFreeGroupAfterTheEntrysOwn: the checks go in the
// first group after the entry point's highest that no declaration of the
// module takes (another entry point's bindings may sit in the next one);
// with none left up to @group(3) there is no variant (ErrNotCheckable).
func TestCheckTakesTheFirstFreeGroupAfterTheEntrysOwn(t *testing.T) {
	const use = "@compute @workgroup_size(1)\nfn main() { a[0] = 1u; }\n"
	for _, c := range []struct {
		name, decls string
		group       uint32 // 0: refused
	}{
		{"next free", "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n", 1},
		{"next declared by another entry's binding", "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n@group(1) @binding(0) var<storage, read_write> b: array<u32>;\n", 2},
		{"entry uses group 3", "@group(3) @binding(0) var<storage, read_write> a: array<u32>;\n", 0},
		{"groups after the entry's all declared", "@group(1) @binding(0) var<storage, read_write> a: array<u32>;\n@group(2) @binding(0) var<storage, read_write> b: array<u32>;\n@group(3) @binding(0) var<storage, read_write> c: array<u32>;\n", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Check(c.decls+use, "main", nil)
			if c.group == 0 {
				if !errors.Is(err, ErrNotCheckable) {
					t.Fatalf("Check = %v, want ErrNotCheckable", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Layout.Group != c.group {
				t.Fatalf("the checks took @group(%d), want @group(%d)", got.Layout.Group, c.group)
			}
			if _, err := Specialize(got.Source, "main", Options{}); err != nil {
				t.Fatalf("the variant does not specialize: %v", err)
			}
		})
	}
	if _, err := Check("fn f() {}", "main", nil); err == nil {
		t.Error("Check of a module without the entry point succeeded")
	}
}

// TestCheckWrapsTheEntryPoint: the entry point becomes a plain function
// (attributes blanked on their lines, renamed) called by a new entry point
// of the same name, attributes and parameters, which adds the
// global_invocation_id the checks need when the entry has none; a source
// that already contains the prefix (here in a comment) gets a numbered
// one. The variant keeps the workgroup size.
func TestCheckWrapsTheEntryPoint(t *testing.T) {
	src := "// softgraph_check\n@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n@compute\n@workgroup_size(4, 2)\nfn main(@builtin(local_invocation_index) li: u32) { a[li] = li; }\n"
	c, err := Check(src, "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(c.Source, "\n")
	wantHead := []string{
		"// softgraph_check",
		"@group(0) @binding(0) var<storage, read_write> a: array<u32>;",
		"",
		"",
		"fn softgraph_check2_entry( li: u32) { a[softgraph_check2(u32(li), arrayLength(&a), 0u)] = li; }",
	}
	if d := cmp.Diff(wantHead, lines[:5]); d != "" {
		t.Errorf("the original lines (-want +got):\n%s", d)
	}
	wantTail := "@compute @workgroup_size(4, 2)\nfn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) softgraph_check2_gid: vec3<u32>) {\n\tsoftgraph_check2_inv = softgraph_check2_gid;\n\tsoftgraph_check2_entry(li);\n\tsoftgraph_check2_flush();\n}\n"
	if !strings.HasSuffix(c.Source, wantTail) {
		t.Errorf("the wrapper: want the source to end with\n%s\ngot\n%s", wantTail, c.Source)
	}
	k, err := Specialize(c.Source, "main", Options{})
	if err != nil {
		t.Fatalf("the variant does not specialize: %v", err)
	}
	if k.WorkgroupSize != [3]uint32{4, 2, 1} {
		t.Errorf("workgroup size %v, want [4 2 1]", k.WorkgroupSize)
	}
}
