package recorder

import (
	"context"
	"errors"
	"fmt"

	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// MemoryStats is where a stream's GPU memory is.
type MemoryStats struct {
	Reserved      uint64 // bytes of all pool pages (wgpu buffers) the stream holds
	InUse         uint64 // bytes of pages held by live Buffers, graphs or unsubmitted work
	Free          uint64 // bytes of pages on free lists, ready for reuse
	Persistent    uint64 // bytes of pages from the persistent (capture) pool
	Pages         int    // number of pool pages
	GraphPinned   uint64 // bytes of pages pinned by live graphs (a page shared by two graphs counts once)
	Textures      int    // live textures made on this stream and still referenced (by the caller, a graph, or a call or batch using it)
	Graphs        int    // live graphs
	PerGraph      []GraphMemory
	Params        uint64 // bytes of the metadata cache's uniform pages
	ParamsEntries int    // cached params blobs
	ParamsHits    uint64
	ParamsMisses  uint64
	BindGroups    int // cached bind groups
	// Ramps of short graphs (WithPreEncode): graphs with one, their
	// command buffers encoded and not yet used, those planned at the last
	// sync point and still being encoded, and the replays so far that ran
	// from one instead of being encoded on the caller's path.
	Ramps       int
	RampBuffers int
	RampPending int
	RampReplays uint64
}

// GraphMemory is one live graph's share of MemoryStats.
type GraphMemory struct {
	Dispatches int
	Pinned     uint64 // bytes of pages and params slots the graph pins
}

func (m MemoryStats) String() string {
	return fmt.Sprintf("reserved=%d in_use=%d free=%d persistent=%d pages=%d graph_pinned=%d graphs=%d params=%d",
		m.Reserved, m.InUse, m.Free, m.Persistent, m.Pages, m.GraphPinned, m.Graphs, m.Params)
}

// MemoryStats reports the stream's memory: pools, graphs and caches (zero
// for a nil stream).
func (s *Stream) MemoryStats() MemoryStats {
	if s == nil {
		return MemoryStats{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.memoryStatsLocked()
}

func (s *Stream) memoryStatsLocked() MemoryStats {
	ps := s.mem.Stats()
	m := MemoryStats{
		Reserved:   ps.Reserved,
		InUse:      ps.InUse,
		Free:       ps.Reserved - ps.InUse,
		Persistent: ps.Persistent,
		Pages:      ps.Pages,
		Graphs:     len(s.graphs),
		BindGroups: len(s.groups.m),
	}
	if s.meta != nil {
		ps := s.meta.Stats()
		m.Params, m.ParamsEntries = ps.Bytes, ps.Entries
		m.ParamsHits, m.ParamsMisses = ps.Hits, ps.Misses
	}
	seen := map[*pool.Page]bool{}
	for g := range s.graphs {
		m.PerGraph = append(m.PerGraph, GraphMemory{Dispatches: g.stats.Dispatches, Pinned: g.stats.RetainedBytes})
		for _, pg := range g.pins.list {
			if !seen[pg] {
				seen[pg] = true
				m.GraphPinned += pg.Cap()
			}
		}
	}
	m.Textures = int(s.liveTextures.Load())
	m.Ramps, m.RampReplays = len(s.rampList), s.rampReplays
	for _, r := range s.rampList {
		ready, pending := s.ramps.Count(r.Ramp)
		m.RampBuffers += ready
		m.RampPending += pending
	}
	return m
}

// Trim gives the stream's free memory back to the device: every pool page
// no Buffer, graph or unsubmitted command holds, including the persistent
// pool a capture left warm (the next capture then allocates afresh), and
// every params uniform page no cached entry, graph or unsubmitted launch
// uses (unpinned params entries are evicted first). It returns the bytes
// released. Use it after a burst of large allocations, or after releasing
// graphs, in a long-lived program; the pools otherwise keep freed memory for
// reuse. Refused with lifecycle.ErrGraphState while a capture is prepared
// or recording (it would give back the working set the capture needs). It
// waits for the stream's submitted work with the lock given up; a capture
// begun meanwhile refuses the params half, and the pool bytes already
// given back are returned with that error.
func (s *Stream) Trim() (uint64, error) {
	const op = lifecycle.Trim
	if err := s.check(op); err != nil {
		return 0, err
	}
	var freed uint64
	err := s.eng.Do(op, func(tx *engine.Tx) error {
		// Cached bind groups hold their buffers alive inside wgpu-native;
		// drop the cache (groups a graph uses keep their own references,
		// and encoded work keeps what it uses) so trimmed pages are really
		// freed.
		s.groups.clear()
		freed = s.mem.Trim()
		// Every batch numbered below mine is submitted once the flush
		// returns, or held nothing: an entry last used by one of them can
		// go. (The newest submitted batch number is not that bound: the
		// batch a capture recorded in is never submitted, and its entries
		// would stay for good.) The flush waits with the lock given up and
		// asks again after: a capture begun meanwhile refuses the rest,
		// which would evict the entries it records with.
		if err := tx.HandOff(); err != nil {
			return &Error{Op: op.String(), Err: err}
		}
		mine := s.eng.Gen()
		if err := tx.Flush(context.Background()); err != nil {
			return s.readmitError(op, s.txError(err))
		}
		freed += s.meta.Trim(mine - 1)
		s.logPool("pool trimmed", s.mem)
		return nil
	})
	if err != nil {
		return freed, err
	}
	// The other streams' caches may bind pages just given back.
	s.shared.sweepGroups(s, true)
	return freed, nil
}

func (s *Stream) logPool(event string, p *pool.Pool) {
	if !s.log.Debug().Enabled() {
		return
	}
	st := p.Stats()
	s.log.Debug().Uint64("reserved", st.Reserved).Uint64("in_use", st.InUse).
		Uint64("persistent", st.Persistent).Int("pages", st.Pages).Msg(event)
}

// OutOfMemoryError is an allocation the device could not satisfy, with the
// stream's memory accounting at that moment. It wraps the device's error
// (matching wgpu.ErrOutOfMemory or wgpu.ErrValidation).
type OutOfMemoryError struct {
	Op    string
	Size  uint64
	Stats MemoryStats
	Err   error
}

func (e *OutOfMemoryError) Error() string {
	return fmt.Sprintf("recorder: %s: cannot allocate %d bytes (%s): %v", e.Op, e.Size, e.Stats, e.Err)
}

func (e *OutOfMemoryError) Unwrap() error { return e.Err }

func (s *Stream) allocError(op lifecycle.Op, size uint64, err error) error {
	if errors.Is(err, ErrClosed) {
		return &Error{Op: op.String(), Err: err}
	}
	var de *wgpu.DeviceError
	if errors.As(err, &de) {
		ps := s.mem.Stats()
		return &OutOfMemoryError{Op: op.String(), Size: size, Err: err, Stats: MemoryStats{
			Reserved: ps.Reserved, InUse: ps.InUse, Free: ps.Reserved - ps.InUse, Persistent: ps.Persistent, Pages: ps.Pages,
		}}
	}
	return &Error{Op: op.String(), Arg: fmt.Sprintf("size=%d", size), Err: err}
}
