package clock

import (
	"testing"
	"time"
)

// TestResolutionIsFinerThanAMillisecond reads the clock until it advances
// and fails if the first step it sees is a millisecond or more (Go's
// time.Now on Windows steps by the timer tick) or if it ever goes back.
func TestResolutionIsFinerThanAMillisecond(t *testing.T) {
	for range 5 {
		a := Now()
		b := a
		for i := 0; b == a && i < 1e8; i++ {
			b = Now()
		}
		if step := b.Sub(a); step <= 0 || step >= time.Millisecond {
			t.Fatalf("the clock stepped by %v; want a step above 0 and below 1 ms", step)
		}
	}
}

// TestSinceFollowsSleep checks the clock's scale against a sleep: a clock
// off by a unit (µs taken for ns, or ticks for µs) fails by orders of
// magnitude. The sleep runs on another clock than this one (under wine a
// 30 ms sleep measured 29.87 ms on it), so a few milliseconds short pass.
func TestSinceFollowsSleep(t *testing.T) {
	a := Now()
	time.Sleep(30 * time.Millisecond)
	if d := Since(a); d < 25*time.Millisecond || d > 5*time.Second {
		t.Fatalf("Since after a 30 ms sleep = %v", d)
	}
}
