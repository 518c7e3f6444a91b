package recorder

import (
	"math/bits"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
)

// metaPageSize is the size of one uniform page of the metadata cache; a
// params blob larger than this gets a page of its own.
const metaPageSize = 64 << 10

// metaEntry is one cached params blob: its bytes live in page pg at off for
// size bytes (the blob zero-padded to 16, the uniform binding granule).
type metaEntry struct {
	key      string
	pg       *metaPage
	off      uint64
	size     uint64 // binding size
	pins     int    // recordings and graphs that use it; pinned entries are never evicted
	lastGen  uint64 // the stream batch that used it last
	lastUse  uint64 // cache clock at last use, for LRU
	listNext *metaEntry
	listPrev *metaEntry
}

// metaPage is one uniform buffer cut into slots of one size class.
type metaPage struct {
	buf   driver.Buffer // owned; released when the page is emptied by trim, or by close
	class uint64        // slot size
	live  int           // slots handed out (cached, or waiting for a submission)
}

type metaSlot struct {
	pg  *metaPage
	off uint64
}

// metaCache serves Params arguments from uniform slices keyed by content, so
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
type metaCache struct {
	drv   driver.Device
	align uint64
	limit int

	pages   []*metaPage
	bump    map[uint64]*metaPage // the page of each class still cutting fresh slots
	next    map[uint64]uint64    // its next fresh offset
	free    map[uint64][]metaSlot
	entries map[string]*metaEntry
	head    metaEntry // LRU ring sentinel: head.listNext is the oldest
	clock   uint64

	hits, misses, evictions uint64
	bytes                   uint64 // bytes of uniform pages
}

func newMetaCache(drv driver.Device, align uint32) *metaCache {
	m := &metaCache{
		drv:     drv,
		align:   uint64(max(align, 16)),
		limit:   512,
		bump:    map[uint64]*metaPage{},
		next:    map[uint64]uint64{},
		free:    map[uint64][]metaSlot{},
		entries: map[string]*metaEntry{},
	}
	m.head.listNext, m.head.listPrev = &m.head, &m.head
	return m
}

func (m *metaCache) unlink(e *metaEntry) {
	e.listPrev.listNext, e.listNext.listPrev = e.listNext, e.listPrev
	e.listNext, e.listPrev = nil, nil
}

func (m *metaCache) pushNewest(e *metaEntry) {
	e.listPrev, e.listNext = m.head.listPrev, &m.head
	m.head.listPrev.listNext = e
	m.head.listPrev = e
}

// classOf is the slot size class of a binding of size bytes.
func (m *metaCache) classOf(size uint64) uint64 {
	c := max(m.align, uint64(1)<<bits.Len64(size-1))
	return c
}

// lookup returns the entry for params, uploading it on a miss. gen is the
// stream's open batch and submitted the newest batch known to be submitted;
// mode decides whether eviction may happen; pending receives slots evicted
// while a batch not yet submitted uses them, to be freed after the open
// batch's submission (which follows every earlier one).
func (m *metaCache) lookup(params []byte, gen, submitted uint64, mode lifecycle.CacheMode, pending *[]metaSlot) (*metaEntry, error) {
	m.clock++
	if e, ok := m.entries[string(params)]; ok {
		m.hits++
		e.lastGen, e.lastUse = gen, m.clock
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
	if err := m.drv.WriteBuffer(s.pg.buf, s.off, data); err != nil {
		m.putSlot(s)
		return nil, err
	}
	e := &metaEntry{key: string(params), pg: s.pg, off: s.off, size: size, lastGen: gen, lastUse: m.clock}
	m.entries[e.key] = e
	m.pushNewest(e)
	if mode == lifecycle.CacheNormal {
		m.evict(submitted, pending)
	}
	return e, nil
}

// evict drops the oldest unpinned entries while the cache is over its limit.
func (m *metaCache) evict(submitted uint64, pending *[]metaSlot) {
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
func (m *metaCache) drop(e *metaEntry, submitted uint64, pending *[]metaSlot) {
	m.unlink(e)
	delete(m.entries, e.key)
	m.evictions++
	s := metaSlot{pg: e.pg, off: e.off}
	if e.lastGen > submitted {
		*pending = append(*pending, s)
	} else {
		m.putSlot(s)
	}
}

// unpin drops a recording's or graph's pin; the entry becomes evictable
// when no pin is left.
func (m *metaCache) unpin(e *metaEntry) { e.pins-- }

// release returns slots that were pending on a now-submitted batch.
func (m *metaCache) release(slots []metaSlot) {
	for _, s := range slots {
		m.putSlot(s)
	}
}

func (m *metaCache) putSlot(s metaSlot) {
	s.pg.live--
	m.free[s.pg.class] = append(m.free[s.pg.class], s)
}

func (m *metaCache) slot(class uint64) (metaSlot, error) {
	if l := m.free[class]; len(l) > 0 {
		s := l[len(l)-1]
		m.free[class] = l[:len(l)-1]
		s.pg.live++
		return s, nil
	}
	pg := m.bump[class]
	if pg == nil || m.next[class]+class > pg.buf.Size() {
		psize := max(uint64(metaPageSize), class)
		buf, err := m.drv.NewBuffer(psize, driver.UsageUniform|driver.UsageStorage|driver.UsageCopyDst, "softgraph params")
		if err != nil {
			return metaSlot{}, err
		}
		pg = &metaPage{buf: buf, class: class}
		m.pages = append(m.pages, pg)
		m.bump[class], m.next[class] = pg, 0
		m.bytes += psize
	}
	s := metaSlot{pg: pg, off: m.next[class]}
	m.next[class] += class
	pg.live++
	return s, nil
}

// trim evicts every unpinned entry no unsubmitted batch uses and gives
// back every page left with no live slot; it returns the bytes given back.
func (m *metaCache) trim(submitted uint64) uint64 {
	var pending []metaSlot
	for e := m.head.listNext; e != &m.head; {
		next := e.listNext
		if e.pins == 0 && e.lastGen <= submitted {
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
		freed += pg.buf.Size()
		m.bytes -= pg.buf.Size()
		pg.buf.Release()
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

func (m *metaCache) close() {
	for _, p := range m.pages {
		p.buf.Release()
	}
	m.pages, m.entries, m.free, m.bump, m.next = nil, nil, nil, nil, nil
	m.head.listNext, m.head.listPrev = &m.head, &m.head
}
