package recorder

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/paramcache"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// pinSet is what a recording, and then the graph sealed from it, keeps
// alive: a reference on every page, texture and sampler its nodes bind,
// a pin on every params entry, a reference on every bind group. One pin
// set belongs to one graph (a Rebind makes a new graph with a new set). Its
// own count holds the graph (1) and every open batch that replays the
// graph, so a graph released while its replay is still unsubmitted keeps
// its memory until that batch is submitted. Guarded by the stream's mutex.
type pinSet struct {
	s      *Stream
	refs   int
	pages  map[*pool.Page]struct{}
	list   []*pool.Page // pages in first-pinned order
	metas  map[*paramcache.Entry]struct{}
	texs   map[*texHandle]struct{}
	smps   map[*samplerHandle]struct{}
	groups map[*bindGroup]struct{}
}

func newPinSet(s *Stream) *pinSet {
	return &pinSet{s: s, refs: 1, pages: map[*pool.Page]struct{}{}, metas: map[*paramcache.Entry]struct{}{},
		texs: map[*texHandle]struct{}{}, smps: map[*samplerHandle]struct{}{}, groups: map[*bindGroup]struct{}{}}
}

func (p *pinSet) ref() { p.refs++ }

// pinNode pins everything node n uses with references of the set's own:
// a graph made from another's nodes (Rebind) holds what it binds itself.
func (p *pinSet) pinNode(n *node) { n.op.pin(p) }

// unref drops a reference; the last one releases everything pinned.
func (p *pinSet) unref() {
	p.refs--
	if p.refs > 0 {
		return
	}
	for _, pg := range p.list {
		pg.Unref()
	}
	for e := range p.metas {
		p.s.meta.Unpin(e)
	}
	for h := range p.texs {
		h.unref()
	}
	for h := range p.smps {
		h.unref()
	}
	for g := range p.groups {
		g.unref()
	}
	p.pages, p.list, p.metas, p.texs, p.smps, p.groups = nil, nil, nil, nil, nil, nil
}

func (p *pinSet) has(pg *pool.Page) bool {
	_, ok := p.pages[pg]
	return ok
}

// The add methods take over one reference the caller holds (dropping it
// when the set already holds the object).

func (p *pinSet) addPage(pg *pool.Page) {
	if _, ok := p.pages[pg]; ok {
		pg.Unref()
		return
	}
	p.pages[pg] = struct{}{}
	p.list = append(p.list, pg)
}

func (p *pinSet) addMeta(e *paramcache.Entry) {
	if _, ok := p.metas[e]; !ok {
		p.metas[e] = struct{}{}
		p.s.meta.Pin(e)
	}
}

func (p *pinSet) addTex(h *texHandle) {
	if _, ok := p.texs[h]; ok {
		h.unref()
		return
	}
	p.texs[h] = struct{}{}
}

func (p *pinSet) addSampler(h *samplerHandle) {
	if _, ok := p.smps[h]; ok {
		h.unref()
		return
	}
	p.smps[h] = struct{}{}
}

func (p *pinSet) addGroup(g *bindGroup) {
	if _, ok := p.groups[g]; ok {
		g.unref()
		return
	}
	p.groups[g] = struct{}{}
}

// pinAccess takes over the reference of a resolved access.
func (p *pinSet) pinAccess(a *access) {
	switch a.kind {
	case accessBuffer:
		p.addPage(a.pg)
	case accessParams:
		p.addMeta(a.meta)
	case accessTexture:
		p.addTex(a.tex.h)
	case accessSampler:
		p.addSampler(a.smp.h)
	}
}

// merge pins, with fresh references, everything other pins but the pages
// in skip.
func (p *pinSet) merge(other *pinSet, skip ...*pool.Page) {
	for _, pg := range other.list {
		if pg == nil || slices.Contains(skip, pg) {
			continue
		}
		pg.Ref()
		p.addPage(pg)
	}
	for e := range other.metas {
		p.addMeta(e)
	}
	for h := range other.texs {
		h.ref()
		p.addTex(h)
	}
	for h := range other.smps {
		h.ref()
		p.addSampler(h)
	}
	for g := range other.groups {
		p.addGroup(g.ref())
	}
}

// bytes is what the set keeps reserved: its pages and params slots.
func (p *pinSet) bytes() (pages, params uint64) {
	for _, pg := range p.list {
		pages += pg.Cap()
	}
	for e := range p.metas {
		params += e.Reserved()
	}
	return pages, params
}

// recording is a capture in progress: mutable, owned by its stream while
// the stream is in Capture, and either sealed into a Graph by EndCapture or
// discarded. Everything it references is pinned from the moment it is
// recorded, so nothing a recorded launch binds can be released and reused
// before the graph is sealed.
type recording struct {
	nodes   []node
	pins    *pinSet
	start   time.Time
	regions []region // control-flow regions; regions[0] is the top level
	cur     int      // the region launches are recorded into

	lowered    bool       // the nodes are already lowered (a loaded graph)
	broken     error      // set when If/While bodies interleaved: EndCapture fails with it
	enablePage *pool.Page // set by lowering: the enable words of If and While
	gatePage   *pool.Page // the indirect counts their gates write (nil: no gates)
	tablePage  *pool.Page // and the table the gates read
	table      []byte     // the table's contents

	// refusals are the calls refused inside the window (oldest first):
	// EndCapture fails with them. They are the recording's, not the
	// stream's deferred errors (Stream.errs), so a Sync or a profile that
	// was admitted before the window and takes its errors after a wait
	// inside it cannot take them, and the graph cannot seal without them.
	refusals []error
}

func newRecording(s *Stream) *recording {
	return &recording{pins: newPinSet(s), start: time.Now(), regions: []region{{kind: regionTop}}}
}

// addTransfer appends a resolved copy or clear; its references pass to the
// recording.
func (r *recording) addTransfer(c *transfer) {
	var op nodeOp = &copyOp{src: c.src, dst: c.dst, srcBuf: c.srcBuf, dstBuf: c.dstBuf, srcOff: c.srcOff, dstOff: c.dstOff, size: c.size}
	if c.clear {
		op = &clearOp{dst: c.dst, dstBuf: c.dstBuf, dstOff: c.dstOff, size: c.size}
	}
	if c.src != nil {
		r.pins.addPage(c.src)
	}
	r.pins.addPage(c.dst)
	r.nodes = append(r.nodes, node{op: op, region: r.cur})
}

// include appends a sealed graph's nodes (a child graph), pinning what it
// pins. A child with control flow contributes its recording's nodes and its
// regions, nested in the region being recorded, so they are lowered with
// this recording's own (one gate buffer and table: the child's lowered
// nodes dispatch from its own gate buffer, which a file of this graph
// could not describe, and inside a body they would need forwarding). A
// loaded child with control flow has only its lowered nodes: refused.
func (r *recording) include(g *Graph) error {
	if len(g.regions) > 1 && g.raw == nil {
		return argError(lifecycle.Replay, ErrInvalidArgument,
			"a loaded graph with If or While (%d dispatches) cannot be replayed inside a capture: its control flow is stored lowered; capture its step instead", g.stats.Dispatches)
	}
	nodes := g.nodes
	if g.raw != nil {
		nodes = g.raw
	}
	base := len(r.nodes)
	first := len(r.regions) // the child's region c (c ≥ 1) becomes first+c-1
	remap := func(c int) int {
		if c == 0 {
			return r.cur
		}
		return first + c - 1
	}
	for _, n := range nodes {
		n.region = remap(n.region)
		n.op = n.op.clone()
		r.nodes = append(r.nodes, n)
	}
	for _, rg := range g.regions[1:] {
		rg.parent = remap(rg.parent)
		rg.start += base
		rg.end += base
		rg.gates = nil
		r.regions = append(r.regions, rg)
	}
	// The child's gate buffer and table are not used by what is included.
	r.pins.merge(g.pins, g.enablePage, g.gatePage, g.tablePage)
	return nil
}

// discard drops everything the recording holds (a failed capture, or Close).
func (r *recording) discard(s *Stream) {
	r.pins.unref()
	*r = recording{}
}

// PrepareCapture moves NoCapture → Prepare, the first of a capture's
// explicit steps (PrepareCapture, the warmup run, BeginCapture, the
// recorded run, EndCapture; Capture does all of them): the warmup run
// follows, executed normally, with the pools handing out exact-fit pages
// and holding each one (so the pool ends up owning the capture's working
// set) and the params cache in capture mode. Then call BeginCapture (or
// AbortCapture).
//
// Refused with lifecycle.ErrGraphState when a capture is already prepared or
// recording on this stream; the stream is then unchanged.
func (s *Stream) PrepareCapture() error {
	const op = lifecycle.GraphPrepare
	if err := s.check(op); err != nil {
		return err
	}
	if err := s.lock(op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	// The state moves first, so a refused call runs none of the work.
	// Refused inside the window (a nested Capture), it fails the capture:
	// the nested step's calls would be missing from its graph.
	if err := s.life.Prepare(); err != nil {
		return s.failLocked(op, err)
	}
	// The warmup starts on a batch of its own. Handed off, not waited
	// for: nothing here needs the earlier work submitted, and waiting for
	// it under the lock (the submitter waits for the GPU when it is
	// gpuDepth submissions ahead) would hold every other call of the
	// stream for as long as the GPU runs.
	s.handOff()
	s.log.Debug().Stringer("state", s.life.State()).Msg("graph prepare")
	return nil
}

// GraphPrepare is PrepareCapture.
//
// Deprecated: named apart from BeginCapture and EndCapture; use
// PrepareCapture.
func (s *Stream) GraphPrepare() error { return s.PrepareCapture() }

// BeginCapture moves Prepare → Capture: it submits the warmup, surfaces its
// errors, ends pool priming and opens the recording window. From now on
// launches, copies, clears and replays are recorded, not executed; reads,
// syncs and profiles are refused; writes are rejected lazily.
//
// Refused with lifecycle.ErrGraphState (stream unchanged) when PrepareCapture
// has not run or a capture is already recording. If the warmup reported
// device errors, the capture is aborted: the stream returns to NoCapture,
// usable and re-capturable, and the *CaptureError lists the errors.
func (s *Stream) BeginCapture() error {
	const op = lifecycle.BeginCapture
	if err := s.check(op); err != nil {
		return err
	}
	if err := s.lock(op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	// The state moves before the work (the seed's order): a rejected call on
	// a recording stream must not flush into the live capture.
	if err := s.life.Begin(newRecording(s)); err != nil {
		return s.failLocked(op, err) // inside the window, as PrepareCapture's
	}
	s.mem.EndPriming()
	// The warmup is submitted before its errors are taken, with the lock
	// given up while the submitter works (Tx.Drain: the submitter waits
	// for the GPU when it is gpuDepth submissions ahead), so a call beside
	// it is recorded or refused as in the window it opened, not held
	// behind the GPU. Begun after the transition, the transaction's epoch
	// is the window's: if it moved meanwhile, another call ended or aborted
	// that window, and the warmup's errors stay queued for the next sync
	// point (its EndCapture, or its Sync).
	tx := s.eng.Begin(op, engine.Admission{Verdict: lifecycle.Execute})
	epoch := s.eng.Epoch()
	if err := tx.Drain(context.Background()); err != nil {
		return &Error{Op: op.String(), Err: s.txError(err)}
	}
	if s.eng.Epoch() != epoch {
		return nil
	}
	if err := s.takeErrors(); err != nil {
		if rec, ok := s.life.Abort(); ok {
			rec.discard(s)
		}
		s.log.Debug().Err(err).Msg("capture aborted: warmup failed")
		return &CaptureError{Op: op.String(), Causes: []error{err}}
	}
	s.log.Debug().Stringer("state", s.life.State()).Msg("begin capture")
	return nil
}

// EndCapture moves Capture → NoCapture and seals the recording into a
// Graph. The state moves first, so the stream leaves capture mode even when
// sealing fails.
//
// It fails with a *CaptureError (matching lifecycle.ErrGraphState and each
// cause) when an error was queued inside the window, such as a write
// rejected while recording; when an If or While body has not returned (it
// panicked inside the window, or EndCapture is called from inside it, and
// later commands would have been recorded into the body); or when the
// recorded commands fail the device's validation (checked once here by
// encoding them without submitting). The recording is then discarded and
// the stream is usable and re-capturable.
// With nothing recording it is refused with lifecycle.ErrGraphState.
//
// On a stream WithChecks it also waits for the work executed before the
// window (the warmup) and fails the same way, the *CheckError among the
// causes, when that work indexed a binding out of range: the recording
// repeats the warmup's launches, so its graph would too (docs/checks.md).
func (s *Stream) EndCapture() (*Graph, error) { return s.endCaptureOf(nil) }

// endCaptureOf is EndCapture of the recording want (any, if nil): a
// recording other than want is left as it is, refused with a
// *CaptureError, so Capture never seals a window its step opened in place
// of the one Capture began.
func (s *Stream) endCaptureOf(want *recording) (*Graph, error) {
	g, err := s.endCapture(want)
	if err != nil || !s.cfg.checks {
		return g, err
	}
	if err := s.takeViolation(context.Background(), lifecycle.EndCapture); err != nil { // WithChecks (checks.go)
		g.Release()
		return nil, &CaptureError{Op: lifecycle.EndCapture.String(), Causes: []error{err}}
	}
	return g, nil
}

// endCapture is endCaptureOf without the checks' read-back.
func (s *Stream) endCapture(want *recording) (*Graph, error) {
	const op = lifecycle.EndCapture
	if err := s.check(op); err != nil {
		return nil, err
	}
	if err := s.lock(op); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if cur := s.capturing(); want != nil && cur != nil && cur != want {
		return nil, &CaptureError{Op: "Capture", Causes: []error{errors.New("the capture Capture began was ended or abandoned inside its step, and another begun; neither is kept")}}
	}
	rec, err := s.life.End()
	if err != nil {
		return nil, err
	}
	errs := rec.refusals
	if err := s.takeErrors(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		rec.discard(s)
		return nil, &CaptureError{Op: op.String(), Causes: []error{joinErrors(errs)}}
	}
	if rec.broken != nil {
		err := rec.broken
		rec.discard(s)
		return nil, &CaptureError{Op: op.String(), Causes: []error{err}}
	}
	if rec.cur != 0 {
		// An If or While body has not returned: it panicked and the caller
		// recovered, or EndCapture is called from inside it. Its region is
		// open, and whatever was recorded since went into it; such a
		// recording says nothing the caller meant.
		kind := rec.regions[rec.cur].kind
		rec.discard(s)
		return nil, &CaptureError{Op: op.String(), Causes: []error{
			argError(lifecycle.Branch, ErrInvalidArgument, "%s: a body did not return (it panicked, or EndCapture was called inside it); the recording is discarded", kind)}}
	}
	g, err := seal(s, rec)
	if err != nil {
		rec.discard(s)
		s.log.Debug().Err(err).Msg("capture failed")
		return nil, &CaptureError{Op: op.String(), Causes: []error{&DeferredError{Op: op.String(), Err: err}}}
	}
	s.graphs[g] = true
	s.log.Debug().Stringer("state", s.life.State()).Int("dispatches", g.stats.Dispatches).
		Uint64("retained_bytes", g.stats.RetainedBytes).Dur("capture", g.stats.CaptureTime).Msg("end capture")
	return g, nil
}

// AbortCapture abandons a capture from Prepare or Capture: the recording
// (if any) is discarded with everything it pinned, the warmup's primed
// memory goes back to the pool's free lists (Trim gives it back to the
// device), and errors queued inside the recording window (writes rejected
// for a graph that will not exist) are dropped; errors of the warmup, which
// executed, stay queued. The stream is then in NoCapture. Refused with
// lifecycle.ErrGraphState when no capture is prepared or recording.
func (s *Stream) AbortCapture() error {
	const op = lifecycle.AbortCapture
	if err := s.check(op); err != nil {
		return err
	}
	if err := s.lock(op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	return s.abortLocked()
}

// abortLocked returns to NoCapture from Prepare or Capture (AbortCapture,
// and Capture's failure paths, which ignore the refusal from NoCapture:
// there is nothing to abandon). The caller holds s.mu.
func (s *Stream) abortLocked() error {
	rec, recording, err := s.life.Cancel()
	if err != nil {
		return err
	}
	if recording {
		rec.discard(s) // with the refusals, for a graph that will not exist
	}
	s.mem.EndPriming()
	s.log.Debug().Msg("capture aborted")
	return nil
}

// Capture records step into a Graph in one call: PrepareCapture, step once
// as the warmup (executed), BeginCapture, step again (recorded), EndCapture.
// The warmup is the default: step runs once, for real, before it is
// recorded (so the pool and params cache hold its working set when the
// recording starts). WithoutWarmup records step without running it: then
// nothing executes until the first Replay.
// Any failure aborts cleanly: the stream is back in NoCapture, usable and
// re-capturable, and nothing the attempt recorded is kept — even when step
// itself misuses the lifecycle (calls BeginCapture, say). An error step
// returns comes back as a *StepError wrapping it. A step that panics
// aborts the capture the same way before the panic continues to the
// caller, so a recovered panic leaves the stream usable.
func (s *Stream) Capture(step func() error, opts ...CaptureOption) (*Graph, error) {
	var cfg captureConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if step == nil {
		return nil, argError(lifecycle.GraphPrepare, ErrInvalidArgument, "Capture: step is nil")
	}
	if err := s.PrepareCapture(); err != nil {
		return nil, err
	}
	abort := func() {
		if lock := s.lock(lifecycle.AbortCapture); lock == nil {
			_ = s.abortLocked() // refused only from NoCapture: nothing to abandon
			s.mu.Unlock()
		}
	}
	// A panicking step unwinds through here: abandon the capture (the
	// stream's lock is not held while step runs) and let the panic go on.
	stepping := true
	fail := func(err error) (*Graph, error) {
		stepping = false
		abort()
		return nil, err
	}
	defer func() {
		if stepping {
			abort()
		}
	}()
	if !cfg.noWarmup {
		if err := step(); err != nil {
			return fail(&StepError{Run: "warmup", Err: err})
		}
	}
	if err := s.BeginCapture(); err != nil {
		return fail(err)
	}
	// The window this call opened: the step may end or abandon it and
	// open another, which must not be sealed as this one.
	mine := s.recordingNow()
	if err := step(); err != nil {
		return fail(&StepError{Run: "recorded", Err: err})
	}
	stepping = false
	g, err := s.endCaptureOf(mine)
	if err != nil {
		var se *lifecycle.StateError
		var ce *CaptureError
		if errors.As(err, &se) || errors.As(err, &ce) && ce.Op == "Capture" {
			// The step left the stream elsewhere than in its window.
			return fail(err)
		}
		return nil, err
	}
	return g, nil
}
