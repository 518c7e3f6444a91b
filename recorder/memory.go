package recorder

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/softgraph/softgraph/wgpu"
)

// pageUsage is every storage page's usage: a Buffer can be bound as storage
// (or as a small uniform), hold indirect dispatch counts, and be the source
// or destination of copies.
const pageUsage = wgpu.UsageStorage | wgpu.UsageUniform | wgpu.UsageCopySrc | wgpu.UsageCopyDst | wgpu.UsageIndirect

// page is one whole wgpu buffer from a stream's pool. A Buffer owns exactly
// one page and binds only its own size of it, so WGSL's arrayLength is right
// and no two Buffers share a wgpu buffer (wgpu tracks usage per buffer: one
// read-only and one read-write binding of two ranges of one buffer in a
// dispatch is a usage conflict).
//
// A page returns to its pool's free list when refs reaches zero. refs counts
// the live Buffer wrapping it (1), each recording or Graph that binds it, each
// open (unsubmitted) batch of any stream that encoded it, and a priming hold
// during GraphPrepare. Counting the open batches is what makes a released
// slice wait until the work that used it is submitted: after submission, the
// queue's order protects it.
type page struct {
	pool       *pool
	buf        *wgpu.Buffer // owned by the pool; released at pool close
	cap        uint64       // bytes
	persistent bool         // from the persistent (exact-fit) pool
	refs       atomic.Int32
	touch      atomic.Uint64 // token of the last open batch that counted this page
}

// ref adds a reference. Only a holder of a reference may add one.
func (p *page) ref() { p.refs.Add(1) }

// unref drops a reference and returns the page to its pool on the last one.
func (p *page) unref() {
	if n := p.refs.Add(-1); n == 0 {
		p.pool.reclaim(p)
	} else if n < 0 {
		panic("softgraph: page reference count below zero")
	}
}

// pool is a stream's storage memory: normal size classes with free lists,
// and a persistent exact-fit pool armed for graph capture. It has its own
// mutex because pages come back from other goroutines (Buffer.Release) and
// other streams (a batch that encoded the page is submitted).
type pool struct {
	dev *wgpu.Device
	log func(event string, p *pool)

	mu     sync.Mutex
	closed bool
	free   map[uint64][]*page // normal pool, by size class
	pfree  map[uint64][]*page // persistent pool, by exact size
	all    map[*page]struct{} // every page not yet released to wgpu
	// persistent routes allocations to the exact-fit pool (Prepare and
	// Capture). priming additionally holds every page handed out (Prepare),
	// so the warmup's working set stays reserved until BeginCapture.
	persistent bool
	priming    bool
	primed     []*page

	reserved   uint64 // bytes of all pages
	inUse      uint64 // bytes of pages not on a free list
	persistRes uint64 // bytes of persistent pages
}

func newPool(dev *wgpu.Device, log func(string, *pool)) *pool {
	return &pool{dev: dev, log: log, free: map[uint64][]*page{}, pfree: map[uint64][]*page{}, all: map[*page]struct{}{}}
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
// caller's Buffer).
func (p *pool) alloc(size uint64) (*page, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	key, lists := sizeClass(size), p.free
	if p.persistent {
		key, lists = size, p.pfree
	} else if key > p.dev.Info().Limits.MaxBufferSize {
		key = size // the class would not fit the device; this size does
	}
	var pg *page
	if l := lists[key]; len(l) > 0 {
		pg = l[len(l)-1]
		lists[key] = l[:len(l)-1]
		p.inUse += pg.cap
	}
	persistent := p.persistent
	p.mu.Unlock()

	grew := false
	if pg == nil {
		buf, err := p.dev.NewBuffer(key, pageUsage, "softgraph page")
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
	if p.priming {
		pg.refs.Add(1)
		p.primed = append(p.primed, pg)
	}
	p.mu.Unlock()
	if grew && p.log != nil {
		p.log("pool grew", p)
	}
	return pg, nil
}

// reclaim puts a page with no references back on its free list.
func (p *pool) reclaim(pg *page) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.inUse -= pg.cap
	if pg.persistent {
		p.pfree[pg.cap] = append(p.pfree[pg.cap], pg)
	} else {
		p.free[pg.cap] = append(p.free[pg.cap], pg)
	}
}

// arm switches allocation to the persistent pool with priming (GraphPrepare).
func (p *pool) arm() {
	p.mu.Lock()
	p.persistent, p.priming = true, true
	p.mu.Unlock()
}

// endPriming drops the priming holds (BeginCapture): the warmup's released
// slices return to the persistent free lists, where the capture run, making
// the same allocations, finds them.
func (p *pool) endPriming() {
	p.mu.Lock()
	primed := p.primed
	p.primed, p.priming = nil, false
	p.mu.Unlock()
	for _, pg := range primed {
		pg.unref()
	}
}

// disarm leaves persistent mode (EndCapture, or a capture that failed to
// open). Persistent free pages stay for the next capture.
func (p *pool) disarm() {
	p.endPriming()
	p.mu.Lock()
	p.persistent = false
	p.mu.Unlock()
}

// trim releases every page on a free list to wgpu and returns the bytes
// released. A free page has no references: nothing enqueued and not yet
// submitted uses it, and work already submitted keeps it alive inside
// wgpu-native until the GPU is done (Release, never Destroy).
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
	return freed
}

// close releases every page to wgpu. Callers have waited for the GPU.
// Buffers still wrapping pages answer ErrClosed afterwards.
func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for pg := range p.all {
		pg.buf.Release()
	}
	p.all, p.free, p.pfree, p.primed = nil, nil, nil, nil
	p.reserved, p.inUse, p.persistRes = 0, 0, 0
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
