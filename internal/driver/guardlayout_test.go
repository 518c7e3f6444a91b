package driver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAtWordsPutsEachIndexWhereTheLayoutSays: the at vector of a guarded
// dispatch is built from the layout's components, not from a fixed order.
func TestAtWordsPutsEachIndexWhereTheLayoutSays(t *testing.T) {
	for _, c := range []struct {
		l    GuardLayout
		want []uint32
	}{
		{GuardLayout{EnableAt: 0, CondAt: 1}, []uint32{7, 9, 0, 0}},
		{GuardLayout{EnableAt: 2, CondAt: 3}, []uint32{0, 0, 7, 9}},
		{GuardLayout{EnableAt: 1, CondAt: 0}, []uint32{9, 7, 0, 0}},
	} {
		if diff := cmp.Diff(c.want, c.l.AtWords(7, 9)); diff != "" {
			t.Errorf("AtWords(7, 9) of enable at %d, cond at %d (-want +got):\n%s", c.l.EnableAt, c.l.CondAt, diff)
		}
	}
}
