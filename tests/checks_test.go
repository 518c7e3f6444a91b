package tests

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// scatterWGSL writes dst[idx[i]] = src[i]: an index past dst's end is an
// out-of-range write (of dst, at line 7, column 7).
const scatterWGSL = `@group(0) @binding(0) var<storage, read> idx: array<u32>;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&idx)) {
		dst[idx[id.x]] = src[id.x];
	}
}
`

// gatherWGSL reads dst[i] = src[idx[i]] through a helper function: an
// index past src's end is an out-of-range read (of src, in load, at line
// 4, column 37).
const gatherWGSL = `@group(0) @binding(0) var<storage, read> idx: array<u32>;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
fn load(i: u32) -> f32 { return src[i]; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&dst)) {
		dst[id.x] = load(idx[id.x]);
	}
}
`

// checked is one out-of-range launch set up on a stream WithChecks: the
// kernel, its three buffers, and the launch.
type checked struct {
	s             *recorder.Stream
	k             *wgpu.Kernel
	idx, src, dst *recorder.Buffer
}

func newChecked(t *testing.T, d *wgpu.Device, s *recorder.Stream, src, label string) *checked {
	t.Helper()
	return &checked{s: s, k: gputest.Kernel(t, d, src, wgpu.WithLabel(label)),
		idx: gputest.UploadU32(t, s, 0, 1, 2, 3), src: gputest.Upload(t, s, gputest.Ramp(4, 1)), dst: gputest.Empty(t, s, 16)}
}

func (c *checked) launch() error {
	return c.s.Launch(c.k, recorder.Groups(1, 1, 1), c.idx, c.src, c.dst)
}

// setIndex makes invocation i use index v.
func (c *checked) setIndex(t *testing.T, i int, v uint32) {
	t.Helper()
	if err := recorder.WriteSlice(c.s, c.idx, uint64(4*i), []uint32{v}); err != nil {
		t.Fatal(err)
	}
}

// wantViolation fails unless err is a *CheckError wrapping
// recorder.ErrOutOfRange equal to want.
func wantViolation(t *testing.T, rule string, err error, want recorder.CheckError) {
	t.Helper()
	var ce *recorder.CheckError
	if !errors.As(err, &ce) || !errors.Is(err, recorder.ErrOutOfRange) {
		t.Fatalf("%s: got %v, want a *CheckError wrapping ErrOutOfRange", rule, err)
	}
	if d := cmp.Diff(want, *ce); d != "" {
		t.Fatalf("%s: the error must name the kernel, binding, index and invocation (-want +got):\n%s\nmessage: %v", rule, d, err)
	}
}

// The violations the two kernels make when invocation 2 uses index 9.
var (
	scatterViolation = recorder.CheckError{Kernel: `"scatter" (entry point main)`, Binding: "dst", Group: 0, Slot: 2,
		Index: 9, Length: 4, Invocation: [3]uint32{2, 0, 0}, Function: "main", Line: 7, Col: 7, Count: 1, Indexed: "dst", Of: "elements"}
	gatherViolation = recorder.CheckError{Kernel: `"gather" (entry point main)`, Binding: "src", Group: 0, Slot: 1,
		Index: 9, Length: 4, Invocation: [3]uint32{2, 0, 0}, Function: "load", Line: 4, Col: 37, Count: 1, Indexed: "src", Of: "elements"}
)

func with(e recorder.CheckError, op string) recorder.CheckError {
	e.Op = op
	return e
}

// TestChecksNameAnEagerOutOfRangeWriteAndRead: on a stream WithChecks an
// eager launch that writes past a binding's end makes the next Sync fail,
// and one that reads past it (in a helper function) the next Read, each
// with a *CheckError naming the kernel's label, the binding, the index,
// the length and the invocation; the violation is then cleared, and the
// stream keeps working (the next Sync is nil, in-range launches compute
// what they should). Without the checks the same launches report nothing.
func TestChecksNameAnEagerOutOfRangeWriteAndRead(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithChecks(true))
	sc := newChecked(t, d, s, scatterWGSL, "scatter")
	sc.setIndex(t, 2, 9)
	if err := sc.launch(); err != nil {
		t.Fatal(err)
	}
	wantViolation(t, "an out-of-range write is returned by the next Sync", s.Sync(), with(scatterViolation, "Sync"))
	if err := s.Sync(); err != nil {
		t.Fatalf("a violation is returned once; the next Sync returned %v", err)
	}

	ga := newChecked(t, d, s, gatherWGSL, "gather")
	ga.setIndex(t, 2, 9)
	if err := ga.launch(); err != nil {
		t.Fatal(err)
	}
	out, err := s.Read(ga.dst)
	wantViolation(t, "an out-of-range read is returned by the next Read", err, with(gatherViolation, "Read"))
	if out != nil {
		t.Errorf("a Read that returns a violation returns no data, got %d bytes", len(out))
	}
	ga.setIndex(t, 2, 2)
	if err := ga.launch(); err != nil {
		t.Fatal(err)
	}
	gputest.WantFloats(t, "after a violation the stream computes", gputest.Ramp(4, 1), gputest.Read(t, s, ga.dst))

	// Off: the same launch, nothing reported.
	plain := gputest.Stream(t, d)
	off := newChecked(t, d, plain, scatterWGSL, "scatter")
	off.setIndex(t, 2, 9)
	if err := off.launch(); err != nil {
		t.Fatal(err)
	}
	if err := plain.Sync(); err != nil {
		t.Fatalf("without WithChecks nothing is checked: Sync = %v", err)
	}
}

// TestChecksNameTheIndexedPartInsideAnElement: a matrix's column index
// out of range (m[i][c], c = 3 of a mat3x3) is reported with the part
// indexed, m[i], and its 3 columns, not as m[3] of a binding of 3
// elements (the binding holds 8 matrices).
func TestChecksNameTheIndexedPartInsideAnElement(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithChecks(true))
	k := gputest.Kernel(t, d, `@group(0) @binding(0) var<storage, read> m: array<mat3x3<f32>>;
@group(0) @binding(1) var<storage, read> col: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x;
	out[i] = m[i][col[i]].x;
}`, wgpu.WithLabel("columns"))
	cols := make([]uint32, 8)
	cols[5] = 3
	m := gputest.Empty(t, s, 8*48)
	if err := s.Launch(k, recorder.Groups(1, 1, 1), m, gputest.UploadU32(t, s, cols...), gputest.Empty(t, s, 32)); err != nil {
		t.Fatal(err)
	}
	err := s.Sync()
	wantViolation(t, "a column index out of range", err, recorder.CheckError{Op: "Sync", Kernel: `"columns" (entry point main)`, Binding: "m", Group: 0, Slot: 0,
		Index: 3, Length: 3, Invocation: [3]uint32{5, 0, 0}, Function: "main", Line: 7, Col: 16, Count: 1, Indexed: "m[i]", Of: "columns"})
	if !strings.Contains(err.Error(), "m[i][3] in m of @group(0) @binding(0), where m[i] has 3 columns") {
		t.Errorf("the message must name the part indexed and its columns: %v", err)
	}
}

// TestChecksNameAnOutOfRangeWriteAndReadInACapture: EndCapture fails
// with a *CaptureError whose cause is the *CheckError when the warmup it
// follows wrote or read out of range (the recording repeats the warmup's
// launches), and the stream is back in NoCapture and captures again.
func TestChecksNameAnOutOfRangeWriteAndReadInACapture(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithChecks(true))
	for _, c := range []struct {
		src, label string
		want       recorder.CheckError
	}{{scatterWGSL, "scatter", scatterViolation}, {gatherWGSL, "gather", gatherViolation}} {
		k := newChecked(t, d, s, c.src, c.label)
		k.setIndex(t, 2, 9)
		g, err := s.Capture(k.launch)
		if g != nil {
			g.Release()
			t.Fatalf("%s: a capture whose warmup indexed out of range returned a graph", c.label)
		}
		var ce *recorder.CaptureError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: EndCapture = %v, want a *CaptureError", c.label, err)
		}
		wantViolation(t, c.label+": EndCapture names the warmup's violation", err, with(c.want, "EndCapture"))
		wantState(t, "a failed EndCapture leaves the stream in NoCapture", s, lifecycle.NoCapture)
		k.setIndex(t, 2, 2)
		g = gputest.Capture(t, s, func() {
			if err := k.launch(); err != nil {
				t.Fatal(err)
			}
		})
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(); err != nil {
			t.Fatalf("%s: in range, the capture and its replay report nothing: %v", c.label, err)
		}
	}
}

// TestChecksNameAnOutOfRangeWriteAndReadInAReplay: a graph captured on a
// stream WithChecks checks its dispatches at every replay: after the
// index buffer is rewritten out of range, Replay then Sync (for the
// write) and Replay then Read (for the read) return the *CheckError
// naming the kernel, binding and index; replays in range afterwards
// report nothing.
func TestChecksNameAnOutOfRangeWriteAndReadInAReplay(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithChecks(true))
	sc := newChecked(t, d, s, scatterWGSL, "scatter")
	ga := newChecked(t, d, s, gatherWGSL, "gather")
	g := gputest.Capture(t, s, func() {
		if err := sc.launch(); err != nil {
			t.Fatal(err)
		}
		if err := ga.launch(); err != nil {
			t.Fatal(err)
		}
	})
	sc.setIndex(t, 2, 9)
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantViolation(t, "a replay's out-of-range write is returned by the next Sync", s.Sync(), with(scatterViolation, "Sync"))
	sc.setIndex(t, 2, 2)
	ga.setIndex(t, 2, 9)
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Read(ga.dst)
	wantViolation(t, "a replay's out-of-range read is returned by the next Read", err, with(gatherViolation, "Read"))
	ga.setIndex(t, 2, 2)
	for range 3 {
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	gputest.WantFloats(t, "in-range replays after a violation compute", gputest.Ramp(4, 1), gputest.Read(t, s, ga.dst))
}

// TestChecksCountEveryViolationAndReportTheFirst: when several dispatches
// index out of range before a sync point, the error names the first
// dispatch's access and counts them all.
func TestChecksCountEveryViolationAndReportTheFirst(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithChecks(true))
	sc := newChecked(t, d, s, scatterWGSL, "scatter")
	ga := newChecked(t, d, s, gatherWGSL, "gather")
	sc.setIndex(t, 2, 9)
	ga.setIndex(t, 2, 9)
	for _, launch := range []func() error{sc.launch, ga.launch, sc.launch} {
		if err := launch(); err != nil {
			t.Fatal(err)
		}
	}
	want := with(scatterViolation, "Sync")
	want.Count = 3
	wantViolation(t, "the first violation, counting all three", s.Sync(), want)
}

// pointersWGSL indexes its bindings through let pointers (to an element
// and to a whole runtime array in a struct), a fixed-size uniform array, a
// vector and a helper function, with float arithmetic whose every bit
// must survive the checks.
const pointersWGSL = `struct Rows { n: u32, data: array<vec4<f32>>, }
struct P { lut: array<vec4<u32>, 4>, }
@group(0) @binding(0) var<storage, read_write> rows: Rows;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
fn fetch(i: u32) -> f32 { return src[i] * 1.1 + src[(i + 1u) % arrayLength(&src)]; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x;
	if (i >= arrayLength(&rows.data)) { return; }
	let q = &rows.data;
	let e = &q[i];
	let c = p.lut[i & 3u].y & 3u;
	(*e)[c] = fetch(i) / 3.0;
	(*q)[i][(c + 1u) & 3u] = sqrt(src[i]) - src[i] * 0.7;
	rows.data[i].z = rows.data[i].z + f32(c);
}
`

// TestCheckedKernelsComputeBitForBitWhatUncheckedOnesDo: in range, a
// kernel reading and writing through pointers, a helper function, a
// uniform array and vector components gives the same bytes checked as
// unchecked, eagerly and replayed, and reports nothing.
func TestCheckedKernelsComputeBitForBitWhatUncheckedOnesDo(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	const n = 256
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(math.Sin(float64(i)*0.37)) * float32(i+1)
	}
	run := func(opts ...recorder.Option) []byte {
		s := gputest.Stream(t, d, opts...)
		k := gputest.Kernel(t, d, pointersWGSL, wgpu.WithLabel("pointers"))
		src := gputest.Upload(t, s, in)
		rows := gputest.Empty(t, s, 16+16*n)
		lut := recorder.ParamsOf[uint32](0, 3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0)
		launch := func() error { return s.Launch(k, recorder.Groups(n/64, 1, 1), rows, src, lut) }
		if err := launch(); err != nil {
			t.Fatal(err)
		}
		g, err := s.Capture(launch)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Release()
		for range 2 {
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
		}
		out, err := s.Read(rows)
		if err != nil {
			t.Fatalf("an in-range kernel reports nothing: %v", err)
		}
		return out
	}
	plain, checked := run(), run(recorder.WithChecks(true))
	if d := cmp.Diff(plain, checked); d != "" {
		t.Fatalf("checked and unchecked results differ (-unchecked +checked):\n%s", d)
	}
}

// TestChecksOfConcurrentStreamsNameTheirOwnKernels: streams WithChecks on
// one device, used from their own goroutines, each report their own
// kernel's violation and nobody else's.
func TestChecksOfConcurrentStreamsNameTheirOwnKernels(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	const workers = 4
	ks := make([]*checked, workers)
	for w := range ks {
		ks[w] = newChecked(t, d, gputest.Stream(t, d, recorder.WithChecks(true)), scatterWGSL, fmt.Sprintf("scatter%d", w))
	}
	var wg sync.WaitGroup
	var errs collect
	for w, k := range ks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				bad := round == w%3
				v := uint32(2)
				if bad {
					v = 9
				}
				if err := recorder.WriteSlice(k.s, k.idx, 8, []uint32{v}); err != nil {
					errs.add(err)
					return
				}
				if err := k.launch(); err != nil {
					errs.add(err)
					return
				}
				err := k.s.Sync()
				var ce *recorder.CheckError
				switch {
				case bad && !errors.As(err, &ce):
					errs.add(fmt.Errorf("worker %d round %d: Sync = %v, want its violation", w, round, err))
				case bad && ce.Kernel != fmt.Sprintf(`"scatter%d" (entry point main)`, w):
					errs.add(fmt.Errorf("worker %d: a violation names the stream's own kernel, got %v", w, err))
				case !bad && err != nil:
					errs.add(fmt.Errorf("worker %d round %d: in range, Sync = %v", w, round, err))
				}
			}
		}()
	}
	wg.Wait()
	errs.report(t)
}

// TestChecksRefuseAKernelWithNoGroupLeft: a kernel using @group(3) has no
// group for the checks; its launch is refused on the spot, naming it, and
// the stream keeps working.
func TestChecksRefuseAKernelWithNoGroupLeft(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithChecks(true))
	k := gputest.Kernel(t, d, "@group(3) @binding(0) var<storage, read_write> a: array<u32>;\n@compute @workgroup_size(1)\nfn main() { a[0] = 1u; }\n", wgpu.WithLabel("last"))
	b := gputest.Empty(t, s, 16)
	err := s.Launch(k, recorder.Groups(1, 1, 1), b)
	gputest.WantErr(t, "a kernel without a free group is refused", err, []error{recorder.ErrInvalidArgument}, `kernel "last" (entry point main)`, "group")
	if err := s.Sync(); err != nil {
		t.Fatalf("the stream works after a refused launch: %v", err)
	}
}

// BenchmarkChecks measures what WithChecks costs. Method: two streams of
// one device, one without checks and one with, run the same step in
// turn within every iteration (interleaved, so a machine's drift and
// other load fall on both alike); each step is timed on its own and the
// row reports the medians (off-ns, on-ns), the on/off ratio of the
// medians, and the spread of each (p90/p10). Rows: "launch" is one
// 64-invocation dispatch of a gather kernel (three checked accesses per
// invocation) and a Sync, where the extra bind group and the state's
// read-back at the Sync show; "replay64" a captured graph of 64 such
// dispatches and one Sync; "gpu" (the GPU-bound control) one dispatch of
// 2^20 invocations, each a 64-iteration loop of checked reads, where the
// cost is the check of every access. ns/op is the two steps together.
func BenchmarkChecks(b *testing.B) {
	d := gputest.Open(b, wgpu.Options{})
	fmt.Printf("adapter: %+v\n", d.Info())
	const loopWGSL = `@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let n = arrayLength(&dst);
	if (id.x >= n) { return; }
	var acc = 0.0;
	for (var j = 0u; j < 64u; j++) { acc += src[(id.x + j * 977u) % n]; }
	dst[id.x] = acc;
}
`
	type side struct{ launch, replay, gpu func() error }
	sides := make([]side, 2)
	for i, on := range []bool{false, true} {
		s := gputest.Stream(b, d, recorder.WithChecks(on))
		k := gputest.Kernel(b, d, gatherWGSL)
		idx := gputest.UploadU32(b, s, make([]uint32, 64)...)
		src := gputest.Upload(b, s, gputest.Fill(64, 1))
		dst := gputest.Empty(b, s, 4*64)
		launch := func() error { return s.Launch(k, recorder.Groups(1, 1, 1), idx, src, dst) }
		g, err := s.Capture(func() error {
			for range 64 {
				if err := launch(); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(g.Release)
		const big = 1 << 20
		lk := gputest.Kernel(b, d, loopWGSL)
		bsrc := gputest.Upload(b, s, gputest.Ramp(big, 0))
		bdst := gputest.Empty(b, s, 4*big)
		sync := func(err error) error {
			if err != nil {
				return err
			}
			return s.Sync()
		}
		sides[i] = side{
			launch: func() error { return sync(launch()) },
			replay: func() error { return sync(g.Replay()) },
			gpu:    func() error { return sync(s.Launch(lk, recorder.Groups(big/64, 1, 1), bsrc, bdst)) },
		}
	}
	row := func(name string, off, on func() error) {
		b.Run(name, func(b *testing.B) {
			var offT, onT []time.Duration
			for b.Loop() {
				for _, p := range []struct {
					step func() error
					to   *[]time.Duration
				}{{off, &offT}, {on, &onT}} {
					t0 := time.Now()
					if err := p.step(); err != nil {
						b.Fatal(err)
					}
					*p.to = append(*p.to, time.Since(t0))
				}
			}
			q := func(ts []time.Duration, f float64) float64 {
				s := slices.Clone(ts)
				slices.Sort(s)
				return float64(s[int(f*float64(len(s)-1))])
			}
			b.ReportMetric(q(offT, 0.5), "off-ns")
			b.ReportMetric(q(onT, 0.5), "on-ns")
			b.ReportMetric(q(onT, 0.5)/q(offT, 0.5), "on/off")
			b.ReportMetric(q(offT, 0.9)/q(offT, 0.1), "off-p90/p10")
			b.ReportMetric(q(onT, 0.9)/q(onT, 0.1), "on-p90/p10")
		})
	}
	row("launch", sides[0].launch, sides[1].launch)
	row("replay64", sides[0].replay, sides[1].replay)
	row("gpu", sides[0].gpu, sides[1].gpu)
}

// TestChecksOfAnIfBodyReportOnlyWhenItRuns: a checked kernel inside an
// If body (run as its guarded variant, or gated) is checked when the
// condition holds and, skipped, reports nothing.
func TestChecksOfAnIfBodyReportOnlyWhenItRuns(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithChecks(true))
	sc := newChecked(t, d, s, scatterWGSL, "scatter")
	cond := gputest.UploadU32(t, s, 0)
	g := gputest.Capture(t, s, func() {
		if err := s.If(cond, 0, sc.launch); err != nil {
			t.Fatal(err)
		}
	})
	sc.setIndex(t, 2, 9)
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("a skipped body indexes nothing: Sync = %v", err)
	}
	if err := recorder.WriteSlice(s, cond, 0, []uint32{1}); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantViolation(t, "a body that runs is checked", s.Sync(), with(scatterViolation, "Sync"))
}

// TestAGraphCapturedWithChecksListsOnlyTheCallersBuffersAndIsNotSaved:
// the checks' state is the stream's, not the caller's: Buffers leaves it
// out, and Save refuses the graph (a file of its checked kernels would
// load as kernels writing a state nobody reads) with ErrInvalidArgument.
func TestAGraphCapturedWithChecksListsOnlyTheCallersBuffersAndIsNotSaved(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithChecks(true))
	sc := newChecked(t, d, s, scatterWGSL, "scatter")
	g := gputest.Capture(t, s, func() {
		if err := sc.launch(); err != nil {
			t.Fatal(err)
		}
	})
	if d := cmp.Diff([]*recorder.Buffer{sc.idx, sc.src, sc.dst}, g.Buffers(), cmp.Comparer(func(a, b *recorder.Buffer) bool { return a == b })); d != "" {
		t.Errorf("Buffers lists the caller's buffers only (-want +got):\n%s", d)
	}
	var buf bytes.Buffer
	_, err := g.Save(&buf, recorder.SaveOptions{})
	gputest.WantErr(t, "a checked graph is not saved", err, []error{recorder.ErrInvalidArgument}, "WithChecks")
	if err := g.Replay(); err != nil {
		t.Fatalf("the graph replays after a refused Save: %v", err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
}

// workgroupWGSL takes its builtins in a struct, shares a tile through
// workgroup memory across a barrier and has an override-sized
// workgroup: the checked variant (its entry point wrapped) compiles and
// computes the same, and a read past src's end is named.
const workgroupWGSL = `override wg: u32 = 64;
struct In { @builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32, }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> shift: vec4<u32>;
var<workgroup> tile: array<f32, 64>;
@compute @workgroup_size(wg)
fn main(in: In) {
	tile[in.li] = src[in.gid.x + shift.x];
	workgroupBarrier();
	dst[in.gid.x] = tile[(in.li + 1u) % wg];
}
`

// TestChecksWrapEntryPointsWithStructBuiltinsAndBarriers: see
// workgroupWGSL.
func TestChecksWrapEntryPointsWithStructBuiltinsAndBarriers(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	run := func(shift uint32, opts ...recorder.Option) ([]float32, error) {
		s := gputest.Stream(t, d, opts...)
		k := gputest.Kernel(t, d, workgroupWGSL, wgpu.WithLabel("tile"), wgpu.WithConstants(map[string]float64{"wg": 64}))
		src := gputest.Upload(t, s, gputest.Ramp(128, 0))
		dst := gputest.Empty(t, s, 4*64)
		if err := s.Launch(k, recorder.Groups(1, 1, 1), src, dst, gputest.U32(shift, 0, 0, 0)); err != nil {
			t.Fatal(err)
		}
		return recorder.ReadSlice[float32](s, dst)
	}
	plain, err := run(3)
	if err != nil {
		t.Fatal(err)
	}
	checked, err := run(3, recorder.WithChecks(true))
	if err != nil {
		t.Fatalf("in range, a checked kernel reports nothing: %v", err)
	}
	if d := cmp.Diff(plain, checked); d != "" {
		t.Fatalf("checked and unchecked results differ (-unchecked +checked):\n%s", d)
	}
	_, err = run(100, recorder.WithChecks(true))
	var ce *recorder.CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("Read = %v, want a *CheckError", err)
	}
	// Invocations 28..63 read src[128..163]: which records first is the
	// GPU's choice; binding, length and the index's relation to the
	// invocation are not.
	if ce.Kernel != `"tile" (entry point main)` || ce.Binding != "src" || ce.Length != 128 || ce.Index != ce.Invocation[0]+100 || ce.Index < 128 || ce.Count != 36 {
		t.Fatalf("the violation names kernel tile, binding src of 128 elements and the index its invocation used, counting 36 invocations: %+v", *ce)
	}
}

// TestChecksFollowARebindAndLeaveFusionExact: a rebound graph is still
// checked (the state and launch word are the stream's, kept by Rebind,
// which matches the caller's buffers only); and on a stream
// WithFusion too, a captured chain computes what it does unchecked and
// reports nothing in range.
func TestChecksFollowARebindAndLeaveFusionExact(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithChecks(true))
	sc := newChecked(t, d, s, scatterWGSL, "scatter")
	g := gputest.Capture(t, s, func() {
		if err := sc.launch(); err != nil {
			t.Fatal(err)
		}
	})
	other := gputest.Empty(t, s, 16)
	r, err := g.Rebind(sc.dst, other)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Release)
	sc.setIndex(t, 2, 9)
	if err := r.Replay(); err != nil {
		t.Fatal(err)
	}
	wantViolation(t, "a rebound graph is checked", s.Sync(), with(scatterViolation, "Sync"))

	chain := func(opts ...recorder.Option) []float32 {
		s := gputest.Stream(t, d, opts...)
		add := gputest.Kernel(t, d, gputest.AddConstWGSL)
		scale := gputest.Kernel(t, d, gputest.ScaleWGSL)
		x := gputest.Upload(t, s, gputest.Ramp(256, 0.5))
		g, err := s.Capture(func() error {
			if err := s.Launch(add, recorder.Groups(4, 1, 1), x, gputest.F32(1.5)); err != nil {
				return err
			}
			return s.Launch(scale, recorder.Groups(4, 1, 1), x, gputest.F32(0.3))
		})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Release()
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		out, err := recorder.ReadSlice[float32](s, x)
		if err != nil {
			t.Fatalf("in range, a fused or checked chain reports nothing: %v", err)
		}
		return out
	}
	plain := chain()
	if d := cmp.Diff(plain, chain(recorder.WithFusion(true), recorder.WithChecks(true))); d != "" {
		t.Fatalf("a chain on a stream WithFusion and WithChecks computes what it does unchecked (-plain +checked):\n%s", d)
	}
}

// TestChecksSkipAGroupAnotherEntryPointDeclares: when the group after a
// kernel's own is declared by another entry point of the module, the
// checks take the next free one (the group between stays empty, as gaps
// may) and still report.
func TestChecksSkipAGroupAnotherEntryPointDeclares(t *testing.T) {
	const src = `@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(1) @binding(0) var<storage, read_write> other: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) { a[id.x * 2u] = id.x; }
@compute @workgroup_size(1)
fn side() { other[0] = 1u; }
`
	d, s := gputest.OpenStream(t, recorder.WithChecks(true))
	k := gputest.Kernel(t, d, src, wgpu.WithLabel("gap"))
	a := gputest.Empty(t, s, 16)
	if err := s.Launch(k, recorder.Groups(1, 1, 1), a); err != nil {
		t.Fatal(err)
	}
	var ce *recorder.CheckError
	if err := s.Sync(); !errors.As(err, &ce) || ce.Binding != "a" || ce.Length != 4 || ce.Index != 2*ce.Invocation[0] || ce.Count != 2 {
		t.Fatalf("invocations 2 and 3 write a[4] and a[6] of 4: Sync = %v", err)
	}
}
