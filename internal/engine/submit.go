package engine

import (
	"context"
	"runtime"
	"time"

	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/submitq"
)

// MaxInflight is how many batches may wait for the submitter before a full
// batch stops being handed off: each holds an encoder and its memory until
// it is submitted. Past it, full batches keep growing (the GPU, or the
// OpenGL driver's submit, is behind, so larger batches cost nothing) until
// one holds maxBacklog dispatches; only then does the caller wait for a
// submission, so that memory stays bounded. Sync points hand off regardless
// of the bound: they wait for their own work anyway.
const (
	MaxInflight = 3
	maxBacklog  = 512
	// roomPatience is how long a full batch waits for room before the
	// engine calls the submitter stalled and lets batches grow: on a
	// hardware adapter the submitter frees a slot within microseconds, and
	// handing off batches of the chunk size keeps the GPU fed best; behind
	// long GPU work (or an OpenGL submit running it) room takes as long as
	// the work, which a launch must not wait for.
	roomPatience = 2 * time.Millisecond
	// GPUDepth bounds the submissions the GPU has not finished: before
	// submitting another, the submitter waits for the one GPUDepth back.
	// Without it an engine fed faster than the GPU runs queues work on the
	// device without end: memory grows, and a read, which waits for
	// everything submitted before it, waits longer each time (seen: 3 s on
	// the H200 behind goroutines replaying in a loop). With it the wait
	// reaches the unsubmitted batches, then the caller (maxBacklog).
	GPUDepth = 8
	// finishWorkers is how many batches may be finished at once ahead of
	// the submitter: two already finish faster than the H200 runs tiny
	// dispatches (each about 1.5 µs per dispatch, the GPU about 1.8).
	finishWorkers = 2
)

// job is one batch on its way to the GPU: the encoder that holds its
// commands (ended and finished by whoever processes the job), the finished
// command buffers that go before them, and what the batch holds until it is
// submitted.
type job struct {
	enc  driver.Encoder
	b    Batch
	gen  uint64
	sub  driver.Submission
	sent bool // sub is this job's submission (false for a batch of queued values alone)
	err  error

	// A job whose encoder is finished ahead (finishAhead): a finisher
	// sends on fin once the Finish is done, and cb and finErr are its
	// result. The submitter reads them after fin, and only then. fin is
	// made once per job and reused, so a hand-off allocates nothing.
	ahead  bool
	fin    chan struct{}
	cb     driver.CommandBuffer
	finErr error
}

// WriteBuffer writes data to b through the queue, ordered before every
// later submission. It is the engine's one queue-write site besides the
// values batches carry (QueueWrite), which its batch processor writes.
func (e *Engine) WriteBuffer(b driver.Buffer, offset uint64, data []byte) error {
	return e.drv.WriteBuffer(b, offset, data)
}

// SubmitAlone submits cb straight to the queue, beside the submitter: for
// command buffers that must not join a batch. A loaded graph's clears are
// the loader's own until it returns the graph (its buffers are nobody
// else's, and the queue orders them before every later submission); a
// profile's floor round is timed from its own submit to its end, after the
// owner's earlier work finished. The caller may or may not hold the lock
// (on OpenGL the submit can run the work) and orders the call as its own
// doc says; it records the submission with NoteSubmission if later waits
// must cover it.
func (e *Engine) SubmitAlone(cb driver.CommandBuffer) (driver.Submission, error) {
	return e.drv.Submit([]driver.CommandBuffer{cb})
}

// finishAhead hands j's encoder to the finishers, which finish it at once,
// so that the pass ends of several batches (most of a dispatch's host
// cost) run at once while the submitter submits them in order. Only when
// asked for (Config.FinishAhead), and only for a batch whose encoder holds
// all of its commands: counted replays are encoded by the submitter first
// (encodeCounted), so such a batch is finished there. The caller holds the
// lock, has started the submitter (and with it the finishers) and has not
// pushed j yet. A full channel blocks it only until a finisher takes a
// job, which needs no lock.
func (e *Engine) finishAhead(j *job) {
	if e.finish == nil || j.b.Counted.Prog != nil || j.enc.Empty() {
		return
	}
	if j.fin == nil {
		j.fin = make(chan struct{}, 1)
	}
	j.ahead = true
	e.finish <- j
}

// startFinishers starts the goroutines of finishAhead; stopFinishers ends
// them once the submitter has processed every job (none is then waiting
// for a Finish).
func (e *Engine) startFinishers() {
	if !e.cfg.FinishAhead || e.finish != nil {
		return
	}
	e.finish = make(chan *job, 2*MaxInflight)
	for range finishWorkers {
		go func(jobs <-chan *job) {
			for j := range jobs {
				j.cb, j.finErr = j.enc.Finish()
				j.fin <- struct{}{}
			}
		}(e.finish)
	}
}

func (e *Engine) stopFinishers() {
	if e.finish != nil {
		close(e.finish)
		e.finish = nil
	}
}

// process finishes and submits a job (on the submitter, or inline when
// background submission is off). This and SubmitAlone are the engine's
// submission sites.
func (e *Engine) process(j *job) {
	var cb driver.CommandBuffer
	var err error
	ahead := j.ahead
	if ahead {
		<-j.fin
		j.ahead = false
	}
	// The batch's queued values land first: a queue write comes before
	// the next submission, so before this batch and after every one before.
	for _, w := range j.b.writes {
		if err = e.drv.WriteBuffer(w.pg.Buffer(), 0, j.b.wbytes[w.lo:w.hi]); err != nil {
			break
		}
	}
	// Counted replays run after the finished command buffers and before
	// the encoder's commands.
	if err == nil && j.b.Counted.Prog != nil {
		err = e.encodeCounted(j)
	}
	// A batch of finished command buffers alone (pre-encoded replays), or
	// of queued values alone, leaves its encoder as it was, readied:
	// finishing an empty pass would cost the device lock and a Prepare for
	// nothing.
	idle := !ahead && j.enc.Empty() && !j.enc.PassOpen()
	finishing := err == nil && !idle
	switch {
	case ahead:
		cb, j.cb = j.cb, driver.CommandBuffer{}
		if err == nil {
			err = j.finErr
		} else {
			// A queued value failed: the batch's commands go with it.
			cb.Release()
			cb = driver.CommandBuffer{}
		}
		j.finErr = nil
	case finishing:
		cb, err = j.enc.Finish()
	}
	if err == nil {
		if !cb.Empty() {
			j.b.CBs = append(j.b.CBs, cb)
		}
		if len(j.b.CBs) > 0 {
			j.sub, err = e.drv.Submit(j.b.CBs)
			j.sent = err == nil
			if err == nil && e.log.GetLevel() <= zerolog.DebugLevel {
				e.log.Debug().Int("dispatches", j.b.Dispatches).Uint64("submission", uint64(j.sub)).Msg("submit")
			}
		}
		// The batch is on its way: ready the encoder for the batch after
		// next here, off the caller's path (driver.Encoder.Prepare).
		if !idle {
			j.enc.Prepare()
		}
	} else {
		if !idle && !finishing && !ahead {
			// A queued value or the counted replays failed before the
			// encoder was finished: its commands go with the batch, never
			// into the next one.
			j.enc.Discard()
		}
		for _, c := range j.b.CBs {
			c.Release()
		}
	}
	clear(j.b.CBs)
	j.b.CBs = j.b.CBs[:0]
	j.err = err
}

// encodeCounted encodes a batch's counted replays (process). With the
// batch's encoder still empty they go into it; otherwise into the engine's
// entry encoder, whose command buffer joins the batch's finished ones, so
// they run before the encoder's commands. Only the batch's processor calls
// it (the submitter, or the caller inline without one), one batch at a
// time.
func (e *Engine) encodeCounted(j *job) error {
	c := j.b.Counted
	enc := j.enc
	separate := !enc.Empty() || enc.PassOpen()
	if separate {
		if e.entryEnc == nil {
			ne, err := e.drv.NewEncoder()
			if err != nil {
				return err
			}
			e.entryEnc = ne
		}
		enc = e.entryEnc
	}
	for range c.N {
		if err := enc.Encode(c.Prog, 0, c.Prog.Len()); err != nil {
			enc.Discard()
			return err
		}
	}
	if separate {
		cb, err := enc.Finish()
		if err != nil {
			return err
		}
		j.b.CBs = append(j.b.CBs, cb)
		enc.Prepare()
	}
	return nil
}

// startSubmitter starts the submitter: a queue (internal/submitq) whose
// goroutine processes the batches handed off, in order. Before it
// processes a batch it waits for the submission GPUDepth back, so that an
// engine fed faster than the GPU runs stops queueing work on the device.
// It never takes the owner's lock, so the owner may wait for it while
// holding that lock.
func (e *Engine) startSubmitter() {
	e.sub = submitq.Start(func(j *job) {
		if old := e.throttle(); old != 0 {
			// An error here (device closed or lost) is the next
			// submission's to report.
			_ = e.drv.Wait(context.Background(), old)
		}
		e.processNoted(j)
	})
}

// throttle is the submission the next one must wait for (GPUDepth back),
// or 0. The batch processor's alone.
func (e *Engine) throttle() driver.Submission {
	if e.sent < GPUDepth {
		return 0
	}
	return e.recent[e.sent%GPUDepth]
}

// processNoted processes j (process) and enters its submission in the
// throttle's ring. The batch processor's alone.
func (e *Engine) processNoted(j *job) {
	e.process(j)
	if j.err == nil && j.sent && j.sub != 0 {
		e.recent[e.sent%GPUDepth] = j.sub
		e.sent++
	}
}

// expired is a context that has ended: a Wait under it only asks whether
// the submission is done.
var expired = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// submitQueued processes, here on the caller's goroutine, the batches
// handed off that the submitter has not started, oldest first, and
// reports whether it processed any. A caller about to wait for them to be
// submitted (Tx.Flush, Tx.Drain) so saves the hand-off to the submitter's
// goroutine and back, which a decode loop's token pays twice (its replay,
// then its read's copy). Measured on an H100 with every batch submitted on
// the caller's goroutine (background submission off) against the
// submitter: a replay of one tiny dispatch and its read 83-96 against
// 102-114 µs, a token of examples/transformer's small model and its read
// 0.304-0.309 against 0.327-0.342 ms.
//
// It stops at a batch the submitter is already processing and at one the
// GPUDepth throttle would make wait for the GPU (that wait is the
// submitter's, with no lock held), so the caller holds the lock only while
// it finishes and submits; and it does nothing where a submit runs the
// GPU's work itself (Config.FlushSubmits). The caller holds the lock.
func (e *Engine) submitQueued() bool {
	if e.sub == nil || !e.cfg.FlushSubmits {
		return false
	}
	n := 0
	for {
		j, ok := e.sub.Claim()
		if !ok {
			break
		}
		if old := e.throttle(); old != 0 && e.drv.Wait(expired, old) != nil {
			e.sub.Unclaim(j)
			break
		}
		e.processNoted(j)
		e.sub.Processed(j)
		n++
	}
	return n > 0
}

// stopSubmitter ends the goroutine; the caller has drained it.
func (e *Engine) stopSubmitter() {
	if e.sub != nil {
		e.sub.Stop()
		e.sub = nil
	}
	e.stopFinishers()
}

// RoomWait says how a full batch may wait for the submitter (HandOffFull).
type RoomWait int

const (
	// RoomNever: never wait (a flush timer; it tries again later).
	RoomNever RoomWait = iota
	// RoomLocked: wait holding the lock (a replay between two chunks of
	// its graph, which must stay one uninterrupted call).
	RoomLocked
	// roomUnlocked: wait with the lock released (a launch, copy or clear
	// whose command is enqueued already), so that no other call, a sync
	// with a deadline above all, queues behind the GPU. Only a transaction
	// waits so (Tx.HandOffFull): a wait that gives the lock up is one.
	roomUnlocked
)

// HandOffFull is how a full batch goes on its way without waiting for the
// GPU: it reports false, handing nothing off, while MaxInflight batches
// still wait for the submitter and the open batch holds fewer than
// maxBacklog dispatches; past that it waits for room as w says (RoomNever:
// it reports false). The caller holds the lock, which this keeps (w is
// RoomNever or RoomLocked; a wait with the lock released is a
// transaction's, Tx.HandOffFull).
func (e *Engine) HandOffFull(w RoomWait) bool { return e.handOffFull(w) }

func (e *Engine) handOffFull(w RoomWait) bool {
	e.reap(false)
	if len(e.inflight) >= MaxInflight {
		if w == RoomNever {
			return false
		}
		gen := e.gen
		switch {
		case e.open.Dispatches < maxBacklog:
			if e.stalled || !e.awaitRoom(w) {
				e.stalled = true
				return false
			}
		case w == RoomLocked:
			e.MakeRoom()
		case !e.waitRoomUnlocked():
			return true // closing: the owner's Close submits the batch
		}
		if e.gen != gen {
			return true // another call handed the batch off meanwhile
		}
	}
	e.stalled = false
	e.HandOff()
	return true
}

// awaitRoom waits up to roomPatience for fewer than MaxInflight batches to
// wait for the submitter, yielding the processor between looks (with the
// lock released for roomUnlocked); false if there is still no room. The
// caller holds the lock, and holds it again on return.
func (e *Engine) awaitRoom(w RoomWait) bool {
	var deadline time.Time
	for {
		if e.sub == nil || e.closing.Load() {
			return false
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(roomPatience)
		} else if now.After(deadline) {
			return false
		}
		if w == roomUnlocked {
			e.unlocks++
			e.mu.Unlock()
			runtime.Gosched()
			e.mu.Lock()
		} else {
			runtime.Gosched()
		}
		e.reap(false)
		if len(e.inflight) < MaxInflight {
			return true
		}
	}
}

// waitRoomUnlocked is makeRoom with the lock released while the submitter
// works; it reports false if the owner began closing meanwhile. The caller
// holds the lock, and holds it again on return.
func (e *Engine) waitRoomUnlocked() bool {
	for len(e.inflight) >= MaxInflight {
		sub := e.sub
		if sub == nil || e.closing.Load() {
			return false
		}
		// Count first, then take: every job counted in seen is then taken
		// here, so a batch still in flight after this reap is one the
		// submitter has yet to handle, and the wait below ends when it
		// does. Taken before counting, a job handled in between was
		// counted but left in flight, and the wait for one more could
		// outlast the last job (SetVar hung on four streams).
		seen := sub.Handled()
		e.reap(false)
		if len(e.inflight) < MaxInflight {
			break
		}
		e.unlocks++
		e.mu.Unlock()
		e.waiting("room")
		sub.AwaitHandledPast(seen)
		e.mu.Lock()
		e.reap(false)
	}
	return true
}

// MakeRoom waits until fewer than MaxInflight batches wait for the
// submitter. The caller holds the lock.
func (e *Engine) MakeRoom() {
	for len(e.inflight) >= MaxInflight {
		e.reap(true)
	}
}

// HandOff sends the open batch on its way to the GPU and opens a new one:
// to the submitter, or, with background submission off, finished and
// submitted right here. The caller holds the lock.
func (e *Engine) HandOff() {
	e.reap(false)
	if e.enc.Empty() && e.open.nothingToSubmit() {
		if n := len(e.inflight); n > 0 && e.open.holdsMemory() {
			// Nothing to submit, but what the batch holds may still be in
			// use by a batch handed off and not yet submitted (a params
			// slot evicted by a launch refused after its lookup, whose
			// last user went out in that batch): it is dropped with the
			// newest of those instead, so no queue write reusing it can
			// overtake them. The submitter does not touch these lists.
			b := &e.inflight[n-1].b
			b.Pages = append(b.Pages, e.open.Pages...)
			b.Pins = append(b.Pins, e.open.Pins...)
			b.Slots = append(b.Slots, e.open.Slots...)
			clear(e.open.Pages)
			clear(e.open.Pins)
			clear(e.open.Slots)
			e.open.Pages, e.open.Pins, e.open.Slots = e.open.Pages[:0], e.open.Pins[:0], e.open.Slots[:0]
			return
		}
		if e.open.holdsMemory() {
			// Nothing to submit and nothing in flight: what the batch held
			// is protected already.
			j := e.newJob()
			j.b, e.open = e.open, j.b
			j.gen = e.gen
			e.gen++
			e.retireJob(j)
		}
		return
	}
	enc := e.takeEncoder()
	if enc == nil && len(e.inflight) > 0 {
		// No spare and no new encoder (the device is closing): this batch
		// would be finished here, ahead of the batches still queued for
		// the submitter, and reported done out of order (reap retires jobs
		// oldest first, and Flush waited forever for the stale one).
		// Waiting for those returns their encoders as spares.
		for len(e.inflight) > 0 && e.sub != nil {
			e.reap(true)
		}
		enc = e.takeEncoder()
	}
	j := e.newJob()
	j.enc, e.enc = e.enc, enc
	j.b, e.open = e.open, j.b
	j.gen = e.gen
	e.gen++
	if e.nextSubmit < e.cfg.MaxChunk {
		e.nextSubmit = min(e.nextSubmit+max(e.nextSubmit/2, 1), e.cfg.MaxChunk)
	}
	e.inflight = append(e.inflight, j)
	if !e.cfg.Async || enc == nil {
		if enc == nil {
			// No spare encoder could be made (the device is going): finish
			// this one here and keep using it.
			e.enc = j.enc
		}
		e.process(j)
		e.doneInline(j)
		e.reap(false)
		return
	}
	if e.sub == nil {
		e.startSubmitter()
		e.startFinishers()
	}
	e.finishAhead(j)
	e.sub.Push(j)
}

// doneInline records an inline-processed job as done.
func (e *Engine) doneInline(j *job) {
	if e.sub == nil {
		e.inlineDone = append(e.inlineDone, j)
		return
	}
	e.sub.AddDone(j)
}

// Reap retires the batches the submitter has processed.
func (e *Engine) Reap() { e.reap(false) }

// reap retires the jobs the submitter has processed, oldest first; with
// wait it blocks until at least one more is done (there must be one in
// flight). The caller holds the lock; the submitter never takes it.
func (e *Engine) reap(wait bool) {
	done := append(e.reaping[:0], e.inlineDone...)
	clear(e.inlineDone)
	e.inlineDone = e.inlineDone[:0]
	defer func() {
		clear(done)
		e.reaping = done[:0]
	}()
	if e.sub != nil {
		done = e.sub.Take(done, wait && len(done) == 0)
	}
	for _, j := range done {
		if j.err != nil {
			if e.cfg.Failed != nil {
				e.cfg.Failed(j.b.Dispatches, j.err)
			}
		} else if j.sent && j.sub >= e.lastSub {
			e.lastSub, e.submitted = j.sub, true
		}
		e.submittedGen = max(e.submittedGen, j.gen)
		// Jobs finish in order: the oldest in flight is this one.
		if len(e.inflight) > 0 && e.inflight[0] == j {
			copy(e.inflight, e.inflight[1:])
			e.inflight[len(e.inflight)-1] = nil
			e.inflight = e.inflight[:len(e.inflight)-1]
		}
		if j.enc != nil && j.enc != e.enc {
			// Keep as many spares as batches may wait for the submitter;
			// a sync point's hand-off past that bound made one more.
			if len(e.spare) < MaxInflight {
				e.spare = append(e.spare, j.enc)
			} else {
				// Released on a goroutine of its own, not under the
				// lock: on OpenGL a release waits for the process's GL
				// lock, which another stream's submit holds while the
				// driver runs its work (llvmpipe runs it inside the
				// submit), and a Read behind it outlasted its deadline
				// by that work's length.
				e.releasing.Add(1)
				go func(enc driver.Encoder) {
					defer e.releasing.Done()
					enc.Release()
				}(j.enc)
			}
		}
		j.enc = nil
		e.retireJob(j)
	}
}

// retireJob drops what a submitted (or empty) batch held: the queue's order
// protects it from now on.
func (e *Engine) retireJob(j *job) {
	b := &j.b
	for _, pg := range b.Pages {
		pg.Unref()
	}
	clear(b.Pages)
	for _, p := range b.Pins {
		p.Unref()
	}
	clear(b.Pins)
	if len(b.Slots) > 0 && e.cfg.ReleaseSlots != nil {
		e.cfg.ReleaseSlots(b.Slots)
	}
	for _, w := range b.writes {
		w.pg.Unref()
	}
	if c := b.Counted; c.Prog != nil {
		b.Counted = Counted{}
		if c.Entry != nil {
			c.Entry.ReleaseEntry()
		}
	}
	clear(b.writes)
	b.Pages, b.Pins, b.Slots, b.writes, b.wbytes = b.Pages[:0], b.Pins[:0], b.Slots[:0], b.writes[:0], b.wbytes[:0]
	b.Dispatches = 0
	j.err, j.sub, j.sent = nil, 0, false
	e.jobFree = append(e.jobFree, j)
}

func (e *Engine) newJob() *job {
	if n := len(e.jobFree); n > 0 {
		j := e.jobFree[n-1]
		e.jobFree = e.jobFree[:n-1]
		return j
	}
	return &job{}
}

// takeEncoder returns a spare encoder, or a new one; nil if none can be
// made.
func (e *Engine) takeEncoder() driver.Encoder {
	if n := len(e.spare); n > 0 {
		s := e.spare[n-1]
		e.spare = e.spare[:n-1]
		return s
	}
	s, err := e.drv.NewEncoder()
	if err != nil {
		return nil
	}
	return s
}

// Flush submits everything enqueued and waits until the submitter has
// submitted it (not until the GPU has run it), holding the lock. Every
// operation waits with the lock released instead (Tx.Flush, Tx.Drain);
// this is for a caller that knows nothing is left to wait for (Close,
// after its rounds of Tx.Drain) and for the engine's own tests. A batch
// that fails is reported to Config.Failed. The caller holds the lock.
func (e *Engine) Flush() {
	e.HandOff()
	for len(e.inflight) > 0 {
		e.reap(true)
	}
}

// Pending is a mark in the submitter's queue: the batches handed off up to
// it.
type Pending struct {
	q      *submitq.Queue[*job]
	target uint64
}

// HandOffPending hands the open batch off and returns the mark of every
// batch handed off so far, to wait for with the lock released. The caller
// holds the lock.
func (e *Engine) HandOffPending() Pending {
	e.HandOff()
	if e.sub == nil {
		return Pending{}
	}
	return Pending{q: e.sub, target: e.sub.Pushed()}
}

// Await waits until every batch up to the mark is submitted, or ctx ends.
// The caller holds no lock of the engine's owner.
func (p Pending) Await(ctx context.Context) error {
	if p.q == nil {
		return nil
	}
	return p.q.AwaitHandled(ctx, p.target)
}

// FinishingAhead reports whether the finishers run (Config.FinishAhead,
// once a batch was handed off).
func (e *Engine) FinishingAhead() bool { return e.finish != nil }

// WriteTexture fills t from tightly packed rows through the queue, ordered
// before every later submission.
func (e *Engine) WriteTexture(t driver.Texture, data []byte) error {
	return e.drv.WriteTexture(t, data)
}

// FlushWrites submits the queue's pending writes with no command buffer
// (driver.Device.FlushWrites).
func (e *Engine) FlushWrites() (driver.Submission, error) {
	return e.drv.FlushWrites()
}
