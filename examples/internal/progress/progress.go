// Package progress prints the examples' progress lines, so that a run of
// many seconds is never silent for long: a loop reports where it is at most
// every few seconds, which costs a clock reading per step and no output in
// a short run.
package progress

import (
	"fmt"
	"io"
	"time"
)

// Meter prints a progress line when a given time has passed since its last
// one (or since New). Its zero value, and a Meter on a nil writer, print
// nothing.
type Meter struct {
	w     io.Writer
	every time.Duration
	last  time.Time // when the last line was printed; only Printf changes it
}

// New returns a Meter printing to w at most once every every.
func New(w io.Writer, every time.Duration) *Meter {
	return &Meter{w: w, every: every, last: time.Now()}
}

// Printf prints the line format and args make (a newline is added) if
// every has passed since the last line, and says whether it printed.
func (m *Meter) Printf(format string, args ...any) bool {
	if m == nil || m.w == nil {
		return false
	}
	now := time.Now()
	if now.Sub(m.last) < m.every {
		return false
	}
	m.last = now
	fmt.Fprintf(m.w, format+"\n", args...)
	return true
}
