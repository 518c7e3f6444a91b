package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/softgraph/softgraph/internal/lockrank"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// rampElems is the size of the buffers the tests count in (one workgroup).
const rampElems = 64

// rampBytes is a rampElems buffer's size in bytes.
const rampBytes = rampElems * 4

// affineWGSL: x = x·p.m + p.a over the whole buffer, in u32.
const affineWGSL = `
struct P { m: u32, a: u32 }
@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] * p.m + p.a; }
}
`

// accWGSL: dst += src, in u32.
const accWGSL = `
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&dst)) { dst[id.x] = dst[id.x] + src[id.x]; }
}
`

// rampCountdownWGSL: one While iteration: st[0]-- and st[1]++ while st[0] > 0.
const rampCountdownWGSL = `
@group(0) @binding(0) var<storage, read_write> st: array<u32>;
@compute @workgroup_size(1)
fn main() {
	if (st[0] > 0u) { st[0] = st[0] - 1u; st[1] = st[1] + 1u; }
}
`

// texStoreWGSL stores x (64 u32s) into an 8×8 r32uint texture.
const texStoreWGSL = `
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var t: texture_storage_2d<r32uint, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	textureStore(t, vec2<i32>(id.xy), vec4<u32>(x[id.y * 8u + id.x], 0u, 0u, 1u));
}
`

// texLoadWGSL adds the 8×8 r32uint texture into y.
const texLoadWGSL = `
@group(0) @binding(0) var t: texture_2d<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.y * 8u + id.x;
	y[i] = y[i] + textureLoad(t, vec2<i32>(id.xy), 0).x;
}
`

// affine is one launch of affineWGSL: v·m + a.
type affine struct{ m, a uint32 }

func (o affine) apply(v uint32) uint32 { return v*o.m + o.a }

// applyAffines applies ops in order.
func applyAffines(ops []affine, v uint32) uint32 {
	for _, o := range ops {
		v = o.apply(v)
	}
	return v
}

// fillU32 is rampElems copies of v.
func fillU32(v uint32) []uint32 {
	out := make([]uint32, rampElems)
	for i := range out {
		out[i] = v
	}
	return out
}

// affineShape is a graph of l launches mixing ×3 and + so that order shows.
func affineShape(l int) []affine {
	ops := make([]affine, l)
	for i := range ops {
		if i%3 == 0 {
			ops[i] = affine{3, uint32(i + 1)}
		} else {
			ops[i] = affine{1, uint32(2*i + 1)}
		}
	}
	return ops
}

// launchAffine enqueues one affine launch on x.
func launchAffine(s *recorder.Stream, k *wgpu.Kernel, x *recorder.Buffer, o affine) error {
	return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.U32(o.m, o.a))
}

// captureAffines captures ops on x (the warmup runs them once: the caller's
// model applies them) and releases the graph when the test ends.
func captureAffines(t testing.TB, s *recorder.Stream, k *wgpu.Kernel, x *recorder.Buffer, ops []affine) *recorder.Graph {
	t.Helper()
	g, err := s.Capture(func() error {
		for _, o := range ops {
			if err := launchAffine(s, k, x, o); err != nil {
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

// wantAllU32 reads b on s and wants every element equal to v.
func wantAllU32(t testing.TB, what string, s *recorder.Stream, b *recorder.Buffer, v uint32) {
	t.Helper()
	gputest.WantEqual(t, what, fillU32(v), gputest.ReadU32(t, s, b))
}

// writeU32 writes v into every element of b.
func writeU32(t testing.TB, s *recorder.Stream, b *recorder.Buffer, v uint32) {
	t.Helper()
	if err := recorder.WriteSlice(s, b, 0, fillU32(v)); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

// settledStats waits until the stream's ramp worker has encoded every step
// planned (RampPending 0) and returns the stats.
func settledStats(t testing.TB, s *recorder.Stream) recorder.MemoryStats {
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

// mustReplay replays g, failing t on error.
func mustReplay(t testing.TB, g *recorder.Graph) {
	t.Helper()
	if err := g.Replay(); err != nil {
		t.Fatalf("Replay: %v", err)
	}
}

// rampPlan is internal/engine's RampPlan, restated from its documentation: step k
// holds 8·2^k dispatches' worth of replays (at least one), up to five
// steps, until the steps cover the last run's replays.
func rampPlan(l, replays int) []int {
	var plan []int
	left := replays
	for k := 0; k < 5 && left > 0; k++ {
		r := min(max((8<<k)/l, 1), left)
		plan = append(plan, r)
		left -= r
	}
	return plan
}

// rampSimGraph is one graph's ramp in the model.
type rampSimGraph struct {
	l        int   // dispatches
	hasRamp  bool  // the stream keeps a ramp for it
	plan     []int // its steps' replays
	pos      int   // the step the next replays count against
	idle     int   // sync points since it was last replayed
	run      int   // replays since the last sync point
	released bool
}

// rampSim models the ramps of one stream: which graphs have one, which
// steps are planned, and how many replays ran from them (RampReplays),
// for a single goroutine whose every step is ready when its run begins.
type rampSim struct {
	def       *rampSimGraph // the graph with replays counted against a step
	count     int
	touched   []*rampSimGraph
	ramps     []*rampSimGraph
	served    uint64
	profiling bool
}

func (m *rampSim) settle() { m.def, m.count = nil, 0 }

func (m *rampSim) replay(g *rampSimGraph) {
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
func (m *rampSim) sync() {
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
		g.plan = rampPlan(g.l, n)
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

func (m *rampSim) release(g *rampSimGraph) {
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
func (m *rampSim) buffers() int {
	n := 0
	for _, r := range m.ramps {
		n += len(r.plan)
	}
	return n
}

// TestRampScheduleFollowsItsModel drives one stream from one
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
func TestRampScheduleFollowsItsModel(t *testing.T) {
	skipIfShort(t)
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
		t.Run(c.name, func(t *testing.T) { rampSchedule(t, c.timer, c.opts) })
	}
}

type rampSchedGraph struct {
	g   *recorder.Graph
	ops []affine
	sim *rampSimGraph
}

// rampScheduleRun is one run of TestRampScheduleFollowsItsModel: the
// stream, the graphs it replays and the Go models of x, the snapshot and
// the ramp plan.
type rampScheduleRun struct {
	t         *testing.T
	timer     bool // the stream has a flush timer
	s, other  *recorder.Stream
	k         *wgpu.Kernel
	x, snap   *recorder.Buffer
	mx, msnap uint32   // the models of x and snap
	sim       rampSim  // the model of the ramp plan
	log       []string // the ops of the current segment, for failure messages
	graphs    []rampSchedGraph
	saved     []byte // graphs[2] saved
	rng       *rand.Rand
}

func rampSchedule(t *testing.T, timer bool, opts []recorder.Option) {
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, append([]recorder.Option{recorder.WithPreEncode(true)}, opts...)...)
	other := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, affineWGSL)
	x := gputest.UploadU32(t, s, fillU32(0)...)
	snap := gputest.UploadU32(t, s, fillU32(0)...)
	sc := &rampScheduleRun{t: t, timer: timer, s: s, other: other, k: k, x: x, snap: snap, rng: rand.New(rand.NewPCG(7, 77))}
	for _, l := range []int{1, 2, 3, 9, 33, 63, 64} {
		sc.graphs = append(sc.graphs, sc.capture(affineShape(l)))
	}
	var file bytes.Buffer
	if _, err := sc.graphs[2].g.Save(&file, recorder.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	sc.saved = file.Bytes()
	lengths := []int{1, 2, 3, 7, 8, 9, 15, 24, 100, 124, 125, 248, 249, 300, 500}
	segments := 16
	if shortRampRuns() {
		segments = 6
	}
	for seg := range segments {
		sc.log = sc.log[:0]
		for range 1 + sc.rng.IntN(3) {
			i := sc.rng.IntN(len(sc.graphs))
			n := lengths[sc.rng.IntN(len(lengths))]
			n = max(1, min(n, 2500/len(sc.graphs[i].ops)))
			sc.note("%d×g%d", n, len(sc.graphs[i].ops))
			for r := range n {
				sc.replay(i)
				if sc.rng.IntN(50) == 0 {
					sc.note("@%d", r+1)
					sc.interrupt()
				}
			}
		}
		if sc.rng.IntN(3) == 0 {
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			sc.sim.sync()
			sc.note("sync")
		}
		sc.readX(fmt.Sprintf("segment %d", seg))
		gputest.WantEqual(t, fmt.Sprintf("segment %d: the snapshot", seg), fillU32(sc.msnap), gputest.ReadU32(t, s, snap))
		sc.sim.sync()
		sc.check(fmt.Sprintf("segment %d, after reading the snapshot", seg))
	}
	// Idle: every ramp is dropped after more than 8 sync points without a
	// replay of its graph.
	before := s.MemoryStats().Ramps
	for i := range 9 {
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		sc.sim.sync()
		sc.check(fmt.Sprintf("idle sync %d", i+1))
	}
	if m := s.MemoryStats(); m.Ramps != 0 || m.RampBuffers != 0 {
		t.Fatalf("after 9 idle sync points every ramp must be dropped (had %d): %d ramps, %d buffers", before, m.Ramps, m.RampBuffers)
	}
	if m := s.MemoryStats(); m.RampReplays == 0 {
		t.Fatalf("no replay ran from a ramp: the test did not exercise ramps")
	}
	// Replays still compute after the drop, and ramps come back.
	for range 30 {
		sc.replay(0)
	}
	sc.readX("30 replays after every ramp was dropped")
	if m := s.MemoryStats(); m.Ramps != 1 {
		t.Fatalf("the graph replayed after the drop gets a ramp again: %d ramps", m.Ramps)
	}
}

// note adds to the log of the current segment.
func (sc *rampScheduleRun) note(f string, a ...any) {
	sc.log = append(sc.log, fmt.Sprintf(f, a...))
	if len(sc.log) > 40 {
		sc.log = sc.log[len(sc.log)-40:]
	}
}

// capture captures a graph of ops on x (its warmup applies them).
func (sc *rampScheduleRun) capture(ops []affine) rampSchedGraph {
	t, s, k, x := sc.t, sc.s, sc.k, sc.x
	g := captureAffines(t, s, k, x, ops)
	sc.mx = applyAffines(ops, sc.mx)
	sc.sim.settle()
	return rampSchedGraph{g: g, ops: ops, sim: &rampSimGraph{l: len(ops)}}
}

// replay replays graph i, in the model too.
func (sc *rampScheduleRun) replay(i int) {
	t := sc.t
	g := &sc.graphs[i]
	if err := g.g.Replay(); err != nil {
		t.Fatalf("Replay of the %d-dispatch graph: %v (after %v)", len(g.ops), err, sc.log)
	}
	sc.mx = applyAffines(g.ops, sc.mx)
	sc.sim.replay(g.sim)
}

// check compares the stream's ramps with the model's plan at a sync point.
func (sc *rampScheduleRun) check(what string) {
	t, s := sc.t, sc.s
	t.Helper()
	m := settledStats(t, s)
	if m.Ramps != len(sc.sim.ramps) || m.RampBuffers != sc.sim.buffers() {
		t.Fatalf("%s: %d ramps with %d command buffers, want %d ramps with %d (the documented plan; ops %v)", what, m.Ramps, m.RampBuffers, len(sc.sim.ramps), sc.sim.buffers(), sc.log)
	}
	if m.Ramps > 4 {
		t.Fatalf("%s: %d ramps, at most 4 are kept", what, m.Ramps)
	}
	// The model starts a deferral whenever a step is ready; the stream
	// may decline (work encoded live in its open batch goes first,
	// and the flush timer settles a count early), so it serves at
	// most what the model serves: never a replay the plan lacks.
	if m.RampReplays > sc.sim.served {
		t.Fatalf("%s: %d replays ran from ramps, more than the %d the documented plans can serve (ops %v)", what, m.RampReplays, sc.sim.served, sc.log)
	}
}

// readX reads x against the model (a sync point) and checks the ramps.
func (sc *rampScheduleRun) readX(what string) {
	t, s, x := sc.t, sc.s, sc.x
	t.Helper()
	gputest.WantEqual(t, what+fmt.Sprintf(" (ops %v)", sc.log), fillU32(sc.mx), gputest.ReadU32(t, s, x))
	sc.sim.sync()
	sc.check(what)
}

// interrupt makes one call of another kind between replays.
func (sc *rampScheduleRun) interrupt() {
	t, timer := sc.t, sc.timer
	t.Helper()
	op := sc.rng.IntN(17)
	if op == 13 && !timer {
		op = 1
	}
	if op >= 9 {
		if !sc.interruptWithGraphs(op) {
			return
		}
	} else {
		sc.interruptWithCalls(op)
	}
	sc.sim.settle()
}

// interruptWithCalls makes call op (0 to 8) of interrupt: writes, launches,
// copies, clears, flushes, reads on another stream, cancelled syncs and
// profiles.
func (sc *rampScheduleRun) interruptWithCalls(op int) {
	t, s, other, k, x, snap := sc.t, sc.s, sc.other, sc.k, sc.x, sc.snap
	t.Helper()
	switch op {
	case 0:
		v := sc.rng.Uint32N(1000)
		writeU32(t, s, x, v)
		sc.mx = v
		sc.note("write %d", v)
	case 1:
		o := affine{sc.rng.Uint32N(4) + 1, sc.rng.Uint32N(9)}
		if err := launchAffine(s, k, x, o); err != nil {
			t.Fatal(err)
		}
		sc.mx = o.apply(sc.mx)
		sc.note("launch %v", o)
	case 2:
		if err := s.Copy(snap, 0, x, 0, rampBytes); err != nil {
			t.Fatal(err)
		}
		sc.msnap = sc.mx
		sc.note("copy")
	case 3:
		if err := s.Clear(snap, 0, rampBytes); err != nil {
			t.Fatal(err)
		}
		sc.msnap = 0
		sc.note("clear")
	case 4:
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		sc.note("flush")
	case 5:
		// Another stream's Read submits this stream's work first:
		// the replays counted and not yet encoded included.
		gputest.WantEqual(t, fmt.Sprintf("another stream's Read sees every replay called before it (ops %v)", sc.log), fillU32(sc.mx), gputest.ReadU32(t, other, x))
		sc.note("read on another stream")
	case 6:
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := s.SyncContext(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("SyncContext with a cancelled context: %v, want context.Canceled", err)
		}
		sc.note("cancelled sync")
	case 7:
		// The profiled replay runs, and WithFloor(r) runs the graph r
		// more times (documented), all after the counted replays.
		j, floor := sc.rng.IntN(len(sc.graphs)), sc.rng.IntN(3)
		if _, err := s.ProfileReplay(sc.graphs[j].g, recorder.WithFloor(floor)); err != nil {
			t.Fatalf("ProfileReplay: %v", err)
		}
		for range 1 + floor {
			sc.mx = applyAffines(sc.graphs[j].ops, sc.mx)
		}
		sc.note("profile %d floor %d", len(sc.graphs[j].ops), floor)
	case 8:
		tok, err := s.StartProfile()
		if err != nil {
			t.Fatal(err)
		}
		sc.sim.settle()
		sc.sim.profiling = true
		j, n := sc.rng.IntN(len(sc.graphs)), 1+sc.rng.IntN(12)
		for range n {
			sc.replay(j)
		}
		if _, err := s.EndProfile(tok); err != nil {
			t.Fatalf("EndProfile: %v", err)
		}
		sc.sim.profiling = false
		sc.note("profile of %d replays of %d", n, len(sc.graphs[j].ops))
	}
}

// interruptWithGraphs makes call op (9 to 16) of interrupt: captures,
// recaptures, reads, syncs, sleeps, Trim, LoadGraph and rebound graphs. It
// reports whether the model still needs settling.
func (sc *rampScheduleRun) interruptWithGraphs(op int) bool {
	t, s, k, x, snap := sc.t, sc.s, sc.k, sc.x, sc.snap
	t.Helper()
	switch op {
	case 9:
		// The warmup replays a graph (in the Prepare state: counted,
		// and maybe against a ramp step), then launches; the recorded
		// run includes the graph as a child.
		j := sc.rng.IntN(len(sc.graphs))
		warm := true
		g, err := s.Capture(func() error {
			if err := sc.graphs[j].g.Replay(); err != nil {
				return err
			}
			if warm {
				sc.mx = applyAffines(sc.graphs[j].ops, sc.mx)
				sc.sim.replay(sc.graphs[j].sim)
				warm = false
			}
			return launchAffine(s, k, x, affine{5, 1})
		})
		if err != nil {
			t.Fatal(err)
		}
		sc.mx = affine{5, 1}.apply(sc.mx)
		g.Release()
		sc.note("capture replaying g%d", len(sc.graphs[j].ops))
	case 10:
		j := sc.rng.IntN(len(sc.graphs) - 1) // not the 64-dispatch one
		sc.graphs[j].g.Release()
		sc.sim.release(sc.graphs[j].sim)
		sc.graphs[j] = sc.capture(sc.graphs[j].ops)
		sc.note("recapture %d", len(sc.graphs[j].ops))
		return false // capture settled
	case 11:
		sc.note("read")
		sc.readX("a Read between replays")
		return false
	case 12:
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		sc.sim.sync()
		sc.note("sync")
		sc.check("a Sync between replays")
		return false
	case 13:
		time.Sleep(3 * time.Millisecond) // past the flush delay
		sc.note("sleep")
	case 14:
		if _, err := s.Trim(); err != nil {
			t.Fatalf("Trim: %v", err)
		}
		sc.note("trim")
	case 15:
		lg, err := s.LoadGraph(bytes.NewReader(sc.saved))
		if err != nil {
			t.Fatalf("LoadGraph: %v", err)
		}
		for _, b := range lg.Buffers() {
			b.Release()
		}
		lg.Release()
		sc.note("load")
	case 16:
		// A rebound copy of a graph, onto the snapshot: replayed
		// once (a short graph of its own), then released.
		j := sc.rng.IntN(len(sc.graphs))
		rg, err := sc.graphs[j].g.Rebind(x, snap)
		if err != nil {
			t.Fatalf("Rebind: %v", err)
		}
		sc.sim.settle()
		if err := rg.Replay(); err != nil {
			t.Fatalf("Replay of a rebound graph: %v", err)
		}
		sc.msnap = applyAffines(sc.graphs[j].ops, sc.msnap)
		rsim := &rampSimGraph{l: len(sc.graphs[j].ops)}
		sc.sim.replay(rsim)
		rg.Release()
		sc.sim.release(rsim)
		sc.note("rebound g%d", len(sc.graphs[j].ops))
		return false
	}
	return true
}

// replayRuns replays g in runs of the given lengths, each ended by check (a
// sync point), waiting for the ramp worker after each; between replays,
// poke(run, i) may write inputs (stream order: the next replay sees the
// write, earlier ones do not). step applies one replay to the model. It
// wants ramps to have served some replays.
func replayRuns(t *testing.T, s *recorder.Stream, g *recorder.Graph, runs []int, step func(), poke func(run, i int), check func(what string)) {
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
			mustReplay(t, g)
			step()
		}
		check(fmt.Sprintf("run %d (%d replays)", r, n))
		settledStats(t, s)
	}
	if got := s.MemoryStats().RampReplays - before; got == 0 {
		t.Fatalf("no replay of the %d-dispatch graph ran from a ramp", g.Len())
	}
}

// TestShortGraphsWithAWhileOrAnIfReplayFromRamps: ramps of short graphs
// holding a While, and of an If alternating with a graph rebound from it,
// with and without predication: in runs of changing lengths, with inputs
// rewritten between replays, every result equals the Go model and each graph
// ran replays from its ramp.
func TestShortGraphsWithAWhileOrAnIfReplayFromRamps(t *testing.T) {
	skipIfShort(t)
	d := gputest.Open(t, wgpu.Options{})
	aff := gputest.Kernel(t, d, affineWGSL)
	runs := []int{5, 40, 3, 40, 1, 60, 17}
	for _, pred := range []bool{true, false} {
		pname := ""
		if !pred {
			pname = ", without predication"
		}
		t.Run("While"+pname, func(t *testing.T) {
			s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithPredication(pred))
			cd := gputest.Kernel(t, d, rampCountdownWGSL)
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
			replayRuns(t, s, g, runs, step, poke, func(what string) {
				gputest.WantEqual(t, what, []uint32{left, done}, gputest.ReadU32(t, s, st))
			})
			t.Run("loaded from a file", func(t *testing.T) {
				lg, bufs := saveAndLoad(t, s, g, 1)
				defer lg.Release()
				lst := bufs[0]
				gputest.WantEqual(t, "the loaded contents", []uint32{left, done}, gputest.ReadU32(t, s, lst))
				replayRuns(t, s, lg, runs, step, func(run, i int) {
					if i%5 == 2 {
						left = rng.Uint32N(9)
						if err := recorder.WriteSlice(s, lst, 0, []uint32{left}); err != nil {
							t.Fatal(err)
						}
					}
				}, func(what string) {
					gputest.WantEqual(t, what, []uint32{left, done}, gputest.ReadU32(t, s, lst))
				})
			})
		})

		t.Run("If, and a rebound copy of it"+pname, func(t *testing.T) {
			s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithPredication(pred))
			x := gputest.UploadU32(t, s, fillU32(1)...)
			x2 := gputest.UploadU32(t, s, fillU32(2)...)
			flag := gputest.UploadU32(t, s, 1)
			g, err := s.Capture(func() error {
				if err := s.If(flag, 0, func() error { return launchAffine(s, aff, x, affine{3, 1}) }); err != nil {
					return err
				}
				return launchAffine(s, aff, x, affine{1, 1})
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
			replayRuns(t, s, g, runs, func() { mx = apply(mx) }, poke, func(what string) {
				wantAllU32(t, what, s, x, mx)
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
				replayRuns(t, s, gg, []int{n, n}, func() { *m = apply(*m) }, poke, func(what string) {
					wantAllU32(t, fmt.Sprintf("alternation %d, %s: the original's buffer", r, what), s, x, mx)
					wantAllU32(t, fmt.Sprintf("alternation %d, %s: the rebound buffer", r, what), s, x2, mx2)
				})
			}
			// The original released (between counted replays of the
			// rebound graph, which shares its bind groups and gates).
			for range 5 {
				mustReplay(t, rg)
				mx2 = apply(mx2)
			}
			g.Release()
			replayRuns(t, s, rg, []int{30, 30}, func() { mx2 = apply(mx2) }, poke, func(what string) {
				wantAllU32(t, "the original released: "+what, s, x2, mx2)
			})
		})

	}
}

// TestShortGraphsOfCopiesAndClearsReplayFromRamps: ramps of a short graph of
// native copies and clears, and of that graph saved and loaded from a file:
// in runs of changing lengths, every result equals the Go model and each
// graph ran replays from its ramp.
func TestShortGraphsOfCopiesAndClearsReplayFromRamps(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	aff := gputest.Kernel(t, d, affineWGSL)
	runs := []int{5, 40, 3, 40, 1, 60, 17}
	t.Run("copies and clears", func(t *testing.T) {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true))
		acc := gputest.Kernel(t, d, accWGSL)
		x := gputest.UploadU32(t, s, fillU32(0)...)
		y := gputest.UploadU32(t, s, fillU32(0)...)
		z := gputest.UploadU32(t, s, fillU32(0)...)
		step := func() error {
			if err := launchAffine(s, aff, x, affine{1, 1}); err != nil {
				return err
			}
			if err := s.Copy(y, 0, x, 0, rampBytes); err != nil {
				return err
			}
			if err := s.Clear(z, 0, rampBytes/2); err != nil {
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
		mx := make([]uint32, rampElems)
		my := make([]uint32, rampElems)
		mz := make([]uint32, rampElems)
		model := func() {
			for i := range mx {
				mx[i]++
				my[i] = mx[i]
				if i < rampElems/2 {
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
			gputest.WantEqual(t, what+": x", mx, gputest.ReadU32(t, s, x))
			gputest.WantEqual(t, what+": y", my, gputest.ReadU32(t, s, y))
			gputest.WantEqual(t, what+": z", mz, gputest.ReadU32(t, s, z))
		}
		replayRuns(t, s, g, runs, model, poke, check)
		t.Run("loaded from a file", func(t *testing.T) {
			lg, bufs := saveAndLoad(t, s, g, 3)
			defer lg.Release()
			lx, ly, lz := bufs[0], bufs[1], bufs[2]
			gputest.WantEqual(t, "loaded x", mx, gputest.ReadU32(t, s, lx))
			gputest.WantEqual(t, "loaded z", mz, gputest.ReadU32(t, s, lz))
			replayRuns(t, s, lg, runs, model, func(run, i int) {
				if i%9 == 4 {
					for j := range mx {
						mx[j] = rng.Uint32N(1000)
					}
					if err := recorder.WriteSlice(s, lx, 0, mx); err != nil {
						t.Fatal(err)
					}
				}
			}, func(what string) {
				gputest.WantEqual(t, what+": x", mx, gputest.ReadU32(t, s, lx))
				gputest.WantEqual(t, what+": y", my, gputest.ReadU32(t, s, ly))
				gputest.WantEqual(t, what+": z", mz, gputest.ReadU32(t, s, lz))
			})
		})
	})
}

// TestShortGraphsOfTexturesReplayFromRamps: ramps of short graphs writing a
// storage texture and reading a sampled one: in runs of changing lengths,
// every result equals the Go model and each graph ran replays from its ramp.
func TestShortGraphsOfTexturesReplayFromRamps(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	aff := gputest.Kernel(t, d, affineWGSL)
	runs := []int{5, 40, 3, 40, 1, 60, 17}
	t.Run("textures", func(t *testing.T) {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true))
		store := gputest.Kernel(t, d, texStoreWGSL)
		load := gputest.Kernel(t, d, texLoadWGSL)
		mx := make([]uint32, rampElems)
		for i := range mx {
			mx[i] = uint32(i)
		}
		x := gputest.UploadU32(t, s, mx...)
		y := gputest.UploadU32(t, s, fillU32(0)...)
		tex, err := s.NewTexture(recorder.TextureDesc{Width: 8, Height: 8, Format: "r32uint"})
		if err != nil {
			t.Fatal(err)
		}
		defer tex.Release()
		g, err := s.Capture(func() error {
			if err := launchAffine(s, aff, x, affine{1, 1}); err != nil {
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
		my := make([]uint32, rampElems)
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
			out := make([]uint32, rampElems)
			for i := range out {
				out[i] = binary.LittleEndian.Uint32(raw[4*i:])
			}
			return out
		}
		rng := rand.New(rand.NewPCG(7, 8))
		replayRuns(t, s, g, runs, step, func(run, i int) {
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
			gputest.WantEqual(t, what+": x", mx, gputest.ReadU32(t, s, x))
			gputest.WantEqual(t, what+": y", my, gputest.ReadU32(t, s, y))
			raw, err := s.ReadTexture(tex)
			if err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, what+": the texture", mtex, texels(raw))
		})
	})
}

// TestSaveBetweenCountedReplaysIncludesThem: a graph saved with its contents
// right after replays were counted against a ramp step (not yet encoded)
// snapshots memory that includes those replays.
func TestSaveBetweenCountedReplaysIncludesThem(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	aff := gputest.Kernel(t, d, affineWGSL)
	t.Run("Save between counted replays", func(t *testing.T) {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(0))
		x := gputest.UploadU32(t, s, fillU32(2)...)
		op := affine{3, 1}
		g := captureAffines(t, s, aff, x, []affine{op})
		mx := op.apply(2)
		for round := range 4 {
			for range 40 {
				mustReplay(t, g)
				mx = op.apply(mx)
			}
			wantAllU32(t, "the priming run", s, x, mx)
			settledStats(t, s)
			// Counted against the first step (of 8), not yet encoded: a
			// snapshot of the graph's memory must include them.
			for range 3 + round {
				mustReplay(t, g)
				mx = op.apply(mx)
			}
			lg, bufs := saveAndLoad(t, s, g, 1)
			wantAllU32(t, fmt.Sprintf("round %d: the saved contents after %d counted replays", round, 3+round), s, bufs[0], mx)
			lg.Release()
			wantAllU32(t, "the buffer", s, x, mx)
		}
	})
}

// TestAnEagerWhileWhoseBodyReplaysShortGraphsRunsThemFromRamps: an eager
// While whose body reads its condition (a sync point) and replays two short
// graphs runs them in order, from their ramps, and the loop's results equal
// the model.
func TestAnEagerWhileWhoseBodyReplaysShortGraphsRunsThemFromRamps(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	aff := gputest.Kernel(t, d, affineWGSL)
	t.Run("an eager While whose body replays a short graph", func(t *testing.T) {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true))
		cd := gputest.Kernel(t, d, rampCountdownWGSL)
		st := gputest.UploadU32(t, s, 0, 0)
		x := gputest.UploadU32(t, s, fillU32(0)...)
		dec, err := s.Capture(func() error { return s.Launch(cd, recorder.Groups(1, 1, 1), st) })
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Release()
		inc := captureAffines(t, s, aff, x, []affine{{1, 1}})
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
			gputest.WantEqual(t, fmt.Sprintf("round %d: the countdown", round), []uint32{left, done}, gputest.ReadU32(t, s, st))
			wantAllU32(t, fmt.Sprintf("round %d: the +1s", round), s, x, mx)
		}
		if s.MemoryStats().RampReplays == before {
			t.Fatalf("no replay in the eager While's body ran from a ramp")
		}
	})
}

// TestAChildGraphCapturedBetweenCountedReplaysKeepsStreamOrder: a capture
// whose warmup replays a child graph right after that child's replays were
// counted against a ramp step runs the warmup after them, in call order; so
// does an abandoned capture's warmup, and the sealed graph replays the
// model's result.
func TestAChildGraphCapturedBetweenCountedReplaysKeepsStreamOrder(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	aff := gputest.Kernel(t, d, affineWGSL)
	runs := []int{5, 40, 3, 40, 1, 60, 17}
	t.Run("a child graph, captured between counted replays", func(t *testing.T) {
		s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(0))
		x := gputest.UploadU32(t, s, fillU32(1)...)
		childOp := affine{3, 1}
		child := captureAffines(t, s, aff, x, []affine{childOp})
		mx := childOp.apply(1)
		for range 40 {
			mustReplay(t, child)
			mx = childOp.apply(mx)
		}
		wantAllU32(t, "the child's priming run", s, x, mx)
		settledStats(t, s)
		// 5 replays counted against the child's first step (of 8), then
		// a capture whose warmup replays the child too (in the Prepare
		// state, against the same step): the warmup's launch must come
		// after the 5, and the warmup's child replays where called.
		for range 5 {
			mustReplay(t, child)
			mx = childOp.apply(mx)
		}
		body := []affine{childOp, {1, 10}, childOp}
		parent, err := s.Capture(func() error {
			if err := child.Replay(); err != nil {
				return err
			}
			if err := launchAffine(s, aff, x, affine{1, 10}); err != nil {
				return err
			}
			return child.Replay()
		})
		if err != nil {
			t.Fatal(err)
		}
		defer parent.Release()
		mx = applyAffines(body, mx)
		wantAllU32(t, "5 counted replays, then a capture replaying the child", s, x, mx)
		// An abandoned capture whose warmup replayed the child: the
		// warmup ran, in order.
		if err := s.PrepareCapture(); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			mustReplay(t, child)
			mx = childOp.apply(mx)
		}
		if err := launchAffine(s, aff, x, affine{1, 4}); err != nil {
			t.Fatal(err)
		}
		mx += 4
		if err := s.AbortCapture(); err != nil {
			t.Fatal(err)
		}
		wantAllU32(t, "a warmup replaying the child, then AbortCapture", s, x, mx)
		rng := rand.New(rand.NewPCG(9, 10))
		replayRuns(t, s, parent, runs, func() { mx = applyAffines(body, mx) }, func(run, i int) {
			if i%11 == 6 {
				mx = rng.Uint32N(1000)
				writeU32(t, s, x, mx)
			}
			if i%13 == 12 {
				mustReplay(t, child)
				mx = childOp.apply(mx)
			}
		}, func(what string) { wantAllU32(t, what, s, x, mx) })
	})
}

// TestReplayFromARampAllocatesNothing: replays of a 1-dispatch
// graph counted against ready ramp steps, and the steps joining the batch
// and going to the submitter, allocate nothing.
func TestReplayFromARampAllocatesNothing(t *testing.T) {
	if lockrank.Checked {
		t.Skip("the lockrank build's order checks allocate on every lock")
	}
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	d := gputest.Open(t, wgpu.Options{})
	// No flush timer: a pause of the test goroutine cannot settle a count.
	s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(0))
	k := gputest.Kernel(t, d, affineWGSL)
	x := gputest.UploadU32(t, s, fillU32(0)...)
	g := captureAffines(t, s, k, x, []affine{{1, 1}})
	total := uint32(1)
	var allocs []float64
	for round := range 4 {
		for range 300 { // steps of 8, 16, 32, 64 and 128 replays
			mustReplay(t, g)
			total++
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		m := settledStats(t, s)
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
		wantAllU32(t, fmt.Sprintf("round %d", round), s, x, total)
	}
	slack := 0.0
	if d.Info().Backend == wgpu.BackendGL {
		slack = 4
	}
	// The first round may still grow the stream's lists, and one later
	// round may grow a pool under a loaded host's timing (one more batch
	// in flight than ever before); an allocation per replay shows in all.
	if roundsOver(allocs[1:], slack) > 1 {
		t.Fatalf("a replay from a ramp allocates: %v allocations per replay by round", allocs)
	}
	// Two short graphs alternating, both with ramps: every replay settles
	// the other's counted replays (or finds live work in the batch).
	h := captureAffines(t, s, k, x, []affine{{1, 1}, {1, 1}})
	total += 2
	var mixed []float64
	for round := range 3 {
		for range 100 {
			mustReplay(t, g)
			mustReplay(t, h)
			total += 3
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		settledStats(t, s)
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
		wantAllU32(t, fmt.Sprintf("alternating round %d", round), s, x, total)
	}
	if roundsOver(mixed[1:], 2*slack) > 1 {
		t.Fatalf("alternating replays of two short graphs with ramps allocate: %v allocations per pair by round", mixed)
	}
}

// roundsOver counts the rounds that allocated more than slack per call.
func roundsOver(allocs []float64, slack float64) int {
	n := 0
	for _, a := range allocs {
		if a > slack {
			n++
		}
	}
	return n
}

// TestRampPendingCountsOnlyStepsBeingEncoded: MemoryStats documents
// RampPending as the ramp steps "planned at the last sync point and still
// being encoded". After the worker has encoded a ramp and a run has used
// some of its steps, nothing is being encoded until the next sync point:
// RampPending must be 0 and RampBuffers the steps left. (A caller waiting
// for RampPending to reach 0, as examples/graphbench does after Sync,
// would otherwise wait forever when it asks between sync points.)
func TestRampPendingCountsOnlyStepsBeingEncoded(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	// No flush timer: a pause of the test goroutine cannot settle a count.
	s := gputest.Stream(t, d, recorder.WithPreEncode(true), recorder.WithFlushDelay(0))
	k := gputest.Kernel(t, d, affineWGSL)
	x := gputest.UploadU32(t, s, fillU32(0)...)
	g := captureAffines(t, s, k, x, []affine{{1, 1}})
	for range 300 { // steps of 8, 16, 32, 64 and 128 replays
		mustReplay(t, g)
	}
	wantAllU32(t, "the priming run", s, x, 301)
	m0 := settledStats(t, s)
	if m0.RampBuffers != 5 {
		t.Fatalf("a run of 300 plans 5 steps, %d ready", m0.RampBuffers)
	}
	for range 30 { // the steps of 8 and 16, then 6 counted against the third
		mustReplay(t, g)
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
	wantAllU32(t, "the run", s, x, 331)
}

// TestRampsBehindLongGPUWorkKeepStreamOrder: a short graph whose one
// dispatch takes about half a millisecond on this adapter (spinWGSL, which
// adds 1 to its buffer) is replayed in runs of 300 behind its ramp: the GPU
// falls behind, the submitter waits for it (at most 8 submissions
// unfinished), batches pile up and the stream stalls, so ramp steps join
// batches that are not handed off at once and the flush timer retries them.
// Between replays: writes of the graph's buffer (which must wait for the
// replays before them and stay behind those after), launches, reads on
// another stream, flushes. Every read must equal the Go model.
func TestRampsBehindLongGPUWorkKeepStreamOrder(t *testing.T) {
	skipIfShort(t)
	d := gputest.Open(t, wgpu.Options{})
	s := gputest.Stream(t, d, recorder.WithPreEncode(true))
	other := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, spinWGSL)
	x := gputest.Upload(t, s, gputest.Fill(rampElems, 0))
	// The calibration's one launch includes a sync's overhead: four
	// times its groups make the GPU the bottleneck.
	groups := 4 * spinGroups(t, d, s, k, x, 500*time.Microsecond)
	mx := gputest.Read(t, s, x)[0]
	g, err := s.Capture(func() error { return s.Launch(k, recorder.Groups(groups, 1, 1), x, gputest.U32(spinIters)) })
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	mx++
	runs := 4
	if shortRampRuns() {
		runs = 2
	}
	rng := rand.New(rand.NewPCG(13, 14))
	before := s.MemoryStats().RampReplays
	for run := range runs {
		for i := range 300 {
			mustReplay(t, g)
			mx++
			switch rng.IntN(40) {
			case 0:
				mx = float32(rng.IntN(1000))
				if err := recorder.WriteSlice(s, x, 0, gputest.Fill(rampElems, mx)); err != nil {
					t.Fatal(err)
				}
			case 1:
				if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.U32(1)); err != nil {
					t.Fatal(err)
				}
				mx++
			case 2:
				gputest.WantFloats(t, fmt.Sprintf("run %d, replay %d: a read on another stream", run, i), gputest.Fill(rampElems, mx), gputest.Read(t, other, x))
			case 3:
				if err := s.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		gputest.WantFloats(t, fmt.Sprintf("run %d", run), gputest.Fill(rampElems, mx), gputest.Read(t, s, x))
		settledStats(t, s)
	}
	if s.MemoryStats().RampReplays == before {
		t.Fatalf("no replay ran from a ramp")
	}
}

// saveAndLoad saves g with its contents, loads the file on s and checks
// the loaded graph makes want buffers; the caller releases the graph.
func saveAndLoad(t *testing.T, s *recorder.Stream, g *recorder.Graph, want int) (*recorder.Graph, []*recorder.Buffer) {
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

// shortRampRuns is testing.Short, and also true on Windows: CI runs the
// Windows binaries under wine, several times slower than natively, with a
// budget of five minutes for the whole tests package.
func shortRampRuns() bool { return !longRun() || runtime.GOOS == "windows" }
