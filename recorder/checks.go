package recorder

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
)

// ErrOutOfRange is wrapped by the *CheckError a stream WithChecks returns
// when a kernel indexed a binding past its end.
var ErrOutOfRange = errors.New("out-of-range access")

// WithChecks runs every kernel the stream launches as its checked variant
// (docs/checks.md): each index into a storage or uniform binding is
// compared with the binding's length, and the first access out of range
// since the last sync point is recorded on the GPU. The next Sync, Read,
// ReadTexture or EndCapture returns it as a *CheckError wrapping
// ErrOutOfRange, naming the kernel, the binding, the index, the length
// and the invocation, and clears it.
//
// Off (the default) it costs nothing: kernels compile and bind as
// written, and no sync point reads anything more. On, each distinct
// kernel compiles once more (its variant), each launch binds one more
// bind group (the checks' state and a 16-byte launch word from the params
// cache), every checked index costs a compare, and a sync point after
// checked work reads 32 bytes back (docs/checks.md has the measured
// cost). The kernels' results do not change: an in-range access reads
// and writes what it did, bit for bit, and an out-of-range one does what
// WGSL lets it do without checks.
//
// Eager launches, captured graphs and their replays are all checked: a
// graph captured on the stream binds the checks' state, so a replay's
// violation is returned by the Sync or Read after it. Launches of a kernel
// whose checked variant would need a fifth bind group (it uses @group(3),
// or its module declares every later group) are refused with
// ErrInvalidArgument. Graphs loaded from files run unchecked. A driver
// without checked variants (the fake driver of the recorder's tests)
// refuses every launch.
func WithChecks(on bool) Option { return func(c *config) { c.checks = on } }

// CheckError is an out-of-range access that a stream WithChecks saw: the
// first one since the previous sync point. Its Op is the call that
// returned it (Sync, Read, ReadTexture, EndCapture); the access was made
// by a launch or replay enqueued before that call. The access itself did
// what WGSL lets an out-of-range access do (it may have read another
// element, or written nowhere, or somewhere in the binding): the results
// of that work are not to be trusted.
type CheckError struct {
	Op string
	// Kernel names the kernel as Error.Kernel does (`"label" (entry point
	// main)`).
	Kernel string
	// Binding is the name of the binding's variable in the kernel's WGSL,
	// Group and Slot its @group and @binding.
	Binding     string
	Group, Slot uint32
	// Index is the index the kernel used (a negative i32 index shows as
	// its u32 bits), Length the number of elements of the array (or
	// vector, or matrix columns) it indexed.
	Index, Length uint32
	// Invocation is the global invocation id of the invocation that made
	// the access.
	Invocation [3]uint32
	// Function, Line and Col are where the access is in the kernel's
	// source (the index's first character): the entry point or a function
	// it calls.
	Function  string
	Line, Col int
	// Indexed is the expression indexed, as written ("m[i]" for m[i][c],
	// Binding itself for the binding's own array), and Of what Length
	// counts: "elements", "components" (a vector) or "columns" (a matrix).
	Indexed, Of string
	// Count is how many out-of-range accesses were made since the previous
	// sync point, this one included.
	Count uint32
}

func (e *CheckError) Error() string {
	var b strings.Builder
	b.WriteString("recorder: ")
	b.WriteString(e.Op)
	if e.Kernel != "" {
		b.WriteString(": kernel ")
		b.WriteString(e.Kernel)
	}
	if e.Indexed == "" || e.Indexed == e.Binding {
		fmt.Fprintf(&b, ": %s[%d] of @group(%d) @binding(%d), which has %d %s", e.Binding, e.Index, e.Group, e.Slot, e.Length, cmp.Or(e.Of, "elements"))
	} else {
		// Inside an element (a matrix's column, a member's array): the
		// length is the indexed part's, not the binding's.
		fmt.Fprintf(&b, ": %s[%d] in %s of @group(%d) @binding(%d), where %s has %d %s", e.Indexed, e.Index, e.Binding, e.Group, e.Slot, e.Indexed, e.Length, cmp.Or(e.Of, "elements"))
	}
	fmt.Fprintf(&b, " (%s, line %d, column %d), by invocation (%d, %d, %d)", e.Function, e.Line, e.Col, e.Invocation[0], e.Invocation[1], e.Invocation[2])
	if e.Count > 1 {
		fmt.Fprintf(&b, ", the first of %d", e.Count)
	}
	b.WriteString(": ")
	b.WriteString(ErrOutOfRange.Error())
	return b.String()
}

// Unwrap is ErrOutOfRange.
func (e *CheckError) Unwrap() error { return ErrOutOfRange }

// checks is a stream's checked mode (WithChecks). Guarded by the stream's
// mutex.
type checks struct {
	// state is the checks' state buffer, made at the first checked launch
	// and owned like the caller's Buffers (Close releases it); nil before.
	// Every checked dispatch of the stream, eager or in a graph, binds it.
	state *Buffer
	// kernels are the checked variants by launch word: a violation's
	// launch word is the index of its kernel here. of finds them by the
	// kernel launched. Entries are never removed (a released kernel's
	// entry names it for a graph still replaying it).
	kernels []*checkedKernel
	of      map[driver.Kernel]*checkedKernel
	// dirty: checked work was enqueued since the state was last read.
	dirty bool
}

// checkedKernel is one kernel's checked variant as the stream binds it.
type checkedKernel struct {
	k      driver.Kernel // the variant; nil when the kernel indexes no binding
	layout driver.CheckLayout
	sites  []driver.CheckSite
	name   string // the kernel as errors name it
	at     Params // the launch word: the index in checks.kernels
}

// checkLaunch makes a resolved launch of l.k a launch of its checked
// variant: the variant's kernel, and two accesses after the kernel's own
// (the state, and the launch word through the params cache), in the
// variant's Resources order (its group comes last). executes says the
// launch runs now rather than being recorded; a graph marks the state
// dirty when it replays. The caller holds s.mu.
func (s *Stream) checkLaunch(op lifecycle.Op, l *launch, executes bool) error {
	ck, err := s.checkedKernel(l.k)
	if err != nil {
		return &Error{Op: op.String(), Kernel: errKernelName(l.k.Label(), l.k.Entry()), Err: err}
	}
	if ck.k == nil {
		return nil
	}
	if s.checks.state == nil {
		// A normal page whatever the lifecycle: the state outlives every
		// capture window, so neither priming nor a recording may own it.
		b, err := s.newBufferLocked(op, ck.layout.StateSize, lifecycle.NoCapture.PoolMode())
		if err != nil {
			return err
		}
		b.label = "softgraph checks"
		if err := s.eng.WriteBuffer(b.pg.Buffer(), 0, make([]byte, ck.layout.StateSize)); err != nil {
			b.Release()
			return &Error{Op: op.String(), Arg: "the checks' state", Err: err}
		}
		s.checks.state = b
	}
	pg, why, sentinel := s.checks.state.take(s)
	if sentinel != nil {
		return argError(op, sentinel, "the checks' state %s", why)
	}
	l.k, l.res = ck.k, ck.k.Resources()
	l.acc = append(l.acc,
		access{kind: accessBuffer, buf: s.checks.state, pg: pg, size: s.checks.state.size, write: true, group: ck.layout.Group, binding: ck.layout.State},
		access{kind: accessParams, params: ck.at, group: ck.layout.Group, binding: ck.layout.At})
	if executes {
		s.checks.dirty = true
	}
	return nil
}

// checkedKernel is k's checked variant, compiled at its first launch on
// the stream. The caller holds s.mu.
func (s *Stream) checkedKernel(k driver.Kernel) (*checkedKernel, error) {
	if ck := s.checks.of[k]; ck != nil {
		return ck, nil
	}
	c, ok := s.drv.(driver.Checker)
	if !ok {
		return nil, fmt.Errorf("%w: WithChecks: the stream's driver makes no checked variants", ErrInvalidArgument)
	}
	v, layout, sites, err := c.Checked(k)
	if err != nil {
		return nil, fmt.Errorf("%w: WithChecks: %w", ErrInvalidArgument, err)
	}
	ck := &checkedKernel{layout: layout, sites: sites, name: errKernelName(k.Label(), k.Entry())}
	if len(sites) > 0 {
		ck.k = v
		ck.at = ParamsOf(uint32(len(s.checks.kernels)), 0, 0, 0)
		s.checks.kernels = append(s.checks.kernels, ck)
	}
	if s.checks.of == nil {
		s.checks.of = map[driver.Kernel]*checkedKernel{}
	}
	s.checks.of[k] = ck
	return ck, nil
}

// checkedReplay notes a replay of g on a stream WithChecks: its dispatches
// bind the checks' state. The caller holds s.mu.
func (s *Stream) checkedReplay() {
	if s.cfg.checks {
		s.checks.dirty = true
	}
}

// checkedSave refuses to save a graph whose dispatches bind the checks'
// state: a file holds kernels as their source, and the checked variants'
// would load as kernels writing a state nobody reads. The caller holds
// g.s.mu.
func (g *Graph) checkedSave(op lifecycle.Op) error {
	if !g.s.cfg.checks {
		return nil
	}
	binds := false
	for i := range g.nodes {
		g.nodes[i].op.uses(func(u bufferUse) {
			binds = binds || (u.bound && u.buf != nil && u.buf == g.s.checks.state)
		})
	}
	if binds {
		return argError(op, ErrInvalidArgument, "the graph was captured on a stream WithChecks and binds its checks; capture it on a stream without them to save it")
	}
	return nil
}

// stageChecks encodes a copy of the checks' state into a staging buffer
// after the work in the open batch, when checked work ran since the state
// was last read, so that a Sync reads it back with no submission and wait
// of its own; nil when there is nothing to read (or no staging buffer:
// the state then stays dirty, and takeStagedChecks reads it on its own).
// The caller holds s.mu.
func (s *Stream) stageChecks() driver.Buffer {
	if !s.cfg.checks || !s.checks.dirty || s.checks.state == nil {
		return nil
	}
	b := s.checks.state
	st, err := s.staging(b.size)
	if err != nil {
		return nil
	}
	if err := s.eng.Enc().CopyBuffer(b.pg.Buffer(), 0, st, 0, b.size); err != nil {
		s.stage = append(s.stage, st)
		return nil
	}
	s.checks.dirty = false
	return st
}

// unstageChecks gives up a staged copy of the checks' state whose work
// did not complete: the state is read at the next sync point. done says
// the GPU finished with st (it can be reused); otherwise its copy may be
// in flight and it is released (the work keeps it alive). The caller
// holds s.mu.
func (s *Stream) unstageChecks(st driver.Buffer, done bool) {
	if st == nil {
		return
	}
	s.checks.dirty = true
	if done {
		s.stage = append(s.stage, st)
	} else {
		st.Release()
	}
}

// takeStagedChecks returns the violation in the staged copy st (made by
// stageChecks, its work finished), or, without one, takeViolation's. It
// takes the stream's lock itself: the caller holds none.
func (s *Stream) takeStagedChecks(ctx context.Context, op lifecycle.Op, st driver.Buffer) error {
	if st == nil {
		return s.takeViolation(ctx, op)
	}
	raw := make([]byte, s.checks.state.size) // set before st was staged, never changed
	err := s.drv.ReadBuffer(ctx, st, 0, raw)
	s.mu.Lock()
	if err != nil || s.closing.Load() {
		// A read cut short by ctx may still be mapping st: released, not
		// reused (as readBack does).
		st.Release()
	} else {
		s.stage = append(s.stage, st)
	}
	if err != nil {
		s.checks.dirty = true
	}
	s.mu.Unlock()
	if err != nil {
		return &Error{Op: op.String(), Arg: "the checks' state", Err: err}
	}
	return s.violation(op, raw)
}

// takeViolation reads the checks' state back when checked work ran since
// the last read, and returns its first violation as a *CheckError for op
// (clearing the state), or nil. It costs nothing without WithChecks. It
// takes the stream's lock itself: the caller holds none.
func (s *Stream) takeViolation(ctx context.Context, op lifecycle.Op) error {
	if !s.cfg.checks {
		return nil
	}
	s.mu.Lock()
	b, dirty := s.checks.state, s.checks.dirty
	s.checks.dirty = false
	s.mu.Unlock()
	if b == nil || !dirty {
		return nil
	}
	pg, err := b.acquire(op, "the checks' state", s)
	if err != nil {
		return err
	}
	defer pg.Unref()
	raw := make([]byte, b.size)
	// Read is what is admitted: the caller may be EndCapture, which is
	// refused once the capture has ended.
	err = s.readBack(ctx, lifecycle.Read, false, "the checks' state", func(enc driver.Encoder, st driver.Buffer) error {
		return enc.CopyBuffer(pg.Buffer(), 0, st, 0, b.size)
	}, b.size, func(r []byte) { copy(raw, r) })
	if err != nil {
		s.mu.Lock()
		s.checks.dirty = true // read at the next sync point
		s.mu.Unlock()
		if e, ok := err.(*Error); ok {
			c := *e
			c.Op = op.String()
			return &c
		}
		return err
	}
	return s.violation(op, raw)
}

// violation is the *CheckError of the checks' state raw for op, or nil
// when it holds none; it clears the state. It takes the stream's lock
// itself: the caller holds none.
func (s *Stream) violation(op lifecycle.Op, raw []byte) error {
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(raw[4*i:]) }
	if word(driver.CheckCount) == 0 {
		return nil
	}
	// Cleared by a queue write, not a stream Write: it goes ahead of the
	// batches not submitted yet, so a violation of work another goroutine
	// enqueued meanwhile stays for the next sync point (one of work
	// submitted since the read is cleared with this one: docs/checks.md,
	// "Several goroutines"), and a capture window another goroutine opened
	// meanwhile neither defers it nor fails for it, as it would for the
	// caller's own Write.
	b := s.checks.state
	pg, err := b.acquire(lifecycle.Write, "the checks' state", s)
	if err != nil {
		return err
	}
	err = s.eng.WriteBuffer(pg.Buffer(), 0, make([]byte, b.size))
	pg.Unref()
	if err != nil {
		return &Error{Op: op.String(), Arg: "clearing the checks' state", Err: err}
	}
	e := &CheckError{Op: op.String(), Count: word(driver.CheckCount),
		Index: word(driver.CheckIndex), Length: word(driver.CheckLength),
		Invocation: [3]uint32{word(driver.CheckX), word(driver.CheckY), word(driver.CheckZ)}}
	s.mu.Lock()
	defer s.mu.Unlock()
	if at := int(word(driver.CheckLaunch)); at < len(s.checks.kernels) {
		ck := s.checks.kernels[at]
		e.Kernel = ck.name
		if site := int(word(driver.CheckSiteWord)); site < len(ck.sites) {
			cs := ck.sites[site]
			e.Binding, e.Group, e.Slot, e.Function, e.Line, e.Col = cs.Name, cs.Group, cs.Binding, cs.Function, cs.Line, cs.Col
			e.Indexed, e.Of = cs.Indexed, cs.Of
		}
	}
	return e
}
