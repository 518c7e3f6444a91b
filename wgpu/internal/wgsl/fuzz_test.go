package wgsl

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// FuzzSpecialize checks, for any module, entry name and single constant:
// Specialize returns and never panics; it fails only with this package's
// error types; and whatever it accepts, its own rewrite is accepted again,
// with no constants, reflecting to the same resources, workgroup size and
// workgroup storage; and the float analyses fusion uses do not fail on
// it. A rewrite that changed what the module means, or one
// that produced text our own parser refuses, breaks the last property.
func FuzzSpecialize(f *testing.F) {
	for _, tc := range specializeCases {
		key, val := "", 0.0
		if len(tc.constants) > 0 {
			key = slices.Sorted(maps.Keys(tc.constants))[0]
			val = tc.constants[key]
		}
		f.Add(tc.src, tc.entryName(), key, val)
	}
	for _, tc := range rewriteCases {
		f.Add(tc.src+rewriteEntry, "entry_", "", 0.0)
	}
	f.Add(remModule+"  a[x % 4] %= y; v %= 3; a[2] = -x % y * 2 + f(x) % (y % 3);"+remEnd, "remEntry", "", 0.0)
	f.Add(atomicUniformLoadModule, "main", "", 0.0)
	f.Add(layoutModule+"@group(0) @binding(0) var<storage, read_write> b: AlignedB;\n"+
		"@group(0) @binding(1) var<uniform> a: array<SizedA, N>;\n@compute @workgroup_size(1) fn main() { b.h = i32(a[0].u); }\n", "main", "", 0.0)
	f.Fuzz(func(t *testing.T, src, entry, key string, val float64) {
		if len(src) > 1<<20 {
			return
		}
		var constants map[string]float64
		if key != "" {
			constants = map[string]float64{key: val}
		}
		k, err := Specialize(src, entry, Options{Constants: constants})
		if err != nil {
			checkErrorType(t, err)
			return
		}
		if strings.HasPrefix(k.ContextReason, analysisFailed) {
			t.Fatalf("the float analyses failed on an accepted module: %s", k.ContextReason)
		}
		again, err := Specialize(k.Source, entry, Options{})
		if err != nil {
			t.Fatalf("Specialize accepted the module but refused its own rewrite: %v\nrewrite:\n%s", err, k.Source)
		}
		if diff := cmp.Diff(k.Resources, again.Resources); diff != "" {
			t.Errorf("the rewrite reflects to different resources (-first +rewrite):\n%s", diff)
		}
		if k.WorkgroupSize != again.WorkgroupSize || k.WorkgroupStorage != again.WorkgroupStorage {
			t.Errorf("the rewrite has workgroup size %v and storage %d; the module had %v and %d",
				again.WorkgroupSize, again.WorkgroupStorage, k.WorkgroupSize, k.WorkgroupStorage)
		}
		if again.Source != k.Source && again.Overrides == nil && len(k.Overrides) == 0 {
			t.Errorf("rewriting a module without overrides twice changed it again")
		}
		// The OpenGL rewrite (every i32 remainder into a helper call) may
		// refuse only with an *Error, and what it writes reads back to the
		// same resources.
		gl, err := Specialize(src, entry, Options{Constants: constants, OpenGL: true})
		if err != nil {
			checkErrorType(t, err)
			return
		}
		glAgain, err := Specialize(gl.Source, entry, Options{})
		if err != nil {
			t.Fatalf("Specialize refused its own OpenGL rewrite: %v\nrewrite:\n%s", err, gl.Source)
		}
		if diff := cmp.Diff(k.Resources, glAgain.Resources); diff != "" {
			t.Errorf("the OpenGL rewrite reflects to different resources (-first +rewrite):\n%s", diff)
		}
	})
}

// checkErrorType fails unless err is one of the package's error types,
// positioned inside the source when it is an *Error.
func checkErrorType(t *testing.T, err error) {
	t.Helper()
	var se *Error
	var ee *EntryError
	var oe *OverrideError
	switch {
	case errors.As(err, &se):
		if se.Line < 1 || se.Col < 1 || se.Msg == "" {
			t.Errorf("*Error %q has no position or message", err)
		}
	case errors.As(err, &ee), errors.As(err, &oe):
	default:
		t.Errorf("Specialize failed with a %T (%v); want *Error, *EntryError or *OverrideError", err, err)
	}
}

// TestLargeInputsFinishFast feeds Specialize megabyte-sized modules built
// to defeat a naive implementation: deep nesting, long operator chains,
// long chains of declarations and calls. Each must finish, succeeding or
// failing with an error, never exhausting the stack. The time bound guards
// against super-linear work, not speed: each input finishes in well under a
// second here, while a quadratic pass over 10^5 repeats needs 10^10 steps
// (minutes). It is wide because CI runs this beside other test binaries on
// two loaded cores, where one input once took 2.2 s.
func TestLargeInputsFinishFast(t *testing.T) {
	const linearBound = 30 * time.Second
	const n = 100_000
	repeat := func(parts ...string) string { return strings.Repeat(strings.Join(parts, ""), n) }
	var calls, consts, structs strings.Builder
	calls.WriteString("fn g0() -> f32 { return out[0]; }\n")
	consts.WriteString("const c0 = 1;\n")
	structs.WriteString("struct S0 { a: f32 }\n")
	for i := 1; i < n/4; i++ {
		calls.WriteString("fn g" + strconv.Itoa(i) + "() -> f32 { return g" + strconv.Itoa(i-1) + "(); }\n")
		consts.WriteString("const c" + strconv.Itoa(i) + " = c" + strconv.Itoa(i-1) + " + 1;\n")
		structs.WriteString("struct S" + strconv.Itoa(i) + " { a: S" + strconv.Itoa(i-1) + " }\n")
	}
	last := strconv.Itoa(n/4 - 1)
	inputs := map[string]string{
		"deep parentheses":          outDecl + "@compute @workgroup_size(" + repeat("(") + "1" + repeat(")") + ") fn main() { out[0] = 1.0; }",
		"deep blocks":               outDecl + "@compute @workgroup_size(1) fn main() " + repeat("{") + repeat("}"),
		"deep unary minus":          outDecl + "@compute @workgroup_size(1) fn main() { out[0] = " + repeat("-") + "1.0; }",
		"long sum":                  outDecl + "@compute @workgroup_size(1) fn main() { out[0] = 1.0" + repeat(" + out[0]") + "; }",
		"long member chain":         outDecl + "@compute @workgroup_size(1) fn main() { out[0] = a" + repeat(".x") + "; }",
		"deep templates":            outDecl + "alias T = " + repeat("array<") + "f32" + repeat(", 1>") + ";\n" + useOut,
		"long else-if chain":        outDecl + "@compute @workgroup_size(1) fn main() { if true {}" + repeat(" else if true {}") + " }",
		"many comments":             outDecl + repeat("/* c */ // d\n") + useOut,
		"deep nested comment":       outDecl + repeat("/*") + repeat("*/") + useOut,
		"unclosed templates":        outDecl + "@compute @workgroup_size(1) fn main() { let x = " + repeat("a<") + "1; }",
		"chain of calls":            outDecl + calls.String() + "@compute @workgroup_size(1) fn main() { out[1] = g" + last + "(); }",
		"chain of consts":           outDecl + consts.String() + "@compute @workgroup_size(c" + last + ") fn main() { out[0] = 1.0; }",
		"chain of structs":          structs.String() + "@group(0) @binding(0) var<storage, read_write> out: S" + last + ";\n@compute @workgroup_size(1) fn main() { _ = out; }",
		"many bindings":             repeat("@group(0) @binding(0) var<storage> b", "x", ": f32;\n"),
		"long template list":        outDecl + "alias T = array<f32" + repeat(", 1") + ">;\n" + useOut,
		"many tokens of everything": strings.Repeat(gameOfLife, 1<<20/len(gameOfLife)),
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := Specialize(src, "main", Options{})
			if err != nil {
				checkErrorType(t, err)
				t.Logf("%d bytes: %.200v", len(src), err)
			}
			if d := time.Since(start); d > linearBound {
				t.Errorf("Specialize took %v on %d bytes; it must stay linear", d, len(src))
			}
		})
	}
}

// BenchmarkSpecialize measures one Specialize of the Game of Life step
// (scan, parse, evaluate, reflect, rewrite); it allocates and caches
// nothing between iterations, so each one is a cold call.
func BenchmarkSpecialize(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Specialize(gameOfLife, "main", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
