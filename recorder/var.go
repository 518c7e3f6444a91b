package recorder

import (
	"errors"
	"fmt"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/lifecycle"
)

// Var is a params slot the stream owns: a small uniform whose value a graph
// reads when it replays, not when it was captured. Pass it to Launch
// wherever Params go (a var<uniform>, or a var<storage, read>): it binds as
// Params of its value would (a uniform sees the value padded to 16 bytes, a
// storage binding exactly its bytes), and Launch refuses it when the
// binding's type needs more. It is bound by reference, so SetVar between
// replays changes what the next replay sees, with no recapture and no
// Rebind. It can also hold indirect dispatch counts (IndirectVar).
//
// A Var is memory from its stream's pool (Size rounded up to 16 bytes, the
// uniform binding granule, with zeros after the value); graphs that bind it
// keep that memory until they are released, as for a Buffer. A Var may be
// used from any goroutine. Release is idempotent; a released Var answers
// every call with an error wrapping ErrReleased.
type Var struct {
	b *Buffer // owned: released by Release; b.v points back here
	n uint64  // the value's size in bytes (a positive multiple of 4)
}

func (*Var) isArg() {}

// NewVar makes a Var holding p (a positive multiple of 4 bytes, at most the
// device's maxUniformBufferBindingSize). Setting the initial value is a
// SetVar: ordered like a Write, and refused with lifecycle.ErrGraphState
// inside a capture window (make Vars before PrepareCapture or Capture).
// Errors are returned on the spot (inside a capture window the refusal
// also makes EndCapture fail): ErrInvalidArgument for a bad size,
// ErrClosed after Close, the allocation's error when the pool is out of
// memory.
func (s *Stream) NewVar(p Params) (*Var, error) {
	const op = lifecycle.SetVar
	if err := s.check(op); err != nil {
		return nil, err
	}
	if err := s.checkNewVarParams(p); err != nil {
		return nil, s.refused(op, err)
	}
	return s.newVar(op, uint64(len(p)), p)
}

// newVar makes a Var of n bytes holding p (zeros if p is nil), its
// initial value written as op (SetVar). LoadGraph makes its Vars with
// newVarLocked and fills them privately.
func (s *Stream) newVar(op lifecycle.Op, n uint64, p []byte) (*Var, error) {
	s.mu.Lock()
	v, err := s.newVarLocked(lifecycle.Alloc, n, s.life.State().PoolMode())
	if err != nil {
		err = s.failLocked(op, err) // a refused NewVar, not an Alloc: its row decides
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	// The write admits op: a refusal is queued in its hold.
	if err := s.write(op, v.b, 0, v.padded(p)); err != nil {
		v.b.Release()
		return nil, err
	}
	return v, nil
}

// newVarLocked makes a Var of n bytes without writing it, allocating in
// mode (see newBufferLocked). The caller holds s.mu.
func (s *Stream) newVarLocked(op lifecycle.Op, n uint64, mode lifecycle.PoolMode) (*Var, error) {
	b, err := s.newBufferLocked(op, (n+15)&^15, mode)
	if err != nil {
		return nil, err
	}
	v := &Var{b: b, n: n}
	b.v = v
	return v, nil
}

// padded is p over v's whole memory: the padding is written too, since a
// pooled page holds what its last user left and a kernel's struct may read
// past the value's end.
func (v *Var) padded(p []byte) []byte {
	data := make([]byte, v.b.size)
	copy(data, p)
	return data
}

// checkNewVarParams checks NewVar's value. Its error names NewVar, the
// call the caller made, though the lifecycle's row NewVar follows is
// SetVar's (its initial value is a SetVar).
func (s *Stream) checkNewVarParams(p Params) error {
	if len(p) == 0 || len(p)%4 != 0 || uint64(len(p)) > s.limits.MaxUniformBufferBindingSize {
		return &Error{Op: "NewVar", Err: ErrInvalidArgument,
			Arg: fmt.Sprintf("params of %d bytes (a positive multiple of 4, at most maxUniformBufferBindingSize %d)", len(p), s.limits.MaxUniformBufferBindingSize)}
	}
	return nil
}

// SetVar gives v the value p, in stream order: every launch and replay
// enqueued on this stream before it sees the old value, every one after it
// the new value — also when the earlier replays were encoded ahead of time
// (WithPreEncode, ramps), since those read the Var when they execute.
//
// The value travels with the stream's open batch: the stream's submitter
// writes it to the queue right before it submits that batch, so SetVar
// makes no native call on the caller's goroutine and never waits for the
// replays before it to be submitted (when the open batch's own commands
// use v, SetVar hands that batch off, and waits only when the submitter is
// as far behind as a full batch would wait). Other streams see the value
// in submission order, like this stream's launches; a Var that another
// stream's work binds is written to the queue at once instead, as a Write
// is. A queue write that fails in the submitter is reported at the next
// sync point, as a *DeferredError.
//
// p must have v's size (ErrInvalidArgument otherwise); a nil or released
// Var, or one of another device, is refused on the spot, as is a SetVar
// while the stream is recording (lifecycle.ErrGraphState: a graph reads
// the Var at replay, so there is nothing to record) — and that refusal also
// makes EndCapture fail with a *CaptureError.
func (s *Stream) SetVar(v *Var, p Params) error {
	const op = lifecycle.SetVar
	if err := s.check(op); err != nil {
		return err
	}
	if v == nil {
		return s.refused(op, argError(op, ErrInvalidArgument, "var is nil"))
	}
	if uint64(len(p)) != v.n {
		return s.refused(op, argError(op, ErrInvalidArgument, "params of %d bytes for a Var of %d (a Var keeps its size)", len(p), v.n))
	}
	if v.b.s.dev != s.dev {
		// Named as the caller knows it (the write below would say "buffer").
		return s.refused(op, argError(op, ErrForeignDevice, "var (%d bytes) belongs to another device", v.n))
	}
	if v.b.s != s || v.b.foreign.Load() {
		// Another stream's Var, or one another stream binds: a queue
		// write now, which that stream's next submission sees.
		return s.write(op, v.b, 0, p)
	}
	return s.queueVar(op, v, p)
}

// queueVar gives v (of this stream, bound by no other) the value p in the
// open batch: the submitter writes it to the queue right before it submits
// the batch, so the caller makes no native call, and a SetVar between
// replays needs no submission of the previous replay first — only, when
// the open batch's own commands use v, a hand-off of that batch (the value
// travels with the next one).
func (s *Stream) queueVar(op lifecycle.Op, v *Var, p []byte) error {
	pg, err := v.b.acquire(op, "var", s)
	if err != nil {
		return s.refused(op, err)
	}
	// One transaction: a refusal is queued in its hold (Do returns it, or
	// nil for a deferred one, without running the callback, which owns
	// pg's reference once it runs).
	owned := false
	err = s.eng.Do(op, func(tx *engine.Tx) error {
		owned = true
		for s.batchUses(pg) {
			// The open batch's commands use v: the value goes with the
			// next batch, after this one is handed off. Bounded like a
			// full batch: with the submitter behind, wait for room with
			// the lock released, admitted again after (calls made
			// meanwhile may have added to the batch, or handed it off).
			if err := tx.WaitRoom(); err != nil {
				pg.Unref()
				if errors.Is(err, engine.ErrClosed) {
					return argError(op, ErrClosed, "stream closed while SetVar waited for the submitter")
				}
				return err // a capture opened while it waited
			}
			if !s.batchUses(pg) {
				break // handed off by another call meanwhile
			}
			if err := tx.HandOff(); err != nil {
				pg.Unref()
				return err
			}
		}
		// Only the last value of a Var matters to a batch whose commands
		// do not read it (batchUses above), so a loop of SetVars queues
		// one write, not many.
		s.eng.QueueWrite(pg, p)
		if s.timerGen != s.eng.Gen() {
			s.armTimer(false)
		}
		return nil
	})
	if !owned {
		pg.Unref()
	}
	return err
}

// Size is the size in bytes of the Var's value (0 for a nil Var).
func (v *Var) Size() uint64 {
	if v == nil {
		return 0
	}
	return v.n
}

// Stream is the stream that owns the Var (nil for a nil Var).
func (v *Var) Stream() *Stream {
	if v == nil {
		return nil
	}
	return v.b.s
}

// Label is the Var's name (empty unless set, or loaded from a graph file).
func (v *Var) Label() string {
	if v == nil {
		return ""
	}
	return v.b.Label()
}

// SetLabel names the Var; graph files and Graph.String carry the name.
func (v *Var) SetLabel(label string) {
	if v != nil {
		v.b.SetLabel(label)
	}
}

// Release drops the caller's reference: graphs that bind the Var keep its
// memory (and replay its last value) until they are released. Asynchronous,
// idempotent, safe to defer.
func (v *Var) Release() {
	if v != nil {
		v.b.Release()
	}
}

// Released reports whether Release was called (true for a nil Var).
func (v *Var) Released() bool {
	if v == nil {
		return true
	}
	return v.b.Released()
}

func (v *Var) String() string {
	if v == nil {
		return "<nil var>"
	}
	if l := v.b.Label(); l != "" {
		return fmt.Sprintf("var %q (%d bytes)", l, v.n)
	}
	return fmt.Sprintf("var(%d bytes)", v.n)
}

// IndirectVar dispatches the three little-endian u32 counts v holds at
// offset (a multiple of 4, with 12 bytes after it), read when the dispatch
// executes: a graph captured with it runs the counts of the latest SetVar
// before each replay. As with Indirect, keeping the counts within
// maxComputeWorkgroupsPerDimension is the caller's job.
func IndirectVar(v *Var, offset uint64) Dispatch {
	var b *Buffer
	if v != nil {
		b = v.b
	}
	return Dispatch{isIndirect: true, indirect: b, offset: offset}
}

// Vars lists the Vars the graph binds, in order of first use: for a
// captured graph the caller's own (some may be released: the graph keeps
// their memory), for a loaded one the Vars LoadGraph made, with the labels
// they were saved with. SetVar them between replays.
func (g *Graph) Vars() []*Var {
	if g == nil {
		return nil
	}
	var out []*Var
	for _, b := range g.buffers {
		if b.v != nil {
			out = append(out, b.v)
		}
	}
	return out
}

// resolveVar resolves a *Var launch argument as the buffer it holds, bound
// as Params of its value would be: a uniform binds the value padded to 16
// bytes (the Var's whole buffer, zeros after the value), a read-only
// storage binding exactly the value's bytes (so arrayLength counts the
// value's elements, not the padding). Either must hold r's type: a Var too
// small for it is refused here, as a buffer or Params would be, instead of
// failing its whole batch at the device. It fills ac (whose reference the
// caller's launch drops on error).
func (s *Stream) resolveVar(op lifecycle.Op, v *Var, r driver.Resource, ac *access, where func() string) error {
	if v == nil {
		return argError(op, ErrInvalidArgument, "%s is a nil Var", where())
	}
	size := v.b.size
	switch r.Kind {
	case driver.ResourceUniform:
	case driver.ResourceReadOnlyStorage:
		size = v.n
	default:
		return argError(op, ErrInvalidArgument, "%s is a Var; bind a Var to a var<uniform> or var<storage, read> (the kernel cannot write it)", where())
	}
	if size < r.MinSize {
		return argError(op, ErrInvalidArgument, "%s: a Var of %d bytes; its type %s needs %d", where(), v.n, r.Type, r.MinSize)
	}
	pg, why, sentinel := v.b.take(s)
	if sentinel != nil {
		return argError(op, sentinel, "%s: var %s", where(), why)
	}
	ac.kind, ac.buf, ac.pg, ac.size, ac.write = accessBuffer, v.b, pg, size, false
	return nil
}

// failLocked makes a refusal of op fail the capture when the lifecycle's
// table says so (lifecycle.State.FailsCapture: inside the window, for
// every op but Alloc and Flush), and returns err. The caller holds s.mu and
// has held it since it admitted (or refused) the call, so the state read
// here is the one the call was decided in: a capture that ends or begins
// after this hold can neither lose the refusal nor inherit it. A refusal
// already queued (a body's launch that its If returns again) is queued
// once.
func (s *Stream) failLocked(op lifecycle.Op, err error) error {
	if err == nil || s.closing.Load() || !s.life.FailsCapture(op) {
		return err
	}
	s.queueRefusal(err)
	return err
}

// queueRefusal queues err, a call refused inside the capture window, on
// the recording, for EndCapture to fail with; a refusal already queued (a
// body's launch that its If returns again) is queued once. The caller
// holds s.mu, in Capture.
func (s *Stream) queueRefusal(err error) {
	rec := s.capturing()
	if rec == nil {
		// Not in the window (no verdict defers or fails a capture
		// outside it): a deferred error, reported at the next sync point.
		s.errs = append(s.errs, err)
		return
	}
	for _, e := range rec.refusals {
		if errors.Is(err, e) {
			return
		}
	}
	rec.refusals = append(rec.refusals, err)
}

// refused is failLocked for a call refused before it took s.mu (its own
// checks of its arguments come first): it takes the lock once, and that
// hold is the moment of the refusal. The caller must not hold s.mu.
func (s *Stream) refused(op lifecycle.Op, err error) error {
	if err == nil || s == nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failLocked(op, err)
}

// failsOnReturn is failLocked run as a deferred call on the error a locked
// call returns: deferred after the call's deferred Unlock, it runs first,
// inside the same hold.
func (s *Stream) failsOnReturn(op lifecycle.Op, errp *error) {
	*errp = s.failLocked(op, *errp)
}

// valueSize is the bytes of b a reader may use: a Var's value size (its
// memory is padded past it), else the Buffer's size.
func (b *Buffer) valueSize() uint64 {
	if b.v != nil {
		return b.v.n
	}
	return b.size
}

// kindName says what b is, for messages.
func (b *Buffer) kindName() string {
	if b.v != nil {
		return "Var"
	}
	return "buffer"
}

// RebindVar returns a new graph that binds new wherever g binds old, as
// Rebind does for buffers: old must be a Var g was captured with (or
// loaded with), new a live Var of the same size on g's device. g is
// unchanged and stays valid.
func (g *Graph) RebindVar(old, new *Var) (*Graph, error) {
	const op = lifecycle.Rebind
	if old == nil || new == nil {
		return nil, argError(op, ErrInvalidArgument, "RebindVar: nil Var")
	}
	if old.n != new.n {
		return nil, argError(op, ErrInvalidArgument, "RebindVar: new Var is %d bytes, old is %d; a rebinding keeps sizes", new.n, old.n)
	}
	return g.Rebind(old.b, new.b)
}
