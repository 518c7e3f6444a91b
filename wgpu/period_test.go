package wgpu

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPeriodBracketHoldsEveryPeriodTheHostTimesAllow: two timestamps 40 ms
// of ticks apart, the first written within [0, 3 ms] of host time and the
// second within [43, 45 ms], allow a period from 40/40 to 45/40 ns a tick;
// ticks of 2 ns (20 M of them) from 2.0 to 2.25.
func TestPeriodBracketHoldsEveryPeriodTheHostTimesAllow(t *testing.T) {
	at := func(ms float64) time.Time { return time.Unix(0, 0).Add(time.Duration(ms * float64(time.Millisecond))) }
	type bracket struct{ Lo, Hi float64 }
	got := []bracket{}
	for _, ticks := range []uint64{40e6, 20e6} {
		lo, hi := periodBracket(at(0), at(3), at(43), at(45), 1000, 1000+ticks)
		got = append(got, bracket{lo, hi})
	}
	want := []bracket{{1, 1.125}, {2, 2.25}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("periodBracket (-want +got):\n%s", diff)
	}
}
