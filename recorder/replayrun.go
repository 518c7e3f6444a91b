package recorder

// Runs of replays of a short graph.
//
// Why: a graph of fewer than preEncodeMin dispatches replayed back to back
// (a simulation step of two dispatches, a token step) was encoded inline,
// replay by replay, on the caller's goroutine. That put wgpu-core's
// encoding of every dispatch on the critical path, and left replay behind
// a careful hand-written loop. Encoding one replay ahead on another
// goroutine, as long graphs do, does not help a short graph: a command
// buffer per two dispatches costs more than it saves.
//
// So a Replay of a short graph is deferred: it only counts itself into the
// stream's run (and makes the open batch hold the graph's pins), and the
// run's replays are encoded when anything else needs the batch. Once a
// second consecutive Replay of the same graph shows a run, a preencoder
// encodes runLength(g) replays of it ahead of time into one command buffer;
// when the run reaches that length, the command buffer joins the batch and
// the next one is requested, so a long run of short replays costs the
// caller a counter increment per Replay and reaches the GPU in command
// buffers of about preEncodeMin dispatches, encoded while the GPU runs the
// previous one.
//
// Order: deferred replays are the last thing enqueued on the stream, and
// settle encodes them into the open batch before anything else is added
// to it or it is handed off: a launch, copy, clear, another graph's replay,
// a flush (Sync, Read, Flush, a write to memory the batch uses, the flush
// timer, Close), a profile or a capture, and the graph's Release. A
// write of memory the graph uses between two replays is therefore ordered
// as before: the batch holds the graph's pins, so the write flushes it,
// which settles the replays first. Replays of one graph are identical, so
// joining a pre-encoded run while some replays are still counted keeps
// their order. The flush timer is armed for deferred replays as for
// encoded work, so none waits longer than the flush delay; a device error
// met when they are encoded is queued for the next Sync or Read (the
// Replay has returned by then).

// replayRun is the stream's deferred replays: n replays of g, not yet
// encoded. Guarded by s.mu.
type replayRun struct {
	g *Graph
	n int
}

// deferrable reports whether a Replay of g is deferred into the stream's
// run: pre-encoding is on, no profile is running, and g is short.
func (s *Stream) deferrable(g *Graph) bool {
	return s.cfg.preEncode && s.prof == nil && g.prog.Len() > 0 && g.prog.Dispatches() < preEncodeMin
}

// runLength is how many replays of a short graph one pre-encoded command
// buffer holds: enough for about preEncodeMin commands.
func runLength(g *Graph) int {
	n := g.prog.Len()
	return (preEncodeMin + n - 1) / n
}

// replayDeferred counts one replay of g into the stream's run, joining a
// pre-encoded run to the batch when the run is long enough. The caller
// holds s.mu.
func (s *Stream) replayDeferred(g *Graph) {
	if s.run.g != g {
		s.settle()
		s.run.g = g
	}
	s.holdPins(g.pins)
	s.run.n++
	m := runLength(g)
	if s.run.n == 2 && g.runPre == nil {
		p, err := startPreencoder(s.drv, g.prog, m)
		if err != nil {
			// Pre-encoding is an optimisation: the replays are encoded
			// inline when they settle.
			s.log.Debug().Err(err).Msg("cannot start pre-encoding a run of replays; encoding inline")
		} else {
			g.runPre = p
			p.request()
		}
	}
	if s.run.n >= m && g.runPre != nil {
		if r, ok := g.runPre.take(); ok {
			if r.err == nil && !r.cb.Empty() {
				s.run.n -= m
				s.joinCommandBuffer(r.cb)
				s.batch.dispatches += m * g.prog.Len()
				g.runPre.request()
				s.enqueued(roomLocked)
				return
			}
			r.cb.Release()
			if r.err != nil {
				s.log.Debug().Err(r.err).Msg("pre-encoding a run of replays failed; encoding inline")
			}
		}
	}
	if s.timerGen != s.gen {
		s.armTimer(false)
	}
}

// settle encodes the stream's deferred replays into the open batch. Every
// path that adds to the batch or hands it off calls it first. A full chunk
// does not wait for the submitter here (the flush timer settles too, and
// never waits): the batch grows instead. An error is queued: the Replays
// it belongs to have returned. The caller holds s.mu.
func (s *Stream) settle() {
	n := s.run.n
	if n == 0 {
		return
	}
	s.run.n = 0
	g := s.run.g
	for range n {
		if err := s.encodeProgram(g.prog, g.pins, roomNever); err != nil {
			s.errs = append(s.errs, err)
			return
		}
	}
}
