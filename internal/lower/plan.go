package lower

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// MaxCommands is the default bound on the commands a tree may lower to
// (nested loops multiply).
const MaxCommands = 1 << 20

// MaxGuardedGroups is the most workgroups a gated dispatch may have to be
// predicated (run through its kernel's guarded variant) instead of
// dispatched indirectly. A skipped predicated dispatch still launches
// every workgroup, each returning at once; up to this many that costs
// about what an empty dispatch does (one wave on a discrete GPU), while
// an indirect dispatch costs more per dispatch whether it runs or not
// (it waits for its counts). Larger dispatches, and kernels without a
// guarded variant, are dispatched indirectly.
const MaxGuardedGroups = 256

// NoParent is a top-level gate's parent word: there is no enclosing body
// to ask.
const NoParent = 0xffffffff

// CommandKind is what a recorded command does.
type CommandKind uint8

const (
	Dispatch CommandKind = iota
	Copy
	Clear
)

func (k CommandKind) String() string {
	switch k {
	case Dispatch:
		return "dispatch"
	case Copy:
		return "copy"
	case Clear:
		return "clear"
	}
	return fmt.Sprintf("CommandKind(%d)", uint8(k))
}

// Command is what the plan needs to know of one recorded command.
type Command struct {
	Kind CommandKind
	// Indirect: a dispatch whose counts are read from a buffer when it
	// runs (inside a body a forwarder copies them to its slot).
	Indirect bool
	// Groups are a direct dispatch's workgroup counts.
	Groups [3]uint32
	// Words is a copy's or clear's size in 4-byte words.
	Words uint32
	// BindsCondition: a dispatch that binds the condition buffer of the
	// region it was recorded in (it cannot latch that condition: it may
	// write it).
	BindsCondition bool
}

// Region is one If or While body (Tree.Regions[0] is the top level, whose
// bounds are the whole tree). An If is a region of one iteration.
type Region struct {
	// Parent is the index of the enclosing region (0: top level); it is
	// smaller than the region's own index.
	Parent int
	// MaxIter is how many times the body is unrolled (1 for an If).
	MaxIter int
	// Start and End bound the commands recorded inside the body, nested
	// regions' included: Tree.Commands[Start:End]. Nested regions lie
	// inside their parent's bounds, siblings in order without overlap.
	Start, End int
}

// Tree is a recording as the plan sees it: commands in recording order
// and the regions around them, in the order they were opened (a parent
// before its children, siblings in order).
type Tree struct {
	Commands []Command
	Regions  []Region
}

// Options are the caller's answers and bounds.
type Options struct {
	// Guarded reports whether command cmd's kernel has a guarded variant
	// (latching, or not). It is asked only of direct dispatches of at most
	// MaxGuardedGroups workgroups inside a body. Nil: no kernel has one, so
	// every body command is gated indirectly.
	Guarded func(cmd int, latch bool) bool
	// Limit bounds the lowered commands (0: MaxCommands).
	Limit int
}

// StepKind is what a lowered command is.
type StepKind uint8

const (
	// StepCommand: a top-level recorded command, unchanged.
	StepCommand StepKind = iota
	// StepGate: a gate dispatch. It reads its region's condition and the
	// parent's enable word, writes its own enable word, and writes the
	// counts of its body's gated commands (table entries First..First+Count)
	// or zeros.
	StepGate
	// StepGuarded: a recorded dispatch run through its kernel's guarded
	// variant, which returns at once unless Enable is set; a latching one
	// (Latch) decides from the region's condition and writes Enable.
	StepGuarded
	// StepGated: a recorded dispatch, dispatched indirectly from the
	// counts at word Slot of the gate buffer (the counts gates write).
	StepGated
	// StepForward: copies an indirect dispatch's own counts to word Slot
	// when Enable is set (zeros when not); the StepGated of that dispatch
	// follows it.
	StepForward
	// StepCopy and StepClear: a recorded copy or clear run as a kernel,
	// dispatched indirectly from word Slot.
	StepCopy
	StepClear
)

func (k StepKind) String() string {
	switch k {
	case StepCommand:
		return "command"
	case StepGate:
		return "gate"
	case StepGuarded:
		return "guarded"
	case StepGated:
		return "gated"
	case StepForward:
		return "forward"
	case StepCopy:
		return "copy"
	case StepClear:
		return "clear"
	}
	return fmt.Sprintf("StepKind(%d)", uint8(k))
}

// Step is one command of the lowered list.
type Step struct {
	Kind StepKind
	// Command is the recorded command the step runs, or stands for (a
	// forwarder: the dispatch whose counts it forwards); -1 for a gate.
	Command int
	// Region is the region whose iteration the step belongs to (0: top
	// level); a gate's is the region it gates.
	Region int
	// Enable is the enable word that lets the step run (a gate's: the one
	// it writes). Gates, guarded dispatches and forwarders only.
	Enable uint32
	// Parent is a gate's enclosing enable word (the previous iteration's
	// for a While, the enclosing body's, or NoParent).
	Parent uint32
	// Latch: a guarded dispatch that decides from the condition and writes
	// Enable (its iteration has no gate dispatch).
	Latch bool
	// Slot is the first of the three count words a gated, forwarded,
	// copied or cleared command dispatches from.
	Slot uint32
	// First and Count are a gate's entries in the table.
	First, Count uint32
}

// Plan is a tree's lowering.
type Plan struct {
	Steps []Step
	// Enables is how many enable words the steps use (one per iteration of
	// every region, latched ones included).
	Enables uint32
	// Counts is how many words of the gate buffer (the counts gates write) the steps use.
	Counts uint32
	// Gates is how many gate dispatches there are; without any, no count
	// buffer or table is needed.
	Gates int
	// Table is what the gates read: per gated command a little-endian
	// [slot, x, y, z] entry, grouped by gate. At least one zero entry when
	// there are gates; nil when there are none.
	Table []byte
	// Iterations lists, per region, the enable word of each unrolled
	// iteration (nil for the top level).
	Iterations [][]uint32
}

// ErrMalformed is returned, wrapped, for a tree whose regions do not nest
// or do not bound commands of the tree.
var ErrMalformed = errors.New("malformed control-flow tree")

// TooLongError is returned when the tree lowers to more commands than the
// limit. Commands is the count, or 0 when counting stopped past the limit.
type TooLongError struct {
	Commands, Limit int
}

func (e *TooLongError) Error() string {
	if e.Commands == 0 {
		return fmt.Sprintf("lower: control flow unrolls to more than %d commands", e.Limit)
	}
	return fmt.Sprintf("lower: control flow unrolls to %d commands (at most %d)", e.Commands, e.Limit)
}

// Lower plans tree t. A tree without regions besides the top level lowers
// to its commands unchanged. Errors: ErrMalformed (wrapped) for a tree
// that does not nest, *TooLongError for one that unrolls past the limit
// (refused before any Guarded call when the count shows it).
func Lower(t Tree, opt Options) (*Plan, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	limit := opt.Limit
	if limit <= 0 {
		limit = MaxCommands
	}
	// Nested loops multiply: count first, so a tree that would unroll past
	// the bound is refused before it is built.
	if n := t.unrolled(0, limit); n > limit {
		return nil, &TooLongError{Limit: limit}
	}
	p := &planner{t: &t, opt: opt, limit: limit, iters: make([][]uint32, len(t.Regions))}
	if err := p.emit(0, NoParent, nil); err != nil {
		return nil, err
	}
	if n := len(p.steps); n > limit {
		return nil, &TooLongError{Commands: n, Limit: limit}
	}
	return p.plan(), nil
}

// check reports a tree whose regions do not nest.
func (t *Tree) check() error {
	if len(t.Regions) == 0 {
		return fmt.Errorf("lower: no top-level region: %w", ErrMalformed)
	}
	// last[r] is where the previous child of r ended.
	last := make([]int, len(t.Regions))
	for r := 1; r < len(t.Regions); r++ {
		rg := &t.Regions[r]
		if rg.Parent < 0 || rg.Parent >= r {
			return fmt.Errorf("lower: region %d: parent %d (an earlier region): %w", r, rg.Parent, ErrMalformed)
		}
		if rg.MaxIter < 1 {
			return fmt.Errorf("lower: region %d: %d iterations (at least 1): %w", r, rg.MaxIter, ErrMalformed)
		}
		ps, pe := t.bounds(rg.Parent)
		if rg.Start < max(ps, last[rg.Parent]) || rg.End < rg.Start || rg.End > pe {
			return fmt.Errorf("lower: region %d: commands [%d, %d) outside its parent's [%d, %d) or before its previous sibling's end %d: %w",
				r, rg.Start, rg.End, ps, pe, last[rg.Parent], ErrMalformed)
		}
		last[rg.Parent] = rg.End
	}
	return nil
}

// bounds are the commands region r holds, nested regions' included.
func (t *Tree) bounds(r int) (start, end int) {
	if r == 0 {
		return 0, len(t.Commands)
	}
	return t.Regions[r].Start, t.Regions[r].End
}

// unrolled is how many commands region r lowers to, at most limit+1 (it
// stops counting past the bound, so it cannot overflow): its own commands
// (inside a body, an indirect dispatch takes two: its forwarder and
// itself), and per iteration of each nested region a gate and that
// region's count.
func (t *Tree) unrolled(r, limit int) int {
	start, end := t.bounds(r)
	n, i := 0, start
	own := func(to int) {
		for ; i < to; i++ {
			n++
			if r != 0 && t.Commands[i].Kind == Dispatch && t.Commands[i].Indirect {
				n++
			}
		}
	}
	for c := r + 1; c < len(t.Regions) && n <= limit; c++ {
		child := &t.Regions[c]
		if child.Parent != r {
			continue
		}
		own(child.Start)
		per := 1 + t.unrolled(c, limit)
		if per > limit || child.MaxIter > (limit+1)/per {
			return limit + 1
		}
		n += child.MaxIter * per
		i = child.End
	}
	own(end)
	return min(n, limit+1)
}

// gate is one iteration of a region being planned.
type gate struct {
	region int
	enable uint32
	step   int // its StepGate, or -1 when latched
	// entries are the [slot, x, y, z] counts it writes for its gated
	// commands.
	entries [][4]uint32
	// latch: no gate dispatch; the body's first dispatch, a latching
	// guarded variant, decides from the condition and writes the enable
	// word (latched once it has been emitted).
	latch, latched bool
}

// planner walks the tree in recording order, assigning words of the
// enable and gate buffers, and emits the steps.
type planner struct {
	t       *Tree
	opt     Options
	limit   int
	counts  uint32 // words of the gate buffer (the counts gates write) used so far
	enables uint32 // words of the enable buffer used so far
	steps   []Step
	gates   []*gate // gate dispatches, in order
	iters   [][]uint32
}

// emit writes region r's content: its direct commands (gated by g when
// inside a body) and its nested regions, in recording order.
func (p *planner) emit(r int, enable uint32, g *gate) error {
	start, end := p.t.bounds(r)
	i := start
	for c := r + 1; c < len(p.t.Regions); c++ {
		child := &p.t.Regions[c]
		if child.Parent != r {
			continue
		}
		for ; i < child.Start; i++ {
			if err := p.command(i, r, g); err != nil {
				return err
			}
		}
		if err := p.child(c, enable); err != nil {
			return err
		}
		i = child.End
	}
	for ; i < end; i++ {
		if err := p.command(i, r, g); err != nil {
			return err
		}
	}
	if len(p.steps) > p.limit {
		return &TooLongError{Limit: p.limit}
	}
	return nil
}

// child emits a nested If (one gate) or While (one gate per iteration, each
// enabled only if the previous one was). A latchable region gets no gate
// dispatches: its first dispatch latches each iteration.
func (p *planner) child(c int, parent uint32) error {
	rg := &p.t.Regions[c]
	prev := parent
	latch := parent == NoParent && p.latchable(c)
	for it := 0; it < rg.MaxIter; it++ {
		g := &gate{region: c, enable: p.enables, step: -1, latch: latch}
		p.enables++
		p.iters[c] = append(p.iters[c], g.enable)
		if !latch {
			g.step = len(p.steps)
			p.gates = append(p.gates, g)
			p.steps = append(p.steps, Step{Kind: StepGate, Command: -1, Region: c, Enable: g.enable, Parent: prev})
		}
		if err := p.emit(c, g.enable, g); err != nil {
			return err
		}
		prev = g.enable
	}
	return nil
}

// command emits recorded command i of region r: unchanged at top level,
// predicated or gated inside a body.
func (p *planner) command(i, r int, g *gate) error {
	if g == nil {
		p.steps = append(p.steps, Step{Kind: StepCommand, Command: i, Region: r})
		return nil
	}
	c := &p.t.Commands[i]
	latch := g.latch && !g.latched
	if p.guarded(i, latch) {
		// Predicated: dispatched directly, each invocation returning at
		// once unless the body is enabled (the latching dispatch decides
		// that from the condition and records it).
		g.latched = g.latched || latch
		p.steps = append(p.steps, Step{Kind: StepGuarded, Command: i, Region: r, Enable: g.enable, Latch: latch})
		return nil
	}
	if g.latch {
		// latchable admits only regions whose direct commands are all
		// predicated: a latched iteration has no gate to write a slot.
		return fmt.Errorf("lower: internal error: command %d (%s) of latched region %d needs a gate slot", i, c.Kind, r)
	}
	slot := p.counts
	p.counts += 3
	switch {
	case c.Kind == Dispatch && c.Indirect:
		// Its own counts are read on the GPU when it is reached: a
		// forwarder copies them to the slot (or zeros when skipped).
		p.steps = append(p.steps,
			Step{Kind: StepForward, Command: i, Region: r, Enable: g.enable, Slot: slot},
			Step{Kind: StepGated, Command: i, Region: r, Slot: slot})
	case c.Kind == Dispatch:
		g.entries = append(g.entries, [4]uint32{slot, c.Groups[0], c.Groups[1], c.Groups[2]})
		p.steps = append(p.steps, Step{Kind: StepGated, Command: i, Region: r, Slot: slot})
	default:
		groups := (c.Words + 63) / 64
		gx, gy := min(groups, 65535), (groups+65534)/65535
		g.entries = append(g.entries, [4]uint32{slot, gx, gy, 1})
		kind := StepCopy
		if c.Kind == Clear {
			kind = StepClear
		}
		p.steps = append(p.steps, Step{Kind: kind, Command: i, Region: r, Slot: slot})
	}
	return nil
}

// guarded reports whether body command i is predicated: a direct dispatch
// of at most MaxGuardedGroups workgroups whose kernel has the variant.
func (p *planner) guarded(i int, latch bool) bool {
	c := &p.t.Commands[i]
	if c.Kind != Dispatch || c.Indirect || p.opt.Guarded == nil ||
		uint64(c.Groups[0])*uint64(c.Groups[1])*uint64(c.Groups[2]) > MaxGuardedGroups {
		return false
	}
	return p.opt.Guarded(i, latch)
}

// latchable reports whether region c (at top level) can do without gate
// dispatches: its first command is a dispatch that does not bind the
// condition's buffer and has a latching variant, and every other command
// directly in it (nested regions aside, which keep their gates) has a
// guarded variant. The first dispatch then decides each iteration from the
// condition itself. That needs no "every earlier iteration ran" term: when
// an iteration is skipped nothing in its body runs, so the condition is
// still zero when the next one reads it.
func (p *planner) latchable(c int) bool {
	rg := &p.t.Regions[c]
	if rg.Start == rg.End {
		return false
	}
	// inChild: command i belongs to a nested region (an empty one holds
	// no command; its gates are emitted before the command at its start).
	inChild := func(i int) bool {
		for d := c + 1; d < len(p.t.Regions); d++ {
			ch := &p.t.Regions[d]
			if ch.Parent == c && i >= ch.Start && i < ch.End {
				return true
			}
		}
		return false
	}
	for d := c + 1; d < len(p.t.Regions); d++ {
		if ch := &p.t.Regions[d]; ch.Parent == c && ch.Start == rg.Start {
			return false // a nested region's gate would run before the latch
		}
	}
	first := &p.t.Commands[rg.Start]
	if first.Kind != Dispatch || first.Indirect || first.Groups[0] == 0 || first.Groups[1] == 0 || first.Groups[2] == 0 {
		return false
	}
	if first.BindsCondition {
		return false
	}
	if !p.guarded(rg.Start, true) {
		return false
	}
	for i := rg.Start + 1; i < rg.End; i++ {
		if inChild(i) {
			continue
		}
		if !p.guarded(i, false) {
			return false
		}
	}
	return true
}

// plan lays out the gates' table and returns the result.
func (p *planner) plan() *Plan {
	out := &Plan{Steps: p.steps, Enables: p.enables, Counts: p.counts, Gates: len(p.gates), Iterations: p.iters}
	if len(p.gates) == 0 {
		return out
	}
	var table []byte
	for _, g := range p.gates {
		st := &out.Steps[g.step]
		st.First, st.Count = uint32(len(table)/16), uint32(len(g.entries))
		for _, e := range g.entries {
			for _, w := range e {
				table = binary.LittleEndian.AppendUint32(table, w)
			}
		}
	}
	if len(table) == 0 {
		table = make([]byte, 16)
	}
	out.Table = table
	return out
}
