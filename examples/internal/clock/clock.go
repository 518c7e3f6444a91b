// Package clock is the examples' stopwatch: a monotonic clock with
// sub-microsecond resolution on every platform the examples time on.
//
// Why not time.Now: on Windows, Go's monotonic clock reads the kernel's
// interrupt time, which advances only at the timer tick (up to 15.6 ms;
// under wine, CI's Windows leg, a 5 ms pass of 150 dispatches measured 0).
// The benchmarks time passes of a few hundred microseconds, so there they
// read QueryPerformanceCounter instead. Elsewhere time.Now is already fine
// grained and is used as is.
package clock

import "time"

// Stamp is a reading of the clock.
type Stamp struct{ t int64 }

// Now reads the clock.
func Now() Stamp { return Stamp{now()} }

// Since is the time elapsed since s.
func Since(s Stamp) time.Duration { return Now().Sub(s) }

// Sub is the time from u to s.
func (s Stamp) Sub(u Stamp) time.Duration { return time.Duration(s.t - u.t) }
