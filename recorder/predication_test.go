package recorder_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// sumStepWGSL: one iteration of a loop whose body is a real kernel, with
// workgroup memory and barriers: each of the 4 workgroups sums its 64
// inputs by a tree reduction and adds the sum to out[wg]; workgroup 0 also
// takes one from the loop condition st[0] (down to 0) and counts the
// iteration in st[1].
const sumStepWGSL = `
@group(0) @binding(0) var<storage, read> xs: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(1) @binding(0) var<storage, read_write> st: array<u32>;

var<workgroup> part: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
	part[li] = xs[wg.x * 64u + li];
	workgroupBarrier();
	for (var s = 32u; s > 0u; s = s >> 1u) {
		if (li < s) { part[li] = part[li] + part[li + s]; }
		workgroupBarrier();
	}
	if (li == 0u) {
		out[wg.x] = out[wg.x] + part[0];
	}
	if (li == 0u && wg.x == 0u) {
		if (st[0] > 0u) { st[0] = st[0] - 1u; }
		st[1] = st[1] + 1u;
	}
}
`

// wideWGSL: a dispatch too large to be predicated (more than 256
// workgroups): adds one to each of its elements.
const wideWGSL = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wg: vec3<u32>) { v[wg.x] = v[wg.x] + 1u; }
`

// lastGroupWGSL uses bind group 3, the last a device offers: its kernel
// has no guarded variant.
const lastGroupWGSL = `
@group(3) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(1)
fn main() { c[0] = c[0] + 1u; }
`

// TestPredicatedAndIndirectBodiesAgree: a While whose body holds a
// predicatable kernel (with barriers and workgroup memory), a dispatch too
// wide to be predicated and a kernel without a guarded variant runs each
// exactly as often as the Go model says, whichever way its dispatches are
// skipped; String names the dispatches that went through a guarded variant,
// and only those.
func TestPredicatedAndIndirectBodiesAgree(t *testing.T) {
	const wide = 300 // workgroups: past the predication bound
	const max = 6
	xs := make([]uint32, 256)
	var sums [4]uint32
	for i := range xs {
		xs[i] = uint32(i*7 + 1)
		sums[i/64] += xs[i]
	}
	model := func(n uint32) [][]uint32 {
		it := min(n, max)
		out := make([]uint32, 4)
		for w := range out {
			out[w] = it * sums[w]
		}
		v := make([]uint32, wide)
		for i := range v {
			v[i] = it
		}
		return [][]uint32{{n - it, it}, out, v, {it}}
	}
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "predicated", false: "indirect"}[on], func(t *testing.T) {
			d, s := gputest.OpenStream(t, recorder.WithPredication(on))
			sum := gputest.Kernel(t, d, sumStepWGSL)
			widen := gputest.Kernel(t, d, wideWGSL)
			last := gputest.Kernel(t, d, lastGroupWGSL)
			in := gputest.UploadU32(t, s, xs...)
			st := gputest.UploadU32(t, s, 0, 0)
			out := gputest.UploadU32(t, s, 0, 0, 0, 0)
			v := gputest.UploadU32(t, s, make([]uint32, wide)...)
			c := gputest.UploadU32(t, s, 0)
			step := func() error {
				return s.While(st, 0, max, func() error {
					if err := s.Launch(widen, recorder.Groups(wide, 1, 1), v); err != nil {
						return err
					}
					if err := s.Launch(last, recorder.Groups(1, 1, 1), c); err != nil {
						return err
					}
					return s.Launch(sum, recorder.Groups(4, 1, 1), in, out, st)
				})
			}
			reset := func(n uint32) {
				setU32(t, s, st, n, 0)
				setU32(t, s, out, 0, 0, 0, 0)
				setU32(t, s, v, make([]uint32, wide)...)
				setU32(t, s, c, 0)
			}
			read := func() [][]uint32 {
				return [][]uint32{u32s(t, s, st), u32s(t, s, out), u32s(t, s, v), u32s(t, s, c)}
			}
			reset(2)
			g, err := s.Capture(step)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			for _, n := range []uint32{0, 1, 3, max, 40} {
				reset(n)
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
				gputest.WantEqual(t, "replay with n="+itoa(n)+" (st, out, wide, last group)", model(n), read())
			}
			str := g.String()
			if got, want := strings.Count(str, "(predicated)"), map[bool]int{true: 1, false: 0}[on && gputest.Predicates(d)]; got != want {
				t.Errorf("String names %d predicated kernels, want %d (only the 4-workgroup kernel with bind groups to spare): %s", got, want, str)
			}
		})
	}
}

// TestLatchedWhileSkipsItsGates: a top-level While whose first dispatch does
// not bind the condition needs no gate dispatches when predicated: that
// dispatch decides each iteration from the condition and records it for the
// rest of the body, a nested If's gate included. The loop runs exactly as
// often as the Go model says, with and without predication, ProfileReplay
// reports the same iterations as run, and only the nested If keeps gates.
func TestLatchedWhileSkipsItsGates(t *testing.T) {
	const max = 7
	model := func(n uint32) [][]uint32 {
		it := min(n, max)
		ifRuns := (it + 1) / 2
		return [][]uint32{{n - it, it}, {it % 2, it}, {ifRuns % 2, ifRuns}}
	}
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "predicated", false: "indirect"}[on], func(t *testing.T) {
			d, s := gputest.OpenStream(t, recorder.WithPredication(on))
			count := gputest.Kernel(t, d, countdownWGSL)
			toggle := gputest.Kernel(t, d, toggleWGSL)
			st := gputest.UploadU32(t, s, 0, 0)
			flag := gputest.UploadU32(t, s, 0, 0)
			inner := gputest.UploadU32(t, s, 0, 0)
			step := func() error {
				return s.While(st, 0, max, func() error {
					if err := s.Launch(toggle, recorder.Groups(1, 1, 1), flag); err != nil {
						return err
					}
					if err := s.If(flag, 0, func() error { return s.Launch(toggle, recorder.Groups(1, 1, 1), inner) }); err != nil {
						return err
					}
					return s.Launch(count, recorder.Groups(1, 1, 1), st)
				})
			}
			reset := func(n uint32) {
				setU32(t, s, st, n, 0)
				setU32(t, s, flag, 0, 0)
				setU32(t, s, inner, 0, 0)
			}
			read := func() [][]uint32 { return [][]uint32{u32s(t, s, st), u32s(t, s, flag), u32s(t, s, inner)} }
			reset(3)
			g, err := s.Capture(step)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			for _, n := range []uint32{0, 1, 2, 5, max, 30, 4} {
				reset(n)
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
				gputest.WantEqual(t, "replay with n="+itoa(n)+" (st, flag, inner)", model(n), read())
			}
			reset(4)
			p, err := s.ProfileReplay(g)
			if err != nil {
				t.Fatal(err)
			}
			want := []bool{true, true, true, true, false, false, false}
			if len(p.Branches) == 0 {
				t.Fatal("ProfileReplay reports no branches")
			}
			gputest.WantEqual(t, "the While's iterations that ran (n=4)", want, p.Branches[0].Ran)
			latched := on && gputest.Predicates(d)
			gates := map[bool]string{true: "the recorder's kernels: softgraph_gate ×7;", false: "the recorder's kernels: softgraph_gate ×14;"}[latched]
			if str := g.String(); !strings.Contains(str, gates) {
				t.Errorf("String must show %q (the nested If's gates%s): %s", gates, map[bool]string{true: " only", false: " and the While's"}[latched], str)
			}
		})
	}
}

// TestLatchingKernelsOfEveryBuiltinForm: the latching dispatch finds "the
// first invocation" however its kernel declares its builtins (none it
// needs, a struct of them, local_invocation_id, local_invocation_index),
// over several workgroups: each form, first in a While body, runs exactly
// the iterations the condition allows, without gate dispatches.
func TestLatchingKernelsOfEveryBuiltinForm(t *testing.T) {
	forms := map[string]string{
		"global id only": `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] + 1u; }`,
		"struct of builtins": `
struct In { @builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32 }
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(i: In) { v[i.wg.x * 8u + i.li] = v[i.wg.x * 8u + i.li] + 1u; }`,
		"local id and workgroup id": `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) w: vec3<u32>) { v[w.x * 8u + l.x] = v[w.x * 8u + l.x] + 1u; }`,
		"struct without workgroup id": `
struct In { @builtin(global_invocation_id) g: vec3<u32> }
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(i: In) { v[i.g.x] = v[i.g.x] + 1u; }`,
	}
	const max, n = 5, 64
	d, s := gputest.OpenStream(t)
	count := gputest.Kernel(t, d, countdownWGSL)
	for name, src := range forms {
		t.Run(name, func(t *testing.T) {
			k := gputest.Kernel(t, d, src)
			st := gputest.UploadU32(t, s, 0, 0)
			v := gputest.UploadU32(t, s, make([]uint32, n)...)
			g, err := s.Capture(func() error {
				return s.While(st, 0, max, func() error {
					if err := s.Launch(k, recorder.Groups(n/8, 1, 1), v); err != nil {
						return err
					}
					return s.Launch(count, recorder.Groups(1, 1, 1), st)
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			if str := g.String(); strings.Contains(str, "softgraph_gate") == gputest.Predicates(d) {
				t.Errorf("the While should need gates only on OpenGL (%s): %s", d.Info().Backend, str)
			}
			for _, c := range []uint32{3, 0, 9} {
				setU32(t, s, st, c, 0)
				setU32(t, s, v, make([]uint32, n)...)
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
				want := make([]uint32, n)
				for i := range want {
					want[i] = min(c, max)
				}
				gputest.WantEqual(t, "v after a replay with n="+itoa(c), want, u32s(t, s, v))
			}
		})
	}
}

// TestRebindingALatchedLoop: rebinding the condition of a latched While
// moves the latch to the new buffer; rebinding the first dispatch's buffer
// to the condition's (so it would bind the condition itself, which a latch
// cannot) is not refused: the rebound graph is lowered again with gates,
// and computes what the same step run eagerly does.
func TestRebindingALatchedLoop(t *testing.T) {
	const max = 6
	d, s := gputest.OpenStream(t)
	count := gputest.Kernel(t, d, countdownWGSL)
	toggle := gputest.Kernel(t, d, toggleWGSL)
	st := gputest.UploadU32(t, s, 0, 0)
	st2 := gputest.UploadU32(t, s, 0, 0)
	flag := gputest.UploadU32(t, s, 0, 0)
	step := func(cond, first *recorder.Buffer) func() error {
		return func() error {
			return s.While(cond, 0, max, func() error {
				if err := s.Launch(toggle, recorder.Groups(1, 1, 1), first); err != nil {
					return err
				}
				return s.Launch(count, recorder.Groups(1, 1, 1), cond)
			})
		}
	}
	g, err := s.Capture(step(st, flag))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if str := g.String(); gputest.Predicates(d) && strings.Contains(str, "softgraph_gate") {
		t.Fatalf("the loop should be latched: %s", str)
	}
	moved, err := g.Rebind(st, st2)
	if err != nil {
		t.Fatal(err)
	}
	defer moved.Release()
	setU32(t, s, st, 9, 0)
	setU32(t, s, st2, 4, 0)
	setU32(t, s, flag, 0, 0)
	if err := moved.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the rebound loop ran on st2 and left st alone (st, st2, flag)",
		[][]uint32{{9, 0}, {0, 4}, {0, 4}}, [][]uint32{u32s(t, s, st), u32s(t, s, st2), u32s(t, s, flag)})

	onCond, err := g.Rebind(flag, st) // the first dispatch now toggles the condition
	if err != nil {
		t.Fatalf("Rebind onto the condition: %v", err)
	}
	defer onCond.Release()
	if str := onCond.String(); !strings.Contains(str, "softgraph_gate") {
		t.Errorf("a first dispatch binding the condition needs gates: %s", str)
	}
	for _, n := range []uint32{0, 1, 2, 5} {
		setU32(t, s, st, n, 0)
		if err := onCond.Replay(); err != nil {
			t.Fatal(err)
		}
		replayed := u32s(t, s, st)
		setU32(t, s, st, n, 0)
		if err := step(st, st)(); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, "the rebound graph agrees with the eager step for n="+itoa(n), u32s(t, s, st), replayed)
	}
}

// TestReleasingABodyKernelReleasesItsVariants: the guarded variants made
// for a kernel's dispatches in a body go with the kernel: after the
// kernel's Release, the graph built with them still replays correctly,
// and once the graph is released too no kernel is left alive.
func TestReleasingABodyKernelReleasesItsVariants(t *testing.T) {
	d, s := gputest.OpenStream(t)
	if !gputest.Predicates(d) {
		t.Skip("OpenGL gates every body dispatch indirectly: no variants are made")
	}
	before := live(t, d).Kernels
	count, err := d.Kernel(countdownWGSL, "main")
	if err != nil {
		t.Fatal(err)
	}
	toggle, err := d.Kernel(toggleWGSL, "main")
	if err != nil {
		t.Fatal(err)
	}
	st := gputest.UploadU32(t, s, 0, 0)
	flag := gputest.UploadU32(t, s, 0, 0)
	g, err := s.Capture(func() error {
		return s.While(st, 0, 4, func() error {
			if err := s.Launch(toggle, recorder.Groups(1, 1, 1), flag); err != nil {
				return err
			}
			return s.Launch(count, recorder.Groups(1, 1, 1), st)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := live(t, d).Kernels; got != before+4 {
		t.Errorf("two kernels and their variants (a latching one and a plain one): %d live kernels, want %d", got, before+4)
	}
	count.Release()
	toggle.Release()
	setU32(t, s, st, 3, 0)
	setU32(t, s, flag, 0, 0)
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the graph replays after its kernels' Release (st, flag)", [][]uint32{{0, 3}, {1, 3}}, [][]uint32{u32s(t, s, st), u32s(t, s, flag)})
	g.Release()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := live(t, d).Kernels; got != before {
		t.Errorf("after the kernels' and the graph's Release: %d live kernels, want %d", got, before)
	}
}

// TestVersion1GraphFilesStillLoad: testdata/v1-while.sgraph was saved by
// the build before graph files had an enable buffer of their own (a While
// of 6 iterations holding an If, its enable words among the gate buffer's
// counts). It still loads and replays as its step computes, reports its
// branches, and saved again (as the current version) and reloaded, it
// does the same.
func TestVersion1GraphFilesStillLoad(t *testing.T) {
	const max = 6
	model := func(n uint32) [][]uint32 {
		it := min(n, max)
		ifRuns := (it + 1) / 2
		return [][]uint32{{n - it, it}, {it % 2, it}, {ifRuns % 2, ifRuns}}
	}
	_, s := gputest.OpenStream(t)
	data, err := os.ReadFile("testdata/v1-while.sgraph")
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != 1 {
		t.Fatalf("the test file is version %d, want 1", v)
	}
	g, err := s.LoadGraph(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	var again bytes.Buffer
	if _, err := g.Save(&again, recorder.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(again.Bytes()[8:]); v != recorder.GraphFileVersion {
		t.Errorf("saved again as version %d, want %d", v, recorder.GraphFileVersion)
	}
	g2, err := s.LoadGraph(&again)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Release()
	for name, gr := range map[string]*recorder.Graph{"version 1": g, "saved again": g2} {
		bufs := gr.Buffers()
		if len(bufs) != 3 {
			t.Fatalf("%s: %d buffers, want 3 (condition, flag, inner)", name, len(bufs))
		}
		for _, n := range []uint32{0, 1, 4, 6, 20} {
			setU32(t, s, bufs[0], n, 0)
			setU32(t, s, bufs[1], 0, 0)
			setU32(t, s, bufs[2], 0, 0)
			if err := gr.Replay(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, name+": replay with n="+itoa(n), model(n), [][]uint32{u32s(t, s, bufs[0]), u32s(t, s, bufs[1]), u32s(t, s, bufs[2])})
		}
		setU32(t, s, bufs[0], 2, 0)
		p, err := s.ProfileReplay(gr)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Branches) != 2 {
			t.Fatalf("%s: %d branches, want 2", name, len(p.Branches))
		}
		gputest.WantEqual(t, name+": the While's iterations that ran (n=2)", []bool{true, true, false, false, false, false}, p.Branches[0].Ran)
	}
}
