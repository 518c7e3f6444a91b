package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/softgraph/softgraph/examples/internal/clock"
	"github.com/softgraph/softgraph/examples/workloads"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// pathResult is one path's state read back and the number of dispatches
// that produced it from the workload's initial state.
type pathResult struct {
	path  string
	words []uint32
	steps int
	label string // which check: "after the rounds" or "fresh pass"
	err   error  // the read (or the fresh pass) failed
}

// sgTarget is one recorder path's memory and how it launches the workload
// there. Each recorder path has one of its own.
type sgTarget interface {
	// launch enqueues n dispatches (a whole pass, or a graph's worth) from
	// the current state; a graph is captured from it.
	launch(n int) error
	read() ([]uint32, error) // the current state, after the GPU finished
	reset() error            // the initial state written back, in stream order
	// state is the buffer holding the current state between passes: what
	// a graph file's loader finds among the loaded graph's Buffers.
	state() *recorder.Buffer
}

// bufTarget runs an add-one kernel, or the sort's step, on buffers of its
// own: A and B for the ping-pong chain, A alone in place. The stream owns the buffers (they go
// with its Close).
type bufTarget struct {
	s       *recorder.Stream
	k       *wgpu.Kernel // the device's (cached); never released here
	w       *workload
	bufs    [2]*recorder.Buffer
	counter *recorder.Buffer // roleCounter's word, when the kernel has one
	// args[i % len(args)] are dispatch i's launch arguments: even and odd
	// dispatches, or one per step of stepParams (an even number of them).
	args   [][]recorder.Arg
	groups recorder.Dispatch
}

func newBufTarget(s *recorder.Stream, w *workload) (*bufTarget, error) {
	k, err := s.Device().Kernel(w.wgsl, "main")
	if err != nil {
		return nil, err
	}
	t := &bufTarget{s: s, k: k, w: w, groups: recorder.Groups(w.gx, w.gy, 1)}
	if t.bufs[0], err = recorder.UploadSlice(s, w.init); err != nil {
		return nil, err
	}
	if w.pingPong() {
		if t.bufs[1], err = s.Alloc(uint64(w.words) * 4); err != nil {
			return nil, err
		}
	}
	if slices.Contains(w.bindings, roleCounter) {
		if t.counter, err = s.Alloc(4); err != nil {
			return nil, err
		}
	}
	// Arguments in binding order, by role: dispatch i reads A when i is
	// even, B when it is odd, with its step's params.
	t.args = make([][]recorder.Arg, max(2, len(w.stepParams)))
	for i := range t.args {
		params := w.params
		if len(w.stepParams) > 0 {
			params = w.stepParams[i%len(w.stepParams)]
		}
		for _, r := range w.bindings {
			switch r {
			case roleParams:
				t.args[i] = append(t.args[i], recorder.Params(params))
			case roleSrc:
				t.args[i] = append(t.args[i], t.bufs[i%2])
			case roleDst:
				t.args[i] = append(t.args[i], t.bufs[1-i%2])
			case roleInOut:
				t.args[i] = append(t.args[i], t.bufs[0])
			case roleCounter:
				t.args[i] = append(t.args[i], t.counter)
			}
		}
	}
	return t, nil
}

func (t *bufTarget) launch(n int) error {
	for i := range n {
		if err := t.s.Launch(t.k, t.groups, t.args[i%len(t.args)]...); err != nil {
			return err
		}
	}
	return nil
}

func (t *bufTarget) read() ([]uint32, error) { return recorder.ReadSlice[uint32](t.s, t.bufs[0]) }
func (t *bufTarget) reset() error            { return recorder.WriteSlice(t.s, t.bufs[0], 0, t.w.init) }
func (t *bufTarget) state() *recorder.Buffer { return t.bufs[0] }

// lifeTarget is examples/workloads' Life on the stream: Steps(n) is n
// dispatches ping-ponging between its two buffers (n is even here, so no
// copy), and its current generation is always in Cells. The Life owns its
// buffers; release releases them.
type lifeTarget struct {
	l    *workloads.Life
	init []uint32
}

func newLifeTarget(s *recorder.Stream, w *workload, side int) (*lifeTarget, error) {
	l, err := workloads.NewLife(s, side, side)
	if err != nil {
		return nil, err
	}
	if err := l.Write(w.init); err != nil {
		l.Release()
		return nil, err
	}
	return &lifeTarget{l: l, init: w.init}, nil
}

func (t *lifeTarget) launch(n int) error      { return t.l.Steps(n) }
func (t *lifeTarget) read() ([]uint32, error) { return t.l.Read() }
func (t *lifeTarget) reset() error            { return t.l.Write(t.init) }
func (t *lifeTarget) state() *recorder.Buffer { return t.l.Cells() }

// sgPath is one recorder path's target and the dispatches run on it since
// its initial state.
type sgPath struct {
	t     sgTarget
	steps int
}

// softgraphPaths runs the eager and replay paths on one recorder stream,
// each on memory of its own.
type softgraphPaths struct {
	s        *recorder.Stream // owned; closed by close
	kernels  int              // dispatches per pass
	graphLen int              // dispatches per graph
	replays  int              // Replay calls per pass: kernels / graphLen

	eagerPath, replayPath sgPath
	graph                 *recorder.Graph // owned; released by close
	captureTime           time.Duration
	rampLag               []time.Duration // per replay pass: the ramp worker's time past Sync
}

func newSoftgraphPaths(dev *wgpu.Device, opts []recorder.Option, w *workload, c config) (*softgraphPaths, error) {
	s, err := recorder.New(dev, opts...)
	if err != nil {
		return nil, err
	}
	p := &softgraphPaths{s: s, kernels: c.Kernels, graphLen: c.GraphLen, replays: c.Kernels / c.GraphLen}
	fail := func(err error) (*softgraphPaths, error) {
		p.close()
		return nil, err
	}
	for _, sp := range []*sgPath{&p.eagerPath, &p.replayPath} {
		if sp.t, err = w.target(s); err != nil {
			return fail(err)
		}
	}
	// Capture one graph of graphLen dispatches: the warmup executes (and
	// counts), the recorded run does not.
	start := clock.Now()
	if p.graph, err = s.Capture(func() error { return p.replayPath.t.launch(p.graphLen) }); err != nil {
		return fail(err)
	}
	p.captureTime = clock.Since(start)
	p.replayPath.steps = p.graphLen
	if err := s.Sync(); err != nil {
		return fail(err)
	}
	return p, nil
}

// eager: the recorder's normal Launch path for the whole pass, then Sync.
func (p *softgraphPaths) eager() (enqueue, e2e time.Duration, err error) {
	t0 := clock.Now()
	if err := p.eagerPath.t.launch(p.kernels); err != nil {
		return 0, 0, err
	}
	t1 := clock.Now()
	err = p.s.Sync()
	p.eagerPath.steps += p.kernels
	return t1.Sub(t0), clock.Since(t0), err
}

// replay: the captured graph replayed back to back until the pass's
// dispatches are enqueued, then Sync.
func (p *softgraphPaths) replay() (enqueue, e2e time.Duration, err error) {
	t0 := clock.Now()
	for range p.replays {
		if err := p.graph.Replay(); err != nil {
			return 0, 0, err
		}
	}
	t1 := clock.Now()
	err = p.s.Sync()
	e2e = clock.Since(t0)
	p.replayPath.steps += p.kernels
	p.awaitRamps()
	return t1.Sub(t0), e2e, err
}

// awaitRamps waits, outside the timed pass, until the stream's ramp worker
// has encoded the ramps the pass's Sync planned (recorder.WithPreEncode):
// it encodes them while the GPU finishes the pass, and what it has left
// when Sync returns would otherwise run during the next path's pass. The
// time left is recorded (rampLag), so the report shows what the timing
// leaves out. A pass whose Sync left nothing pending (pre-encoding off, or
// the worker already done) records zero: the time of asking is not the
// worker's.
func (p *softgraphPaths) awaitRamps() {
	t0 := clock.Now()
	if p.s.MemoryStats().RampPending == 0 {
		p.rampLag = append(p.rampLag, 0)
		return
	}
	for p.s.MemoryStats().RampPending > 0 {
		time.Sleep(20 * time.Microsecond)
	}
	p.rampLag = append(p.rampLag, clock.Since(t0))
}

// profileRounds is how many extra executions ProfileReplay's floor makes.
const profileRounds = 3

// profile asks the library for the graph's GPU time and its floor
// (recorder.WithFloor): one profiled replay plus profileRounds executions,
// all on the replay path's memory.
func (p *softgraphPaths) profile() (recorder.ReplayProfile, error) {
	prof, err := p.s.ProfileReplay(p.graph, recorder.WithFloor(profileRounds))
	if err == nil {
		p.replayPath.steps += p.graphLen * (1 + profileRounds)
	}
	return prof, err
}

func (p *softgraphPaths) read(name string, sp *sgPath) pathResult {
	words, err := sp.t.read()
	return pathResult{path: name, words: words, steps: sp.steps, err: err}
}

// reset puts sp's initial state back: the next pass starts from scratch.
func (p *softgraphPaths) reset(sp *sgPath) error {
	if err := sp.t.reset(); err != nil {
		return err
	}
	sp.steps = 0
	return nil
}

// save writes the replay graph twice into dir, for the replay tool's
// -check: name.sgraph holds it with the workload's initial contents,
// name.expected.sgraph the contents after one replay from them. The replay
// path is reset before and after, so the measured rounds start as usual.
func (p *softgraphPaths) save(dir, name string) error {
	write := func(file string) error {
		f, err := os.Create(filepath.Join(dir, file))
		if err != nil {
			return err
		}
		if _, err := p.graph.Save(f, recorder.SaveOptions{Contents: true}); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", file, err)
		}
		return f.Close()
	}
	if err := p.reset(&p.replayPath); err != nil {
		return err
	}
	if err := write(name + ".sgraph"); err != nil {
		return err
	}
	if err := p.graph.Replay(); err != nil {
		return err
	}
	if err := write(name + ".expected.sgraph"); err != nil {
		return err
	}
	return p.reset(&p.replayPath)
}

func (p *softgraphPaths) close() {
	if p.graph != nil {
		p.graph.Release()
	}
	for _, sp := range []*sgPath{&p.eagerPath, &p.replayPath} {
		if lt, ok := sp.t.(*lifeTarget); ok {
			lt.l.Release()
		}
	}
	_ = p.s.Close() // the other buffers go with the stream
}
