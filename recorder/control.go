package recorder

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/kernels"
	"github.com/softgraph/softgraph/internal/lower"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// MaxWhileIterations is the most iterations one While may record. A While
// is unrolled in the graph (each iteration is the body's dispatches, plus a
// gate dispatch unless the body's first dispatch latches the condition),
// so its cost in graph size and in skipped-iteration overhead grows with
// it.
const MaxWhileIterations = 4096

// If runs body's work only when the u32 at cond[offset] is non-zero.
//
// Outside a capture it runs eagerly: it reads the condition from the GPU
// (a sync: the condition reflects everything enqueued before) and calls
// body if it is non-zero. Inside a capture body's launches, copies and
// clears are recorded so that at every replay they run only when the
// condition is non-zero at the moment the GPU reaches the If; no host
// round trip. How (design.md, "Control flow"): a small gate kernel reads
// the condition on the GPU and writes an enable word, and each body
// dispatch of at most 256 workgroups runs its kernel's guarded variant,
// which returns at once unless the word is set; larger dispatches are
// dispatched indirectly from counts the gate writes (or zeros). When the
// If is at top level and the body's first command is a dispatch that does
// not bind the condition's buffer, that dispatch decides from the
// condition itself and there is no gate dispatch. WithPredication(false)
// gates every body dispatch indirectly. A skipped body costs about one
// empty dispatch per body dispatch (plus its gate, if it has one). Copies
// and clears in a body run as kernels so they can be skipped too (a native
// copy command cannot be), and need the gate. Bodies nest.
//
// cond must be a live buffer of the stream's device, offset a multiple of 4
// with 4 bytes after it; while recording it must fit
// maxStorageBufferBindingSize (the gate binds it whole), and so must a
// copy's buffers and an indirect dispatch's buffer inside the body. An
// error body returns is returned wrapped, and what it recorded is dropped
// from the capture. Bodies must nest: when bodies recorded from several
// goroutines at once interleave (one returns while another opened inside
// it is still running), the returning If fails with ErrInvalidArgument and
// so does EndCapture.
func (s *Stream) If(cond *Buffer, offset uint64, body func() error) error {
	return s.branch(regionIf, cond, offset, 1, body)
}

// While runs body while the u32 at cond[offset] is non-zero, at most
// maxIterations times (1..MaxWhileIterations); body's work is what updates
// the condition.
//
// Outside a capture it runs eagerly, reading the condition from the GPU
// before each iteration. Inside a capture the loop is unrolled
// maxIterations times in the graph, each iteration gated like an If body
// (its gate also requires every earlier iteration to have run; a latched
// top-level loop needs no such term, since a skipped iteration leaves the
// condition zero); once the condition is zero the remaining iterations are
// skipped, each costing about one empty dispatch per body dispatch (plus
// its gate, if it has one). When maxIterations are reached with the
// condition still non-zero, the loop stops and the condition stays as the
// last iteration left it: a caller that reads it can tell the loop did not
// finish.
func (s *Stream) While(cond *Buffer, offset uint64, maxIterations int, body func() error) error {
	if maxIterations < 1 || maxIterations > MaxWhileIterations {
		return s.refused(lifecycle.Branch, argError(lifecycle.Branch, ErrInvalidArgument, "While: maxIterations=%d (1..%d: a While is unrolled in the graph)", maxIterations, MaxWhileIterations))
	}
	return s.branch(regionWhile, cond, offset, maxIterations, body)
}

func (s *Stream) branch(kind regionKind, cond *Buffer, offset uint64, maxIter int, body func() error) error {
	const op = lifecycle.Branch
	name := kind.String()
	if err := s.check(op); err != nil {
		return err
	}
	// Refusals before the lock is taken are decided in one hold of their
	// own (refused); those after it, in the hold that found them
	// (failLocked), and only while the recording admitted is still the
	// one in progress.
	if body == nil {
		return s.refused(op, argError(op, ErrInvalidArgument, "%s: body is nil", name))
	}
	if cond != nil && (offset%4 != 0 || offset > cond.size || cond.size-offset < 4) {
		return s.refused(op, argError(op, ErrInvalidArgument, "%s: condition offset=%d into a %d-byte buffer (a multiple of 4 with 4 bytes after it)", name, offset, cond.size))
	}
	pg, err := cond.acquire(op, name+": condition buffer", s)
	if err != nil {
		return s.refused(op, err)
	}
	// The admitting transaction opens the region (Record); the body runs
	// after it, with the lock free (it is the caller's code, which takes
	// the lock itself), and the region is closed in a hold of its own that
	// checks the recording is still the one admitted.
	var v lifecycle.Verdict
	var rec *recording
	var parent, id, nodes int
	err = s.eng.Do(op, func(tx *engine.Tx) error {
		v = tx.Verdict()
		if v != lifecycle.Record {
			return nil
		}
		if err := s.bodyBinds(op, cond, name+": condition buffer", true); err != nil {
			return s.failLocked(op, err)
		}
		rec = s.capturing()
		parent = rec.cur
		rec.regions = append(rec.regions, region{kind: kind, parent: parent, cond: pg, condBuf: cond, condOff: offset,
			maxIter: maxIter, start: len(rec.nodes)})
		id = len(rec.regions) - 1
		rec.pins.addPage(pg)
		rec.cur = id
		nodes = len(rec.nodes)
		return nil
	})
	if err != nil || (v != lifecycle.Execute && v != lifecycle.Record) {
		pg.Unref()
		return err
	}
	if v == lifecycle.Execute {
		defer pg.Unref()
		return s.branchEagerly(kind, cond, pg, offset, maxIter, body)
	}
	berr := body()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.capturing() != rec {
		// The body ended or abandoned the capture itself. The refusal
		// fails no capture: the one this call was admitted in is gone
		// (its EndCapture failed on the open region), and one begun since
		// did not admit it.
		if berr != nil {
			return &StepError{Run: name + " body", Err: berr}
		}
		return argError(op, ErrInvalidArgument, "%s: the capture ended inside the body", name)
	}
	if rec.cur != id || rec.broken != nil {
		// Another goroutine's body opened inside this one and has not
		// returned, or closed this one's enclosing region first: bodies
		// recorded concurrently on one stream interleave, and no nesting
		// of regions says what was meant (closing or dropping this one
		// would cut the other's out from under it). The capture cannot
		// seal.
		if rec.broken == nil {
			rec.broken = argError(op, ErrInvalidArgument, "%s: If and While bodies were recorded concurrently on one stream and interleaved; the recording is discarded", name)
		}
		if berr != nil {
			return &StepError{Run: name + " body", Err: berr}
		}
		return rec.broken
	}
	rec.cur = parent
	if berr != nil {
		// Drop what the body recorded; its pins stay with the recording
		// (released with it) and pin nothing another graph needs.
		rec.nodes = rec.nodes[:nodes]
		rec.regions = rec.regions[:id]
		return s.failLocked(op, &StepError{Run: name + " body", Err: berr})
	}
	rec.regions[id].end = len(rec.nodes)
	return nil
}

// bodyBinds checks, for a command being recorded, a buffer that control
// flow binds whole as storage if the command is inside an If or While body
// (b is a copy's source or destination, or a dispatch's indirect buffer,
// which the body's copy kernels and forwarders bind) or is a condition (the
// gate binds it): it must fit maxStorageBufferBindingSize, or EndCapture
// would fail at a bind group the caller never asked for. The caller holds
// s.mu and is recording.
func (s *Stream) bodyBinds(op lifecycle.Op, b *Buffer, what string, cond bool) error {
	if b == nil || (s.capturing().cur == 0 && !cond) {
		return nil
	}
	if max := s.limits.MaxStorageBufferBindingSize; b.size > max {
		return argError(op, ErrInvalidArgument, "%s (%d bytes) exceeds maxStorageBufferBindingSize %d: inside an If or While it is bound whole by a control-flow kernel", what, b.size, max)
	}
	return nil
}

// branchEagerly runs If and While outside a capture.
func (s *Stream) branchEagerly(kind regionKind, cond *Buffer, pg *pool.Page, offset uint64, maxIter int, body func() error) error {
	for i := 0; i < maxIter; i++ {
		c, err := s.readWord(pg, offset, cond.String())
		if err != nil {
			return err
		}
		if c == 0 {
			return nil
		}
		if err := body(); err != nil {
			return &StepError{Run: kind.String() + " body", Err: err}
		}
	}
	return nil
}

// readWord reads the u32 at offset of pg (a sync).
func (s *Stream) readWord(pg *pool.Page, offset uint64, what string) (uint32, error) {
	var w uint32
	err := s.readBack(context.Background(), lifecycle.Read, false, what, func(enc driver.Encoder, st driver.Buffer) error {
		return enc.CopyBuffer(pg.Buffer(), offset, st, 0, 4)
	}, 4, func(raw []byte) { w = binary.LittleEndian.Uint32(raw) })
	return w, err
}

// regionKind is the kind of a control-flow region of a recording.
type regionKind uint8

const (
	regionTop regionKind = iota
	regionIf
	regionWhile
)

func (k regionKind) String() string {
	switch k {
	case regionIf:
		return "If"
	case regionWhile:
		return "While"
	}
	return "top"
}

// region is one If or While body of a recording (regions[0] is the top
// level): its condition, its place in the nesting, and the nodes recorded
// inside it, nested regions' included ([start, end) of the recording's
// nodes).
type region struct {
	kind       regionKind
	parent     int
	cond       *pool.Page
	condBuf    *Buffer
	condOff    uint64
	maxIter    int
	start, end int
	gates      []int // in a sealed graph: the enable word of each iteration's gate
}

// lowering materialises a plan of internal/lower for one recording: the
// plan says which lowered command goes where and which words each uses;
// lowering compiles the control kernels and guarded variants, allocates the
// enable and gate buffers and the table, and completes every node with its
// kernel, bindings, params and bind groups, pinned by the recording.
type lowering struct {
	s   *Stream
	rec *recording
	out []node
	// variants caches each body kernel's guarded variants (asked by the
	// plan through guarded, used by materialize).
	variants map[variantKey]guardedKernel
}

// lowerRecording turns a recording's nodes and regions into the graph's
// final node list: without control flow, the recording itself.
func lowerRecording(s *Stream, rec *recording) ([]node, []region, error) {
	if len(rec.regions) == 1 || rec.lowered {
		return rec.nodes, rec.regions, nil
	}
	l := &lowering{s: s, rec: rec}
	plan, err := lower.Lower(l.tree(), lower.Options{Guarded: l.guarded})
	if err != nil {
		var long *lower.TooLongError
		switch {
		case errors.As(err, &long) && long.Commands == 0:
			return nil, nil, argError(lifecycle.Branch, ErrInvalidArgument, "control flow unrolls to more than %d commands: lower a While's maxIterations", long.Limit)
		case errors.As(err, &long):
			return nil, nil, argError(lifecycle.Branch, ErrInvalidArgument, "control flow unrolls to %d commands (at most %d): lower a While's maxIterations", long.Commands, long.Limit)
		}
		return nil, nil, fmt.Errorf("recorder: %w", err)
	}
	for c := 1; c < len(rec.regions); c++ {
		for _, w := range plan.Iterations[c] {
			rec.regions[c].gates = append(rec.regions[c].gates, int(w))
		}
	}
	if err := l.materialize(plan); err != nil {
		return nil, nil, err
	}
	return l.out, rec.regions, nil
}

// tree is the recording as internal/lower plans it.
func (l *lowering) tree() lower.Tree {
	rec := l.rec
	t := lower.Tree{Commands: make([]lower.Command, len(rec.nodes)), Regions: make([]lower.Region, len(rec.regions))}
	for i := range rec.nodes {
		n := &rec.nodes[i]
		c := &t.Commands[i]
		n.op.plan(c, rec.regions[n.region].cond)
	}
	for r := 1; r < len(rec.regions); r++ {
		rg := &rec.regions[r]
		t.Regions[r] = lower.Region{Parent: rg.parent, MaxIter: rg.maxIter, Start: rg.start, End: rg.end}
	}
	return t
}

// guarded answers the plan: whether recorded dispatch i's kernel has a
// guarded variant (latching or not), compiling it on first ask.
func (l *lowering) guarded(i int, latch bool) bool {
	if l.s.cfg.noPredicate {
		return false
	}
	d := dispatchOf(&l.rec.nodes[i])
	if d == nil {
		return false
	}
	_, ok := l.variant(d.k, latch)
	return ok
}

// variant returns kernel k's guarded variant (latching or not), compiled
// once per lowering; ok is false when it has none.
func (l *lowering) variant(k driver.Kernel, latch bool) (guardedKernel, bool) {
	if l.variants == nil {
		l.variants = map[variantKey]guardedKernel{}
	}
	key := variantKey{k, latch}
	v, ok := l.variants[key]
	if !ok {
		var err error
		if g, ok := l.s.drv.(driver.Guarder); !ok {
			v.k = nil // a driver without variants: gated indirectly
		} else if v.k, v.layout, err = g.Guarded(k, latch); err != nil {
			// Not an error of the capture: the dispatch is gated
			// indirectly, as every dispatch was before variants.
			l.s.log.Debug().Err(err).Str("kernel", k.Entry()).Bool("latch", latch).Msg("no guarded variant; dispatching indirectly")
			v.k = nil
		}
		l.variants[key] = v
	}
	return v, v.k != nil
}

// variantKey names a guarded variant: the kernel and whether it latches.
type variantKey struct {
	k     driver.Kernel
	latch bool
}

// guardedKernel is a kernel's guarded variant and where its guard binds
// (k nil: it has none).
type guardedKernel struct {
	k      driver.Kernel
	layout driver.GuardLayout
}

// controlKernel compiles (once per device, by the device's cache) one of
// the control-flow kernels.
func (s *Stream) controlKernel(src, entry string) (driver.Kernel, error) {
	return s.drv.Compile(src, entry, nil)
}

// materialize allocates the enable buffer, and with gates the gate buffer
// and the table (written now), then builds every lowered node of the plan
// in order: recorded commands copied (gated ones dispatched from their
// slots, predicated ones through their guarded variants), gate and helper
// dispatches given their kernels (internal/kernels: their sources, and
// where each binds and what its params words hold, as their WGSL says).
func (l *lowering) materialize(plan *lower.Plan) error {
	s := l.s
	pins := l.rec.pins
	table := plan.Table
	enablePg, err := s.mem.Alloc(uint64(max(plan.Enables, 4))*4, lifecycle.PoolNormal)
	if err != nil {
		return err
	}
	pins.addPage(enablePg)
	// The gate buffer and the table are used by gate dispatches and what
	// they drive only: latched regions have none, and a graph without any
	// keeps (and saves) neither.
	var gatePg, tablePg *pool.Page
	if plan.Gates > 0 {
		if gatePg, err = s.mem.Alloc(uint64(max(plan.Counts, 4))*4, lifecycle.PoolNormal); err != nil {
			return err
		}
		pins.addPage(gatePg)
		if tablePg, err = s.mem.Alloc(uint64(len(table)), lifecycle.PoolNormal); err != nil {
			return err
		}
		pins.addPage(tablePg)
		if err := s.eng.WriteBuffer(tablePg.Buffer(), 0, table); err != nil {
			return err
		}
	}
	gateSize, tableSize, enableSize := uint64(max(plan.Counts, 4))*4, uint64(len(table)), uint64(max(plan.Enables, 4))*4
	compiled := map[string]driver.Kernel{}
	kernel := func(src, entry string) (driver.Kernel, error) {
		if k, ok := compiled[entry]; ok {
			return k, nil
		}
		k, err := s.controlKernel(src, entry)
		compiled[entry] = k
		return k, err
	}
	bufAcc := func(pg *pool.Page, b *Buffer, size uint64, at kernels.Binding) access {
		pg.Ref()
		return access{kind: accessBuffer, buf: b, pg: pg, size: size, write: at.Writable, group: at.Group, binding: at.Binding}
	}
	params := func(at kernels.Binding, words []uint32) (access, error) {
		e, err := s.meta.Lookup(ParamsOf(words...), s.eng.Gen(), s.eng.SubmittedGen(), lifecycle.CacheCapture, &s.eng.Open().Slots)
		if err != nil {
			return access{}, err
		}
		return access{kind: accessParams, meta: e, size: e.Size, group: at.Group, binding: at.Binding}, nil
	}
	// recorded copies recorded command i, with an op of its own.
	recorded := func(i int) node {
		n := l.rec.nodes[i]
		n.op = n.op.clone()
		return n
	}
	// dispatch is the recorded dispatch i the plan gates or predicates,
	// copied like recorded.
	dispatch := func(i int, step lower.StepKind) (node, *dispatchOp, error) {
		n := recorded(i)
		d := dispatchOf(&n)
		if d == nil {
			return node{}, nil, fmt.Errorf("recorder: internal error: lowered step %v of command %d, a %s", step, i, n.op.name())
		}
		return n, d, nil
	}
	l.out = make([]node, 0, len(plan.Steps))
	for _, st := range plan.Steps {
		switch st.Kind {
		case lower.StepCommand:
			l.out = append(l.out, recorded(st.Command))
			continue
		case lower.StepGated:
			n, d, err := dispatch(st.Command, st.Kind)
			if err != nil {
				return err
			}
			d.d = Dispatch{isIndirect: true, offset: uint64(st.Slot) * 4}
			d.ind, d.indBuf = gatePg, nil
			l.out = append(l.out, n)
			continue
		case lower.StepGuarded:
			// The variant binds what the original does, plus, in its own
			// group, the enable buffer and the index of its enable word; a
			// latching one also the condition (and writes the word).
			n, d, err := dispatch(st.Command, st.Kind)
			if err != nil {
				return err
			}
			v, _ := l.variant(d.k, st.Latch)
			rg, gl := &l.rec.regions[st.Region], v.layout
			p, err := params(kernels.Binding{Group: gl.Group, Binding: gl.At}, gl.AtWords(st.Enable, uint32(rg.condOff/4)))
			if err != nil {
				return err
			}
			extra := []access{bufAcc(enablePg, nil, enableSize, kernels.Binding{Group: gl.Group, Binding: gl.Words, Writable: st.Latch}), p}
			if st.Latch {
				extra = append(extra, bufAcc(rg.cond, rg.condBuf, rg.condBuf.size, kernels.Binding{Group: gl.Group, Binding: gl.Cond}))
			}
			for i := range extra {
				pins.pinAccess(&extra[i])
			}
			d.acc = append(d.acc, extra...)
			d.k = v.k
			if err := l.regroup(d); err != nil {
				return err
			}
			l.out = append(l.out, n)
			continue
		}
		var n node
		d := &dispatchOp{}
		var k driver.Kernel
		var p access
		switch st.Kind {
		case lower.StepGate:
			rg := &l.rec.regions[st.Region]
			n = node{op: d, region: st.Region}
			gk, err := kernels.Gate()
			if err != nil {
				return err
			}
			if k, err = kernel(gk.Source, gk.Entry); err != nil {
				return err
			}
			gp := kernels.GateParams{CondWord: uint32(rg.condOff / 4), Parent: st.Parent, EnableWord: st.Enable, First: st.First, Count: st.Count}
			if p, err = params(gk.Layout.Params, gk.Words(gp)); err != nil {
				return err
			}
			d.acc = []access{bufAcc(rg.cond, rg.condBuf, rg.condBuf.size, gk.Layout.Cond), bufAcc(gatePg, nil, gateSize, gk.Layout.Gate), bufAcc(tablePg, nil, tableSize, gk.Layout.Table), p,
				bufAcc(enablePg, nil, enableSize, gk.Layout.Enables)}
			d.d = Groups(1, 1, 1)
		case lower.StepForward:
			// Forwards the indirect dispatch's own counts to its slot.
			rc := &l.rec.nodes[st.Command]
			c := dispatchOf(rc)
			if c == nil {
				return fmt.Errorf("recorder: internal error: lowered step %v of command %d, a %s", st.Kind, st.Command, rc.op.name())
			}
			n = node{op: d, region: rc.region}
			fk, err := kernels.Forward()
			if err != nil {
				return err
			}
			if k, err = kernel(fk.Source, fk.Entry); err != nil {
				return err
			}
			if p, err = params(fk.Layout.Params, fk.Words(kernels.ForwardParams{SrcWord: uint32(c.d.offset / 4), EnableWord: st.Enable, Slot: st.Slot})); err != nil {
				return err
			}
			d.acc = []access{bufAcc(c.ind, c.indBuf, c.indBuf.size, fk.Layout.Counts), bufAcc(gatePg, nil, gateSize, fk.Layout.Gate), p,
				bufAcc(enablePg, nil, enableSize, fk.Layout.Enables)}
			d.d = Groups(1, 1, 1)
		case lower.StepCopy:
			rc := &l.rec.nodes[st.Command]
			c, ok := rc.op.(*copyOp)
			if !ok {
				return fmt.Errorf("recorder: internal error: lowered step %v of command %d, a %s", st.Kind, st.Command, rc.op.name())
			}
			n = node{op: d, region: rc.region}
			ck, err := kernels.Copy()
			if err != nil {
				return err
			}
			if k, err = kernel(ck.Source, ck.Entry); err != nil {
				return err
			}
			if p, err = params(ck.Layout.Params, ck.Words(kernels.CopyParams{Src: uint32(c.srcOff / 4), Dst: uint32(c.dstOff / 4), Words: uint32(c.size / 4)})); err != nil {
				return err
			}
			d.acc = []access{bufAcc(c.src, c.srcBuf, c.srcBuf.size, ck.Layout.Src), bufAcc(c.dst, c.dstBuf, c.dstBuf.size, ck.Layout.Dst), p}
			d.d, d.ind = Dispatch{isIndirect: true, offset: uint64(st.Slot) * 4}, gatePg
		case lower.StepClear:
			rc := &l.rec.nodes[st.Command]
			c, ok := rc.op.(*clearOp)
			if !ok {
				return fmt.Errorf("recorder: internal error: lowered step %v of command %d, a %s", st.Kind, st.Command, rc.op.name())
			}
			n = node{op: d, region: rc.region}
			ck, err := kernels.Clear()
			if err != nil {
				return err
			}
			if k, err = kernel(ck.Source, ck.Entry); err != nil {
				return err
			}
			if p, err = params(ck.Layout.Params, ck.Words(kernels.ClearParams{Dst: uint32(c.dstOff / 4), Words: uint32(c.size / 4)})); err != nil {
				return err
			}
			d.acc = []access{bufAcc(c.dst, c.dstBuf, c.dstBuf.size, ck.Layout.Dst), p}
			d.d, d.ind = Dispatch{isIndirect: true, offset: uint64(st.Slot) * 4}, gatePg
		default:
			return fmt.Errorf("recorder: internal error: lowered step of kind %v", st.Kind)
		}
		d.k = k
		for i := range d.acc {
			pins.pinAccess(&d.acc[i])
		}
		if err := l.regroup(d); err != nil {
			return err
		}
		l.out = append(l.out, n)
	}
	l.rec.enablePage, l.rec.gatePage, l.rec.tablePage, l.rec.table = enablePg, gatePg, tablePg, table
	return nil
}

// regroup makes lowered dispatch d's bind groups for its kernel and
// accesses, pinned by the recording.
func (l *lowering) regroup(d *dispatchOp) error {
	var groups [4]*bindGroup
	if err := l.s.bindGroups(lifecycle.Branch, d.k, d.acc, &groups); err != nil {
		return err
	}
	d.groups = [4]*bindGroup{}
	for i, g := range groups {
		if g != nil {
			d.groups[i] = g
			l.rec.pins.addGroup(g)
		}
	}
	return nil
}

// controlSummary describes the graph's If and While regions for String
// ("" when it has none).
func (g *Graph) controlSummary() string {
	if len(g.regions) <= 1 {
		return ""
	}
	counts := make([]int, len(g.regions))
	for i := range g.nodes {
		counts[g.nodes[i].region]++
	}
	var parts []string
	for i, r := range g.regions[1:] {
		id := i + 1
		switch r.kind {
		case regionIf:
			parts = append(parts, fmt.Sprintf("If r%d in r%d (%d commands, gate included)", id, r.parent, counts[id]))
		case regionWhile:
			parts = append(parts, fmt.Sprintf("While r%d in r%d (≤%d iterations, %d commands unrolled, gates included)", id, r.parent, r.maxIter, counts[id]))
		}
	}
	return "control: " + strings.Join(parts, ", ")
}

// writeClusters draws the graph's If and While regions as DOT clusters
// holding their commands (all iterations of a While together).
func (g *Graph) writeClusters(w io.Writer) {
	if len(g.regions) <= 1 {
		return
	}
	members := make([][]int, len(g.regions))
	for i := range g.nodes {
		members[g.nodes[i].region] = append(members[g.nodes[i].region], i)
	}
	var write func(r int, indent string)
	write = func(r int, indent string) {
		rg := g.regions[r]
		label := "If"
		if rg.kind == regionWhile {
			label = fmt.Sprintf("While ≤%d", rg.maxIter)
		}
		fmt.Fprintf(w, "%ssubgraph cluster_r%d {\n%s  label=\"r%d: %s\";\n", indent, r, indent, r, label)
		for _, n := range members[r] {
			fmt.Fprintf(w, "%s  d%d;\n", indent, n)
		}
		for c := r + 1; c < len(g.regions); c++ {
			if g.regions[c].parent == r {
				write(c, indent+"  ")
			}
		}
		fmt.Fprintf(w, "%s}\n", indent)
	}
	for c := 1; c < len(g.regions); c++ {
		if g.regions[c].parent == 0 {
			write(c, "  ")
		}
	}
}

// BranchRun is one If or While of a profiled replay and the iterations of
// it that ran.
type BranchRun struct {
	Region int    // the region's number, as Graph.String names it (r1, r2, ...)
	Kind   string // "If" or "While"
	Ran    []bool // per unrolled iteration (one for an If): whether the body ran
}

// branchRuns reads, after a profiled replay, which bodies ran: the gate
// buffer's enable words. It runs in ProfileReplay's transaction, which
// readBackTx admits again after its first wait.
func (s *Stream) branchRuns(tx *engine.Tx, g *Graph) ([]BranchRun, error) {
	if len(g.regions) <= 1 || g.enablePage == nil {
		return nil, nil
	}
	var words []uint32
	size := g.enablePage.Cap()
	raw, err := s.readBackTx(context.Background(), tx, "gate buffer", func(enc driver.Encoder, st driver.Buffer) error {
		return enc.CopyBuffer(g.enablePage.Buffer(), 0, st, 0, size)
	}, size)
	if err != nil {
		return nil, err
	}
	words = make([]uint32, len(raw)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	var out []BranchRun
	for i, r := range g.regions[1:] {
		run := BranchRun{Region: i + 1, Kind: r.kind.String()}
		for _, w := range r.gates {
			run.Ran = append(run.Ran, int(w) < len(words) && words[w] != 0)
		}
		out = append(out, run)
	}
	return out, nil
}
