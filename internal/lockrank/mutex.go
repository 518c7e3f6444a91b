//go:build !lockrank

package lockrank

import "sync"

// Mutex is a sync.Mutex of a rank. Set Rank before first use; the zero
// rank is unchecked.
type Mutex struct {
	sync.Mutex
	Rank Rank
}

// RWMutex is a sync.RWMutex of a rank. Set Rank before first use; the zero
// rank is unchecked.
type RWMutex struct {
	sync.RWMutex
	Rank Rank
}

// Checked reports whether ranks are checked in this build.
const Checked = false
