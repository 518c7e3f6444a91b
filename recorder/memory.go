package recorder

import (
	"math/bits"
	"sync/atomic"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/lockrank"
	"github.com/softgraph/softgraph/lifecycle"
)

// pageUsage is every storage page's usage: a Buffer can be bound as storage
// (or as a small uniform), hold indirect dispatch counts, and be the source
// or destination of copies.
const pageUsage = driver.UsageStorage | driver.UsageUniform | driver.UsageCopySrc | driver.UsageCopyDst | driver.UsageIndirect

// page is one whole native buffer from a stream's pool. A Buffer owns
// exactly one page and binds only its own size of it, so WGSL's arrayLength
// is right and no two Buffers share a native buffer (wgpu tracks usage per
// buffer: one read-only and one read-write binding of two ranges of one
// buffer in a dispatch is a usage conflict).
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
type page struct {
	pool       *pool
	buf        driver.Buffer // owned by the pool
	cap        uint64        // bytes
	persistent bool          // from the persistent (exact-fit) pool
	wrapped    bool          // an application's buffer (WrapBuffer): buf is not the pool's, never pooled or counted
	refs       atomic.Int32
	touch      atomic.Uint64 // token of the last open batch that counted this page
}

// ref adds a reference. Only a holder of a reference may add one.
func (p *page) ref() { p.refs.Add(1) }

// unref drops a reference and hands the page back on the last one.
func (p *page) unref() {
	if n := p.refs.Add(-1); n == 0 {
		p.pool.reclaim(p)
	} else if n < 0 {
		// A reference was dropped twice: a bug of ours. Refusing to go
		// below zero keeps the page from being handed out twice.
		p.refs.Add(1)
		p.pool.log("page reference count below zero (ignored)", p.pool)
	}
}

// pool is a stream's storage memory: normal size classes with free lists,
// and a persistent exact-fit pool for graph capture. It has its own mutex
// because pages come back from other goroutines (Buffer.Release) and other
// streams (a batch that used the page is submitted).
type pool struct {
	drv driver.Device
	max uint64 // the device's maxBufferSize
	log func(event string, p *pool)
	// freed is called after native buffers were released (trim, close, a
	// page coming back to a closed pool), under p.mu: bind groups cached
	// by any stream of the device may hold them (deviceStreams.groupsGone).
	freed func()

	mu     lockrank.Mutex // lockrank.Pool
	closed bool
	free   map[uint64][]*page // normal pool, by size class
	pfree  map[uint64][]*page // persistent pool, by exact size
	all    map[*page]struct{} // every page whose native buffer is alive
	primed []*page            // pages handed out while priming, held until BeginCapture

	reserved   uint64 // bytes of all pages
	inUse      uint64 // bytes of pages not on a free list
	persistRes uint64 // bytes of persistent pages
}

func newPool(drv driver.Device, max uint64, log func(string, *pool), freed func()) *pool {
	return &pool{mu: lockrank.Mutex{Rank: lockrank.Pool}, drv: drv, max: max, log: log, freed: freed, free: map[uint64][]*page{}, pfree: map[uint64][]*page{}, all: map[*page]struct{}{}}
}

// sizeClass rounds a normal allocation up: powers of two up to 1 MiB (at
// least 256 bytes), then quarter steps between powers of two, so a large
// buffer wastes at most 25%. Sizes are at most the device's maxBufferSize,
// which softgraph keeps at or below 2^62, so the rounding cannot overflow.
func sizeClass(size uint64) uint64 {
	if size <= 256 {
		return 256
	}
	if size <= 1<<20 {
		return 1 << bits.Len64(size-1)
	}
	top := uint64(1) << (bits.Len64(size-1) - 1) // largest power of two below size
	step := top / 4
	return (size + step - 1) / step * step
}

// alloc hands out a page of at least size bytes with one reference (the
// caller's Buffer). mode is the stream's lifecycle.PoolMode: normal size
// classes, or exact-fit persistent pages, held until BeginCapture while
// priming.
func (p *pool) alloc(size uint64, mode lifecycle.PoolMode) (*page, error) {
	persistent := mode != lifecycle.PoolNormal
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	key, lists := sizeClass(size), p.free
	if persistent {
		key, lists = size, p.pfree
	} else if key > p.max {
		key = size // the class would not fit the device; this size does
	}
	var pg *page
	if l := lists[key]; len(l) > 0 {
		pg = l[len(l)-1]
		lists[key] = l[:len(l)-1]
		p.inUse += pg.cap
	}
	p.mu.Unlock()

	grew := false
	if pg == nil {
		buf, err := p.drv.NewBuffer(key, pageUsage, "softgraph page")
		if err != nil {
			return nil, err
		}
		pg = &page{pool: p, buf: buf, cap: key, persistent: persistent}
		grew = true
	}
	pg.refs.Store(1)
	p.mu.Lock()
	if grew {
		if p.closed { // Close raced with the allocation
			p.mu.Unlock()
			pg.buf.Release()
			return nil, ErrClosed
		}
		p.all[pg] = struct{}{}
		p.reserved += pg.cap
		p.inUse += pg.cap
		if persistent {
			p.persistRes += pg.cap
		}
	}
	if mode == lifecycle.PoolPriming {
		pg.refs.Add(1)
		p.primed = append(p.primed, pg)
	}
	p.mu.Unlock()
	if grew && p.log != nil {
		p.log("pool grew", p)
	}
	return pg, nil
}

// reclaim takes back a page with no references: onto its free list, or,
// once the pool is closed, back to the device.
func (p *pool) reclaim(pg *page) {
	if pg.wrapped {
		pg.buf.Release() // softgraph's reference only (WrapBuffer)
		p.freed()        // caches of any stream may still bind it
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		if _, ok := p.all[pg]; ok {
			delete(p.all, pg)
			pg.buf.Release()
			p.freed()
		}
		return
	}
	p.inUse -= pg.cap
	if pg.persistent {
		p.pfree[pg.cap] = append(p.pfree[pg.cap], pg)
	} else {
		p.free[pg.cap] = append(p.free[pg.cap], pg)
	}
}

// endPriming drops the priming holds (BeginCapture, or a capture that ends
// early): the warmup's released pages return to the persistent free lists,
// where the capture run, making the same allocations, finds them.
func (p *pool) endPriming() {
	p.mu.Lock()
	primed := p.primed
	p.primed = nil
	p.mu.Unlock()
	for _, pg := range primed {
		pg.unref()
	}
}

// trim releases every page on a free list to the device and returns the
// bytes released. A free page has no references: nothing enqueued and not
// yet submitted uses it, and work already submitted keeps it alive inside
// wgpu-native until the GPU is done.
func (p *pool) trim() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var freed uint64
	for _, lists := range []map[uint64][]*page{p.free, p.pfree} {
		for class, l := range lists {
			for _, pg := range l {
				pg.buf.Release()
				delete(p.all, pg)
				freed += pg.cap
				p.reserved -= pg.cap
				if pg.persistent {
					p.persistRes -= pg.cap
				}
			}
			delete(lists, class)
		}
	}
	if freed > 0 {
		p.freed()
	}
	return freed
}

// close releases every free page to the device; pages still held (by a
// Buffer, a graph or a batch of any stream) are released when their last
// holder lets go. Buffers of the stream answer ErrClosed afterwards.
func (p *pool) close() {
	primed := func() []*page {
		p.mu.Lock()
		defer p.mu.Unlock()
		out := p.primed
		p.primed = nil
		return out
	}()
	for _, pg := range primed {
		pg.unref()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for _, lists := range []map[uint64][]*page{p.free, p.pfree} {
		for _, l := range lists {
			for _, pg := range l {
				delete(p.all, pg)
				pg.buf.Release()
			}
		}
	}
	p.free, p.pfree = nil, nil
	p.reserved, p.inUse, p.persistRes = 0, 0, 0
	p.freed()
}

// poolStats is a snapshot of a pool's accounting.
type poolStats struct {
	reserved, inUse, persistent uint64
	pages                       int
}

func (p *pool) stats() poolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return poolStats{reserved: p.reserved, inUse: p.inUse, persistent: p.persistRes, pages: len(p.all)}
}
