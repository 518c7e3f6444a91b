package kernels

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every embedded kernel's WGSL agrees with its Go layout and params: the
// recorder's first use of a kernel would otherwise fail every If, While
// and CopyIndirect.
func TestEveryKernelAgreesWithItsWGSL(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatalf("the embedded kernels and their Go layouts must agree: %v", err)
	}
}

// The layouts are the bindings the WGSL files declare, and the params
// words the uniform structs' order. The recorder binds and fills what
// these say, so this pins the bindings and params words graphs have always
// used (graph files saved before name them).
func TestDerivedLayoutsAndWordsAreTheWGSLs(t *testing.T) {
	ro := func(b uint32) Binding { return Binding{Binding: b} }
	rw := func(b uint32) Binding { return Binding{Binding: b, Writable: true} }
	type got struct {
		Entry  string
		Layout any
		Words  []uint32
	}
	check := func(name string, g got, err error, want got) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := cmp.Diff(want, g); d != "" {
			t.Errorf("%s: the layout and words must be the WGSL's (-want +got):\n%s", name, d)
		}
	}

	g, err := Gate()
	check("Gate", got{g.Entry, g.Layout, g.Words(GateParams{CondWord: 1, Parent: 2, EnableWord: 3, First: 4, Count: 5})}, err, got{
		Entry:  "softgraph_gate",
		Layout: GateLayout{Cond: ro(0), Gate: rw(1), Table: ro(2), Params: ro(3), Enables: rw(4)},
		Words:  []uint32{1, 2, 3, 4, 5, 0, 0, 0},
	})
	f, err := Forward()
	check("Forward", got{f.Entry, f.Layout, f.Words(ForwardParams{SrcWord: 1, EnableWord: 2, Slot: 3})}, err, got{
		Entry:  "softgraph_forward",
		Layout: ForwardLayout{Counts: ro(0), Gate: rw(1), Params: ro(2), Enables: ro(3)},
		Words:  []uint32{1, 2, 3, 0},
	})
	c, err := Copy()
	check("Copy", got{c.Entry, c.Layout, c.Words(CopyParams{Src: 1, Dst: 2, Words: 3})}, err, got{
		Entry:  "softgraph_copy",
		Layout: CopyLayout{Src: ro(0), Dst: rw(1), Params: ro(2)},
		Words:  []uint32{1, 2, 3, 0},
	})
	cl, err := Clear()
	check("Clear", got{cl.Entry, cl.Layout, cl.Words(ClearParams{Dst: 2, Words: 3})}, err, got{
		Entry:  "softgraph_clear",
		Layout: ClearLayout{Dst: rw(0), Params: ro(1)},
		Words:  []uint32{0, 2, 3, 0},
	})
	ci, err := CopyIndirect()
	check("CopyIndirect", got{ci.Entry, ci.Layout, ci.Words(CopyRange{Src: 1, Dst: 2, Size: 3})}, err, got{
		Entry:  "softgraph_copy_indirect",
		Layout: CopyIndirectLayout{Src: ro(0), Dst: rw(1), Range: ro(2)},
		Words:  []uint32{1, 2, 3},
	})
	if d := cmp.Diff([]string{"src", "dst", "rng"}, InBindingOrder(ci, "src", "dst", "rng")); d != "" {
		t.Errorf("CopyIndirect's arguments must follow its bindings (-want +got):\n%s", d)
	}
}

// forwardWGSLReordered is the forwarder with its struct fields and its
// bindings in another order.
const forwardWGSLReordered = `
struct Forward {
	pad: u32,
	slot: u32,
	src_word: u32,
	enable_word: u32,
}
@group(1) @binding(3) var<storage, read> counts: array<u32>;
@group(0) @binding(7) var<storage, read_write> gate: array<u32>;
@group(1) @binding(0) var<uniform> f: Forward;
@group(0) @binding(2) var<storage, read> enables: array<u32>;
@compute @workgroup_size(1)
fn softgraph_forward() {}
`

// The layout and the words are derived from the text, not restated: the
// same Go types read from a reordered file bind and fill where it says.
func TestLayoutAndWordsFollowTheText(t *testing.T) {
	l := load[ForwardLayout, ForwardParams]("reordered.wgsl", forwardWGSLReordered, "softgraph_forward")
	if l.err != nil {
		t.Fatal(l.err)
	}
	want := ForwardLayout{
		Counts:  Binding{Group: 1, Binding: 3},
		Gate:    Binding{Group: 0, Binding: 7, Writable: true},
		Params:  Binding{Group: 1, Binding: 0},
		Enables: Binding{Group: 0, Binding: 2},
	}
	if d := cmp.Diff(want, l.k.Layout); d != "" {
		t.Errorf("the layout must be the reordered file's (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]uint32{0, 30, 10, 20}, l.k.Words(ForwardParams{SrcWord: 10, EnableWord: 20, Slot: 30})); d != "" {
		t.Errorf("the words must follow the reordered struct (-want +got):\n%s", d)
	}
	ci := load[CopyIndirectLayout, CopyRange]("reordered.wgsl", `
struct Range { src: u32, dst: u32, size: u32 }
@group(0) @binding(2) var<storage, read> src: array<u32>;
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@group(0) @binding(1) var<uniform> c: Range;
@compute @workgroup_size(64) fn softgraph_copy_indirect() {}
`, "softgraph_copy_indirect")
	if ci.err != nil {
		t.Fatal(ci.err)
	}
	if d := cmp.Diff([]string{"dst", "rng", "src"}, InBindingOrder(ci.k, "src", "dst", "rng")); d != "" {
		t.Errorf("the arguments must follow the reordered bindings (-want +got):\n%s", d)
	}
}

// A WGSL file and a Go layout that disagree, or text the reader does not
// accept, fail the derivation with an ErrLayout naming the culprit; none
// panics, so a bad kernel surfaces as an error of whatever uses it.
func TestMismatchedWGSLIsAnErrLayout(t *testing.T) {
	cases := []struct {
		name      string
		old, repl string // the edit to the gate kernel's text
		want      string // in the message
	}{
		{"renamed variable", "var<storage, read> cond:", "var<storage, read> cnd:", "variable cond"},
		{"renamed params field", "parent: u32", "parnt: u32", "field parent"},
		{"extra params field", "pad0: u32", "extra: u32", "field extra"},
		{"params field not u32", "first: u32", "first: i32", "first is i32"},
		{"extra variable", "@group(0) @binding(4)", "@group(0) @binding(5) var<storage, read> more: array<u32>;\n@group(0) @binding(4)", "var more"},
		{"two variables at one binding", "@binding(4)", "@binding(3)", "both at @group(0) @binding(3)"},
		{"params not a uniform", "var<uniform> g", "var<storage, read> g", "binds no uniform"},
		{"uniform not a struct", "var<uniform> g: Gate", "var<uniform> g: vec4<u32>", "not a struct"},
		{"unknown address space", "var<storage, read> table", "var<workgroup> table", "address space"},
		{"renamed entry point", "fn softgraph_gate(", "fn softgraph_gates(", "entry point softgraph_gate"},
		{"entry point not compute", "@compute @workgroup_size(64)", "", "entry point softgraph_gate"},
		{"unbalanced braces", "struct Gate {", "struct Gate {{", "unbalanced"},
		{"unterminated comment", "struct Gate {", "/* struct Gate {", "unterminated"},
		{"unbound variable", "@group(0) @binding(4) var", "var", "unreadable declaration"},
		{"binding attributes swapped", "@group(0) @binding(4)", "@binding(4) @group(0)", "unreadable declaration"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(gateWGSL, c.old) {
				t.Fatalf("the gate kernel no longer contains %q: update the case", c.old)
			}
			src := strings.Replace(gateWGSL, c.old, c.repl, 1)
			l := load[GateLayout, GateParams]("control.wgsl", src, "softgraph_gate")
			if !errors.Is(l.err, ErrLayout) || !strings.Contains(l.err.Error(), c.want) {
				t.Fatalf("a %s must fail with ErrLayout mentioning %q, got %v", c.name, c.want, l.err)
			}
			if !strings.Contains(l.err.Error(), "control.wgsl (softgraph_gate)") {
				t.Errorf("the error must name the file and entry point: %v", l.err)
			}
		})
	}
}

// Go types that do not describe a layout or params the reader can use are
// refused the same way: an untagged or non-Binding layout field, a params
// field of another type, a name the WGSL lacks.
func TestMismatchedGoTypesAreAnErrLayout(t *testing.T) {
	type untagged struct {
		Src, Dst, Params Binding
	}
	type missing struct {
		Src    Binding `wgsl:"source"`
		Dst    Binding `wgsl:"dst"`
		Params Binding `wgsl:"c"`
	}
	type wide struct {
		Src uint64 `wgsl:"src"`
	}
	type unknown struct {
		Count uint32 `wgsl:"count"`
	}
	type partial struct {
		Src Binding `wgsl:"src"`
	}
	type short struct {
		Src uint32 `wgsl:"src"`
		Dst uint32 `wgsl:"dst"`
	}
	for name, err := range map[string]error{
		"untagged layout":     load[untagged, CopyParams]("c.wgsl", copyWGSL, "softgraph_copy").err,
		"layout name missing": load[missing, CopyParams]("c.wgsl", copyWGSL, "softgraph_copy").err,
		"layout leaves out":   load[partial, CopyParams]("c.wgsl", copyWGSL, "softgraph_copy").err,
		"params not uint32":   load[CopyLayout, wide]("c.wgsl", copyWGSL, "softgraph_copy").err,
		"params name missing": load[CopyLayout, unknown]("c.wgsl", copyWGSL, "softgraph_copy").err,
		"params leave out":    load[CopyLayout, short]("c.wgsl", copyWGSL, "softgraph_copy").err,
	} {
		if !errors.Is(err, ErrLayout) {
			t.Errorf("%s: must fail with ErrLayout, got %v", name, err)
		}
	}
}
