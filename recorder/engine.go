package recorder

import (
	"context"
	"errors"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// The stream's batching and submission are internal/engine's: the open
// batch and its encoder, the submitter, room waits, every queue write and
// submit. This file is the stream's side of that seam: its admission as
// the engine's Gate, its pins and graphs as the engine's Holder and Entry,
// and the short names the stream's features call.

const (
	maxInflight = engine.MaxInflight
	gpuDepth    = engine.GPUDepth
	roomNever   = engine.RoomNever
	roomLocked  = engine.RoomLocked
)

// session is the stream's lifecycle session with every transition counted
// by the engine (Engine.Transition): a transaction that waited across one
// must be admitted again before it reaches the GPU.
type session struct {
	lifecycle.Session[*recording, *profile]
	moved func()
}

func (s *session) Prepare() error {
	s.moved()
	return s.Session.Prepare()
}

func (s *session) Begin(rec *recording) error {
	s.moved()
	return s.Session.Begin(rec)
}

func (s *session) End() (*recording, error) {
	s.moved()
	return s.Session.End()
}

func (s *session) Cancel() (*recording, bool, error) {
	s.moved()
	return s.Session.Cancel()
}

func (s *session) Abort() (*recording, bool) {
	s.moved()
	return s.Session.Abort()
}

// streamGate is the stream's admission as the engine asks for it.
type streamGate Stream

// Admit is verdictLocked with the modes the operation runs in: a refusal
// inside the capture window is queued to fail EndCapture in this same
// hold, as the lifecycle's table says; a deferred write's always is.
func (g *streamGate) Admit(op lifecycle.Op) (engine.Admission, error) {
	s := (*Stream)(g)
	if s.closing.Load() {
		return engine.Admission{Verdict: lifecycle.Refuse}, closedError(op)
	}
	v, err := s.verdictLocked(op)
	st := s.life.State()
	return engine.Admission{Verdict: v, Pool: st.PoolMode(), Cache: st.CacheMode()}, err
}

// Readmit is readmitAfterWait.
func (g *streamGate) Readmit(op lifecycle.Op) error {
	return (*Stream)(g).readmitAfterWait(op)
}

// Has, Ref and Unref make a graph's pins the engine's Holder.
func (p *pinSet) Has(pg *pool.Page) bool { return p.has(pg) }
func (p *pinSet) Ref()                   { p.ref() }
func (p *pinSet) Unref()                 { p.unref() }

// graphEntry is a graph as the Entry of its counted replays (a type of
// its own, so that Graph's public methods stay the recorder's): a batch
// retired drops its hold on the graph's program (releaseEntry).
type graphEntry Graph

func (g *graphEntry) ReleaseEntry() { g.s.releaseEntry((*Graph)(g)) }

// entryOf is g as its counted replays' Entry.
func entryOf(g *Graph) engine.Entry { return (*graphEntry)(g) }

// errDeferred is readmitAfterWait's answer for a write whose verdict is
// now DeferError: its refusal is queued for EndCapture, and the write
// returns nil having done nothing, as one admitted inside the window does.
var errDeferred = errors.New("recorder: deferred inside the capture window")

// readmitAfterWait asks lifecycle again for op, which was admitted to
// execute and then gave s.mu up to wait across a lifecycle transition
// (the engine's Tx.Readmit asks only then): a capture window opened
// meanwhile must not see it encode, queue a write, submit or plan ramps
// outside the graph. Execute and the rest of the NoCapture and Prepare
// cells let it go on; a deferred write's refusal is queued (errDeferred);
// a refusal fails the capture in this hold (failLocked) and is returned.
// The caller holds s.mu and keeps it. A Launch, Copy or Clear that waits
// for the submitter after its command is enqueued is not asked again: the
// command went in before the window opened, and the wait only hands its
// batch off.
func (s *Stream) readmitAfterWait(op lifecycle.Op) error {
	switch s.life.Readmit(op) {
	case lifecycle.DeferError:
		s.queueRefusal(s.life.State().Refusal(op))
		return errDeferred
	case lifecycle.Refuse:
		return s.failLocked(op, s.life.State().Refusal(op))
	}
	return nil
}

// redo is Do for an operation admitted before, in a hold it has given up
// since (a ProfileReplay reading which bodies ran, a Save reading a
// graph's memory): its first ask is lifecycle's re-ask
// (readmitAfterWait), so a capture begun meanwhile refuses it and a
// profile started meanwhile does not. It gives up waiting for the lock
// when ctx ends. A deferred refusal returns nil without calling fn.
func (s *Stream) redo(ctx context.Context, op lifecycle.Op, fn func(*engine.Tx) error) error {
	if err := s.check(op); err != nil {
		return err
	}
	if err := s.lockContextFor(ctx, op); err != nil {
		return err
	}
	if err := s.readmitAfterWait(op); err != nil {
		s.mu.Unlock()
		if errors.Is(err, errDeferred) {
			return nil
		}
		return err
	}
	st := s.life.State()
	tx := s.eng.Begin(op, engine.Admission{Verdict: lifecycle.Execute, Pool: st.PoolMode(), Cache: st.CacheMode()})
	defer tx.End() // releases the lock unless a wait of fn lost it
	return fn(tx)
}

// admission asks whether op may run now, in a transaction that ends at
// once, and returns the pool mode it was admitted in: for an operation
// that puts nothing on the stream's batch (a load builds privately; a
// texture or sampler is the device's) and needs only the verdict. A
// refusal inside the capture window fails the capture, as any is.
func (s *Stream) admission(op lifecycle.Op) (lifecycle.PoolMode, error) {
	if err := s.check(op); err != nil {
		return 0, err
	}
	var mode lifecycle.PoolMode
	err := s.eng.Do(op, func(tx *engine.Tx) error {
		mode = tx.PoolMode()
		return nil
	})
	return mode, err
}

// readmitTx is Tx.Readmit for a step after a wait, with the stream's own
// checks first (closing, a lost device) and its errors as the recorder
// returns them. The caller is in tx, holding s.mu.
func (s *Stream) readmitTx(tx *engine.Tx) error {
	if err := s.check(tx.Op()); err != nil {
		return err
	}
	if err := tx.Readmit(); err != nil {
		return s.readmitError(tx.Op(), err)
	}
	return nil
}

// readmitError is Tx.Readmit's refusal as the recorder returns it: a
// stream closing meanwhile as closedError, the lifecycle's refusal
// (readmitAfterWait's) as it is.
func (s *Stream) readmitError(op lifecycle.Op, err error) error {
	if errors.Is(err, engine.ErrClosed) {
		return closedError(op)
	}
	return err
}

// wrapUnlessRefused is the error op returns for err, met inside its
// transaction (a Tx.Flush, a wait, the encoding after them): the
// lifecycle's refusal as it is (a call refused when asked again after a
// wait reads as one refused on the spot: one form for one refusal),
// anything else as an *Error naming op and arg (empty for none).
func (s *Stream) wrapUnlessRefused(op lifecycle.Op, arg string, err error) error {
	if errors.Is(err, lifecycle.ErrGraphState) || errors.Is(err, lifecycle.ErrProfileRunning) {
		return err
	}
	return &Error{Op: op.String(), Arg: arg, Err: s.txError(err)}
}

// txError maps the engine's sentinels onto the recorder's.
func (s *Stream) txError(err error) error {
	if errors.Is(err, engine.ErrClosed) {
		return ErrClosed
	}
	return err
}

func (s *Stream) handOff()                           { s.eng.HandOff() }
func (s *Stream) handOffFull(w engine.RoomWait) bool { return s.eng.HandOffFull(w) }
func (s *Stream) reap(bool)                          { s.eng.Reap() }
func (s *Stream) resetBatch()                        { s.eng.ResetBatch() }
func (s *Stream) makeRoom()                          { s.eng.MakeRoom() }
func (s *Stream) hold(pg *pool.Page)                 { s.eng.Hold(pg) }
func (s *Stream) holdPins(p *pinSet)                 { s.eng.HoldPins(p) }
func (s *Stream) uses(pg *pool.Page) bool            { return s.eng.Uses(pg) }
func (s *Stream) batchUses(pg *pool.Page) bool       { return s.eng.BatchUses(pg) }

// submitAlone is the engine's SubmitAlone (its doc says when).
func (s *Stream) submitAlone(cb driver.CommandBuffer) (driver.Submission, error) {
	return s.eng.SubmitAlone(cb)
}
