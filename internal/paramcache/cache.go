// Package paramcache serves a stream's Params arguments from uniform
// buffer slices keyed by content, so that a loop launching with the same
// params uploads them once, and a graph binds them for its whole life.
//
// It owns the uniform pages it cuts slots from and nothing else: it never
// orders work (the caller says which batches are submitted), never takes a
// lock (its owner, one stream, guards it), and knows no graphs (a graph
// holds entries through Pin/Unpin).
//
// Costs: a hit is one map lookup and an LRU move; a miss writes the params
// through the queue once.
package paramcache

import (
	"math/bits"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
)

// pageSize is the size of one uniform page of the metadata cache; a
// params blob larger than this gets a page of its own.
const pageSize = 64 << 10

// Entry is one cached params blob: its bytes live in page pg at off for
// size bytes (the blob zero-padded to 16, the uniform binding granule).
type Entry struct {
	key      string
	Page     *Page  // the uniform page holding it
	Off      uint64 // its offset in Page
	Size     uint64 // binding size
	pins     int    // recordings and graphs that use it; pinned entries are never evicted
	LastGen  uint64 // the stream batch that used it last (the caller updates it as it binds)
	lastUse  uint64 // cache clock at last use, for LRU
	listNext *Entry
	listPrev *Entry
}

// Page is one uniform buffer cut into slots of one size class.
type Page struct {
	Buf   driver.Buffer // owned; released when the page is emptied by trim, or by close
	class uint64        // slot size
	live  int           // slots handed out (cached, or waiting for a submission)
}

// Slot is a slice of a page: an evicted entry's, waiting for the batch
// that last used it to be submitted before it is reused (Release).
type Slot struct {
	pg  *Page
	off uint64
}

// Cache serves Params arguments from uniform slices keyed by content, so
// a loop launching with the same params uploads them once. It belongs to one
// stream and is guarded by that stream's mutex.
//
// Modes follow lifecycle.State.CacheMode: in CacheNormal it is bounded and
// evicts the least recently used unpinned entry; in CacheCapture (the whole
// Prepare→Capture window) it caches everything and evicts nothing, and the
// entries a recording uses are pinned until its Graph is released.
//
// Memory: slots come in power-of-two size classes (at least the device's
// uniform offset alignment), each page holding slots of one class, so a
// freed slot serves any blob of its class and a page whose slots are all
// free can be given back (Trim). An evicted slot is reused only after the
// batch that last used it is submitted: a queue write to the slot would
// otherwise overtake the unsubmitted launch that reads the old contents.
type Cache struct {
	drv   driver.Device
	align uint64
	limit int

	pages   []*Page
	bump    map[uint64]*Page  // the page of each class still cutting fresh slots
	next    map[uint64]uint64 // its next fresh offset
	free    map[uint64][]Slot
	entries map[string]*Entry
	head    Entry // LRU ring sentinel: head.listNext is the oldest
	clock   uint64

	hits, misses, evictions uint64
	bytes                   uint64 // bytes of uniform pages
}

// New returns an empty cache whose slots meet align (at least 16, the
// uniform binding granule), holding at most limit unpinned entries in
// normal mode.
func New(drv driver.Device, align uint32, limit int) *Cache {
	m := &Cache{
		drv:     drv,
		align:   uint64(max(align, 16)),
		limit:   limit,
		bump:    map[uint64]*Page{},
		next:    map[uint64]uint64{},
		free:    map[uint64][]Slot{},
		entries: map[string]*Entry{},
	}
	m.head.listNext, m.head.listPrev = &m.head, &m.head
	return m
}

func (m *Cache) unlink(e *Entry) {
	e.listPrev.listNext, e.listNext.listPrev = e.listNext, e.listPrev
	e.listNext, e.listPrev = nil, nil
}

func (m *Cache) pushNewest(e *Entry) {
	e.listPrev, e.listNext = m.head.listPrev, &m.head
	m.head.listPrev.listNext = e
	m.head.listPrev = e
}

// classOf is the slot size class of a binding of size bytes.
func (m *Cache) classOf(size uint64) uint64 {
	c := max(m.align, uint64(1)<<bits.Len64(size-1))
	return c
}

// Lookup returns the entry for params, uploading it on a miss. gen is the
// stream's open batch and submitted the newest batch known to be submitted;
// mode decides whether eviction may happen; pending receives slots evicted
// while a batch not yet submitted uses them, to be freed after the open
// batch's submission (which follows every earlier one).
func (m *Cache) Lookup(params []byte, gen, submitted uint64, mode lifecycle.CacheMode, pending *[]Slot) (*Entry, error) {
	m.clock++
	if e, ok := m.entries[string(params)]; ok {
		m.hits++
		e.LastGen, e.lastUse = gen, m.clock
		m.unlink(e)
		m.pushNewest(e)
		return e, nil
	}
	m.misses++
	size := (uint64(len(params)) + 15) &^ 15
	s, err := m.slot(m.classOf(size))
	if err != nil {
		return nil, err
	}
	data := params
	if uint64(len(params)) != size {
		data = make([]byte, size)
		copy(data, params)
	}
	if err := m.drv.WriteBuffer(s.pg.Buf, s.off, data); err != nil {
		m.putSlot(s)
		return nil, err
	}
	e := &Entry{key: string(params), Page: s.pg, Off: s.off, Size: size, LastGen: gen, lastUse: m.clock}
	m.entries[e.key] = e
	m.pushNewest(e)
	if mode == lifecycle.CacheNormal {
		m.evict(submitted, pending)
	}
	return e, nil
}

// evict drops the oldest unpinned entries while the cache is over its limit.
func (m *Cache) evict(submitted uint64, pending *[]Slot) {
	for e := m.head.listNext; len(m.entries) > m.limit && e != &m.head; {
		next := e.listNext
		if e.pins == 0 {
			m.drop(e, submitted, pending)
		}
		e = next
	}
}

// drop evicts e. Its slot is reused at once only if the batch that last
// used it was submitted: a queue write to the slot would otherwise overtake
// that unsubmitted launch.
func (m *Cache) drop(e *Entry, submitted uint64, pending *[]Slot) {
	m.unlink(e)
	delete(m.entries, e.key)
	m.evictions++
	s := Slot{pg: e.Page, off: e.Off}
	if e.LastGen > submitted {
		*pending = append(*pending, s)
	} else {
		m.putSlot(s)
	}
}

// Pin makes e unevictable for a recording or graph, until its Unpin.
func (m *Cache) Pin(e *Entry) { e.pins++ }

// Unpin drops a recording's or graph's pin; the entry becomes evictable
// when no pin is left.
func (m *Cache) Unpin(e *Entry) { e.pins-- }

// Release returns slots that were pending on a now-submitted batch.
func (m *Cache) Release(slots []Slot) {
	for _, s := range slots {
		m.putSlot(s)
	}
}

func (m *Cache) putSlot(s Slot) {
	s.pg.live--
	m.free[s.pg.class] = append(m.free[s.pg.class], s)
}

func (m *Cache) slot(class uint64) (Slot, error) {
	if l := m.free[class]; len(l) > 0 {
		s := l[len(l)-1]
		m.free[class] = l[:len(l)-1]
		s.pg.live++
		return s, nil
	}
	pg := m.bump[class]
	if pg == nil || m.next[class]+class > pg.Buf.Size() {
		psize := max(uint64(pageSize), class)
		buf, err := m.drv.NewBuffer(psize, driver.UsageUniform|driver.UsageStorage|driver.UsageCopyDst, "softgraph params")
		if err != nil {
			return Slot{}, err
		}
		pg = &Page{Buf: buf, class: class}
		m.pages = append(m.pages, pg)
		m.bump[class], m.next[class] = pg, 0
		m.bytes += psize
	}
	s := Slot{pg: pg, off: m.next[class]}
	m.next[class] += class
	pg.live++
	return s, nil
}

// Trim evicts every unpinned entry no unsubmitted batch uses and gives
// back every page left with no live slot; it returns the bytes given back.
func (m *Cache) Trim(submitted uint64) uint64 {
	var pending []Slot
	for e := m.head.listNext; e != &m.head; {
		next := e.listNext
		if e.pins == 0 && e.LastGen <= submitted {
			m.drop(e, submitted, &pending)
		}
		e = next
	}
	var freed uint64
	keep := m.pages[:0]
	for _, pg := range m.pages {
		if pg.live > 0 {
			keep = append(keep, pg)
			continue
		}
		freed += pg.Buf.Size()
		m.bytes -= pg.Buf.Size()
		pg.Buf.Release()
		if m.bump[pg.class] == pg {
			delete(m.bump, pg.class)
			delete(m.next, pg.class)
		}
		l := m.free[pg.class]
		k := l[:0]
		for _, s := range l {
			if s.pg != pg {
				k = append(k, s)
			}
		}
		m.free[pg.class] = k
	}
	clear(m.pages[len(keep):])
	m.pages = keep
	return freed
}

func (m *Cache) Close() {
	for _, p := range m.pages {
		p.Buf.Release()
	}
	m.pages, m.entries, m.free, m.bump, m.next = nil, nil, nil, nil, nil
	m.head.listNext, m.head.listPrev = &m.head, &m.head
}

// Stats is a snapshot of the cache's accounting.
type Stats struct {
	Entries                 int
	Bytes                   uint64 // of uniform pages
	Hits, Misses, Evictions uint64
}

// Stats returns the cache's accounting.
func (m *Cache) Stats() Stats {
	return Stats{Entries: len(m.entries), Bytes: m.bytes, Hits: m.hits, Misses: m.misses, Evictions: m.evictions}
}

// Key is the params blob e caches.
func (e *Entry) Key() string { return e.key }

// Reserved is the bytes e's slot takes in its page (its size class).
func (e *Entry) Reserved() uint64 { return e.Page.class }
