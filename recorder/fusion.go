package recorder

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// WithFusion sets whether EndCapture fuses chains of dispatches into one
// generated kernel each (default off). A fused graph computes the same
// values, bit for bit, with fewer dispatches: on a chain of tiny
// elementwise kernels the GPU's time per dispatch, not the kernels' work,
// is what a replay costs, and fusion removes it.
//
// What fuses (docs/fusion.md is the reference): dispatches recorded one
// after the other at the graph's top level (not inside an If or While
// body) of pointwise kernels (wgpu.AnalyzePointwise), the first of which
// may instead be an epilogue's producer (wgpu.AnalyzeProducer: a tiled
// matrix multiply storing each output element once per invocation), whose
// indices are the same function of the global invocation id over
// dispatches covering the same ids, and whose buffers meet the dependence
// rule: memory any part writes is accessed by every part at the
// invocation's index only, through one binding of one element type (and,
// between different kernels, shared only as arrays of predeclared types).
// Float kernels that compare floats, take their min or max, call fma,
// divide floats or compute with a constant only the driver sees
// (wgpu.Pointwise.ContextDependent) are left unfused: a compiler may
// compute those differently in another context, and did; so are kernels
// feeding one float operation's result to another (ChainsFloats) on
// devices not measured to keep their bits (wgpu.Device.FusesChainedFloats). A chain is split
// at 16 dispatches and where the fused kernel would exceed the device's
// storage or uniform buffers per shader stage. Indirect dispatches fuse
// with those reading the same counts (the fused kernel then runs each
// index value once: wgpu.FusePart.AnyCounts). Copies, clears and every
// other kernel end a chain. Graph.String and WriteDOT
// show the fused groups and, for adjacent dispatches that were not fused,
// why.
//
// Why the result is the same: each invocation of the fused kernel runs
// the parts' bodies in recording order, each a function of its own (a
// return ends that body only), and reads from written memory only the
// elements its own invocation wrote earlier in the chain or nobody in the
// chain writes; each part is called with its builtin values plus a word of
// a uniform of zeros the compiler cannot see through, so it can neither
// forward one part's store into another's arithmetic nor share loads
// between parts. The argument in full, and the differential tests on
// lavapipe, llvmpipe's GL and the H200, are in docs/fusion.md.
//
// Costs: EndCapture analyses each distinct kernel once and compiles one
// kernel per distinct fused source, shared by the stream's graphs while
// any holds it (GraphStats.FusionCompileTime, FusionCompiles); Rebind of a
// fused graph rebinds the recorded dispatches and fuses them again. A
// saved fused graph stores the fused kernels' source and loads as fused.
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
// EndCapture. Past a dozen parts the saving per dispatch is already made,
// while a module's compile time, and the chance of meeting a driver
// compiler's limits (Mesa 22.3's llvmpipe corrupted its heap compiling
// large fused modules), grows with its size.
const maxFusedParts = 16

// fusedPart is one unfused dispatch of a chain being built.
type fusedPart struct {
	n    *dispatchOp
	node *node // the unfused node whose op n is
	pw   *wgpu.Pointwise
	at   int    // n's index in the unfused nodes
	src  string // n's kernel's source, its overrides bound
	// notPointwise says why a producer (pw.Producer) is not pointwise:
	// it can begin a chain only.
	notPointwise string
}

// fusedKernel is a compiled fused kernel and the graphs holding it: a
// chain fusing to a source a graph of the stream already uses (the same
// capture made twice, a Rebind) takes it instead of compiling again.
type fusedKernel struct {
	k    driver.Kernel
	src  string
	refs int
}

// fuseNodes fuses chains in nodes (the lowered nodes of a graph). Bind
// groups it makes are pinned in pins; the fused kernels it uses are
// returned, each with a reference the graph drops at release
// (dropKernels). A chain whose fused kernel does not come out (Fuse
// refuses it, the device does not compile it) stays unfused, with the
// reason in the fusion's account. The caller holds s.mu.
func (s *Stream) fuseNodes(op lifecycle.Op, nodes []node, pins *pinSet) ([]node, *fusion, []driver.Kernel, error) {
	fz := &fusion{unfused: nodes, group: make([]int, len(nodes)), why: make([]string, len(nodes))}
	analysed := map[driver.Kernel]*wgpu.Pointwise{}
	reasons := map[driver.Kernel]string{}
	sources := map[driver.Kernel]string{}
	notPointwise := map[driver.Kernel]string{} // a producer's reason not to join a chain
	analyse := func(n *dispatchOp) (*wgpu.Pointwise, string) {
		if pw, ok := analysed[n.k]; ok {
			return pw, reasons[n.k]
		}
		var pw *wgpu.Pointwise
		why := ""
		// A kernel compiled with constants (or overrides at their
		// defaults) fuses as the text it was compiled from: its overrides
		// bound to their values.
		src, err := wgpu.BindOverrides(n.k.Source(), n.k.Constants())
		switch {
		case n.k.Guarded():
			why = "a guarded variant"
		case err != nil:
			why = "its overrides do not bind: " + err.Error()
		default:
			sources[n.k] = src
			pw, err = wgpu.AnalyzePointwise(src, n.k.Entry())
			if errors.Is(err, wgpu.ErrNotPointwise) {
				// Not pointwise, but perhaps an epilogue's producer: it
				// can begin a chain, and its pairs keep the reason.
				var pe, ppe *wgpu.PointwiseError
				pr, perr := wgpu.AnalyzeProducer(src, n.k.Entry())
				switch {
				case perr == nil && errors.As(err, &pe):
					notPointwise[n.k] = pe.Reason
					pw, err = pr, nil
				case errors.As(perr, &ppe) && errors.As(err, &pe) && !strings.HasSuffix(ppe.Reason, pe.Reason):
					// Neither: say both why not.
					pe.Reason += "; " + ppe.Reason
				}
			}
			if err == nil && pw.ContextDependent && floatKernel.MatchString(src) {
				pw, why = nil, pw.ContextReason+", which a compiler may compute differently in a fused kernel (docs/fusion.md)"
				break
			}
			if info := s.info; err == nil && pw.ChainsFloats && !info.FusesChainedFloats && floatKernel.MatchString(src) {
				pw, why = nil, pw.ChainReason+", which this device's compiler ("+info.Name+", "+info.Backend+") may contract or reassociate differently in a fused kernel (docs/fusion.md)"
				break
			}
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
	var kernels []driver.Kernel
	var chain []fusedPart
	flush := func() error {
		if len(chain) == 0 {
			return nil
		}
		if len(chain) > 1 {
			n, k, why, err := s.fusedNode(op, chain, pins)
			if err != nil {
				return err
			}
			if why == "" {
				kernels = append(kernels, k)
				out = append(out, n)
				fz.fused++
				for _, p := range chain {
					fz.group[p.at] = len(out) - 1
				}
				chain = chain[:0]
				return nil
			}
			for _, p := range chain[1:] {
				fz.why[p.at-1] = why
			}
		}
		for _, p := range chain {
			fz.group[p.at] = len(out)
			out = append(out, *p.node)
		}
		chain = chain[:0]
		return nil
	}
	fail := func(err error) ([]node, *fusion, []driver.Kernel, error) {
		s.dropKernels(kernels)
		return nil, nil, nil, err
	}
	prevWhy := ""
	for i := range nodes {
		n := &nodes[i]
		d := dispatchOf(n)
		var pw *wgpu.Pointwise
		why := ""
		switch {
		case d == nil:
		case n.region != 0:
			why = "inside an If or While body"
		case d.ind != nil:
			// Its counts are known only on the GPU, so its index cannot
			// be shown one-to-one over them: it fuses with dispatches
			// reading the same counts, and the fused kernel runs the
			// parts in the first invocation of each index only
			// (FusePart.AnyCounts), which is every invocation wherever
			// the unfused dispatches do not race.
			pw, why = analyse(d)
			if pw == nil {
				break
			}
			if pw.Producer {
				pw, why = nil, fmt.Sprintf("not pointwise (%s), and dispatched indirectly, so it cannot begin an epilogue either (a producer's barriers need every invocation its counts make)", notPointwise[d.k])
				break
			}
			if _, _, ok := pw.FirstOfIndex(); !ok {
				pw, why = nil, fmt.Sprintf("dispatched indirectly, and its index %s is not one of the forms whose first invocation per value is known on any counts", pw.Index)
			}
		default:
			pw, why = analyse(d)
			if pw != nil && !pw.OneToOne(d.d.x, d.d.y, d.d.z) {
				pw, why = nil, fmt.Sprintf("its index %s is not one-to-one over %s", pw.Index, d.d.label())
			}
		}
		part := fusedPart{n: d, node: n, pw: pw, at: i}
		if d != nil {
			part.src, part.notPointwise = sources[d.k], notPointwise[d.k]
		}
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
		if i > 0 && d != nil && dispatchOf(&nodes[i-1]) != nil && fz.why[i-1] == "" {
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
	case p.pw.Producer:
		return fmt.Sprintf("kernel %s is not pointwise (%s): it can begin a chain only, as an epilogue's producer", p.n.name(), p.notPointwise)
	case (p.n.ind != nil) != (head.n.ind != nil):
		if p.n.ind != nil {
			return fmt.Sprintf("kernel %s is dispatched indirectly, the chain by counts", p.n.name())
		}
		return fmt.Sprintf("kernel %s is dispatched by counts, the chain indirectly", p.n.name())
	case p.n.ind != nil && (p.n.ind.Buffer().Memory() != head.n.ind.Buffer().Memory() || p.n.d.offset != head.n.d.offset):
		return fmt.Sprintf("kernel %s reads its indirect counts from other memory than the chain's", p.n.name())
	case p.n.ind != nil && p.pw.Workgroup != head.pw.Workgroup:
		// Counts only the GPU knows cover the same ids only with the same
		// workgroup size.
		return fmt.Sprintf("workgroup size %s, not %s, on indirect counts", workgroupLabel(p.pw.Workgroup), workgroupLabel(head.pw.Workgroup))
	case p.pw.Workgroup != head.pw.Workgroup && !p.pw.GlobalOnly():
		return fmt.Sprintf("workgroup size %s, not %s", workgroupLabel(p.pw.Workgroup), workgroupLabel(head.pw.Workgroup))
	case p.pw.Workgroup == head.pw.Workgroup && p.n.d != head.n.d:
		return fmt.Sprintf("%s, not %s", p.n.d.label(), head.n.d.label())
	case p.pw.Workgroup != head.pw.Workgroup && extent(p) != extent(head):
		return fmt.Sprintf("%s of %s workgroups covers %v invocations, not %v", p.n.d.label(), workgroupLabel(p.pw.Workgroup), extent(p), extent(head))
	case !wgpu.FuseJoins(head.pw, p.pw):
		return fmt.Sprintf("invocation index %s, not %s", p.pw.Index, head.pw.Index)
	}
	all := append(append([]fusedPart(nil), chain...), p)
	if why := dependence(all); why != "" {
		return why
	}
	if why := sharing(all); why != "" {
		return why
	}
	if why := countsBound(all); why != "" {
		return why
	}
	storage, uniform := slotCounts(all)
	uniform++ // the fused kernel's zero words
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

// extent is the global invocation ids a part's dispatch covers, per
// dimension: parts of different workgroup sizes that take only the global
// id run as one when their extents agree.
func extent(p fusedPart) [3]uint64 {
	wg := p.pw.Workgroup
	return [3]uint64{uint64(wg[0]) * uint64(p.n.d.x), uint64(wg[1]) * uint64(p.n.d.y), uint64(wg[2]) * uint64(p.n.d.z)}
}

// workgroupLabel spells a workgroup size as WGSL does, dimensions of 1 at
// the end left out.
func workgroupLabel(w [3]uint32) string {
	switch {
	case w[2] != 1:
		return fmt.Sprintf("(%d, %d, %d)", w[0], w[1], w[2])
	case w[1] != 1:
		return fmt.Sprintf("(%d, %d)", w[0], w[1])
	}
	return fmt.Sprintf("(%d)", w[0])
}

// memory is the identity of the memory behind a buffer access: two
// wrappers of one application buffer (WrapBuffer twice) are one memory.
func memory(a *access) any { return a.pg.Buffer().Memory() }

// dependence checks the rule WithFusion's proof rests on: memory any part
// writes is accessed by every part at index i only, through bindings of
// one element type and one size (so one binding of the fused kernel).
func dependence(parts []fusedPart) string {
	written := writtenMemory(parts)
	type view struct {
		typ  string
		size uint64
	}
	views := map[any]view{}
	for _, p := range parts {
		res := p.n.k.Resources()
		for j := range p.n.acc {
			a := &p.n.acc[j]
			if a.kind != accessBuffer || !written[memory(a)] {
				continue
			}
			if p.pw.Gathered[j] {
				return fmt.Sprintf("kernel %s reads %s at other indices than its own, and the chain writes it", p.n.name(), res[j].Name)
			}
			if res[j].Kind == driver.ResourceUniform {
				return fmt.Sprintf("kernel %s reads as a uniform a buffer the chain writes", p.n.name())
			}
			v := view{res[j].Type, a.size}
			if o, ok := views[memory(a)]; ok && o != v {
				if o.typ != v.typ {
					return fmt.Sprintf("a buffer the chain writes is bound as %s and as %s", o.typ, v.typ)
				}
				return fmt.Sprintf("a buffer the chain writes is bound with %d and with %d bytes (wrapped twice)", o.size, v.size)
			}
			views[memory(a)] = v
		}
	}
	return ""
}

// countsBound refuses a chain dispatched indirectly that binds the memory
// its counts are read from: a part writing it would change the counts of
// the dispatches after it, which the fused kernel, dispatched once, cannot
// follow (and a storage binding of it beside its indirect use is what
// OpenGL's read_write rule would make writable).
func countsBound(parts []fusedPart) string {
	ind := parts[0].n.ind
	if ind == nil {
		return ""
	}
	counts := ind.Buffer().Memory()
	for _, p := range parts {
		for j := range p.n.acc {
			if a := &p.n.acc[j]; a.kind == accessBuffer && memory(a) == counts {
				return fmt.Sprintf("kernel %s binds the buffer the chain's indirect counts are read from", p.n.name())
			}
		}
	}
	return ""
}

// writtenMemory is the memory some part of parts writes.
func writtenMemory(parts []fusedPart) map[any]bool {
	written := map[any]bool{}
	for _, p := range parts {
		for j := range p.n.acc {
			if a := &p.n.acc[j]; a.kind == accessBuffer && a.write {
				written[memory(a)] = true
			}
		}
	}
	return written
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
			key := fusedSlotKey(p, i, j)
			o := first[key]
			if o == nil {
				first[key] = p
				continue
			}
			sameKernel := o.src == p.src && o.n.k.Entry() == p.n.k.Entry()
			if !sameKernel && !wgpu.FuseShareable(res[j].Type) {
				return fmt.Sprintf("kernels %s and %s bind one buffer as %s, a type each declares for itself", o.n.name(), p.n.name(), res[j].Type)
			}
		}
	}
	return ""
}

// slotKey identifies one binding of the fused kernel. Storage the parts
// read and write at their index is one binding per (memory, size, element
// type), whichever parts bind it. What a part reads elsewhere than at its
// index (a gathered read, a uniform) is a binding of that part's own: the
// compiler then cannot share one load, or an expression of loads, between
// two parts (part is -1 for a shared binding).
type slotKey struct {
	mem  any
	meta any // the params entry, compared by identity
	size uint64
	typ  string
	part int
	// dup counts the part's earlier bindings of the same memory, size and
	// type: two bindings of one buffer in one kernel (a/b of one input)
	// stay two in the fused kernel, or the compiler, seeing one variable,
	// could share their loads and simplify a / b to 1 where the kernel's
	// own dispatch could not (the H200 did, for a NaN).
	dup int
}

func fusedSlotKey(p *fusedPart, part, res int) slotKey {
	a := &p.n.acc[res]
	rs := p.n.k.Resources()
	r := rs[res]
	dup := 0
	if a.kind == accessParams {
		for j := range res {
			if b := &p.n.acc[j]; b.kind == accessParams && b.meta == a.meta {
				dup++
			}
		}
		return slotKey{meta: a.meta, size: a.size, part: part, dup: dup}
	}
	for j := range res {
		b := &p.n.acc[j]
		if b.kind == a.kind && memory(b) == memory(a) && b.size == a.size && rs[j].Type == r.Type &&
			(rs[j].Kind == driver.ResourceUniform) == (r.Kind == driver.ResourceUniform) && p.pw.Gathered[j] == p.pw.Gathered[res] {
			dup++
		}
	}
	switch {
	case r.Kind == driver.ResourceUniform:
		return slotKey{mem: memory(a), size: a.size, part: part, dup: dup}
	case p.pw.Gathered[res]:
		return slotKey{mem: memory(a), size: a.size, typ: r.Type, part: part, dup: dup}
	}
	return slotKey{mem: memory(a), size: a.size, typ: r.Type, part: -1, dup: dup}
}

// slotCounts counts the fused kernel's storage and uniform bindings, the
// zero words left out.
func slotCounts(parts []fusedPart) (storage, uniform int) {
	seen := map[slotKey]bool{}
	for i := range parts {
		p := &parts[i]
		res := p.n.k.Resources()
		for j := range p.n.acc {
			key := fusedSlotKey(p, i, j)
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

// fusedNode makes chain's fused node: one binding per slot, in slot order,
// read_write wherever any part writes the memory, and the zero words last.
// It returns the kernel, with a reference for the caller, or, when the
// chain cannot be fused after all (Fuse refuses it; the device does not
// compile it or its bind group), why, for the chain to stay unfused. An
// error is one the capture itself fails with (the device closed).
func (s *Stream) fusedNode(op lifecycle.Op, chain []fusedPart, pins *pinSet) (node, driver.Kernel, string, error) {
	slots := map[slotKey]uint32{}
	var acc []access
	written := writtenMemory(chain)
	parts := make([]wgpu.FusePart, len(chain))
	for k := range chain {
		p := &chain[k]
		res := p.n.k.Resources()
		fp := wgpu.FusePart{Source: p.src, Entry: p.n.k.Entry(), Slots: make([]uint32, len(res)), ReadWrite: make([]bool, len(res)), Producer: p.pw.Producer, AnyCounts: k == 0 && p.n.ind != nil}
		for j := range p.n.acc {
			a := p.n.acc[j]
			rw := a.kind == accessBuffer && written[memory(&a)] && res[j].Kind != driver.ResourceUniform
			key := fusedSlotKey(p, k, j)
			slot, ok := slots[key]
			if !ok {
				slot = uint32(len(acc))
				slots[key] = slot
				a.group, a.binding, a.write = 0, slot, rw
				acc = append(acc, a)
			}
			fp.Slots[j] = slot
			fp.ReadWrite[j] = rw
		}
		parts[k] = fp
	}
	src, entry, err := wgpu.FuseSource(parts)
	if err != nil {
		return node{}, nil, "the fused kernel was not written: " + err.Error(), nil
	}
	zero, err := s.meta.Lookup(ParamsOf(make([]uint32, wgpu.FuseZeroBytes/4)...), s.eng.Gen(), s.eng.SubmittedGen(), lifecycle.CacheCapture, &s.eng.Open().Slots)
	if err != nil {
		return node{}, nil, "", &Error{Op: op.String(), Arg: "the fused kernel's zero words", Err: err}
	}
	acc = append(acc, access{kind: accessParams, meta: zero, size: zero.Size, binding: uint32(len(acc))})
	kd, why, err := s.fusedKernel(src, entry)
	if why != "" || err != nil {
		return node{}, nil, why, err
	}
	k := kd
	head := chain[0].n
	n := &dispatchOp{k: kd, d: head.d, ind: head.ind, indBuf: head.indBuf, acc: acc}
	if err := s.bindGroups(op, kd, n.acc, &n.groups); err != nil {
		s.dropKernels([]driver.Kernel{k})
		if errors.Is(err, wgpu.ErrValidation) {
			return node{}, nil, "the fused kernel's bind group was refused: " + err.Error(), nil
		}
		return node{}, nil, "", err
	}
	pins.addMeta(zero)
	for _, g := range n.groups {
		if g != nil {
			pins.addGroup(g)
		}
	}
	return node{op: n, region: chain[0].node.region}, k, "", nil
}

// fusedKernel is the compiled kernel of a fused source, with a reference
// for the caller: the stream's, when a graph of it holds one already, or
// a fresh compile (its time counted in the stream's fusion statistics).
// A source the device does not compile returns why. The caller holds s.mu.
func (s *Stream) fusedKernel(src, entry string) (driver.Kernel, string, error) {
	if fk := s.fused[src]; fk != nil {
		fk.refs++
		return fk.k, "", nil
	}
	start := time.Now()
	k, err := s.drv.CompileOwned(src, entry, nil, "")
	s.fusionCompile += time.Since(start)
	s.fusionCompiles++
	switch {
	case errors.Is(err, wgpu.ErrCompile), errors.Is(err, wgpu.ErrValidation), errors.Is(err, wgpu.ErrInvalidArgument):
		return nil, "the fused kernel did not compile: " + err.Error(), nil
	case err != nil:
		return nil, "", err
	}
	if s.fused == nil {
		s.fused = map[string]*fusedKernel{}
		s.fusedOf = map[driver.Kernel]*fusedKernel{}
	}
	fk := &fusedKernel{k: k, src: src, refs: 1}
	s.fused[src], s.fusedOf[k] = fk, fk
	return k, "", nil
}

// dropKernels drops a graph's references to its kernels: a fused kernel
// is released with its last holder, any other (a loaded graph's own) at
// once. The caller holds s.mu.
func (s *Stream) dropKernels(ks []driver.Kernel) {
	for _, k := range ks {
		fk := s.fusedOf[k]
		if fk == nil {
			k.Release()
			continue
		}
		if fk.refs--; fk.refs == 0 {
			delete(s.fused, fk.src)
			delete(s.fusedOf, k)
			k.Release()
		}
	}
}

// pinUnfused pins the bind groups of a fused graph's unfused nodes, which a
// later Rebind re-fuses (a node that no longer fuses is then encoded with
// them). The caller holds s.mu.
func pinUnfused(pins *pinSet, nodes []node) {
	for i := range nodes {
		d := dispatchOf(&nodes[i])
		if d == nil {
			continue
		}
		for _, grp := range d.groups {
			if grp != nil {
				pins.addGroup(grp.ref())
			}
		}
	}
}

// fuseGraph fuses a graph being made (sealed by op EndCapture, or rebound
// by op Rebind): its nodes become the fused nodes, the unfused ones stay
// in g.fusion for a later Rebind, and the fused kernels are g's to
// release. The caller holds s.mu.
func (s *Stream) fuseGraph(op lifecycle.Op, g *Graph) error {
	before, compiles := s.fusionCompile, s.fusionCompiles
	nodes, fz, kernels, err := s.fuseNodes(op, g.nodes, g.pins)
	if err != nil {
		return err
	}
	g.nodes, g.fusion, g.kernels = nodes, fz, append(g.kernels, kernels...)
	g.stats.FusionCompileTime = s.fusionCompile - before
	g.stats.FusionCompiles = s.fusionCompiles - compiles
	return nil
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
		n := dispatchOf(&nodes[i])
		if n == nil || n.k == nil || n.k.Entry() != wgpu.FusedEntry || !strings.HasPrefix(n.k.Source(), wgpu.FusedHeader) {
			continue
		}
		res := n.k.Resources()
		type view struct {
			typ  string
			size uint64
		}
		views := map[any]view{}
		for j := range n.acc {
			a := &n.acc[j]
			if a.kind != accessBuffer || res[j].Kind == driver.ResourceUniform {
				continue
			}
			v := view{res[j].Type, a.size}
			if o, ok := views[memory(a)]; ok && o != v {
				return argError(lifecycle.Rebind, ErrInvalidArgument, "command %d (a fused kernel) would bind one buffer as %s of %d bytes and as %s of %d bytes; its parts would meet at different bytes for one index", i, o.typ, o.size, v.typ, v.size)
			}
			views[memory(a)] = v
		}
	}
	return nil
}

// floatKernel matches WGSL that names a float type or writes a float
// literal.
var floatKernel = regexp.MustCompile(`\bf(16|32)\b|\bvec[234][fh]\b|\bmat[234]x[234][fh]?\b|\d\.\d*|\.\d|\d[eE][-+]?\d|\d[fh]\b`)
