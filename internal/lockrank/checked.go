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

// held maps a goroutine to the ranked locks it holds, in the order taken.
var held = struct {
	sync.Mutex
	by map[uint64][]*Mutex
}{by: map[uint64][]*Mutex{}}

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

// check panics if the calling goroutine holds a lock of m's rank or above.
func (m *Mutex) check(g uint64) {
	if m.Rank == 0 {
		return
	}
	held.Lock()
	defer held.Unlock()
	for _, h := range held.by[g] {
		if h.Rank >= m.Rank {
			panic(fmt.Sprintf("lockrank: taking a %s lock while holding a %s lock (the order is %s before %s, and one lock of a rank at a time)", m.Rank, h.Rank, min(m.Rank, h.Rank), max(m.Rank, h.Rank)))
		}
		if h.Rank.Leaf() {
			panic(fmt.Sprintf("lockrank: taking a %s lock while holding a %s lock (a %s lock is held while taking nothing)", m.Rank, h.Rank, h.Rank))
		}
	}
}

func (m *Mutex) acquired(g uint64) {
	if m.Rank == 0 {
		return
	}
	held.Lock()
	held.by[g] = append(held.by[g], m)
	held.Unlock()
}

// Lock checks the order, then locks.
func (m *Mutex) Lock() {
	g := goid()
	m.check(g)
	m.mu.Lock()
	m.acquired(g)
}

// TryLock checks the order, then tries the lock.
func (m *Mutex) TryLock() bool {
	g := goid()
	m.check(g)
	if !m.mu.TryLock() {
		return false
	}
	m.acquired(g)
	return true
}

// Unlock forgets the lock, whichever goroutine took it, then unlocks.
func (m *Mutex) Unlock() {
	if m.Rank != 0 {
		held.Lock()
		for g, list := range held.by {
			for i, h := range list {
				if h == m {
					list = append(list[:i], list[i+1:]...)
					if len(list) == 0 {
						delete(held.by, g)
					} else {
						held.by[g] = list
					}
					goto done
				}
			}
		}
	done:
		held.Unlock()
	}
	m.mu.Unlock()
}
