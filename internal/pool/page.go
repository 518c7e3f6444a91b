package pool

import (
	"sync/atomic"

	"github.com/softgraph/softgraph/internal/driver"
)

// Page is one whole native buffer from a stream's pool. A recorder Buffer
// owns exactly one page and binds only its own size of it, so WGSL's
// arrayLength is right and no two Buffers share a native buffer (wgpu tracks
// usage per buffer: one read-only and one read-write binding of two ranges
// of one buffer in a dispatch is a usage conflict).
//
// Ownership: refs counts every holder — the live Buffer wrapping it (1),
// each recording and graph pin set that binds it, each open (unsubmitted)
// batch of any stream that used it, a priming hold during GraphPrepare, and
// a call using it right now. Counting the open batches is what makes a
// released page wait until the work that used it is submitted: after
// submission the queue's order protects it. At zero the page goes back to
// its pool's free list, or, once the pool is closed, its native buffer is
// released; a closed stream never frees a page another stream, batch or
// graph still holds.
//
// The fields are unexported and read through methods the compiler inlines,
// so the launch path pays no more than a field load for them.
type Page struct {
	pool       *Pool
	buf        driver.Buffer // owned by the pool (wrapped: softgraph's reference to the application's buffer)
	cap        uint64        // bytes; fixed at creation
	persistent bool          // from the persistent (exact-fit) pool
	wrapped    bool          // an application's buffer (Pool.Wrap): never pooled or counted
	refs       atomic.Int32
	touch      atomic.Uint64 // token of the last open batch that counted this page
}

// Buffer is the page's native buffer. It is valid while the caller holds a
// reference.
func (p *Page) Buffer() driver.Buffer { return p.buf }

// Cap is the page's size in bytes: at least what Alloc was asked for (the
// size class, or the exact size in the persistent pool).
func (p *Page) Cap() uint64 { return p.cap }

// Ref adds a reference. Only a holder of a reference may add one.
func (p *Page) Ref() { p.refs.Add(1) }

// Unref drops a reference and hands the page back to its pool on the last
// one. The caller must not use the page after dropping its reference.
func (p *Page) Unref() {
	if n := p.refs.Add(-1); n == 0 {
		p.pool.reclaim(p)
	} else if n < 0 {
		// A reference was dropped twice: a bug of the caller's. Refusing
		// to go below zero keeps the page from being handed out twice.
		p.refs.Add(1)
		p.pool.log("page reference count below zero (ignored)", p.pool)
	}
}

// Touch records token (the recorder's open batch: stream and batch number)
// as the last batch that counted the page, and reports whether it already
// was: the batch then holds a reference and needs no second one.
func (p *Page) Touch(token uint64) (again bool) { return p.touch.Swap(token) == token }

// Touched reports whether token is the last batch that counted the page.
// Another batch may have counted it since, so false is not proof that
// token's batch does not hold it.
func (p *Page) Touched(token uint64) bool { return p.touch.Load() == token }
