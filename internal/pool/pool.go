package pool

import (
	"math/bits"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/lockrank"
	"github.com/softgraph/softgraph/lifecycle"
)

// pageUsage is every storage page's usage: a Buffer can be bound as storage
// (or as a small uniform), hold indirect dispatch counts, and be the source
// or destination of copies.
const pageUsage = driver.UsageStorage | driver.UsageUniform | driver.UsageCopySrc | driver.UsageCopyDst | driver.UsageIndirect

// Pool is a stream's storage memory: normal size classes with free lists,
// and a persistent exact-fit pool for graph capture. It has its own mutex
// because pages come back from other goroutines (Buffer.Release) and other
// streams (a batch that used the page is submitted). Its methods are safe
// for concurrent use.
type Pool struct {
	drv driver.Device
	max uint64 // the device's maxBufferSize
	log func(event string, p *Pool)
	// freed is called after native buffers were released (trim, close, a
	// page coming back to a closed pool, a wrapped page's last reference),
	// under mu except for wrapped pages: bind groups cached by any stream
	// of the device may hold them.
	freed func()

	mu     lockrank.Mutex // lockrank.Pool; guards everything below
	closed bool
	free   map[uint64][]*Page // normal pool, by size class
	pfree  map[uint64][]*Page // persistent pool, by exact size
	all    map[*Page]struct{} // every page whose native buffer is alive
	primed []*Page            // pages handed out while priming, held until EndPriming

	reserved   uint64 // bytes of all pages
	inUse      uint64 // bytes of pages not on a free list
	persistRes uint64 // bytes of persistent pages
}

// New returns an empty pool making its pages on drv, none larger than
// maxBufferSize (the device's limit). log is told of events worth a debug
// line ("pool grew", a reference dropped twice) and may read p.Stats; freed
// is called whenever the pool released native buffers, while the pool's
// lock is held, so it must not call back into the pool. Either may be nil.
func New(drv driver.Device, maxBufferSize uint64, log func(event string, p *Pool), freed func()) *Pool {
	if log == nil {
		log = func(string, *Pool) {}
	}
	if freed == nil {
		freed = func() {}
	}
	return &Pool{mu: lockrank.Mutex{Rank: lockrank.Pool}, drv: drv, max: maxBufferSize, log: log, freed: freed,
		free: map[uint64][]*Page{}, pfree: map[uint64][]*Page{}, all: map[*Page]struct{}{}}
}

// SizeClass rounds a normal allocation up: powers of two up to 1 MiB (at
// least 256 bytes), then quarter steps between powers of two, so a large
// buffer wastes at most 25%. Sizes are at most the device's maxBufferSize,
// which softgraph keeps at or below 2^62, so the rounding cannot overflow.
func SizeClass(size uint64) uint64 {
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

// Alloc hands out a page of at least size bytes with one reference (the
// caller's Buffer). mode is the stream's lifecycle.PoolMode, taken from the
// caller's admission: normal size classes (a class larger than the device
// allows falls back to size itself), or exact-fit persistent pages, each
// also held by the pool until EndPriming while priming.
//
// It fails with driver.ErrClosed after Close, and with the device's error
// (a driver.ErrOutOfMemory or driver.ErrValidation match) when no native
// buffer can be made; a failure changes no accounting.
func (p *Pool) Alloc(size uint64, mode lifecycle.PoolMode) (*Page, error) {
	persistent := mode != lifecycle.PoolNormal
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, driver.ErrClosed
	}
	key, lists := SizeClass(size), p.free
	if persistent {
		key, lists = size, p.pfree
	} else if key > p.max {
		key = size // the class would not fit the device; this size does
	}
	var pg *Page
	if l := lists[key]; len(l) > 0 {
		pg = l[len(l)-1]
		lists[key] = l[:len(l)-1]
		p.inUse += pg.cap
	}
	p.mu.Unlock()

	// A new native buffer is made without the lock: it may wait on the
	// device (on OpenGL, for its context), and pages coming back meanwhile
	// must not.
	grew := false
	if pg == nil {
		buf, err := p.drv.NewBuffer(key, pageUsage, "softgraph page")
		if err != nil {
			return nil, err
		}
		pg = &Page{pool: p, buf: buf, cap: key, persistent: persistent}
		grew = true
	}
	pg.refs.Store(1)
	p.mu.Lock()
	if grew {
		if p.closed { // Close raced with the allocation
			p.mu.Unlock()
			pg.buf.Release()
			return nil, driver.ErrClosed
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
	if grew {
		p.log("pool grew", p)
	}
	return pg, nil
}

// Wrap makes a page of an application's buffer (the recorder's
// Stream.WrapBuffer) with one reference. The page takes over the caller's
// reference to buf and releases it on its last Unref, calling the freed
// hook; it is never pooled, never counted in Stats, and outlives Close like
// any held page.
func (p *Pool) Wrap(buf driver.Buffer, size uint64) *Page {
	pg := &Page{pool: p, buf: buf, cap: size, wrapped: true}
	pg.refs.Store(1)
	return pg
}

// reclaim takes back a page with no references: onto its free list, or,
// once the pool is closed, back to the device.
func (p *Pool) reclaim(pg *Page) {
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

// EndPriming drops the priming holds (BeginCapture, or a capture that ends
// early): the warmup's released pages return to the persistent free lists,
// where the capture run, making the same allocations, finds them.
func (p *Pool) EndPriming() {
	p.mu.Lock()
	primed := p.primed
	p.primed = nil
	p.mu.Unlock()
	for _, pg := range primed {
		pg.Unref()
	}
}

// Trim releases every page on a free list to the device and returns the
// bytes released. A free page has no references: nothing enqueued and not
// yet submitted uses it, and work already submitted keeps it alive inside
// wgpu-native until the GPU is done. Held pages stay.
func (p *Pool) Trim() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var freed uint64
	for _, lists := range []map[uint64][]*Page{p.free, p.pfree} {
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

// Close drops the priming holds and releases every free page to the
// device; pages still held (by a Buffer, a graph or a batch of any stream)
// are released when their last holder lets go. Alloc fails with
// driver.ErrClosed afterwards; Stats reports no bytes, and as Pages the
// held pages not yet released. Close is idempotent.
func (p *Pool) Close() {
	primed := func() []*Page {
		p.mu.Lock()
		defer p.mu.Unlock()
		out := p.primed
		p.primed = nil
		return out
	}()
	for _, pg := range primed {
		pg.Unref()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for _, lists := range []map[uint64][]*Page{p.free, p.pfree} {
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

// Stats is a snapshot of a pool's accounting. Free bytes are Reserved -
// InUse.
type Stats struct {
	Reserved   uint64 // bytes of all pages whose native buffer is alive
	InUse      uint64 // bytes of pages not on a free list (held by someone)
	Persistent uint64 // bytes of pages from the persistent (exact-fit) pool
	Pages      int    // number of pages whose native buffer is alive
}

// Stats returns the pool's accounting now.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{Reserved: p.reserved, InUse: p.inUse, Persistent: p.persistRes, Pages: len(p.all)}
}
