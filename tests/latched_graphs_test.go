package tests

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// latchIndexOf is b's index in g.Buffers(), or fails t.
func latchIndexOf(t testing.TB, g *recorder.Graph, b *recorder.Buffer) int {
	t.Helper()
	i := slices.Index(g.Buffers(), b)
	if i < 0 {
		t.Fatalf("the graph does not list %v in Buffers()", b)
	}
	return i
}

// latchDescribe runs String and WriteDOT, which must not panic or fail.
func latchDescribe(t testing.TB, what string, g *recorder.Graph) string {
	t.Helper()
	var str string
	if p := noPanic(func() { str = g.String() }); p != "" {
		t.Fatalf("%s: String panicked: %s", what, p)
	}
	var dot bytes.Buffer
	var err error
	if p := noPanic(func() { err = g.WriteDOT(&dot) }); p != "" || err != nil {
		t.Fatalf("%s: WriteDOT: panic %q, error %v", what, p, err)
	}
	if !strings.HasPrefix(dot.String(), "digraph") && !strings.Contains(dot.String(), "digraph") {
		t.Errorf("%s: WriteDOT wrote no digraph: %q", what, dot.String())
	}
	return str
}

// TestLatchedGraphsKeepTheirResultsThroughEveryGraphCall: a graph
// with a latched While (holding a gated If) and a latched top-level If
// goes through every Graph call: it replays as the eager step does; Save
// and LoadGraph (on the same device, again from the loaded graph, and on
// a second device) give graphs that replay identically, report the same
// branches in ProfileReplay and describe themselves; Rebind of a body
// buffer and of the first dispatch's buffer onto the condition works on
// the captured graph (lowered anew with gates) and, without predication, on
// the loaded one; a loaded latched loop keeps its lowering, whose guard
// binds the condition, so that rebinding is refused saying why; the graph
// replayed as a child at top level and inside an If computes what its step
// does there (and so does that parent graph rebound); a loaded graph with
// control flow is refused as a child, cleanly.
func TestLatchedGraphsKeepTheirResultsThroughEveryGraphCall(t *testing.T) {
	skipIfShort(t)
	latchModes(t, func(t *testing.T, on bool) {
		r := newLatchedRig(t, on)
		r.checkProfiles(t)
		l := r.checkFiles(t)
		r.checkRebinds(t, l)
		r.checkChildren(t, l)
	})
}

// latchedRig is a captured graph with a latched While (holding a gated If)
// and a latched top-level If, with the eager step it was captured from, the
// inputs it is replayed with and the Go model of its results.
type latchedRig struct {
	d                        *wgpu.Device
	s                        *recorder.Stream
	k                        latchKernels
	one                      recorder.Dispatch
	st, flag, v, v2, u, w, c *recorder.Buffer
	stepOn                   func(cond, first, body *recorder.Buffer) func() error
	step                     func() error
	bufs                     []*recorder.Buffer
	conds                    []uint32
	inits                    [][][]uint32
	model                    func(i int) [][]uint32
	g                        *recorder.Graph
	str                      string
	wantRan                  func(n uint32) [][]bool
	ran                      func(p recorder.ReplayProfile) [][]bool
	on                       bool
	idx                      []int // idx[i]: bufs[i]'s index in g.Buffers()
}

// latchedMax is the While bound of latchedRig's loop.
const latchedMax = 6

// newLatchedRig captures the graph (checking its replays against the eager
// step) on a stream with predication on or off.
func newLatchedRig(t *testing.T, on bool) *latchedRig {
	d, s := gputest.OpenStream(t, recorder.WithPredication(on))
	k := latchCompile(t, d)
	one := recorder.Groups(1, 1, 1)
	st := gputest.UploadU32(t, s, 0, 0)
	flag := gputest.UploadU32(t, s, 0, 0)
	v := gputest.UploadU32(t, s, latchZeros(16)...)
	v2 := gputest.UploadU32(t, s, latchZeros(16)...)
	u := gputest.UploadU32(t, s, latchZeros(16)...)
	w := gputest.UploadU32(t, s, latchZeros(16)...)
	c := gputest.UploadU32(t, s, 0)
	stepOn := func(cond, first, body *recorder.Buffer) func() error {
		return func() error {
			if err := s.While(cond, 0, latchedMax, func() error {
				if err := s.Launch(k.toggle, one, first); err != nil {
					return err
				}
				if err := s.If(first, 0, func() error { return s.Launch(k.bump, recorder.Groups(2, 1, 1), body) }); err != nil {
					return err
				}
				if err := s.Launch(k.bump, recorder.Groups(2, 1, 1), u); err != nil {
					return err
				}
				return s.Launch(k.count, one, cond)
			}); err != nil {
				return err
			}
			return s.If(c, 0, func() error { return s.Launch(k.bump, recorder.Groups(2, 1, 1), w) })
		}
	}
	step := stepOn(st, flag, v)
	bufs := []*recorder.Buffer{st, flag, v, u, w, c}
	conds := []uint32{3, 0, 1, 6, 9}
	var inits [][][]uint32
	for _, n := range conds {
		inits = append(inits, [][]uint32{{n, 0}, {0, 0}, latchZeros(16), latchZeros(16), latchZeros(16), {n % 2}})
	}
	model := func(i int) [][]uint32 {
		n := conds[i]
		it := min(n, latchedMax)
		ifs := (it + 1) / 2
		var wv []uint32
		if n%2 == 1 {
			wv = latchBumpModel(16, 1)
		} else {
			wv = latchZeros(16)
		}
		return [][]uint32{{n - it, it}, {it % 2, it}, latchBumpModel(16, ifs), latchBumpModel(16, it), wv, {n % 2}}
	}
	g := latchAgree(t, s, bufs, inits, model, step)
	str := latchDescribe(t, "captured", g)
	if on && gputest.Predicates(d) && strings.Count(str, "softgraph_gate") != 1 {
		t.Errorf("only the nested If should keep gates (softgraph_gate ×%d): %s", latchedMax, str)
	}

	wantRan := func(n uint32) [][]bool {
		it := min(n, latchedMax)
		w, in := make([]bool, latchedMax), make([]bool, latchedMax)
		for i := range it {
			w[i] = true
			in[i] = i%2 == 0
		}
		return [][]bool{w, in, {n%2 == 1}}
	}
	ran := func(p recorder.ReplayProfile) [][]bool {
		var out [][]bool
		for _, b := range p.Branches {
			out = append(out, b.Ran)
		}
		return out
	}
	idx := make([]int, len(bufs))
	for i, b := range bufs {
		idx[i] = latchIndexOf(t, g, b)
	}
	return &latchedRig{d: d, s: s, k: k, one: one, st: st, flag: flag, v: v, v2: v2, u: u, w: w, c: c, stepOn: stepOn, step: step,
		bufs: bufs, conds: conds, inits: inits, model: model, g: g, str: str, wantRan: wantRan, ran: ran, on: on, idx: idx}
}

// checkProfiles: ProfileReplay of the graph reports which bodies ran, as
// the model says, and computes as the eager run.
func (r *latchedRig) checkProfiles(t *testing.T) {
	s, bufs, conds, inits, model, g, wantRan, ran := r.s, r.bufs, r.conds, r.inits, r.model, r.g, r.wantRan, r.ran
	// ProfileReplay: which bodies ran, against the model.
	for i, n := range conds {
		latchSetAll(t, s, bufs, inits[i])
		p, err := s.ProfileReplay(g)
		if err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, "ProfileReplay's branches with n="+itoa(int(n)), wantRan(n), ran(p))
		gputest.WantEqual(t, "the profiled replay computes as the eager run", model(i), latchReadAll(t, s, bufs))
	}

}

// checkFiles: Save and LoadGraph on the same device, again from the loaded
// graph, and on a second device give graphs that replay identically,
// report the same branches and describe themselves. It returns the graph
// loaded on the same device.
func (r *latchedRig) checkFiles(t *testing.T) *recorder.Graph {
	s, bufs, conds, inits, model, g, str, wantRan, ran, on, idx := r.s, r.bufs, r.conds, r.inits, r.model, r.g, r.str, r.wantRan, r.ran, r.on, r.idx
	// Graph files: same device, twice through a file, second device.
	save := func(g *recorder.Graph) []byte {
		var file bytes.Buffer
		if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
			t.Fatal(err)
		}
		return file.Bytes()
	}
	checkLoaded := func(what string, s2 *recorder.Stream, l *recorder.Graph) {
		t.Helper()
		lb := l.Buffers()
		if len(lb) != len(g.Buffers()) {
			t.Fatalf("%s: %d buffers, the saved graph had %d", what, len(lb), len(g.Buffers()))
		}
		mine := make([]*recorder.Buffer, len(bufs))
		for i := range bufs {
			mine[i] = lb[idx[i]]
			if mine[i].Size() != bufs[i].Size() {
				t.Fatalf("%s: buffer %d is %d bytes, was %d", what, idx[i], mine[i].Size(), bufs[i].Size())
			}
		}
		for i, n := range conds {
			latchSetAll(t, s2, mine, inits[i])
			if err := l.Replay(); err != nil {
				t.Fatalf("%s: Replay: %v", what, err)
			}
			gputest.WantEqual(t, what+": replay with n="+itoa(int(n)), model(i), latchReadAll(t, s2, mine))
			latchSetAll(t, s2, mine, inits[i])
			p, err := s2.ProfileReplay(l)
			if err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, what+": ProfileReplay's branches with n="+itoa(int(n)), wantRan(n), ran(p))
		}
		if ls := latchDescribe(t, what, l); ls != str {
			t.Logf("%s describes itself differently:\n  captured: %s\n  loaded:   %s", what, str, ls)
		}
	}
	file := save(g)
	l, err := s.LoadGraph(bytes.NewReader(file))
	if err != nil {
		t.Fatalf("LoadGraph: %v", err)
	}
	t.Cleanup(l.Release) // used by checkRebinds and checkChildren
	checkLoaded("loaded on the same device", s, l)
	l2, err := s.LoadGraph(bytes.NewReader(save(l)))
	if err != nil {
		t.Fatalf("LoadGraph of a loaded graph's file: %v", err)
	}
	defer l2.Release()
	checkLoaded("loaded from the loaded graph's file", s, l2)
	d2 := gputest.Open(t, wgpu.Options{})
	s2 := gputest.Stream(t, d2, recorder.WithPredication(on))
	l3, err := s2.LoadGraph(bytes.NewReader(file))
	if err != nil {
		t.Fatalf("LoadGraph on a second device: %v", err)
	}
	defer l3.Release()
	checkLoaded("loaded on a second device", s2, l3)
	return l
}

// checkRebinds: Rebind of a body buffer, of the condition and of the
// latching dispatch's buffer onto the condition, on the captured graph and
// on the loaded one l.
func (r *latchedRig) checkRebinds(t *testing.T, l *recorder.Graph) {
	d, s, st, flag, v, v2, stepOn, bufs, conds, inits, g, wantRan, ran, on, idx := r.d, r.s, r.st, r.flag, r.v, r.v2, r.stepOn, r.bufs, r.conds, r.inits, r.g, r.wantRan, r.ran, r.on, r.idx
	// Rebind a body buffer, on the captured and on the loaded graph.
	for _, gr := range []struct {
		what string
		g    *recorder.Graph
	}{{"captured", g}, {"loaded", l}} {
		t.Run("Rebind the If body's buffer, "+gr.what, func(t *testing.T) {
			old, mine := v, bufs
			if gr.g == l {
				lb := l.Buffers()
				old = lb[idx[2]]
				mine = []*recorder.Buffer{lb[idx[0]], lb[idx[1]], lb[idx[2]], lb[idx[3]], lb[idx[4]], lb[idx[5]]}
			}
			rb, err := gr.g.Rebind(old, v2)
			if err != nil {
				t.Fatalf("Rebind(v, v2): %v", err)
			}
			defer rb.Release()
			for i, n := range conds {
				latchSetAll(t, s, bufs, inits[i])
				setU32(t, s, v2, latchZeros(16)...)
				if err := stepOn(st, flag, v2)(); err != nil {
					t.Fatal(err)
				}
				want := append(latchReadAll(t, s, bufs), gputest.ReadU32(t, s, v2))
				latchSetAll(t, s, mine, inits[i])
				setU32(t, s, v2, latchZeros(16)...)
				if err := rb.Replay(); err != nil {
					t.Fatal(err)
				}
				got := append(latchReadAll(t, s, mine), gputest.ReadU32(t, s, v2))
				gputest.WantEqual(t, "the rebound graph against the eager step on v2, n="+itoa(int(n)), want, got)
			}
		})
		t.Run("Rebind the condition, "+gr.what, func(t *testing.T) {
			old, mine := st, bufs
			if gr.g == l {
				lb := l.Buffers()
				old = lb[idx[0]]
				mine = []*recorder.Buffer{lb[idx[0]], lb[idx[1]], lb[idx[2]], lb[idx[3]], lb[idx[4]], lb[idx[5]]}
			}
			st2 := gputest.UploadU32(t, s, 0, 0)
			rb, err := gr.g.Rebind(old, st2)
			if err != nil {
				t.Fatalf("Rebind(st, st2): %v", err)
			}
			defer rb.Release()
			for i, n := range conds {
				latchSetAll(t, s, bufs, inits[i])
				setU32(t, s, st2, n+1, 0)
				setU32(t, s, st, 100, 100)
				if err := stepOn(st2, flag, v)(); err != nil {
					t.Fatal(err)
				}
				want := append(latchReadAll(t, s, bufs), gputest.ReadU32(t, s, st2))
				latchSetAll(t, s, mine, inits[i])
				setU32(t, s, st2, n+1, 0)
				setU32(t, s, mine[0], 100, 100)
				p, err := s.ProfileReplay(rb)
				if err != nil {
					t.Fatal(err)
				}
				got := append(latchReadAll(t, s, mine), gputest.ReadU32(t, s, st2))
				gputest.WantEqual(t, "the graph rebound to st2 against the eager step on st2, n="+itoa(int(n)), want, got)
				gputest.WantEqual(t, "ProfileReplay's branches of the rebound graph, n+1="+itoa(int(n+1)), wantRan(n + 1)[:2], ran(p)[:2])
			}
		})
		t.Run("Rebind the latching dispatch's buffer onto the condition, "+gr.what, func(t *testing.T) {
			old, cond, mine := flag, st, bufs
			if gr.g == l {
				lb := l.Buffers()
				old, cond = lb[idx[1]], lb[idx[0]]
				mine = []*recorder.Buffer{lb[idx[0]], lb[idx[1]], lb[idx[2]], lb[idx[3]], lb[idx[4]], lb[idx[5]]}
			}
			rb, err := gr.g.Rebind(old, cond)
			if gr.g == l && on && gputest.Predicates(d) {
				// A loaded graph keeps its lowering: its latching
				// dispatch's guard binds the condition, and the
				// rebinding is refused, saying why (design.md).
				gputest.WantErr(t, "Rebind of a loaded latched loop's first buffer onto its condition", err,
					[]error{recorder.ErrInvalidArgument}, "guarded variant", "capture the step instead")
				return
			}
			if err != nil {
				t.Fatalf("Rebind(first dispatch's buffer, condition) on the %s graph (the captured one accepts it, lowering the loop with gates): %v", gr.what, err)
			}
			defer rb.Release()
			for i, n := range conds {
				latchSetAll(t, s, bufs, inits[i])
				if err := stepOn(st, st, v)(); err != nil {
					t.Fatal(err)
				}
				want := latchReadAll(t, s, bufs)
				latchSetAll(t, s, mine, inits[i])
				if err := rb.Replay(); err != nil {
					t.Fatal(err)
				}
				gputest.WantEqual(t, "the rebound graph against the eager step, n="+itoa(int(n)), want, latchReadAll(t, s, mine))
			}
		})
	}

}

// checkChildren: the graph replayed as a child at top level and inside an
// If computes what its step does there (and so does that parent rebound);
// the loaded graph l, which holds control flow, is refused as a child.
func (r *latchedRig) checkChildren(t *testing.T, l *recorder.Graph) {
	s, k, st, flag, v, v2, stepOn, step, bufs, conds, inits, model, g := r.s, r.k, r.st, r.flag, r.v, r.v2, r.stepOn, r.step, r.bufs, r.conds, r.inits, r.model, r.g
	// Child graphs: g replayed at top level and inside an If.
	t.Run("as a child graph", func(t *testing.T) {
		x := gputest.UploadU32(t, s, latchZeros(16)...)
		cx := gputest.UploadU32(t, s, 0)
		wrap := func(inner func() error) func() error {
			return func() error {
				if err := s.Launch(k.bump, recorder.Groups(2, 1, 1), x); err != nil {
					return err
				}
				if err := inner(); err != nil {
					return err
				}
				return s.If(cx, 0, inner)
			}
		}
		var cinits [][][]uint32
		for i, n := range conds {
			cinits = append(cinits, append(append([][]uint32(nil), inits[i]...), latchZeros(16), []uint32{n % 3}))
		}
		all := append(append([]*recorder.Buffer(nil), bufs...), x, cx)
		b := latchAgreeWith(t, s, all, cinits, nil, wrap(step), wrap(g.Replay))
		rb, err := b.Rebind(v, v2)
		if err != nil {
			t.Fatalf("Rebind of a graph holding the child's regions: %v", err)
		}
		defer rb.Release()
		for i := range conds {
			latchSetAll(t, s, all, cinits[i])
			setU32(t, s, v2, latchZeros(16)...)
			if err := wrap(stepOn(st, flag, v2))(); err != nil {
				t.Fatal(err)
			}
			want := append(latchReadAll(t, s, all), gputest.ReadU32(t, s, v2))
			latchSetAll(t, s, all, cinits[i])
			setU32(t, s, v2, latchZeros(16)...)
			if err := rb.Replay(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, "the rebound parent graph against its eager step on v2", want, append(latchReadAll(t, s, all), gputest.ReadU32(t, s, v2)))
		}
	})
	t.Run("a loaded graph with control flow as a child", func(t *testing.T) {
		_, err := s.Capture(func() error { return l.Replay() })
		if !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Fatalf("including a loaded graph with If/While: want ErrInvalidArgument, got %v", err)
		}
		if st := s.State(); st != lifecycle.NoCapture {
			t.Fatalf("after the refused capture the stream is in %v", st)
		}
		latchSetAll(t, s, bufs, inits[0])
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, "the stream still replays", model(0), latchReadAll(t, s, bufs))
	})
}

// TestOverrideKernelsInALatchedLoopReplayTheSameAfterLoadGraph: a latched
// loop whose first dispatch's kernel takes its workgroup size and a factor
// from overrides given by name and by @id goes through Save and LoadGraph
// (same device and a second one) and replays as the eager step does.
func TestOverrideKernelsInALatchedLoopReplayTheSameAfterLoadGraph(t *testing.T) {
	const src = `
@id(3) override blk: u32 = 1u;
override scale: u32 = 2u;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(blk, 2)
fn ovr(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x * 2u + g.y;
	v[i] = v[i] * scale + i + 1u;
}
`
	const max = 5
	latchModes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := latchKernel(t, d, latchCountdown, "countdown")
		k := latchKernel(t, d, src, "ovr", wgpu.WithConstants(map[string]float64{"3": 4, "scale": 7}))
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, latchZeros(32)...)
		step := func() error {
			return s.While(st, 0, max, func() error {
				if err := s.Launch(k, recorder.Groups(4, 1, 1), v); err != nil {
					return err
				}
				return s.Launch(count, recorder.Groups(1, 1, 1), st)
			})
		}
		conds := []uint32{3, 0, 8}
		var inits [][][]uint32
		for _, n := range conds {
			inits = append(inits, [][]uint32{{n, 0}, latchZeros(32)})
		}
		model := func(i int) [][]uint32 {
			it := min(conds[i], max)
			v := latchZeros(32)
			for range it {
				for j := range v {
					v[j] = v[j]*7 + uint32(j) + 1
				}
			}
			return [][]uint32{{conds[i] - it, it}, v}
		}
		g := latchAgree(t, s, []*recorder.Buffer{st, v}, inits, model, step)
		var file bytes.Buffer
		if _, err := g.WriteTo(&file); err != nil {
			t.Fatal(err)
		}
		ist, iv := latchIndexOf(t, g, st), latchIndexOf(t, g, v)
		d2 := gputest.Open(t, wgpu.Options{})
		s2 := gputest.Stream(t, d2)
		for _, on := range []*recorder.Stream{s, s2} {
			l, err := on.LoadGraph(bytes.NewReader(file.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			lb := l.Buffers()
			for i := range conds {
				latchSetAll(t, on, []*recorder.Buffer{lb[ist], lb[iv]}, inits[i])
				if err := l.Replay(); err != nil {
					t.Fatal(err)
				}
				gputest.WantEqual(t, "the loaded graph against the model", model(i), latchReadAll(t, on, []*recorder.Buffer{lb[ist], lb[iv]}))
			}
		}
	})
}

// TestProfileReplayWithAFloorReportsTheProfiledReplaysBranches:
// ProfileReplay once read Branches after measureFloor had run the graph
// more times, so they described the last floor round (both modes).
// The documented meaning of ReplayProfile.Branches is "which iterations ran in
// the profiled replay". With WithFloor the graph's work runs rounds more
// times after that replay (documented), and the countdown loop's later
// rounds run no iteration; Branches must still describe the profiled
// replay (the buffers show it ran 3 iterations), not the last floor round.
func TestProfileReplayWithAFloorReportsTheProfiledReplaysBranches(t *testing.T) {
	const max = 5
	latchModes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := latchKernel(t, d, latchCountdown, "countdown")
		bump := latchKernel(t, d, latchBump, "main")
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, latchZeros(16)...)
		g, err := s.Capture(func() error {
			return s.While(st, 0, max, func() error {
				if err := s.Launch(bump, recorder.Groups(2, 1, 1), v); err != nil {
					return err
				}
				return s.Launch(count, recorder.Groups(1, 1, 1), st)
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Release()
		setU32(t, s, st, 3, 0)
		setU32(t, s, v, latchZeros(16)...)
		p, err := s.ProfileReplay(g, recorder.WithFloor(2))
		if err != nil {
			t.Fatal(err)
		}
		// The profiled replay ran 3 iterations; the two floor rounds none
		// (the condition is 0 by then).
		gputest.WantEqual(t, "st and v after ProfileReplay with WithFloor(2)", [][]uint32{{0, 3}, latchBumpModel(16, 3)},
			[][]uint32{gputest.ReadU32(t, s, st), gputest.ReadU32(t, s, v)})
		if len(p.Branches) != 1 {
			t.Fatalf("%d branches, want 1", len(p.Branches))
		}
		gputest.WantEqual(t, "Branches[0].Ran: the iterations of the profiled replay", []bool{true, true, true, false, false}, p.Branches[0].Ran)
	})
}

// TestBackToBackLatchedReplaysReadNoStaleEnableWord: latched graphs long enough
// to be pre-encoded (over 64 dispatches) replayed several times in one
// batch, interleaved with Writes of the condition and with a second graph
// — a loaded graph and the graph rebound from it, which share its gate
// buffer — compute what the same sequence of eager steps computes: no
// replay reads an enable word another left behind.
func TestBackToBackLatchedReplaysReadNoStaleEnableWord(t *testing.T) {
	const max = 40 // 40 iterations × 2 dispatches: pre-encoded
	latchModes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := latchKernel(t, d, latchCountdown, "countdown")
		bump := latchKernel(t, d, latchBump, "main")
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, latchZeros(16)...)
		v2 := gputest.UploadU32(t, s, latchZeros(16)...)
		stepOn := func(b *recorder.Buffer) func() error {
			return func() error {
				return s.While(st, 0, max, func() error {
					if err := s.Launch(bump, recorder.Groups(2, 1, 1), b); err != nil {
						return err
					}
					return s.Launch(count, recorder.Groups(1, 1, 1), st)
				})
			}
		}
		g, err := s.Capture(stepOn(v))
		if err != nil {
			t.Fatal(err)
		}
		defer g.Release()
		var file bytes.Buffer
		if _, err := g.WriteTo(&file); err != nil {
			t.Fatal(err)
		}
		l, err := s.LoadGraph(&file)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release()
		lb := l.Buffers()
		lst, lv := lb[latchIndexOf(t, g, st)], lb[latchIndexOf(t, g, v)]
		rl, err := l.Rebind(lv, v2)
		if err != nil {
			t.Fatal(err)
		}
		defer rl.Release()
		// The sequence: (condition, which graph) pairs, no read in between.
		type op struct {
			n     uint32
			which int // 0: g on (st, v); 1: l on (lst, lv); 2: rl on (lst, v2)
		}
		seq := []op{{3, 0}, {0, 0}, {5, 0}, {2, 1}, {4, 2}, {0, 1}, {1, 2}, {50, 0}, {7, 1}, {6, 2}}
		// Eager: l and rl act on their own condition lst, modelled by st
		// run eagerly on the same buffers (v for l, v2 for rl).
		setU32(t, s, v, latchZeros(16)...)
		setU32(t, s, v2, latchZeros(16)...)
		ev, elv := latchZeros(16), latchZeros(16)
		for _, o := range seq {
			setU32(t, s, st, o.n, 0)
			switch o.which {
			case 0:
				setU32(t, s, v, ev...)
				if err := stepOn(v)(); err != nil {
					t.Fatal(err)
				}
				ev = gputest.ReadU32(t, s, v)
			case 1:
				setU32(t, s, v, elv...)
				if err := stepOn(v)(); err != nil {
					t.Fatal(err)
				}
				elv = gputest.ReadU32(t, s, v)
			case 2:
				if err := stepOn(v2)(); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := [][]uint32{ev, elv, gputest.ReadU32(t, s, v2)}
		setU32(t, s, v, latchZeros(16)...)
		setU32(t, s, lv, latchZeros(16)...)
		setU32(t, s, v2, latchZeros(16)...)
		for _, o := range seq {
			cond, gr := st, g
			switch o.which {
			case 1:
				cond, gr = lst, l
			case 2:
				cond, gr = lst, rl
			}
			if err := recorder.WriteSlice(s, cond, 0, []uint32{o.n, 0}); err != nil {
				t.Fatal(err)
			}
			if err := gr.Replay(); err != nil {
				t.Fatal(err)
			}
		}
		gputest.WantEqual(t, "v, the loaded graph's v and v2 after the whole sequence", want,
			[][]uint32{gputest.ReadU32(t, s, v), gputest.ReadU32(t, s, lv), gputest.ReadU32(t, s, v2)})
	})
}
