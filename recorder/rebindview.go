package recorder

import (
	"fmt"

	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// RebindTexture returns a new graph that binds new wherever g binds old,
// without recapturing, as Rebind does for buffers: g is unchanged and stays
// valid, the two graphs share every bind group the rebinding does not
// touch, and each is released on its own. Textures are matched by identity
// (old may already be released by the caller); new must be live, of the
// graph's device, and fit every binding old had (dimension, sample type,
// storage format), checked like a Launch. A rebinding that would bind one
// texture both written and sampled in one dispatch is refused. Refused with
// lifecycle.ErrGraphState while the graph's stream is recording. On error
// nothing is made.
func (g *Graph) RebindTexture(old, new *Texture) (*Graph, error) {
	const op = lifecycle.Rebind
	if g == nil {
		return nil, argError(op, ErrInvalidArgument, "graph is nil")
	}
	if old == nil {
		return nil, argError(op, ErrInvalidArgument, "old texture is nil")
	}
	s := g.s
	if err := s.check(op); err != nil {
		return nil, err
	}
	if err := new.acquire(op, "new texture", s); err != nil {
		return nil, err
	}
	defer new.h.unref()
	return s.rebindViews(g, op, func(n *dispatchOp, j int) (bool, error) {
		a := &n.acc[j]
		if a.kind != accessTexture || a.tex != old {
			return false, nil
		}
		if err := textureFits(n.k.Resources()[j], new); err != nil {
			return false, argError(op, ErrInvalidArgument, "new texture at @group(%d) @binding(%d) of kernel %q: %v", a.group, a.binding, n.k.Entry(), err)
		}
		a.tex = new
		return true, nil
	}, fmt.Sprintf("texture (%v)", old))
}

// RebindSampler returns a new graph that binds new wherever g binds old,
// like RebindTexture. new must be live, of the graph's device, and a
// comparison sampler exactly where old was one.
func (g *Graph) RebindSampler(old, new *Sampler) (*Graph, error) {
	const op = lifecycle.Rebind
	if g == nil {
		return nil, argError(op, ErrInvalidArgument, "graph is nil")
	}
	if old == nil {
		return nil, argError(op, ErrInvalidArgument, "old sampler is nil")
	}
	s := g.s
	if err := s.check(op); err != nil {
		return nil, err
	}
	if why, sentinel := new.take(s); sentinel != nil {
		return nil, argError(op, sentinel, "new sampler %s", why)
	}
	defer new.h.unref()
	return s.rebindViews(g, op, func(n *dispatchOp, j int) (bool, error) {
		a := &n.acc[j]
		if a.kind != accessSampler || a.smp != old {
			return false, nil
		}
		if new.desc.Compare != old.desc.Compare {
			return false, argError(op, ErrInvalidArgument, "new sampler at @group(%d) @binding(%d) of kernel %q: a comparison sampler and a sampler are not interchangeable", a.group, a.binding, n.k.Entry())
		}
		a.smp = new
		return true, nil
	}, "sampler")
}

// rebindViews builds a graph from g with every access swap accepts
// rebound (textures and samplers: they are never copied, cleared, indirect
// counts or conditions, and how a body is gated does not depend on them,
// so the lowered nodes and the recording's own are rebound alike and
// nothing is lowered again). swap edits n.acc[j] in place on a private copy.
func (s *Stream) rebindViews(g *Graph, op lifecycle.Op, swap func(n *dispatchOp, j int) (bool, error), what string) (*Graph, error) {
	if err := s.check(op); err != nil {
		return nil, err
	}
	var ng *Graph
	err := s.eng.Do(op, func(*engine.Tx) (err error) {
		ng, err = s.rebindViewsLocked(g, op, swap, what)
		return err
	})
	return ng, err
}

// rebindViewsLocked is rebindViews in its transaction.
func (s *Stream) rebindViewsLocked(g *Graph, op lifecycle.Op, swap func(n *dispatchOp, j int) (bool, error), what string) (*Graph, error) {
	if g.released {
		return nil, argError(op, ErrReleased, "graph of %d dispatches was released", g.stats.Dispatches)
	}
	pins := newPinSet(s)
	fail := func(err error) (*Graph, error) {
		pins.unref()
		return nil, err
	}
	hit := false
	rebound := func(src []node) ([]node, error) {
		if src == nil {
			return nil, nil
		}
		nodes := make([]node, len(src))
		copy(nodes, src)
		for i := range nodes {
			d := dispatchOf(&nodes[i])
			if d == nil {
				continue
			}
			var touched [4]bool
			var n *dispatchOp // the private copy swap edits, made at the first view
			changed := false
			for j := range d.acc {
				if k := d.acc[j].kind; k != accessTexture && k != accessSampler {
					continue
				}
				if n == nil {
					n = d.clone().(*dispatchOp) // the old graph keeps its own
				}
				ok, err := swap(n, j)
				if err != nil {
					return nil, err
				}
				if ok {
					changed, touched[n.acc[j].group] = true, true
				}
			}
			if !changed {
				continue
			}
			hit = true
			if err := conflict(n.acc, n.ind); err != nil {
				return nil, argError(op, ErrInvalidArgument, "command %d (%s): %v", i, n.name(), err)
			}
			if err := n.regroup(s, op, touched, pins); err != nil {
				return nil, err
			}
			nodes[i].op = n
		}
		return nodes, nil
	}
	nodes, err := rebound(g.nodes)
	if err != nil {
		return fail(err)
	}
	raw, err := rebound(g.raw)
	if err != nil {
		return fail(err)
	}
	if !hit {
		return fail(argError(op, ErrInvalidArgument, "the graph does not bind the old %s; matched by identity", what))
	}
	// What the graph pinned besides its nodes (control flow's own
	// buffers), then fresh references on everything the new nodes use.
	for _, pg := range []*pool.Page{g.enablePage, g.gatePage, g.tablePage} {
		if pg != nil {
			pg.Ref()
			pins.addPage(pg)
		}
	}
	for _, list := range [][]node{nodes, raw} {
		for i := range list {
			pins.pinNode(&list[i])
		}
	}
	for _, r := range g.regions[1:] {
		if r.cond != nil {
			r.cond.Ref()
			pins.addPage(r.cond)
		}
	}
	ng := &Graph{s: s, nodes: nodes, raw: raw, regions: g.regions, pins: pins, enablePage: g.enablePage, gatePage: g.gatePage, tablePage: g.tablePage, table: g.table}
	ng.stats.CaptureTime = g.stats.CaptureTime
	if err := s.assemble(ng, false); err != nil {
		return fail(&Error{Op: op.String(), Err: err})
	}
	s.graphs[ng] = true
	return ng, nil
}
