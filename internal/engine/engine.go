package engine

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/lockrank"
	"github.com/softgraph/softgraph/internal/paramcache"
	"github.com/softgraph/softgraph/internal/submitq"
)

// ErrClosed is returned by a transaction whose engine began closing while
// it waited (Tx.Readmit), and by Do once the engine is closing.
var ErrClosed = errors.New("engine: closed")

// Config is what an Engine is made from. Driver and Lock are required.
type Config struct {
	// Driver is the device every batch is encoded for and submitted to.
	Driver driver.Device
	// Lock is the owner's lock (a lockrank.Stream mutex). The engine's
	// methods are called with it held; the engine releases it only to
	// wait, in a transaction's waits (Tx.Wait, Flush, Drain, WaitRoom,
	// HandOffFull, SubmitWait), and holds it again
	// before it returns.
	Lock *lockrank.Mutex
	// Closing, when set, reports the owner closing: waits stop and
	// transactions fail with ErrClosed. Set before the owner takes Lock to
	// close, so a waiter sees it without the lock.
	Closing *atomic.Bool
	// ID makes Token unique across engines (the owner's stream number).
	ID uint64
	// Gate is the owner's admission: Do asks it for the verdict, Readmit
	// asks it again once the epoch moved.
	Gate Gate
	// Async hands full batches to a submitter goroutine; off, they are
	// finished and submitted by the caller.
	Async bool
	// FlushSubmits lets a flush about to wait for the submitter process
	// the batches it has not started itself, under the lock (submitQueued).
	// Off where a submit runs the GPU's work on the calling thread (OpenGL,
	// whose driver executes the commands then, and software Vulkan:
	// lavapipe's vkQueueSubmit runs them), which would hold the lock for as
	// long and outlast the caller's deadline.
	FlushSubmits bool
	// FinishAhead finishes handed-off batches on two finisher goroutines
	// while the submitter submits the ones before (the driver's Finishes
	// must run in parallel).
	FinishAhead bool
	// FirstChunk and MaxChunk are the submission schedule: after an idle
	// point the first batch is full at FirstChunk dispatches, each later
	// one half as large again, up to MaxChunk.
	FirstChunk, MaxChunk int
	// Failed is told, with Lock held, of a batch that did not reach the
	// GPU: how many dispatches it held and why.
	Failed func(lost int, err error)
	// ReleaseSlots takes back the params slots a retired batch held, with
	// Lock held.
	ReleaseSlots func([]paramcache.Slot)
	// WaitingUnlocked, when set, runs each time the engine has released
	// Lock to wait and will act again after, with the wait's name ("flush",
	// "room", or a Tx.Wait's token's): where a test changes state under a
	// waiting call.
	WaitingUnlocked func(wait string)
	// Log gets a debug line per submission.
	Log zerolog.Logger
}

// Engine is one stream's batching and submission. Every field but the
// submitter's own is guarded by the owner's lock (Config.Lock).
type Engine struct {
	drv     driver.Device
	mu      *lockrank.Mutex
	closing *atomic.Bool
	id      uint64
	gate    Gate
	cfg     Config
	log     zerolog.Logger

	// unlocks counts the room waits that gave the lock up, so that
	// Tx.HandOffFull knows whether its transaction waited.
	unlocks uint64

	// releasing counts the surplus encoders being released on goroutines
	// of their own (reap); Close waits for them, so a closed stream holds
	// no native object.
	releasing sync.WaitGroup

	// epoch counts lifecycle transitions (Transition): a Tx that waited
	// goes on only if it is unchanged or the gate admits it again.
	epoch uint64

	enc        driver.Encoder // owned; the open batch's encoder, swapped with a spare at each hand-off
	gen        uint64         // number of the open batch; bumped by every hand-off
	open       Batch          // what the open batch holds until it is submitted
	lastSub    driver.Submission
	submitted  bool // at least one submission was made
	nextSubmit int  // dispatch count at which the open batch is full
	// stalled is set when a full batch found no room for roomPatience:
	// later full batches grow without waiting until room shows.
	stalled bool

	// The submitter: batches handed off and not yet reaped, in
	// submission order; spare encoders; the newest batch known to be
	// submitted.
	sub      *submitq.Queue[*job]
	finish   chan *job // jobs for the finishers (finishAhead); nil without them
	inflight []*job
	spare    []driver.Encoder
	// idleTx is the transaction Do ended last, kept for the next Do.
	idleTx       *Tx
	jobFree      []*job
	submittedGen uint64
	inlineDone   []*job // jobs processed inline (no submitter), not yet reaped
	reaping      []*job // reap's scratch
	// entryEnc encodes counted replays ahead of a batch's own commands;
	// the batch processor's alone (encodeCounted).
	entryEnc driver.Encoder
	// recent and sent are the GPUDepth throttle's ring of the last
	// submissions and how many were made: the batch processor's alone
	// (the submitter, or a caller holding a claim, submitQueued; one at a
	// time, by the submitter's queue).
	recent [GPUDepth]driver.Submission
	sent   int
}

// New makes an engine and the open batch's encoder.
func New(cfg Config) (*Engine, error) {
	enc, err := cfg.Driver.NewEncoder()
	if err != nil {
		return nil, err
	}
	if cfg.Closing == nil {
		cfg.Closing = new(atomic.Bool)
	}
	if cfg.FirstChunk <= 0 {
		cfg.FirstChunk = 16
	}
	cfg.MaxChunk = max(cfg.MaxChunk, cfg.FirstChunk)
	return &Engine{
		drv: cfg.Driver, mu: cfg.Lock, closing: cfg.Closing, id: cfg.ID, gate: cfg.Gate,
		cfg: cfg, log: cfg.Log, enc: enc, gen: 1, nextSubmit: cfg.FirstChunk,
	}, nil
}

// Close stops the submitter and releases the encoders. The caller holds
// the lock and has flushed (Flush) and waited for the GPU.
func (e *Engine) Close() {
	e.stopSubmitter()
	if e.entryEnc != nil {
		e.entryEnc.Release()
		e.entryEnc = nil
	}
	e.enc.Release()
	for _, s := range e.spare {
		s.Release()
	}
	e.spare = nil
	e.releasing.Wait()
}

// Transition marks a lifecycle transition of the owner (a capture window
// prepared, opened, ended or aborted): every transaction that waits across
// it must be admitted again (Tx.Readmit). The caller holds the lock.
func (e *Engine) Transition() { e.epoch++ }

// Epoch is the number of transitions so far.
func (e *Engine) Epoch() uint64 { return e.epoch }

// Enc is the open batch's encoder. It is for paths that hold the lock in
// the hold that admitted them, with no wait since (a Launch, Replay, Copy
// or Clear encoding its command; a transaction's steps before its first
// wait or right after Readmit), where nothing can have moved the verdict.
// After a wait a transaction gets it from Tx.Encoder, which refuses it
// until Readmit.
func (e *Engine) Enc() driver.Encoder { return e.enc }

// Gen is the open batch's number.
func (e *Engine) Gen() uint64 { return e.gen }

// Token identifies the open batch to pool.Page.Touch: engine id and batch
// number, unique for the process.
func (e *Engine) Token() uint64 { return e.id<<40 | e.gen }

// SubmittedGen is the newest batch known to be submitted.
func (e *Engine) SubmittedGen() uint64 { return e.submittedGen }

// Last is the newest submission, and whether there was one.
func (e *Engine) Last() (driver.Submission, bool) { return e.lastSub, e.submitted }

// NoteSubmission records sub, made by SubmitAlone, as the newest if it is.
func (e *Engine) NoteSubmission(sub driver.Submission) {
	if sub > e.lastSub {
		e.lastSub, e.submitted = sub, true
	}
}

// Chunk is the dispatch count at which the open batch is full.
func (e *Engine) Chunk() int { return e.nextSubmit }

// Full reports whether the open batch is full.
func (e *Engine) Full() bool { return e.open.Dispatches >= e.nextSubmit }

// ResetChunk restarts the submission schedule (an idle point: a sync or a
// read), so the next batch reaches the GPU after FirstChunk dispatches.
func (e *Engine) ResetChunk() { e.nextSubmit = e.cfg.FirstChunk }

// RaiseChunk makes the open batch full no sooner than n dispatches (at
// most MaxChunk): the GPU holds that much work already.
func (e *Engine) RaiseChunk(n int) { e.nextSubmit = max(e.nextSubmit, min(n, e.cfg.MaxChunk)) }

// ResetBatch starts a new batch number without submitting anything (the
// open batch is empty): what was encoded was dropped.
func (e *Engine) ResetBatch() { e.gen++ }

// LockContext takes the lock, giving up when ctx ends. The lock is
// normally free or held for a few microseconds; it is held long only by a
// replay waiting for room between its chunks, which a deadline must not
// inherit. When ctx has ended (or ends) while the lock is held, a holder of
// a moment (the flush timer's hand-off, another call's bookkeeping) is let
// finish for up to lockGrace before giving up: a call made with a context
// already cancelled is then decided by the stream as any call is (a
// refusal while recording, say), not by whether a timer happened to hold
// the lock that microsecond.
func (e *Engine) LockContext(ctx context.Context) error {
	if e.mu.TryLock() {
		return nil
	}
	if ctx.Done() == nil {
		e.mu.Lock()
		return nil
	}
	nap := 20 * time.Microsecond
	t := time.NewTimer(nap)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			e.waiting("lock grace")
			for end := time.Now().Add(lockGrace); time.Now().Before(end); runtime.Gosched() {
				if e.mu.TryLock() {
					return nil
				}
			}
			return ctx.Err()
		case <-t.C:
		}
		if e.mu.TryLock() {
			return nil
		}
		nap = min(2*nap, time.Millisecond)
		t.Reset(nap)
	}
}

// lockGrace is how long LockContext keeps trying for the lock once its
// context has ended.
// (a momentary holder on a loaded two-core machine can be preempted for
// a millisecond; a deadline is kept to within it).
const lockGrace = 2 * time.Millisecond

func (e *Engine) waiting(name string) {
	if e.cfg.WaitingUnlocked != nil {
		e.cfg.WaitingUnlocked(name)
	}
}
