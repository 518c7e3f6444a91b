package recorder_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// mulAddWGSL maps every element x to x*p.mul + p.add (u32, wrapping): two
// such steps with different params do not commute, so a replay that saw
// a SetVar made after it (or missed one made before it) shows in x.
const mulAddWGSL = `
struct P { mul: u32, add: u32 }
@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] * p.mul + p.add; }
}
`

// varFixture is a stream with a 64-u32 buffer x, a Var p of two u32 (mul,
// add) and the Go model of x.
type varFixture struct {
	d        *wgpu.Device
	s        *recorder.Stream
	k        *wgpu.Kernel
	x        *recorder.Buffer
	p        *recorder.Var
	mul, add uint32
	model    uint32
}

func newVarFixture(t *testing.T, opts ...recorder.Option) *varFixture {
	d, s := gputest.OpenStream(t, opts...)
	f := &varFixture{d: d, s: s, k: gputest.Kernel(t, d, mulAddWGSL), mul: 1, add: 0}
	var err error
	if f.x, err = recorder.UploadSlice(s, make([]uint32, 64)); err != nil {
		t.Fatal(err)
	}
	if f.p, err = s.NewVar(recorder.ParamsOf[uint32](1, 0)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.p.Release)
	return f
}

// captureSteps records n dispatches of the kernel without a warmup, so
// the model starts where x is.
func (f *varFixture) captureSteps(t *testing.T, n int) *recorder.Graph {
	t.Helper()
	g, err := f.s.Capture(func() error {
		for range n {
			if err := f.s.Launch(f.k, recorder.Groups(1, 1, 1), f.x, f.p); err != nil {
				return err
			}
		}
		return nil
	}, recorder.WithoutWarmup())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Release)
	return g
}

func (f *varFixture) set(t *testing.T, mul, add uint32) {
	t.Helper()
	if err := f.s.SetVar(f.p, recorder.ParamsOf(mul, add)); err != nil {
		t.Fatal(err)
	}
	f.mul, f.add = mul, add
}

func (f *varFixture) replay(t *testing.T, g *recorder.Graph) {
	t.Helper()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	for range g.Len() {
		f.model = f.model*f.mul + f.add
	}
}

func (f *varFixture) check(t *testing.T, what string) {
	t.Helper()
	got := gputest.ReadU32(t, f.s, f.x)
	want := make([]uint32, len(got))
	for i := range want {
		want[i] = f.model
	}
	gputest.WantEqual(t, what, want, got)
}

// TestSetVarIsOrderedBetweenQueuedReplays: SetVar is ordered like a Write.
// Every replay enqueued before it uses the old value and every replay
// after it the new one, also when replays were encoded ahead of time: a
// short graph served from a ramp, and a graph long enough to be
// pre-encoded. Random runs of replays and SetVars, with sync points that
// plan ramps, are checked against a Go model. A SetVar that landed before
// the unsubmitted replays it follows (a queue write overtaking them) fails.
func TestSetVarIsOrderedBetweenQueuedReplays(t *testing.T) {
	for _, c := range []struct {
		name  string
		n     int // dispatches per graph
		ramps bool
		opts  []recorder.Option
	}{
		{"short graph, ramps on", 1, true, []recorder.Option{recorder.WithPreEncode(true), recorder.WithFlushDelay(0)}},
		{"short graph, ramps on, flush timer", 2, true, []recorder.Option{recorder.WithPreEncode(true)}},
		{"pre-encoded graph", 64, false, []recorder.Option{recorder.WithPreEncode(true), recorder.WithFlushDelay(0)}},
		{"pre-encoding off", 3, false, []recorder.Option{recorder.WithPreEncode(false)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newVarFixture(t, c.opts...)
			g := f.captureSteps(t, c.n)
			f.check(t, "WithoutWarmup: the capture itself changes nothing")
			rng := rand.New(rand.NewPCG(1, uint64(c.n)))
			rounds := 12
			if testing.Short() {
				rounds = 4
			}
			for round := range rounds {
				// The same run twice in a row so the second meets the
				// ramp the first planned at its sync point. A ramp's
				// first step holds 8 dispatches' worth of replays: a
				// first segment at least that long is served from it,
				// and the SetVar after it must follow that command
				// buffer (the first round always has one).
				runs := []int{1 + rng.IntN(12), 1 + rng.IntN(12)}
				if round == 0 {
					runs[0] = 8
				}
				for rep := range 2 {
					for _, reps := range runs {
						f.set(t, 1+2*rng.Uint32N(8), rng.Uint32N(1000))
						for range reps {
							f.replay(t, g)
						}
					}
					f.check(t, fmt.Sprintf("round %d pass %d (runs %v): each replay uses the value set last before it", round, rep, runs))
					if c.ramps && rep == 0 {
						// Let the ramp worker finish the steps planned at
						// that sync point, so the next pass meets them.
						for deadline := time.Now().Add(2 * time.Second); f.s.MemoryStats().RampBuffers == 0 && time.Now().Before(deadline); {
							time.Sleep(time.Millisecond)
						}
					}
				}
			}
			if st := f.s.MemoryStats(); c.ramps && st.RampReplays == 0 {
				t.Fatalf("no replay ran from a ramp (%+v): the test did not exercise what it guards", st)
			}
		})
	}
}

// TestAVarIsBoundByReference: a graph reads a Var's value when it replays,
// not the value it had at capture; a Var released by the caller is still
// read by the graph (its last value), and every later use of it is
// refused with ErrReleased.
func TestAVarIsBoundByReference(t *testing.T) {
	f := newVarFixture(t, recorder.WithPreEncode(true))
	g := f.captureSteps(t, 1)
	f.set(t, 3, 1)
	f.replay(t, g)
	f.set(t, 5, 7)
	f.replay(t, g)
	f.check(t, "two values, two replays")
	f.p.Release()
	f.p.Release() // idempotent
	f.replay(t, g)
	f.check(t, "a released Var keeps its last value for the graph")
	gputest.WantErr(t, "SetVar on a released Var", f.s.SetVar(f.p, recorder.ParamsOf[uint32](1, 1)), []error{recorder.ErrReleased}, "SetVar")
	gputest.WantErr(t, "Launch with a released Var", f.s.Launch(f.k, recorder.Groups(1, 1, 1), f.x, f.p), []error{recorder.ErrReleased}, "Launch")
}

// TestSetVarRefusesAnotherSize: a Var keeps its size; SetVar with params of
// another size, a nil Var, and NewVar with a size that is no positive
// multiple of 4 are refused with ErrInvalidArgument, naming the sizes (and
// NewVar's error the call made, NewVar), and change nothing.
func TestSetVarRefusesAnotherSize(t *testing.T) {
	f := newVarFixture(t)
	gputest.WantErr(t, "SetVar with 12 bytes into an 8-byte Var", f.s.SetVar(f.p, recorder.ParamsOf[uint32](1, 2, 3)), []error{recorder.ErrInvalidArgument}, "SetVar", "12 bytes", "8")
	gputest.WantErr(t, "SetVar of a nil Var", f.s.SetVar(nil, recorder.ParamsOf[uint32](1, 2)), []error{recorder.ErrInvalidArgument}, "nil")
	for _, p := range []recorder.Params{nil, {1, 2}} {
		_, err := f.s.NewVar(p)
		gputest.WantErr(t, fmt.Sprintf("NewVar of %d bytes", len(p)), err, []error{recorder.ErrInvalidArgument}, "NewVar", "multiple of 4")
		if strings.Contains(err.Error(), "SetVar") {
			t.Errorf("NewVar of %d bytes: %q names SetVar; the call was NewVar", len(p), err)
		}
	}
	if f.p.Size() != 8 {
		t.Fatalf("Size = %d, want 8", f.p.Size())
	}
	// The stream still works: the refused calls changed nothing.
	g := f.captureSteps(t, 1)
	f.set(t, 2, 1)
	f.replay(t, g)
	f.check(t, "after the refusals")
}

// TestIndirectVarCountsAreReadAtReplay: a Var holding dispatch counts
// drives an indirect dispatch; SetVar between replays changes how many
// workgroups the captured dispatch runs.
func TestIndirectVarCountsAreReadAtReplay(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithPreEncode(true))
	k := gputest.Kernel(t, d, plusTwoWGSL) // +1 per element a workgroup of 64 covers
	x, err := recorder.UploadSlice(s, make([]uint32, 256))
	if err != nil {
		t.Fatal(err)
	}
	counts, err := s.NewVar(recorder.ParamsOf[uint32](0, 0, 0, 1, 1, 1)) // counts at offset 12
	if err != nil {
		t.Fatal(err)
	}
	defer counts.Release()
	g, err := s.Capture(func() error {
		return s.Launch(k, recorder.IndirectVar(counts, 12), x)
	}, recorder.WithoutWarmup())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	want := make([]uint32, 256)
	for _, groups := range []uint32{1, 3, 2, 4} {
		if err := s.SetVar(counts, recorder.ParamsOf[uint32](0, 0, 0, groups, 1, 1)); err != nil {
			t.Fatal(err)
		}
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		for i := range int(groups) * 64 {
			want[i]++
		}
	}
	gputest.WantEqual(t, "each replay runs the workgroups the Var held when it was enqueued", want, gputest.ReadU32(t, s, x))
	gputest.WantErr(t, "IndirectVar past the Var's end", s.Launch(k, recorder.IndirectVar(counts, 16), x), []error{recorder.ErrInvalidArgument}, "indirect offset=16")
	gputest.WantErr(t, "IndirectVar of a nil Var", s.Launch(k, recorder.IndirectVar(nil, 0), x), []error{recorder.ErrInvalidArgument}, "nil")
}

// TestAVarBindsOnlyWhereParamsGo: a Var binds to a var<uniform> (and
// var<storage, read>), never to a writable storage binding, which would
// let a kernel change a value the host owns.
func TestAVarBindsOnlyWhereParamsGo(t *testing.T) {
	f := newVarFixture(t)
	err := f.s.Launch(f.k, recorder.Groups(1, 1, 1), f.p, f.p)
	gputest.WantErr(t, "a Var bound read-write", err, []error{recorder.ErrInvalidArgument}, "argument 0", "Var")
}

// needs32WGSL reads a 32-byte struct from binding 1, declared as uniform
// or read-only storage (%s), and writes two of its words to out.
const needs32WGSL = `
struct P { a: u32, b: u32, c: vec4<u32> }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<%s> p: P;
@compute @workgroup_size(1)
fn main() { out[0] = p.a; out[1] = p.c.w; }
`

// TestAVarTooSmallForItsBindingIsRefusedOnTheSpot: a Var whose value is
// smaller than the type it is bound to is refused by Launch, naming the
// argument, as Params of the same bytes are, and nothing is enqueued: the
// launch queued before it in the same batch runs. Launch did not compare a
// Var with its binding's type; the device refused the whole batch at the
// next Sync (a DeferredError, the valid launch before it lost with it),
// and a capture failed with the device's message only.
func TestAVarTooSmallForItsBindingIsRefusedOnTheSpot(t *testing.T) {
	f := newVarFixture(t)
	small, err := f.s.NewVar(recorder.ParamsOf[uint32](1, 2, 3, 4)) // 16 bytes; P needs 32
	if err != nil {
		t.Fatal(err)
	}
	defer small.Release()
	out := gputest.Empty(t, f.s, 256)
	for _, space := range []string{"uniform", "storage, read"} {
		k := gputest.Kernel(t, f.d, fmt.Sprintf(needs32WGSL, space))
		f.set(t, 1, 1)
		if err := f.s.Launch(f.k, recorder.Groups(1, 1, 1), f.x, f.p); err != nil {
			t.Fatal(err)
		}
		f.model = f.model*f.mul + f.add
		err := f.s.Launch(k, recorder.Groups(1, 1, 1), out, small)
		gputest.WantErr(t, "a 16-byte Var bound as var<"+space+"> P (32 bytes)", err, []error{recorder.ErrInvalidArgument}, "argument 1", "Var of 16 bytes", "needs 32")
		f.check(t, "the launch queued before the refused one, var<"+space+">")
		_, err = f.s.Capture(func() error { return f.s.Launch(k, recorder.Groups(1, 1, 1), out, small) }, recorder.WithoutWarmup())
		gputest.WantErr(t, "a capture of the refused launch, var<"+space+">", err, []error{recorder.ErrInvalidArgument}, "argument 1", "Var of 16 bytes")
	}
}

// TestAVarBoundAsStorageHoldsExactlyItsValue: bound to a var<storage,
// read> array, a Var shows its value's elements and no more
// (arrayLength), as Params of the same bytes do; its memory's padding to
// 16 bytes stays out of the binding.
func TestAVarBoundAsStorageHoldsExactlyItsValue(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> p: array<u32>;
@compute @workgroup_size(1)
fn main() { out[0] = arrayLength(&p); out[1] = p[arrayLength(&p) - 1u]; }
`)
	for _, n := range []int{1, 2, 5} {
		vals := make([]uint32, n)
		for i := range vals {
			vals[i] = uint32(100 + i)
		}
		v, err := s.NewVar(recorder.ParamsOf(vals...))
		if err != nil {
			t.Fatal(err)
		}
		outV, outP := gputest.Empty(t, s, 8), gputest.Empty(t, s, 8)
		if err := s.Launch(k, recorder.Groups(1, 1, 1), outV, v); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), outP, recorder.ParamsOf(vals...)); err != nil {
			t.Fatal(err)
		}
		want := []uint32{uint32(n), uint32(100 + n - 1)}
		for _, c := range []struct {
			what string
			b    *recorder.Buffer
		}{{"Var", outV}, {"Params", outP}} {
			got, err := recorder.ReadSlice[uint32](s, c.b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%d words as a %s: arrayLength and last element (-want +got):\n%s", n, c.what, diff)
			}
		}
		v.Release()
	}
}

// countdownBodyWGSL subtracts p.step from the condition word c[0] (never
// below zero) and adds p.add to every element of x, in one dispatch.
const countdownBodyWGSL = `
struct P { step: u32, add: u32 }
@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@group(0) @binding(1) var<storage, read_write> x: array<u32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] + p.add; }
	if (id.x == 0u) { c[0] = c[0] - min(c[0], p.step); }
}
`

// TestAVarDrivesIfAndWhileBodies: a Var bound inside a While body (and an
// If body) is read at replay like anywhere else: SetVar between replays
// changes both how many iterations run and what each adds — also after the
// graph is saved and loaded, where the loaded graph's Vars (Graph.Vars)
// are set the same way.
func TestAVarDrivesIfAndWhileBodies(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownBodyWGSL)
	cond := gputest.UploadU32(t, s, 0)
	x, err := recorder.UploadSlice(s, make([]uint32, 64))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.NewVar(recorder.ParamsOf[uint32](1, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	p.SetLabel("step")
	g, err := s.Capture(func() error {
		return s.If(cond, 0, func() error {
			return s.While(cond, 0, 8, func() error {
				return s.Launch(k, recorder.Groups(1, 1, 1), cond, x, p)
			})
		})
	}, recorder.WithoutWarmup())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()

	run := func(g *recorder.Graph, v *recorder.Var, start, step, add uint32) uint32 {
		t.Helper()
		setU32(t, s, cond, start)
		if err := recorder.WriteSlice(s, x, 0, make([]uint32, 64)); err != nil {
			t.Fatal(err)
		}
		if err := s.SetVar(v, recorder.ParamsOf(step, add)); err != nil {
			t.Fatal(err)
		}
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		return gputest.ReadU32(t, s, x)[63]
	}
	// Iterations: ceil(start/step), each adding add.
	cases := []struct{ start, step, add, want uint32 }{
		{6, 1, 1, 6}, {6, 2, 10, 30}, {6, 3, 5, 10}, {0, 1, 9, 0}, {7, 7, 4, 4},
	}
	for _, c := range cases {
		gputest.WantEqual(t, fmt.Sprintf("captured graph, start %d step %d add %d", c.start, c.step, c.add), c.want, run(g, p, c.start, c.step, c.add))
	}

	var file bytes.Buffer
	if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatal(err)
	}
	lg, err := s.LoadGraph(&file)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Release()
	vars := lg.Vars()
	if len(vars) != 1 || vars[0].Label() != "step" || vars[0].Size() != 8 {
		t.Fatalf("the loaded graph's Vars = %v, want the one Var \"step\" of 8 bytes", vars)
	}
	defer vars[0].Release()
	var lcond, lx *recorder.Buffer
	for _, b := range lg.Buffers() {
		switch b.Size() {
		case 4:
			lcond = b
		case 256:
			lx = b
		}
	}
	if lcond == nil || lx == nil {
		t.Fatalf("the loaded graph's buffers %v lack the condition or x", lg.Buffers())
	}
	for _, c := range cases {
		setU32(t, s, lcond, c.start)
		if err := recorder.WriteSlice(s, lx, 0, make([]uint32, 64)); err != nil {
			t.Fatal(err)
		}
		if err := s.SetVar(vars[0], recorder.ParamsOf(c.step, c.add)); err != nil {
			t.Fatal(err)
		}
		if err := lg.Replay(); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, fmt.Sprintf("loaded graph, start %d step %d add %d", c.start, c.step, c.add), c.want, gputest.ReadU32(t, s, lx)[63])
	}
}

// TestAVarIsSavedAndLoadedWithItsValue: Save with Contents carries a Var's
// current value and label; the loaded graph's Var starts from that value,
// is a Var (SetVar refuses another size), and changing it changes the
// loaded graph's replays but not the original's.
func TestAVarIsSavedAndLoadedWithItsValue(t *testing.T) {
	f := newVarFixture(t)
	f.p.SetLabel("mul-add")
	g := f.captureSteps(t, 1)
	f.set(t, 3, 2)
	var file bytes.Buffer
	if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatal(err)
	}
	lg, err := f.s.LoadGraph(&file)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Release()
	vars := lg.Vars()
	if len(vars) != 1 {
		t.Fatalf("loaded graph has %d Vars, want 1", len(vars))
	}
	lv := vars[0]
	defer lv.Release()
	gputest.WantEqual(t, "label and size", [2]any{"mul-add", uint64(8)}, [2]any{lv.Label(), lv.Size()})
	if lv == f.p {
		t.Fatal("the loaded graph must have a Var of its own")
	}
	lx := lg.Buffers()[0]
	if err := recorder.WriteSlice(f.s, lx, 0, make([]uint32, 64)); err != nil {
		t.Fatal(err)
	}
	if err := lg.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the loaded Var starts from the saved value (0*3+2)", uint32(2), gputest.ReadU32(t, f.s, lx)[0])
	if err := f.s.SetVar(lv, recorder.ParamsOf[uint32](1, 5)); err != nil {
		t.Fatal(err)
	}
	if err := lg.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "SetVar on the loaded Var feeds the loaded graph", uint32(7), gputest.ReadU32(t, f.s, lx)[0])
	gputest.WantErr(t, "the loaded Var keeps its size", f.s.SetVar(lv, recorder.ParamsOf[uint32](1)), []error{recorder.ErrInvalidArgument}, "4 bytes")
	f.replay(t, g)
	f.check(t, "the original graph still reads the original Var")
}

// TestNewVarAndSetVarAreRefusedWhileRecording: a graph reads a Var at
// replay, so a SetVar (or NewVar's initial value) inside the capture
// window has nothing to record: it is refused on the spot with
// lifecycle.ErrGraphState, EndCapture then fails with a *CaptureError
// naming SetVar, nothing is sealed, and the stream and the Var work after.
func TestNewVarAndSetVarAreRefusedWhileRecording(t *testing.T) {
	f := newVarFixture(t)
	if err := f.s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := f.s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Launch(f.k, recorder.Groups(1, 1, 1), f.x, f.p); err != nil {
		t.Fatal(err)
	}
	err := f.s.SetVar(f.p, recorder.ParamsOf[uint32](2, 2))
	gputest.WantErr(t, "SetVar while recording", err, []error{lifecycle.ErrGraphState}, "SetVar")
	_, err = f.s.NewVar(recorder.ParamsOf[uint32](1))
	gputest.WantErr(t, "NewVar while recording", err, []error{lifecycle.ErrGraphState}, "SetVar")
	g, err := f.s.EndCapture()
	var ce *recorder.CaptureError
	if g != nil || !errors.As(err, &ce) {
		t.Fatalf("EndCapture after a refused SetVar = %v, %v; want no graph and a *CaptureError", g, err)
	}
	gputest.WantErr(t, "EndCapture after a refused SetVar", err, []error{lifecycle.ErrGraphState}, "SetVar")
	if st := f.s.State(); st != lifecycle.NoCapture {
		t.Fatalf("state after the failed EndCapture = %s, want %s", st, lifecycle.NoCapture)
	}
	f.check(t, "nothing executed inside the window")
	f.set(t, 2, 3)
	g2 := f.captureSteps(t, 1)
	f.replay(t, g2)
	f.check(t, "the stream and the Var work after the failed capture")
}

// TestRebindVarSwapsTheVarAGraphReads: RebindVar gives a graph reading
// another Var of the same size, the original still reading its own; a Var
// of another size is refused.
func TestRebindVarSwapsTheVarAGraphReads(t *testing.T) {
	f := newVarFixture(t)
	g := f.captureSteps(t, 1)
	other, err := f.s.NewVar(recorder.ParamsOf[uint32](1, 100))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	g2, err := g.RebindVar(f.p, other)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Release()
	f.set(t, 1, 1)
	f.replay(t, g)
	if err := g2.Replay(); err != nil {
		t.Fatal(err)
	}
	f.model += 100
	f.check(t, "the original adds 1 (its Var), the rebound graph 100 (the other)")
	wrong, err := f.s.NewVar(recorder.ParamsOf[uint32](1))
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Release()
	_, err = g.RebindVar(f.p, wrong)
	gputest.WantErr(t, "RebindVar to a Var of another size", err, []error{recorder.ErrInvalidArgument}, "keeps sizes")
}
