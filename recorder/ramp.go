package recorder

import (
	"sync"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/lockrank"
)

// A ramp holds the first replays of a short graph's next run, encoded
// ahead of time into a few command buffers (its steps), so that the GPU
// starts at once and does not wait for the host while a run begins.
//
// Why. A short graph (fewer than preEncodeMin dispatches) replayed in a
// loop is bound by the first batches of each run: a batch reaches the GPU
// only once it is filled, ended and finished (on the H200 about 50 µs
// besides 1 µs per dispatch, against 2 µs of GPU time per tiny dispatch),
// so the GPU waits for the first batch and then runs out of work between
// the small early ones. The steps of a ramp (8, 16, 32, 64 and 128
// dispatches' worth of replays) are finished already: each goes to the
// submitter the moment the caller has made its replays, and is submitted
// without a Finish; by the last step the GPU holds enough work for the
// live schedule to take over with large batches.
//
// Order is kept by counting, not by guessing: a Replay that finds the next
// step ready only counts itself, as an entry of the open batch (the
// batch's counted replays, which run after its finished command buffers
// and before its encoder's commands), holding the graph's pins there, so
// a Write to the graph's memory submits them first. When the step's count
// is reached, its command buffer takes the entry's place and the batch is
// handed off. Anything else the stream does after the counted replays
// simply follows them in the batch (a launch into the encoder, a hand-off,
// another graph's replay): the count stops there, and whoever processes
// the batch (the submitter) encodes the counted replays the ordinary way,
// ahead of the encoder's commands, so they execute exactly where they were
// called; the unused step stays ready for a later run. No other call has to
// settle anything first. Nothing executes that was not asked for, and a
// WebGPU command buffer is submitted once, as it must be.
//
// A ramp is planned at a sync point (Sync, Read) for each short graph
// replayed since the previous one, sized by how many replays that run made
// (a graph replayed once per frame gets one step of one replay: its frame
// then submits without waiting for a Finish), and encoded by the stream's
// ramp worker right then, while the GPU finishes the run: the stream's own
// submitter has nothing left to finish at that point, so the worker does
// not compete with it for the device (whose error scopes one lock
// serialises). A stream keeps ramps for at most maxRamps graphs; a ramp
// not replayed for rampIdleSyncs sync points is dropped.
type ramp struct {
	g *Graph

	// Guarded by the worker's mutex: the worker fills steps, the stream
	// takes them.
	steps  [rampSteps]rampStep
	n      int  // steps planned
	queued bool // in the worker's queue
	dead   bool // dropped: the worker releases what it finishes

	// Guarded by the stream's mutex.
	pos  int // the step the next replays defer into
	idle int // sync points since the graph was last replayed
}

// rampStep is one command buffer of reps replays.
type rampStep struct {
	reps int
	cb   driver.CommandBuffer // valid when ok
	ok   bool
	want bool // planned and not encoded yet: the worker's to do
}

const (
	rampSteps     = 5 // step sizes rampFirst, ×2, ×4, ... dispatches
	rampFirst     = 8 // dispatches in the first step
	maxRamps      = 4 // graphs per stream with a ramp
	rampIdleSyncs = 8 // sync points without a replay after which a ramp is dropped
)

// rampPlan sets the steps' sizes for a run of replays of a graph of l
// dispatches: step k holds rampFirst·2^k dispatches' worth (at least one
// replay), until the steps cover the run. It reports the number of steps.
func rampPlan(l, replays int) (reps [rampSteps]int, n int) {
	left := replays
	for k := 0; k < rampSteps && left > 0; k++ {
		r := min(max((rampFirst<<k)/l, 1), left)
		reps[k] = r
		left -= r
		n++
	}
	return reps, n
}

// deferral is the run of replays counting against a ramp step: the open
// batch's counted replays, while nothing follows them in the batch.
type deferral struct {
	r    *ramp
	step int
	need int    // the step's replays
	n    int    // replays counted so far (< need)
	gen  uint64 // the batch they are counted in
}

// counting reports whether s.def is still counting: its batch is open and
// nothing was added after its replays (the encoder is empty; a command
// buffer joining the batch would hand it off first). The caller holds
// s.mu.
func (s *Stream) counting() bool {
	d := &s.def
	return d.r != nil && d.gen == s.eng.Gen() && s.eng.Enc().Empty() && s.eng.Open().Counted.Entry == entryOf(d.r.g)
}

// rampWorker encodes the steps of a stream's ramps on a goroutine of its
// own, with an encoder of its own. It never takes the stream's lock.
type rampWorker struct {
	mu     lockrank.Mutex // lockrank.Ramp: held while taking nothing; command buffers are released after it is let go
	cond   *sync.Cond     // signalled when a ramp is queued, a step is done, or stop
	enc    driver.Encoder
	queue  []*ramp
	cur    *ramp // the ramp being encoded: its program is in use
	stop   bool
	exited chan struct{}
}

func newRampWorker(drv driver.Device) (*rampWorker, error) {
	enc, err := drv.NewEncoder()
	if err != nil {
		return nil, err
	}
	w := &rampWorker{mu: lockrank.Mutex{Rank: lockrank.Ramp}, enc: enc, exited: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	go w.work()
	return w, nil
}

func (w *rampWorker) work() {
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
		cb, err := w.encode(r.g.prog, reps)
		w.mu.Lock()
		w.cur = nil
		w.cond.Broadcast()
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
			// since a release is a driver call (lockrank.Ramp takes nothing).
			w.mu.Unlock()
			cb.Release()
			w.mu.Lock()
			continue
		}
		st.cb, st.ok, st.want = cb, true, false
	}
}

// encode makes one command buffer of reps replays of prog.
func (w *rampWorker) encode(prog driver.Program, reps int) (driver.CommandBuffer, error) {
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
func (r *ramp) missing() int {
	for k := range r.n {
		if r.steps[k].want && !r.steps[k].ok {
			return k
		}
	}
	return -1
}

// replan sets r's steps for a run of replays and queues the missing ones.
// Steps whose size changed are released.
func (w *rampWorker) replan(r *ramp, replays int) {
	reps, n := rampPlan(r.g.prog.Dispatches(), replays)
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

// take hands step k's command buffer to the stream if it holds reps
// replays; ok is false when it is not there (not finished yet, or planned
// anew since the deferral began).
func (w *rampWorker) take(r *ramp, k, reps int) (driver.CommandBuffer, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := &r.steps[k]
	if k >= r.n || !st.ok || st.reps != reps {
		return driver.CommandBuffer{}, false
	}
	cb := st.cb
	st.cb, st.ok = driver.CommandBuffer{}, false // used: planned again at the next sync point
	return cb, true
}

// ready reports step k's replays if its command buffer is there (0 if
// not).
func (w *rampWorker) ready(r *ramp, k int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if k >= r.n || !r.steps[k].ok {
		return 0
	}
	return r.steps[k].reps
}

// count reports r's command buffers ready for use, and those the worker
// has still to encode (a step used by a run is neither until the next sync
// point plans it again).
func (w *rampWorker) count(r *ramp) (ready, pending int) {
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

// drop forgets r: it waits until the worker is not encoding it (so its
// program can be released) and releases its command buffers.
func (w *rampWorker) drop(r *ramp) {
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

// close stops the worker (its ramps are dropped already) and releases its
// encoder.
func (w *rampWorker) close() {
	w.mu.Lock()
	w.stop = true
	w.cond.Broadcast()
	w.mu.Unlock()
	<-w.exited
	w.enc.Release()
}

// rampReplay is Replay's path through the ramps. It reports true when the
// replay was counted against a ramp step (or completed one, whose command
// buffer then joined the batch); false when the replay must be encoded the
// ordinary way. The caller holds s.mu; s.def is empty or is g's.
func (s *Stream) rampReplay(g *Graph) bool {
	if d := &s.def; d.r != nil {
		if s.counting() && d.r.g == g {
			d.n++
			s.countReplay(g)
			if d.n == d.need {
				s.joinStep()
			}
			return true
		}
		// Something followed the counted replays (or they went out with
		// their batch): they stay counted where they are.
		s.def = deferral{}
	}
	r := g.ramp
	if r == nil || s.profiling() != nil || r.pos >= rampSteps || !s.eng.Enc().Empty() || s.eng.HasCounted() {
		// With work encoded live in the open batch (replays past the
		// ramp, launches or other graphs between this graph's replays),
		// a step would first hand that work off as a batch of its own, to
		// stay behind it: an extra Finish and submit, where the live path
		// encodes into the batch it is filling.
		return false
	}
	need := s.ramps.ready(r, r.pos)
	if need == 0 {
		return false
	}
	s.def = deferral{r: r, step: r.pos, need: need, n: 1, gen: s.eng.Gen()}
	// The open batch ends with these replays: it keeps the graph's memory
	// (so a Write to it submits them first) and submits by the flush delay.
	s.holdPins(g.pins)
	// The engine encodes the counted replays ahead of the batch's own
	// commands; g's program stays alive until the batch is retired
	// (Graph.entries, graphEntry).
	s.eng.Open().Counted = engine.Counted{Prog: g.prog, Entry: entryOf(g)}
	g.entries++
	s.countReplay(g)
	if s.timerGen != s.eng.Gen() {
		s.armTimer(false)
	}
	if need == 1 {
		s.joinStep()
	}
	return true
}

// encoded is how many dispatches the open batch's encoder will hold once
// its processor has encoded the counted replays ahead of what it holds:
// the submission chunks are cut as if they were encoded where they were
// called.
func (s *Stream) encoded() int {
	n := s.eng.Enc().Dispatches()
	if c := s.eng.Open().Counted; c.Prog != nil {
		n += c.N * c.Prog.Dispatches()
	}
	return n
}

// countReplay adds one of g's replays to the open batch's counted replays.
func (s *Stream) countReplay(g *Graph) {
	s.eng.Open().Counted.N++
	s.eng.AddDispatches(g.prog.Dispatches())
}

// joinStep ends a deferral whose count is complete: the step's command
// buffer takes the counted replays' place in the open batch (the encoder
// is empty) and goes to the submitter at once. If the step was planned
// anew meanwhile, the replays stay counted, for the submitter to encode.
// The caller holds s.mu.
func (s *Stream) joinStep() {
	d := s.def
	s.def = deferral{}
	cb, ok := s.ramps.take(d.r, d.step, d.need)
	if !ok {
		return
	}
	d.r.pos = d.step + 1
	g := d.r.g
	s.eng.Open().Counted = engine.Counted{}
	s.releaseEntry(g)
	s.eng.AddCommandBuffer(cb)
	n := d.need * g.prog.Dispatches()
	s.rampReplays += uint64(d.need)
	// The live schedule goes on from the ramp's size: the GPU holds at
	// least this step's work by now.
	s.eng.RaiseChunk(n)
	if !s.handOffFull(roomLocked) && s.timerGen != s.eng.Gen() {
		s.armTimer(true)
	}
}

// releaseEntry drops a batch entry's hold on g's program, releasing it if
// g was released meanwhile and nothing else holds it. The caller holds
// s.mu.
func (s *Stream) releaseEntry(g *Graph) {
	g.entries--
	g.releaseProgramIfUnused()
}

// noteReplay counts a replay of a short graph towards its next ramp (the
// sync point plans it). The caller holds s.mu.
func (s *Stream) noteReplay(g *Graph) {
	if !s.cfg.preEncode || g.prog.Dispatches() == 0 || g.prog.Dispatches() >= preEncodeMin {
		return
	}
	if g.runReplays == 0 {
		s.touched = append(s.touched, g)
	}
	g.runReplays++
}

// planRamps runs at a sync point, once the stream's batches are
// submitted: it plans and queues the ramps of the short graphs replayed
// since the last one, and drops ramps left idle. The caller holds s.mu.
func (s *Stream) planRamps() {
	if len(s.touched) == 0 && len(s.rampList) == 0 {
		return
	}
	s.def = deferral{} // a new run starts: replays count against the new plans
	for _, r := range s.rampList {
		r.idle++
	}
	for i, g := range s.touched {
		s.touched[i] = nil
		n := g.runReplays
		g.runReplays = 0
		if g.released {
			continue
		}
		if g.ramp == nil {
			if len(s.rampList) >= maxRamps {
				continue
			}
			if s.ramps == nil {
				w, err := newRampWorker(s.drv)
				if err != nil {
					// The device is going: the graphs replay live.
					s.log.Debug().Err(err).Msg("cannot start the ramp worker; short graphs encode live")
					continue
				}
				s.ramps = w
			}
			g.ramp = &ramp{g: g}
			s.rampList = append(s.rampList, g.ramp)
		}
		g.ramp.idle, g.ramp.pos = 0, 0
		s.ramps.replan(g.ramp, n)
	}
	s.touched = s.touched[:0]
	kept := s.rampList[:0]
	for _, r := range s.rampList {
		if r.idle > rampIdleSyncs {
			s.dropRamp(r)
			continue
		}
		kept = append(kept, r)
	}
	clear(s.rampList[len(kept):])
	s.rampList = kept
}

// dropRamp forgets a graph's ramp (Release, idleness, Close). The caller
// holds s.mu.
func (s *Stream) dropRamp(r *ramp) {
	s.ramps.drop(r)
	r.g.ramp = nil
}

// forgetRamp removes g's ramp from the stream (Release). The caller holds
// s.mu.
func (s *Stream) forgetRamp(g *Graph) {
	if s.def.r != nil && s.def.r.g == g {
		s.def = deferral{} // its counted replays stay in their batch, and run
	}
	if g.ramp == nil {
		return
	}
	for i, r := range s.rampList {
		if r == g.ramp {
			s.rampList = append(s.rampList[:i], s.rampList[i+1:]...)
			break
		}
	}
	s.dropRamp(g.ramp)
}
