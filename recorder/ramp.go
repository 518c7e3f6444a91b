package recorder

import (
	"github.com/softgraph/softgraph/internal/engine"
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
	*engine.Ramp // the steps, encoded by the stream's engine.RampWorker

	g *Graph

	// Guarded by the stream's mutex.
	pos  int // the step the next replays defer into
	idle int // sync points since the graph was last replayed
}

const (
	rampSteps     = engine.RampSteps
	maxRamps      = 4 // graphs per stream with a ramp
	rampIdleSyncs = 8 // sync points without a replay after which a ramp is dropped
)

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
	need := s.ramps.Ready(r.Ramp, r.pos)
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
	cb, ok := s.ramps.Take(d.r.Ramp, d.step, d.need)
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
				w, err := engine.NewRampWorker(s.drv)
				if err != nil {
					// The device is going: the graphs replay live.
					s.log.Debug().Err(err).Msg("cannot start the ramp worker; short graphs encode live")
					continue
				}
				s.ramps = w
			}
			g.ramp = &ramp{Ramp: engine.NewRamp(g.prog), g: g}
			s.rampList = append(s.rampList, g.ramp)
		}
		g.ramp.idle, g.ramp.pos = 0, 0
		s.ramps.Replan(g.ramp.Ramp, n)
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
	s.ramps.Drop(r.Ramp)
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
