package recorder

import (
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// metaPageSize is the size of one uniform page of the metadata cache; a
// params blob larger than this gets a page of its own.
const metaPageSize = 64 << 10

// metaEntry is one cached params blob: its bytes live at (buf, off) for
// size bytes (the blob zero-padded to 16, the uniform binding granule).
type metaEntry struct {
	key      string
	buf      *wgpu.Buffer
	off      uint64
	size     uint64 // binding size
	slot     uint64 // slot size (size rounded to the offset alignment)
	pins     int    // recordings and graphs that use it; pinned entries are never evicted
	lastGen  uint64 // the stream batch that used it last
	lastUse  uint64 // cache clock at last use, for LRU
	evicted  bool
	listNext *metaEntry
	listPrev *metaEntry
}

type metaSlot struct {
	buf       *wgpu.Buffer
	off, slot uint64
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
// An evicted slot is reused only after the batch that last used it is
// submitted: a queue write to the slot would otherwise overtake the
// unsubmitted launch that reads the old contents.
type metaCache struct {
	dev   *wgpu.Device
	align uint64
	limit int

	pages   []*wgpu.Buffer        // owned; released by close
	bump    uint64                // next free offset in the last page
	free    map[uint64][]metaSlot // reusable slots by slot size
	entries map[string]*metaEntry
	head    metaEntry // LRU ring sentinel: head.listNext is the oldest
	clock   uint64

	hits, misses, evictions uint64
	bytes                   uint64 // bytes of uniform pages
}

func newMetaCache(dev *wgpu.Device, limit int) *metaCache {
	m := &metaCache{
		dev:     dev,
		align:   uint64(max(dev.Info().Limits.MinUniformBufferOffsetAlignment, 16)),
		limit:   limit,
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

// lookup returns the entry for params, uploading it on a miss. gen is the
// stream's open batch; mode decides whether eviction may happen; pending
// receives slots evicted from the open batch, to be freed after submission.
func (m *metaCache) lookup(params []byte, gen uint64, mode lifecycle.CacheMode, pending *[]metaSlot) (*metaEntry, error) {
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
	slot := (size + m.align - 1) / m.align * m.align
	s, err := m.slot(slot)
	if err != nil {
		return nil, err
	}
	data := params
	if uint64(len(params)) != size {
		data = make([]byte, size)
		copy(data, params)
	}
	if err := m.dev.Write(s.buf, s.off, data); err != nil {
		m.free[slot] = append(m.free[slot], s)
		return nil, err
	}
	e := &metaEntry{key: string(params), buf: s.buf, off: s.off, size: size, slot: slot, lastGen: gen, lastUse: m.clock}
	m.entries[e.key] = e
	m.pushNewest(e)
	if mode == lifecycle.CacheNormal {
		m.evict(gen, pending)
	}
	return e, nil
}

// evict drops the oldest unpinned entries while the cache is over its limit.
func (m *metaCache) evict(gen uint64, pending *[]metaSlot) {
	for e := m.head.listNext; len(m.entries) > m.limit && e != &m.head; {
		next := e.listNext
		if e.pins == 0 {
			m.drop(e, gen, pending)
		}
		e = next
	}
}

func (m *metaCache) drop(e *metaEntry, gen uint64, pending *[]metaSlot) {
	m.unlink(e)
	delete(m.entries, e.key)
	e.evicted = true
	m.evictions++
	s := metaSlot{buf: e.buf, off: e.off, slot: e.slot}
	if e.lastGen == gen {
		*pending = append(*pending, s)
	} else {
		m.free[e.slot] = append(m.free[e.slot], s)
	}
}

// unpin drops a recording's or graph's pin. An entry already evicted while
// pinned cannot exist (pinned entries are never evicted), so an unpinned
// entry simply becomes evictable again.
func (m *metaCache) unpin(e *metaEntry) { e.pins-- }

// release returns slots that were pending on a now-submitted batch.
func (m *metaCache) release(slots []metaSlot) {
	for _, s := range slots {
		m.free[s.slot] = append(m.free[s.slot], s)
	}
}

func (m *metaCache) slot(size uint64) (metaSlot, error) {
	if l := m.free[size]; len(l) > 0 {
		s := l[len(l)-1]
		m.free[size] = l[:len(l)-1]
		return s, nil
	}
	if len(m.pages) == 0 || m.bump+size > m.pages[len(m.pages)-1].Size() {
		psize := max(uint64(metaPageSize), size)
		buf, err := m.dev.NewBuffer(psize, wgpu.UsageUniform|wgpu.UsageCopyDst, "softgraph params")
		if err != nil {
			return metaSlot{}, err
		}
		m.pages = append(m.pages, buf)
		m.bump = 0
		m.bytes += psize
	}
	s := metaSlot{buf: m.pages[len(m.pages)-1], off: m.bump, slot: size}
	m.bump += size
	return s, nil
}

func (m *metaCache) close() {
	for _, p := range m.pages {
		p.Release()
	}
	m.pages, m.entries, m.free = nil, nil, nil
	m.head.listNext, m.head.listPrev = &m.head, &m.head
}
