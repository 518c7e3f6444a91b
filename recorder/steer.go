package recorder

import (
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// Rebind returns a new graph that binds new wherever g binds old (as a
// binding, the source or destination of a copy or clear, or indirect
// counts), without recapturing: the decode-loop pattern of double-buffered
// inputs, or one captured step serving several requests. g is unchanged
// and stays valid; the two graphs share every bind group and pin the
// rebinding does not touch, and only the affected bind groups are rebuilt
// (a captured graph with If or While gets its control flow lowered anew,
// with enable and gate buffers of its own, since how a body is skipped
// depends on what its dispatches bind). Release each graph when done with it.
//
// Buffers are matched by identity: old must be a Buffer g was captured with
// (it may already be released by the caller: the graph still holds its
// memory), new must be live, of old's size, and of the graph's device. A
// rebinding that would bind one buffer read-write and read-only in one
// dispatch, or copy a buffer onto itself, is refused like the same Launch
// or Copy. Refused with lifecycle.ErrGraphState while the graph's stream is
// recording. On error nothing is made.
func (g *Graph) Rebind(old, new *Buffer) (*Graph, error) {
	const op = lifecycle.Rebind
	if g == nil {
		return nil, argError(op, ErrInvalidArgument, "graph is nil")
	}
	s := g.s
	if err := s.check(op); err != nil {
		return nil, err
	}
	// Refused before admission: decided in a hold of its own (refused).
	if old == nil {
		return nil, s.refused(op, argError(op, ErrInvalidArgument, "old buffer is nil"))
	}
	if new != nil && new.size != old.size {
		return nil, s.refused(op, argError(op, ErrInvalidArgument, "new buffer is %d bytes, old is %d; a rebinding keeps sizes", new.size, old.size))
	}
	npg, err := new.acquire(op, "new buffer", s)
	if err != nil {
		return nil, s.refused(op, err)
	}
	defer npg.Unref()
	var ng *Graph
	err = s.eng.Do(op, func(*engine.Tx) (err error) {
		if g.released {
			return argError(op, ErrReleased, "graph of %d dispatches was released", g.stats.Dispatches)
		}
		if ng, err = s.rebind(g, old, new, npg); err != nil {
			return err
		}
		s.graphs[ng] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ng, nil
}

// rebind builds the rebound graph. The caller holds s.mu and a reference on
// npg, which it keeps.
func (s *Stream) rebind(g *Graph, old, new *Buffer, npg *pool.Page) (*Graph, error) {
	const op = lifecycle.Rebind
	pins := newPinSet(s)
	fail := func(err error) (*Graph, error) {
		pins.unref()
		return nil, err
	}
	// A recorded graph with control flow is lowered again from its
	// recording's own nodes, rebound: how a body is gated depends on what
	// its dispatches bind (a While whose first dispatch would now bind the
	// condition cannot latch it), so the old lowering may not carry over.
	relower := g.raw != nil && len(g.regions) > 1
	var nodes []node
	hit := false
	var err error
	if !relower {
		if nodes, hit, err = s.rebindNodes(g.recorded(), old, new, npg, pins); err != nil {
			return fail(err)
		}
	}
	// The recording's own nodes, which a capture replaying this graph
	// includes (a child graph with control flow), bind new too.
	var raw []node
	if g.raw != nil {
		var rawHit bool
		if raw, rawHit, err = s.rebindNodes(g.raw, old, new, npg, pins); err != nil {
			return fail(err)
		}
		hit = hit || rawHit
	}
	// An If or While that read its condition from old reads it from new
	// now (its gate dispatch was rebound above): the regions say so too,
	// or a saved file and the graph's description would still name old.
	regions := g.regions
	for i := 1; i < len(regions); i++ {
		if regions[i].condBuf != old {
			continue
		}
		if &regions[0] == &g.regions[0] {
			regions = append([]region(nil), g.regions...) // the old graph keeps its own
		}
		regions[i].cond, regions[i].condBuf = npg, new
		hit = true
	}
	if !hit {
		return fail(argError(op, ErrInvalidArgument, "the graph does not bind the old buffer (%v); buffers are matched by identity", old))
	}
	enablePage, gatePage, tablePage, table := g.enablePage, g.gatePage, g.tablePage, g.table
	if relower {
		rs := append([]region(nil), regions...)
		for i := range rs {
			rs[i].gates = nil
		}
		rec := &recording{pins: pins, nodes: raw, regions: rs}
		if nodes, regions, err = lowerRecording(s, rec); err != nil {
			return fail(err)
		}
		enablePage, gatePage, tablePage, table = rec.enablePage, rec.gatePage, rec.tablePage, rec.table
	}
	if err := fusedAliasing(nodes); err != nil {
		return fail(err)
	}
	ng := &Graph{s: s, nodes: nodes, raw: raw, regions: regions, pins: pins, enablePage: enablePage, gatePage: gatePage, tablePage: tablePage, table: table}
	// A fused graph fuses its rebound nodes again: what fuses depends on
	// which buffers alias (fusion.go).
	if g.fusion != nil {
		if err := s.fuseGraph(op, ng); err != nil {
			return fail(err)
		}
		pinUnfused(pins, nodes)
	}
	// Pin what the new nodes use: fresh references on everything.
	for i := range ng.nodes {
		pins.pinNode(&ng.nodes[i])
	}
	ng.stats.CaptureTime = g.stats.CaptureTime
	if err := s.assemble(ng, false); err != nil {
		return fail(&Error{Op: op.String(), Err: err})
	}
	return ng, nil
}

// rebindNodes returns a copy of nodes binding new (npg) wherever they bind
// old, and whether any did; bind groups it makes are pinned in pins. The
// caller holds s.mu.
func (s *Stream) rebindNodes(src []node, old, new *Buffer, npg *pool.Page, pins *pinSet) ([]node, bool, error) {
	nodes := make([]node, len(src))
	copy(nodes, src)
	hit := false
	for i := range nodes {
		op, changed, err := nodes[i].op.rebind(s, i, old, new, npg, pins)
		if err != nil {
			return nil, false, err
		}
		nodes[i].op = op
		hit = hit || changed
	}
	return nodes, hit, nil
}
