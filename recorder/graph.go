package recorder

import (
	"time"

	"github.com/softgraph/softgraph/wgpu"
)

// Graph is a sealed, immutable recording of a stream's launches: prebuilt
// pipelines, bind groups and dispatches that Replay re-encodes in order.
// A replay saves the per-launch work of resolution (argument checks, params
// lookup and upload, bind group creation); it still encodes every dispatch,
// because a WebGPU command buffer cannot be submitted twice.
//
// What it keeps alive, until Release: every buffer page any recorded launch
// binds or reads indirect counts from (whoever allocated it: releasing a
// Buffer drops only the caller's reference), the params uniforms it uses,
// its bind groups, and its kernels (owned by the Device). Replay reads and
// writes those buffers' current contents at replay time, nothing else.
//
// A Graph belongs to the stream that captured it and replays there. Its
// methods are safe for concurrent use (Replay and Release take the stream's
// lock). Release graphs you are done with (Close releases the stream's
// graphs): a replayed graph keeps a goroutine that encodes its next replay.
type Graph struct {
	s        *Stream
	tasks    *wgpu.TaskList // C array; freed by Release
	nodes    []node
	groups   []*bindGroup
	pages    []*page
	metas    []*metaEntry
	stats    GraphStats
	released bool        // guarded by s.mu
	pre      *preencoder // the next replay, encoded ahead; nil until the first replay
}

// GraphStats describes a sealed graph.
type GraphStats struct {
	Dispatches    int           // recorded launches
	Kernels       int           // distinct kernels
	BindGroups    int           // distinct bind groups
	Buffers       int           // distinct buffer pages pinned
	RetainedBytes uint64        // bytes of the pinned pages and params slots
	ParamsBytes   uint64        // of which params (uniform) slots
	CaptureTime   time.Duration // from BeginCapture to EndCapture
}

func seal(s *Stream, rec *recording) *Graph {
	g := &Graph{s: s, tasks: rec.tasks, nodes: rec.nodes, groups: rec.groups}
	kernels := map[*wgpu.Kernel]bool{}
	distinct := map[*bindGroup]bool{}
	for i, n := range rec.nodes {
		kernels[n.k] = true
		distinct[rec.groups[i]] = true
	}
	for pg := range rec.pages {
		g.pages = append(g.pages, pg)
		g.stats.RetainedBytes += pg.cap
	}
	for e := range rec.metas {
		g.metas = append(g.metas, e)
		g.stats.ParamsBytes += e.slot
	}
	g.stats.RetainedBytes += g.stats.ParamsBytes
	g.stats.Dispatches = len(rec.nodes)
	g.stats.Kernels = len(kernels)
	g.stats.BindGroups = len(distinct)
	g.stats.Buffers = len(g.pages)
	g.stats.CaptureTime = time.Since(rec.start)
	return g
}

// Len is the number of recorded dispatches (0 for a nil graph).
func (g *Graph) Len() int {
	if g == nil {
		return 0
	}
	return g.stats.Dispatches
}

// Stats describes the graph (zero for a nil graph).
func (g *Graph) Stats() GraphStats {
	if g == nil {
		return GraphStats{}
	}
	return g.stats
}

// Stream is the stream that captured the graph.
func (g *Graph) Stream() *Stream { return g.s }

// Replay enqueues the recorded dispatches on the graph's stream, in order,
// after everything enqueued before it. It reads buffers at replay time:
// rewriting an input with Write between replays changes the output, and
// indirect dispatches read their counts when they execute. Many replays in a
// row without a sync are fine.
//
// The loop does no allocation, lookup or validation: it re-encodes the
// prebuilt pipelines, bind groups and counts, skips redundant pipeline
// changes, and submits in chunks (small first, so the GPU starts while the
// rest is encoded). The last chunk is submitted before Replay returns.
// From the second replay on, the command buffer was already encoded on a
// background goroutine while the previous replay ran (see
// WithPreEncode), and Replay only submits it.
//
// Called while the graph's stream is recording, Replay appends the graph's
// dispatches to that recording instead (a child graph): the new graph pins
// what this one pins. It fails with ErrReleased after Release and ErrClosed
// after the stream's Close.
func (g *Graph) Replay() error {
	if g == nil {
		return argError("Replay", ErrInvalidArgument, "graph is nil")
	}
	s := g.s
	if err := s.check("Replay"); err != nil {
		return err
	}
	// Closed before released: Close releases the stream's graphs, and a
	// Replay racing it must say the stream was closed.
	if err := s.lock("Replay"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if g.released {
		return argError("Replay", ErrReleased, "graph of %d dispatches was released", g.stats.Dispatches)
	}
	if s.state.IsRecording() {
		s.rec.include(g)
		return nil
	}
	if s.prof == nil && g.pre != nil {
		if r, ok := g.pre.take(); ok {
			if r.err == nil && !r.cb.Empty() {
				// Everything enqueued before the replay goes first.
				s.flushLocked()
				sub, err := s.dev.Submit(r.cb)
				if err != nil {
					return &Error{Op: "Replay", Err: err}
				}
				s.lastSub, s.submitted = sub, true
				g.pre.request()
				return nil
			}
			if r.err != nil {
				// Sealed graphs encode without errors; if this one did not,
				// say so and encode inline, where a failure is queued.
				s.log.Warn().Err(r.err).Msg("pre-encoding a replay failed; encoding inline")
			}
			r.cb.Release()
		}
	}
	if err := s.replayLocked(g.tasks); err != nil {
		return err
	}
	if s.cfg.preEncode {
		if g.pre == nil {
			var err error
			if g.pre, err = startPreencoder(s.dev, g.tasks); err != nil {
				// Pre-encoding is an optimisation; the replay itself is enqueued.
				s.log.Warn().Err(err).Msg("cannot start pre-encoding; replays encode inline")
				return nil
			}
		}
		g.pre.request()
	}
	return nil
}

// replayLocked encodes tasks in submission chunks. The caller holds s.mu.
func (s *Stream) replayLocked(tasks *wgpu.TaskList) error {
	n := tasks.Len()
	for i := 0; i < n; {
		if !s.enc.PassOpen() {
			if err := s.beginPass(); err != nil {
				return &Error{Op: "Replay", Err: err}
			}
		}
		end := min(n, i+s.nextSubmit-s.enc.Commands)
		s.enc.EncodeTasks(tasks, i, end)
		i = end
		if s.enc.Commands >= s.nextSubmit {
			s.flushLocked()
		}
	}
	// Submit the tail: the replay is then fully enqueued, the GPU works on it
	// while the caller goes on, and no later Write can overtake it.
	s.flushLocked()
	return nil
}

// include appends a sealed graph's dispatches to this recording, taking
// references on everything it binds.
func (r *recording) include(g *Graph) {
	for i, n := range g.nodes {
		grp := g.groups[i].ref()
		r.groups = append(r.groups, grp)
		r.nodes = append(r.nodes, n)
		for _, a := range n.access {
			if a.pg != nil {
				r.pin(a.pg)
			} else if a.meta != nil {
				r.pinMeta(a.meta)
			}
		}
		if n.d.indirect != nil {
			var ind *page
			for _, a := range n.access {
				if a.indirect {
					ind = a.pg
				}
			}
			r.tasks.AppendIndirect(n.k, grp.bg, ind.buf, n.d.offset)
		} else {
			r.tasks.Append(n.k, grp.bg, n.d.x, n.d.y, n.d.z)
		}
	}
}

// Release frees what the graph keeps alive. Replays already enqueued still
// compute what was captured: the stream submits them first, and the queue's
// order protects the memory from then on. Idempotent; every later Replay
// returns ErrReleased.
func (g *Graph) Release() {
	if g == nil {
		return
	}
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	g.releaseLocked()
}

func (g *Graph) releaseLocked() {
	if g.released {
		return
	}
	g.released = true
	s := g.s
	if g.pre != nil {
		g.pre.stop()
		g.pre = nil
	}
	if !s.closed.Load() || !s.enc.Empty() {
		s.flushLocked()
	}
	for _, grp := range g.groups {
		grp.unref()
	}
	for _, pg := range g.pages {
		pg.unref()
	}
	for _, e := range g.metas {
		s.meta.unpin(e)
	}
	g.tasks.Free()
	g.groups, g.pages, g.metas = nil, nil, nil
	delete(s.graphs, g)
	s.log.Debug().Int("dispatches", g.stats.Dispatches).Msg("graph released")
}
