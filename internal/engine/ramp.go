package engine

import (
	"sync"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/lockrank"
)

// A Ramp holds the first replays of a short program's next run, encoded
// ahead of time into a few command buffers (its steps), so that the GPU
// starts at once and does not wait for the host while a run begins. The
// owner (the recorder's stream) decides when a run is planned, counts the
// replays against a step and joins a step's command buffer to the open
// batch; the RampWorker encodes the steps. Why ramps exist, and how order
// is kept by counting, is said where the owner uses them (recorder/ramp.go).
//
// Its fields are guarded by the worker's mutex: the worker fills steps, the
// owner takes them.
type Ramp struct {
	prog driver.Program // the owner's; kept alive by the owner until Drop returned

	steps  [RampSteps]rampStep
	n      int  // steps planned
	queued bool // in the worker's queue
	dead   bool // dropped: the worker releases what it finishes
}

// NewRamp is an empty ramp of prog. The owner keeps prog alive until the
// worker has dropped the ramp (RampWorker.Drop).
func NewRamp(prog driver.Program) *Ramp { return &Ramp{prog: prog} }

// Prog is the program the ramp replays.
func (r *Ramp) Prog() driver.Program { return r.prog }

// rampStep is one command buffer of reps replays.
type rampStep struct {
	reps int
	cb   driver.CommandBuffer // valid when ok
	ok   bool
	want bool // planned and not encoded yet: the worker's to do
}

const (
	// RampSteps is the number of steps: sizes RampFirst, ×2, ×4, ...
	// dispatches.
	RampSteps = 5
	// RampFirst is the dispatches in the first step.
	RampFirst = 8
)

// RampPlan sets the steps' sizes for a run of replays of a program of l
// dispatches: step k holds RampFirst·2^k dispatches' worth (at least one
// replay), until the steps cover the run. It reports the number of steps.
func RampPlan(l, replays int) (reps [RampSteps]int, n int) {
	left := replays
	for k := 0; k < RampSteps && left > 0; k++ {
		r := min(max((RampFirst<<k)/l, 1), left)
		reps[k] = r
		left -= r
		n++
	}
	return reps, n
}

// RampWorker encodes the steps of an owner's ramps on a goroutine of its
// own, with an encoder of its own. It never takes the owner's lock, and
// its own (lockrank.Ramp) is held while taking nothing: command buffers
// are released after it is let go, since a release is a driver call.
type RampWorker struct {
	mu     lockrank.Mutex // lockrank.Ramp
	cond   *sync.Cond     // signalled when a ramp is queued, a step is done, or stop
	enc    driver.Encoder // owned; the worker goroutine's alone
	queue  []*Ramp
	cur    *Ramp // the ramp being encoded: its program is in use
	stop   bool
	exited chan struct{}
}

// NewRampWorker starts a worker encoding for drv.
func NewRampWorker(drv driver.Device) (*RampWorker, error) {
	enc, err := drv.NewEncoder()
	if err != nil {
		return nil, err
	}
	w := &RampWorker{mu: lockrank.Mutex{Rank: lockrank.Ramp}, enc: enc, exited: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	go w.work()
	return w, nil
}

func (w *RampWorker) work() {
	defer close(w.exited)
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		for len(w.queue) == 0 && !w.stop {
			w.cond.Wait()
		}
		if w.stop {
			return
		}
		r := w.queue[0]
		k := r.missing()
		if k < 0 || r.dead {
			r.queued = false
			w.queue = w.queue[1:]
			continue
		}
		reps := r.steps[k].reps
		w.cur = r
		w.mu.Unlock()
		cb, err := w.encode(r.prog, reps)
		w.mu.Lock()
		st := &r.steps[k]
		if err != nil || r.dead || st.ok || st.reps != reps || k >= r.n {
			// Dropped or planned anew meanwhile; or the device refused it
			// (a sealed graph encodes without errors: the device is going),
			// in which case the runs encode live, where errors are reported.
			if err != nil {
				for i := range r.steps {
					r.steps[i].want = false
				}
				r.queued = false
				w.queue = w.queue[1:]
			}
			// cb is this goroutine's alone: released with the lock let go,
			// since a release is a driver call (lockrank.Ramp takes nothing),
			// and before w.cur is cleared, so a Drop waiting for r returns
			// only once nothing encoded for r is alive.
			w.mu.Unlock()
			cb.Release()
			w.mu.Lock()
			w.cur = nil
			w.cond.Broadcast()
			continue
		}
		w.cur = nil
		w.cond.Broadcast()
		st.cb, st.ok, st.want = cb, true, false
	}
}

// encode makes one command buffer of reps replays of prog.
func (w *RampWorker) encode(prog driver.Program, reps int) (driver.CommandBuffer, error) {
	for range reps {
		if err := w.enc.Encode(prog, 0, prog.Len()); err != nil {
			w.enc.Discard()
			return driver.CommandBuffer{}, err
		}
	}
	return w.enc.Finish()
}

// missing is the first step the worker has to encode, or -1. The worker's
// mutex is held.
func (r *Ramp) missing() int {
	for k := range r.n {
		if r.steps[k].want && !r.steps[k].ok {
			return k
		}
	}
	return -1
}

// Replan sets r's steps for a run of replays and queues the missing ones.
// Steps whose size changed are released.
func (w *RampWorker) Replan(r *Ramp, replays int) {
	reps, n := RampPlan(r.prog.Dispatches(), replays)
	var gone []driver.CommandBuffer
	w.mu.Lock()
	defer releaseAfter(&w.mu, &gone)
	for k := range r.steps {
		st := &r.steps[k]
		if st.reps != reps[k] || k >= n {
			if st.ok {
				gone = append(gone, st.cb)
			}
			*st = rampStep{reps: reps[k]}
		}
		st.want = k < n && !st.ok
	}
	r.n = n
	if r.missing() >= 0 && !r.queued {
		r.queued = true
		w.queue = append(w.queue, r)
		w.cond.Broadcast()
	}
}

// Take hands step k's command buffer to the owner if it holds reps
// replays; ok is false when it is not there (not finished yet, or planned
// anew since the owner began counting). The command buffer is the
// owner's from then on; the step is planned again at the next Replan.
func (w *RampWorker) Take(r *Ramp, k, reps int) (driver.CommandBuffer, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := &r.steps[k]
	if k >= r.n || !st.ok || st.reps != reps {
		return driver.CommandBuffer{}, false
	}
	cb := st.cb
	st.cb, st.ok = driver.CommandBuffer{}, false
	return cb, true
}

// Ready reports step k's replays if its command buffer is there (0 if
// not).
func (w *RampWorker) Ready(r *Ramp, k int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if k >= r.n || !r.steps[k].ok {
		return 0
	}
	return r.steps[k].reps
}

// Count reports r's command buffers ready for use, and those the worker
// has still to encode (a step taken is neither until the next Replan).
func (w *RampWorker) Count(r *Ramp) (ready, pending int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k := range r.n {
		switch st := &r.steps[k]; {
		case st.ok:
			ready++
		case st.want:
			pending++
		}
	}
	return ready, pending
}

// Drop forgets r: it waits until the worker is not encoding it and has
// released what it encoded for it (so that its program can be released,
// and nothing of r is alive, once Drop returns) and releases its command
// buffers.
func (w *RampWorker) Drop(r *Ramp) {
	var gone []driver.CommandBuffer
	w.mu.Lock()
	defer releaseAfter(&w.mu, &gone)
	r.dead = true
	for w.cur == r {
		w.cond.Wait()
	}
	for k := range r.steps {
		if r.steps[k].ok {
			gone = append(gone, r.steps[k].cb)
		}
		r.steps[k] = rampStep{}
	}
	r.n = 0
}

// releaseAfter unlocks mu, then releases the command buffers taken out
// under it: a release is a driver call, and the worker's lock
// (lockrank.Ramp) is held while taking nothing.
func releaseAfter(mu *lockrank.Mutex, cbs *[]driver.CommandBuffer) {
	mu.Unlock()
	for _, cb := range *cbs {
		cb.Release()
	}
}

// Close stops the worker (its ramps are dropped already) and releases its
// encoder.
func (w *RampWorker) Close() {
	w.mu.Lock()
	w.stop = true
	w.cond.Broadcast()
	w.mu.Unlock()
	<-w.exited
	w.enc.Release()
}
