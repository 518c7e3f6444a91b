package recorder

import (
	"fmt"

	"github.com/softgraph/softgraph/wgpu"
)

// Rebind points every binding of old in the graph at new instead (and the
// indirect counts, if old holds them), without recapturing: the decode-loop
// pattern of double-buffered inputs, or one captured step serving two
// requests. Only the affected bind groups are rebuilt. The graph then pins
// new and no longer pins old.
//
// new must be live, of old's size, and of the graph's device; old must be
// bound by the graph (it may already be released by the caller: the graph
// still holds it). A rebinding that would bind one buffer read-write and
// read-only in one dispatch is refused like the same Launch. Replays already
// enqueued keep the old bindings. Refused with lifecycle.ErrGraphState while
// the graph's stream is recording; Replay and Rebind are serialised by the
// stream's lock. On error the graph is unchanged.
func (g *Graph) Rebind(old, new *Buffer) error {
	if g == nil {
		return argError("Rebind", ErrInvalidArgument, "graph is nil")
	}
	s := g.s
	if err := s.check("Rebind"); err != nil {
		return err
	}
	if old == nil {
		return argError("Rebind", ErrInvalidArgument, "old buffer is nil")
	}
	if err := new.usable("Rebind", "new buffer", s); err != nil {
		return err
	}
	if old.s.dev != s.dev {
		return argError("Rebind", ErrForeignDevice, "old buffer (%d bytes) belongs to another device", old.size)
	}
	if new.size != old.size {
		return argError("Rebind", ErrInvalidArgument, "new buffer is %d bytes, old is %d; a rebinding keeps sizes", new.size, old.size)
	}
	if err := s.lock("Rebind"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if g.released {
		return argError("Rebind", ErrReleased, "graph of %d dispatches was released", g.stats.Dispatches)
	}
	if s.state.IsRecording() {
		return s.state.Refuse("rebind", "a graph cannot be rebound while its stream is recording")
	}
	if old.pg == new.pg {
		return nil
	}
	// Plan every change first, so a refusal or a failed bind group leaves
	// the graph as it was.
	type change struct {
		i      int
		access []access
		grp    *bindGroup
	}
	var changes []change
	undo := func() {
		for _, c := range changes {
			if c.grp != nil {
				c.grp.unref()
			}
		}
	}
	for i, n := range g.nodes {
		if !n.uses(old.pg) {
			continue
		}
		acc := make([]access, len(n.access))
		copy(acc, n.access)
		for j := range acc {
			if acc[j].pg == old.pg {
				acc[j].pg = new.pg
			}
		}
		if err := conflict(acc); err != nil {
			undo()
			return argError("Rebind", ErrInvalidArgument, "dispatch %d (%s): %v", i, n.k.Entry(), err)
		}
		grp, err := s.bindGroup(n.k, bindingsOf(acc))
		if err != nil {
			undo()
			return &Error{Op: "Rebind", Arg: fmt.Sprintf("dispatch %d (%s)", i, n.k.Entry()), Err: err}
		}
		changes = append(changes, change{i: i, access: acc, grp: grp})
	}
	if len(changes) == 0 {
		return argError("Rebind", ErrInvalidArgument, "the graph does not bind the old buffer (%d bytes)", old.size)
	}
	// A command buffer encoded ahead holds the old bindings.
	if g.pre != nil {
		g.pre.stop()
		g.pre = nil
	}
	for _, c := range changes {
		n := &g.nodes[c.i]
		n.access = c.access
		g.groups[c.i].unref()
		g.groups[c.i] = c.grp
		var ind *wgpu.Buffer
		for _, a := range c.access {
			if a.indirect {
				ind = a.pg.buf
			}
		}
		g.tasks.Set(c.i, n.k, c.grp.bg, n.d.x, n.d.y, n.d.z, ind, n.d.offset)
	}
	pinned := false
	for i, pg := range g.pages {
		if pg == new.pg {
			pinned = true
		}
		if pg == old.pg {
			g.pages[i] = nil
		}
	}
	g.pages = compactPages(g.pages)
	if !pinned {
		new.pg.ref()
		g.pages = append(g.pages, new.pg)
	}
	old.pg.unref()
	g.refreshStats()
	return nil
}

func (n *node) uses(pg *page) bool {
	for _, a := range n.access {
		if a.pg == pg {
			return true
		}
	}
	return false
}

// bindingsOf rebuilds a dispatch's bind group entries from its accesses
// (the indirect buffer is not a binding).
func bindingsOf(acc []access) []wgpu.Binding {
	out := make([]wgpu.Binding, 0, len(acc))
	for _, a := range acc {
		switch {
		case a.indirect:
		case a.meta != nil:
			out = append(out, wgpu.Binding{Buffer: a.meta.buf, Offset: a.meta.off, Size: a.meta.size})
		default:
			out = append(out, wgpu.Binding{Buffer: a.pg.buf, Size: a.size})
		}
	}
	return out
}

// conflict reports a page bound read-write and read-only (or as the
// indirect buffer) in one dispatch: wgpu refuses that usage conflict.
func conflict(acc []access) error {
	for i, a := range acc {
		for _, b := range acc[i+1:] {
			if a.pg != nil && a.pg == b.pg && (a.write != b.write || a.indirect != b.indirect) && (a.write || b.write) {
				return fmt.Errorf("one buffer would be bound read-write and read-only (or as the indirect buffer)")
			}
		}
	}
	return nil
}

func compactPages(ps []*page) []*page {
	out := ps[:0]
	for _, p := range ps {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// refreshStats recomputes the pinned-memory figures after a rebinding.
func (g *Graph) refreshStats() {
	distinct := map[*bindGroup]bool{}
	for _, grp := range g.groups {
		distinct[grp] = true
	}
	g.stats.BindGroups = len(distinct)
	g.stats.Buffers = len(g.pages)
	g.stats.RetainedBytes = g.stats.ParamsBytes
	for _, pg := range g.pages {
		g.stats.RetainedBytes += pg.cap
	}
}

// Capture records step into a Graph in one call: GraphPrepare, step once
// as the warmup (executed), BeginCapture, step again (recorded), EndCapture.
// Any failure aborts cleanly: the stream is back in NoCapture, usable and
// re-capturable, and nothing the attempt recorded is kept. An error step
// returns comes back wrapped (errors.Is finds it).
func (s *Stream) Capture(step func() error) (*Graph, error) {
	if step == nil {
		return nil, argError("Capture", ErrInvalidArgument, "step is nil")
	}
	if err := s.GraphPrepare(); err != nil {
		return nil, err
	}
	if err := step(); err != nil {
		s.abortCapture()
		return nil, fmt.Errorf("recorder: Capture: warmup step: %w", err)
	}
	if err := s.BeginCapture(); err != nil {
		return nil, err
	}
	if err := step(); err != nil {
		s.abortCapture()
		return nil, fmt.Errorf("recorder: Capture: recorded step: %w", err)
	}
	return s.EndCapture()
}

// abortCapture returns the stream to NoCapture from Prepare or Capture,
// discarding the recording and the errors queued inside the window (writes
// rejected for a graph that will not exist). Errors of the warmup, which
// executed, stay queued.
func (s *Stream) abortCapture() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec != nil {
		s.rec.discard(s)
		s.rec = nil
		s.errs = nil
	}
	s.mem.disarm()
	s.state.Abort()
	s.log.Debug().Msg("capture aborted")
}
