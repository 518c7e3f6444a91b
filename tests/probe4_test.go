package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// This file holds the fourth adversarial review: documented guarantees
// checked one by one, resource churn, Close and Release orderings, hostile
// callbacks, numeric extremes and ParamsFrom's layout. Three tests fail
// without their fix: TestParamsFromLaysOutMatricesAsWGSLDoes (matrices
// laid out as arrays), TestParamsFromRefusesWhatHasNoWGSLForm (a nested
// empty struct took no bytes) and TestMemoryStatsCountsEveryLiveTexture
// (textures only a caller held were not counted); the others are guards
// of contracts that held. Tests that could abort the process run in a
// fresh one.

// matP4WGSL reads a uniform holding matrices and scalars after them and
// writes every component, column by column, to out.
const matP4WGSL = `
struct P {
	a: mat2x2<f32>,
	x: f32,
	b: mat3x2<f32>,
	y: f32,
	c: mat2x3<f32>,
	z: f32,
}
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1)
fn main() {
	out[0] = p.a[0][0]; out[1] = p.a[0][1]; out[2] = p.a[1][0]; out[3] = p.a[1][1];
	out[4] = p.x;
	out[5] = p.b[0][0]; out[6] = p.b[0][1]; out[7] = p.b[1][0]; out[8] = p.b[1][1]; out[9] = p.b[2][0]; out[10] = p.b[2][1];
	out[11] = p.y;
	out[12] = p.c[0][0]; out[13] = p.c[0][1]; out[14] = p.c[0][2]; out[15] = p.c[1][0]; out[16] = p.c[1][1]; out[17] = p.c[1][2];
	out[18] = p.z;
}
`

// matWideP4WGSL is matP4WGSL without two-row matrices.
const matWideP4WGSL = `
struct P {
	c: mat2x3<f32>,
	z: f32,
	d: mat3x4<f32>,
}
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1)
fn main() {
	out[0] = p.c[0][0]; out[1] = p.c[0][1]; out[2] = p.c[0][2]; out[3] = p.c[1][0]; out[4] = p.c[1][1]; out[5] = p.c[1][2];
	out[6] = p.z;
	for (var i = 0u; i < 3u; i++) { for (var j = 0u; j < 4u; j++) { out[7u + 4u * i + j] = p.d[i][j]; } }
}
`

// TestParamsFromLaysOutMatricesAsWGSLDoes: ParamsFrom documents
// [C][R]float32 as matCxR<f32>. WGSL lays a matCx2's columns 8 bytes
// apart (a matrix is not an array: the uniform address space's 16-byte
// array stride does not apply), so a mat2x2 is 16 bytes, and the member
// after it starts at byte 16. ParamsFrom laid every matrix out as an
// array of columns, 16 bytes apart, and the kernel read the wrong values.
func TestParamsFromLaysOutMatricesAsWGSLDoes(t *testing.T) {
	p, err := recorder.ParamsFrom(struct {
		A [2][2]float32
		X float32
		B [3][2]float32
		Y float32
		C [2][3]float32
		Z float32
	}{
		A: [2][2]float32{{1, 2}, {3, 4}},
		X: 5,
		B: [3][2]float32{{6, 7}, {8, 9}, {10, 11}},
		Y: 12,
		C: [2][3]float32{{13, 14, 15}, {16, 17, 18}},
		Z: 19,
	})
	if err != nil {
		t.Fatal(err)
	}
	// WGSL: a@0 (align 8, 16 B), x@16, b@24 (align 8, 24 B), y@48,
	// c@64 (align 16, 32 B), z@96; size 112.
	want := make([]byte, 112)
	put := func(off int, v ...float32) {
		for i, f := range v {
			binary.LittleEndian.PutUint32(want[off+4*i:], math.Float32bits(f))
		}
	}
	put(0, 1, 2, 3, 4)
	put(16, 5)
	put(24, 6, 7, 8, 9, 10, 11)
	put(48, 12)
	put(64, 13, 14, 15)
	put(80, 16, 17, 18)
	put(96, 19)
	gputest.WantEqual(t, "ParamsFrom lays the struct out as WGSL does", want, []byte(p))
	// The array tag keeps the array reading: array<vec2<f32>, 2>, 16-byte stride.
	pa, err := recorder.ParamsFrom(struct {
		A [2][2]float32 `wgsl:"array"`
	}{A: [2][2]float32{{1, 2}, {3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	wantA := make([]byte, 32)
	for i, f := range []float32{1, 2, 0, 0, 3, 4} {
		binary.LittleEndian.PutUint32(wantA[4*i:], math.Float32bits(f))
	}
	gputest.WantEqual(t, "[2][2]float32 tagged array is array<vec2<f32>, 2>", wantA, []byte(pa))

	d, s := gputest.OpenStream(t)
	wide, err := recorder.ParamsFrom(struct {
		C [2][3]float32
		Z float32
		D [3][4]float32
	}{C: [2][3]float32{{1, 2, 3}, {4, 5, 6}}, Z: 7, D: [3][4]float32{{8, 9, 10, 11}, {12, 13, 14, 15}, {16, 17, 18, 19}}})
	if err != nil {
		t.Fatal(err)
	}
	out := gputest.Empty(t, s, 19*4)
	if err := s.Launch(gputest.Kernel(t, d, matWideP4WGSL), recorder.Groups(1, 1, 1), out, wide); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the kernel reads every matCx3 and matCx4 component ParamsFrom packed", gputest.Ramp(19, 1), gputest.Read(t, s, out))
	k := gputest.Kernel(t, d, matP4WGSL)
	if err := s.Launch(k, recorder.Groups(1, 1, 1), out, p); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the kernel reads every matrix component and scalar ParamsFrom packed", gputest.Ramp(19, 1), gputest.Read(t, s, out))
}

// TestParamsFromRefusesWhatHasNoWGSLForm: odd Go types are refused with
// ErrInvalidArgument naming the field, never a panic.
func TestParamsFromRefusesWhatHasNoWGSLForm(t *testing.T) {
	type inner struct{ A float32 }
	type empty struct{}
	var nilPtr *struct{ A uint32 }
	var big = new(struct{ A [1 << 20][4]float32 })
	cases := []struct {
		name string
		v    any
		ok   bool
		msg  string
	}{
		{"nil", nil, false, "not a struct"},
		{"nil pointer", nilPtr, false, "nil pointer"},
		{"pointer to pointer", &big, true, ""},
		{"int", 3, false, "not a struct"},
		{"bool field", struct{ B bool }{}, false, "B"},
		{"int field", struct{ I int }{}, false, "I"},
		{"float64 field", struct{ F float64 }{}, false, "F"},
		{"pointer field", struct{ P *uint32 }{}, false, "P"},
		{"slice field", struct{ S []uint32 }{}, false, "S"},
		{"map field", struct{ M map[int]int }{}, false, "M"},
		{"interface field", struct{ I any }{}, false, "I"},
		{"func field", struct{ F func() }{}, false, "F"},
		{"chan field", struct{ C chan int }{}, false, "C"},
		{"zero-length array", struct{ A [0]uint32 }{}, false, "A"},
		{"empty struct", empty{}, false, "no fields"},
		{"nested empty struct", struct {
			E empty
			A uint32
		}{}, false, "E"},
		{"only blank fields", struct{ _ uint32 }{}, false, "no fields"},
		{"unexported fields", struct{ a, b uint32 }{1, 2}, true, ""},
		{"nested", struct {
			I inner
			J [2]inner
		}{}, true, ""},
		{"array of arrays of matrices", struct{ M [2][3][4]float32 }{}, true, ""},
		{"huge", big, true, ""},
	}
	for _, c := range cases {
		var p recorder.Params
		var err error
		if msg := noPanic(func() { p, err = recorder.ParamsFrom(c.v) }); msg != "" {
			t.Errorf("%s: ParamsFrom panicked: %s", c.name, msg)
			continue
		}
		if c.ok {
			if err != nil || len(p) == 0 || len(p)%16 != 0 {
				t.Errorf("%s: ParamsFrom = %d bytes, %v; want a positive multiple of 16", c.name, len(p), err)
			}
			continue
		}
		if problem := gputest.CheckErr(err, []error{recorder.ErrInvalidArgument}, []string{c.msg}); problem != "" {
			t.Errorf("%s: %s", c.name, problem)
		}
	}
}

// addOneP4 launches the add-one kernel src → dst over n floats.
func addOneP4(s *recorder.Stream, k *wgpu.Kernel, src, dst *recorder.Buffer, n uint32) error {
	return s.Launch(k, recorder.Groups((n+63)/64, 1, 1), src, dst, gputest.U32(n))
}

// everyGraphCallP4 runs every Graph call on g and checks what each
// documents: Replay runs, String and WriteDOT describe it, Stats and Len
// agree, Save and WriteTo write a file LoadGraph builds into a graph of
// the same length, ProfileReplay (with a floor) returns one time per
// dispatch.
func everyGraphCallP4(t *testing.T, what string, s *recorder.Stream, g *recorder.Graph) {
	t.Helper()
	if err := g.Replay(); err != nil {
		t.Fatalf("%s: Replay: %v", what, err)
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("%s: Sync after Replay: %v", what, err)
	}
	if !strings.HasPrefix(g.String(), "graph:") {
		t.Errorf("%s: String = %q", what, g.String())
	}
	var dot bytes.Buffer
	if err := g.WriteDOT(&dot); err != nil || !strings.Contains(dot.String(), "digraph") {
		t.Errorf("%s: WriteDOT = %v:\n%s", what, err, dot.String())
	}
	if st := g.Stats(); st.Dispatches != g.Len() {
		t.Errorf("%s: Stats().Dispatches = %d, Len = %d", what, st.Dispatches, g.Len())
	}
	for _, contents := range []bool{false, true} {
		var file bytes.Buffer
		n, err := g.Save(&file, recorder.SaveOptions{Contents: contents})
		if err != nil || n != int64(file.Len()) {
			t.Fatalf("%s: Save(Contents=%v) = %d, %v (wrote %d bytes)", what, contents, n, err, file.Len())
		}
		lg, err := s.LoadGraph(bytes.NewReader(file.Bytes()))
		if err != nil {
			t.Fatalf("%s: LoadGraph of its file (Contents=%v): %v", what, contents, err)
		}
		if lg.Len() != g.Len() {
			t.Errorf("%s: the loaded graph has %d dispatches, the saved one %d", what, lg.Len(), g.Len())
		}
		if err := lg.Replay(); err != nil {
			t.Errorf("%s: Replay of the loaded graph: %v", what, err)
		}
		for _, b := range lg.Buffers() {
			b.Release()
		}
		lg.Release()
	}
	p, err := s.ProfileReplay(g, recorder.WithFloor(2))
	if err != nil {
		t.Fatalf("%s: ProfileReplay: %v", what, err)
	}
	if p.Method == recorder.ProfileTimestamps && len(p.Dispatches) != g.Len() {
		t.Errorf("%s: ProfileReplay timed %d dispatches of %d", what, len(p.Dispatches), g.Len())
	}
	// Under wine Go's clock steps by the timer tick, longer than the submit
	// and wait of these graphs: there 0 is a measurement, not a failure.
	if p.SubmitWait < 0 || p.SubmitWait == 0 && runtime.GOOS != "windows" {
		t.Errorf("%s: WithFloor(2) measured SubmitWait = %v", what, p.SubmitWait)
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("%s: Sync after ProfileReplay: %v", what, err)
	}
}

// TestGraphsWithoutDispatchesWorkThroughEveryGraphCall: a capture of
// nothing, of copies and clears only, and of an If and a While whose
// bodies record nothing, seal into graphs that replay (computing what
// they recorded), describe themselves, save, load and profile.
func TestGraphsWithoutDispatchesWorkThroughEveryGraphCall(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Ramp(64, 0))
	b := gputest.Empty(t, s, a.Size())
	cond := gputest.Empty(t, s, 16)
	if err := recorder.WriteSlice(s, cond, 0, []uint32{1, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}

	empty, err := s.Capture(func() error { return nil })
	if err != nil {
		t.Fatalf("capturing nothing: %v", err)
	}
	defer empty.Release()
	gputest.WantEqual(t, "an empty graph has no dispatches", 0, empty.Len())
	everyGraphCallP4(t, "empty graph", s, empty)

	transfers, err := s.Capture(func() error {
		if err := s.Clear(b, 0, b.Size()); err != nil {
			return err
		}
		return s.Copy(b, 0, a, 16, a.Size()-16)
	})
	if err != nil {
		t.Fatalf("capturing copies and clears: %v", err)
	}
	defer transfers.Release()
	everyGraphCallP4(t, "copies and clears", s, transfers)
	want := append(gputest.Ramp(60, 4), 0, 0, 0, 0)
	gputest.WantEqual(t, "the transfer graph copies after clearing", want, gputest.Read(t, s, b))

	bodies, err := s.Capture(func() error {
		if err := s.If(cond, 0, func() error { return nil }); err != nil {
			return err
		}
		if err := s.While(cond, 4, 3, func() error { return nil }); err != nil {
			return err
		}
		return addOneP4(s, k, a, b, 64)
	})
	if err != nil {
		t.Fatalf("capturing empty bodies: %v", err)
	}
	defer bodies.Release()
	everyGraphCallP4(t, "empty If and While bodies", s, bodies)
	gputest.WantEqual(t, "the launch after empty bodies runs", gputest.Ramp(64, 1), gputest.Read(t, s, b))
	p, err := s.ProfileReplay(bodies)
	if err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the profile says which empty bodies ran", []recorder.BranchRun{
		{Region: 1, Kind: "If", Ran: []bool{true}},
		{Region: 2, Kind: "While", Ran: []bool{false, false, false}},
	}, p.Branches)
}

// TestHostileBodiesComputeWhatTheyRecord: an If body that clears its own
// condition and then tests it again in a nested If (the nested body must
// not run: the GPU reads the condition when it reaches the gate) and an
// If nested in an If on the same word, eagerly and replayed; and a While
// whose body records nothing (eagerly it runs maxIterations times;
// captured, the work after it runs once and the condition is untouched).
func TestHostileBodiesComputeWhatTheyRecord(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownP3WGSL)
	st := gputest.Empty(t, s, 16)
	cond := gputest.Empty(t, s, 16)
	step := func() error {
		// cond[0] = 1 on entry. Outer If runs: it counts once, clears
		// cond[0], and its inner If must see 0.
		return s.If(cond, 0, func() error {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), st); err != nil {
				return err
			}
			if err := s.If(cond, 0, func() error {
				return s.Launch(k, recorder.Groups(1, 1, 1), st) // same word, still 1
			}); err != nil {
				return err
			}
			if err := s.Clear(cond, 0, 4); err != nil {
				return err
			}
			return s.If(cond, 0, func() error {
				return s.Launch(k, recorder.Groups(100, 1, 1), st)
			})
		})
	}
	reset := func() {
		t.Helper()
		setU32P3(t, s, st, 0, 0, 0, 0)
		setU32P3(t, s, cond, 1, 0, 0, 0)
	}
	reset()
	if err := step(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "eagerly: the outer and the same-word inner body ran, the cleared one did not", []uint32{0, 2, 0, 0}, gputest.ReadU32(t, s, st))
	reset()
	g, err := s.Capture(func() error { reset(); return step() })
	// The recorded run's reset is a Write while recording: Capture fails.
	if err == nil {
		g.Release()
		t.Fatal("a Write inside the recorded run must fail the capture")
	}
	reset()
	g = gputest.Capture(t, s, func() {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	})
	reset()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "replayed: the outer and the same-word inner body ran, the cleared one did not", []uint32{0, 2, 0, 0}, gputest.ReadU32(t, s, st))

	// A While whose body records nothing: the condition never changes.
	setU32P3(t, s, cond, 1, 0, 0, 0)
	calls := 0
	if err := s.While(cond, 0, 5, func() error { calls++; return nil }); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "an eager While with an empty body runs maxIterations times", 5, calls)
	empty := gputest.Capture(t, s, func() {
		if err := s.While(cond, 0, 7, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), st); err != nil {
			t.Fatal(err)
		}
	})
	setU32P3(t, s, st, 0, 0, 0, 0)
	if err := empty.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the launch after a While with an empty body runs once", []uint32{0, 1, 0, 0}, gputest.ReadU32(t, s, st))
	gputest.WantEqual(t, "the condition is untouched", []uint32{1, 0, 0, 0}, gputest.ReadU32(t, s, cond))
}

// TestHostileCaptureStepsFailTheCaptureCleanly: a Capture step that calls
// Capture (on its own stream, or on another), Sync, Read, ProfileReplay
// of an older graph, StartProfile without ending it, AbortCapture, or
// Trim: every outcome is a typed error or a working graph, the stream
// ends in NoCapture, nothing hangs, and the stream computes afterwards.
func TestHostileCaptureStepsFailTheCaptureCleanly(t *testing.T) {
	d, s := gputest.OpenStream(t)
	other := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 0))
	b := gputest.Empty(t, s, a.Size())
	old := gputest.Capture(t, s, func() {
		gputest.MustChain(t, s, k, a, b, 2, 64)
	})
	oa := gputest.Upload(t, other, gputest.Fill(64, 0))
	ob := gputest.Empty(t, other, oa.Size())
	chain := func() error { return gputest.Chain(s, k, a, b, 2, 64) }
	cases := map[string]struct {
		hostile func() error
		ok      bool // Capture may succeed
	}{
		"nested Capture": {func() error {
			g, err := s.Capture(chain)
			if g != nil {
				g.Release()
			}
			return err
		}, false},
		"Capture of another stream": {func() error {
			g, err := other.Capture(func() error { return gputest.Chain(other, k, oa, ob, 2, 64) })
			if g != nil {
				g.Release()
			}
			return err
		}, true},
		"Sync":                     {s.Sync, false},
		"Read":                     {func() error { _, err := s.Read(a); return err }, false},
		"ProfileReplay":            {func() error { _, err := s.ProfileReplay(old); return err }, false},
		"StartProfile":             {func() error { _, err := s.StartProfile(); return err }, false},
		"AbortCapture":             {s.AbortCapture, false},
		"Trim":                     {func() error { _, err := s.Trim(); return err }, false},
		"GraphPrepare":             {s.GraphPrepare, false},
		"Replay of an older graph": {old.Replay, true},
	}
	for name, c := range cases {
		calls := 0
		var graph *recorder.Graph
		err := within(t, 30*time.Second, name, func() error {
			var err error
			graph, err = s.Capture(func() error {
				calls++
				if err := chain(); err != nil {
					return err
				}
				return c.hostile()
			})
			return err
		})
		switch {
		case err == nil && !c.ok:
			t.Errorf("%s inside a capture step: Capture succeeded", name)
		case err != nil && c.ok:
			t.Errorf("%s inside a capture step: Capture failed: %v", name, err)
		case err != nil && !errors.Is(err, lifecycle.ErrGraphState) && !errors.Is(err, recorder.ErrInvalidArgument):
			t.Errorf("%s inside a capture step: want an error wrapping ErrGraphState or ErrInvalidArgument, got %v", name, err)
		}
		if graph != nil {
			graph.Release()
		}
		wantState(t, name+" inside a capture step leaves NoCapture", s, lifecycle.NoCapture)
		// A profile the step left running is ended, or refused, with a typed error.
		if tok, err := s.StartProfile(); err == nil {
			if _, err := s.EndProfile(tok); err != nil {
				t.Errorf("%s: EndProfile: %v", name, err)
			}
		} else if !errors.Is(err, recorder.ErrInvalidArgument) {
			t.Errorf("%s: StartProfile after the capture: %v", name, err)
		}
		if err := s.Sync(); err != nil {
			t.Errorf("%s: Sync after the capture: %v", name, err)
		}
		before := gputest.Read(t, s, a)
		gputest.MustChain(t, s, k, a, b, 2, 64)
		gputest.WantEqual(t, name+": the stream computes after the capture", gputest.Plus(before, 2), gputest.Read(t, s, a))
	}
}

// TestNumericExtremesAreRefusedWithNamedErrors: offsets and sizes near
// 2^64 (where offset+size overflows), workgroup counts of 0 and 2^31,
// While counts that are negative or past MaxWhileIterations, and buffer
// sizes near 2^64 are refused with ErrInvalidArgument (or, for memory,
// the device's out-of-memory or validation error), and nothing aborts.
func TestNumericExtremesAreRefusedWithNamedErrors(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		k := gputest.Kernel(t, d, gputest.AddOneWGSL)
		a := gputest.Upload(t, s, gputest.Fill(64, 1))
		b := gputest.Empty(t, s, a.Size())
		ind := gputest.Empty(t, s, 16)
		const top = math.MaxUint64 &^ 3 // a multiple of 4: only the range check can refuse it
		inv := []error{recorder.ErrInvalidArgument}
		cases := map[string]func() error{
			"Write at 2^64-4":            func() error { return s.Write(a, top, make([]byte, 8)) },
			"WriteSlice at 2^64-4":       func() error { return recorder.WriteSlice(s, a, top, []uint32{1, 2}) },
			"Clear at 2^64-4":            func() error { return s.Clear(a, top, 8) },
			"Clear of 2^64-4 bytes at 4": func() error { return s.Clear(a, 4, top) },
			"Copy to 2^64-4":             func() error { return s.Copy(b, top, a, 0, 8) },
			"Copy from 2^64-4":           func() error { return s.Copy(b, 0, a, top, 8) },
			"Copy of 2^64-4 bytes":       func() error { return s.Copy(b, 4, a, 4, top) },
			"Indirect at 2^64-4":         func() error { return s.Launch(k, recorder.Indirect(ind, top), a, b, gputest.U32(64)) },
			"Indirect at 2^64-12":        func() error { return s.Launch(k, recorder.Indirect(ind, math.MaxUint64-11), a, b, gputest.U32(64)) },
			"If at 2^64-4":               func() error { return s.If(ind, top, func() error { return nil }) },
			"While at 2^64-4":            func() error { return s.While(ind, top, 1, func() error { return nil }) },
			"While -1 iterations":        func() error { return s.While(ind, 0, -1, func() error { return nil }) },
			"While MinInt iterations":    func() error { return s.While(ind, 0, math.MinInt, func() error { return nil }) },
			"While MaxInt iterations":    func() error { return s.While(ind, 0, math.MaxInt, func() error { return nil }) },
			"While 0 iterations":         func() error { return s.While(ind, 0, 0, func() error { return nil }) },
			"Groups(0,0,0)":              func() error { return s.Launch(k, recorder.Groups(0, 0, 0), a, b, gputest.U32(64)) },
			"Groups(1,0,1)":              func() error { return s.Launch(k, recorder.Groups(1, 0, 1), a, b, gputest.U32(64)) },
			"Groups(2^31,1,1)":           func() error { return s.Launch(k, recorder.Groups(1<<31, 1, 1), a, b, gputest.U32(64)) },
			"Groups(1,1,2^32-1)":         func() error { return s.Launch(k, recorder.Groups(1, 1, math.MaxUint32), a, b, gputest.U32(64)) },
			"Params of 2^16+4 bytes":     func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, b, make(recorder.Params, 1<<16+4)) },
			"Empty(2^64-4)":              func() error { _, err := s.Empty(top); return err },
			"Empty(2^63)":                func() error { _, err := s.Empty(1 << 63); return err },
			"Empty(0)":                   func() error { _, err := s.Empty(0); return err },
			"Empty(2^64-1)":              func() error { _, err := s.Empty(math.MaxUint64); return err },
			"NewTexture 2^32-1 wide": func() error {
				_, err := s.NewTexture(recorder.TextureDesc{Width: math.MaxUint32, Height: math.MaxUint32, Depth: math.MaxUint32, Format: "rgba32float"})
				return err
			},
			"UploadTexture 2^31 wide": func() error {
				_, err := s.UploadTexture(recorder.TextureDesc{Width: 1 << 31, Height: 1 << 31, Format: "r32float"}, make([]byte, 16))
				return err
			},
			"UploadTexture of 0×0":        func() error { _, err := s.UploadTexture(recorder.TextureDesc{Format: "r32float"}, nil); return err },
			"ReadSlice of a 3-byte type":  func() error { _, err := recorder.ReadSlice[uint16](s, gputest.Empty(t, s, 4)); return err },
			"WriteSlice past the end":     func() error { return recorder.WriteSlice(s, a, a.Size()-4, []uint64{1}) },
			"WithFloor(-1) ProfileReplay": nil,
		}
		delete(cases, "ReadSlice of a 3-byte type") // uint16 of 4 bytes is fine; kept out
		delete(cases, "WithFloor(-1) ProfileReplay")
		for name, f := range cases {
			var err error
			if msg := noPanic(func() { err = f() }); msg != "" {
				t.Errorf("%s panicked: %s", name, msg)
				continue
			}
			if err == nil {
				t.Errorf("%s: want an error, got nil", name)
				continue
			}
			if strings.HasPrefix(name, "Empty(2^") || strings.Contains(name, "Texture") {
				if !errors.Is(err, recorder.ErrInvalidArgument) && !errors.Is(err, wgpu.ErrOutOfMemory) && !errors.Is(err, wgpu.ErrValidation) {
					t.Errorf("%s: want ErrInvalidArgument or a device error, got %v", name, err)
				}
				continue
			}
			if problem := gputest.CheckErr(err, inv, nil); problem != "" {
				t.Errorf("%s: %s", name, problem)
			}
		}
		if err := s.Sync(); err != nil {
			t.Fatalf("nothing refused may queue an error: %v", err)
		}
		gputest.MustChain(t, s, k, a, b, 2, 64)
		gputest.WantEqual(t, "the stream computes after the refusals", gputest.Fill(64, 3), gputest.Read(t, s, a))
	})
}

// TestErrorsMatchTheirDocumentedTypes: every documented error type is
// reachable with errors.As and matches its documented sentinels with
// errors.Is: *recorder.Error, *CaptureError (ErrGraphState and each
// cause), *StepError (the step's error), *DeferredError (the device's
// *wgpu.DeviceError), *GraphFileError (ErrGraphFile), *wgpu.CompileError
// (ErrCompile), *wgpu.Error, and lifecycle's *StateError.
func TestErrorsMatchTheirDocumentedTypes(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())

	err := s.Write(a, 3, make([]byte, 4))
	var re *recorder.Error
	if !errors.As(err, &re) || re.Op != "Write" || !errors.Is(err, recorder.ErrInvalidArgument) || !strings.Contains(re.Arg, "offset=3") {
		t.Errorf("Write at 3: want a *recorder.Error{Op: Write, Arg naming offset=3} wrapping ErrInvalidArgument, got %#v", err)
	}

	if err := s.BeginCapture(); err == nil {
		t.Fatal("BeginCapture without GraphPrepare must fail")
	} else if !errors.Is(err, lifecycle.ErrGraphState) {
		t.Errorf("BeginCapture without GraphPrepare: want ErrGraphState, got %v", err)
	} else {
		var se *lifecycle.StateError
		if !errors.As(err, &se) {
			t.Errorf("BeginCapture without GraphPrepare: want a *lifecycle.StateError inside, got %#v", err)
		}
	}

	sentinel := errors.New("the step's own error")
	_, err = s.Capture(func() error { return sentinel })
	var step *recorder.StepError
	if !errors.As(err, &step) || !errors.Is(err, sentinel) || step.Run != "warmup" {
		t.Errorf("a failing step: want a *StepError{Run: warmup} wrapping its error, got %#v", err)
	}

	_, err = s.Capture(func() error {
		if s.State() == lifecycle.Capture {
			return recorder.WriteSlice(s, a, 0, []float32{1})
		}
		return nil
	})
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) || !errors.Is(err, lifecycle.ErrGraphState) || len(ce.Causes) == 0 || ce.Op != "EndCapture" {
		t.Errorf("a Write while recording: want a *CaptureError{Op: EndCapture} with causes, matching ErrGraphState, got %#v", err)
	} else {
		for _, c := range ce.Causes {
			if !errors.Is(err, c) {
				t.Errorf("the CaptureError must match its cause %v", c)
			}
		}
	}

	_, err = s.LoadGraph(strings.NewReader("not a graph file"))
	var gfe *recorder.GraphFileError
	if !errors.As(err, &gfe) || !errors.Is(err, recorder.ErrGraphFile) {
		t.Errorf("LoadGraph of junk: want a *GraphFileError wrapping ErrGraphFile, got %#v", err)
	}

	_, err = d.Kernel("fn main( {", "main")
	var cpe *wgpu.CompileError
	if !errors.As(err, &cpe) || !errors.Is(err, wgpu.ErrCompile) {
		t.Errorf("bad WGSL: want a *wgpu.CompileError wrapping ErrCompile, got %#v", err)
	}

	err = s.Launch(k, recorder.Groups(1, 1, 1), a, b)
	if !errors.As(err, &re) || re.Op != "Launch" || !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("a launch missing an argument: want a *recorder.Error{Op: Launch} wrapping ErrInvalidArgument, got %#v", err)
	}

	// Every refusal on a closed stream names ErrClosed, and the Stream's
	// own errors are *recorder.Error.
	s2 := gputest.Stream(t, d)
	c := gputest.Upload(t, s2, gputest.Fill(4, 1))
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"Sync":        s2.Sync,
		"Write":       func() error { return recorder.WriteSlice(s2, c, 0, []float32{1}) },
		"Launch":      func() error { return addOneP4(s2, k, c, c, 4) },
		"ReadTexture": func() error { _, err := s2.ReadTexture(nil); return err },
		"LoadGraph":   func() error { _, err := s2.LoadGraph(strings.NewReader("")); return err },
		"Trim":        func() error { _, err := s2.Trim(); return err },
	} {
		err := f()
		if !errors.Is(err, recorder.ErrClosed) {
			t.Errorf("%s on a closed stream: want ErrClosed, got %v", name, err)
		}
	}
}

// TestEndProfileRefusesEveryTokenButTheRunningOne: a token of another
// stream, the zero token, a token already ended, and a stale token after
// a new profile started are refused with ErrInvalidArgument and leave the
// running profile running; the right token then returns a profile.
func TestEndProfileRefusesEveryTokenButTheRunningOne(t *testing.T) {
	d, s := gputest.OpenStream(t)
	other := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())
	first, err := s.StartProfile()
	if err != nil {
		t.Fatal(err)
	}
	gputest.MustChain(t, s, k, a, b, 2, 64)
	p, err := s.EndProfile(first)
	if err != nil || p.Method == 0 {
		t.Fatalf("EndProfile = %+v, %v", p, err)
	}
	if p.Method == recorder.ProfileTimestamps && p.Passes == 0 {
		t.Errorf("a profile around two launches timed no pass: %+v", p)
	}
	running, err := s.StartProfile()
	if err != nil {
		t.Fatal(err)
	}
	otherTok, err := other.StartProfile()
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]recorder.ProfileToken{
		"the zero token":         {},
		"an ended token":         first,
		"another stream's token": otherTok,
	} {
		if _, err := s.EndProfile(tok); !errors.Is(err, recorder.ErrInvalidArgument) {
			t.Errorf("EndProfile(%s): want ErrInvalidArgument, got %v", name, err)
		}
	}
	if _, err := s.StartProfile(); !errors.Is(err, recorder.ErrInvalidArgument) {
		t.Errorf("a second StartProfile while one runs: want ErrInvalidArgument, got %v", err)
	}
	gputest.MustChain(t, s, k, a, b, 2, 64)
	if p, err := s.EndProfile(running); err != nil || p.Method == 0 {
		t.Errorf("the running profile survives refused tokens: %+v, %v", p, err)
	}
	if _, err := s.EndProfile(running); !errors.Is(err, recorder.ErrInvalidArgument) {
		t.Errorf("EndProfile twice: want ErrInvalidArgument, got %v", err)
	}
	if _, err := other.EndProfile(otherTok); err != nil {
		t.Errorf("the other stream's profile: %v", err)
	}
	gputest.WantEqual(t, "profiled work computes", gputest.Fill(64, 5), gputest.Read(t, s, a))
}

// boundedLiveP4 fails unless after holds at most a few more native
// objects of each kind than before: the stream keeps a few spare encoders
// and staging buffers (its submitter's, one per size class), while a leak
// over a churn of thousands of cycles shows as hundreds.
func boundedLiveP4(t testing.TB, what string, before, after driver.Live) {
	t.Helper()
	b, a := reflect.ValueOf(before), reflect.ValueOf(after)
	for i := range b.NumField() {
		if a.Field(i).Int() > b.Field(i).Int()+4 {
			t.Errorf("%s: %s grew from %d to %d (all: %+v, before %+v)", what, b.Type().Field(i).Name, b.Field(i).Int(), a.Field(i).Int(), after, before)
		}
	}
}

// rssP4 is the process's resident set in bytes (0 where /proc is absent).
func rssP4() uint64 {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

// settleGoroutinesP4 waits up to 5 s for the goroutine count to fall to
// at most want, and returns it.
func settleGoroutinesP4(want int) int {
	deadline := time.Now().Add(5 * time.Second)
	n := runtime.NumGoroutine()
	for n > want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// TestChurnKeepsMemoryStatsGoroutinesAndRSSFlat: thousands of
// allocate/use/release cycles of buffers, textures and samplers, graphs
// captured, replayed and released in a loop, streams and devices opened,
// used and closed in loops: afterwards MemoryStats accounts exactly
// (Reserved = InUse + Free, nothing in use once every handle is
// released, nothing reserved after Trim, no graph or texture left), the
// native objects alive return to what they were, the goroutine count
// returns to what it was, and the RSS grows by a bounded amount.
func TestChurnKeepsMemoryStatsGoroutinesAndRSSFlat(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		cycles := 3000
		if testing.Short() || raceEnabled {
			cycles = 600
		}
		d := gputest.Open(t, wgpu.Options{})
		k := gputest.Kernel(t, d, gputest.AddOneWGSL)
		tk := gputest.Kernel(t, d, textureGraphWGSL)
		s := gputest.Stream(t, d)
		check := func(what string) {
			t.Helper()
			m := s.MemoryStats()
			if m.Reserved != m.InUse+m.Free {
				t.Fatalf("%s: Reserved %d != InUse %d + Free %d", what, m.Reserved, m.InUse, m.Free)
			}
		}
		baseLive := live(t, d)
		// Warm every lazily made object up once.
		run := func(i int) {
			n := uint32(16 + 4*(i%50))
			a, err := recorder.UploadSlice(s, gputest.Fill(int(n), float32(i)))
			if err != nil {
				t.Fatal(err)
			}
			b := gputest.Empty(t, s, a.Size())
			if err := addOneP4(s, k, a, b, n); err != nil {
				t.Fatal(err)
			}
			if i%97 == 0 {
				gputest.WantEqual(t, fmt.Sprintf("cycle %d computes", i), gputest.Fill(int(n), float32(i+1)), gputest.Read(t, s, b))
			}
			a.Release()
			b.Release()
		}
		runTex := func(i int) {
			src, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8unorm"}, bytes.Repeat([]byte{byte(i)}, 64))
			if err != nil {
				t.Fatal(err)
			}
			dst, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "r32float"})
			if err != nil {
				t.Fatal(err)
			}
			smp, err := s.NewSampler(recorder.SamplerDesc{Linear: i%2 == 0})
			if err != nil {
				t.Fatal(err)
			}
			out := gputest.Empty(t, s, 64)
			if err := s.Launch(tk, recorder.Groups(1, 1, 1), src, smp, dst, out); err != nil {
				t.Fatal(err)
			}
			src.Release()
			dst.Release()
			smp.Release()
			out.Release()
		}
		runGraph := func(i int) {
			a := gputest.Upload(t, s, gputest.Fill(64, 0))
			b := gputest.Empty(t, s, a.Size())
			g, err := s.Capture(func() error { return gputest.Chain(s, k, a, b, 4, 64) })
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			if i%10 == 0 {
				gputest.WantEqual(t, "the graph computes", gputest.Fill(64, 8), gputest.Read(t, s, a))
			}
			g.Release()
			a.Release()
			b.Release()
		}
		for i := range 50 {
			run(i)
			runTex(i)
			runGraph(i)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Trim(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		goBefore := settleGoroutinesP4(0)
		rssBefore := rssP4()
		liveBefore := live(t, d)
		for i := range cycles {
			run(i)
			if i%5 == 0 {
				runTex(i)
			}
			if i%20 == 0 {
				runGraph(i)
				check(fmt.Sprintf("cycle %d", i))
			}
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		m := s.MemoryStats()
		check("after the churn")
		if m.InUse != 0 || m.Graphs != 0 || m.Textures != 0 || m.GraphPinned != 0 || len(m.PerGraph) != 0 {
			t.Errorf("every handle released and the stream synced, yet MemoryStats says %+v", m)
		}
		freed, err := s.Trim()
		if err != nil {
			t.Fatal(err)
		}
		m2 := s.MemoryStats()
		if m2.Reserved != 0 || m2.Pages != 0 || m2.Free != 0 {
			t.Errorf("Trim with nothing in use must give every page back: freed %d, then %+v", freed, m2)
		}
		if freed < m.Reserved {
			t.Errorf("Trim returned %d bytes, the pool held %d free", freed, m.Reserved)
		}
		liveAfter := live(t, d)
		boundedLiveP4(t, "native objects alive after the churn and Trim", liveBefore, liveAfter)

		// Streams and devices opened, used and closed in a loop.
		for i := range 40 {
			s2, err := recorder.New(d)
			if err != nil {
				t.Fatal(err)
			}
			a := gputest.Upload(t, s2, gputest.Fill(16, 1))
			b := gputest.Empty(t, s2, a.Size())
			if err := addOneP4(s2, k, a, b, 16); err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				g, err := s2.Capture(func() error { return addOneP4(s2, k, a, b, 16) })
				if err != nil {
					t.Fatal(err)
				}
				_ = g.Replay() // released by Close
			}
			if err := s2.Close(); err != nil {
				t.Fatal(err)
			}
		}
		boundedLiveP4(t, "native objects alive after 40 streams opened and closed", liveBefore, live(t, d))
		devices := 15
		if testing.Short() || raceEnabled {
			devices = 5
		}
		for i := range devices {
			d2, err := wgpu.Open(wgpu.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s2, err := recorder.New(d2)
			if err != nil {
				t.Fatal(err)
			}
			k2, err := d2.Kernel(gputest.AddOneWGSL, "main")
			if err != nil {
				t.Fatal(err)
			}
			a := gputest.Upload(t, s2, gputest.Fill(16, float32(i)))
			b := gputest.Empty(t, s2, a.Size())
			if err := addOneP4(s2, k2, a, b, 16); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, fmt.Sprintf("device %d computes", i), gputest.Fill(16, float32(i+1)), gputest.Read(t, s2, b))
			if i%2 == 0 {
				_ = s2.Close()
			}
			if err := d2.Close(); err != nil {
				t.Fatal(err)
			}
			_ = s2.Close()
		}
		runtime.GC()
		if n := settleGoroutinesP4(goBefore); n > goBefore {
			buf := make([]byte, 1<<20)
			t.Errorf("goroutines: %d before the churn, %d after\n%s", goBefore, n, buf[:runtime.Stack(buf, true)])
		}
		if rssBefore > 0 {
			rss := rssP4()
			t.Logf("RSS %d MiB before the churn, %d MiB after; native objects %+v (at start %+v)", rssBefore>>20, rss>>20, liveAfter, baseLive)
			if rss > rssBefore+256<<20 {
				t.Errorf("RSS grew from %d MiB to %d MiB over the churn", rssBefore>>20, rss>>20)
			}
		}
	})
}

// TestClosingTheDeviceInsideBodiesAndThenUsingEverythingNeverAborts: a
// Device.Close from inside an If or While body, run eagerly or recorded
// in a Capture step, ends the branch and the capture with ErrClosed; then
// every call on what the device made — textures, samplers, graphs
// (Replay, Rebind, Save, WriteTo, WriteDOT, String, Stats, Buffers,
// Release), kernels, buffers, the stream (ReadTexture, UploadTexture,
// LoadGraph, If, While, ProfileReplay, MemoryStats, Trim, Close twice) —
// returns ErrClosed, a zero value or nothing, never panics or hangs, and
// the next device of the process computes.
func TestClosingTheDeviceInsideBodiesAndThenUsingEverythingNeverAborts(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		for _, where := range []string{"eager If", "eager While", "recorded If", "recorded While", "recorded While, second run"} {
			d, err := wgpu.Open(wgpu.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := recorder.New(d)
			if err != nil {
				t.Fatal(err)
			}
			k := gputest.Kernel(t, d, gputest.AddOneWGSL)
			tk := gputest.Kernel(t, d, textureGraphWGSL)
			a := gputest.Upload(t, s, gputest.Fill(64, 1))
			b := gputest.Empty(t, s, a.Size())
			spare := gputest.Empty(t, s, a.Size())
			cond, err := recorder.UploadSlice(s, []uint32{1, 1, 1, 1})
			if err != nil {
				t.Fatal(err)
			}
			src, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8unorm"}, bytes.Repeat([]byte{7}, 64))
			if err != nil {
				t.Fatal(err)
			}
			dst, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "r32float"})
			if err != nil {
				t.Fatal(err)
			}
			smp, err := s.NewSampler(recorder.SamplerDesc{})
			if err != nil {
				t.Fatal(err)
			}
			g := gputest.Capture(t, s, func() {
				if err := s.Launch(tk, recorder.Groups(1, 1, 1), src, smp, dst, b); err != nil {
					t.Fatal(err)
				}
				if err := s.If(cond, 0, func() error { return addOneP4(s, k, a, b, 64) }); err != nil {
					t.Fatal(err)
				}
			})
			var file bytes.Buffer
			if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
				t.Fatal(err)
			}
			body := func() error {
				if err := addOneP4(s, k, a, b, 64); err != nil {
					return err
				}
				return d.Close()
			}
			var berr error
			done := make(chan struct{})
			go func() {
				defer close(done)
				switch where {
				case "eager If":
					berr = s.If(cond, 0, body)
				case "eager While":
					berr = s.While(cond, 0, 3, body)
				default:
					runs := 0
					var cg *recorder.Graph
					cg, berr = s.Capture(func() error {
						runs++
						if where == "recorded While, second run" && runs == 1 {
							return s.While(cond, 0, 3, func() error { return addOneP4(s, k, a, b, 64) })
						}
						if strings.Contains(where, "If") {
							return s.If(cond, 0, body)
						}
						return s.While(cond, 0, 3, body)
					})
					if cg != nil {
						t.Errorf("%s: a capture whose device closed sealed a graph", where)
						cg.Release()
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: a body closing the device hung", where)
			}
			if !errors.Is(berr, wgpu.ErrClosed) && berr != nil {
				t.Errorf("%s: closing the device inside the body: want nil or ErrClosed, got %v", where, berr)
			}
			if strings.HasPrefix(where, "recorded") && berr == nil {
				t.Errorf("%s: a capture whose device closed must fail", where)
			}
			closed := []error{wgpu.ErrClosed}
			calls := map[string]func() error{
				"Replay": g.Replay,
				"Rebind": func() error {
					ng, err := g.Rebind(a, spare)
					if ng != nil {
						ng.Release()
					}
					return err
				},
				"ReadTexture": func() error { _, err := s.ReadTexture(dst); return err },
				"UploadTexture": func() error {
					_, err := s.UploadTexture(recorder.TextureDesc{Width: 1, Height: 1, Format: "r32float"}, make([]byte, 4))
					return err
				},
				"LoadGraph":     func() error { _, err := s.LoadGraph(bytes.NewReader(file.Bytes())); return err },
				"If":            func() error { return s.If(cond, 0, func() error { return nil }) },
				"While":         func() error { return s.While(cond, 0, 2, func() error { return nil }) },
				"ProfileReplay": func() error { _, err := s.ProfileReplay(g); return err },
				"Save with contents": func() error {
					_, err := g.Save(io.Discard, recorder.SaveOptions{Contents: true})
					return err
				},
				"Trim":    func() error { _, err := s.Trim(); return err },
				"Launch":  func() error { return s.Launch(tk, recorder.Groups(1, 1, 1), src, smp, dst, b) },
				"Kernel":  func() error { _, err := d.Kernel(gputest.ScaleWGSL, "main"); return err },
				"Capture": func() error { _, err := s.Capture(func() error { return nil }); return err },
			}
			for name, f := range calls {
				var err error
				if msg := noPanic(func() { err = within(t, 10*time.Second, name, f) }); msg != "" {
					t.Errorf("%s, then %s: panicked: %s", where, name, msg)
					continue
				}
				if problem := gputest.CheckErr(err, closed, nil); problem != "" {
					t.Errorf("%s, then %s: %s", where, name, problem)
				}
			}
			// What needs no device answers, and never panics.
			if msg := noPanic(func() {
				_ = g.String()
				_ = g.Stats()
				_ = g.Buffers()
				_ = g.Len()
				_ = g.WriteDOT(io.Discard)
				_, _ = g.WriteTo(io.Discard)
				_ = s.MemoryStats()
				_ = s.State()
				_ = src.Desc()
				_ = smp.Desc()
				_ = k.Bindings()
			}); msg != "" {
				t.Errorf("%s: a getter after Device.Close panicked: %s", where, msg)
			}
			if msg := noPanic(func() {
				_ = within(t, 10*time.Second, "releases", func() error {
					src.Release()
					dst.Release()
					smp.Release()
					a.Release()
					g.Release()
					g.Release()
					k.Release()
					tk.Release()
					return nil
				})
				for range 2 {
					if err := within(t, 10*time.Second, "Stream.Close", s.Close); err != nil && !errors.Is(err, wgpu.ErrClosed) {
						t.Errorf("%s: Stream.Close after Device.Close: %v", where, err)
					}
					if err := within(t, 10*time.Second, "Device.Close", d.Close); err != nil {
						t.Errorf("%s: Device.Close twice: %v", where, err)
					}
				}
			}); msg != "" {
				t.Errorf("%s: releasing after Device.Close panicked: %s", where, msg)
			}
		}
	})
}

// TestClosingWhileAReadWaitsBehindLongWorkNeverReturnsEarly: a
// ReadContext blocked behind about a second of GPU work, while another
// goroutine closes the stream (or the device), returns either the result
// of all that work or an error wrapping ErrClosed — never partial data —
// and both calls return.
func TestClosingWhileAReadWaitsBehindLongWorkNeverReturnsEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a few seconds of GPU work")
	}
	gputest.InFreshProcess(t, func(t *testing.T) {
		for _, what := range []string{"stream", "device"} {
			d, err := wgpu.Open(wgpu.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := recorder.New(d)
			if err != nil {
				t.Fatal(err)
			}
			sp := newSpin(t, d, s, 20*time.Millisecond)
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			base := sp.ran
			n := sp.units(time.Second)
			for range n {
				if err := sp.launch(s); err != nil {
					t.Fatal(err)
				}
			}
			type result struct {
				v   []float32
				err error
			}
			res := make(chan result, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				raw, err := s.ReadContext(ctx, sp.x)
				var v []float32
				if err == nil {
					v = make([]float32, len(raw)/4)
					for i := range v {
						v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
					}
				}
				res <- result{v, err}
			}()
			time.Sleep(sp.unit * time.Duration(n) / 4)
			closeErr := within(t, 60*time.Second, what+" Close", func() error {
				if what == "stream" {
					return s.Close()
				}
				return d.Close()
			})
			if closeErr != nil {
				t.Errorf("closing the %s behind a blocked read: %v", what, closeErr)
			}
			select {
			case r := <-res:
				switch {
				case r.err != nil && !errors.Is(r.err, wgpu.ErrClosed):
					t.Errorf("closing the %s: the blocked read must return the result or ErrClosed, got %v", what, r.err)
				case r.err == nil:
					gputest.WantFloats(t, fmt.Sprintf("closing the %s: a read that returns data saw all the work", what), gputest.Fill(spinElems, float32(base+n)), r.v)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("closing the %s: the blocked read never returned", what)
			}
			_ = s.Close()
			_ = d.Close()
		}
	})
}

// wideP4WGSL binds ten buffers in one group (past the bind group cache's
// key) and two in a second: out[i] = sum of the inputs' element i.
const wideP4WGSL = `
@group(0) @binding(0) var<storage, read> i0: array<f32>;
@group(0) @binding(1) var<storage, read> i1: array<f32>;
@group(0) @binding(2) var<storage, read> i2: array<f32>;
@group(0) @binding(3) var<storage, read> i3: array<f32>;
@group(0) @binding(4) var<storage, read> i4: array<f32>;
@group(0) @binding(5) var<storage, read> i5: array<f32>;
@group(0) @binding(6) var<storage, read> i6: array<f32>;
@group(0) @binding(7) var<storage, read> i7: array<f32>;
@group(0) @binding(8) var<storage, read> i8: array<f32>;
@group(0) @binding(9) var<storage, read_write> out: array<f32>;
@group(2) @binding(0) var<storage, read> j0: array<f32>;
@group(2) @binding(3) var<storage, read> j1: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x;
	if (i < arrayLength(&out)) {
		out[i] = i0[i] + i1[i] + i2[i] + i3[i] + i4[i] + i5[i] + i6[i] + i7[i] + i8[i] + j0[i] + j1[i];
	}
}
`

// TestUncachedBindGroupsOfWideLaunchesLeakNothing: launches binding more
// buffers in one group than the bind group cache keys (each gets a fresh
// bind group), eager and captured, thousands of times, compute right and
// leave the live bind groups, buffers and the stream's memory where they
// were.
func TestUncachedBindGroupsOfWideLaunchesLeakNothing(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, wideP4WGSL)
	var in []recorder.Arg
	for i := range 9 {
		in = append(in, gputest.Upload(t, s, gputest.Fill(64, float32(i))))
	}
	out := gputest.Empty(t, s, 256)
	j0 := gputest.Upload(t, s, gputest.Fill(64, 100))
	j1 := gputest.Upload(t, s, gputest.Fill(64, 1000))
	args := append(append(in, out), j0, j1)
	want := gputest.Fill(64, 36+1100)
	launch := func() error { return s.Launch(k, recorder.Groups(1, 1, 1), args...) }
	if err := launch(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "a wide launch sums its eleven inputs", want, gputest.Read(t, s, out))
	g := gputest.Capture(t, s, func() {
		for range 3 {
			if err := launch(); err != nil {
				t.Fatal(err)
			}
		}
	})
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	// The ramp steps a sync point readies for the graph's next run are
	// command buffers the stream keeps (at most five a ramp): counted
	// apart, once the ramp worker is done.
	settled := func() (driver.Live, recorder.MemoryStats) {
		m := p7Settled(t, s)
		l := live(t, d)
		l.CommandBuffers -= int64(m.RampBuffers)
		return l, m
	}
	before, mBefore := settled()
	n := 2000
	if raceEnabled {
		n = 400
	}
	for i := range n {
		if err := launch(); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
		}
		if i%100 == 0 {
			ng, err := g.Rebind(j0, j1)
			if err != nil {
				t.Fatal(err)
			}
			if err := ng.Replay(); err != nil {
				t.Fatal(err)
			}
			ng.Release()
		}
	}
	gputest.WantEqual(t, "wide launches still compute", want, gputest.Read(t, s, out))
	after, mAfter := settled()
	boundedLiveP4(t, "native objects after thousands of wide launches", before, after)
	if mAfter.Reserved > mBefore.Reserved || mAfter.BindGroups > mBefore.BindGroups+4 || mAfter.Graphs != mBefore.Graphs {
		t.Errorf("MemoryStats grew over the wide launches: before %+v, after %+v", mBefore, mAfter)
	}
}

// addConstP4 is AddConstWGSL: x += p.c.
func addConstP4(s *recorder.Stream, k *wgpu.Kernel, x *recorder.Buffer, c float32) error {
	return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(c))
}

// TestPreEncodedReplaysKeepStreamOrderWithEveryOtherOperation: with
// pre-encoding forced on, a graph of 64 dispatches (whose next replay is
// encoded ahead on another goroutine) interleaved with Writes, Copies,
// Clears, Launches, replays of a short graph, a Rebind and another
// stream's work on the same buffers computes exactly what a plain-Go model
// of the calls in order computes.
func TestPreEncodedReplaysKeepStreamOrderWithEveryOtherOperation(t *testing.T) {
	for _, pre := range []bool{true, false} {
		t.Run(fmt.Sprintf("preencode=%v", pre), func(t *testing.T) {
			d := gputest.Open(t, wgpu.Options{})
			s := gputest.Stream(t, d, recorder.WithPreEncode(pre))
			other := gputest.Stream(t, d)
			k := gputest.Kernel(t, d, gputest.AddConstWGSL)
			x := gputest.Upload(t, s, gputest.Fill(64, 0))
			y := gputest.Upload(t, s, gputest.Fill(64, 0))
			long := gputest.Capture(t, s, func() {
				for range 64 {
					if err := addConstP4(s, k, x, 1); err != nil {
						t.Fatal(err)
					}
				}
			})
			short := gputest.Capture(t, s, func() {
				if err := addConstP4(s, k, x, 1000); err != nil {
					t.Fatal(err)
				}
			})
			longY, err := long.Rebind(x, y)
			if err != nil {
				t.Fatal(err)
			}
			defer longY.Release()
			// The model: the captures' warmups ran 64 + 1000 on x.
			mx, my := float32(64+1000), float32(0)
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, "after the warmups", gputest.Fill(64, mx), gputest.Read(t, s, x))
			for round := range 12 {
				steps := []func() error{
					func() error { mx += 64; return long.Replay() },
					func() error { mx = float32(round); return recorder.WriteSlice(s, x, 0, gputest.Fill(64, mx)) },
					func() error { mx += 64; return long.Replay() },
					func() error { my += 64; return longY.Replay() },
					func() error { my = mx; return s.Copy(y, 0, x, 0, x.Size()) },
					func() error { mx += 64; return long.Replay() },
					func() error { mx += 1000; return short.Replay() },
					func() error { mx = 0; return s.Clear(x, 0, x.Size()) },
					func() error { mx += 64; return long.Replay() },
					func() error { mx += 5; return addConstP4(s, k, x, 5) },
					func() error { mx += 64; return long.Replay() },
					func() error {
						// Another stream's work, ordered by submission after a Flush.
						if err := s.Flush(); err != nil {
							return err
						}
						mx += 7
						if err := addConstP4(other, k, x, 7); err != nil {
							return err
						}
						return other.Flush()
					},
					func() error { mx += 64; return long.Replay() },
				}
				for i, f := range steps {
					if err := f(); err != nil {
						t.Fatalf("round %d step %d: %v", round, i, err)
					}
				}
				if round%3 == 2 {
					gputest.WantEqual(t, fmt.Sprintf("round %d: x", round), gputest.Fill(64, mx), gputest.Read(t, s, x))
					gputest.WantEqual(t, fmt.Sprintf("round %d: y", round), gputest.Fill(64, my), gputest.Read(t, s, y))
				}
			}
			gputest.WantEqual(t, "x at the end", gputest.Fill(64, mx), gputest.Read(t, s, x))
			gputest.WantEqual(t, "y at the end", gputest.Fill(64, my), gputest.Read(t, s, y))
		})
	}
}

// TestRebindChainsAndIdentities: Rebind(old, old) makes an equivalent
// graph; a graph rebound from a to b no longer binds a (rebinding a again
// is refused) but binds b, which Buffers lists in a's place; a chain
// a→b→c computes on c; a buffer of another stream of the device can be
// rebound in, and the graph keeps it alive after that stream closes; a
// released graph, a released new buffer or a size mismatch are refused
// with their sentinels.
func TestRebindChainsAndIdentities(t *testing.T) {
	d, s := gputest.OpenStream(t)
	other, err := recorder.New(d)
	if err != nil {
		t.Fatal(err)
	}
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 0))
	b := gputest.Upload(t, s, gputest.Fill(64, 10))
	c := gputest.Upload(t, s, gputest.Fill(64, 20))
	o := gputest.Upload(t, other, gputest.Fill(64, 30))
	g := gputest.Capture(t, s, func() {
		if err := addConstP4(s, k, a, 1); err != nil {
			t.Fatal(err)
		}
	})
	same, err := g.Rebind(a, a)
	if err != nil {
		t.Fatalf("Rebind(a, a): %v", err)
	}
	defer same.Release()
	gb, err := g.Rebind(a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Release()
	if bs := gb.Buffers(); len(bs) != 1 || bs[0] != b {
		t.Errorf("the rebound graph must list b in a's place, lists %v", bs)
	}
	if bs := g.Buffers(); len(bs) != 1 || bs[0] != a {
		t.Errorf("the original graph must still list a, lists %v", bs)
	}
	if ng, err := gb.Rebind(a, c); !errors.Is(err, recorder.ErrInvalidArgument) {
		if ng != nil {
			ng.Release()
		}
		t.Errorf("rebinding a in a graph already rebound away from a: want ErrInvalidArgument, got %v", err)
	}
	gc, err := gb.Rebind(b, c)
	if err != nil {
		t.Fatal(err)
	}
	defer gc.Release()
	gob, err := g.Rebind(a, o)
	if err != nil {
		t.Fatalf("rebinding a buffer of another stream of the device: %v", err)
	}
	defer gob.Release()
	for _, r := range []*recorder.Graph{g, same, gb, gc, gob} {
		if err := r.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	gputest.WantEqual(t, "g and Rebind(a, a) each add 1 to a (after the warmup's 1)", gputest.Fill(64, 3), gputest.Read(t, s, a))
	gputest.WantEqual(t, "gb adds 1 to b", gputest.Fill(64, 11), gputest.Read(t, s, b))
	gputest.WantEqual(t, "gc adds 1 to c", gputest.Fill(64, 21), gputest.Read(t, s, c))
	gputest.WantEqual(t, "gob adds 1 to the other stream's buffer", gputest.Fill(64, 31), gputest.Read(t, s, o))
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gob.Replay(); err != nil {
		t.Fatalf("a graph binding a closed stream's buffer still replays: %v", err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if bs := gob.Buffers(); len(bs) != 1 || bs[0] != o {
		t.Errorf("gob must list the other stream's buffer, lists %v", bs)
	}
	small := gputest.Empty(t, s, 128)
	dead := gputest.Empty(t, s, a.Size())
	dead.Release()
	rel := gputest.Capture(t, s, func() {
		if err := addConstP4(s, k, a, 1); err != nil {
			t.Fatal(err)
		}
	})
	rel.Release()
	for name, c := range map[string]struct {
		f    func() (*recorder.Graph, error)
		want error
	}{
		"a smaller new buffer":  {func() (*recorder.Graph, error) { return g.Rebind(a, small) }, recorder.ErrInvalidArgument},
		"a released new buffer": {func() (*recorder.Graph, error) { return g.Rebind(a, dead) }, recorder.ErrReleased},
		"a released graph":      {func() (*recorder.Graph, error) { return rel.Rebind(a, b) }, recorder.ErrReleased},
		"a nil new buffer":      {func() (*recorder.Graph, error) { return g.Rebind(a, nil) }, recorder.ErrInvalidArgument},
		"an unbound old buffer": {func() (*recorder.Graph, error) { return g.Rebind(small, small) }, recorder.ErrInvalidArgument},
	} {
		ng, err := c.f()
		if ng != nil {
			ng.Release()
		}
		if !errors.Is(err, c.want) {
			t.Errorf("Rebind with %s: want %v, got %v", name, c.want, err)
		}
	}
}

// samplingP4WGSL samples src at a quarter texel into each texel and one
// texture width further right (clamped or wrapped by the sampler).
const samplingP4WGSL = `
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let u = (f32(id.x) + 0.25) / 4.0;
	out[id.x] = textureSampleLevel(src, smp, vec2<f32>(u, 0.5), 0.0).x;
	out[4u + id.x] = textureSampleLevel(src, smp, vec2<f32>(u + 1.0, 0.5), 0.0).x;
}
`

// TestSavedGraphsKeepTexturesAndSamplers: a graph sampling a texture
// through each kind of sampler (nearest or linear, clamped or repeating),
// saved with its contents and loaded, computes exactly what the original
// computes; saved without contents it samples zeros.
func TestSavedGraphsKeepTexturesAndSamplers(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, samplingP4WGSL)
	raw := []byte{0, 0, 0, 255, 64, 0, 0, 255, 128, 0, 0, 255, 255, 0, 0, 255}
	src, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 1, Format: "rgba8unorm"}, raw)
	if err != nil {
		t.Fatal(err)
	}
	results := map[recorder.SamplerDesc][]float32{}
	for _, desc := range []recorder.SamplerDesc{{}, {Linear: true}, {Repeat: true}, {Linear: true, Repeat: true}} {
		smp, err := s.NewSampler(desc)
		if err != nil {
			t.Fatal(err)
		}
		out := gputest.Empty(t, s, 32)
		g := gputest.Capture(t, s, func() {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), src, smp, out); err != nil {
				t.Fatal(err)
			}
		})
		want := gputest.Read(t, s, out)
		var file, bare bytes.Buffer
		if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := g.WriteTo(&bare); err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			name string
			b    []byte
			want []float32
		}{{"with contents", file.Bytes(), want}, {"without contents", bare.Bytes(), make([]float32, 8)}} {
			lg, err := s.LoadGraph(bytes.NewReader(f.b))
			if err != nil {
				t.Fatalf("%+v %s: LoadGraph: %v", desc, f.name, err)
			}
			bufs := lg.Buffers()
			if len(bufs) != 1 {
				t.Fatalf("%+v %s: the loaded graph lists %d buffers", desc, f.name, len(bufs))
			}
			if err := s.Clear(bufs[0], 0, 32); err != nil {
				t.Fatal(err)
			}
			if err := lg.Replay(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, fmt.Sprintf("sampler %+v, loaded %s, computes as the original", desc, f.name), f.want, gputest.Read(t, s, bufs[0]))
			bufs[0].Release()
			lg.Release()
		}
		results[desc] = want
	}
	// The samplers differ, so a file that lost a sampler's settings would
	// compute another sampler's result.
	nearest, linear, repeat := results[recorder.SamplerDesc{}], results[recorder.SamplerDesc{Linear: true}], results[recorder.SamplerDesc{Repeat: true}]
	if slices.Equal(nearest, linear) || slices.Equal(nearest[4:], repeat[4:]) || !slices.Equal(nearest[:4], repeat[:4]) {
		t.Errorf("the samplers must differ where the test samples: nearest %v, linear %v, repeat %v", nearest, linear, repeat)
	}
}

// TestMemoryStatsCountsEveryLiveTexture: MemoryStats.Textures documents
// the live textures made on the stream and still referenced by the caller
// or a graph. It counted only those a graph pinned: a texture the caller
// holds, used or not, counted 0.
func TestMemoryStatsCountsEveryLiveTexture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	other := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, samplingP4WGSL)
	textures := func() int { return s.MemoryStats().Textures }
	gputest.WantEqual(t, "no texture yet", 0, textures())
	a, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 1, Format: "rgba8unorm"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 1, Format: "rgba8unorm"}, make([]byte, 16))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.NewTexture(recorder.TextureDesc{Width: 4, Height: 1, Format: "rgba8unorm"}); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "two textures the caller holds (another stream's does not count)", 2, textures())
	smp, err := s.NewSampler(recorder.SamplerDesc{})
	if err != nil {
		t.Fatal(err)
	}
	out := gputest.Empty(t, s, 32)
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), a, smp, out); err != nil {
			t.Fatal(err)
		}
	})
	a.Release()
	gputest.WantEqual(t, "a released texture a graph binds still counts", 2, textures())
	b.Release()
	gputest.WantEqual(t, "a released texture nothing binds does not", 1, textures())
	g.Release()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "once the graph is released nothing references the texture", 0, textures())
}
