package recorder

import (
	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/graphfile"
	"github.com/softgraph/softgraph/internal/lower"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// dispatchOp is a recorded dispatch: its kernel, its bind groups, its
// workgroup counts or indirect source, and what each binding binds. The
// only kind of command fusion, predication and view rebinding work on.
type dispatchOp struct {
	k      driver.Kernel
	groups [4]*bindGroup
	d      Dispatch   // d.indirect is nil: the Buffer is kept as indBuf
	ind    *pool.Page // indirect counts (nil: dispatched by d's counts)
	indBuf *Buffer    // the Buffer they came from (nil: the recorder's own)
	acc    []access   // one per binding of k, in k's resource order
}

func (d *dispatchOp) name() string   { return kernelName(d.k) }
func (d *dispatchOp) detail() string { return d.d.label() }

func (d *dispatchOp) uses(use func(bufferUse)) {
	for i := range d.acc {
		if a := &d.acc[i]; a.kind == accessBuffer {
			// A read_write binding reads too.
			use(bufferUse{pg: a.pg, buf: a.buf, size: a.size, bound: true, read: true, write: a.write})
		}
	}
	if d.ind != nil {
		use(bufferUse{pg: d.ind, buf: d.indBuf, read: true})
	}
}

func (d *dispatchOp) pin(p *pinSet) {
	for j := range d.acc {
		a := &d.acc[j]
		switch a.kind {
		case accessBuffer:
			a.pg.Ref()
		case accessTexture:
			a.tex.h.ref()
		case accessSampler:
			a.smp.h.ref()
		}
		p.pinAccess(a)
	}
	if d.ind != nil {
		d.ind.Ref()
		p.addPage(d.ind)
	}
	for _, grp := range d.groups {
		if grp != nil {
			p.addGroup(grp.ref())
		}
	}
}

func (d *dispatchOp) encode(p driver.Program) error {
	var stack [4]driver.BindGroup
	groups := stack[:d.k.Groups()]
	for j := range groups {
		if d.groups[j] != nil {
			groups[j] = d.groups[j].bg
		}
	}
	if d.ind != nil {
		return p.DispatchIndirect(d.k, groups, d.ind.Buffer(), d.d.offset)
	}
	return p.Dispatch(d.k, groups, d.d.x, d.d.y, d.d.z)
}

func (d *dispatchOp) tally(t *tally) {
	t.dispatches++
	if t.launches[d.k] == 0 {
		t.kernels = append(t.kernels, d.k)
	}
	t.launches[d.k]++
	for _, grp := range d.groups {
		if grp != nil {
			t.groups[grp] = true
		}
	}
}

func (d *dispatchOp) plan(c *lower.Command, cond *pool.Page) {
	c.Kind, c.Indirect, c.Groups = lower.Dispatch, d.ind != nil, [3]uint32{d.d.x, d.d.y, d.d.z}
	if cond == nil {
		return
	}
	for _, a := range d.acc {
		if a.kind == accessBuffer && a.pg == cond {
			c.BindsCondition = true
		}
	}
}

// rebind swaps old for new in the bindings and the indirect source, and
// makes the bind groups it touched again.
func (d *dispatchOp) rebind(s *Stream, i int, old, new *Buffer, npg *pool.Page, pins *pinSet) (nodeOp, bool, error) {
	const op = lifecycle.Rebind
	var touched [4]bool
	var n *dispatchOp // the rebound copy, made at the first change
	for j := range d.acc {
		if d.acc[j].buf == old {
			if n == nil {
				n = d.clone().(*dispatchOp) // the old graph keeps its own
			}
			n.acc[j].buf, n.acc[j].pg = new, npg
			touched[n.acc[j].group] = true
		}
	}
	if d.indBuf == old {
		if n == nil {
			n = d.clone().(*dispatchOp)
		}
		n.ind, n.indBuf = npg, new
	}
	if n == nil {
		return d, false, nil
	}
	if err := conflict(n.acc, n.ind); err != nil {
		if n.k != nil && n.k.Guarded() {
			// Only a loaded graph gets here (a captured one is lowered
			// again from its recording): its lowering is all it has.
			return nil, false, argError(op, ErrInvalidArgument, "command %d (%s, an If or While body dispatch run through its guarded variant, whose guard binds the condition and the enable buffer): %v; a loaded graph keeps its control flow as lowered when saved, so this rebinding cannot be lowered anew: capture the step instead", i, n.name(), err)
		}
		return nil, false, argError(op, ErrInvalidArgument, "command %d (%s): %v", i, n.name(), err)
	}
	if err := n.regroup(s, op, touched, pins); err != nil {
		return nil, false, err
	}
	return n, true, nil
}

// regroup makes again the bind groups of d marked touched, from d's
// accesses, pinned in pins. The caller holds s.mu.
func (d *dispatchOp) regroup(s *Stream, op lifecycle.Op, touched [4]bool, pins *pinSet) error {
	for grp, t := range touched {
		if !t {
			continue
		}
		var one [4]*bindGroup
		acc := make([]access, 0, len(d.acc))
		for _, a := range d.acc {
			if int(a.group) == grp {
				acc = append(acc, a)
			}
		}
		if err := s.bindGroups(op, d.k, acc, &one); err != nil {
			return err
		}
		d.groups[grp] = one[grp]
		pins.addGroup(one[grp])
	}
	return nil
}

// clone copies the accesses too: they are what a rebinding or a lowering
// changes.
func (d *dispatchOp) clone() nodeOp {
	n := *d
	n.acc = append([]access(nil), d.acc...)
	return &n
}

func (d *dispatchOp) tabulate(t *graphTables) {
	if _, ok := t.kernelAt[d.k]; !ok {
		t.kernelAt[d.k] = uint32(len(t.kernels))
		t.kernels = append(t.kernels, d.k)
	}
	for _, a := range d.acc {
		switch a.kind {
		case accessBuffer:
			t.addPage(a.pg, a.buf)
		case accessParams:
			if _, ok := t.paramAt[a.meta]; !ok {
				t.paramAt[a.meta] = uint32(len(t.params))
				t.params = append(t.params, a.meta)
			}
		case accessTexture:
			if _, ok := t.texAt[a.tex.h]; !ok {
				t.texAt[a.tex.h] = uint32(len(t.texs))
				t.texs = append(t.texs, a.tex.h)
			}
		case accessSampler:
			if _, ok := t.smpAt[a.smp.h]; !ok {
				t.smpAt[a.smp.h] = uint32(len(t.smps))
				t.smps = append(t.smps, a.smp.h)
			}
		}
	}
	t.addPage(d.ind, d.indBuf)
}

func (d *dispatchOp) save(t *graphTables, fn *graphfile.Node) {
	fn.Kind, fn.Kernel = graphfile.NodeDispatch, t.kernelAt[d.k]
	if d.ind != nil {
		fn.Indirect, fn.Buffer, fn.Offset = true, t.pageAt[d.ind], d.d.offset
	} else {
		fn.X, fn.Y, fn.Z = d.d.x, d.d.y, d.d.z
	}
	fn.Args = make([]graphfile.Arg, 0, len(d.acc))
	for _, a := range d.acc {
		switch a.kind {
		case accessBuffer:
			fn.Args = append(fn.Args, graphfile.Arg{Kind: graphfile.ArgBuffer, Index: t.pageAt[a.pg]})
		case accessParams:
			fn.Args = append(fn.Args, graphfile.Arg{Kind: graphfile.ArgParams, Index: t.paramAt[a.meta]})
		case accessTexture:
			fn.Args = append(fn.Args, graphfile.Arg{Kind: graphfile.ArgTexture, Index: t.texAt[a.tex.h]})
		case accessSampler:
			fn.Args = append(fn.Args, graphfile.Arg{Kind: graphfile.ArgSampler, Index: t.smpAt[a.smp.h]})
		}
	}
}

// loadDispatch records a graph file's dispatch n into the loader's
// recording, resolved and bound like a launch.
func loadDispatch(l *loader, n *graphfile.Node) error {
	s := l.s
	const op = lifecycle.Load
	args := make([]Arg, len(n.Args))
	for j, a := range n.Args {
		switch a.Kind {
		case graphfile.ArgBuffer:
			args[j] = l.buffers[a.Index]
		case graphfile.ArgParams:
			args[j] = Params(l.f.Params[a.Index])
		case graphfile.ArgTexture:
			args[j] = l.textures[a.Index]
		case graphfile.ArgSampler:
			args[j] = l.samplers[a.Index]
		}
	}
	d := Groups(n.X, n.Y, n.Z)
	if n.Indirect {
		d = Indirect(l.buffers[n.Buffer], n.Offset)
	}
	ln := &s.scratch.launch
	defer ln.reset()
	k := ownKernel{l.kernels[n.Kernel]}
	if err := s.resolve(op, k, d, args, ln); err != nil {
		ln.release()
		return launchError(op, k, err)
	}
	if err := s.bind(op, ln); err != nil {
		ln.release()
		return launchError(op, k, err)
	}
	l.rec.addLaunch(s, ln)
	return nil
}

// addLaunch appends a bound launch; its references pass to the recording.
func (r *recording) addLaunch(s *Stream, l *launch) {
	d := &dispatchOp{k: l.k, d: l.d}
	d.acc = make([]access, len(l.acc))
	copy(d.acc, l.acc)
	for i := range l.acc {
		r.pins.pinAccess(&l.acc[i])
	}
	if l.ind != nil {
		d.ind, d.indBuf = l.ind, l.d.indirect
		r.pins.addPage(l.ind)
	}
	d.d.indirect = nil // the Buffer is kept as indBuf
	for i, g := range l.groups {
		if g != nil {
			d.groups[i] = g
			r.pins.addGroup(g)
		}
	}
	r.nodes = append(r.nodes, node{op: d, region: r.cur})
	*l = launch{}
}
