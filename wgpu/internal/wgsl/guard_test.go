package wgsl

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGuardAddsAGuardInTheNextGroup: the variant is the module with one
// statement after the entry point's brace (lines keep their numbers) and two
// read-only resources in the group after the entry point's last; it
// specializes like any module, reflecting the original resources plus the
// guard's, with names that collide with nothing the module declares.
func TestGuardAddsAGuardInTheNextGroup(t *testing.T) {
	cases := []struct {
		name, src, entry string
		constants        map[string]float64
		group            uint32
		words, at        string
	}{
		{"one group", outDecl + useOut, "main", nil, 1, "softgraph_guard_words", "softgraph_guard_at"},
		{"no resources", "@compute @workgroup_size(1)\nfn main() {}\n", "main", nil, 0, "softgraph_guard_words", "softgraph_guard_at"},
		{"gap before group 2, unused group 3 elsewhere",
			"@group(2) @binding(5) var<storage, read_write> out: array<f32>;\n@group(3) @binding(0) var<storage, read_write> unused: array<f32>;\n" + useOut,
			"main", nil, 3, "", ""}, // group 3 is declared: refused below
		{"names taken, brace on its own line, builtins",
			outDecl + "const softgraph_guard_words = 1;\n@compute @workgroup_size(8)\nfn k(@builtin(global_invocation_id) softgraph_guard_at: vec3<u32>)\n{\n\tout[softgraph_guard_at.x] = f32(softgraph_guard_words);\n}\n",
			"k", nil, 1, "softgraph_guard_words2", "softgraph_guard_at2"},
		{"override-sized workgroup",
			"override n: u32;\n" + outDecl + "@compute @workgroup_size(n)\nfn main() { out[0] = 1.0; }\n",
			"main", map[string]float64{"n": 32}, 1, "softgraph_guard_words", "softgraph_guard_at"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Guard(c.src, c.entry, c.constants, false)
			if c.words == "" {
				if !errors.Is(err, ErrNotGuardable) {
					t.Fatalf("Guard = %v, want ErrNotGuardable", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Layout.Group != c.group {
				t.Errorf("group %d, want %d", g.Layout.Group, c.group)
			}
			orig, err := Specialize(c.src, c.entry, Options{Constants: c.constants})
			if err != nil {
				t.Fatal(err)
			}
			k, err := Specialize(g.Source, c.entry, Options{Constants: c.constants})
			if err != nil {
				t.Fatalf("the variant does not specialize: %v\n%s", err, g.Source)
			}
			want := append([]Resource(nil), orig.Resources...)
			want = append(want,
				Resource{Name: c.words, Group: c.group, Binding: 0, Kind: ResourceReadOnlyStorage, Type: "array<u32>", MinSize: 4, Access: AccessRead},
				Resource{Name: c.at, Group: c.group, Binding: 1, Kind: ResourceUniform, Type: "vec4<u32>", MinSize: 16})
			if d := cmp.Diff(want, k.Resources); d != "" {
				t.Errorf("variant resources (-want +got):\n%s", d)
			}
			if orig.Guarded || !k.Guarded {
				t.Errorf("Guarded: original %v, variant %v; want false, true", orig.Guarded, k.Guarded)
			}
			if d := cmp.Diff(orig.WorkgroupSize, k.WorkgroupSize); d != "" {
				t.Errorf("workgroup size (-want +got):\n%s", d)
			}
			src, vsrc := strings.Split(c.src, "\n"), strings.Split(g.Source, "\n")
			for i := range src {
				if strings.Contains(vsrc[i], "softgraph_guard") && !strings.Contains(src[i], "softgraph_guard") {
					if !strings.Contains(vsrc[i], "if ("+c.words+"["+c.at+".x] == 0u) { return; }") {
						t.Errorf("line %d: %q", i+1, vsrc[i])
					}
					continue
				}
				if vsrc[i] != src[i] {
					t.Errorf("line %d changed: %q → %q", i+1, src[i], vsrc[i])
				}
			}
		})
	}
}

// TestGuardRefusesWhatItCannotGuard: an entry point already in the last
// group, a module declaring the group the guard would take, and source
// Specialize refuses.
func TestGuardRefusesWhatItCannotGuard(t *testing.T) {
	for _, c := range []struct {
		name, src, entry string
		notGuardable     bool
	}{
		{"group 3 used", "@group(3) @binding(0) var<storage, read_write> out: array<f32>;\n" + useOut, "main", true},
		{"next group declared", outDecl + "@group(1) @binding(7) var<uniform> other: vec4<f32>;\n" + useOut, "main", true},
		{"no such entry", outDecl + useOut, "nope", false},
		{"not WGSL", "fn (", "main", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Guard(c.src, c.entry, nil, false)
			if err == nil {
				t.Fatal("Guard succeeded")
			}
			if got := errors.Is(err, ErrNotGuardable); got != c.notGuardable {
				t.Errorf("errors.Is(%v, ErrNotGuardable) = %v, want %v", err, got, c.notGuardable)
			}
		})
	}
}
