package recorder

import (
	"errors"
	"fmt"
	"strings"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// WithFusion sets whether EndCapture fuses chains of pointwise dispatches
// into one generated kernel each (default off). A fused graph computes
// the same values, bit for bit, with fewer dispatches: on a chain of tiny
// elementwise kernels the GPU's time per dispatch, not the kernels' work,
// is what a replay costs, and fusion removes it.
//
// What fuses: two dispatches recorded one after the other at the graph's
// top level (not inside an If or While body: a body's dispatches run
// through guarded variants or indirectly, and are left as recorded), both
// of kernels that wgpu.AnalyzePointwise accepts, with the same workgroup
// size, the same direct workgroup counts and the same invocation index,
// and whose buffers meet the dependence rule below (and, between different
// kernels, are shared only as arrays of predeclared types: a struct each
// kernel declares stays each part's own in the fused kernel); a chain is
// split where the fused kernel would exceed the device's storage or
// uniform buffers per shader stage. Copies, clears, indirect dispatches
// and every other kernel end a chain. Graph.String and WriteDOT show the fused groups and,
// for adjacent dispatches that were not fused, why.
//
// Why the result is the same. Each invocation of a pointwise kernel reads
// and writes storage only at its index i (a fixed function of the builtin
// ids, which equal workgroup sizes and counts make the same in every part),
// except for reads of read-only storage at other indices (gathered reads).
// The dependence rule: every buffer that a part of the chain writes is
// accessed by every part at index i only, through one binding of one
// element type. Then the element a part reads from a written buffer in
// invocation i was last written, in the unfused graph, by an earlier part
// at invocation i, or not in the chain at all; in the fused kernel
// invocation i runs the parts' bodies in recording order, so it reads the
// same value; no other invocation touches element i of a written buffer;
// and buffers nobody in the chain writes read the same everywhere. Each
// body runs the float operations it ran before, in the same order, and
// keeps every store (a return in a body ends that body only: each body is
// a function of its own). Between bodies the fused kernel has a storage
// barrier, so values pass from one body to the next through memory as they
// did between dispatches: without it a compiler forwards one body's store
// to the next body's load and contracts a multiply of one with an add of
// the other into an fma, which rounds differently (lavapipe did, in the
// last bit). The tests compare fused and unfused graphs bit for bit on
// lavapipe and OpenGL.
//
// Which index is the invocation's, and that it differs between the
// invocations of a dispatch, is decided from the WGSL (wgpu.Pointwise:
// the forms it knows, and the workgroup counts they hold for); a kernel
// that writes out of its buffer's bounds is the one thing the analysis
// cannot see (robust buffer access may clamp the write to another
// invocation's element), as it is for the unfused graph a race.
//
// Costs: EndCapture analyses each distinct kernel once and compiles one
// kernel per fused chain (wgpu.Private: released with the graph); Rebind
// of a fused graph rebinds the recorded dispatches and fuses them again,
// compiling anew. A saved fused graph stores the fused kernels' source and
// loads as fused.
func WithFusion(on bool) Option { return func(c *config) { c.fusion = on } }

// fusion is what a fused graph keeps of its fusion; fusion.go.
type fusion struct {
	// unfused are the graph's nodes before fusion: Rebind rebinds them and
	// fuses again. Their bind groups are pinned by the graph too.
	unfused []node
	// group[i] is the index, in the graph's nodes, of the node that runs
	// unfused node i.
	group []int
	// why[i] says why unfused nodes i and i+1, both dispatches, were not
	// fused ("" when they were, or when either is not a dispatch).
	why []string
	// fused counts the graph's fused nodes.
	fused int
}

// maxFusedParts bounds the dispatches one fused kernel runs: each is a
// function of the generated module, which the device compiles at
// EndCapture; past a few dozen the saving per dispatch is already made.
const maxFusedParts = 64

// fusedPart is one unfused dispatch of a chain being built.
type fusedPart struct {
	n  *node
	pw *wgpu.Pointwise
	at int // n's index in the unfused nodes
}

// fuseNodes fuses chains in nodes (the lowered nodes of a graph). Bind
// groups it makes are pinned in pins; kernels it compiles are returned
// for the graph to release. The caller holds s.mu.
func (s *Stream) fuseNodes(op lifecycle.Op, nodes []node, pins *pinSet) ([]node, *fusion, []*wgpu.Kernel, error) {
	fz := &fusion{unfused: nodes, group: make([]int, len(nodes)), why: make([]string, len(nodes))}
	analysed := map[driver.Kernel]*wgpu.Pointwise{}
	reasons := map[driver.Kernel]string{}
	analyse := func(n *node) (*wgpu.Pointwise, string) {
		if pw, ok := analysed[n.k]; ok {
			return pw, reasons[n.k]
		}
		var pw *wgpu.Pointwise
		why := ""
		switch {
		case n.k.Guarded():
			why = "a guarded variant"
		case len(n.k.Constants()) > 0:
			why = "compiled with constants"
		default:
			var err error
			pw, err = wgpu.AnalyzePointwise(n.k.Source(), n.k.Entry())
			if err != nil {
				var pe *wgpu.PointwiseError
				if errors.As(err, &pe) {
					why = pe.Reason
				} else {
					why = err.Error()
				}
				pw = nil
			}
		}
		analysed[n.k], reasons[n.k] = pw, why
		return pw, why
	}
	var out []node
	var kernels []*wgpu.Kernel
	// Chains that fuse to the same source (a ping-pong chain split at the
	// part limit, say) share one compiled kernel.
	compiled := map[string]*wgpu.Kernel{}
	var chain []fusedPart
	flush := func() error {
		if len(chain) == 0 {
			return nil
		}
		if len(chain) == 1 {
			out = append(out, *chain[0].n)
		} else {
			n, k, err := s.fusedNode(op, chain, pins, compiled)
			if err != nil {
				return err
			}
			if k != nil {
				kernels = append(kernels, k)
			}
			out = append(out, n)
			fz.fused++
		}
		for _, p := range chain {
			fz.group[p.at] = len(out) - 1
		}
		chain = chain[:0]
		return nil
	}
	fail := func(err error) ([]node, *fusion, []*wgpu.Kernel, error) {
		for _, k := range kernels {
			k.Release()
		}
		return nil, nil, nil, err
	}
	prevWhy := ""
	for i := range nodes {
		n := &nodes[i]
		var pw *wgpu.Pointwise
		why := ""
		switch {
		case n.kind != nodeDispatch:
		case n.region != 0:
			why = "inside an If or While body"
		case n.ind != nil:
			why = "dispatched indirectly"
		default:
			pw, why = analyse(n)
			if pw != nil && !pw.OneToOne(n.d.x, n.d.y, n.d.z) {
				pw, why = nil, fmt.Sprintf("its index %s is not one-to-one over %s", pw.Index, n.d.label())
			}
		}
		part := fusedPart{n: n, pw: pw, at: i}
		if pw != nil && len(chain) > 0 {
			j := s.joins(chain, part)
			if j == "" {
				chain = append(chain, part)
				prevWhy = ""
				continue
			}
			fz.why[i-1] = j
		}
		if err := flush(); err != nil {
			return fail(err)
		}
		if i > 0 && n.kind == nodeDispatch && nodes[i-1].kind == nodeDispatch && fz.why[i-1] == "" {
			if why != "" {
				fz.why[i-1] = "kernel " + n.name() + ": " + why
			} else {
				fz.why[i-1] = "kernel " + nodes[i-1].name() + ": " + prevWhy
			}
		}
		prevWhy = why
		if pw != nil {
			chain = append(chain, part)
			continue
		}
		fz.group[i] = len(out)
		out = append(out, *n)
	}
	if err := flush(); err != nil {
		return fail(err)
	}
	return out, fz, kernels, nil
}

// joins says why p cannot join chain, or "" when it can.
func (s *Stream) joins(chain []fusedPart, p fusedPart) string {
	head := chain[0]
	switch {
	case len(chain) >= maxFusedParts:
		return fmt.Sprintf("a fused kernel runs at most %d dispatches", maxFusedParts)
	case p.pw.WorkgroupSize != head.pw.WorkgroupSize:
		return fmt.Sprintf("workgroup size %d, not %d", p.pw.WorkgroupSize, head.pw.WorkgroupSize)
	case p.n.d != head.n.d:
		return fmt.Sprintf("%s, not %s", p.n.d.label(), head.n.d.label())
	case p.pw.Index != head.pw.Index:
		return fmt.Sprintf("invocation index %s, not %s", p.pw.Index, head.pw.Index)
	}
	all := append(append([]fusedPart(nil), chain...), p)
	if why := dependence(all); why != "" {
		return why
	}
	if why := sharing(all); why != "" {
		return why
	}
	storage, uniform := slotCounts(all)
	lim := &s.limits
	if storage > int(lim.MaxStorageBuffersPerShaderStage) {
		return fmt.Sprintf("the fused kernel would bind %d storage buffers (maxStorageBuffersPerShaderStage %d)", storage, lim.MaxStorageBuffersPerShaderStage)
	}
	if uniform > int(lim.MaxUniformBuffersPerShaderStage) {
		return fmt.Sprintf("the fused kernel would bind %d uniform buffers (maxUniformBuffersPerShaderStage %d)", uniform, lim.MaxUniformBuffersPerShaderStage)
	}
	if storage+uniform > int(lim.MaxBindingsPerBindGroup) {
		return fmt.Sprintf("the fused kernel would bind %d buffers (maxBindingsPerBindGroup %d)", storage+uniform, lim.MaxBindingsPerBindGroup)
	}
	return ""
}

// dependence checks the rule WithFusion's proof rests on: a buffer any part
// writes is accessed by every part at index i only, with one element type.
func dependence(parts []fusedPart) string {
	written := map[*pool.Page]bool{}
	for _, p := range parts {
		for j := range p.n.acc {
			if a := &p.n.acc[j]; a.kind == accessBuffer && a.write {
				written[a.pg] = true
			}
		}
	}
	types := map[*pool.Page]string{}
	for _, p := range parts {
		res := p.n.k.Resources()
		for j := range p.n.acc {
			a := &p.n.acc[j]
			if a.kind != accessBuffer || !written[a.pg] {
				continue
			}
			if p.pw.Gathered[j] {
				return fmt.Sprintf("kernel %s reads %s at other indices than its own, and the chain writes it", p.n.name(), res[j].Name)
			}
			if res[j].Kind == driver.ResourceUniform {
				return fmt.Sprintf("kernel %s reads as a uniform a buffer the chain writes", p.n.name())
			}
			if t, ok := types[a.pg]; ok && t != res[j].Type {
				return fmt.Sprintf("a buffer the chain writes is bound as %s and as %s", t, res[j].Type)
			}
			types[a.pg] = res[j].Type
		}
	}
	return ""
}

// sharing checks wgpu.FuseSource's rule for a binding several parts
// share: parts of different kernels share only buffers of predeclared
// array types (each part keeps its own struct and alias declarations, and
// one binding has one type), so two kernels that each declare a struct and
// bind one buffer of it are not fused.
func sharing(parts []fusedPart) string {
	first := map[slotKey]*fusedPart{}
	for i := range parts {
		p := &parts[i]
		res := p.n.k.Resources()
		for j := range p.n.acc {
			a := &p.n.acc[j]
			if a.kind != accessBuffer || res[j].Kind == driver.ResourceUniform {
				continue
			}
			key := fusedSlotKey(a, res[j], p.n.k, j)
			o := first[key]
			if o == nil {
				first[key] = p
				continue
			}
			sameKernel := o.n.k.Source() == p.n.k.Source() && o.n.k.Entry() == p.n.k.Entry()
			if !sameKernel && !wgpu.FuseShareable(res[j].Type) {
				return fmt.Sprintf("kernels %s and %s bind one buffer as %s, a type each declares for itself", o.n.name(), p.n.name(), res[j].Type)
			}
		}
	}
	return ""
}

// slotKey identifies one binding of the fused kernel. A storage buffer
// is one binding per (page, size, element type), whichever parts bind it;
// a uniform (params or a Buffer) is shared only by dispatches of the same
// kernel binding the same range at the same resource, whose struct types
// are the same declaration (wgsl.Fuse checks).
type slotKey struct {
	pg   *pool.Page
	meta any // the params entry, compared by identity
	size uint64
	typ  string
	k    driver.Kernel
	res  int
}

func fusedSlotKey(a *access, r driver.Resource, k driver.Kernel, res int) slotKey {
	switch {
	case a.kind == accessParams:
		return slotKey{meta: a.meta, size: a.size, k: k, res: res}
	case r.Kind == driver.ResourceUniform:
		return slotKey{pg: a.pg, size: a.size, k: k, res: res}
	}
	return slotKey{pg: a.pg, size: a.size, typ: r.Type}
}

// slotCounts counts the fused kernel's storage and uniform bindings.
func slotCounts(parts []fusedPart) (storage, uniform int) {
	seen := map[slotKey]bool{}
	for _, p := range parts {
		res := p.n.k.Resources()
		for j := range p.n.acc {
			key := fusedSlotKey(&p.n.acc[j], res[j], p.n.k, j)
			if seen[key] {
				continue
			}
			seen[key] = true
			if res[j].Kind == driver.ResourceUniform {
				uniform++
			} else {
				storage++
			}
		}
	}
	return storage, uniform
}

// fusedNode compiles chain's fused kernel and makes its node: one binding
// per slot, in slot order, read_write wherever any part writes the buffer.
// The kernel is returned when it was compiled here, nil when compiled
// holds it already.
func (s *Stream) fusedNode(op lifecycle.Op, chain []fusedPart, pins *pinSet, compiled map[string]*wgpu.Kernel) (node, *wgpu.Kernel, error) {
	slots := map[slotKey]uint32{}
	var acc []access
	written := map[*pool.Page]bool{}
	for _, p := range chain {
		for j := range p.n.acc {
			if a := &p.n.acc[j]; a.kind == accessBuffer && a.write {
				written[a.pg] = true
			}
		}
	}
	parts := make([]wgpu.FusePart, len(chain))
	var names []string
	for k, p := range chain {
		res := p.n.k.Resources()
		fp := wgpu.FusePart{Source: p.n.k.Source(), Entry: p.n.k.Entry(), Slots: make([]uint32, len(res)), ReadWrite: make([]bool, len(res))}
		for j := range p.n.acc {
			a := p.n.acc[j]
			key := fusedSlotKey(&a, res[j], p.n.k, j)
			slot, ok := slots[key]
			if !ok {
				slot = uint32(len(acc))
				slots[key] = slot
				a.group, a.binding = 0, slot
				a.write = a.kind == accessBuffer && written[a.pg] && res[j].Kind != driver.ResourceUniform
				acc = append(acc, a)
			}
			fp.Slots[j] = slot
			fp.ReadWrite[j] = a.kind == accessBuffer && written[a.pg] && res[j].Kind != driver.ResourceUniform
		}
		parts[k] = fp
		names = append(names, p.n.name())
	}
	src, entry, err := wgpu.FuseSource(parts)
	if err != nil {
		return node{}, nil, &Error{Op: op.String(), Arg: "fusing " + strings.Join(names, ", "), Err: err}
	}
	k, fresh := compiled[src], false
	if k == nil {
		if k, err = s.dev.Kernel(src, entry, wgpu.Private()); err != nil {
			return node{}, nil, &Error{Op: op.String(), Arg: "fusing " + strings.Join(names, ", "), Err: err}
		}
		compiled[src], fresh = k, true
	}
	release := func() {
		if fresh {
			delete(compiled, src)
			k.Release()
		}
	}
	kd, err := s.drv.Kernel(k)
	if err != nil {
		release()
		return node{}, nil, &Error{Op: op.String(), Arg: "fusing " + strings.Join(names, ", "), Err: err}
	}
	head := chain[0].n
	n := node{kind: nodeDispatch, k: kd, d: head.d, acc: acc, region: head.region}
	if err := s.bindGroups(op, kd, n.acc, &n.groups); err != nil {
		release()
		return node{}, nil, err
	}
	for _, g := range n.groups {
		if g != nil {
			pins.addGroup(g)
		}
	}
	if !fresh {
		k = nil
	}
	return n, k, nil
}

// pinUnfused pins the bind groups of a fused graph's unfused nodes, which a
// later Rebind re-fuses (a node that no longer fuses is then encoded with
// them). The caller holds s.mu.
func pinUnfused(pins *pinSet, nodes []node) {
	for i := range nodes {
		for _, grp := range nodes[i].groups {
			if grp != nil {
				pins.addGroup(grp.ref())
			}
		}
	}
}

// fuseGraph fuses a graph being sealed: its nodes become the fused nodes,
// the unfused ones stay in g.fusion for Rebind, and the fused kernels are
// g's to release. The caller holds s.mu.
func (s *Stream) fuseGraph(g *Graph) error {
	nodes, fz, kernels, err := s.fuseNodes(lifecycle.EndCapture, g.nodes, g.pins)
	if err != nil {
		return err
	}
	g.nodes, g.fusion, g.kernels = nodes, fz, append(g.kernels, kernels...)
	return nil
}

// releaseKernels releases kernels compiled for a graph that was not made.
func releaseKernels(ks []*wgpu.Kernel) {
	for _, k := range ks {
		k.Release()
	}
}

// recorded is the nodes Rebind rebinds: a fused graph's unfused nodes.
func (g *Graph) recorded() []node {
	if g.fusion != nil {
		return g.fusion.unfused
	}
	return g.nodes
}

// fusedAliasing refuses a rebinding that makes one buffer two bindings of
// different element types in a fused kernel's dispatch (only a loaded graph
// rebinds fused dispatches directly: a captured one re-fuses from its
// recorded dispatches): its parts would then meet at different bytes for
// one index, which the fusion's proof excludes. Two read_write bindings of
// one type stay correct (every access is at the invocation's index, in
// order), and a read-only one with a read_write one is refused by conflict.
func fusedAliasing(nodes []node) error {
	for i := range nodes {
		n := &nodes[i]
		if n.kind != nodeDispatch || n.k == nil || n.k.Entry() != wgpu.FusedEntry || !strings.HasPrefix(n.k.Source(), wgpu.FusedHeader) {
			continue
		}
		res := n.k.Resources()
		types := map[*pool.Page]string{}
		for j := range n.acc {
			a := &n.acc[j]
			if a.kind != accessBuffer || res[j].Kind == driver.ResourceUniform {
				continue
			}
			if t, ok := types[a.pg]; ok && t != res[j].Type {
				return argError(lifecycle.Rebind, ErrInvalidArgument, "command %d (a fused kernel) would bind one buffer as %s and as %s; its parts would meet at different bytes for one index", i, t, res[j].Type)
			}
			types[a.pg] = res[j].Type
		}
	}
	return nil
}
