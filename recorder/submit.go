package recorder

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/internal/submitq"
	"github.com/softgraph/softgraph/lifecycle"
)

// maxInflight is how many batches may wait for the submitter before a full
// batch stops being handed off: each holds an encoder and its memory until
// it is submitted. Past it, Launch and Replay keep adding to the open batch
// (the GPU, or the OpenGL driver's submit, is behind, so larger batches
// cost nothing) until it holds maxBacklog dispatches; only then do they
// wait for a submission, so that memory stays bounded. Sync points hand off
// regardless of the bound: they wait for their own work anyway.
const (
	maxInflight = 3
	maxBacklog  = 512
	// roomPatience is how long a full batch waits for room before the
	// stream calls the submitter stalled and lets batches grow: on a
	// hardware adapter the submitter frees a slot within microseconds, and
	// handing off batches of the chunk size keeps the GPU fed best; behind
	// long GPU work (or an OpenGL submit running it) room takes as long as
	// the work, which Launch must not wait for.
	roomPatience = 2 * time.Millisecond
	// gpuDepth bounds the submissions of a stream the GPU has not finished:
	// before submitting another, the submitter waits for the one gpuDepth
	// back. Without it a stream fed faster than the GPU runs queues work on
	// the device without end: memory grows, and a Read, which waits for
	// everything submitted before it, waits longer each time (seen: 3 s on
	// the H200 behind goroutines replaying in a loop). With it the wait
	// reaches the unsubmitted batches, then Launch (maxBacklog).
	gpuDepth = 8
)

// flushJob is one batch on its way to the GPU: the encoder that holds its
// commands (ended and finished by whoever processes the job), the finished
// command buffers that go before them, and what the batch holds until it is
// submitted.
type flushJob struct {
	enc  driver.Encoder
	b    batch
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

// finishWorkers is how many batches of a stream may be finished at once
// ahead of its submitter: two already finish faster than the H200 runs
// tiny dispatches (each about 1.5 µs per dispatch, the GPU about 1.8).
const finishWorkers = 2

// finishAhead hands j's encoder to the stream's finishers, which finish it
// at once, so that the pass ends of several batches (most of a dispatch's
// host cost) run at once while the submitter submits them in order. Only
// when asked for (config.finishAhead) on a driver whose Finishes run in
// parallel (driver.Info.ConcurrentFinish), and only for a batch
// whose encoder holds all of its commands: replays counted against a ramp
// step are encoded by the submitter first (encodeCounted), so such a batch
// is finished there. The caller holds s.mu, has started the submitter (and
// with it the finishers) and has not pushed j yet. A full channel blocks
// it only until a finisher takes a job, which needs no lock of the
// stream's.
func (s *Stream) finishAhead(j *flushJob) {
	if s.finish == nil || j.b.counted.g != nil || j.enc.Empty() {
		return
	}
	if j.fin == nil {
		j.fin = make(chan struct{}, 1)
	}
	j.ahead = true
	s.finish <- j
}

// startFinishers starts the goroutines of finishAhead; stopFinishers ends
// them once the submitter has processed every job (none is then waiting
// for a Finish).
func (s *Stream) startFinishers() {
	if !s.cfg.finishAhead || s.finish != nil {
		return
	}
	s.finish = make(chan *flushJob, 2*maxInflight)
	for range finishWorkers {
		go func(jobs <-chan *flushJob) {
			for j := range jobs {
				j.cb, j.finErr = j.enc.Finish()
				j.fin <- struct{}{}
			}
		}(s.finish)
	}
}

func (s *Stream) stopFinishers() {
	if s.finish != nil {
		close(s.finish)
		s.finish = nil
	}
}

// holds reports whether the job's batch uses pg.
func (j *flushJob) holds(pg *pool.Page) bool {
	for _, p := range j.b.pages {
		if p == pg {
			return true
		}
	}
	for _, p := range j.b.pins {
		if p.has(pg) {
			return true
		}
	}
	for _, w := range j.b.writes {
		if w.pg == pg {
			return true
		}
	}
	return false
}

// process finishes and submits a job (on the submitter, or inline when
// background submission is off).
func (s *Stream) process(j *flushJob) {
	var cb driver.CommandBuffer
	var err error
	ahead := j.ahead
	if ahead {
		<-j.fin
		j.ahead = false
	}
	// The batch's queued Var values land first: a queue write comes before
	// the next submission, so before this batch and after every one before.
	for _, w := range j.b.writes {
		if err = s.drv.WriteBuffer(w.pg.Buffer(), 0, j.b.wbytes[w.lo:w.hi]); err != nil {
			break
		}
	}
	// Replays counted against a ramp step run after the finished command
	// buffers and before the encoder's commands.
	if err == nil && j.b.counted.g != nil {
		err = s.encodeCounted(j)
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
			j.b.cbs = append(j.b.cbs, cb)
		}
		if len(j.b.cbs) > 0 {
			j.sub, err = s.drv.Submit(j.b.cbs)
			j.sent = err == nil
			if err == nil && s.log.GetLevel() <= zerolog.DebugLevel {
				s.log.Debug().Int("dispatches", j.b.dispatches).Uint64("submission", uint64(j.sub)).Msg("submit")
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
		for _, c := range j.b.cbs {
			c.Release()
		}
	}
	clear(j.b.cbs)
	j.b.cbs = j.b.cbs[:0]
	j.err = err
}

// startSubmitter starts the stream's submitter: a queue (internal/submitq)
// whose goroutine processes the batches handed off, in order. Before it
// processes a batch it waits for the submission gpuDepth back, so that a
// stream fed faster than the GPU runs stops queueing work on the device.
// It never takes the stream's lock, so the stream may wait for it while
// holding that lock.
func (s *Stream) startSubmitter() {
	var recent [gpuDepth]driver.Submission // ring of the last submissions; the goroutine's own
	n := 0
	s.sub = submitq.Start(func(j *flushJob) {
		if old := recent[n%gpuDepth]; n >= gpuDepth && old != 0 {
			// An error here (device closed or lost) is the next
			// submission's to report.
			_ = s.drv.Wait(context.Background(), old)
		}
		s.process(j)
		if j.err == nil && j.sent && j.sub != 0 {
			recent[n%gpuDepth] = j.sub
			n++
		}
	})
}

// stopSubmitter ends the goroutine; the caller has drained it.
func (s *Stream) stopSubmitter() {
	if s.sub != nil {
		s.sub.Stop()
		s.sub = nil
	}
	s.stopFinishers()
}

// roomWait says how a full batch may wait for the submitter (handOffFull).
type roomWait int

const (
	// roomNever: never wait (the flush timer; it tries again later).
	roomNever roomWait = iota
	// roomLocked: wait holding s.mu (a Replay between two chunks of its
	// graph, which must stay one uninterrupted call).
	roomLocked
	// roomUnlocked: wait with s.mu released (a Launch, Copy or Clear whose
	// command is enqueued already), so that no other call of the stream,
	// a SyncContext with a deadline above all, queues behind the GPU.
	roomUnlocked
)

// handOffFull is how a full batch goes on its way without waiting for the
// GPU: it reports false, handing nothing off, while maxInflight batches
// still wait for the submitter and the open batch holds fewer than
// maxBacklog dispatches; past that it waits for room as w says (roomNever:
// it reports false). The caller holds s.mu.
func (s *Stream) handOffFull(w roomWait) bool {
	s.reap(false)
	if len(s.inflight) >= maxInflight {
		if w == roomNever {
			return false
		}
		gen := s.gen
		switch {
		case s.batch.dispatches < maxBacklog:
			if s.stalled || !s.awaitRoom(w) {
				s.stalled = true
				return false
			}
		case w == roomLocked:
			s.makeRoom()
		case !s.waitRoomUnlocked():
			return true // closing: Close submits the batch
		}
		if s.gen != gen {
			return true // another call handed the batch off meanwhile
		}
	}
	s.stalled = false
	s.handOff()
	return true
}

// awaitRoom waits up to roomPatience for fewer than maxInflight batches to
// wait for the submitter, yielding the processor between looks (with s.mu
// released for roomUnlocked); false if there is still no room. The caller
// holds s.mu, and holds it again on return.
func (s *Stream) awaitRoom(w roomWait) bool {
	var deadline time.Time
	for {
		if s.sub == nil || s.closing.Load() {
			return false
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(roomPatience)
		} else if now.After(deadline) {
			return false
		}
		if w == roomUnlocked {
			s.mu.Unlock()
			runtime.Gosched()
			s.mu.Lock()
		} else {
			runtime.Gosched()
		}
		s.reap(false)
		if len(s.inflight) < maxInflight {
			return true
		}
	}
}

// waitRoomUnlocked is makeRoom with s.mu released while the submitter
// works; it reports false if the stream began closing meanwhile. The caller
// holds s.mu, and holds it again on return.
func (s *Stream) waitRoomUnlocked() bool {
	for len(s.inflight) >= maxInflight {
		sub := s.sub
		if sub == nil || s.closing.Load() {
			return false
		}
		// Count first, then take: every job counted in seen is then taken
		// here, so a batch still in flight after this reap is one the
		// submitter has yet to handle, and the wait below ends when it
		// does. Taken before counting, a job handled in between was
		// counted but left in flight, and the wait for one more could
		// outlast the last job (SetVar hung on four streams).
		seen := sub.Handled()
		s.reap(false)
		if len(s.inflight) < maxInflight {
			break
		}
		s.mu.Unlock()
		if s.waitingUnlocked != nil {
			s.waitingUnlocked("room")
		}
		sub.AwaitHandledPast(seen)
		s.mu.Lock()
		s.reap(false)
	}
	return true
}

// makeRoom waits until fewer than maxInflight batches wait for the
// submitter. The caller holds s.mu.
func (s *Stream) makeRoom() {
	for len(s.inflight) >= maxInflight {
		s.reap(true)
	}
}

// handOff sends the open batch on its way to the GPU and opens a new one:
// to the submitter, or, with background submission off, finished and
// submitted right here. The caller holds s.mu.
func (s *Stream) handOff() {
	s.reap(false)
	if s.enc.Empty() && len(s.batch.cbs) == 0 && len(s.batch.writes) == 0 && s.batch.counted.g == nil {
		if n := len(s.inflight); n > 0 && len(s.batch.pages)+len(s.batch.pins)+len(s.batch.slots) > 0 {
			// Nothing to submit, but what the batch holds may still be in
			// use by a batch handed off and not yet submitted (a params
			// slot evicted by a launch refused after its lookup, whose
			// last user went out in that batch): it is dropped with the
			// newest of those instead, so no queue write reusing it can
			// overtake them. The submitter does not touch these lists.
			b := &s.inflight[n-1].b
			b.pages = append(b.pages, s.batch.pages...)
			b.pins = append(b.pins, s.batch.pins...)
			b.slots = append(b.slots, s.batch.slots...)
			clear(s.batch.pages)
			clear(s.batch.pins)
			clear(s.batch.slots)
			s.batch.pages, s.batch.pins, s.batch.slots = s.batch.pages[:0], s.batch.pins[:0], s.batch.slots[:0]
			return
		}
		if len(s.batch.pages)+len(s.batch.pins)+len(s.batch.slots) > 0 {
			// Nothing to submit and nothing in flight: what the batch held
			// is protected already.
			j := s.newJob()
			j.b, s.batch = s.batch, j.b
			j.gen = s.gen
			s.gen++
			s.retireJob(j)
		}
		return
	}
	enc := s.takeEncoder()
	if enc == nil && len(s.inflight) > 0 {
		// No spare and no new encoder (the device is closing): this batch
		// would be finished here, ahead of the batches still queued for
		// the submitter, and reported done out of order (reap retires jobs
		// oldest first, and flushLocked waited forever for the stale one).
		// Waiting for those returns their encoders as spares.
		for len(s.inflight) > 0 && s.sub != nil {
			s.reap(true)
		}
		enc = s.takeEncoder()
	}
	j := s.newJob()
	j.enc, s.enc = s.enc, enc
	j.b, s.batch = s.batch, j.b
	j.gen = s.gen
	s.gen++
	if s.nextSubmit < s.cfg.maxChunk {
		s.nextSubmit = min(s.nextSubmit+max(s.nextSubmit/2, 1), s.cfg.maxChunk)
	}
	s.inflight = append(s.inflight, j)
	if !s.cfg.async || enc == nil {
		if enc == nil {
			// No spare encoder could be made (the device is going): finish
			// this one here and keep using it.
			s.enc = j.enc
		}
		s.process(j)
		s.sub0(j)
		s.reap(false)
		return
	}
	if s.sub == nil {
		s.startSubmitter()
		s.startFinishers()
	}
	s.finishAhead(j)
	s.sub.Push(j)
}

// sub0 records an inline-processed job as done.
func (s *Stream) sub0(j *flushJob) {
	if s.sub == nil {
		s.inlineDone = append(s.inlineDone, j)
		return
	}
	s.sub.AddDone(j)
}

// reap retires the jobs the submitter has processed, oldest first; with
// wait it blocks until at least one more is done (there must be one in
// flight). The caller holds s.mu; the submitter never takes it.
func (s *Stream) reap(wait bool) {
	done := append(s.reaping[:0], s.inlineDone...)
	clear(s.inlineDone)
	s.inlineDone = s.inlineDone[:0]
	defer func() {
		clear(done)
		s.reaping = done[:0]
	}()
	if s.sub != nil {
		done = s.sub.Take(done, wait && len(done) == 0)
	}
	for _, j := range done {
		if j.err != nil {
			s.errs = append(s.errs, &DeferredError{Op: "Flush", Lost: j.b.dispatches, Err: j.err})
		} else if j.sent && j.sub >= s.lastSub {
			s.lastSub, s.submitted = j.sub, true
		}
		s.submittedGen = max(s.submittedGen, j.gen)
		// Jobs finish in order: the oldest in flight is this one.
		if len(s.inflight) > 0 && s.inflight[0] == j {
			copy(s.inflight, s.inflight[1:])
			s.inflight[len(s.inflight)-1] = nil
			s.inflight = s.inflight[:len(s.inflight)-1]
		}
		if j.enc != nil && j.enc != s.enc {
			// Keep as many spares as batches may wait for the submitter;
			// a sync point's hand-off past that bound made one more.
			if len(s.spare) < maxInflight {
				s.spare = append(s.spare, j.enc)
			} else {
				j.enc.Release()
			}
		}
		j.enc = nil
		s.retireJob(j)
	}
}

// retireJob drops what a submitted (or empty) batch held: the queue's order
// protects it from now on.
func (s *Stream) retireJob(j *flushJob) {
	b := &j.b
	for _, pg := range b.pages {
		pg.Unref()
	}
	clear(b.pages)
	for _, p := range b.pins {
		p.unref()
	}
	clear(b.pins)
	if len(b.slots) > 0 {
		s.meta.Release(b.slots)
	}
	for _, w := range b.writes {
		w.pg.Unref()
	}
	if c := b.counted; c.g != nil {
		b.counted = countedReplays{}
		s.releaseEntry(c.g)
	}
	clear(b.writes)
	b.pages, b.pins, b.slots, b.writes, b.wbytes = b.pages[:0], b.pins[:0], b.slots[:0], b.writes[:0], b.wbytes[:0]
	b.dispatches = 0
	j.err, j.sub, j.sent = nil, 0, false
	s.jobFree = append(s.jobFree, j)
}

func (s *Stream) newJob() *flushJob {
	if n := len(s.jobFree); n > 0 {
		j := s.jobFree[n-1]
		s.jobFree = s.jobFree[:n-1]
		return j
	}
	return &flushJob{}
}

// takeEncoder returns a spare encoder, or a new one; nil if none can be
// made.
func (s *Stream) takeEncoder() driver.Encoder {
	if n := len(s.spare); n > 0 {
		e := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return e
	}
	e, err := s.drv.NewEncoder()
	if err != nil {
		return nil
	}
	return e
}

// flushLocked submits everything enqueued on the stream and waits until
// the submitter has submitted it (not until the GPU has run it), holding
// the lock: lifecycle transitions, profiles and Close go through here
// (syncs, reads and queue writes wait with it released: flushContext). A
// device error is queued as a *DeferredError naming the dispatches lost
// with the batch. The caller holds s.mu.
func (s *Stream) flushLocked() {
	s.handOff()
	for len(s.inflight) > 0 {
		s.reap(true)
	}
}

// flushContext is flushLocked for a caller with a deadline: it hands the
// open batch off and waits, with s.mu released, until everything handed off
// up to then is submitted or ctx ends. Batches other goroutines hand off
// meanwhile are not waited for, so a busy stream cannot starve the wait. On the OpenGL backend a submission runs the
// work itself inside wgpu-native (the driver executes it there), so this
// wait can last as long as the GPU work; the deadline still holds. It
// returns with s.mu held, and ctx's error if it ended first (the work stays
// enqueued).
//
// op is the operation that waits, admitted to execute: after every wait
// with the lock released it is asked for again (readmitAfterWait), and a
// capture window opened meanwhile refuses it (errDeferred for a write,
// whose refusal is queued), so nothing it does next reaches the GPU
// outside the graph.
func (s *Stream) flushContext(ctx context.Context, op lifecycle.Op) error {
	s.handOff()
	mine := s.gen // every batch handed off so far has a smaller number
	for {
		s.reap(false)
		if len(s.inflight) == 0 || s.inflight[0].gen >= mine {
			return nil
		}
		changed, ready := s.sub.Next()
		if ready {
			continue
		}
		s.mu.Unlock()
		if s.waitingUnlocked != nil {
			s.waitingUnlocked("flush")
		}
		select {
		case <-changed:
		case <-ctx.Done():
		}
		s.mu.Lock()
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.closing.Load() {
			return ErrClosed
		}
		if err := s.readmitAfterWait(op); err != nil {
			return err
		}
	}
}

// errDeferred is readmitAfterWait's answer for a write whose verdict is
// now DeferError: its refusal is queued for EndCapture, and the write
// returns nil having done nothing, as one admitted inside the window does.
var errDeferred = errors.New("recorder: deferred inside the capture window")

// readmitAfterWait asks lifecycle again for op, which was admitted to
// execute and then gave s.mu up to wait (flushContext, SetVar's wait for
// the submitter): a capture window opened meanwhile must not see it
// encode, queue a write, submit or plan ramps outside the graph. Execute
// and the rest of the NoCapture and Prepare cells let it go on; a deferred
// write's refusal is queued (errDeferred); a refusal fails the capture in
// this hold (failLocked) and is returned. The caller holds s.mu and keeps
// it. A Launch, Copy or Clear that waits for the submitter after its
// command is enqueued is not asked again: the command went in before the
// window opened, and the wait only hands its batch off.
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

// submitAlone submits cb straight to the queue, beside the submitter: the
// stream's one other submission path, for the two command buffers that
// must not join a batch. A loaded graph's clears are the loader's own
// until it returns the graph (its buffers are nobody else's, and the queue
// orders them before every later submission); a ProfileReplay floor round
// is timed from its own submit to its end, after the stream's earlier work
// finished. The caller does not hold s.mu across the call (on OpenGL the
// submit can run the work) and orders it as its doc says.
func (s *Stream) submitAlone(cb driver.CommandBuffer) (driver.Submission, error) {
	return s.drv.Submit([]driver.CommandBuffer{cb})
}

// resetBatch starts a new batch number without submitting anything (the
// open batch is empty): EndCapture's validation encodes into the stream's
// encoder and drops the result.
func (s *Stream) resetBatch() { s.gen++ }
