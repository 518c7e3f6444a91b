package recorder

import (
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// Graph is a sealed, immutable recording of a stream's work: prebuilt
// pipelines, bind groups, dispatches, copies and clears that Replay
// re-encodes in order. A replay saves the per-launch work of resolution
// (argument checks, params lookup and upload, bind group creation); it
// still encodes every dispatch, because a WebGPU command buffer cannot be
// submitted twice.
//
// What is sealed never changes: its commands, regions, statistics and
// buffers are fixed at EndCapture (or LoadGraph), and Rebind returns a new
// Graph sharing bind groups and memory with this one, which stays valid.
// What does change is how the stream replays it — whether it was released,
// its next replay encoded ahead, its ramp, profiles in progress — and all
// of that is guarded by its stream's lock. So every method is safe for
// concurrent use, and Len, Stats and String read sealed fields.
//
// What it keeps alive, until Release (and until the last replay of it that
// was enqueued is submitted): every buffer page any recorded command binds,
// copies or reads indirect counts from (whoever allocated it: releasing a
// Buffer drops only the caller's reference), every texture and sampler it
// binds, the params uniforms it uses, its bind groups, and its program (the
// native command list, which holds the kernels' pipelines). Replay reads and
// writes those resources' current contents at replay time, nothing else.
//
// A Graph belongs to the stream that captured it and replays there. Release
// graphs you are done with (Close releases the stream's graphs): a graph
// replayed with pre-encoding keeps a goroutine that encodes its next
// replay.
type Graph struct {
	s     *Stream
	nodes []node // the commands, in order; never changed after seal
	// raw is the recording's own nodes, before its If and While regions
	// were lowered (nil without control flow, and for a loaded graph): a
	// capture that replays this graph includes them with the regions, so
	// the control flow nests in the including graph's own gates.
	raw     []node
	regions []region       // control-flow structure (regions[0]: top level)
	prog    driver.Program // built from nodes at seal; owned
	pins    *pinSet        // what the graph keeps alive; one reference is the graph's
	stats   GraphStats
	buffers []*Buffer // the Buffers it binds, in first-use order
	// enablePage holds the enable word of each If and each unrolled While
	// iteration, gatePage the indirect counts the gates write (both pinned
	// by pins); nil without control flow (gatePage also when every region
	// latches). A graph loaded from a version-1 file has both in gatePage.
	enablePage, gatePage *pool.Page
	// tablePage holds the gates' table, whose contents (table) never change.
	tablePage *pool.Page
	table     []byte
	// kernels were compiled for this graph alone (a loaded graph's,
	// wgpu.Private): released with it. Its program keeps their pipelines
	// alive for replays already encoded.
	kernels []driver.Kernel
	// fusion is what WithFusion fused, nil when nothing was (fusion.go).
	fusion *fusion

	// Guarded by s.mu.
	released bool
	pre      *engine.Preencoder // the next replay, encoded ahead; nil until needed
	// ramp holds the first replays of the next run encoded ahead (a
	// short graph; ramp.go); runReplays counts replays since the last
	// sync point, which plans the ramp.
	ramp       *ramp
	runReplays int
	// profiling counts ProfileReplay calls measuring the graph: they
	// encode its program with s.mu released, and entries the batches that
	// hold counted replays of it (ramp.go), which their processor encodes;
	// a Release meanwhile leaves the program to the last of them (a
	// released graph admits no new one). progGone: the program was
	// released.
	profiling int
	entries   int
	progGone  bool
}

// releaseProgramIfUnused releases the program of a released graph once no
// profile and no batch entry uses it any more. The caller holds s.mu.
func (g *Graph) releaseProgramIfUnused() {
	if g.released && g.profiling == 0 && g.entries == 0 && !g.progGone {
		g.progGone = true
		g.prog.Release() // encoded replays keep the native program alive
	}
}

// GraphStats describes a sealed graph.
type GraphStats struct {
	Dispatches    int           // recorded dispatches (gate dispatches of If and While included)
	Transfers     int           // recorded copies and clears
	Kernels       int           // distinct kernels
	BindGroups    int           // distinct bind groups
	Buffers       int           // distinct buffer pages pinned
	Textures      int           // distinct textures pinned
	RetainedBytes uint64        // bytes of the pinned pages and params slots
	ParamsBytes   uint64        // of which params (uniform) slots
	CaptureTime   time.Duration // from BeginCapture to EndCapture
	// FusionCompileTime is the part of CaptureTime spent compiling fused
	// kernels (WithFusion): zero when every chain's kernel was one the
	// stream's graphs already held.
	FusionCompileTime time.Duration
	// FusionCompiles counts the fused kernels compiled for the graph:
	// chains whose kernel a graph of the stream already held count none.
	FusionCompiles int
}

// seal turns a recording into a Graph: control flow is lowered to plain
// dispatches (control.go), the program is built, and the device validates
// it once by encoding it into a command buffer that is never submitted, so
// a graph that seals replays without device errors. The recording's pins
// pass to the graph on success.
func seal(s *Stream, rec *recording) (*Graph, error) {
	nodes, regions, err := lowerRecording(s, rec)
	if err != nil {
		return nil, err
	}
	g := &Graph{s: s, nodes: nodes, regions: regions, pins: rec.pins, enablePage: rec.enablePage, gatePage: rec.gatePage, tablePage: rec.tablePage, table: rec.table}
	if len(regions) > 1 && !rec.lowered {
		g.raw = rec.nodes
	}
	if s.cfg.fusion {
		if err := s.fuseGraph(lifecycle.EndCapture, g); err != nil {
			return nil, err
		}
	}
	if err := s.assemble(g, true); err != nil {
		return nil, err
	}
	g.stats.CaptureTime = time.Since(rec.start)
	return g, nil
}

// assemble is the last step of every graph's making (a capture's seal, a
// Rebind, a rebind view): it builds g's program from its final nodes,
// validates it on the device when validate is set (a capture: its nodes
// are new to the device), and describes g. On failure it releases what g
// would have owned besides its pins (the program, its fused or loaded
// kernels), which stay the caller's to drop. The caller holds s.mu.
func (s *Stream) assemble(g *Graph, validate bool) error {
	prog, err := buildProgram(s.drv, g.nodes)
	if err == nil && validate {
		if err = s.validateProgram(prog); err != nil {
			prog.Release()
		}
	}
	if err != nil {
		s.dropKernels(g.kernels)
		g.kernels = nil
		return err
	}
	g.prog = prog
	g.describe()
	return nil
}

// buildProgram makes the native command list of nodes.
func buildProgram(drv driver.Device, nodes []node) (driver.Program, error) {
	p, err := drv.NewProgram()
	if err != nil {
		return nil, err
	}
	for i := range nodes {
		err := nodes[i].op.encode(p)
		if err != nil {
			p.Release()
			return nil, err
		}
	}
	return p, nil
}

// validateProgram encodes p once into a command buffer that is dropped. The
// caller holds s.mu; the stream's open batch is empty (nothing executes
// while recording) or is handed off first, without waiting for it.
func (s *Stream) validateProgram(p driver.Program) error {
	if p.Len() == 0 {
		return nil
	}
	s.handOff()
	if err := s.eng.Enc().Encode(p, 0, p.Len()); err != nil {
		s.eng.Enc().Discard()
		return err
	}
	cb, err := s.eng.Enc().Finish()
	cb.Release()
	s.resetBatch()
	return err
}

// describe fills the graph's stats and buffer list from its nodes and pins.
func (g *Graph) describe() {
	seen := map[*Buffer]bool{}
	addBuf := func(b *Buffer) {
		if b != nil && !seen[b] && b.pg != g.enablePage && b.pg != g.gatePage && b.pg != g.tablePage && b != g.s.checks.state {
			seen[b] = true
			g.buffers = append(g.buffers, b)
		}
	}
	for i := range g.nodes {
		g.nodes[i].op.uses(func(u bufferUse) { addBuf(u.buf) })
	}
	t := tallyNodes(g.nodes)
	g.stats.Dispatches, g.stats.Transfers = t.dispatches, t.transfers
	pages, params := g.pins.bytes()
	g.stats.Kernels = len(t.kernels)
	g.stats.BindGroups = len(t.groups)
	g.stats.Buffers = len(g.pins.list)
	g.stats.Textures = len(g.pins.texs)
	g.stats.ParamsBytes = params
	g.stats.RetainedBytes = pages + params
}

// Len is the number of recorded dispatches (0 for a nil graph).
func (g *Graph) Len() int {
	if g == nil {
		return 0
	}
	return g.stats.Dispatches
}

// Stats describes the graph (zero for a nil graph).
func (g *Graph) Stats() GraphStats {
	if g == nil {
		return GraphStats{}
	}
	return g.stats
}

// Stream is the stream that captured the graph (nil for a nil graph).
func (g *Graph) Stream() *Stream {
	if g == nil {
		return nil
	}
	return g.s
}

// Buffers lists the Buffers the graph binds, copies or reads indirect counts
// from, in order of first use: for a loaded graph, the buffers it made; for
// a captured one, the caller's (some may be released: the graph keeps their
// memory). Write inputs, Read outputs or Rebind them. The Vars it binds
// are not Buffers: Vars lists them.
func (g *Graph) Buffers() []*Buffer {
	if g == nil {
		return nil
	}
	out := make([]*Buffer, 0, len(g.buffers))
	for _, b := range g.buffers {
		if b.v == nil {
			out = append(out, b)
		}
	}
	return out
}

// preEncodeMin is the shortest graph worth encoding ahead of time: for a
// short graph, joining its dispatches to the open batch costs less than a
// command buffer of its own.
const preEncodeMin = 64

// Replay enqueues the recorded commands on the graph's stream, in order,
// after everything enqueued before it: they join the stream's open batch
// like launches do, and are submitted with it (when the batch is full,
// after the flush delay, or at the next Sync, Read or Flush). It reads
// resources at replay time: rewriting an input with Write between replays
// changes the output, and indirect dispatches read their counts when they
// execute. Many replays in a row without a sync are fine, and cheap for
// short graphs.
//
// The loop does no allocation, lookup or validation: it encodes the
// prebuilt program, skipping redundant pipeline and bind group changes,
// submitting in chunks. A graph of at least 64 dispatches replayed again is
// encoded ahead of time on a background goroutine (see WithPreEncode), and
// Replay only joins that command buffer to the batch.
//
// A shorter graph replayed before a sync point (Sync, Read) gets a ramp
// there (with WithPreEncode on): the first replays of its next run, up to
// as many as that run made, encoded ahead into a few command buffers while
// the GPU finishes. The next run's Replay calls then only count themselves
// against the ramp's next command buffer, which goes to the GPU the moment
// its count is complete. Order is kept exactly: any other call on the
// stream (a launch, write, read, sync, flush, another graph's replay,
// Release), and the flush delay, first encodes the replays counted so far
// the ordinary way, where they were called. MemoryStats reports how many
// replays ran from a ramp.
//
// Called while the graph's stream is recording, Replay appends the graph's
// commands to that recording instead (a child graph): the new graph pins
// what this one pins, and the child's If and While regions become regions
// of the new graph (inside an If or While body they nest in it). A loaded
// graph with If or While cannot be included (its regions are stored
// lowered): that Replay fails with ErrInvalidArgument. It fails with
// ErrReleased after Release and ErrClosed after the stream's Close.
func (g *Graph) Replay() (err error) {
	const op = lifecycle.Replay
	if g == nil {
		return argError(op, ErrInvalidArgument, "graph is nil")
	}
	s := g.s
	if err := s.check(op); err != nil {
		return err
	}
	return s.eng.Do(op, func(tx *engine.Tx) (err error) {
		defer s.failsOnReturn(op, &err) // in this hold: the verdict's
		if g.released {
			return argError(op, ErrReleased, "graph of %d dispatches was released", g.stats.Dispatches)
		}
		if tx.Verdict() == lifecycle.Record {
			return s.capturing().include(g)
		}
		return s.replayLocked(g)
	})
}

// replayLocked enqueues one replay of g. The caller holds s.mu.
func (s *Stream) replayLocked(g *Graph) error {
	s.noteReplay(g)
	s.checkedReplay() // WithChecks (checks.go)
	if s.rampReplay(g) {
		return nil
	}
	if g.pre != nil && s.profiling() == nil {
		if r, ok := g.pre.Take(); ok {
			if r.Err == nil && !r.CB.Empty() {
				s.joinCommandBuffer(r.CB)
				s.holdPins(g.pins)
				s.eng.AddDispatches(g.prog.Dispatches())
				g.pre.Request()
				s.enqueued(roomLocked)
				return nil
			}
			r.CB.Release()
			if r.Err != nil {
				// Sealed graphs encode without errors; this one did not:
				// encode inline, where a failure is queued and reported.
				s.log.Debug().Err(r.Err).Msg("pre-encoding a replay failed; encoding inline")
			}
		}
	}
	if err := s.encodeProgram(g.prog, g.pins); err != nil {
		return err
	}
	if s.cfg.preEncode && g.pre == nil && g.prog.Dispatches() >= preEncodeMin && s.profiling() == nil {
		var err error
		if g.pre, err = engine.StartPreencoder(s.drv, g.prog); err != nil {
			// Pre-encoding is an optimisation; the replay itself is enqueued.
			s.log.Debug().Err(err).Msg("cannot start pre-encoding; replays encode inline")
			g.pre = nil
			return nil
		}
		g.pre.Request()
	}
	return nil
}

// joinCommandBuffer appends a finished command buffer to the open batch,
// after what the stream's encoder holds and the replays it counted: those
// go on their way first.
func (s *Stream) joinCommandBuffer(cb driver.CommandBuffer) {
	if !s.eng.Enc().Empty() || s.eng.HasCounted() {
		s.reap(false)
		s.makeRoom()
		s.handOff()
	}
	s.eng.AddCommandBuffer(cb)
}

// encodeProgram encodes a program into the open batch in submission
// chunks, holding pins until the batch is submitted. The caller holds s.mu.
func (s *Stream) encodeProgram(p driver.Program, pins *pinSet) error {
	n := p.Len()
	for i := 0; i < n; {
		end := min(n, i+max(s.eng.Chunk()-s.encoded(), 1))
		if s.profiling() != nil && !s.eng.Enc().PassOpen() {
			if err := s.beginProfiledPass(); err != nil {
				return &Error{Op: "Replay", Err: err}
			}
		}
		if err := s.eng.Enc().Encode(p, i, end); err != nil {
			return &Error{Op: "Replay", Err: err}
		}
		s.holdPins(pins)
		s.eng.AddDispatches(end - i)
		i = end
		s.enqueued(roomLocked)
	}
	return nil
}

// Release frees what the graph keeps alive, once replays already enqueued
// are submitted (they still compute what was captured). Idempotent; every
// later Replay returns ErrReleased.
func (g *Graph) Release() {
	if g == nil {
		return
	}
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	g.releaseLocked()
}

func (g *Graph) releaseLocked() {
	if g.released {
		return
	}
	g.s.forgetRamp(g)
	g.released = true
	if g.pre != nil {
		g.pre.Stop()
		g.pre = nil
	}
	g.releaseProgramIfUnused() // else the last profile or batch entry releases it
	g.pins.unref()             // open batches that replayed it keep the pins
	g.s.dropKernels(g.kernels)
	g.kernels = nil
	delete(g.s.graphs, g)
	g.s.log.Debug().Int("dispatches", g.stats.Dispatches).Msg("graph released")
}
