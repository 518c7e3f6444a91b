package envswitch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadTakesOnOffAndLeavesAnythingElseToTheDefault: the variables that
// switch a default (SOFTGRAPH_PREENCODE, SOFTGRAPH_FINISH_AHEAD,
// SOFTGRAPH_SHARED_FINISH) take 1/true and 0/false in any case; another
// value sets nothing.
func TestReadTakesOnOffAndLeavesAnythingElseToTheDefault(t *testing.T) {
	type result struct{ On, Set bool }
	for v, want := range map[string]result{
		"1": {true, true}, "true": {true, true}, "TRUE": {true, true},
		"0": {false, true}, "false": {false, true}, "False": {false, true},
		"": {}, "yes": {}, "2": {},
	} {
		t.Setenv("SOFTGRAPH_TEST_SWITCH", v)
		on, set := Read("SOFTGRAPH_TEST_SWITCH")
		if diff := cmp.Diff(want, result{on, set}); diff != "" {
			t.Errorf("Read of %q (-want +got):\n%s", v, diff)
		}
	}
}
