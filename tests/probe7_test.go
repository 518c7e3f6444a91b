package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// This file holds the seventh adversarial round. It attacks the ramps of
// short graphs (recorder/ramp.go): with pre-encoding on, a graph of fewer
// than 64 dispatches replayed between two sync points gets, at the sync
// point, its next run's first replays encoded ahead into up to five
// command buffers; the next run's Replays only count themselves against
// the next ready step (a deferral) until the step is complete, and every
// other call of the stream first encodes the counted replays live
// (settle). Pre-encoding is off by default on lavapipe, so every stream
// here asks for it (recorder.WithPreEncode(true)).
//
// The kernels count in u32, so results are exact: x = x·m + a
// (p7AffineWGSL) is not commutative, and a Go model says what every
// ordered sequence must compute; where goroutines interleave, only +1s
// (commutative) touch a shared buffer, and reads are checked against the
// replays that returned before them and those started after them.
//
// Found (the test stays, failing until it is fixed):
//
//   - TestProbe7RampPendingCountsOnlyStepsBeingEncoded: MemoryStats'
//     RampPending counts the steps a run has used as "still being
//     encoded" until the next sync point (rampWorker.count counts every
//     planned step without a command buffer), though the worker is idle:
//     a caller polling RampPending to 0 between sync points waits forever.

// p7Elems is the size of the buffers the tests count in (one workgroup).
const p7Elems = 64

// p7Bytes is a p7Elems buffer's size in bytes.
const p7Bytes = p7Elems * 4

// p7AffineWGSL: x = x·p.m + p.a over the whole buffer, in u32.
const p7AffineWGSL = `
struct P { m: u32, a: u32 }
@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] * p.m + p.a; }
}
`

// p7AccWGSL: dst += src, in u32.
const p7AccWGSL = `
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&dst)) { dst[id.x] = dst[id.x] + src[id.x]; }
}
`

// p7CountdownWGSL: one While iteration: st[0]-- and st[1]++ while st[0] > 0.
const p7CountdownWGSL = `
@group(0) @binding(0) var<storage, read_write> st: array<u32>;
@compute @workgroup_size(1)
fn main() {
	if (st[0] > 0u) { st[0] = st[0] - 1u; st[1] = st[1] + 1u; }
}
`

// p7TexStoreWGSL stores x (64 u32s) into an 8×8 r32uint texture.
const p7TexStoreWGSL = `
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var t: texture_storage_2d<r32uint, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	textureStore(t, vec2<i32>(id.xy), vec4<u32>(x[id.y * 8u + id.x], 0u, 0u, 1u));
}
`

// p7TexLoadWGSL adds the 8×8 r32uint texture into y.
const p7TexLoadWGSL = `
@group(0) @binding(0) var t: texture_2d<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.y * 8u + id.x;
	y[i] = y[i] + textureLoad(t, vec2<i32>(id.xy), 0).x;
}
`

// p7Aff is one launch of p7AffineWGSL: v·m + a.
type p7Aff struct{ m, a uint32 }

func (o p7Aff) apply(v uint32) uint32 { return v*o.m + o.a }

// p7Apply applies ops in order.
func p7Apply(ops []p7Aff, v uint32) uint32 {
	for _, o := range ops {
		v = o.apply(v)
	}
	return v
}

// p7Fill is p7Elems copies of v.
func p7Fill(v uint32) []uint32 {
	out := make([]uint32, p7Elems)
	for i := range out {
		out[i] = v
	}
	return out
}

// p7Shape is a graph of l launches mixing ×3 and + so that order shows.
func p7Shape(l int) []p7Aff {
	ops := make([]p7Aff, l)
	for i := range ops {
		if i%3 == 0 {
			ops[i] = p7Aff{3, uint32(i + 1)}
		} else {
			ops[i] = p7Aff{1, uint32(2*i + 1)}
		}
	}
	return ops
}

// p7Launch enqueues one affine launch on x.
func p7Launch(s *recorder.Stream, k *wgpu.Kernel, x *recorder.Buffer, o p7Aff) error {
	return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.U32(o.m, o.a))
}

// p7Capture captures ops on x (the warmup runs them once: the caller's
// model applies them) and releases the graph when the test ends.
func p7Capture(t testing.TB, s *recorder.Stream, k *wgpu.Kernel, x *recorder.Buffer, ops []p7Aff) *recorder.Graph {
	t.Helper()
	g, err := s.Capture(func() error {
		for _, o := range ops {
			if err := p7Launch(s, k, x, o); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Capture of %d launches: %v", len(ops), err)
	}
	t.Cleanup(g.Release)
	return g
}

// p7WantAll reads b on s and wants every element equal to v.
func p7WantAll(t testing.TB, what string, s *recorder.Stream, b *recorder.Buffer, v uint32) {
	t.Helper()
	gputest.WantEqual(t, what, p7Fill(v), gputest.ReadU32(t, s, b))
}

// p7Write writes v into every element of b.
func p7Write(t testing.TB, s *recorder.Stream, b *recorder.Buffer, v uint32) {
	t.Helper()
	if err := recorder.WriteSlice(s, b, 0, p7Fill(v)); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

// p7Settled waits until the stream's ramp worker has encoded every step
// planned (RampPending 0) and returns the stats.
func p7Settled(t testing.TB, s *recorder.Stream) recorder.MemoryStats {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := s.MemoryStats()
		if m.RampPending == 0 {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ramp worker still has %d steps to encode after 20 s (%d ready, %d ramps)", m.RampPending, m.RampBuffers, m.Ramps)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// p7Replay replays g, failing t on error.
func p7Replay(t testing.TB, g *recorder.Graph) {
	t.Helper()
	if err := g.Replay(); err != nil {
		t.Fatalf("Replay: %v", err)
	}
}

// ---- the documented ramp schedule, as a Go model ----

// p7RampPlan is ramp.go's plan, restated from its documentation: step k
// holds 8·2^k dispatches' worth of replays (at least one), up to five
// steps, until the steps cover the last run's replays.
func p7RampPlan(l, replays int) []int {
	var plan []int
	left := replays
	for k := 0; k < 5 && left > 0; k++ {
		r := min(max((8<<k)/l, 1), left)
		plan = append(plan, r)
		left -= r
	}
	return plan
}

// p7SimGraph is one graph's ramp in the model.
type p7SimGraph struct {
	l        int   // dispatches
	hasRamp  bool  // the stream keeps a ramp for it
	plan     []int // its steps' replays
	pos      int   // the step the next replays count against
	idle     int   // sync points since it was last replayed
	run      int   // replays since the last sync point
	released bool
}

// p7Sim models the ramps of one stream: which graphs have one, which
// steps are planned, and how many replays ran from them (RampReplays),
// for a single goroutine whose every step is ready when its run begins.
type p7Sim struct {
	def       *p7SimGraph // the graph with replays counted against a step
	count     int
	touched   []*p7SimGraph
	ramps     []*p7SimGraph
	served    uint64
	profiling bool
}

func (m *p7Sim) settle() { m.def, m.count = nil, 0 }

func (m *p7Sim) replay(g *p7SimGraph) {
	if m.def != nil && m.def != g {
		m.settle()
	}
	if g.l == 0 || g.l >= 64 {
		return
	}
	if g.run == 0 {
		m.touched = append(m.touched, g)
	}
	g.run++
	if m.def == g {
		m.count++
	} else {
		if !g.hasRamp || m.profiling || g.pos >= len(g.plan) {
			return
		}
		m.def, m.count = g, 1
	}
	if m.count == g.plan[g.pos] {
		m.served += uint64(m.count)
		g.pos++
		m.settle()
	}
}

// sync is a sync point (Sync, Read): ramps are planned for the graphs
// replayed since the last one, and dropped after 8 idle sync points.
func (m *p7Sim) sync() {
	if len(m.touched) == 0 && len(m.ramps) == 0 {
		return
	}
	m.settle()
	for _, r := range m.ramps {
		r.idle++
	}
	for _, g := range m.touched {
		n := g.run
		g.run = 0
		if g.released {
			continue
		}
		if !g.hasRamp {
			if len(m.ramps) >= 4 {
				continue
			}
			g.hasRamp = true
			m.ramps = append(m.ramps, g)
		}
		g.idle, g.pos = 0, 0
		g.plan = p7RampPlan(g.l, n)
	}
	m.touched = m.touched[:0]
	kept := m.ramps[:0]
	for _, r := range m.ramps {
		if r.idle > 8 {
			r.hasRamp, r.plan, r.pos = false, nil, 0
			continue
		}
		kept = append(kept, r)
	}
	m.ramps = kept
}

func (m *p7Sim) release(g *p7SimGraph) {
	if m.def == g {
		m.settle()
	}
	g.released = true
	for i, r := range m.ramps {
		if r == g {
			m.ramps = append(m.ramps[:i], m.ramps[i+1:]...)
			break
		}
	}
	g.hasRamp = false
}

// buffers is the number of steps planned (all encoded once the worker is
// done).
func (m *p7Sim) buffers() int {
	n := 0
	for _, r := range m.ramps {
		n += len(r.plan)
	}
	return n
}

// ---- 1: the schedule, one goroutine, every kind of interruption ----

// TestProbe7RampScheduleFollowsItsModel drives one stream from one
// goroutine through runs of replays of seven graphs (1, 2, 3, 9, 33 and
// 63 dispatches, so more than maxRamps rotate, and a pre-encoded one of
// 64) with run lengths that change from run to run (1, 500, 3, 248, 249,
// ...), interrupted at random points by every kind of other call: writes,
// launches, copies, clears, flushes, a Read on another stream, a
// SyncContext with a cancelled context, ProfileReplay, StartProfile /
// EndProfile around replays, captures whose warmup replays a graph,
// Trim, LoadGraph, a rebound graph replayed once, graphs released and
// captured anew,
// Reads and Syncs mid-run, and (with the flush timer on) pauses past the
// flush delay. The graphs are affine maps of one buffer (x·m + a, not
// commutative), so a replay executed anywhere but where it was called
// shows. After every sync point the buffer must equal the Go model, the
// other stream's Read must see every replay called before it, and the
// stream's ramps (MemoryStats.Ramps, RampBuffers) must be what ramp.go
// documents: at most 4 graphs, planned from the last run's length,
// dropped after 8 idle sync points; and RampReplays never more than the
// documented steps can serve (the model counts every replay against a
// ready step; the stream may encode some live instead, never more).
func TestProbe7RampScheduleFollowsItsModel(t *testing.T) {
	for _, c := range []struct {
		name  string
		timer bool
		opts  []recorder.Option
	}{
		{"no flush timer", false, []recorder.Option{recorder.WithFlushDelay(0)}},
		{"flush timer", true, nil},
		{"inline submission", true, []recorder.Option{recorder.WithBackgroundSubmit(false)}},
		{"batches of one dispatch", true, []recorder.Option{recorder.WithSubmitChunks(1, 1)}},
		{"batches of 4096, no flush timer", false, []recorder.Option{recorder.WithSubmitChunks(4096, 4096), recorder.WithFlushDelay(0)}},
	} {
		t.Run(c.name, func(t *testing.T) { p7Schedule(t, c.timer, c.opts) })
	}
}

type p7SchedGraph struct {
	g   *recorder.Graph
	ops []p7Aff
	sim *p7SimGraph
}

func p7Schedule(t *testing.T, timer bool, opts []recorder.Option) {
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, append([]recorder.Option{recorder.WithPreEncode(true)}, opts...)...)
	other := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, p7AffineWGSL)
	x := gputest.UploadU32(t, s, p7Fill(0)...)
	snap := gputest.UploadU32(t, s, p7Fill(0)...)
	var mx, msnap uint32
	var sim p7Sim
	var log []string // the ops of the current segment, for failure messages
	note := func(f string, a ...any) {
		log = append(log, fmt.Sprintf(f, a...))
		if len(log) > 40 {
			log = log[len(log)-40:]
		}
	}
	capture := func(ops []p7Aff) p7SchedGraph {
		g := p7Capture(t, s, k, x, ops)
		mx = p7Apply(ops, mx)
		sim.settle()
		return p7SchedGraph{g: g, ops: ops, sim: &p7SimGraph{l: len(ops)}}
	}
	var graphs []p7SchedGraph
	for _, l := range []int{1, 2, 3, 9, 33, 63, 64} {
		graphs = append(graphs, capture(p7Shape(l)))
	}
	var file bytes.Buffer
	if _, err := graphs[2].g.Save(&file, recorder.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	saved := file.Bytes()
	replay := func(i int) {
		g := &graphs[i]
		if err := g.g.Replay(); err != nil {
			t.Fatalf("Replay of the %d-dispatch graph: %v (after %v)", len(g.ops), err, log)
		}
		mx = p7Apply(g.ops, mx)
		sim.replay(g.sim)
	}
	check := func(what string) {
		t.Helper()
		m := p7Settled(t, s)
		if m.Ramps != len(sim.ramps) || m.RampBuffers != sim.buffers() {
			t.Fatalf("%s: %d ramps with %d command buffers, want %d ramps with %d (the documented plan; ops %v)", what, m.Ramps, m.RampBuffers, len(sim.ramps), sim.buffers(), log)
		}
		if m.Ramps > 4 {
			t.Fatalf("%s: %d ramps, at most 4 are kept", what, m.Ramps)
		}
		// The model starts a deferral whenever a step is ready; the stream
		// may decline (work encoded live in its open batch goes first,
		// and the flush timer settles a count early), so it serves at
		// most what the model serves: never a replay the plan lacks.
		if m.RampReplays > sim.served {
			t.Fatalf("%s: %d replays ran from ramps, more than the %d the documented plans can serve (ops %v)", what, m.RampReplays, sim.served, log)
		}
	}
	readX := func(what string) {
		t.Helper()
		gputest.WantEqual(t, what+fmt.Sprintf(" (ops %v)", log), p7Fill(mx), gputest.ReadU32(t, s, x))
		sim.sync()
		check(what)
	}
	rng := rand.New(rand.NewPCG(7, 77))
	interrupt := func() {
		t.Helper()
		op := rng.IntN(17)
		if op == 13 && !timer {
			op = 1
		}
		switch op {
		case 0:
			v := rng.Uint32N(1000)
			p7Write(t, s, x, v)
			mx = v
			note("write %d", v)
		case 1:
			o := p7Aff{rng.Uint32N(4) + 1, rng.Uint32N(9)}
			if err := p7Launch(s, k, x, o); err != nil {
				t.Fatal(err)
			}
			mx = o.apply(mx)
			note("launch %v", o)
		case 2:
			if err := s.Copy(snap, 0, x, 0, p7Bytes); err != nil {
				t.Fatal(err)
			}
			msnap = mx
			note("copy")
		case 3:
			if err := s.Clear(snap, 0, p7Bytes); err != nil {
				t.Fatal(err)
			}
			msnap = 0
			note("clear")
		case 4:
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			note("flush")
		case 5:
			// Another stream's Read submits this stream's work first:
			// the replays counted and not yet encoded included.
			gputest.WantEqual(t, fmt.Sprintf("another stream's Read sees every replay called before it (ops %v)", log), p7Fill(mx), gputest.ReadU32(t, other, x))
			note("read on another stream")
		case 6:
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := s.SyncContext(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("SyncContext with a cancelled context: %v, want context.Canceled", err)
			}
			note("cancelled sync")
		case 7:
			// The profiled replay runs, and WithFloor(r) runs the graph r
			// more times (documented), all after the counted replays.
			j, floor := rng.IntN(len(graphs)), rng.IntN(3)
			if _, err := s.ProfileReplay(graphs[j].g, recorder.WithFloor(floor)); err != nil {
				t.Fatalf("ProfileReplay: %v", err)
			}
			for range 1 + floor {
				mx = p7Apply(graphs[j].ops, mx)
			}
			note("profile %d floor %d", len(graphs[j].ops), floor)
		case 8:
			tok, err := s.StartProfile()
			if err != nil {
				t.Fatal(err)
			}
			sim.settle()
			sim.profiling = true
			j, n := rng.IntN(len(graphs)), 1+rng.IntN(12)
			for range n {
				replay(j)
			}
			if _, err := s.EndProfile(tok); err != nil {
				t.Fatalf("EndProfile: %v", err)
			}
			sim.profiling = false
			note("profile of %d replays of %d", n, len(graphs[j].ops))
		case 9:
			// The warmup replays a graph (in the Prepare state: counted,
			// and maybe against a ramp step), then launches; the recorded
			// run includes the graph as a child.
			j := rng.IntN(len(graphs))
			warm := true
			g, err := s.Capture(func() error {
				if err := graphs[j].g.Replay(); err != nil {
					return err
				}
				if warm {
					mx = p7Apply(graphs[j].ops, mx)
					sim.replay(graphs[j].sim)
					warm = false
				}
				return p7Launch(s, k, x, p7Aff{5, 1})
			})
			if err != nil {
				t.Fatal(err)
			}
			mx = p7Aff{5, 1}.apply(mx)
			g.Release()
			note("capture replaying g%d", len(graphs[j].ops))
		case 10:
			j := rng.IntN(len(graphs) - 1) // not the 64-dispatch one
			graphs[j].g.Release()
			sim.release(graphs[j].sim)
			graphs[j] = capture(graphs[j].ops)
			note("recapture %d", len(graphs[j].ops))
			return // capture settled
		case 11:
			note("read")
			readX("a Read between replays")
			return
		case 12:
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			sim.sync()
			note("sync")
			check("a Sync between replays")
			return
		case 13:
			time.Sleep(3 * time.Millisecond) // past the flush delay
			note("sleep")
		case 14:
			if _, err := s.Trim(); err != nil {
				t.Fatalf("Trim: %v", err)
			}
			note("trim")
		case 15:
			lg, err := s.LoadGraph(bytes.NewReader(saved))
			if err != nil {
				t.Fatalf("LoadGraph: %v", err)
			}
			for _, b := range lg.Buffers() {
				b.Release()
			}
			lg.Release()
			note("load")
		case 16:
			// A rebound copy of a graph, onto the snapshot: replayed
			// once (a short graph of its own), then released.
			j := rng.IntN(len(graphs))
			rg, err := graphs[j].g.Rebind(x, snap)
			if err != nil {
				t.Fatalf("Rebind: %v", err)
			}
			sim.settle()
			if err := rg.Replay(); err != nil {
				t.Fatalf("Replay of a rebound graph: %v", err)
			}
			msnap = p7Apply(graphs[j].ops, msnap)
			rsim := &p7SimGraph{l: len(graphs[j].ops)}
			sim.replay(rsim)
			rg.Release()
			sim.release(rsim)
			note("rebound g%d", len(graphs[j].ops))
			return
		}
		sim.settle()
	}
	lengths := []int{1, 2, 3, 7, 8, 9, 15, 24, 100, 124, 125, 248, 249, 300, 500}
	segments := 16
	if probe7Short() {
		segments = 6
	}
	for seg := range segments {
		log = log[:0]
		for range 1 + rng.IntN(3) {
			i := rng.IntN(len(graphs))
			n := lengths[rng.IntN(len(lengths))]
			n = max(1, min(n, 2500/len(graphs[i].ops)))
			note("%d×g%d", n, len(graphs[i].ops))
			for r := range n {
				replay(i)
				if rng.IntN(50) == 0 {
					note("@%d", r+1)
					interrupt()
				}
			}
		}
		if rng.IntN(3) == 0 {
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			sim.sync()
			note("sync")
		}
		readX(fmt.Sprintf("segment %d", seg))
		gputest.WantEqual(t, fmt.Sprintf("segment %d: the snapshot", seg), p7Fill(msnap), gputest.ReadU32(t, s, snap))
		sim.sync()
		check(fmt.Sprintf("segment %d, after reading the snapshot", seg))
	}
	// Idle: every ramp is dropped after more than 8 sync points without a
	// replay of its graph.
	before := s.MemoryStats().Ramps
	for i := range 9 {
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		sim.sync()
		check(fmt.Sprintf("idle sync %d", i+1))
	}
	if m := s.MemoryStats(); m.Ramps != 0 || m.RampBuffers != 0 {
		t.Fatalf("after 9 idle sync points every ramp must be dropped (had %d): %d ramps, %d buffers", before, m.Ramps, m.RampBuffers)
	}
	if m := s.MemoryStats(); m.RampReplays == 0 {
		t.Fatalf("no replay ran from a ramp: the test did not exercise ramps")
	}
	// Replays still compute after the drop, and ramps come back.
	for range 30 {
		replay(0)
	}
	readX("30 replays after every ramp was dropped")
	if m := s.MemoryStats(); m.Ramps != 1 {
		t.Fatalf("the graph replayed after the drop gets a ramp again: %d ramps", m.Ramps)
	}
}

// ---- 2: goroutines, each with its own ordered graphs, on one stream ----

// TestProbe7GoroutinesKeepTheirOwnOrderOnASharedStream: three goroutines
// share one pre-encoding stream. Each owns a buffer and two short graphs
// of affine maps on it (not commutative) and runs, in bursts, replays,
// writes, launches, copies, clears, reads, syncs, flushes, cancelled
// syncs, profiles around its replays, eager Ifs whose body replays its
// graph, and reads of its buffer on a second stream, checking its own Go
// model (its calls are ordered: whatever the others do in between —
// settling its deferred replays, or starting their own — must not move
// its replays). Meanwhile all of them, and a goroutine on the second
// stream, add to a shared counter with +1 graphs and launches
// (commutative; the second stream replays a short graph of its own,
// with its own ramp), and two readers (one per stream) check that every read
// of it sees at least every addition that returned before the read began
// and at most those started before it ended, never going down.
func TestProbe7GoroutinesKeepTheirOwnOrderOnASharedStream(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, recorder.WithPreEncode(true))
	s2 := gputest.Stream(t, d, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, p7AffineWGSL)
	cnt := gputest.UploadU32(t, s, p7Fill(0)...)
	plus := p7Aff{1, 1}
	gc1 := p7Capture(t, s, k, cnt, []p7Aff{plus})
	gc2 := p7Capture(t, s, k, cnt, []p7Aff{plus, plus})
	g2c := p7Capture(t, s2, k, cnt, []p7Aff{plus})
	var started, completed atomic.Uint64
	started.Store(4) // the warmups
	completed.Store(4)
	add := func(n uint64, call func() error) error {
		started.Add(n)
		if err := call(); err != nil {
			return err
		}
		completed.Add(n)
		return nil
	}
	ops := 150
	if probe7Short() {
		ops = 50
	}
	var errs collect
	var wg sync.WaitGroup
	stop := make(chan struct{})
	// Every capture before any goroutine starts: a capture records what
	// the stream's other callers enqueue meanwhile, and refuses their
	// syncs.
	type worker struct {
		y, snap    *recorder.Buffer
		flag       *recorder.Buffer
		aOps, bOps []p7Aff
		ga, gb     *recorder.Graph
		my         uint32
	}
	ws := make([]worker, 3)
	for w := range ws {
		v := &ws[w]
		v.y = gputest.UploadU32(t, s, p7Fill(uint32(w))...)
		v.snap = gputest.UploadU32(t, s, p7Fill(0)...)
		v.flag = gputest.UploadU32(t, s, 0)
		v.aOps = []p7Aff{{3, uint32(w + 1)}}
		v.bOps = []p7Aff{{1, 7}, {5, 1}}
		v.ga = p7Capture(t, s, k, v.y, v.aOps)
		v.gb = p7Capture(t, s, k, v.y, v.bOps)
		v.my = p7Apply(v.bOps, p7Apply(v.aOps, uint32(w)))
	}
	// Readers of the counter, on both streams.
	for ri, rs := range []*recorder.Stream{s, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last uint32
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				lo := completed.Load()
				v, err := recorder.ReadSlice[uint32](rs, cnt)
				hi := started.Load()
				if err != nil {
					errs.add(fmt.Errorf("reader %d: %v", ri, err))
					return
				}
				for i := range v {
					if v[i] != v[0] {
						errs.add(fmt.Errorf("reader %d: element %d is %d, element 0 %d", ri, i, v[i], v[0]))
						return
					}
				}
				if uint64(v[0]) < lo || uint64(v[0]) > hi || v[0] < last {
					errs.add(fmt.Errorf("reader %d, read %d: counter %d; additions returned before the read: %d, started before it ended: %d; the previous read saw %d", ri, n, v[0], lo, hi, last))
					return
				}
				last = v[0]
				if ri == 1 {
					// The second stream adds too: a launch and a burst of
					// replays of its own short graph (its own ramp, which
					// the first stream's reads settle).
					if err := add(1, func() error { return p7Launch(s2, k, cnt, plus) }); err != nil {
						errs.add(fmt.Errorf("launch on the second stream: %v", err))
						return
					}
					for range 1 + n%12 {
						if err := add(1, g2c.Replay); err != nil {
							errs.add(fmt.Errorf("replay on the second stream: %v", err))
							return
						}
					}
				}
			}
		}()
	}
	var workers sync.WaitGroup
	for w := range 3 {
		y, snap, flag := ws[w].y, ws[w].snap, ws[w].flag
		aOps, bOps := ws[w].aOps, ws[w].bOps
		ga, gb := ws[w].ga, ws[w].gb
		my := ws[w].my
		var msnap uint32
		workers.Add(1)
		go func() {
			defer workers.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			var trail []string
			fail := func(f string, a ...any) {
				if len(trail) > 20 {
					trail = trail[len(trail)-20:]
				}
				errs.add(fmt.Errorf("worker %d: %s (after %v)", w, fmt.Sprintf(f, a...), trail))
			}
			want := func(what string, rs *recorder.Stream, b *recorder.Buffer, v uint32) bool {
				got, err := recorder.ReadSlice[uint32](rs, b)
				if err != nil {
					fail("%s: %v", what, err)
					return false
				}
				for i := range got {
					if got[i] != v {
						fail("%s: element %d is %d, want %d", what, i, got[i], v)
						return false
					}
				}
				return true
			}
			for range ops {
				var err error
				if rng.IntN(12) == 0 {
					// Profiles and an eager If between the others' calls.
					switch rng.IntN(3) {
					case 0:
						// A profiled replay of a counter graph runs it
						// 1+floor times; refused while another
						// goroutine's StartProfile profile runs.
						floor := uint64(rng.IntN(2))
						started.Add(2 * (1 + floor))
						_, err = s.ProfileReplay(gc2, recorder.WithFloor(int(floor)))
						switch {
						case err == nil:
							completed.Add(2 * (1 + floor))
						case errors.Is(err, wgpu.ErrInvalidArgument):
							started.Add(^(2*(1+floor) - 1)) // never ran
							err = nil
						}
						trail = append(trail, "profiled replay")
					case 1:
						tok, perr := s.StartProfile()
						if errors.Is(perr, wgpu.ErrInvalidArgument) {
							break // another goroutine's profile runs
						}
						if perr != nil {
							err = perr
							break
						}
						for range 1 + rng.IntN(5) {
							if err = ga.Replay(); err != nil {
								break
							}
							my = p7Apply(aOps, my)
						}
						if _, perr := s.EndProfile(tok); err == nil {
							err = perr
						}
						trail = append(trail, "profile")
					case 2:
						on := rng.IntN(2) == 0
						v := uint32(0)
						if on {
							v = 1 + rng.Uint32N(5)
						}
						if err = recorder.WriteSlice(s, flag, 0, []uint32{v}); err != nil {
							break
						}
						err = s.If(flag, 0, func() error { return gb.Replay() })
						if on {
							my = p7Apply(bOps, my)
						}
						trail = append(trail, fmt.Sprintf("eager If %v", on))
					}
					if err != nil {
						fail("%v", err)
						return
					}
					continue
				}
				switch r := rng.IntN(100); {
				case r < 40:
					g, o, name := ga, aOps, "a"
					if r%2 == 1 {
						g, o, name = gb, bOps, "b"
					}
					n := 1 + rng.IntN(40)
					for range n {
						if err = g.Replay(); err != nil {
							break
						}
						my = p7Apply(o, my)
					}
					trail = append(trail, fmt.Sprintf("%d×%s", n, name))
				case r < 50:
					g, inc := gc1, uint64(1)
					if r%2 == 1 {
						g, inc = gc2, 2
					}
					n := 1 + rng.IntN(20)
					for range n {
						if err = add(inc, g.Replay); err != nil {
							break
						}
					}
					trail = append(trail, fmt.Sprintf("%d×counter", n))
				case r < 58:
					v := rng.Uint32N(1 << 20)
					err = recorder.WriteSlice(s, y, 0, p7Fill(v))
					my = v
					trail = append(trail, fmt.Sprintf("write %d", v))
				case r < 64:
					o := p7Aff{2, uint32(w)}
					err = p7Launch(s, k, y, o)
					my = o.apply(my)
					trail = append(trail, "launch")
				case r < 72:
					if !want("a read of its buffer", s, y, my) {
						return
					}
					trail = append(trail, "read")
				case r < 76:
					err = s.Sync()
					trail = append(trail, "sync")
				case r < 80:
					err = s.Flush()
					trail = append(trail, "flush")
				case r < 85:
					err = s.Copy(snap, 0, y, 0, p7Bytes)
					msnap = my
					trail = append(trail, "copy")
				case r < 88:
					err = s.Clear(y, 0, p7Bytes)
					my = 0
					trail = append(trail, "clear")
				case r < 92:
					if !want("a read of its snapshot", s, snap, msnap) {
						return
					}
					trail = append(trail, "read snapshot")
				case r < 96:
					if !want("a read of its buffer on the second stream", s2, y, my) {
						return
					}
					trail = append(trail, "read on s2")
				default:
					ctx, cancel := context.WithCancel(context.Background())
					cancel()
					if e := s.SyncContext(ctx); !errors.Is(e, context.Canceled) {
						fail("SyncContext with a cancelled context: %v", e)
						return
					}
					trail = append(trail, "cancelled sync")
				}
				if err != nil {
					fail("%v", err)
					return
				}
			}
			want("its buffer at the end", s, y, my)
		}()
	}
	p6WaitAll(t, &workers, 2*time.Minute, "the workers")
	close(stop)
	p6WaitAll(t, &wg, time.Minute, "the readers")
	errs.report(t)
	if t.Failed() {
		return
	}
	if started.Load() != completed.Load() {
		t.Fatalf("additions started %d, completed %d", started.Load(), completed.Load())
	}
	p7WantAll(t, "the counter counts every addition once", s, cnt, uint32(completed.Load()))
	t.Logf("replays from ramps: %d", s.MemoryStats().RampReplays)
}

// ---- 3: another stream's Read sees deferred replays ----

// TestProbe7AnotherStreamsReadSeesDeferredReplays: stream A (no flush
// timer, so replays counted against a ramp step stay deferred until a
// call of the device settles them) replays a 1-dispatch affine graph k
// times, k from 1 to 30 (inside the first step of 8, exactly at its end,
// inside the second of 16, at its end, past it); then stream B reads the
// buffer: it must see all k replays (a Read submits every stream's work
// first). Then B launches on the buffer and reads again, and A reads:
// everything in order. RampReplays must count the steps completed. Then
// k replays, A's Flush (or Sync), and a Write on B: the write lands after
// the replays (a Flush of the other stream orders a cross-stream Write).
func TestProbe7AnotherStreamsReadSeesDeferredReplays(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	a := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(0))
	b := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, p7AffineWGSL)
	x := gputest.UploadU32(t, a, p7Fill(1)...)
	op := p7Aff{3, 1}
	g := p7Capture(t, a, k, x, []p7Aff{op})
	mx := op.apply(1)
	for kk := 1; kk <= 30; kk++ {
		// Prime: a run of 40 plans steps of 8, 16 and 16 replays.
		for range 40 {
			p7Replay(t, g)
			mx = op.apply(mx)
		}
		if err := a.Sync(); err != nil {
			t.Fatal(err)
		}
		m0 := p7Settled(t, a)
		if m0.RampBuffers != 3 {
			t.Fatalf("a run of 40 replays plans 3 steps, got %d buffers", m0.RampBuffers)
		}
		for range kk {
			p7Replay(t, g)
			mx = op.apply(mx)
		}
		p7WantAll(t, fmt.Sprintf("stream B reads after %d replays on stream A", kk), b, x, mx)
		if err := p7Launch(b, k, x, p7Aff{1, 5}); err != nil {
			t.Fatal(err)
		}
		mx += 5
		p7WantAll(t, fmt.Sprintf("stream B reads its launch after %d replays on A", kk), b, x, mx)
		want := uint64(0)
		if kk >= 8 {
			want += 8
		}
		if kk >= 24 {
			want += 16
		}
		if got := a.MemoryStats().RampReplays - m0.RampReplays; got != want {
			t.Fatalf("%d replays: %d ran from the ramp, want %d", kk, got, want)
		}
		p7WantAll(t, fmt.Sprintf("stream A reads after %d replays", kk), a, x, mx)
		// A Write on another stream is ordered after this stream's
		// submitted work only: a Flush (or Sync) of this stream first
		// orders it after the replays counted and not yet encoded.
		for _, order := range []string{"Flush", "Sync"} {
			for range kk {
				p7Replay(t, g)
			}
			var err error
			if order == "Flush" {
				err = a.Flush()
			} else {
				err = a.Sync()
			}
			if err != nil {
				t.Fatal(err)
			}
			mx = uint32(1000 + kk)
			p7Write(t, b, x, mx)
			p7WantAll(t, fmt.Sprintf("%d replays on A, A's %s, then B's Write: B's Read", kk, order), b, x, mx)
			p7WantAll(t, fmt.Sprintf("%d replays on A, A's %s, then B's Write: A's Read", kk, order), a, x, mx)
		}
	}
}

// ---- 4: the flush timer submits deferred replays ----

// TestProbe7FlushTimerSubmitsDeferredReplays: stream A (flush delay
// 2 ms) replays a +1 graph k times against ramp steps and then does
// nothing; 40 ms later stream B writes the buffer and reads it. A queue
// write is ordered after submitted work only, so B must read exactly
// what it wrote if the timer submitted A's deferred replays within its
// delay; had they waited, B's Read would submit them after the write and
// read more. (Without a flush timer they wait: the control shows the test
// tells the two apart.)
func TestProbe7FlushTimerSubmitsDeferredReplays(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, p7AffineWGSL)
	b := gputest.Stream(t, d)
	run := func(t *testing.T, delay time.Duration, kk int) uint32 {
		a := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(delay))
		x := gputest.UploadU32(t, a, p7Fill(0)...)
		g := p7Capture(t, a, k, x, []p7Aff{{1, 1}})
		for range 300 { // steps of 8, 16, 32, 64 and 128 replays
			p7Replay(t, g)
		}
		p7WantAll(t, "the priming run", a, x, 301)
		if m := p7Settled(t, a); m.RampBuffers != 5 {
			t.Fatalf("a run of 300 replays plans 5 steps, got %d", m.RampBuffers)
		}
		for range kk {
			p7Replay(t, g)
		}
		time.Sleep(40 * time.Millisecond)
		p7Write(t, b, x, 1000)
		got := gputest.ReadU32(t, b, x)
		for i := range got {
			if got[i] != got[0] {
				t.Fatalf("element %d is %d, element 0 %d", i, got[i], got[0])
			}
		}
		p7WantAll(t, "stream A reads what B's read saw", a, x, got[0])
		return got[0]
	}
	for _, kk := range []int{1, 3, 7, 8, 13, 24, 30, 56, 100} {
		t.Run(fmt.Sprintf("%d replays", kk), func(t *testing.T) {
			if got := run(t, 2*time.Millisecond, kk); got != 1000 {
				t.Fatalf("after %d replays and 40 ms idle with a 2 ms flush delay, another stream's write then read gave %d, want 1000: %d of the replays were still unsubmitted after 20 flush delays", kk, got, got-1000)
			}
		})
	}
	t.Run("control: no flush timer", func(t *testing.T) {
		if got := run(t, 0, 3); got != 1003 {
			t.Logf("without a flush timer the 3 deferred replays were submitted anyway (read %d): this test cannot tell the timer's work apart here", got)
		}
	})
}

// ---- 5: Release racing counted replays ----

// TestProbe7ReleaseRacingCountedReplays: a short graph with a ready ramp
// is released (a) right after exactly k replays were counted against a
// step, k = 1..12, and (b) while two goroutines replay it in a loop until
// they get ErrReleased. Every replay that returned nil must run exactly
// once, and the stream must keep no ramp of the graph.
func TestProbe7ReleaseRacingCountedReplays(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, p7AffineWGSL)
	x := gputest.UploadU32(t, s, p7Fill(0)...)
	y := gputest.UploadU32(t, s, p7Fill(0)...)
	var mx, my uint32
	op := p7Aff{3, 1}
	prime := func(ops []p7Aff, buf *recorder.Buffer, m *uint32) *recorder.Graph {
		g := p7Capture(t, s, k, buf, ops)
		*m = p7Apply(ops, *m)
		for range 60 {
			p7Replay(t, g)
			*m = p7Apply(ops, *m)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		p7Settled(t, s)
		return g
	}
	for kk := 1; kk <= 12; kk++ {
		g := prime([]p7Aff{op}, x, &mx)
		// Another graph's ramp stays: its release must not disturb it.
		h := prime([]p7Aff{{1, 2}, {1, 3}}, y, &my)
		for range kk {
			p7Replay(t, g)
			mx = op.apply(mx)
		}
		g.Release()
		if err := g.Replay(); !errors.Is(err, recorder.ErrReleased) {
			t.Fatalf("Replay after Release: %v", err)
		}
		for range 5 {
			p7Replay(t, h)
			my += 5
		}
		h.Release()
		p7WantAll(t, fmt.Sprintf("%d replays counted, then Release", kk), s, x, mx)
		p7WantAll(t, "the other graph's replays", s, y, my)
		if m := s.MemoryStats(); m.Ramps != 0 || m.RampBuffers != 0 || m.RampPending != 0 {
			t.Fatalf("released graphs keep no ramp: %+v", m)
		}
	}
	rounds := 20
	if probe7Short() {
		rounds = 6
	}
	for round := range rounds {
		g := prime([]p7Aff{{1, 1}}, x, &mx)
		var ok atomic.Uint32
		var wg sync.WaitGroup
		var errs collect
		p7ReplayUntil(&wg, &errs, &ok, g, recorder.ErrReleased)
		time.Sleep(time.Duration(round%5) * 300 * time.Microsecond)
		g.Release()
		p6WaitAll(t, &wg, 30*time.Second, "replays racing Release")
		errs.report(t)
		mx += ok.Load()
		p7WantAll(t, fmt.Sprintf("round %d: %d replays racing Release", round, ok.Load()), s, x, mx)
	}
}

// ---- 6: Stream.Close racing counted replays ----

// TestProbe7StreamCloseRunsCountedReplays: stream A replays a short graph
// that adds to a buffer of stream B. A is closed (a) right after k
// replays were counted against a ramp step, and (b) while goroutines
// replay in a loop until ErrClosed. B, which stays open, must read
// exactly the replays that returned nil: Close submits the deferred ones.
// Once every stream is closed, no command buffer (ramp steps included),
// program or encoder is left alive (the ramp worker's encoder included).
func TestProbe7StreamCloseRunsCountedReplays(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	before := live(t, d)
	b := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, p7AffineWGSL)
	y := gputest.UploadU32(t, b, p7Fill(0)...)
	var my uint32
	open := func() (*recorder.Stream, *recorder.Graph) {
		a, err := recorder.New(d, recorder.WithPreEncode(true))
		if err != nil {
			t.Fatal(err)
		}
		g, err := a.Capture(func() error { return p7Launch(a, k, y, p7Aff{1, 1}) })
		if err != nil {
			t.Fatal(err)
		}
		my++
		for range 60 {
			p7Replay(t, g)
			my++
		}
		if err := a.Sync(); err != nil {
			t.Fatal(err)
		}
		if m := p7Settled(t, a); m.RampBuffers == 0 {
			t.Fatalf("no ramp was planned: %+v", m)
		}
		return a, g
	}
	defer func() {
		if t.Failed() {
			return
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		after := live(t, d)
		if after.CommandBuffers != before.CommandBuffers || after.Programs != before.Programs || after.Encoders != before.Encoders {
			t.Errorf("every stream closed: %d command buffers, %d programs and %d encoders alive, %d, %d and %d before", after.CommandBuffers, after.Programs, after.Encoders, before.CommandBuffers, before.Programs, before.Encoders)
		}
	}()
	for kk := 1; kk <= 10; kk++ {
		a, g := open()
		for range kk {
			p7Replay(t, g)
			my++
		}
		if err := a.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := g.Replay(); !errors.Is(err, recorder.ErrClosed) {
			t.Fatalf("Replay after Close: %v", err)
		}
		p7WantAll(t, fmt.Sprintf("%d replays counted, then Close", kk), b, y, my)
	}
	rounds := 15
	if probe7Short() {
		rounds = 5
	}
	for round := range rounds {
		a, g := open()
		var ok atomic.Uint32
		var wg sync.WaitGroup
		var errs collect
		p7ReplayUntil(&wg, &errs, &ok, g, recorder.ErrClosed)
		time.Sleep(time.Duration(round%4) * 400 * time.Microsecond)
		if err := within(t, 30*time.Second, "Close racing replays", a.Close); err != nil {
			t.Fatalf("Close: %v", err)
		}
		p6WaitAll(t, &wg, 30*time.Second, "replays racing Close")
		errs.report(t)
		my += ok.Load()
		p7WantAll(t, fmt.Sprintf("round %d: %d replays racing Close", round, ok.Load()), b, y, my)
	}
}

// ---- 7: Device.Close racing everything ----

// TestProbe7DeviceCloseRacingRampTraffic: two pre-encoding streams (one
// with the flush timer, one without) with primed ramps; goroutines replay
// short graphs in bursts, sync, read, write, flush, profile and
// read the other stream's buffers, when the device is
// closed under them. Every call returns nil or ErrClosed, none hangs, no
// process abort, the streams close, and a device opened afterwards
// computes. In a fresh process.
func TestProbe7DeviceCloseRacingRampTraffic(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		rounds := 8
		if probe7Short() {
			rounds = 3
		}
		for round := range rounds {
			p7DeviceCloseRound(t, round, time.Duration(round%4)*700*time.Microsecond)
			if t.Failed() {
				return
			}
		}
	})
}

func p7DeviceCloseRound(t *testing.T, round int, delay time.Duration) {
	d, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := gputest.Kernel(t, d, p7AffineWGSL)
	var errs collect
	var wg sync.WaitGroup
	stop := make(chan struct{})
	ready := make(chan struct{}, 64)
	closed := []error{wgpu.ErrClosed}
	var streams []*recorder.Stream
	var xs []*recorder.Buffer
	calls := 0
	for i, opts := range [][]recorder.Option{
		{recorder.WithPreEncode(true)},
		{recorder.WithPreEncode(true), recorder.WithFlushDelay(0)},
	} {
		s, err := recorder.New(d, opts...)
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, s)
		x := gputest.UploadU32(t, s, p7Fill(0)...)
		y := gputest.UploadU32(t, s, p7Fill(0)...)
		xs = append(xs, x)
		g1, err := s.Capture(func() error { return p7Launch(s, k, x, p7Aff{1, 1}) })
		if err != nil {
			t.Fatal(err)
		}
		g3, err := s.Capture(func() error {
			for _, o := range p7Shape(3) {
				if err := p7Launch(s, k, y, o); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for range 60 {
			p7Replay(t, g1)
			p7Replay(t, g3)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		p7Settled(t, s)
		burst := func(g *recorder.Graph) func() error {
			return func() error {
				for range 10 {
					if err := g.Replay(); err != nil {
						return err
					}
				}
				return nil
			}
		}
		name := func(op string) string { return fmt.Sprintf("round %d, stream %d: %s", round, i, op) }
		loops := []struct {
			what string
			call func() error
		}{
			{"Replay g1", burst(g1)},
			{"Replay g3", burst(g3)},
			{"Replay g1 again", burst(g1)},
			{"Sync", s.Sync},
			{"Read", func() error { _, err := s.Read(y); return err }},
			{"Write", func() error { return recorder.WriteSlice(s, x, 0, p7Fill(7)) }},
			{"Flush", s.Flush},
			{"ProfileReplay", func() error { _, err := s.ProfileReplay(g3); return err }},
			{"300 replays, then Sync (the worker encodes 5 steps)", func() error {
				for range 30 {
					if err := burst(g1)(); err != nil {
						return err
					}
				}
				return s.Sync()
			}},
		}
		if i == 1 {
			loops = append(loops, struct {
				what string
				call func() error
			}{"Read on the other stream", func() error { _, err := s.Read(xs[0]); return err }})
		}
		for _, l := range loops {
			p6Loop(&wg, &errs, ready, stop, name(l.what), l.call, closed...)
			calls++
		}
	}
	for range calls {
		<-ready
	}
	time.Sleep(delay)
	p6CloseDeviceUnderTraffic(t, d, &wg, streams, round, "Device.Close under ramp traffic", &errs)
	close(stop)
	errs.report(t)
}

// ---- 8: short graphs of every kind ----

// p7U32s reads b as u32s on s.
func p7U32s(t testing.TB, s *recorder.Stream, b *recorder.Buffer) []uint32 {
	t.Helper()
	return gputest.ReadU32(t, s, b)
}

// p7Runs replays g in runs of the given lengths, each ended by check (a
// sync point), waiting for the ramp worker after each; between replays,
// poke(run, i) may write inputs (stream order: the next replay sees the
// write, earlier ones do not). step applies one replay to the model. It
// wants ramps to have served some replays.
func p7Runs(t *testing.T, s *recorder.Stream, g *recorder.Graph, runs []int, step func(), poke func(run, i int), check func(what string)) {
	t.Helper()
	if g.Len() >= 64 || g.Len() == 0 {
		t.Fatalf("the graph has %d dispatches: not a short graph", g.Len())
	}
	before := s.MemoryStats().RampReplays
	for r, n := range runs {
		for i := range n {
			if poke != nil {
				poke(r, i)
			}
			p7Replay(t, g)
			step()
		}
		check(fmt.Sprintf("run %d (%d replays)", r, n))
		p7Settled(t, s)
	}
	if got := s.MemoryStats().RampReplays - before; got == 0 {
		t.Fatalf("no replay of the %d-dispatch graph ran from a ramp", g.Len())
	}
}

// TestProbe7ShortGraphsOfEveryKindReplayFromRamps: ramps of short graphs
// holding a While, an If, native copies and clears, storage and sampled
// textures; of a graph loaded from a file (with and without control
// flow); of a rebound graph alternating with its original; and of a graph
// that replays a child graph, captured right after the child's replays
// were counted against a ramp step. Runs of changing lengths, inputs
// rewritten between replays; every result must equal the Go model, and
// each graph must have run replays from its ramp.
func TestProbe7ShortGraphsOfEveryKindReplayFromRamps(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	aff := gputest.Kernel(t, d, p7AffineWGSL)
	runs := []int{5, 40, 3, 40, 1, 60, 17}

	for _, pred := range []bool{true, false} {
		pname := ""
		if !pred {
			pname = ", without predication"
		}
		t.Run("While"+pname, func(t *testing.T) {
			s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithPredication(pred))
			cd := gputest.Kernel(t, d, p7CountdownWGSL)
			st := gputest.UploadU32(t, s, 0, 0)
			g, err := s.Capture(func() error {
				return s.While(st, 0, 4, func() error { return s.Launch(cd, recorder.Groups(1, 1, 1), st) })
			})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			var left, done uint32
			rng := rand.New(rand.NewPCG(1, 2))
			step := func() {
				it := min(left, 4)
				left -= it
				done += it
			}
			poke := func(run, i int) {
				if i%7 == 3 {
					left = rng.Uint32N(7)
					if err := recorder.WriteSlice(s, st, 0, []uint32{left}); err != nil {
						t.Fatal(err)
					}
				}
			}
			p7Runs(t, s, g, runs, step, poke, func(what string) {
				gputest.WantEqual(t, what, []uint32{left, done}, p7U32s(t, s, st))
			})
			t.Run("loaded from a file", func(t *testing.T) {
				lg, bufs := p7SaveLoad(t, s, g, 1)
				defer lg.Release()
				lst := bufs[0]
				gputest.WantEqual(t, "the loaded contents", []uint32{left, done}, p7U32s(t, s, lst))
				p7Runs(t, s, lg, runs, step, func(run, i int) {
					if i%5 == 2 {
						left = rng.Uint32N(9)
						if err := recorder.WriteSlice(s, lst, 0, []uint32{left}); err != nil {
							t.Fatal(err)
						}
					}
				}, func(what string) {
					gputest.WantEqual(t, what, []uint32{left, done}, p7U32s(t, s, lst))
				})
			})
		})

		t.Run("If, and a rebound copy of it"+pname, func(t *testing.T) {
			s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithPredication(pred))
			x := gputest.UploadU32(t, s, p7Fill(1)...)
			x2 := gputest.UploadU32(t, s, p7Fill(2)...)
			flag := gputest.UploadU32(t, s, 1)
			g, err := s.Capture(func() error {
				if err := s.If(flag, 0, func() error { return p7Launch(s, aff, x, p7Aff{3, 1}) }); err != nil {
					return err
				}
				return p7Launch(s, aff, x, p7Aff{1, 1})
			})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			mx, mx2, on := uint32(5), uint32(2), true // the warmup ran with the flag set: 1·3+1+1
			rng := rand.New(rand.NewPCG(3, 4))
			apply := func(v uint32) uint32 {
				if on {
					v = 3*v + 1
				}
				return v + 1
			}
			poke := func(run, i int) {
				if i%6 == 1 {
					on = rng.IntN(2) == 0
					v := uint32(0)
					if on {
						v = 1 + rng.Uint32N(100)
					}
					if err := recorder.WriteSlice(s, flag, 0, []uint32{v}); err != nil {
						t.Fatal(err)
					}
				}
			}
			p7Runs(t, s, g, runs, func() { mx = apply(mx) }, poke, func(what string) {
				p7WantAll(t, what, s, x, mx)
			})
			rg, err := g.Rebind(x, x2)
			if err != nil {
				t.Fatal(err)
			}
			defer rg.Release()
			// Alternating runs of the rebound graph and the original: each
			// keeps its own ramp.
			for r, n := range []int{30, 30, 9, 30, 12, 30} {
				gg, m := g, &mx
				if r%2 == 0 {
					gg, m = rg, &mx2
				}
				p7Runs(t, s, gg, []int{n, n}, func() { *m = apply(*m) }, poke, func(what string) {
					p7WantAll(t, fmt.Sprintf("alternation %d, %s: the original's buffer", r, what), s, x, mx)
					p7WantAll(t, fmt.Sprintf("alternation %d, %s: the rebound buffer", r, what), s, x2, mx2)
				})
			}
			// The original released (between counted replays of the
			// rebound graph, which shares its bind groups and gates).
			for range 5 {
				p7Replay(t, rg)
				mx2 = apply(mx2)
			}
			g.Release()
			p7Runs(t, s, rg, []int{30, 30}, func() { mx2 = apply(mx2) }, poke, func(what string) {
				p7WantAll(t, "the original released: "+what, s, x2, mx2)
			})
		})

	}

	t.Run("copies and clears", func(t *testing.T) {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true))
		acc := gputest.Kernel(t, d, p7AccWGSL)
		x := gputest.UploadU32(t, s, p7Fill(0)...)
		y := gputest.UploadU32(t, s, p7Fill(0)...)
		z := gputest.UploadU32(t, s, p7Fill(0)...)
		step := func() error {
			if err := p7Launch(s, aff, x, p7Aff{1, 1}); err != nil {
				return err
			}
			if err := s.Copy(y, 0, x, 0, p7Bytes); err != nil {
				return err
			}
			if err := s.Clear(z, 0, p7Bytes/2); err != nil {
				return err
			}
			return s.Launch(acc, recorder.Groups(1, 1, 1), y, z)
		}
		g, err := s.Capture(step)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Release()
		// The model: x += 1; y = x; z[:32] = 0; z += y.
		mx := make([]uint32, p7Elems)
		my := make([]uint32, p7Elems)
		mz := make([]uint32, p7Elems)
		model := func() {
			for i := range mx {
				mx[i]++
				my[i] = mx[i]
				if i < p7Elems/2 {
					mz[i] = 0
				}
				mz[i] += my[i]
			}
		}
		model() // the warmup
		rng := rand.New(rand.NewPCG(5, 6))
		poke := func(run, i int) {
			if i%9 == 4 {
				for j := range mx {
					mx[j] = rng.Uint32N(1000)
				}
				if err := recorder.WriteSlice(s, x, 0, mx); err != nil {
					t.Fatal(err)
				}
			}
		}
		check := func(what string) {
			gputest.WantEqual(t, what+": x", mx, p7U32s(t, s, x))
			gputest.WantEqual(t, what+": y", my, p7U32s(t, s, y))
			gputest.WantEqual(t, what+": z", mz, p7U32s(t, s, z))
		}
		p7Runs(t, s, g, runs, model, poke, check)
		t.Run("loaded from a file", func(t *testing.T) {
			lg, bufs := p7SaveLoad(t, s, g, 3)
			defer lg.Release()
			lx, ly, lz := bufs[0], bufs[1], bufs[2]
			gputest.WantEqual(t, "loaded x", mx, p7U32s(t, s, lx))
			gputest.WantEqual(t, "loaded z", mz, p7U32s(t, s, lz))
			p7Runs(t, s, lg, runs, model, func(run, i int) {
				if i%9 == 4 {
					for j := range mx {
						mx[j] = rng.Uint32N(1000)
					}
					if err := recorder.WriteSlice(s, lx, 0, mx); err != nil {
						t.Fatal(err)
					}
				}
			}, func(what string) {
				gputest.WantEqual(t, what+": x", mx, p7U32s(t, s, lx))
				gputest.WantEqual(t, what+": y", my, p7U32s(t, s, ly))
				gputest.WantEqual(t, what+": z", mz, p7U32s(t, s, lz))
			})
		})
	})

	t.Run("textures", func(t *testing.T) {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true))
		store := gputest.Kernel(t, d, p7TexStoreWGSL)
		load := gputest.Kernel(t, d, p7TexLoadWGSL)
		mx := make([]uint32, p7Elems)
		for i := range mx {
			mx[i] = uint32(i)
		}
		x := gputest.UploadU32(t, s, mx...)
		y := gputest.UploadU32(t, s, p7Fill(0)...)
		tex, err := s.NewTexture(recorder.TextureDesc{Width: 8, Height: 8, Format: "r32uint"})
		if err != nil {
			t.Fatal(err)
		}
		defer tex.Release()
		g, err := s.Capture(func() error {
			if err := p7Launch(s, aff, x, p7Aff{1, 1}); err != nil {
				return err
			}
			if err := s.Launch(store, recorder.Groups(1, 1, 1), x, tex); err != nil {
				return err
			}
			return s.Launch(load, recorder.Groups(1, 1, 1), tex, y)
		})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Release()
		my := make([]uint32, p7Elems)
		model := func() {
			for i := range mx {
				mx[i]++
				my[i] += mx[i]
			}
		}
		model()
		mtex := append([]uint32(nil), mx...)
		step := func() {
			model()
			copy(mtex, mx)
		}
		other := gputest.Stream(t, d)
		texels := func(raw []byte) []uint32 {
			out := make([]uint32, p7Elems)
			for i := range out {
				out[i] = binary.LittleEndian.Uint32(raw[4*i:])
			}
			return out
		}
		rng := rand.New(rand.NewPCG(7, 8))
		p7Runs(t, s, g, runs, step, func(run, i int) {
			if i%10 == 7 {
				// Another stream's ReadTexture submits this stream's
				// counted replays first.
				raw, err := other.ReadTexture(tex)
				if err != nil {
					t.Fatal(err)
				}
				gputest.WantEqual(t, fmt.Sprintf("run %d, before replay %d: the texture read on another stream", run, i), mtex, texels(raw))
			}
			if i%10 == 3 {
				// Releasing a texture drops the stream's cached bind
				// groups: the graph's, and its ramp's, stay alive.
				tmp, err := s.NewTexture(recorder.TextureDesc{Width: 8, Height: 8, Format: "r32uint"})
				if err != nil {
					t.Fatal(err)
				}
				tmp.Release()
			}
			if i%8 == 5 {
				for j := range mx {
					mx[j] = rng.Uint32N(1 << 16)
				}
				if err := recorder.WriteSlice(s, x, 0, mx); err != nil {
					t.Fatal(err)
				}
			}
		}, func(what string) {
			gputest.WantEqual(t, what+": x", mx, p7U32s(t, s, x))
			gputest.WantEqual(t, what+": y", my, p7U32s(t, s, y))
			raw, err := s.ReadTexture(tex)
			if err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, what+": the texture", mtex, texels(raw))
		})
	})

	t.Run("Save between counted replays", func(t *testing.T) {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(0))
		x := gputest.UploadU32(t, s, p7Fill(2)...)
		op := p7Aff{3, 1}
		g := p7Capture(t, s, aff, x, []p7Aff{op})
		mx := op.apply(2)
		for round := range 4 {
			for range 40 {
				p7Replay(t, g)
				mx = op.apply(mx)
			}
			p7WantAll(t, "the priming run", s, x, mx)
			p7Settled(t, s)
			// Counted against the first step (of 8), not yet encoded: a
			// snapshot of the graph's memory must include them.
			for range 3 + round {
				p7Replay(t, g)
				mx = op.apply(mx)
			}
			lg, bufs := p7SaveLoad(t, s, g, 1)
			p7WantAll(t, fmt.Sprintf("round %d: the saved contents after %d counted replays", round, 3+round), s, bufs[0], mx)
			lg.Release()
			p7WantAll(t, "the buffer", s, x, mx)
		}
	})

	t.Run("an eager While whose body replays a short graph", func(t *testing.T) {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true))
		cd := gputest.Kernel(t, d, p7CountdownWGSL)
		st := gputest.UploadU32(t, s, 0, 0)
		x := gputest.UploadU32(t, s, p7Fill(0)...)
		dec, err := s.Capture(func() error { return s.Launch(cd, recorder.Groups(1, 1, 1), st) })
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Release()
		inc := p7Capture(t, s, aff, x, []p7Aff{{1, 1}})
		left, done, mx := uint32(0), uint32(0), uint32(1)
		before := s.MemoryStats().RampReplays
		for round, n := range []uint32{20, 1, 7, 30} {
			left = n
			if err := recorder.WriteSlice(s, st, 0, []uint32{left}); err != nil {
				t.Fatal(err)
			}
			// Every iteration reads the condition (a sync point, which
			// plans the graphs' ramps from the iteration's replays), then
			// replays the countdown once and the +1 three times.
			err := s.While(st, 0, 1000, func() error {
				if err := dec.Replay(); err != nil {
					return err
				}
				for range 3 {
					if err := inc.Replay(); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			done += left
			mx += 3 * left
			left = 0
			gputest.WantEqual(t, fmt.Sprintf("round %d: the countdown", round), []uint32{left, done}, p7U32s(t, s, st))
			p7WantAll(t, fmt.Sprintf("round %d: the +1s", round), s, x, mx)
		}
		if s.MemoryStats().RampReplays == before {
			t.Fatalf("no replay in the eager While's body ran from a ramp")
		}
	})

	t.Run("a child graph, captured between counted replays", func(t *testing.T) {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(0))
		x := gputest.UploadU32(t, s, p7Fill(1)...)
		childOp := p7Aff{3, 1}
		child := p7Capture(t, s, aff, x, []p7Aff{childOp})
		mx := childOp.apply(1)
		for range 40 {
			p7Replay(t, child)
			mx = childOp.apply(mx)
		}
		p7WantAll(t, "the child's priming run", s, x, mx)
		p7Settled(t, s)
		// 5 replays counted against the child's first step (of 8), then
		// a capture whose warmup replays the child too (in the Prepare
		// state, against the same step): the warmup's launch must come
		// after the 5, and the warmup's child replays where called.
		for range 5 {
			p7Replay(t, child)
			mx = childOp.apply(mx)
		}
		body := []p7Aff{childOp, {1, 10}, childOp}
		parent, err := s.Capture(func() error {
			if err := child.Replay(); err != nil {
				return err
			}
			if err := p7Launch(s, aff, x, p7Aff{1, 10}); err != nil {
				return err
			}
			return child.Replay()
		})
		if err != nil {
			t.Fatal(err)
		}
		defer parent.Release()
		mx = p7Apply(body, mx)
		p7WantAll(t, "5 counted replays, then a capture replaying the child", s, x, mx)
		// An abandoned capture whose warmup replayed the child: the
		// warmup ran, in order.
		if err := s.GraphPrepare(); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			p7Replay(t, child)
			mx = childOp.apply(mx)
		}
		if err := p7Launch(s, aff, x, p7Aff{1, 4}); err != nil {
			t.Fatal(err)
		}
		mx += 4
		if err := s.AbortCapture(); err != nil {
			t.Fatal(err)
		}
		p7WantAll(t, "a warmup replaying the child, then AbortCapture", s, x, mx)
		rng := rand.New(rand.NewPCG(9, 10))
		p7Runs(t, s, parent, runs, func() { mx = p7Apply(body, mx) }, func(run, i int) {
			if i%11 == 6 {
				mx = rng.Uint32N(1000)
				p7Write(t, s, x, mx)
			}
			if i%13 == 12 {
				p7Replay(t, child)
				mx = childOp.apply(mx)
			}
		}, func(what string) { p7WantAll(t, what, s, x, mx) })
	})
}

// ---- 9: deadlines while replays are deferred ----

// TestProbe7DeadlinesWhileReplaysAreDeferred: one goroutine replays two
// short +1 graphs in bursts; another calls SyncContext and ReadContext
// with deadlines from 1 µs to 300 µs (and already cancelled ones), which
// may fail with the context's error but must neither lose nor repeat a
// replay; at the end one Read counts every replay that returned nil.
func TestProbe7DeadlinesWhileReplaysAreDeferred(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, p7AffineWGSL)
	x := gputest.UploadU32(t, s, p7Fill(0)...)
	g1 := p7Capture(t, s, k, x, []p7Aff{{1, 1}})
	g2 := p7Capture(t, s, k, x, []p7Aff{{1, 1}, {1, 1}})
	var total atomic.Uint64
	total.Store(3)
	for range 60 {
		p7Replay(t, g1)
		p7Replay(t, g2)
		total.Add(3)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	p7Settled(t, s)
	bursts := 300
	if probe7Short() {
		bursts = 80
	}
	var errs collect
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		rng := rand.New(rand.NewPCG(11, 12))
		for range bursts {
			g, inc := g1, uint64(1)
			if rng.IntN(2) == 0 {
				g, inc = g2, 2
			}
			for range 1 + rng.IntN(30) {
				if err := g.Replay(); err != nil {
					errs.add(err)
					return
				}
				total.Add(inc)
			}
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-done:
				return
			default:
			}
			var ctx context.Context
			var cancel context.CancelFunc
			if n%5 == 0 {
				ctx, cancel = context.WithCancel(context.Background())
				cancel()
			} else {
				ctx, cancel = context.WithTimeout(context.Background(), time.Duration(1+(n*37)%300)*time.Microsecond)
			}
			var err error
			if n%2 == 0 {
				err = s.SyncContext(ctx)
			} else {
				var v []byte
				v, err = s.ReadContext(ctx, x)
				if err == nil && len(v) != p7Bytes {
					errs.add(fmt.Errorf("ReadContext returned %d bytes", len(v)))
				}
			}
			cancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				errs.add(fmt.Errorf("call %d with a deadline: %v", n, err))
				return
			}
		}
	}()
	p6WaitAll(t, &wg, time.Minute, "replays and deadlines")
	errs.report(t)
	p7WantAll(t, "every replay ran once", s, x, uint32(total.Load()))
}

// ---- 10: no allocation per replay from a ramp ----

// TestProbe7ReplayFromARampAllocatesNothing: replays of a 1-dispatch
// graph counted against ready ramp steps, and the steps joining the batch
// and going to the submitter, allocate nothing.
func TestProbe7ReplayFromARampAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	d := gputest.Open(t, wgpu.Options{})
	// No flush timer: a pause of the test goroutine cannot settle a count.
	s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(0))
	k := gputest.Kernel(t, d, p7AffineWGSL)
	x := gputest.UploadU32(t, s, p7Fill(0)...)
	g := p7Capture(t, s, k, x, []p7Aff{{1, 1}})
	total := uint32(1)
	var allocs []float64
	for round := range 4 {
		for range 300 { // steps of 8, 16, 32, 64 and 128 replays
			p7Replay(t, g)
			total++
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		m := p7Settled(t, s)
		if m.RampBuffers != 5 {
			t.Fatalf("round %d: a run of 300 plans 5 steps, %d ready", round, m.RampBuffers)
		}
		before := m.RampReplays
		// 201 replays: steps of 8, 16, 32 and 64 complete (120), 81 count
		// against the last.
		a := testing.AllocsPerRun(200, func() {
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
		})
		total += 201
		allocs = append(allocs, a)
		if got := s.MemoryStats().RampReplays - before; got < 120 {
			t.Fatalf("round %d: %d of the measured replays ran from the ramp, want at least 120", round, got)
		}
		p7WantAll(t, fmt.Sprintf("round %d", round), s, x, total)
	}
	slack := 0.0
	if d.Info().Backend == wgpu.BackendGL {
		slack = 4
	}
	// The first round may still grow the stream's lists, and one later
	// round may grow a pool under a loaded host's timing (one more batch
	// in flight than ever before); an allocation per replay shows in all.
	if p7RoundsOver(allocs[1:], slack) > 1 {
		t.Fatalf("a replay from a ramp allocates: %v allocations per replay by round", allocs)
	}
	// Two short graphs alternating, both with ramps: every replay settles
	// the other's counted replays (or finds live work in the batch).
	h := p7Capture(t, s, k, x, []p7Aff{{1, 1}, {1, 1}})
	total += 2
	var mixed []float64
	for round := range 3 {
		for range 100 {
			p7Replay(t, g)
			p7Replay(t, h)
			total += 3
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		p7Settled(t, s)
		a := testing.AllocsPerRun(100, func() {
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			if err := h.Replay(); err != nil {
				t.Fatal(err)
			}
		})
		total += 3 * 101
		mixed = append(mixed, a)
		p7WantAll(t, fmt.Sprintf("alternating round %d", round), s, x, total)
	}
	if p7RoundsOver(mixed[1:], 2*slack) > 1 {
		t.Fatalf("alternating replays of two short graphs with ramps allocate: %v allocations per pair by round", mixed)
	}
}

// p7RoundsOver counts the rounds that allocated more than slack per call.
func p7RoundsOver(allocs []float64, slack float64) int {
	n := 0
	for _, a := range allocs {
		if a > slack {
			n++
		}
	}
	return n
}

// ---- 11: releases racing replays and sync points of many graphs ----

// TestProbe7ReleasesRacingReplaysOfManyShortGraphs: 24 short graphs (1 to
// 5 dispatches of +1 on a counter of another stream) on one pre-encoding
// stream; three goroutines replay random ones in bursts and call Sync or
// Read now and then (each sync point plans ramps, at most 4, for graphs
// another goroutine may be releasing), while a fourth releases the graphs
// one by one at random moments (while their replays are counted against a
// step, while the ramp worker encodes their steps, while they are planned).
// A replay answers nil, and then runs exactly once, or ErrReleased. At
// the end the counter holds every replay that returned nil, and once every
// graph is released the stream keeps no ramp, no command buffer or
// program is left alive, and no page stays pinned.
func TestProbe7ReleasesRacingReplaysOfManyShortGraphs(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	b := gputest.Stream(t, d)
	s := gputest.Stream(t, d, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, p7AffineWGSL)
	c := gputest.UploadU32(t, b, p7Fill(0)...)
	rounds := 3
	if probe7Short() {
		rounds = 1
	}
	var total atomic.Uint64
	before := live(t, d)
	inUse := b.MemoryStats().InUse
	for round := range rounds {
		const n = 24
		graphs := make([]*recorder.Graph, n)
		adds := make([]uint64, n)
		for i := range graphs {
			l := 1 + i%5
			ops := make([]p7Aff, l)
			for j := range ops {
				ops[j] = p7Aff{1, 1}
			}
			graphs[i] = p7Capture(t, s, k, c, ops)
			adds[i] = uint64(l)
			total.Add(uint64(l))
		}
		// Prime: ramps for the first graphs replayed.
		for i := range graphs {
			for range 10 {
				p7Replay(t, graphs[i])
				total.Add(adds[i])
			}
			if i%3 == 2 {
				if err := s.Sync(); err != nil {
					t.Fatal(err)
				}
			}
		}
		var errs collect
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				for {
					select {
					case <-stop:
						return
					default:
					}
					i := rng.IntN(n)
					for range 1 + rng.IntN(30) {
						err := graphs[i].Replay()
						if errors.Is(err, recorder.ErrReleased) {
							break
						}
						if err != nil {
							errs.add(fmt.Errorf("replay of graph %d: %v", i, err))
							return
						}
						total.Add(adds[i])
					}
					switch rng.IntN(6) {
					case 0:
						if err := s.Sync(); err != nil {
							errs.add(err)
							return
						}
					case 1:
						if _, err := s.Read(c); err != nil {
							errs.add(err)
							return
						}
					case 2:
						if m := s.MemoryStats(); m.Ramps > 4 {
							errs.add(fmt.Errorf("%d ramps: at most 4 are kept", m.Ramps))
							return
						}
					}
				}
			}()
		}
		rng := rand.New(rand.NewPCG(uint64(round), 77))
		for _, i := range rng.Perm(n) {
			time.Sleep(time.Duration(rng.IntN(1500)) * time.Microsecond)
			graphs[i].Release()
		}
		time.Sleep(2 * time.Millisecond)
		close(stop)
		p6WaitAll(t, &wg, time.Minute, "replays racing releases")
		errs.report(t)
		if t.Failed() {
			return
		}
		p7WantAll(t, fmt.Sprintf("round %d: every replay that returned nil ran once", round), b, c, uint32(total.Load()))
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		if m := s.MemoryStats(); m.Ramps != 0 || m.RampBuffers != 0 || m.RampPending != 0 {
			t.Fatalf("round %d: every graph is released, yet the stream keeps ramps: %d ramps, %d buffers, %d pending", round, m.Ramps, m.RampBuffers, m.RampPending)
		}
		// Nothing of the graphs and their ramps is left: no command
		// buffer, no program, no pinned page of the counter's stream.
		if err := b.Sync(); err != nil {
			t.Fatal(err)
		}
		after := live(t, d)
		if after.CommandBuffers != before.CommandBuffers || after.Programs != before.Programs {
			t.Fatalf("round %d: after releasing every graph, %d command buffers and %d programs are alive, %d and %d before", round, after.CommandBuffers, after.Programs, before.CommandBuffers, before.Programs)
		}
		if got := b.MemoryStats().InUse; got != inUse {
			t.Fatalf("round %d: the counter's stream has %d bytes in use, %d before the graphs: a released graph's pages are still held", round, got, inUse)
		}
	}
}

// ---- 12: what MemoryStats says about ramps between sync points ----

// TestProbe7RampPendingCountsOnlyStepsBeingEncoded: MemoryStats documents
// RampPending as the ramp steps "planned at the last sync point and still
// being encoded". After the worker has encoded a ramp and a run has used
// some of its steps, nothing is being encoded until the next sync point:
// RampPending must be 0 and RampBuffers the steps left. (A caller waiting
// for RampPending to reach 0, as examples/graphbench does after Sync,
// would otherwise wait forever when it asks between sync points.)
func TestProbe7RampPendingCountsOnlyStepsBeingEncoded(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	// No flush timer: a pause of the test goroutine cannot settle a count.
	s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(0))
	k := gputest.Kernel(t, d, p7AffineWGSL)
	x := gputest.UploadU32(t, s, p7Fill(0)...)
	g := p7Capture(t, s, k, x, []p7Aff{{1, 1}})
	for range 300 { // steps of 8, 16, 32, 64 and 128 replays
		p7Replay(t, g)
	}
	p7WantAll(t, "the priming run", s, x, 301)
	m0 := p7Settled(t, s)
	if m0.RampBuffers != 5 {
		t.Fatalf("a run of 300 plans 5 steps, %d ready", m0.RampBuffers)
	}
	for range 30 { // the steps of 8 and 16, then 6 counted against the third
		p7Replay(t, g)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	m := s.MemoryStats()
	if used := m.RampReplays - m0.RampReplays; used != 24 {
		t.Fatalf("30 replays after a sync point: %d ran from the ramp, want 24 (the steps of 8 and 16)", used)
	}
	deadline := time.Now().Add(time.Second)
	for m.RampPending != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		m = s.MemoryStats()
	}
	if m.RampPending != 0 || m.RampBuffers != 3 {
		t.Fatalf("two of five steps used, the worker idle for 1 s: RampBuffers %d (want 3), RampPending %d (want 0: nothing is being encoded; the used steps are encoded again only at the next sync point)", m.RampBuffers, m.RampPending)
	}
	p7WantAll(t, "the run", s, x, 331)
}

// ---- 13: ramps behind long GPU work ----

// TestProbe7RampsBehindLongGPUWork: a short graph whose one dispatch takes
// about half a millisecond on this adapter (spinWGSL, which adds 1 to
// its buffer) is replayed in runs of 300 behind its ramp: the GPU falls
// behind, the submitter waits for it (at most 8 submissions unfinished),
// batches pile up and the stream stalls, so ramp steps join batches that
// are not handed off at once and the flush timer retries them. Between
// replays: writes of the graph's buffer (which must wait for the
// replays before them and stay behind those after), launches, reads on
// another stream, flushes. Every read must equal the Go model.
func TestProbe7RampsBehindLongGPUWork(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, recorder.WithPreEncode(true))
	other := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, spinWGSL)
	x := gputest.Upload(t, s, gputest.Fill(p7Elems, 0))
	// The calibration's one launch includes a sync's overhead: four
	// times its groups make the GPU the bottleneck.
	groups := 4 * p6SpinGroups(t, d, s, k, x, 500*time.Microsecond)
	mx := gputest.Read(t, s, x)[0]
	g, err := s.Capture(func() error { return s.Launch(k, recorder.Groups(groups, 1, 1), x, gputest.U32(spinIters)) })
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	mx++
	runs := 4
	if probe7Short() {
		runs = 2
	}
	rng := rand.New(rand.NewPCG(13, 14))
	before := s.MemoryStats().RampReplays
	for run := range runs {
		for i := range 300 {
			p7Replay(t, g)
			mx++
			switch rng.IntN(40) {
			case 0:
				mx = float32(rng.IntN(1000))
				if err := recorder.WriteSlice(s, x, 0, gputest.Fill(p7Elems, mx)); err != nil {
					t.Fatal(err)
				}
			case 1:
				if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.U32(1)); err != nil {
					t.Fatal(err)
				}
				mx++
			case 2:
				gputest.WantFloats(t, fmt.Sprintf("run %d, replay %d: a read on another stream", run, i), gputest.Fill(p7Elems, mx), gputest.Read(t, other, x))
			case 3:
				if err := s.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		gputest.WantFloats(t, fmt.Sprintf("run %d", run), gputest.Fill(p7Elems, mx), gputest.Read(t, s, x))
		p7Settled(t, s)
	}
	if s.MemoryStats().RampReplays == before {
		t.Fatalf("no replay ran from a ramp")
	}
}

// p7SaveLoad saves g with its contents, loads the file on s and checks
// the loaded graph makes want buffers; the caller releases the graph.
func p7SaveLoad(t *testing.T, s *recorder.Stream, g *recorder.Graph, want int) (*recorder.Graph, []*recorder.Buffer) {
	t.Helper()
	var file bytes.Buffer
	if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatal(err)
	}
	lg, err := s.LoadGraph(&file)
	if err != nil {
		t.Fatal(err)
	}
	bufs := lg.Buffers()
	if len(bufs) != want {
		lg.Release()
		t.Fatalf("the loaded graph makes %d buffers, want %d", len(bufs), want)
	}
	return lg, bufs
}

// p7ReplayUntil starts two goroutines that replay g until it fails with
// end, counting the replays that returned nil in ok; any other error goes
// to errs.
func p7ReplayUntil(wg *sync.WaitGroup, errs *collect, ok *atomic.Uint32, g *recorder.Graph, end error) {
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				err := g.Replay()
				if errors.Is(err, end) {
					return
				}
				if err != nil {
					errs.add(err)
					return
				}
				ok.Add(1)
			}
		}()
	}
}

// probe7Short is testing.Short, and also true on Windows: CI runs the
// Windows binaries under wine, several times slower than natively, with a
// budget of five minutes for the whole tests package.
func probe7Short() bool { return testing.Short() || runtime.GOOS == "windows" }
