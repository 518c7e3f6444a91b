package recorder

import (
	"time"

	"github.com/softgraph/softgraph/wgpu"
)

// recording is a capture in progress: mutable, owned by its stream while
// the stream is in Capture, and either sealed into a Graph by EndCapture or
// discarded. Everything it references holds a reference from the moment it
// is recorded, so nothing a recorded launch binds can be released and
// reused before the graph is sealed.
type recording struct {
	tasks  *wgpu.TaskList // the prebuilt dispatches, in order
	nodes  []node         // per task: what it binds, for stats and introspection
	groups []*bindGroup   // one reference per task
	pages  map[*page]bool // pages referenced once each (bindings and indirect buffers)
	metas  map[*metaEntry]bool
	start  time.Time
}

// node describes one recorded dispatch, for Stats, String and WriteDOT.
type node struct {
	k      *wgpu.Kernel
	d      Dispatch
	access []access
}

// access is one binding of a node: the page (nil for params), its size,
// and whether the dispatch may write it.
type access struct {
	pg       *page
	size     uint64
	write    bool
	indirect bool
	meta     *metaEntry
}

func newRecording() *recording {
	return &recording{tasks: wgpu.NewTaskList(64), pages: map[*page]bool{}, metas: map[*metaEntry]bool{}, start: time.Now()}
}

// add appends a resolved launch. g's reference passes to the recording.
func (r *recording) add(s *Stream, res *resolved, g *bindGroup) {
	n := node{k: res.k, d: res.d}
	for i := 0; i < res.n; i++ {
		if pg, w := res.page(i); pg != nil {
			r.pin(pg)
			n.access = append(n.access, access{pg: pg, size: res.binding(i).Size, write: w})
		} else if e := res.meta(i); e != nil {
			r.pinMeta(e)
			n.access = append(n.access, access{size: e.size, meta: e})
		}
	}
	if res.d.indirect != nil {
		r.pin(res.ind)
		n.access = append(n.access, access{pg: res.ind, size: 12, indirect: true})
		r.tasks.AppendIndirect(res.k, g.bg, res.ind.buf, res.d.offset)
	} else {
		r.tasks.Append(res.k, g.bg, res.d.x, res.d.y, res.d.z)
	}
	r.groups = append(r.groups, g)
	r.nodes = append(r.nodes, n)
}

func (r *recording) pin(pg *page) {
	if !r.pages[pg] {
		r.pages[pg] = true
		pg.ref()
	}
}

func (r *recording) pinMeta(e *metaEntry) {
	if !r.metas[e] {
		r.metas[e] = true
		e.pins++
	}
}

// discard drops everything the recording holds (a failed capture, or Close).
func (r *recording) discard(s *Stream) {
	for _, g := range r.groups {
		g.unref()
	}
	for pg := range r.pages {
		pg.unref()
	}
	for e := range r.metas {
		s.meta.unpin(e)
	}
	r.tasks.Free()
	*r = recording{}
}

// GraphPrepare moves NoCapture → Prepare: it arms the persistent pools for
// the warmup run. Run the workload once eagerly after it (the warmup
// executes normally, with the metadata cache already in capture mode), then
// call BeginCapture.
//
// Refused with lifecycle.ErrGraphState when a capture is already prepared or
// recording on this stream; the stream is then unchanged.
func (s *Stream) GraphPrepare() error {
	if err := s.check("GraphPrepare"); err != nil {
		return err
	}
	if err := s.lock("GraphPrepare"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	// The state moves first, so a refused call runs none of the work.
	if err := s.state.Prepare(); err != nil {
		return err
	}
	s.flushLocked() // the warmup starts on a batch of its own
	s.mem.arm()
	s.log.Debug().Stringer("state", s.state).Msg("graph prepare")
	return nil
}

// BeginCapture moves Prepare → Capture: it submits the warmup, surfaces its
// errors, ends pool priming and opens the recording window. From now on
// launches are recorded, not executed; reads, syncs and profiles are
// refused; writes are rejected lazily.
//
// Refused with lifecycle.ErrGraphState (stream unchanged) when GraphPrepare
// has not run or a capture is already recording. If the warmup reported
// device errors, the capture is aborted: the stream returns to NoCapture,
// usable and re-capturable, and the *CaptureError lists the errors.
func (s *Stream) BeginCapture() error {
	if err := s.check("BeginCapture"); err != nil {
		return err
	}
	if err := s.lock("BeginCapture"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	// The state moves before the work (the seed's order): a rejected call on
	// a recording stream must not flush into the live capture.
	if err := s.state.Begin(); err != nil {
		return err
	}
	s.flushLocked()
	if err := s.takeErrors(); err != nil {
		s.mem.disarm()
		s.state.Abort()
		s.log.Debug().Err(err).Msg("capture aborted: warmup failed")
		return &CaptureError{Op: "begin_capture", Causes: []error{err}}
	}
	s.mem.endPriming()
	s.rec = newRecording()
	s.log.Debug().Stringer("state", s.state).Msg("begin capture")
	return nil
}

// EndCapture moves Capture → NoCapture and seals the recording into a
// Graph. The state moves first, so the stream leaves capture mode even when
// sealing fails.
//
// It fails with a *CaptureError (matching lifecycle.ErrGraphState and each
// cause) when an error was queued inside the window, such as a write
// rejected while recording, or when the recorded launches fail the device's
// validation (checked once here by encoding them without submitting); the
// recording is then discarded and the stream is usable and re-capturable.
// With nothing recording it is refused with lifecycle.ErrGraphState.
func (s *Stream) EndCapture() (*Graph, error) {
	if err := s.check("EndCapture"); err != nil {
		return nil, err
	}
	if err := s.lock("EndCapture"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if err := s.state.End(); err != nil {
		return nil, err
	}
	rec := s.rec
	s.rec = nil
	s.mem.disarm()
	var causes []error
	if err := s.takeErrors(); err != nil {
		causes = append(causes, err)
	} else if err := s.validateRecording(rec); err != nil {
		causes = append(causes, &DeferredError{Op: "seal", Err: err})
	}
	if len(causes) > 0 {
		rec.discard(s)
		s.log.Debug().Errs("causes", causes).Msg("capture failed")
		return nil, &CaptureError{Op: "end_capture", Causes: causes}
	}
	g := seal(s, rec)
	s.graphs[g] = true
	s.log.Debug().Stringer("state", s.state).Int("dispatches", g.stats.Dispatches).
		Uint64("retained_bytes", g.stats.RetainedBytes).Dur("capture", g.stats.CaptureTime).Msg("end capture")
	return g, nil
}

// validateRecording encodes the recorded dispatches once into a throwaway
// command buffer: the device validates them now (a binding smaller than the
// kernel needs, say), so a graph that seals replays without device errors.
func (s *Stream) validateRecording(rec *recording) error {
	if rec.tasks.Len() == 0 {
		return nil
	}
	if err := s.enc.BeginPass(nil); err != nil {
		return err
	}
	s.enc.EncodeTasks(rec.tasks, 0, rec.tasks.Len())
	cb, err := s.enc.Finish()
	cb.Release()
	s.retire()
	return err
}
