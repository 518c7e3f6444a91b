// Package submitq is the ordered hand-off between a stream and the
// goroutine that submits its batches: a FIFO of jobs processed one at a
// time, in order, on a goroutine of its own (or by a caller that claims the
// next job when none is being processed: one about to wait for it anyway),
// with the processed jobs handed back for their owner to retire.
//
// Why a package of its own: the queue's rules (jobs run in hand-off order;
// a processed job waits in Done until its owner takes it; a wait for a job
// honours the caller's context and holds no lock of the owner's) are what
// the recorder's ordering and deadline guarantees rest on, and they are
// tested here without a GPU. What a job is, how it is submitted and how its
// submission throttles the next are the owner's (the process function).
//
// The queue's mutex ranks as lockrank.Submitter: it is taken with the
// owner's stream lock held, never the other way round, and process runs
// without it.
package submitq

import (
	"context"
	"sync"

	"github.com/softgraph/softgraph/internal/lockrank"
)

// Queue processes the jobs pushed to it on one goroutine, in push order.
type Queue[J any] struct {
	process func(J)

	mu      lockrank.Mutex // lockrank.Submitter
	cond    *sync.Cond     // signalled when a job is pushed or done, or the queue stops
	queue   []J            // pushed, not yet processed, oldest first
	done    []J            // processed, not yet taken
	stop    bool           // no more jobs: exit once the queue is empty
	running bool           // a job is being processed: by the goroutine, or by a caller that claimed it (Claim)
	pushed  uint64         // jobs ever pushed
	handled uint64         // jobs processed so far (in push order)
	changed chan struct{}  // made by a wait that honours a context, closed by the next job done
	exited  chan struct{}
}

// Start starts a queue whose goroutine calls process for each job, in
// order. process must not call the queue.
func Start[J any](process func(J)) *Queue[J] {
	q := &Queue[J]{process: process, mu: lockrank.Mutex{Rank: lockrank.Submitter}, exited: make(chan struct{})}
	q.cond = sync.NewCond(&q.mu)
	go q.run()
	return q
}

func (q *Queue[J]) run() {
	defer close(q.exited)
	for {
		q.mu.Lock()
		for q.running || len(q.queue) == 0 && !q.stop {
			q.cond.Wait()
		}
		if len(q.queue) == 0 {
			q.mu.Unlock()
			return
		}
		j := q.popLocked()
		q.mu.Unlock()
		q.process(j)
		q.Processed(j)
	}
}

// popLocked takes the oldest queued job and marks the queue running. The
// caller holds mu and has seen a job queued and none running.
func (q *Queue[J]) popLocked() J {
	var zero J
	j := q.queue[0]
	copy(q.queue, q.queue[1:])
	q.queue[len(q.queue)-1] = zero
	q.queue = q.queue[:len(q.queue)-1]
	q.running = true
	return j
}

// Claim takes the oldest queued job for the caller to process itself,
// when no job is being processed (by the goroutine or another claim) and
// one is queued; ok is false otherwise. A caller about to wait for its
// jobs to be processed saves the goroutine's wake-up that way. Until the
// caller calls Processed (or Unclaim) nothing else is processed, so jobs
// are still processed one at a time, in push order.
func (q *Queue[J]) Claim() (j J, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running || len(q.queue) == 0 {
		return j, false
	}
	return q.popLocked(), true
}

// Unclaim gives a claimed job back unprocessed, ahead of every other, for
// the goroutine to process (a caller that found it must not process it
// itself after all).
func (q *Queue[J]) Unclaim(j J) {
	q.mu.Lock()
	q.queue = append(q.queue, j)
	copy(q.queue[1:], q.queue)
	q.queue[0] = j
	q.running = false
	q.cond.Broadcast()
	q.mu.Unlock()
}

// Processed records the job being processed (the goroutine's, or a
// claimed one) as done: it joins the jobs for Take, and the next can be
// processed.
func (q *Queue[J]) Processed(j J) {
	q.mu.Lock()
	q.running = false
	q.handled++
	q.done = append(q.done, j)
	q.cond.Broadcast()
	if q.changed != nil {
		close(q.changed)
		q.changed = nil
	}
	q.mu.Unlock()
}

// Push hands j to the goroutine, after every job pushed before it.
func (q *Queue[J]) Push(j J) {
	q.mu.Lock()
	q.queue = append(q.queue, j)
	q.pushed++
	q.cond.Broadcast()
	q.mu.Unlock()
}

// AddDone adds a job its owner processed itself (inline) to the jobs done,
// for Take to return in order with the others.
func (q *Queue[J]) AddDone(j J) {
	q.mu.Lock()
	q.done = append(q.done, j)
	q.mu.Unlock()
}

// Take appends the processed jobs not taken yet to dst, oldest first, and
// returns it; with wait it first blocks until there is at least one (the
// caller must know one is pushed or processing).
func (q *Queue[J]) Take(dst []J, wait bool) []J {
	q.mu.Lock()
	for wait && len(q.done) == 0 {
		q.cond.Wait()
	}
	dst = append(dst, q.done...)
	clear(q.done)
	q.done = q.done[:0]
	q.mu.Unlock()
	return dst
}

// Pushed is how many jobs were ever pushed: AwaitHandled(ctx, Pushed())
// waits for everything pushed so far.
func (q *Queue[J]) Pushed() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pushed
}

// Handled is how many jobs have been processed.
func (q *Queue[J]) Handled() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.handled
}

// AwaitHandled waits until the first target jobs are processed, the queue
// has stopped (everything pushed was processed), or ctx ends.
func (q *Queue[J]) AwaitHandled(ctx context.Context, target uint64) error {
	for {
		q.mu.Lock()
		if q.handled >= target {
			q.mu.Unlock()
			return nil
		}
		changed := q.changedLocked()
		q.mu.Unlock()
		select {
		case <-changed:
		case <-q.exited:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// AwaitHandledPast blocks until more than seen jobs are processed (seen
// from Handled; the caller must know one is pushed or processing).
func (q *Queue[J]) AwaitHandledPast(seen uint64) {
	q.mu.Lock()
	for q.handled == seen {
		q.cond.Wait()
	}
	q.mu.Unlock()
}

// Next returns a channel closed when the next job is done, and whether
// processed jobs are waiting to be taken already (then there is no need to
// wait on it).
func (q *Queue[J]) Next() (changed <-chan struct{}, ready bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.changedLocked(), len(q.done) > 0
}

func (q *Queue[J]) changedLocked() chan struct{} {
	if q.changed == nil {
		q.changed = make(chan struct{})
	}
	return q.changed
}

// Stop processes what is pushed, ends the goroutine and returns once it
// has. Jobs done and not taken stay for Take.
func (q *Queue[J]) Stop() {
	q.mu.Lock()
	q.stop = true
	q.cond.Broadcast()
	q.mu.Unlock()
	<-q.exited
}
