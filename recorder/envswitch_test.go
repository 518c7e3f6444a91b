package recorder

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEnvSwitchReadsOnOffAndLeavesAnythingElseToTheDefault: the variables
// that switch a stream default (SOFTGRAPH_PREENCODE, SOFTGRAPH_FINISH_AHEAD)
// take 1/true and 0/false in any case; another value sets nothing.
func TestEnvSwitchReadsOnOffAndLeavesAnythingElseToTheDefault(t *testing.T) {
	type result struct{ On, Set bool }
	for v, want := range map[string]result{
		"1": {true, true}, "true": {true, true}, "TRUE": {true, true},
		"0": {false, true}, "false": {false, true}, "False": {false, true},
		"": {}, "yes": {}, "2": {},
	} {
		t.Setenv("SOFTGRAPH_TEST_SWITCH", v)
		on, set := envSwitch("SOFTGRAPH_TEST_SWITCH")
		if diff := cmp.Diff(want, result{on, set}); diff != "" {
			t.Errorf("envSwitch of %q (-want +got):\n%s", v, diff)
		}
	}
}
