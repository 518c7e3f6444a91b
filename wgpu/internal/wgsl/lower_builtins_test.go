package wgsl

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuiltinFamiliesNameEachBuiltinOnce: builtinCalls merges the family
// tables, so a name in two families would be typed by whichever merged
// last, silently; every name must belong to exactly one family.
func TestBuiltinFamiliesNameEachBuiltinOnce(t *testing.T) {
	seen := map[string]int{}
	for i, family := range builtinFamilies() {
		for name := range family {
			if j, ok := seen[name]; ok {
				t.Errorf("builtin %s is in family %d and family %d; each builtin has one handler", name, j, i)
			}
			seen[name] = i
		}
	}
	if len(seen) != len(builtinCalls) {
		t.Errorf("builtinCalls has %d handlers, the families %d: builtinCalls is exactly the families merged", len(builtinCalls), len(seen))
	}
}

// TestConstructorCallsCoverEveryPredeclaredType: a call of a predeclared
// type is typed only when the table names it; vecN, matCxR and their
// aliases are recognised by vecName and matName, and the table must hold
// every spelling they accept.
func TestConstructorCallsCoverEveryPredeclaredType(t *testing.T) {
	var want []string
	for _, n := range "234" {
		for _, s := range []string{"", "i", "u", "f", "h"} {
			want = append(want, fmt.Sprintf("vec%c%s", n, s))
		}
		for _, r := range "234" {
			for _, s := range []string{"", "f", "h"} {
				want = append(want, fmt.Sprintf("mat%cx%c%s", n, r, s))
			}
		}
	}
	want = append(want, "bool", "i32", "u32", "f32", "f16", "array", "bitcast")
	calls := constructorCalls()
	var missing []string
	for _, name := range want {
		if calls[name] == nil {
			missing = append(missing, name)
		}
	}
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("constructors without a handler (-want +got):\n%s", diff)
	}
	if len(calls) != len(want) {
		t.Errorf("constructorCalls has %d names, want the %d predeclared constructors", len(calls), len(want))
	}
}
