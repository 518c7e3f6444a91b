//go:build lockrank

package lockrank

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"sync"
)

// Checked reports whether ranks are checked in this build.
const Checked = true

// Mutex is a sync.Mutex of a rank; in this build every Lock checks the
// lock order. Set Rank before first use; the zero rank is unchecked.
type Mutex struct {
	mu   sync.Mutex
	Rank Rank
}

// RWMutex is a sync.RWMutex of a rank; in this build every Lock and RLock
// checks the lock order (a reader holds the lock as a writer does). Set
// Rank before first use; the zero rank is unchecked.
type RWMutex struct {
	mu   sync.RWMutex
	Rank Rank
}

// holding is one ranked lock a goroutine holds: the lock, by address, and
// its rank.
type holding struct {
	lock any
	rank Rank
}

// held maps a goroutine to the ranked locks it holds, in the order taken.
var held = struct {
	sync.Mutex
	by map[uint64][]holding
}{by: map[uint64][]holding{}}

func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}

// check panics if goroutine g holds a lock of rank r or above, or a leaf.
func check(g uint64, r Rank) {
	if r == 0 {
		return
	}
	held.Lock()
	defer held.Unlock()
	for _, h := range held.by[g] {
		if h.rank >= r {
			panic(fmt.Sprintf("lockrank: taking a %s lock while holding a %s lock (the order is %s before %s, and one lock of a rank at a time)", r, h.rank, min(r, h.rank), max(r, h.rank)))
		}
		if h.rank.Leaf() {
			panic(fmt.Sprintf("lockrank: taking a %s lock while holding a %s lock (a %s lock is held while taking nothing)", r, h.rank, h.rank))
		}
	}
}

// acquired records that g holds lock, of rank r.
func acquired(g uint64, lock any, r Rank) {
	if r == 0 {
		return
	}
	held.Lock()
	held.by[g] = append(held.by[g], holding{lock, r})
	held.Unlock()
}

// forget drops lock from what goroutine g holds, or, when g does not hold
// it (a lock let go by another goroutine than took it), from whichever
// goroutine does.
func forget(g uint64, lock any, r Rank) {
	if r == 0 {
		return
	}
	held.Lock()
	defer held.Unlock()
	drop := func(g uint64) bool {
		list := held.by[g]
		for i, h := range list {
			if h.lock == lock {
				list = append(list[:i], list[i+1:]...)
				if len(list) == 0 {
					delete(held.by, g)
				} else {
					held.by[g] = list
				}
				return true
			}
		}
		return false
	}
	if drop(g) {
		return
	}
	for other := range held.by {
		if drop(other) {
			return
		}
	}
}

// Lock checks the order, then locks.
func (m *Mutex) Lock() {
	g := goid()
	check(g, m.Rank)
	m.mu.Lock()
	acquired(g, m, m.Rank)
}

// TryLock checks the order, then tries the lock.
func (m *Mutex) TryLock() bool {
	g := goid()
	check(g, m.Rank)
	if !m.mu.TryLock() {
		return false
	}
	acquired(g, m, m.Rank)
	return true
}

// Unlock forgets the lock, whichever goroutine took it, then unlocks.
func (m *Mutex) Unlock() {
	if m.Rank != 0 {
		forget(goid(), m, m.Rank)
	}
	m.mu.Unlock()
}

// Lock checks the order, then locks for writing.
func (m *RWMutex) Lock() {
	g := goid()
	check(g, m.Rank)
	m.mu.Lock()
	acquired(g, m, m.Rank)
}

// Unlock forgets the lock, then unlocks it for writing.
func (m *RWMutex) Unlock() {
	if m.Rank != 0 {
		forget(goid(), m, m.Rank)
	}
	m.mu.Unlock()
}

// RLock checks the order, then locks for reading.
func (m *RWMutex) RLock() {
	g := goid()
	check(g, m.Rank)
	m.mu.RLock()
	acquired(g, m, m.Rank)
}

// RUnlock forgets the calling goroutine's hold, then unlocks it for
// reading.
func (m *RWMutex) RUnlock() {
	if m.Rank != 0 {
		forget(goid(), m, m.Rank)
	}
	m.mu.RUnlock()
}
