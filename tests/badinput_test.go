package tests

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// matrixRig is the world the bad-input matrix runs in: the stream under
// test, the known-good buffers its proof computes with, and one of every
// kind of bad argument (released, closed, foreign, oversized).
type matrixRig struct {
	d         *wgpu.Device     // the device under test
	other     *wgpu.Device     // a second open device: the source of foreign objects
	closedDev *wgpu.Device     // closed before the cases run
	lostDev   *wgpu.Device     // lost (InjectLoss) before the cases run
	s         *recorder.Stream // the stream under test
	s2        *recorder.Stream // a second live stream on d
	closedS   *recorder.Stream // a closed stream on d

	k, foreignK, closedDevK, copyK *wgpu.Kernel
	releasedK                      *wgpu.Kernel // released before the cases run
	fixedK                         *wgpu.Kernel // binds a fixed-size 256-byte struct

	a, b      *recorder.Buffer // the proof's ping-pong pair (64 floats)
	x, y      *recorder.Buffer // 64-byte arguments
	ind       *recorder.Buffer // a 16-byte indirect buffer holding (1,1,1)
	odd       *recorder.Buffer // 12 bytes: not a whole number of float64s
	released  *recorder.Buffer
	foreign   *recorder.Buffer // from a stream of other
	closedBuf *recorder.Buffer // from closedS
	orphan    *recorder.Buffer // from closedS, released by a case
	bigUni    *recorder.Buffer // one word over maxUniformBufferBindingSize
	bigStore  *recorder.Buffer // one word over maxStorageBufferBindingSize

	releasedGraph, closedGraph, s2Graph *recorder.Graph
	g                                   *recorder.Graph // a live graph of s: x copied to y
	graphs                              int             // live graphs of s between cases
	staleTok, otherTok, runningTok      recorder.ProfileToken

	elems uint32
}

// fixedWGSL binds a fixed-size 256-byte struct: Launch checks a buffer
// against the size the kernel's reflection says its type needs.
const fixedWGSL = `
struct S { a: array<f32, 64> }
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(1)
fn main() { s.a[0] = s.a[63]; }
`

// newMatrixRig builds the rig; kopts go to every kernel it compiles (a
// label, for the test that launch errors name it).
func newMatrixRig(t *testing.T, kopts ...wgpu.KernelOption) *matrixRig {
	r := &matrixRig{elems: 64}
	r.d = gputest.Open(t, wgpu.Options{})
	r.s = gputest.Stream(t, r.d)
	r.s2 = gputest.Stream(t, r.d)
	r.other = gputest.Open(t, wgpu.Options{})
	otherS := gputest.Stream(t, r.other)
	r.closedDev = gputest.Open(t, wgpu.Options{})
	r.closedDevK = gputest.Kernel(t, r.closedDev, gputest.AddOneWGSL, kopts...)
	if err := r.closedDev.Close(); err != nil {
		t.Fatal(err)
	}
	r.lostDev = gputest.Open(t, wgpu.Options{})
	driver.InjectLoss(r.lostDev, "bad-input matrix")

	r.k = gputest.Kernel(t, r.d, gputest.AddOneWGSL, kopts...)
	r.copyK = gputest.Kernel(t, r.d, gputest.CopyWGSL, kopts...)
	r.fixedK = gputest.Kernel(t, r.d, fixedWGSL, kopts...)
	// Kernels are cached per source: the released one gets a source of its
	// own, or Release would take the live copy kernel with it.
	r.releasedK = gputest.Kernel(t, r.d, gputest.CopyWGSL+"// released\n", kopts...)
	r.releasedK.Release()
	r.foreignK = gputest.Kernel(t, r.other, gputest.AddOneWGSL, kopts...)
	r.a = gputest.Upload(t, r.s, gputest.Fill(64, 0))
	r.b = gputest.Empty(t, r.s, 256)
	r.x = gputest.Upload(t, r.s, gputest.Fill(16, 1))
	r.y = gputest.Empty(t, r.s, 64)
	ind, err := r.s.Upload(gputest.U32(1, 1, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	r.ind = ind
	r.odd = gputest.Empty(t, r.s, 12)
	r.released = gputest.Empty(t, r.s, 64)
	r.released.Release()
	r.foreign = gputest.Empty(t, otherS, 64)
	lim := r.d.Info().Limits
	// One word over each binding limit (limits need not be multiples of 4:
	// NVIDIA's GL reports a storage limit of 2^31-1).
	// A limit at or above maxBufferSize (NVIDIA's GL: both 2^31-1) makes
	// such a buffer impossible; its cases are then not applicable.
	for _, big := range []struct {
		b     **recorder.Buffer
		limit uint64
	}{{&r.bigUni, lim.MaxUniformBufferBindingSize}, {&r.bigStore, lim.MaxStorageBufferBindingSize}} {
		if size := (big.limit + 4) &^ 3; size <= lim.MaxBufferSize {
			*big.b = gputest.Empty(t, r.s, size)
		}
	}

	r.closedS = gputest.Stream(t, r.d)
	r.closedBuf = gputest.Empty(t, r.closedS, 64)
	r.orphan = gputest.Empty(t, r.closedS, 64)
	cx := gputest.Upload(t, r.closedS, gputest.Fill(16, 0))
	r.closedGraph = gputest.Capture(t, r.closedS, func() {
		if err := r.closedS.Launch(r.copyK, recorder.Groups(1, 1, 1), cx, r.closedBuf); err != nil {
			t.Fatal(err)
		}
	})

	if err := r.closedS.Close(); err != nil {
		t.Fatal(err)
	}

	sx := gputest.Upload(t, r.s2, gputest.Fill(16, 0))
	r.s2Graph = gputest.Capture(t, r.s2, func() {
		if err := r.s2.Launch(r.copyK, recorder.Groups(1, 1, 1), sx, gputest.Empty(t, r.s2, 64)); err != nil {
			t.Fatal(err)
		}
	})

	r.releasedGraph = gputest.Capture(t, r.s, func() {
		if err := r.s.Launch(r.copyK, recorder.Groups(1, 1, 1), r.x, r.y); err != nil {
			t.Fatal(err)
		}
	})

	r.releasedGraph.Release()
	r.g = gputest.Capture(t, r.s, func() {
		if err := r.s.Launch(r.copyK, recorder.Groups(1, 1, 1), r.x, r.y); err != nil {
			t.Fatal(err)
		}
	})
	r.graphs = r.s.MemoryStats().Graphs

	for _, p := range []struct {
		s   *recorder.Stream
		tok *recorder.ProfileToken
	}{{r.s, &r.staleTok}, {r.s2, &r.otherTok}} {
		tok, err := p.s.StartProfile()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.s.EndProfile(tok); err != nil {
			t.Fatal(err)
		}
		*p.tok = tok
	}
	// The stream has submitted work before the first case, so a cancelled
	// context meets a real wait.
	r.enter(t, lifecycle.NoCapture, 0)
	r.prove(t, lifecycle.NoCapture, 0, false, "")
	return r
}

// enter writes the proof's input and moves the stream into st. In Capture
// the warmup has run and the window is open.
func (r *matrixRig) enter(t *testing.T, st lifecycle.State, base float32) {
	t.Helper()
	if err := recorder.WriteSlice(r.s, r.a, 0, gputest.Ramp(int(r.elems), base)); err != nil {
		t.Fatalf("writing the proof's input: %v", err)
	}
	if st == lifecycle.NoCapture {
		return
	}
	if err := r.s.PrepareCapture(); err != nil {
		t.Fatalf("GraphPrepare: %v", err)
	}
	if st == lifecycle.Capture {
		if err := gputest.Chain(r.s, r.k, r.a, r.b, 2, r.elems); err != nil {
			t.Fatalf("warmup: %v", err)
		}
		if err := r.s.BeginCapture(); err != nil {
			t.Fatalf("BeginCapture: %v", err)
		}
	}
}

// prove finishes what enter started and checks the stream still computes:
// in NoCapture an add-one chain runs eagerly; in Prepare the warmup runs
// and a capture of it is sealed and replayed; in Capture the window records
// the chain, seals (or, poisoned by a write inside the window, fails to
// seal) and replays. The chain adds 2 per run, so a reads base+2 or base+4.
// refusedFailsCapture names the entry points whose refusal inside the
// capture window makes EndCapture fail with a *recorder.CaptureError (a
// caller ignoring the error would otherwise get a graph its step does not
// describe), and the operation the error names: every entry point whose
// lifecycle row fails the capture (lifecycle.State.FailsCapture). Alloc and
// Upload's allocation execute inside the window and fail no capture.
var refusedFailsCapture = map[string]string{
	"Stream.Launch": "Launch", "Stream.Copy": "Copy", "Stream.Clear": "Clear",
	"Graph.Replay": "Replay", "Stream.If": "Branch", "Stream.While": "Branch",
	"Stream.Read": "Read", "Stream.Sync": "Sync", "Stream.Write": "Write",
	"Stream.StartProfile": "Profile", "Stream.EndProfile": "EndProfile", "Graph.Rebind": "Rebind",
	"Stream.GraphPrepare": "PrepareCapture", "Stream.BeginCapture": "BeginCapture", // a capture begun inside the window
}

// notOnTheRigStream names the cases whose call is not made on the rig's
// stream (a nil or closed stream, a graph of none or of a closed one):
// their refusal cannot touch the rig's capture.
var notOnTheRigStream = map[string]bool{
	"nil stream": true, "closed stream": true, "nil graph": true, "graph of a closed stream": true,
}

func (r *matrixRig) prove(t *testing.T, st lifecycle.State, base float32, poisoned bool, refused string) {
	t.Helper()
	runs := float32(1)
	if st == lifecycle.Prepare {
		if err := gputest.Chain(r.s, r.k, r.a, r.b, 2, r.elems); err != nil {
			t.Fatalf("warmup after the refused call: %v", err)
		}
		if err := r.s.BeginCapture(); err != nil {
			t.Fatalf("BeginCapture after the refused call: %v", err)
		}
	}
	if st != lifecycle.NoCapture {
		if err := gputest.Chain(r.s, r.k, r.a, r.b, 2, r.elems); err != nil {
			t.Fatalf("recording after the refused call: %v", err)
		}
		g, err := r.s.EndCapture()
		if poisoned {
			gputest.WantErr(t, "a write inside the window makes EndCapture fail", err, []error{lifecycle.ErrGraphState}, "Write", "a write was issued while recording")
			if g != nil {
				t.Fatalf("a failed EndCapture must return no graph")
			}
		} else if refused != "" && st == lifecycle.Capture {
			var ce *recorder.CaptureError
			if g != nil || !errors.As(err, &ce) {
				g.Release()
				t.Fatalf("a call refused inside the window makes EndCapture fail with a *CaptureError and no graph: got %v, %v", g, err)
			}
			gputest.WantErr(t, "the CaptureError names the refused call", err, []error{lifecycle.ErrGraphState}, refused+":")
		} else {
			if err != nil {
				t.Fatalf("a refused call must not poison the capture: EndCapture: %v", err)
			}
			if g.Len() != 2 {
				g.Release()
				t.Fatalf("a refused call must record nothing: the graph holds %d dispatches, want the proof's 2", g.Len())
			}
			err = g.Replay()
			g.Release() // the enqueued replay still computes
			if err != nil {
				t.Fatalf("Replay: %v", err)
			}
			runs++
		}
	} else if err := gputest.Chain(r.s, r.k, r.a, r.b, 2, r.elems); err != nil {
		t.Fatalf("launching after the refused call: %v", err)
	}
	got, err := recorder.ReadSlice[float32](r.s, r.a)
	if err != nil {
		t.Fatalf("a refused call must leave nothing queued: Read: %v", err)
	}
	gputest.WantEqual(t, "the stream still computes after the refused call", gputest.Plus(gputest.Ramp(int(r.elems), base), 2*runs), got)
	wantState(t, "after the proof", r.s, lifecycle.NoCapture)
	if n := r.s.MemoryStats().Graphs; n != r.graphs {
		t.Fatalf("a refused call must leave no graph behind: %d live graphs, want the rig's %d", n, r.graphs)
	}
}

// reset brings the stream back to NoCapture after a subtest that failed
// half-way, so one failure does not cascade through the matrix.
func (r *matrixRig) reset() {
	if r.runningTok != (recorder.ProfileToken{}) {
		_, _ = r.s.EndProfile(r.runningTok)
		r.runningTok = recorder.ProfileToken{}
	}
	if r.s.State() != lifecycle.NoCapture {
		_ = r.s.AbortCapture()
	}
	_ = r.s.Sync()
}

// expect is what one call must return: nil when is is empty, else an error
// wrapping each of is, matching as (when set) and naming each fragment of
// msg. poisons: the call returns nil inside the window but EndCapture must
// then fail.
type expect struct {
	is      []error
	msg     []string
	as      func(error) bool
	asName  string
	poisons bool
}

func errorAs[T error]() (func(error) bool, string) {
	var zero T
	return func(err error) bool { var target T; return errors.As(err, &target) }, fmt.Sprintf("%T", zero)
}

func wantIs(is error, msg ...string) expect { return expect{is: []error{is}, msg: msg} }

var (
	noError    = expect{}
	poisonsEnd = expect{poisons: true}
)

// badCase is one row of the matrix: a call with a bad argument (or in a
// state that refuses it), and what it must return.
type badCase struct {
	entry string
	name  string
	// states the call is made in; nil means all three. Calls that do not
	// involve a stream (Open, New, Device) run once.
	states []lifecycle.State
	do     func(t *testing.T, r *matrixRig) error
	want   expect
	// inCapture, when set, replaces want while recording.
	inCapture *expect
	// before runs in NoCapture before the stream enters the state; after
	// runs once the proof has brought it back.
	before, after func(t *testing.T, r *matrixRig)
}

// errNotApplicable is what a case returns when this device cannot build
// its bad input (a buffer over a binding limit that is also the buffer
// size limit); the case is skipped, saying so.
var errNotApplicable = errors.New("not applicable on this device")

var (
	allStates    = []lifecycle.State{lifecycle.NoCapture, lifecycle.Prepare, lifecycle.Capture}
	once         = []lifecycle.State{lifecycle.NoCapture}
	onlyCapture  = []lifecycle.State{lifecycle.Capture}
	notRecording = []lifecycle.State{lifecycle.NoCapture, lifecycle.Prepare}
	notNoCapture = []lifecycle.State{lifecycle.Prepare, lifecycle.Capture}
	errPanicked  = errors.New("panicked")
)

func graphState(msg ...string) *expect {
	e := wantIs(lifecycle.ErrGraphState, msg...)
	return &e
}

// badCases is the bad-input matrix: the cases of every public entry
// point, one function per API area, in the order the test runs them (a
// case's index sets the input its proof computes with).
func badCases() []badCase {
	var cases []badCase
	for _, area := range []func() []badCase{
		badOpenAndKernelCases, badAllocCases, badLaunchCases, badTransferCases,
		badLifecycleCases, badGraphAndReleaseCases,
	} {
		cases = append(cases, area()...)
	}
	return cases
}

// huge and hugeAligned are sizes and offsets at the top of the uint64
// range: huge is also misaligned, hugeAligned is a multiple of 4, so only
// its magnitude is wrong.
const (
	huge        = math.MaxUint64
	hugeAligned = math.MaxUint64 &^ 3
)

// openErr is an Open that must fail: a device returned with the error is
// a failure of its own (and is closed).
func openErr(d *wgpu.Device, err error) error {
	if d != nil {
		_ = d.Close()
		return fmt.Errorf("Open returned a device with its error %v", err)
	}
	return err
}

// wantNoAdapter expects a *wgpu.AdapterError wrapping wgpu.ErrNoAdapter
// and naming each fragment of msg.
func wantNoAdapter(msg ...string) expect {
	as, asName := errorAs[*wgpu.AdapterError]()
	return expect{is: []error{wgpu.ErrNoAdapter}, msg: msg, as: as, asName: asName}
}

// wantCompileErr expects a *wgpu.CompileError wrapping wgpu.ErrCompile and
// naming each fragment of msg.
func wantCompileErr(msg ...string) expect {
	as, asName := errorAs[*wgpu.CompileError]()
	return expect{is: []error{wgpu.ErrCompile}, msg: msg, as: as, asName: asName}
}

// kernelOf is a case that compiles entry of src on the rig's device.
func kernelOf(src, entry string) func(*testing.T, *matrixRig) error {
	return func(_ *testing.T, r *matrixRig) error { _, err := r.d.Kernel(src, entry); return err }
}

// badOpenAndKernelCases: opening a device, a closed or lost device, the
// kernels a device refuses to compile, and recorder.New on a bad device.
func badOpenAndKernelCases() []badCase {
	var nilDevice *wgpu.Device

	return []badCase{
		// wgpu.Open
		{entry: "wgpu.Open", name: "adapter matching nothing", states: once, want: wantNoAdapter(`adapter="no-such-adapter-7f3a"`),
			do: func(_ *testing.T, _ *matrixRig) error {
				return openErr(wgpu.Open(wgpu.Options{Adapter: "no-such-adapter-7f3a", IgnoreEnv: true}))
			}},
		{entry: "wgpu.Open", name: "backend out of range", states: once, want: wantNoAdapter("Backend(200)"),
			do: func(_ *testing.T, _ *matrixRig) error {
				return openErr(wgpu.Open(wgpu.Options{Backend: wgpu.Backend(200), IgnoreEnv: true}))
			}},
		{entry: "wgpu.Open", name: "fallback adapter matching nothing", states: once, want: wantNoAdapter("fallback=true", `adapter="no-such-adapter-7f3a"`),
			do: func(_ *testing.T, _ *matrixRig) error {
				return openErr(wgpu.Open(wgpu.Options{Adapter: "no-such-adapter-7f3a", ForceFallback: true, IgnoreEnv: true}))
			}},
		{entry: "wgpu.Open", name: "SOFTGRAPH_BACKEND unknown", states: once, want: wantIs(wgpu.ErrInvalidArgument, `SOFTGRAPH_BACKEND="bogus"`),
			do: func(t *testing.T, _ *matrixRig) error {
				t.Setenv("SOFTGRAPH_BACKEND", "bogus")
				return openErr(wgpu.Open(wgpu.Options{}))
			}},

		// wgpu.Device
		{entry: "wgpu.Device", name: "Err of nil device", states: once, want: wantIs(wgpu.ErrInvalidArgument, "device is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { return nilDevice.Err() }},
		{entry: "wgpu.Device", name: "Close of nil device", states: once, want: noError,
			do: func(_ *testing.T, _ *matrixRig) error { return nilDevice.Close() }},
		{entry: "wgpu.Device", name: "Err of closed device", states: once, want: wantIs(wgpu.ErrClosed),
			do: func(_ *testing.T, r *matrixRig) error { return r.closedDev.Err() }},
		{entry: "wgpu.Device", name: "second Close", states: once, want: noError,
			do: func(_ *testing.T, r *matrixRig) error { return r.closedDev.Close() }},
		{entry: "wgpu.Device", name: "Err of lost device", states: once, want: wantIs(wgpu.ErrDeviceLost, "bad-input matrix"),
			do: func(_ *testing.T, r *matrixRig) error { return r.lostDev.Err() }},

		// Device.Kernel
		{entry: "Device.Kernel", name: "nil device", want: wantIs(wgpu.ErrInvalidArgument, "Kernel", "device is nil"),
			do: func(_ *testing.T, _ *matrixRig) error {
				_, err := nilDevice.Kernel(gputest.AddOneWGSL, "main")
				return err
			}},
		{entry: "Device.Kernel", name: "closed device", want: wantIs(wgpu.ErrClosed, "Kernel"),
			do: func(_ *testing.T, r *matrixRig) error {
				_, err := r.closedDev.Kernel(gputest.AddOneWGSL, "main")
				return err
			}},
		{entry: "Device.Kernel", name: "lost device", want: wantIs(wgpu.ErrDeviceLost, "Kernel"),
			do: func(_ *testing.T, r *matrixRig) error {
				_, err := r.lostDev.Kernel(gputest.AddOneWGSL, "main")
				return err
			}},
		{entry: "Device.Kernel", name: "empty source", want: wantIs(wgpu.ErrInvalidArgument, "source is empty"), do: kernelOf("", "main")},
		{entry: "Device.Kernel", name: "blank source", want: wantIs(wgpu.ErrInvalidArgument, "source is empty"), do: kernelOf(" \n\t", "main")},
		{entry: "Device.Kernel", name: "empty entry", want: wantIs(wgpu.ErrInvalidArgument, `entry=""`), do: kernelOf(gputest.AddOneWGSL, "")},
		{entry: "Device.Kernel", name: "syntax error", want: wantCompileErr(`entry "main"`, "expected"), do: kernelOf("fn main( {", "main")},
		{entry: "Device.Kernel", name: "missing entry point", want: wantCompileErr(`no @compute entry point named "nope"`), do: kernelOf(gputest.AddOneWGSL, "nope")},
		// Groups 0..3 (and gaps) are allowed now; a group past the device's
		// maxBindGroups is not.
		{entry: "Device.Kernel", name: "binding in a group past maxBindGroups", want: wantCompileErr("@group(", "bind groups"),
			do: func(_ *testing.T, r *matrixRig) error {
				g := r.d.Info().Limits.MaxBindGroups
				_, err := r.d.Kernel(fmt.Sprintf("@group(%d) @binding(0) var<storage, read_write> a: array<f32>;\n@compute @workgroup_size(1) fn main() { a[0] = 1.0; }", g), "main")
				return err
			}},
		{entry: "Device.Kernel", name: "binding number past maxBindingsPerBindGroup", want: wantCompileErr("@binding("),
			do: func(_ *testing.T, r *matrixRig) error {
				b := r.d.Info().Limits.MaxBindingsPerBindGroup
				_, err := r.d.Kernel(fmt.Sprintf("@group(0) @binding(%d) var<storage, read_write> a: array<f32>;\n@compute @workgroup_size(1) fn main() { a[0] = 1.0; }", b), "main")
				return err
			}},
		{entry: "Device.Kernel", name: "two variables at one binding", want: wantCompileErr("@group(0) @binding(0)", "both"),
			do: kernelOf("@group(0) @binding(0) var<storage, read_write> a: array<f32>;\n@group(0) @binding(0) var<storage, read_write> b: array<f32>;\n@compute @workgroup_size(1) fn main() { a[0] = b[0]; }", "main")},
		// (A read_write storage texture is no longer bad input: Open
		// requests the adapter-specific format feature that allows it.)
		{entry: "Device.Kernel", name: "load from a write-only storage texture", want: wantCompileErr("texture_storage_2d", "READ"),
			do: kernelOf("@group(0) @binding(0) var t: texture_storage_2d<rgba8unorm, write>;\n@compute @workgroup_size(1) fn main() { let v = textureLoad(t, vec2<i32>(0, 0)); }", "main")},
		{entry: "Device.Kernel", name: "var<workgroup> over maxComputeWorkgroupStorageSize", want: wantCompileErr("var<workgroup>", "maxComputeWorkgroupStorageSize"),
			do: func(_ *testing.T, r *matrixRig) error {
				n := r.d.Info().Limits.MaxComputeWorkgroupStorageSize/4 + 1
				_, err := r.d.Kernel(fmt.Sprintf("var<workgroup> big: array<f32, %d>;\n@group(0) @binding(0) var<storage, read_write> a: array<f32>;\n@compute @workgroup_size(1) fn main() { big[0] = 1.0; a[0] = big[0]; }", n), "main")
				return err
			}},
		{entry: "Device.Kernel", name: "workgroup over the invocation limit", want: wantCompileErr("2048"),
			do: kernelOf("@compute @workgroup_size(1024, 2, 1) fn main() {}", "main")},
		{entry: "Device.Kernel", name: "zero workgroup size", want: wantCompileErr("workgroup_size", "positive"),
			do: kernelOf("@compute @workgroup_size(0) fn main() {}", "main")},

		// recorder.New
		{entry: "recorder.New", name: "nil device", states: once, want: wantIs(wgpu.ErrInvalidArgument, "New", "device is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { _, err := recorder.New(nil); return err }},
		{entry: "recorder.New", name: "closed device", states: once, want: wantIs(wgpu.ErrClosed, "New"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := recorder.New(r.closedDev); return err }},
		{entry: "recorder.New", name: "lost device", states: once, want: wantIs(wgpu.ErrDeviceLost, "New"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := recorder.New(r.lostDev); return err }},
	}
}

// badAllocCases: Empty and Upload with sizes WebGPU refuses, on a nil or
// closed stream, and inside the capture window.
func badAllocCases() []badCase {
	var nilStream *recorder.Stream

	return []badCase{
		// Stream.Alloc
		{entry: "Stream.Alloc", name: "size 0", want: wantIs(wgpu.ErrInvalidArgument, "Alloc", "size=0"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Alloc(0); return err }},
		{entry: "Stream.Alloc", name: "size 2", want: wantIs(wgpu.ErrInvalidArgument, "size=2"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Alloc(2); return err }},
		{entry: "Stream.Alloc", name: "size 6", want: wantIs(wgpu.ErrInvalidArgument, "size=6"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Alloc(6); return err }},
		{entry: "Stream.Alloc", name: "size MaxUint64", want: wantIs(wgpu.ErrInvalidArgument, "size=18446744073709551615"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Alloc(huge); return err }},
		{entry: "Stream.Alloc", name: "size MaxUint64 aligned", want: wantIs(wgpu.ErrInvalidArgument, "size=18446744073709551612", "maxBufferSize"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Alloc(hugeAligned); return err }},
		{entry: "Stream.Alloc", name: "one word over maxBufferSize", want: wantIs(wgpu.ErrInvalidArgument, "maxBufferSize"),
			do: func(_ *testing.T, r *matrixRig) error {
				_, err := r.s.Alloc((r.d.Info().Limits.MaxBufferSize + 4) &^ 3)
				return err
			}},
		{entry: "Stream.Alloc", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "Alloc", "stream is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { _, err := nilStream.Alloc(64); return err }},
		{entry: "Stream.Alloc", name: "closed stream", want: wantIs(wgpu.ErrClosed, "Alloc"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.closedS.Alloc(64); return err }},

		// Stream.Upload
		{entry: "Stream.Upload", name: "nil data", want: wantIs(wgpu.ErrInvalidArgument, "Alloc", "size=0"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Upload(nil); return err }},
		{entry: "Stream.Upload", name: "empty data", want: wantIs(wgpu.ErrInvalidArgument, "size=0"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Upload([]byte{}); return err }},
		{entry: "Stream.Upload", name: "3 bytes", want: wantIs(wgpu.ErrInvalidArgument, "size=3"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Upload([]byte{1, 2, 3}); return err }},
		{entry: "Stream.Upload", name: "UploadSlice of 3 uint16", want: wantIs(wgpu.ErrInvalidArgument, "size=6"),
			do: func(_ *testing.T, r *matrixRig) error {
				_, err := recorder.UploadSlice(r.s, []uint16{1, 2, 3})
				return err
			}},
		{entry: "Stream.Upload", name: "UploadSlice of nil", want: wantIs(wgpu.ErrInvalidArgument, "size=0"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := recorder.UploadSlice[float32](r.s, nil); return err }},
		{entry: "Stream.Upload", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "Alloc", "stream is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { _, err := nilStream.Upload(make([]byte, 4)); return err }},
		{entry: "Stream.Upload", name: "closed stream", want: wantIs(wgpu.ErrClosed, "Alloc"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.closedS.Upload(make([]byte, 4)); return err }},
		{entry: "Stream.Upload", name: "valid upload inside the window", states: onlyCapture, want: poisonsEnd,
			do: func(_ *testing.T, r *matrixRig) error {
				b, err := r.s.Upload(make([]byte, 16))
				if err == nil && b == nil {
					return errors.New("Upload returned neither a buffer nor an error")
				}
				b.Release()
				return err
			}},
	}
}

// badLaunchCases: Launch with bad kernels, arguments, params, dispatch
// sizes and indirect buffers, on a nil or closed stream.
func badLaunchCases() []badCase {
	var nilStream *recorder.Stream
	var nilBuffer *recorder.Buffer
	launch := func(r *matrixRig, d recorder.Dispatch, args ...recorder.Arg) error {
		return r.s.Launch(r.k, d, args...)
	}
	g1 := recorder.Groups(1, 1, 1)
	p := gputest.U32(16)

	return []badCase{
		// Stream.Launch
		{entry: "Stream.Launch", name: "nil kernel", want: wantIs(wgpu.ErrInvalidArgument, "Launch", "kernel is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Launch(nil, g1, r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "kernel of another device", want: wantIs(wgpu.ErrForeignDevice, "another device"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Launch(r.foreignK, g1, r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "kernel of a closed device", want: wantIs(wgpu.ErrForeignDevice, "another device"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Launch(r.closedDevK, g1, r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "no arguments", want: wantIs(wgpu.ErrInvalidArgument, "0 argument(s)", "which binds 3"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1) }},
		{entry: "Stream.Launch", name: "too few arguments", want: wantIs(wgpu.ErrInvalidArgument, "2 argument(s)"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, r.x, r.y) }},
		{entry: "Stream.Launch", name: "too many arguments", want: wantIs(wgpu.ErrInvalidArgument, "4 argument(s)"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, r.x, r.y, p, p) }},
		{entry: "Stream.Launch", name: "typed nil buffer", want: wantIs(wgpu.ErrInvalidArgument, "argument 0", "is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, nilBuffer, r.y, p) }},
		{entry: "Stream.Launch", name: "nil argument", want: wantIs(wgpu.ErrInvalidArgument, "argument 1", "is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, r.x, nil, p) }},
		{entry: "Stream.Launch", name: "nil params", want: wantIs(wgpu.ErrInvalidArgument, "argument 2", "Params of 0 bytes"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, r.x, r.y, recorder.Params(nil)) }},
		{entry: "Stream.Launch", name: "released buffer", want: wantIs(wgpu.ErrReleased, "argument 1", "released"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, r.x, r.released, p) }},
		{entry: "Stream.Launch", name: "buffer of another device", want: wantIs(wgpu.ErrForeignDevice, "argument 0", "another device"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, r.foreign, r.y, p) }},
		{entry: "Stream.Launch", name: "buffer of a closed stream", want: wantIs(wgpu.ErrClosed, "argument 1", "closed stream"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, r.x, r.closedBuf, p) }},
		{entry: "Stream.Launch", name: "params for a read-write storage binding", want: wantIs(wgpu.ErrInvalidArgument, "argument 1", "is Params", "read-only"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, r.x, p, p) }},
		{entry: "Stream.Launch", name: "params of 3 bytes", want: wantIs(wgpu.ErrInvalidArgument, "argument 2", "Params of 3 bytes"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, r.x, r.y, recorder.Params{1, 2, 3}) }},
		{entry: "Stream.Launch", name: "params over maxUniformBufferBindingSize", want: wantIs(wgpu.ErrInvalidArgument, "argument 2", "Params of 65540 bytes"),
			do: func(_ *testing.T, r *matrixRig) error {
				return launch(r, g1, r.x, r.y, make(recorder.Params, r.d.Info().Limits.MaxUniformBufferBindingSize+4))
			}},
		{entry: "Stream.Launch", name: "uniform buffer over maxUniformBufferBindingSize", want: wantIs(wgpu.ErrInvalidArgument, "argument 2", "maxUniformBufferBindingSize"),
			do: func(_ *testing.T, r *matrixRig) error {
				if r.bigUni == nil {
					return errNotApplicable
				}
				return launch(r, g1, r.x, r.y, r.bigUni)
			}},
		{entry: "Stream.Launch", name: "storage buffer over maxStorageBufferBindingSize", want: wantIs(wgpu.ErrInvalidArgument, "argument 1", "maxStorageBufferBindingSize"),
			do: func(_ *testing.T, r *matrixRig) error {
				if r.bigStore == nil {
					return errNotApplicable
				}
				return launch(r, g1, r.x, r.bigStore, p)
			}},
		{entry: "Stream.Launch", name: "one buffer read-only and read-write", want: wantIs(wgpu.ErrInvalidArgument, "same resource", "read-write and read-only"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, g1, r.x, r.x, p) }},
		{entry: "Stream.Launch", name: "zero workgroups in x", want: wantIs(wgpu.ErrInvalidArgument, "workgroups=(0,1,1)"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, recorder.Groups(0, 1, 1), r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "zero workgroups in y", want: wantIs(wgpu.ErrInvalidArgument, "workgroups=(1,0,1)"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, recorder.Groups(1, 0, 1), r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "zero workgroups in z", want: wantIs(wgpu.ErrInvalidArgument, "workgroups=(1,1,0)"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, recorder.Groups(1, 1, 0), r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "zero Dispatch value", want: wantIs(wgpu.ErrInvalidArgument, "workgroups=(0,0,0)"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, recorder.Dispatch{}, r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "MaxUint32 workgroups in x", want: wantIs(wgpu.ErrInvalidArgument, "workgroups=(4294967295,1,1)"),
			do: func(_ *testing.T, r *matrixRig) error {
				return launch(r, recorder.Groups(math.MaxUint32, 1, 1), r.x, r.y, p)
			}},
		{entry: "Stream.Launch", name: "MaxUint32 workgroups in z", want: wantIs(wgpu.ErrInvalidArgument, "workgroups=(1,1,4294967295)"),
			do: func(_ *testing.T, r *matrixRig) error {
				return launch(r, recorder.Groups(1, 1, math.MaxUint32), r.x, r.y, p)
			}},
		{entry: "Stream.Launch", name: "one over maxComputeWorkgroupsPerDimension", want: wantIs(wgpu.ErrInvalidArgument, "maxComputeWorkgroupsPerDimension"),
			do: func(_ *testing.T, r *matrixRig) error {
				return launch(r, recorder.Groups(1, r.d.Info().Limits.MaxComputeWorkgroupsPerDimension+1, 1), r.x, r.y, p)
			}},
		{entry: "Stream.Launch", name: "nil indirect buffer", want: wantIs(wgpu.ErrInvalidArgument, "indirect buffer is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, recorder.Indirect(nil, 0), r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "misaligned indirect offset", want: wantIs(wgpu.ErrInvalidArgument, "indirect offset=2"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, recorder.Indirect(r.ind, 2), r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "indirect offset leaving under 12 bytes", want: wantIs(wgpu.ErrInvalidArgument, "indirect offset=8"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, recorder.Indirect(r.ind, 8), r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "indirect offset MaxUint64", want: wantIs(wgpu.ErrInvalidArgument, "indirect offset=18446744073709551615"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, recorder.Indirect(r.ind, huge), r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "indirect offset MaxUint64 aligned", want: wantIs(wgpu.ErrInvalidArgument, "indirect offset=18446744073709551612"),
			do: func(_ *testing.T, r *matrixRig) error {
				return launch(r, recorder.Indirect(r.ind, hugeAligned), r.x, r.y, p)
			}},
		{entry: "Stream.Launch", name: "released indirect buffer", want: wantIs(wgpu.ErrReleased, "indirect buffer"),
			do: func(_ *testing.T, r *matrixRig) error {
				return launch(r, recorder.Indirect(r.released, 0), r.x, r.y, p)
			}},
		{entry: "Stream.Launch", name: "indirect buffer of another device", want: wantIs(wgpu.ErrForeignDevice, "indirect buffer"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, recorder.Indirect(r.foreign, 0), r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "indirect buffer of a closed stream", want: wantIs(wgpu.ErrClosed, "indirect buffer"),
			do: func(_ *testing.T, r *matrixRig) error {
				return launch(r, recorder.Indirect(r.closedBuf, 0), r.x, r.y, p)
			}},
		{entry: "Stream.Launch", name: "indirect buffer bound read-write", want: wantIs(wgpu.ErrInvalidArgument, "indirect buffer is also @group(0) @binding(1)"),
			do: func(_ *testing.T, r *matrixRig) error { return launch(r, recorder.Indirect(r.y, 0), r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "released kernel", want: wantIs(wgpu.ErrReleased, "Launch", "released"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Launch(r.releasedK, g1, r.x, r.y) }},
		{entry: "Stream.Launch", name: "buffer smaller than its binding's type", want: wantIs(wgpu.ErrInvalidArgument, "argument 0", "16-byte buffer is smaller than its type", "256 bytes"),
			do: func(t *testing.T, r *matrixRig) error {
				small := gputest.Empty(t, r.s, 16)
				defer small.Release()
				return r.s.Launch(r.fixedK, g1, small)
			}},
		{entry: "Stream.Launch", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "Launch", "stream is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return nilStream.Launch(r.k, g1, r.x, r.y, p) }},
		{entry: "Stream.Launch", name: "closed stream", want: wantIs(wgpu.ErrClosed, "Launch"),
			do: func(_ *testing.T, r *matrixRig) error { return r.closedS.Launch(r.k, g1, r.x, r.y, p) }},
	}
}

// badTransferCases: Write, Copy, Clear, Read and Sync with bad buffers,
// offsets, lengths and contexts, and the ones the capture window refuses.
func badTransferCases() []badCase {
	var nilStream *recorder.Stream
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	return []badCase{
		// Stream.Write
		{entry: "Stream.Write", name: "nil buffer", want: wantIs(wgpu.ErrInvalidArgument, "Write", "buffer is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Write(nil, 0, make([]byte, 4)) }},
		{entry: "Stream.Write", name: "released buffer", want: wantIs(wgpu.ErrReleased, "Write", "released"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Write(r.released, 0, make([]byte, 4)) }},
		{entry: "Stream.Write", name: "buffer of another device", want: wantIs(wgpu.ErrForeignDevice, "Write", "another device"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Write(r.foreign, 0, make([]byte, 4)) }},
		{entry: "Stream.Write", name: "buffer of a closed stream", want: wantIs(wgpu.ErrClosed, "Write", "closed stream"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Write(r.closedBuf, 0, make([]byte, 4)) }},
		{entry: "Stream.Write", name: "misaligned offset", want: wantIs(wgpu.ErrInvalidArgument, "offset=2"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Write(r.y, 2, make([]byte, 4)) }},
		{entry: "Stream.Write", name: "misaligned length", want: wantIs(wgpu.ErrInvalidArgument, "len=3"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Write(r.y, 0, make([]byte, 3)) }},
		{entry: "Stream.Write", name: "WriteSlice of one uint16", want: wantIs(wgpu.ErrInvalidArgument, "len=2"),
			do: func(_ *testing.T, r *matrixRig) error { return recorder.WriteSlice(r.s, r.y, 0, []uint16{1}) }},
		{entry: "Stream.Write", name: "offset MaxUint64", want: wantIs(wgpu.ErrInvalidArgument, "offset=18446744073709551615"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Write(r.y, huge, make([]byte, 4)) }},
		{entry: "Stream.Write", name: "offset MaxUint64 aligned", want: wantIs(wgpu.ErrInvalidArgument, "offset=18446744073709551612", "past the end"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Write(r.y, hugeAligned, make([]byte, 4)) }},
		{entry: "Stream.Write", name: "data running past the end", want: wantIs(wgpu.ErrInvalidArgument, "offset=60 len=8", "past the end of a 64-byte buffer"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Write(r.y, 60, make([]byte, 8)) }},
		{entry: "Stream.Write", name: "empty write past the end", want: wantIs(wgpu.ErrInvalidArgument, "offset=68 len=0", "past the end"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Write(r.y, 68, nil) }},
		{entry: "Stream.Write", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "Write", "stream is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return nilStream.Write(r.y, 0, make([]byte, 4)) }},
		{entry: "Stream.Write", name: "closed stream", want: wantIs(wgpu.ErrClosed, "Write"),
			do: func(_ *testing.T, r *matrixRig) error { return r.closedS.Write(r.y, 0, make([]byte, 4)) }},
		{entry: "Stream.Write", name: "valid write inside the window", states: onlyCapture, want: poisonsEnd,
			do: func(_ *testing.T, r *matrixRig) error { return recorder.WriteSlice(r.s, r.a, 0, gputest.Fill(4, 1e6)) }},

		// Stream.Copy
		{entry: "Stream.Copy", name: "nil destination", want: wantIs(wgpu.ErrInvalidArgument, "Copy", "destination is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Copy(nil, 0, r.x, 0, 64) }},
		{entry: "Stream.Copy", name: "nil source", want: wantIs(wgpu.ErrInvalidArgument, "Copy", "source is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Copy(r.y, 0, nil, 0, 64) }},
		{entry: "Stream.Copy", name: "released source", want: wantIs(wgpu.ErrReleased, "Copy", "source", "released"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Copy(r.y, 0, r.released, 0, 64) }},
		{entry: "Stream.Copy", name: "destination of another device", want: wantIs(wgpu.ErrForeignDevice, "Copy", "destination", "another device"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Copy(r.foreign, 0, r.x, 0, 64) }},
		{entry: "Stream.Copy", name: "source of a closed stream", want: wantIs(wgpu.ErrClosed, "Copy", "closed stream"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Copy(r.y, 0, r.closedBuf, 0, 64) }},
		{entry: "Stream.Copy", name: "a buffer onto itself", want: wantIs(wgpu.ErrInvalidArgument, "Copy", "same buffer"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Copy(r.y, 32, r.y, 0, 32) }},
		{entry: "Stream.Copy", name: "misaligned offset", want: wantIs(wgpu.ErrInvalidArgument, "Copy", "srcOffset=2"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Copy(r.y, 0, r.x, 2, 4) }},
		{entry: "Stream.Copy", name: "running past the end", want: wantIs(wgpu.ErrInvalidArgument, "Copy", "size=8", "past the end"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Copy(r.y, 60, r.x, 0, 8) }},
		{entry: "Stream.Copy", name: "size MaxUint64 aligned", want: wantIs(wgpu.ErrInvalidArgument, "Copy", "past the end"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Copy(r.y, 0, r.x, 0, hugeAligned) }},
		{entry: "Stream.Copy", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "Copy", "stream is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return nilStream.Copy(r.y, 0, r.x, 0, 64) }},
		{entry: "Stream.Copy", name: "closed stream", want: wantIs(wgpu.ErrClosed, "Copy"),
			do: func(_ *testing.T, r *matrixRig) error { return r.closedS.Copy(r.y, 0, r.x, 0, 64) }},

		// Stream.Clear
		{entry: "Stream.Clear", name: "nil buffer", want: wantIs(wgpu.ErrInvalidArgument, "Clear", "buffer is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Clear(nil, 0, 4) }},
		{entry: "Stream.Clear", name: "released buffer", want: wantIs(wgpu.ErrReleased, "Clear", "released"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Clear(r.released, 0, 4) }},
		{entry: "Stream.Clear", name: "misaligned size", want: wantIs(wgpu.ErrInvalidArgument, "Clear", "size=2"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Clear(r.y, 0, 2) }},
		{entry: "Stream.Clear", name: "running past the end", want: wantIs(wgpu.ErrInvalidArgument, "Clear", "offset=60 size=8"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Clear(r.y, 60, 8) }},
		{entry: "Stream.Clear", name: "offset MaxUint64 aligned", want: wantIs(wgpu.ErrInvalidArgument, "Clear", "offset=18446744073709551612"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Clear(r.y, hugeAligned, 4) }},
		{entry: "Stream.Clear", name: "closed stream", want: wantIs(wgpu.ErrClosed, "Clear"),
			do: func(_ *testing.T, r *matrixRig) error { return r.closedS.Clear(r.y, 0, 4) }},

		// Stream.Read
		{entry: "Stream.Read", name: "nil buffer", want: wantIs(wgpu.ErrInvalidArgument, "Read", "buffer is nil"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Read(nil); return err }},
		{entry: "Stream.Read", name: "released buffer", want: wantIs(wgpu.ErrReleased, "Read", "released"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Read(r.released); return err }},
		{entry: "Stream.Read", name: "buffer of another device", want: wantIs(wgpu.ErrForeignDevice, "Read", "another device"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Read(r.foreign); return err }},
		{entry: "Stream.Read", name: "buffer of a closed stream", want: wantIs(wgpu.ErrClosed, "Read", "closed stream"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Read(r.closedBuf); return err }},
		{entry: "Stream.Read", name: "ReadSlice of a nil buffer", want: wantIs(wgpu.ErrInvalidArgument, "buffer is nil"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := recorder.ReadSlice[float32](r.s, nil); return err }},
		{entry: "Stream.Read", name: "ReadSlice of a partial element", want: wantIs(wgpu.ErrInvalidArgument, "Read", "12 bytes", "8-byte elements"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := recorder.ReadSlice[float64](r.s, r.odd); return err }},
		{entry: "Stream.Read", name: "cancelled context", want: wantIs(context.Canceled, "Read"), inCapture: graphState("Read", "recording"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.ReadContext(cancelled, r.y); return err }},
		{entry: "Stream.Read", name: "valid read inside the window", states: onlyCapture, want: *graphState("Read", "recording"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.Read(r.y); return err }},
		{entry: "Stream.Read", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "Read", "stream is nil"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := nilStream.Read(r.y); return err }},
		{entry: "Stream.Read", name: "closed stream", want: wantIs(wgpu.ErrClosed, "Read"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.closedS.Read(r.closedBuf); return err }},

		// Stream.Sync
		{entry: "Stream.Sync", name: "cancelled context", want: wantIs(context.Canceled, "Sync"), inCapture: graphState("Sync", "recording"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.SyncContext(cancelled) }},
		{entry: "Stream.Sync", name: "sync inside the window", states: onlyCapture, want: *graphState("Sync", "recording"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.Sync() }},
		{entry: "Stream.Sync", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "Sync", "stream is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { return nilStream.Sync() }},
		{entry: "Stream.Sync", name: "closed stream", want: wantIs(wgpu.ErrClosed, "Sync"),
			do: func(_ *testing.T, r *matrixRig) error { return r.closedS.Sync() }},
	}
}

// badLifecycleCases: profiles and the capture transitions (GraphPrepare,
// BeginCapture, EndCapture) out of order, with stale tokens, or on a nil
// or closed stream.
func badLifecycleCases() []badCase {
	var nilStream *recorder.Stream

	return []badCase{
		// Stream.StartProfile / EndProfile
		{entry: "Stream.StartProfile", name: "second profile on the stream", want: wantIs(wgpu.ErrInvalidArgument, "Profile", "still running"), inCapture: graphState("Profile", "recording"),
			do: func(_ *testing.T, r *matrixRig) error {
				tok, err := r.s.StartProfile()
				if err != nil {
					return err
				}
				_, err2 := r.s.StartProfile()
				if _, err := r.s.EndProfile(tok); err != nil {
					return fmt.Errorf("ending the first profile: %v", err)
				}
				return err2
			}},
		{entry: "Stream.StartProfile", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "Profile", "stream is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { _, err := nilStream.StartProfile(); return err }},
		{entry: "Stream.StartProfile", name: "closed stream", want: wantIs(wgpu.ErrClosed, "Profile"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.closedS.StartProfile(); return err }},
		{entry: "Stream.EndProfile", name: "zero token", want: wantIs(wgpu.ErrInvalidArgument, "Profile", "token 0"), inCapture: graphState("Profile", "recording"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.EndProfile(recorder.ProfileToken{}); return err }},
		{entry: "Stream.EndProfile", name: "token of an ended profile", want: wantIs(wgpu.ErrInvalidArgument, "Profile", "not the profile running"), inCapture: graphState("Profile", "recording"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.EndProfile(r.staleTok); return err }},
		{entry: "Stream.EndProfile", name: "token of another stream", want: wantIs(wgpu.ErrInvalidArgument, "Profile", "not the profile running"), inCapture: graphState("Profile", "recording"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.EndProfile(r.otherTok); return err }},
		{entry: "Stream.EndProfile", name: "running profile inside the window", states: onlyCapture, want: *graphState("Profile", "recording"),
			before: func(t *testing.T, r *matrixRig) {
				tok, err := r.s.StartProfile()
				if err != nil {
					t.Fatal(err)
				}
				r.runningTok = tok
			},
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.s.EndProfile(r.runningTok); return err },
			after: func(t *testing.T, r *matrixRig) {
				_, err := r.s.EndProfile(r.runningTok)
				r.runningTok = recorder.ProfileToken{}
				if err != nil {
					t.Fatalf("a profile refused its end inside the window keeps running and ends afterwards: %v", err)
				}
			}},
		{entry: "Stream.EndProfile", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "Profile", "stream is nil"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := nilStream.EndProfile(r.staleTok); return err }},
		{entry: "Stream.EndProfile", name: "closed stream", want: wantIs(wgpu.ErrClosed, "Profile"),
			do: func(_ *testing.T, r *matrixRig) error { _, err := r.closedS.EndProfile(r.staleTok); return err }},

		// Stream.GraphPrepare / BeginCapture / EndCapture
		{entry: "Stream.GraphPrepare", name: "out of order", states: notNoCapture, want: *graphState("PrepareCapture", "already prepared"), inCapture: graphState("PrepareCapture", "already recording"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.PrepareCapture() }},
		{entry: "Stream.GraphPrepare", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "PrepareCapture", "stream is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { return nilStream.PrepareCapture() }},
		{entry: "Stream.GraphPrepare", name: "closed stream", want: wantIs(wgpu.ErrClosed, "PrepareCapture"),
			do: func(_ *testing.T, r *matrixRig) error { return r.closedS.PrepareCapture() }},
		{entry: "Stream.BeginCapture", name: "without GraphPrepare", states: once, want: *graphState("BeginCapture", "call PrepareCapture"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.BeginCapture() }},
		{entry: "Stream.BeginCapture", name: "while recording", states: onlyCapture, want: *graphState("BeginCapture", "already recording"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.BeginCapture() }},
		{entry: "Stream.BeginCapture", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "BeginCapture", "stream is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { return nilStream.BeginCapture() }},
		{entry: "Stream.BeginCapture", name: "closed stream", want: wantIs(wgpu.ErrClosed, "BeginCapture"),
			do: func(_ *testing.T, r *matrixRig) error { return r.closedS.BeginCapture() }},
		{entry: "Stream.EndCapture", name: "nothing recording", states: notRecording, want: *graphState("EndCapture", "no graph capture is recording"),
			do: func(_ *testing.T, r *matrixRig) error { return endCaptureErr(r.s) }},
		{entry: "Stream.EndCapture", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "EndCapture", "stream is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { return endCaptureErr(nilStream) }},
		{entry: "Stream.EndCapture", name: "closed stream", want: wantIs(wgpu.ErrClosed, "EndCapture"),
			do: func(_ *testing.T, r *matrixRig) error { return endCaptureErr(r.closedS) }},
	}
}

// badGraphAndReleaseCases: Replay, Release and Rebind of bad graphs and
// buffers, then the calls that abandon or release: AbortCapture,
// Buffer.Release and Stream.Close.
func badGraphAndReleaseCases() []badCase {
	var nilStream *recorder.Stream
	var nilGraph *recorder.Graph
	var nilBuffer *recorder.Buffer
	g1 := recorder.Groups(1, 1, 1)

	return []badCase{
		// Graph.Replay / Graph.Release
		{entry: "Graph.Replay", name: "nil graph", want: wantIs(wgpu.ErrInvalidArgument, "Replay", "graph is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { return nilGraph.Replay() }},
		{entry: "Graph.Replay", name: "released graph", want: wantIs(wgpu.ErrReleased, "Replay", "released"),
			do: func(_ *testing.T, r *matrixRig) error { return r.releasedGraph.Replay() }},
		{entry: "Graph.Replay", name: "graph of a closed stream", want: wantIs(wgpu.ErrClosed, "Replay"),
			do: func(_ *testing.T, r *matrixRig) error { return r.closedGraph.Replay() }},
		{entry: "Graph.Replay", name: "graph of another stream replays there, not into this window", want: noError,
			do: func(_ *testing.T, r *matrixRig) error { return r.s2Graph.Replay() }},
		{entry: "Graph.Release", name: "nil graph, then Replay", want: wantIs(wgpu.ErrInvalidArgument, "graph is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { nilGraph.Release(); return nilGraph.Replay() }},
		{entry: "Graph.Release", name: "twice, then Replay", want: wantIs(wgpu.ErrReleased, "Replay"),
			do: func(t *testing.T, r *matrixRig) error {
				g := gputest.Capture(t, r.s2, func() {
					if err := r.s2.Launch(r.copyK, g1, r.s2Buf(t), r.s2Buf(t)); err != nil {
						t.Fatal(err)
					}
				})
				g.Release()
				g.Release()
				return g.Replay()
			}},

		// Graph.Rebind
		{entry: "Graph.Rebind", name: "nil graph", want: wantIs(wgpu.ErrInvalidArgument, "Rebind", "graph is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return rebindErr(nilGraph.Rebind(r.x, r.b)) }},
		{entry: "Graph.Rebind", name: "nil old buffer", want: wantIs(wgpu.ErrInvalidArgument, "Rebind", "old buffer is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return rebindErr(r.g.Rebind(nil, r.b)) }},
		{entry: "Graph.Rebind", name: "nil new buffer", want: wantIs(wgpu.ErrInvalidArgument, "Rebind", "new buffer is nil"),
			do: func(_ *testing.T, r *matrixRig) error { return rebindErr(r.g.Rebind(r.x, nil)) }},
		{entry: "Graph.Rebind", name: "new buffer of another size", want: wantIs(wgpu.ErrInvalidArgument, "Rebind", "keeps sizes"),
			do: func(_ *testing.T, r *matrixRig) error { return rebindErr(r.g.Rebind(r.x, r.odd)) }},
		{entry: "Graph.Rebind", name: "released new buffer", want: wantIs(wgpu.ErrReleased, "Rebind", "new buffer", "released"),
			do: func(_ *testing.T, r *matrixRig) error { return rebindErr(r.g.Rebind(r.x, r.released)) }},
		{entry: "Graph.Rebind", name: "new buffer of another device", want: wantIs(wgpu.ErrForeignDevice, "Rebind", "another device"),
			do: func(_ *testing.T, r *matrixRig) error { return rebindErr(r.g.Rebind(r.x, r.foreign)) }},
		{entry: "Graph.Rebind", name: "old buffer the graph does not bind", want: wantIs(wgpu.ErrInvalidArgument, "Rebind", "does not bind"), inCapture: graphState("Rebind", "recording"),
			do: func(_ *testing.T, r *matrixRig) error { return rebindErr(r.g.Rebind(r.a, r.b)) }},
		{entry: "Graph.Rebind", name: "one buffer read-only and read-write", want: wantIs(wgpu.ErrInvalidArgument, "Rebind", "same resource"), inCapture: graphState("Rebind", "recording"),
			do: func(_ *testing.T, r *matrixRig) error { return rebindErr(r.g.Rebind(r.x, r.y)) }},
		{entry: "Graph.Rebind", name: "released graph", want: wantIs(wgpu.ErrReleased, "Rebind", "released"), inCapture: graphState("Rebind", "recording"),
			do: func(t *testing.T, r *matrixRig) error { return rebindErr(r.releasedGraph.Rebind(r.x, r.s2Buf(t))) }},
		{entry: "Graph.Rebind", name: "valid rebinding inside the window", states: onlyCapture, want: *graphState("Rebind", "recording"),
			do: func(t *testing.T, r *matrixRig) error { return rebindErr(r.g.Rebind(r.x, r.s2Buf(t))) }},
		{entry: "Graph.Rebind", name: "graph of a closed stream", want: wantIs(wgpu.ErrClosed, "Rebind"),
			do: func(_ *testing.T, r *matrixRig) error { return rebindErr(r.closedGraph.Rebind(r.x, r.b)) }},

		// Stream.AbortCapture
		{entry: "Stream.AbortCapture", name: "nothing prepared", states: once, want: *graphState("AbortCapture", "no graph capture is prepared"),
			do: func(_ *testing.T, r *matrixRig) error { return r.s.AbortCapture() }},
		{entry: "Stream.AbortCapture", name: "nil stream", want: wantIs(wgpu.ErrInvalidArgument, "AbortCapture", "stream is nil"),
			do: func(_ *testing.T, _ *matrixRig) error { return nilStream.AbortCapture() }},
		{entry: "Stream.AbortCapture", name: "closed stream", want: wantIs(wgpu.ErrClosed, "AbortCapture"),
			do: func(_ *testing.T, r *matrixRig) error { return r.closedS.AbortCapture() }},

		// Buffer.Release
		{entry: "Buffer.Release", name: "nil buffer", want: noError,
			do: func(_ *testing.T, _ *matrixRig) error { nilBuffer.Release(); return nil }},
		{entry: "Buffer.Release", name: "twice, then Write", want: wantIs(wgpu.ErrReleased, "Write", "released"),
			do: func(_ *testing.T, r *matrixRig) error {
				b, err := r.s.Alloc(16)
				if err != nil {
					return err
				}
				b.Release()
				b.Release()
				return r.s.Write(b, 0, make([]byte, 4))
			}},
		// Close dropped the caller's handle already; a closed stream's
		// buffer answers ErrClosed whether or not it was released.
		{entry: "Buffer.Release", name: "buffer of a closed stream, then Read", want: wantIs(wgpu.ErrClosed, "Read", "closed stream"),
			do: func(_ *testing.T, r *matrixRig) error { r.orphan.Release(); _, err := r.s.Read(r.orphan); return err }},

		// Stream.Close
		{entry: "Stream.Close", name: "nil stream", want: noError,
			do: func(_ *testing.T, _ *matrixRig) error { return nilStream.Close() }},
		{entry: "Stream.Close", name: "second Close", want: noError,
			do: func(_ *testing.T, r *matrixRig) error { return r.closedS.Close() }},
	}
}

// s2Buf is a fresh 64-byte buffer on the second stream, released with the
// test.
func (r *matrixRig) s2Buf(t *testing.T) *recorder.Buffer {
	b := gputest.Empty(t, r.s2, 64)
	t.Cleanup(b.Release)
	return b
}

// rebindErr is a Rebind that must fail: a graph returned with the error,
// or instead of it, is a failure of its own (and is released).
func rebindErr(g *recorder.Graph, err error) error {
	if g != nil {
		g.Release()
		if err != nil {
			return fmt.Errorf("Rebind returned a graph with its error %v", err)
		}
		return errors.New("Rebind returned a graph")
	}
	return err
}

func endCaptureErr(s *recorder.Stream) error {
	g, err := s.EndCapture()
	if g != nil {
		g.Release()
		if err != nil {
			return fmt.Errorf("EndCapture returned a graph with its error %v", err)
		}
		return errors.New("EndCapture returned a graph")
	}
	return err
}

func safely(t *testing.T, r *matrixRig, do func(*testing.T, *matrixRig) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errPanicked, p)
		}
	}()
	return do(t, r)
}

// TestEveryLaunchErrorNamesTheKernelsLabelAndEntryPoint: every error a
// Launch returns (each bad-input case of Stream.Launch but the nil kernel,
// which has no name) names the kernel it was given by its label and entry
// point, after the operation and before the argument, in its message and
// in recorder.Error.Kernel; and a launch refused inside a capture window
// makes EndCapture fail naming it too. In a model of 70 dispatches whose
// entry points are all "main", an error naming only "main" does not say
// which launch failed.
func TestEveryLaunchErrorNamesTheKernelsLabelAndEntryPoint(t *testing.T) {
	const label = "matrix kernel"
	r := newMatrixRig(t, wgpu.WithLabel(label))
	want := `"` + label + `" (entry point main)`
	n := 0
	for _, c := range badLaunchCases() {
		if c.entry != "Stream.Launch" || c.name == "nil kernel" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			defer r.reset()
			err := safely(t, r, c.do)
			if errors.Is(err, errNotApplicable) {
				t.Skipf("not applicable on this device: %v", err)
			}
			if err == nil {
				t.Fatalf("%s: Launch returned nil; the bad-input matrix says it fails", c.name)
			}
			if prefix := "recorder: Launch: kernel " + want + ": "; !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("%s: a launch error must begin %q (operation, kernel, then argument); got %q", c.name, prefix, err)
			}
			var re *recorder.Error
			if !errors.As(err, &re) || re.Kernel != want {
				t.Errorf("%s: the error must be a *recorder.Error whose Kernel is %s; got %#v", c.name, want, err)
			}
		})
		n++
	}
	if n < 30 {
		t.Fatalf("only %d launch cases ran; the matrix has more", n)
	}
	t.Run("refused inside a capture window", func(t *testing.T) {
		defer r.reset()
		if err := r.s.PrepareCapture(); err != nil {
			t.Fatal(err)
		}
		if err := r.s.BeginCapture(); err != nil {
			t.Fatal(err)
		}
		_ = r.s.Launch(r.k, recorder.Groups(1, 1, 1), r.x) // too few arguments: refused and noted
		g, err := r.s.EndCapture()
		if g != nil {
			g.Release()
		}
		var ce *recorder.CaptureError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "kernel "+want) {
			t.Errorf("EndCapture after a refused launch must fail with a *CaptureError naming kernel %s; got %v", want, err)
		}
	})
}

// TestBadInputIsRefusedWithANamedErrorAndTheStreamStillComputes: every
// public entry point, given nil, zero, huge, misaligned, out-of-range,
// released, closed or foreign arguments, in every lifecycle state where the
// call can be made, returns an error wrapping the specific sentinel (or
// type) and naming the argument or operation, enqueues and records nothing,
// leaves the lifecycle state where it was, and the stream then computes a
// known result (eagerly, or through a capture sealed and replayed). Without
// it, a bad argument can panic, poison a batch of good launches, wedge the
// lifecycle or slip a half-made launch into a graph.
func TestBadInputIsRefusedWithANamedErrorAndTheStreamStillComputes(t *testing.T) {
	r := newMatrixRig(t)
	n := 0
	perEntry := map[string]int{}
	for _, st := range allStates {
		for i, c := range badCases() {
			states := c.states
			if states == nil {
				states = allStates
			}
			if !containsState(states, st) {
				continue
			}
			n++
			perEntry[c.entry]++
			w := c.want
			if st == lifecycle.Capture && c.inCapture != nil {
				w = *c.inCapture
			}
			t.Run(fmt.Sprintf("%v/%s/%s", st, c.entry, c.name), func(t *testing.T) {
				defer r.reset()
				base := float32(i * 8)
				if c.before != nil {
					c.before(t, r)
				}
				r.enter(t, st, base)
				err := safely(t, r, c.do)
				if errors.Is(err, errNotApplicable) {
					t.Skipf("%s (%s): %v: maxBufferSize %d does not exceed the binding limit", c.entry, c.name, err, r.d.Info().Limits.MaxBufferSize)
				}
				t.Logf("returned: %v", err)
				if errors.Is(err, errPanicked) {
					t.Fatalf("%s must return an error, never panic: %v", c.entry, err)
				}
				if problem := gputest.CheckErr(err, w.is, w.msg); problem != "" {
					t.Fatalf("%s (%s) in %v: %s", c.entry, c.name, st, problem)
				}
				if w.as != nil && !w.as(err) {
					t.Fatalf("%s (%s): the error must be a %s, got %T: %v", c.entry, c.name, w.asName, err, err)
				}
				wantState(t, "a refused call leaves the lifecycle state unchanged", r.s, st)
				refused := ""
				if err != nil && !notOnTheRigStream[c.name] {
					refused = refusedFailsCapture[c.entry]
					// A case that ends in another call ("twice, then
					// Write") is refused by that call.
					for _, then := range []string{"Write", "Read"} {
						if strings.HasSuffix(c.name, ", then "+then) {
							refused = refusedFailsCapture["Stream."+then]
						}
					}
				}
				r.prove(t, st, base, w.poisons, refused)
				if c.after != nil {
					c.after(t, r)
				}
			})
		}
	}
	t.Logf("bad-input matrix: %d cases over %d entry points", n, len(perEntry))
	for e, k := range perEntry {
		t.Logf("  %-20s %3d", e, k)
	}
}

func containsState(l []lifecycle.State, s lifecycle.State) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
