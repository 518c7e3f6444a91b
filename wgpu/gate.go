package wgpu

import (
	"sync"
	"sync/atomic"
)

// gate lets calls use a device's native handles while Close waits for them.
// Every call enters and leaves; Close sets the closing bit, waits until no
// call is inside, and only then releases native objects, so a Close can
// never pull a handle from under a call in progress. It is a counter, not a
// lock: a call may enter again from inside another (a driver method calling
// another), which a read lock would deadlock on once a writer waits.
type gate struct {
	n    atomic.Int64 // calls inside, plus closingBit once Close has begun
	once sync.Once
	idle chan struct{} // closed when the last call leaves after closing
}

const closingBit = int64(1) << 62

func newGate() gate { return gate{idle: make(chan struct{})} }

// enter admits a call, or reports false once Close has begun.
func (g *gate) enter() bool {
	if g.n.Add(1)&closingBit != 0 {
		g.leave()
		return false
	}
	return true
}

func (g *gate) leave() {
	if g.n.Add(-1) == closingBit {
		g.once.Do(func() { close(g.idle) })
	}
}

// closing reports whether Close has begun: long waits check it to give way.
func (g *gate) closing() bool { return g.n.Load()&closingBit != 0 }

// shut sets the closing bit and waits until no call is inside. It returns
// false if another Close got there first (that Close does the work).
func (g *gate) shut() bool {
	for {
		n := g.n.Load()
		if n&closingBit != 0 {
			return false
		}
		if g.n.CompareAndSwap(n, n|closingBit) {
			break
		}
	}
	if g.n.Load() == closingBit {
		g.once.Do(func() { close(g.idle) })
	}
	<-g.idle
	return true
}
