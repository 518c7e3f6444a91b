package recorder

import (
	"context"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// MaxWhileIterations is the most iterations one While may record. A While
// is unrolled in the graph (each iteration is the body's dispatches, plus a
// gate dispatch unless the body's first dispatch latches the condition),
// so its cost in graph size and in skipped-iteration overhead grows with
// it.
const MaxWhileIterations = 4096

// maxLowered bounds the dispatches a graph with control flow may unroll
// to (nested loops multiply).
const maxLowered = 1 << 20

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
func (s *Stream) If(cond *Buffer, offset uint64, body func() error) (err error) {
	defer s.noteRefusal(&err)
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
func (s *Stream) While(cond *Buffer, offset uint64, maxIterations int, body func() error) (err error) {
	defer s.noteRefusal(&err)
	if maxIterations < 1 || maxIterations > MaxWhileIterations {
		return argError(lifecycle.Branch, ErrInvalidArgument, "While: maxIterations=%d (1..%d: a While is unrolled in the graph)", maxIterations, MaxWhileIterations)
	}
	return s.branch(regionWhile, cond, offset, maxIterations, body)
}

func (s *Stream) branch(kind regionKind, cond *Buffer, offset uint64, maxIter int, body func() error) error {
	const op = lifecycle.Branch
	name := kind.String()
	if err := s.check(op); err != nil {
		return err
	}
	if body == nil {
		return argError(op, ErrInvalidArgument, "%s: body is nil", name)
	}
	if cond != nil && (offset%4 != 0 || offset > cond.size || cond.size-offset < 4) {
		return argError(op, ErrInvalidArgument, "%s: condition offset=%d into a %d-byte buffer (a multiple of 4 with 4 bytes after it)", name, offset, cond.size)
	}
	pg, err := cond.acquire(op, name+": condition buffer", s)
	if err != nil {
		return err
	}
	v, err := s.admit(op)
	if err != nil {
		pg.Unref()
		return err
	}
	if v == lifecycle.Execute {
		s.mu.Unlock()
		defer pg.Unref()
		return s.branchEagerly(kind, cond, pg, offset, maxIter, body)
	}
	// Record: the body's work goes into a region of the recording.
	if err := s.bodyBinds(op, cond, name+": condition buffer", true); err != nil {
		s.mu.Unlock()
		pg.Unref()
		return err
	}
	rec := s.capturing()
	parent := rec.cur
	rec.regions = append(rec.regions, region{kind: kind, parent: parent, cond: pg, condBuf: cond, condOff: offset,
		maxIter: maxIter, start: len(rec.nodes)})
	id := len(rec.regions) - 1
	rec.pins.addPage(pg)
	rec.cur = id
	nodes := len(rec.nodes)
	s.mu.Unlock()
	berr := body()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.capturing() != rec {
		// The body ended or abandoned the capture itself.
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
		return &StepError{Run: name + " body", Err: berr}
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
	err := s.readBack(context.Background(), lifecycle.Read, what, func(st driver.Buffer) error {
		return s.enc.CopyBuffer(pg.Buffer(), offset, st, 0, 4)
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

// noParent marks a top-level gate (no enclosing body to ask).
const noParent = 0xffffffff

// gateItem is one gate dispatch of the lowered graph.
type gateItem struct {
	region  int
	cond    *pool.Page
	condBuf *Buffer
	condOff uint64
	parent  uint32 // enable word of the enclosing gate, or noParent
	enable  uint32 // this gate's enable word
	entries [][4]uint32
	// latch: no gate dispatch; the body's first dispatch, a latching
	// guarded variant, decides from the condition and writes the enable
	// word (latched once it has been emitted).
	latch, latched bool
}

// lowering turns regions into gates: it walks the recording, assigning
// words of the gate buffer, and emits the final node list.
type lowering struct {
	s       *Stream
	rec     *recording
	words   uint32 // words of the gate buffer (indirect counts) used so far
	enables uint32 // words of the enable buffer used so far
	out     []node
	gates   []*gateItem
	// Pending: nodes waiting for the gate and table buffers to exist.
	fixups []fixup
	// variants caches each body kernel's guarded variants.
	variants map[variantKey]guardedKernel
}

// fixup says how a lowered node is completed once the gate buffer exists.
type fixup struct {
	at   int // index in out
	kind fixKind
	gate *gateItem
	slot uint32 // gated dispatch: its counts' word
	// forwarders and copy kernels
	src, dst       *pool.Page
	srcBuf, dstBuf *Buffer
	srcWord, words uint32
	dstWord        uint32
	// guarded dispatches: the variant, where its guard binds, and whether
	// it latches
	guard  driver.Kernel
	layout driver.GuardLayout
	latch  bool
}

type fixKind uint8

const (
	fixGated   fixKind = iota // an original dispatch, now dispatched from its slot
	fixGate                   // a gate dispatch
	fixForward                // forwards an indirect dispatch's counts to its slot
	fixCopy                   // a copy run as a kernel, from its slot
	fixClear                  // a clear run as a kernel, from its slot
	fixGuarded                // an original dispatch, now through its guarded variant
)

// lower turns a recording's nodes and regions into the graph's final node
// list: without control flow, the recording itself.
func lower(s *Stream, rec *recording) ([]node, []region, error) {
	if len(rec.regions) == 1 || rec.lowered {
		return rec.nodes, rec.regions, nil
	}
	// Nested loops multiply: count first, so a recording that would unroll
	// past the bound is refused before it is built.
	if n := unrolled(rec, 0); n > maxLowered {
		return nil, nil, argError(lifecycle.Branch, ErrInvalidArgument, "control flow unrolls to more than %d commands: lower a While's maxIterations", maxLowered)
	}
	l := &lowering{s: s, rec: rec}
	if err := l.emit(0, noParent, nil); err != nil {
		return nil, nil, err
	}
	if n := len(l.out); n > maxLowered {
		return nil, nil, argError(lifecycle.Branch, ErrInvalidArgument, "control flow unrolls to %d commands (at most %d): lower a While's maxIterations", n, maxLowered)
	}
	if err := l.materialize(); err != nil {
		return nil, nil, err
	}
	return l.out, rec.regions, nil
}

// unrolled is how many commands region r lowers to, at most maxLowered+1
// (it stops counting past the bound, so it cannot overflow): its own nodes
// (inside a body, an indirect dispatch takes two: its forwarder and
// itself), and per iteration of each nested region a gate and that
// region's count.
func unrolled(rec *recording, r int) int {
	rg := &rec.regions[r]
	start, end := rg.start, rg.end
	if r == 0 {
		start, end = 0, len(rec.nodes)
	}
	n, i := 0, start
	own := func(to int) {
		for ; i < to; i++ {
			n++
			if r != 0 && rec.nodes[i].kind == nodeDispatch && rec.nodes[i].ind != nil {
				n++
			}
		}
	}
	for c := r + 1; c < len(rec.regions) && n <= maxLowered; c++ {
		child := &rec.regions[c]
		if child.parent != r {
			continue
		}
		own(child.start)
		per := 1 + unrolled(rec, c)
		if per > maxLowered || child.maxIter > (maxLowered+1)/per {
			return maxLowered + 1
		}
		n += child.maxIter * per
		i = child.end
	}
	own(end)
	return min(n, maxLowered+1)
}

// emit writes region r's content: its direct nodes (gated by gate g when
// inside a body) and its nested regions, in recording order.
func (l *lowering) emit(r int, enable uint32, g *gateItem) error {
	rg := &l.rec.regions[r]
	start, end := rg.start, rg.end
	if r == 0 {
		start, end = 0, len(l.rec.nodes)
	}
	i := start
	for c := r + 1; c < len(l.rec.regions); c++ {
		child := &l.rec.regions[c]
		if child.parent != r {
			continue
		}
		for ; i < child.start; i++ {
			if err := l.node(i, enable, g); err != nil {
				return err
			}
		}
		if err := l.child(c, enable); err != nil {
			return err
		}
		i = child.end
	}
	for ; i < end; i++ {
		if err := l.node(i, enable, g); err != nil {
			return err
		}
	}
	if len(l.out) > maxLowered {
		return argError(lifecycle.Branch, ErrInvalidArgument, "control flow unrolls to more than %d commands: lower a While's maxIterations", maxLowered)
	}
	return nil
}

// child emits a nested If (one gate) or While (one gate per iteration, each
// enabled only if the previous one was). A latchable region (latchable)
// gets no gate dispatches: its first dispatch latches each iteration.
func (l *lowering) child(c int, parent uint32) error {
	rg := &l.rec.regions[c]
	prev := parent
	latch := parent == noParent && l.latchable(c)
	for it := 0; it < rg.maxIter; it++ {
		g := &gateItem{region: c, cond: rg.cond, condBuf: rg.condBuf, condOff: rg.condOff, parent: prev, enable: l.enables, latch: latch}
		l.enables++
		rg.gates = append(rg.gates, int(g.enable))
		if !latch {
			l.gates = append(l.gates, g)
			l.out = append(l.out, node{kind: nodeDispatch, region: c})
			l.fixups = append(l.fixups, fixup{at: len(l.out) - 1, kind: fixGate, gate: g})
		}
		if err := l.emit(c, g.enable, g); err != nil {
			return err
		}
		prev = g.enable
	}
	return nil
}

// node emits recorded node i: unchanged at top level, gated inside a body.
func (l *lowering) node(i int, enable uint32, g *gateItem) error {
	n := l.rec.nodes[i]
	n.acc = append([]access(nil), n.acc...)
	if g == nil {
		l.out = append(l.out, n)
		return nil
	}
	latch := g.latch && !g.latched
	if v, layout, ok := l.guarded(&n, latch); ok {
		// Predicated: dispatched directly, each invocation returning at
		// once unless the body is enabled (the latching dispatch decides
		// that from the condition and records it).
		g.latched = g.latched || latch
		l.out = append(l.out, n)
		l.fixups = append(l.fixups, fixup{at: len(l.out) - 1, kind: fixGuarded, gate: g, guard: v, layout: layout, latch: latch})
		return nil
	}
	if g.latch {
		// latchable admits only regions whose direct commands are all
		// predicated: a latched gate has no dispatch to write a slot.
		return fmt.Errorf("recorder: internal error: command %d (%s) of a latched region needs a gate slot", i, n.name())
	}
	slot := l.words
	l.words += 3
	switch {
	case n.kind == nodeDispatch && n.ind != nil:
		// Its own counts are read on the GPU when it is reached: a
		// forwarder copies them to the slot (or zeros when skipped).
		l.out = append(l.out, node{kind: nodeDispatch, region: n.region})
		l.fixups = append(l.fixups, fixup{at: len(l.out) - 1, kind: fixForward, gate: g, slot: slot, src: n.ind, srcBuf: n.indBuf, srcWord: uint32(n.d.offset / 4)})
		l.out = append(l.out, n)
		l.fixups = append(l.fixups, fixup{at: len(l.out) - 1, kind: fixGated, slot: slot})
	case n.kind == nodeDispatch:
		g.entries = append(g.entries, [4]uint32{slot, n.d.x, n.d.y, n.d.z})
		l.out = append(l.out, n)
		l.fixups = append(l.fixups, fixup{at: len(l.out) - 1, kind: fixGated, slot: slot})
	default:
		words := uint32(n.size / 4)
		groups := (words + 63) / 64
		gx, gy := min(groups, 65535), (groups+65534)/65535
		g.entries = append(g.entries, [4]uint32{slot, gx, gy, 1})
		kind := fixCopy
		if n.kind == nodeClear {
			kind = fixClear
		}
		l.out = append(l.out, node{kind: nodeDispatch, region: n.region})
		l.fixups = append(l.fixups, fixup{at: len(l.out) - 1, kind: kind, slot: slot, src: n.src, srcBuf: n.srcBuf, dst: n.dst, dstBuf: n.dstBuf,
			srcWord: uint32(n.srcOff / 4), dstWord: uint32(n.dstOff / 4), words: words})
	}
	return nil
}

// maxGuardedGroups is the most workgroups a gated dispatch may have to be
// predicated (run through its kernel's guarded variant) instead of
// dispatched indirectly. A skipped predicated dispatch still launches
// every workgroup, each returning at once; up to this many that costs
// about what an empty dispatch does (one wave on a discrete GPU), while
// an indirect dispatch costs more per dispatch whether it runs or not
// (it waits for its counts). Larger dispatches, and kernels without a
// guarded variant, are dispatched indirectly.
const maxGuardedGroups = 256

// guarded returns the guarded variant (latching or not) of gated dispatch
// n's kernel when n is to be predicated.
func (l *lowering) guarded(n *node, latch bool) (driver.Kernel, driver.GuardLayout, bool) {
	if n.kind != nodeDispatch || n.ind != nil || l.s.cfg.noPredicate ||
		uint64(n.d.x)*uint64(n.d.y)*uint64(n.d.z) > maxGuardedGroups {
		return nil, driver.GuardLayout{}, false
	}
	if l.variants == nil {
		l.variants = map[variantKey]guardedKernel{}
	}
	key := variantKey{n.k, latch}
	v, ok := l.variants[key]
	if !ok {
		var err error
		if g, ok := l.s.drv.(driver.Guarder); !ok {
			v.k = nil // a driver without variants: gated indirectly
		} else if v.k, v.layout, err = g.Guarded(n.k, latch); err != nil {
			// Not an error of the capture: the dispatch is gated
			// indirectly, as every dispatch was before variants.
			l.s.log.Debug().Err(err).Str("kernel", n.k.Entry()).Bool("latch", latch).Msg("no guarded variant; dispatching indirectly")
			v.k = nil
		}
		l.variants[key] = v
	}
	return v.k, v.layout, v.k != nil
}

// latchable reports whether region c (at top level) can do without gate
// dispatches: its first command is a dispatch that does not bind the
// condition's buffer and has a latching variant, and every other command
// directly in it (nested regions aside, which keep their gates) has a
// guarded variant. The first dispatch then decides each iteration from the
// condition itself. That needs no "every earlier iteration ran" term: when
// an iteration is skipped nothing in its body runs, so the condition is
// still zero when the next one reads it.
func (l *lowering) latchable(c int) bool {
	rg := &l.rec.regions[c]
	if rg.start == rg.end {
		return false
	}
	// inChild: node i belongs to a nested region (an empty one holds no
	// node; its gates are emitted before the node at its start).
	inChild := func(i int) bool {
		for d := c + 1; d < len(l.rec.regions); d++ {
			ch := &l.rec.regions[d]
			if ch.parent == c && i >= ch.start && i < ch.end {
				return true
			}
		}
		return false
	}
	for d := c + 1; d < len(l.rec.regions); d++ {
		if ch := &l.rec.regions[d]; ch.parent == c && ch.start == rg.start {
			return false // a nested region's gate would run before the latch
		}
	}
	first := &l.rec.nodes[rg.start]
	if first.kind != nodeDispatch || first.d.isIndirect || first.d.x == 0 || first.d.y == 0 || first.d.z == 0 {
		return false
	}
	for _, a := range first.acc {
		if a.kind == accessBuffer && a.pg == rg.cond {
			return false
		}
	}
	if _, _, ok := l.guarded(first, true); !ok {
		return false
	}
	for i := rg.start + 1; i < rg.end; i++ {
		if inChild(i) {
			continue
		}
		if _, _, ok := l.guarded(&l.rec.nodes[i], false); !ok {
			return false
		}
	}
	return true
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

// Embedded control-flow kernels.
var (
	//go:embed control.wgsl
	gateWGSL string
	//go:embed control_forward.wgsl
	forwardWGSL string
	//go:embed control_copy.wgsl
	copyWGSL string
	//go:embed control_clear.wgsl
	clearWGSL string
)

// controlKernel compiles (once per device, by the device's cache) one of
// the control-flow kernels.
func (s *Stream) controlKernel(src, entry string) (driver.Kernel, error) {
	return s.drv.Compile(src, entry, nil)
}

// materialize allocates the gate buffer and the table, writes the table,
// and completes every lowered node: gate and helper dispatches get their
// kernels, bindings and params; gated nodes dispatch from their slots.
func (l *lowering) materialize() error {
	s := l.s
	pins := l.rec.pins
	var table []byte
	for _, g := range l.gates {
		first := uint32(len(table) / 16)
		for _, e := range g.entries {
			for _, w := range e {
				table = binary.LittleEndian.AppendUint32(table, w)
			}
		}
		g.entries = append(g.entries[:0], [4]uint32{first, uint32(len(g.entries))})
	}
	if len(table) == 0 {
		table = make([]byte, 16)
	}
	enablePg, err := s.mem.Alloc(uint64(max(l.enables, 4))*4, lifecycle.PoolNormal)
	if err != nil {
		return err
	}
	pins.addPage(enablePg)
	// The gate buffer and the table are used by gate dispatches and what
	// they drive only: latched regions have none, and a graph without any
	// keeps (and saves) neither.
	var gatePg, tablePg *pool.Page
	if len(l.gates) > 0 {
		if gatePg, err = s.mem.Alloc(uint64(max(l.words, 4))*4, lifecycle.PoolNormal); err != nil {
			return err
		}
		pins.addPage(gatePg)
		if tablePg, err = s.mem.Alloc(uint64(len(table)), lifecycle.PoolNormal); err != nil {
			return err
		}
		pins.addPage(tablePg)
		if err := s.drv.WriteBuffer(tablePg.Buffer(), 0, table); err != nil {
			return err
		}
	} else {
		table = nil
	}
	gateSize, tableSize, enableSize := uint64(max(l.words, 4))*4, uint64(len(table)), uint64(max(l.enables, 4))*4
	kernels := map[string]driver.Kernel{}
	kernel := func(src, entry string) (driver.Kernel, error) {
		if k, ok := kernels[entry]; ok {
			return k, nil
		}
		k, err := s.controlKernel(src, entry)
		kernels[entry] = k
		return k, err
	}
	bufAcc := func(pg *pool.Page, b *Buffer, size uint64, write bool, binding uint32) access {
		pg.Ref()
		return access{kind: accessBuffer, buf: b, pg: pg, size: size, write: write, binding: binding}
	}
	params := func(binding uint32, words ...uint32) (access, error) {
		e, err := s.meta.Lookup(ParamsOf(words...), s.gen, s.submittedGen, lifecycle.CacheCapture, &s.batch.slots)
		if err != nil {
			return access{}, err
		}
		return access{kind: accessParams, meta: e, size: e.Size, binding: binding}, nil
	}
	for _, f := range l.fixups {
		n := &l.out[f.at]
		if f.kind == fixGated {
			n.d = Dispatch{isIndirect: true, offset: uint64(f.slot) * 4}
			n.ind, n.indBuf = gatePg, nil
			continue
		}
		if f.kind == fixGuarded {
			// The variant binds what the original does, plus, in its own
			// group, the gate buffer and the index of its enable word; a
			// latching one also the condition (and writes the word).
			g, gl := f.gate, f.layout
			p, err := params(gl.At, g.enable, uint32(g.condOff/4), 0, 0)
			if err != nil {
				return err
			}
			extra := []access{bufAcc(enablePg, nil, enableSize, f.latch, gl.Words), p}
			if f.latch {
				extra = append(extra, bufAcc(g.cond, g.condBuf, g.condBuf.size, false, gl.Cond))
			}
			for i := range extra {
				extra[i].group = gl.Group
				pins.pinAccess(&extra[i])
			}
			n.acc = append(n.acc, extra...)
			n.k = f.guard
			if err := l.regroup(n); err != nil {
				return err
			}
			continue
		}
		var k driver.Kernel
		var p access
		switch f.kind {
		case fixGate:
			g := f.gate
			if k, err = kernel(gateWGSL, "softgraph_gate"); err != nil {
				return err
			}
			if p, err = params(3, uint32(g.condOff/4), g.parent, g.enable, g.entries[0][0], g.entries[0][1], 0, 0, 0); err != nil {
				return err
			}
			n.acc = []access{bufAcc(g.cond, g.condBuf, g.condBuf.size, false, 0), bufAcc(gatePg, nil, gateSize, true, 1), bufAcc(tablePg, nil, tableSize, false, 2), p,
				bufAcc(enablePg, nil, enableSize, true, 4)}
			n.d = Groups(1, 1, 1)
		case fixForward:
			if k, err = kernel(forwardWGSL, "softgraph_forward"); err != nil {
				return err
			}
			if p, err = params(2, f.srcWord, f.gate.enable, f.slot, 0); err != nil {
				return err
			}
			n.acc = []access{bufAcc(f.src, f.srcBuf, f.srcBuf.size, false, 0), bufAcc(gatePg, nil, gateSize, true, 1), p,
				bufAcc(enablePg, nil, enableSize, false, 3)}
			n.d = Groups(1, 1, 1)
		case fixCopy:
			if k, err = kernel(copyWGSL, "softgraph_copy"); err != nil {
				return err
			}
			if p, err = params(2, f.srcWord, f.dstWord, f.words, 0); err != nil {
				return err
			}
			n.acc = []access{bufAcc(f.src, f.srcBuf, f.srcBuf.size, false, 0), bufAcc(f.dst, f.dstBuf, f.dstBuf.size, true, 1), p}
			n.d, n.ind = Dispatch{isIndirect: true, offset: uint64(f.slot) * 4}, gatePg
		case fixClear:
			if k, err = kernel(clearWGSL, "softgraph_clear"); err != nil {
				return err
			}
			if p, err = params(1, 0, f.dstWord, f.words, 0); err != nil {
				return err
			}
			n.acc = []access{bufAcc(f.dst, f.dstBuf, f.dstBuf.size, true, 0), p}
			n.d, n.ind = Dispatch{isIndirect: true, offset: uint64(f.slot) * 4}, gatePg
		}
		n.k = k
		for i := range n.acc {
			pins.pinAccess(&n.acc[i])
		}
		if err := l.regroup(n); err != nil {
			return err
		}
	}
	l.rec.enablePage, l.rec.gatePage, l.rec.tablePage, l.rec.table = enablePg, gatePg, tablePg, table
	return nil
}

// regroup makes lowered node n's bind groups for its kernel and accesses,
// pinned by the recording.
func (l *lowering) regroup(n *node) error {
	var groups [4]*bindGroup
	if err := l.s.bindGroups(lifecycle.Branch, n.k, n.acc, &groups); err != nil {
		return err
	}
	n.groups = [4]*bindGroup{}
	for i, g := range groups {
		if g != nil {
			n.groups[i] = g
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
// buffer's enable words.
func (s *Stream) branchRuns(g *Graph) ([]BranchRun, error) {
	if len(g.regions) <= 1 || g.enablePage == nil {
		return nil, nil
	}
	var words []uint32
	size := g.enablePage.Cap()
	err := s.readBack(context.Background(), lifecycle.Profile, "gate buffer", func(st driver.Buffer) error {
		return s.enc.CopyBuffer(g.enablePage.Buffer(), 0, st, 0, size)
	}, size, func(raw []byte) {
		words = make([]uint32, len(raw)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(raw[4*i:])
		}
	})
	if err != nil {
		return nil, err
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
