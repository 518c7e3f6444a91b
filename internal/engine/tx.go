package engine

import (
	"context"
	"errors"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
)

var (
	// ErrWaited is returned by a transaction's encoding, queue writes,
	// hand-offs and submits after Tx.Wait until Tx.Readmit has confirmed
	// it may go on: across the wait a capture window may have opened, and
	// nothing the operation does next may reach the GPU outside it.
	ErrWaited = errors.New("engine: the transaction waited and was not admitted again")
	// ErrTxDone is returned by any use of a transaction after its Do
	// returned (database/sql's ErrTxDone), until the next Do of the engine
	// takes the same Tx up: a Tx must not be kept past its Do.
	ErrTxDone = errors.New("engine: the transaction is over")
	// ErrLockLost is returned by any use of a transaction whose Wait gave
	// up taking the lock back when its context ended: it holds no lock,
	// and nothing but Locked may touch what the lock guards.
	ErrLockLost = errors.New("engine: the transaction's context ended before it took the lock back")
)

// Admission is a gate's decision for one operation, taken once under the
// lock: the verdict and the modes the operation allocates and caches in.
type Admission struct {
	Verdict lifecycle.Verdict
	Pool    lifecycle.PoolMode
	Cache   lifecycle.CacheMode
}

// Gate is the owner's admission rule (the recorder's lifecycle session).
// Both methods are called with the lock held and keep it.
type Gate interface {
	// Admit decides op. An error refuses it (queued wherever the owner's
	// rule says); the verdict lifecycle.DeferError means the refusal was
	// queued and the call returns nil having done nothing.
	Admit(op lifecycle.Op) (Admission, error)
	// Readmit asks again for op, admitted before and since waiting across
	// a transition. An error refuses it.
	Readmit(op lifecycle.Op) error
}

// Tx is one admitted operation. It holds the lock from Do until the
// callback returns, except inside Wait. Its methods are called on the
// goroutine that runs the callback.
type Tx struct {
	e  *Engine
	op lifecycle.Op
	a  Admission
	// epoch is the engine's at admission (or at the last Readmit).
	epoch uint64
	// waited: Wait gave the lock up and Readmit has not confirmed since.
	waited bool
	done   bool
	// lost: Wait's context ended before it took the lock back; the
	// transaction holds no lock from then on (Do does not release it).
	lost bool
}

// Do runs fn as op's transaction: it takes the lock, asks the gate for the
// verdict and, unless the gate refused op or deferred its refusal
// (lifecycle.DeferError: Do returns nil without calling fn), calls fn with
// the lock held, and releases it when fn returns. fn's error is Do's.
func (e *Engine) Do(op lifecycle.Op, fn func(tx *Tx) error) error {
	e.mu.Lock()
	return e.do(op, fn)
}

// DoContext is Do that gives up waiting for the lock when ctx ends,
// returning ctx's error.
func (e *Engine) DoContext(ctx context.Context, op lifecycle.Op, fn func(tx *Tx) error) error {
	if err := e.LockContext(ctx); err != nil {
		return err
	}
	return e.do(op, fn)
}

func (e *Engine) do(op lifecycle.Op, fn func(tx *Tx) error) error {
	a, err := e.gate.Admit(op)
	if err != nil || a.Verdict == lifecycle.DeferError || a.Verdict == lifecycle.Refuse {
		e.mu.Unlock()
		return err
	}
	// A transaction that ended holding the lock is kept for the next Do
	// (the launch path is a transaction: it allocates none), so a Tx
	// used after its Do is only known to be over until the next Do
	// takes it up.
	tx := e.idleTx
	if tx != nil {
		e.idleTx = nil
		*tx = Tx{e: e, op: op, a: a, epoch: e.epoch}
	} else {
		tx = e.Begin(op, a)
	}
	defer e.end(tx)
	return fn(tx)
}

// end is End for Do's transactions: one that kept the lock is kept for
// the next Do.
func (e *Engine) end(tx *Tx) {
	tx.done = true
	if tx.lost {
		return
	}
	e.idleTx = tx
	e.mu.Unlock()
}

// End ends a transaction begun with Begin: it releases the lock, unless a
// Wait lost it (its context ended first), and every later use of tx fails
// with ErrTxDone. Do ends its transactions itself.
func (tx *Tx) End() {
	tx.done = true
	if !tx.lost {
		tx.e.mu.Unlock()
	}
}

// Lost reports whether a Wait of tx gave up taking the lock back (its
// context ended first): the transaction holds no lock.
func (tx *Tx) Lost() bool { return tx.lost }

// Locked runs fn holding the lock: at once, or, when a Wait lost it, on a
// goroutine of its own once the lock is free. It is for undoing what a
// transaction left in the state the lock guards (a staged copy given back)
// on a path that may have lost the lock.
func (tx *Tx) Locked(fn func()) {
	if !tx.lost {
		fn()
		return
	}
	e := tx.e
	go func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		fn()
	}()
}

// Begin is the transaction of op, which the caller admitted under the lock
// it holds now (a path that decides its verdict outside Do). The epoch is
// taken here.
func (e *Engine) Begin(op lifecycle.Op, a Admission) *Tx {
	return &Tx{e: e, op: op, a: a, epoch: e.epoch}
}

// Op is the transaction's operation.
func (tx *Tx) Op() lifecycle.Op { return tx.op }

// Verdict is the gate's verdict at admission.
func (tx *Tx) Verdict() lifecycle.Verdict { return tx.a.Verdict }

// PoolMode is the mode the operation allocates pool pages in.
func (tx *Tx) PoolMode() lifecycle.PoolMode { return tx.a.Pool }

// CacheMode is the mode the operation looks params up in.
func (tx *Tx) CacheMode() lifecycle.CacheMode { return tx.a.Cache }

// usable is the check before every step that reaches the GPU.
func (tx *Tx) usable() error {
	switch {
	case tx.done:
		return ErrTxDone
	case tx.lost:
		return ErrLockLost
	case tx.waited:
		return ErrWaited
	}
	return nil
}

// Token names what Tx.Wait waits for.
type Token struct {
	name string
	sub  driver.Submission
	gpu  bool
	call func(context.Context) error
}

// GPU is the token of sub: the wait ends when the GPU has finished it (at
// once for the zero submission).
func GPU(sub driver.Submission) Token { return Token{name: "sync", sub: sub, gpu: true} }

// Progress is the token of the submitter's next processed batch (or none
// to wait for).
func Progress() Token { return Token{name: "flush"} }

// Call is the token of a wait the owner does itself, named name: fn runs
// with the lock released and its error is the wait's. It is for waits the
// engine does not know (a read's mapping, other streams' hand-offs) that
// must not hold the lock all the same; fn must not take the lock.
func Call(name string, fn func(context.Context) error) Token {
	return Token{name: name, call: fn}
}

// Wait releases the lock, waits for t or for ctx to end, and takes the
// lock again (ctx's error, or the wait's). It is the only way a
// transaction gives the lock up: from then on its encoding, queue writes,
// hand-offs and submits fail with ErrWaited until Readmit succeeds.
//
// Taking the lock back is bounded by ctx too: another operation may hold
// the lock for long (a replay waiting for room between its chunks), and a
// call with a deadline must return at it. When ctx ends first, Wait
// returns ctx's error without the lock: the transaction is lost (Lost),
// every later use of it fails with ErrLockLost, its caller must return
// touching nothing the lock guards (Locked runs what must be undone once
// the lock is free), and Do returns without releasing the lock.
func (tx *Tx) Wait(ctx context.Context, t Token) error {
	if tx.done {
		return ErrTxDone
	}
	if tx.lost {
		return ErrLockLost
	}
	e := tx.e
	var changed <-chan struct{}
	if !t.gpu && t.call == nil {
		if e.sub == nil {
			return nil // nothing is handed off: nothing to wait for
		}
		var ready bool
		if changed, ready = e.sub.Next(); ready {
			return nil
		}
	}
	tx.waited = true
	e.mu.Unlock()
	e.waiting(t.name)
	var err error
	switch {
	case t.call != nil:
		err = t.call(ctx)
	case t.gpu:
		if t.sub != 0 {
			err = e.drv.Wait(ctx, t.sub)
		}
	default:
		select {
		case <-changed:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if lerr := e.LockContext(ctx); lerr != nil {
		tx.lost = true
		if err == nil {
			err = lerr
		}
	}
	return err
}

// Readmit lets a transaction that waited go on: at once if no transition
// moved the epoch meanwhile, otherwise if the gate admits its operation
// again (then the epoch is taken anew). It fails with ErrClosed if the
// engine began closing, and with the gate's refusal. The caller holds the
// lock (Wait returned).
func (tx *Tx) Readmit() error {
	if tx.done {
		return ErrTxDone
	}
	if tx.lost {
		return ErrLockLost
	}
	e := tx.e
	if e.closing.Load() {
		return ErrClosed
	}
	if e.epoch != tx.epoch {
		if err := e.gate.Readmit(tx.op); err != nil {
			return err
		}
		tx.epoch = e.epoch
	}
	tx.waited = false
	return nil
}

// Encoder is the open batch's encoder, for the transaction to encode into.
func (tx *Tx) Encoder() (driver.Encoder, error) {
	if err := tx.usable(); err != nil {
		return nil, err
	}
	return tx.e.enc, nil
}

// WriteBuffer writes data to b through the queue (Engine.WriteBuffer).
func (tx *Tx) WriteBuffer(b driver.Buffer, offset uint64, data []byte) error {
	if err := tx.usable(); err != nil {
		return err
	}
	return tx.e.WriteBuffer(b, offset, data)
}

// HandOff sends the open batch on its way (Engine.HandOff).
func (tx *Tx) HandOff() error {
	if err := tx.usable(); err != nil {
		return err
	}
	tx.e.HandOff()
	return nil
}

// Submit submits cb on its own (Engine.SubmitAlone) and records it as the
// newest submission. The lock stays held: on OpenGL the submit can run the
// work, so it is for command buffers the caller wants submitted where the
// operation stands.
func (tx *Tx) Submit(cb driver.CommandBuffer) (driver.Submission, error) {
	if err := tx.usable(); err != nil {
		cb.Release()
		return 0, err
	}
	sub, err := tx.e.SubmitAlone(cb)
	if err == nil {
		tx.e.NoteSubmission(sub)
	}
	return sub, err
}

// SubmitWait submits cb on its own and waits until the GPU has finished
// it, with the lock released for both, and returns the time from the
// submit to the end of the wait. It is for timing one submission alone (a
// profile's floor round): on OpenGL the submit itself can run the work, so
// it is not made under the lock. Like Submit it is refused after an
// unconfirmed wait (the caller Readmits right before), and like Wait it
// leaves the transaction waited. A submission made is recorded as the
// newest (NoteSubmission) whether or not its wait succeeded.
func (tx *Tx) SubmitWait(ctx context.Context, cb driver.CommandBuffer) (time.Duration, error) {
	if err := tx.usable(); err != nil {
		cb.Release()
		return 0, err
	}
	e := tx.e
	tx.waited = true
	e.mu.Unlock()
	e.waiting("submit")
	start := time.Now()
	sub, err := e.SubmitAlone(cb)
	submitted := err == nil
	if submitted {
		err = e.drv.Wait(ctx, sub)
	}
	d := time.Since(start)
	e.mu.Lock()
	if submitted {
		e.NoteSubmission(sub)
	}
	return d, err
}

// Flush hands the open batch off and waits, with the lock released, until
// everything handed off up to then is submitted (not run), or ctx ends.
// Batches other goroutines hand off meanwhile are not waited for, so a busy
// stream cannot starve the wait. After each wait the transaction is
// admitted again (Readmit), so a capture window opened meanwhile refuses
// it before it does anything more. It returns with the lock held: ctx's
// error if it ended first (the work stays enqueued), ErrClosed, or the
// gate's refusal.
func (tx *Tx) Flush(ctx context.Context) error { return tx.submitHandedOff(ctx, true) }

// Drain is Flush for a caller that reaches the GPU no more after it (a
// transition that reads what its warmup's submission reported, Close): it
// hands the open batch off and waits, with the lock released, until
// everything handed off up to then is submitted, and it is not admitted
// again after its waits; the transaction is left waited (ErrWaited until
// Readmit). It waits while the engine is closing too: Close drains before
// it stops the submitter. It returns with the lock held: ctx's error if it
// ended first (the work stays enqueued).
func (tx *Tx) Drain(ctx context.Context) error { return tx.submitHandedOff(ctx, false) }

// submitHandedOff hands the open batch off and waits, with the lock given
// up, until the submitter has submitted every batch handed off up to then:
// Flush and Drain, which differ only in readmit (whether each wait is
// followed by Readmit).
func (tx *Tx) submitHandedOff(ctx context.Context, readmit bool) error {
	if err := tx.HandOff(); err != nil {
		return err
	}
	e := tx.e
	mine := e.gen // every batch handed off so far has a smaller number
	for {
		e.reap(false)
		if len(e.inflight) == 0 || e.inflight[0].gen >= mine {
			return nil
		}
		if e.submitQueued() {
			continue
		}
		if err := tx.Wait(ctx, Progress()); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if readmit {
			if err := tx.Readmit(); err != nil {
				return err
			}
		}
	}
}

// HandOffFull sends the open batch on its way if it is full
// (Engine.HandOffFull), waiting for room with the lock released when the
// submitter is behind: the last step of a Launch, Copy or Clear whose
// command is in the batch already. The hand-off after such a wait is not
// admitted again (the command went in under the transaction's admission,
// before any window the wait let open, and the wait only sends it on its
// way), but the transaction is left waited, so nothing of it that follows
// reaches the GPU unasked. It reports whether the batch was handed off.
func (tx *Tx) HandOffFull() (bool, error) {
	if err := tx.usable(); err != nil {
		return false, err
	}
	e := tx.e
	n := e.unlocks
	ok := e.handOffFull(roomUnlocked)
	if e.unlocks != n {
		tx.waited = true
	}
	return ok, nil
}

// WaitRoom waits, with the lock released, until fewer than MaxInflight
// batches wait for the submitter (at once if that is so already), then
// asks Readmit. It returns with the lock held; ErrClosed if the engine
// began closing.
func (tx *Tx) WaitRoom() error {
	if err := tx.usable(); err != nil {
		return err
	}
	e := tx.e
	e.reap(false)
	if len(e.inflight) < MaxInflight {
		return nil
	}
	tx.waited = true
	if !e.waitRoomUnlocked() {
		return ErrClosed
	}
	return tx.Readmit()
}
