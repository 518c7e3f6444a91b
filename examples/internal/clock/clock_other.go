//go:build !windows

package clock

import "time"

var origin = time.Now()

// now is nanoseconds since the process's first reading, from Go's
// monotonic clock.
func now() int64 { return int64(time.Since(origin)) }
