package wgpu_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// openDevice opens the default device, or skips when this machine has no
// adapter at all — unless SOFTGRAPH_REQUIRE_GPU=1 (CI sets it), where a
// missing adapter fails instead of letting GPU tests skip silently.
func openDevice(t testing.TB, o wgpu.Options) *wgpu.Device {
	t.Helper()
	return gputest.Open(t, o)
}

const addOne = `
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&dst)) {
		dst[id.x] = src[id.x] + 1.0;
	}
}
`

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesf32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// runAddOne runs addOne on in through the raw device layer and returns dst.
func runAddOne(t *testing.T, d *wgpu.Device, in []float32) []float32 {
	t.Helper()
	k, err := d.Kernel(addOne, "main")
	if err != nil {
		t.Fatal(err)
	}
	size := uint64(4 * len(in))
	usage := wgpu.UsageStorage | wgpu.UsageCopySrc | wgpu.UsageCopyDst
	src, err := d.NewBuffer(size, usage, "src")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	dst, err := d.NewBuffer(size, usage, "dst")
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Release()
	staging, err := d.NewBuffer(size, wgpu.UsageMapRead|wgpu.UsageCopyDst, "staging")
	if err != nil {
		t.Fatal(err)
	}
	defer staging.Release()
	if err := d.Write(src, 0, f32bytes(in)); err != nil {
		t.Fatal(err)
	}
	bg, err := d.NewBindGroup(k, []wgpu.Binding{{Buffer: src, Size: size}, {Buffer: dst, Size: size}})
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Release()
	enc, err := d.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	if err := enc.BeginPass(nil); err != nil {
		t.Fatal(err)
	}
	enc.SetKernel(k)
	enc.SetBindGroup(bg)
	enc.Dispatch(uint32((len(in)+63)/64), 1, 1)
	if err := enc.EndPass(); err != nil {
		t.Fatal(err)
	}
	if err := enc.Copy(dst, 0, staging, 0, size); err != nil {
		t.Fatal(err)
	}
	cb, err := enc.Finish()
	if err != nil {
		t.Fatal(err)
	}
	sub, err := d.Submit(cb)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, size)
	if err := d.ReadMapped(t.Context(), staging, 0, out, sub); err != nil {
		t.Fatal(err)
	}
	return bytesf32(out)
}

// TestKernelRunsOnTheDefaultAdapter compiles a real WGSL kernel and runs it:
// the device layer alone computes dst = src + 1.
func TestKernelRunsOnTheDefaultAdapter(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	t.Logf("adapter: %s", d.Info())
	in := make([]float32, 100)
	want := make([]float32, 100)
	for i := range in {
		in[i] = float32(i) * 0.5
		want[i] = in[i] + 1
	}
	if diff := cmp.Diff(want, runAddOne(t, d, in)); diff != "" {
		t.Fatalf("dst = src + 1 (-want +got):\n%s", diff)
	}
	if got := d.Live(); got.Buffers != 0 || got.BindGroups != 0 || got.Encoders != 0 || got.CommandBuffers != 0 {
		t.Fatalf("after the run every buffer, bind group, encoder and command buffer is released; live: %+v", got)
	}
}

// TestGLBackendOpensExplicitly: the OpenGL fallback is a supported backend,
// reachable by asking for it (CI installs Mesa's EGL so it exists there).
func TestGLBackendOpensExplicitly(t *testing.T) {
	d := openDevice(t, wgpu.Options{Backend: wgpu.BackendGL, IgnoreEnv: true})
	if d.Info().Backend != wgpu.BackendGL {
		t.Fatalf("asked for GL, got %s", d.Info())
	}
	if diff := cmp.Diff([]float32{2, 3, 4}, runAddOne(t, d, []float32{1, 2, 3})); diff != "" {
		t.Fatalf("on GL, dst = src + 1 (-want +got):\n%s", diff)
	}
}

// TestCompileErrorCarriesTheDiagnostic: bad WGSL returns an error holding
// naga's message, never a panic; the device keeps working afterwards.
func TestCompileErrorCarriesTheDiagnostic(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	cases := []struct {
		name, src, entry, want string
	}{
		{"syntax", "@compute @workgroup_size(1) fn main() { let x = ; }", "main", "expected"},
		{"type", "@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }", "main", "main"},
		{"missing entry", addOne, "nope", `no @compute entry point named "nope" (found [main])`},
		{"group 1", strings.ReplaceAll(addOne, "@group(0) @binding(1)", "@group(1) @binding(1)"), "main", "softgraph binds @group(0) only"},
		{"gap", strings.ReplaceAll(addOne, "@binding(1)", "@binding(2)"), "main", "@binding(1) is missing"},
	}
	for _, c := range cases {
		_, err := d.Kernel(c.src, c.entry)
		var ce *wgpu.CompileError
		if !errors.Is(err, wgpu.ErrCompile) || !errors.As(err, &ce) {
			t.Fatalf("%s: want a *CompileError wrapping ErrCompile, got %v", c.name, err)
		}
		if !strings.Contains(ce.Diagnostic, c.want) {
			t.Errorf("%s: diagnostic %q must contain %q", c.name, ce.Diagnostic, c.want)
		}
		if ce.Entry != c.entry {
			t.Errorf("%s: error names entry %q, want %q", c.name, ce.Entry, c.entry)
		}
	}
	if diff := cmp.Diff([]float32{1}, runAddOne(t, d, []float32{0})); diff != "" {
		t.Fatalf("after compile errors the device must still compute (-want +got):\n%s", diff)
	}
}

// TestKernelIsCachedAndLayoutIsExplicit: asking twice returns the same
// *Kernel, and a declared-but-unused binding is still part of the layout.
func TestKernelIsCachedAndLayoutIsExplicit(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	src := `
// @group(0) @binding(9) var<storage> commented_out: array<f32>;
@binding(0) @group(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage> unused: array<u32>;
@group(0) @binding(2) var<uniform> params: vec4<u32>;
@compute @workgroup_size(8, 4)
fn run() { out[0] = params.x; }
`
	k1, err := d.Kernel(src, "run")
	if err != nil {
		t.Fatal(err)
	}
	k2, err := d.Kernel(src, "run")
	if err != nil {
		t.Fatal(err)
	}
	if k1 != k2 {
		t.Fatal("the same (source, entry) must return the cached *Kernel")
	}
	got := struct {
		B  []wgpu.BindingKind
		WG [3]uint32
	}{k1.Bindings(), k1.WorkgroupSize()}
	want := struct {
		B  []wgpu.BindingKind
		WG [3]uint32
	}{[]wgpu.BindingKind{wgpu.BindStorage, wgpu.BindReadOnlyStorage, wgpu.BindUniform}, [3]uint32{8, 4, 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("declarations read from the source (-want +got):\n%s", diff)
	}
	// Binding the unused binding 1 must be accepted (an auto layout would refuse it).
	usage := wgpu.UsageStorage | wgpu.UsageUniform | wgpu.UsageCopyDst | wgpu.UsageCopySrc
	b, err := d.NewBuffer(16, usage, "b")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	u, err := d.NewBuffer(16, usage, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Release()
	bg, err := d.NewBindGroup(k1, []wgpu.Binding{{Buffer: b, Size: 16}, {Buffer: u, Size: 16}, {Buffer: u, Size: 16}})
	if err != nil {
		t.Fatalf("a bind group covering a declared-but-unused binding must be valid: %v", err)
	}
	bg.Release()
	if got := d.Live().Kernels; got != 1 {
		t.Fatalf("one kernel compiled, live kernels = %d", got)
	}
}

// TestOpenListsAdaptersWhenNoneMatches: asking for an adapter that does not
// exist fails with ErrNoAdapter and says what exists instead.
func TestOpenListsAdaptersWhenNoneMatches(t *testing.T) {
	all := wgpu.Adapters(wgpu.BackendAuto)
	if len(all) == 0 {
		t.Skip("no adapter on this machine")
	}
	_, err := wgpu.Open(wgpu.Options{Adapter: "no-such-gpu-9000", IgnoreEnv: true})
	var ae *wgpu.AdapterError
	if !errors.Is(err, wgpu.ErrNoAdapter) || !errors.As(err, &ae) {
		t.Fatalf("want *AdapterError wrapping ErrNoAdapter, got %v", err)
	}
	if !strings.Contains(err.Error(), `adapter="no-such-gpu-9000"`) || !strings.Contains(err.Error(), all[0].Name) {
		t.Fatalf("message must name what was asked and what was found: %v", err)
	}
	if len(ae.Found) == 0 {
		t.Fatal("Found must list the enumerated adapters")
	}
}

func TestEnvironmentPicksTheBackend(t *testing.T) {
	t.Setenv("SOFTGRAPH_BACKEND", "no-such-backend")
	_, err := wgpu.Open(wgpu.Options{})
	if !errors.Is(err, wgpu.ErrInvalidArgument) || !strings.Contains(err.Error(), "SOFTGRAPH_BACKEND") {
		t.Fatalf("a bad SOFTGRAPH_BACKEND must be refused by name, got %v", err)
	}
	t.Setenv("SOFTGRAPH_BACKEND", "vulkan")
	if len(wgpu.Adapters(wgpu.BackendVulkan)) == 0 {
		t.Skip("no Vulkan adapter")
	}
	d := openDevice(t, wgpu.Options{})
	if d.Info().Backend != wgpu.BackendVulkan {
		t.Fatalf("SOFTGRAPH_BACKEND=vulkan opened %s", d.Info())
	}
}

// TestClosedDeviceRefusesEverything: after Close every call returns
// ErrClosed, and Close is idempotent.
func TestClosedDeviceRefusesEverything(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	b, err := d.NewBuffer(16, wgpu.UsageStorage|wgpu.UsageCopyDst, "b")
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second Close must be a no-op, got %v", err)
	}
	_, e1 := d.Kernel(addOne, "main")
	_, e2 := d.NewBuffer(16, wgpu.UsageStorage, "x")
	_, e3 := d.NewEncoder()
	for i, err := range []error{e1, e2, e3, d.Err()} {
		if !errors.Is(err, wgpu.ErrClosed) {
			t.Errorf("call %d after Close: want ErrClosed, got %v", i, err)
		}
	}
}

// TestLostDeviceRefusesEverything drives the device-lost handler: every
// later call returns ErrDeviceLost instead of hanging.
func TestLostDeviceRefusesEverything(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	d.InjectLoss("test")
	_, e1 := d.NewBuffer(16, wgpu.UsageStorage, "x")
	_, e2 := d.Kernel(addOne, "main")
	e3 := d.Wait(t.Context(), 0)
	for i, err := range []error{e1, e2, e3, d.Err()} {
		if !errors.Is(err, wgpu.ErrDeviceLost) {
			t.Errorf("call %d after loss: want ErrDeviceLost, got %v", i, err)
		}
	}
}

func TestBadBufferArgumentsAreRefusedOnTheHost(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	for _, size := range []uint64{0, 6, math.MaxUint64 &^ 3} {
		_, err := d.NewBuffer(size, wgpu.UsageStorage, "bad")
		if !errors.Is(err, wgpu.ErrInvalidArgument) || !strings.Contains(err.Error(), "size=") {
			t.Errorf("NewBuffer(%d): want ErrInvalidArgument naming size, got %v", size, err)
		}
	}
	b, err := d.NewBuffer(16, wgpu.UsageStorage|wgpu.UsageCopyDst, "b")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if err := d.Write(b, 8, make([]byte, 16)); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("a write past the end must be refused, got %v", err)
	}
	if err := d.Write(b, 2, make([]byte, 4)); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("a misaligned write must be refused, got %v", err)
	}
}

// TestTimestampedPassRecordsTicks: where the adapter offers timestamp
// queries, a pass opened with them writes two increasing ticks.
func TestTimestampedPassRecordsTicks(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	if !d.Info().Timestamps {
		t.Skipf("%s has no timestamp queries", d.Info())
	}
	qs, err := d.NewTimestampQueries(2)
	if err != nil {
		t.Fatal(err)
	}
	defer qs.Release()
	res, err := d.NewBuffer(256, wgpu.UsageQueryResolve|wgpu.UsageCopySrc, "resolve")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	staging, err := d.NewBuffer(16, wgpu.UsageMapRead|wgpu.UsageCopyDst, "staging")
	if err != nil {
		t.Fatal(err)
	}
	defer staging.Release()
	k, err := d.Kernel(addOne, "main")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := d.NewBuffer(4096, wgpu.UsageStorage, "buf")
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	buf2, err := d.NewBuffer(4096, wgpu.UsageStorage, "buf2")
	if err != nil {
		t.Fatal(err)
	}
	defer buf2.Release()
	bg, err := d.NewBindGroup(k, []wgpu.Binding{{Buffer: buf, Size: 4096}, {Buffer: buf2, Size: 4096}})
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Release()
	enc, err := d.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	if err := enc.BeginPass(&wgpu.Timestamps{Set: qs, Begin: 0, End: 1}); err != nil {
		t.Fatal(err)
	}
	enc.SetKernel(k)
	enc.SetBindGroup(bg)
	for range 50 {
		enc.Dispatch(16, 1, 1)
	}
	if err := enc.EndPass(); err != nil {
		t.Fatal(err)
	}
	if err := enc.ResolveQueries(qs, 0, 2, res, 0); err != nil {
		t.Fatal(err)
	}
	if err := enc.Copy(res, 0, staging, 0, 16); err != nil {
		t.Fatal(err)
	}
	cb, err := enc.Finish()
	if err != nil {
		t.Fatal(err)
	}
	sub, err := d.Submit(cb)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 16)
	if err := d.ReadMapped(t.Context(), staging, 0, out, sub); err != nil {
		t.Fatal(err)
	}
	begin, end := binary.LittleEndian.Uint64(out), binary.LittleEndian.Uint64(out[8:])
	if !(end > begin && begin > 0) {
		t.Fatalf("timestamps must be positive and increasing: begin=%d end=%d", begin, end)
	}
}

// TestNativeLogGoesThroughTheLogger: wgpu-native's own lines reach the
// device's zerolog logger, tagged as wgpu-native, instead of stderr.
func TestNativeLogGoesThroughTheLogger(t *testing.T) {
	var sb strings.Builder
	log := zerolog.New(&syncWriter{w: &sb})
	d := openDevice(t, wgpu.Options{Logger: log, NativeLog: wgpu.NativeLogTrace})
	// Compiling a kernel makes wgpu-native log at debug/trace level.
	if _, err := d.Kernel(addOne, "main"); err != nil {
		t.Fatal(err)
	}
	_ = d.Close()
	if !strings.Contains(sb.String(), `"component":"wgpu-native"`) {
		t.Fatalf("no wgpu-native line reached the logger; got:\n%.500s", sb.String())
	}
}

// TestOneBadDispatchIsReportedAndTheEncoderRecovers: a dispatch over the
// workgroup limit poisons its native encoder (hazard 4). The error comes back
// from Finish with the device's diagnostic, no command buffer is handed out,
// and the same Encoder then encodes valid work.
func TestOneBadDispatchIsReportedAndTheEncoderRecovers(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	k, err := d.Kernel(addOne, "main")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := d.NewBuffer(256, wgpu.UsageStorage, "a")
	b, _ := d.NewBuffer(256, wgpu.UsageStorage, "b")
	defer a.Release()
	defer b.Release()
	bg, err := d.NewBindGroup(k, []wgpu.Binding{{Buffer: a, Size: 256}, {Buffer: b, Size: 256}})
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Release()
	enc, err := d.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	if err := enc.BeginPass(nil); err != nil {
		t.Fatal(err)
	}
	enc.SetKernel(k)
	enc.SetBindGroup(bg)
	enc.Dispatch(d.Info().Limits.MaxComputeWorkgroupsPerDimension+1, 1, 1)
	cb, err := enc.Finish()
	var de *wgpu.DeviceError
	if !errors.As(err, &de) || !errors.Is(err, wgpu.ErrValidation) || !cb.Empty() {
		t.Fatalf("an over-limit dispatch must fail Finish with a validation *DeviceError and no command buffer; got cb.Empty=%v err=%v", cb.Empty(), err)
	}
	if err := enc.BeginPass(nil); err != nil {
		t.Fatal(err)
	}
	enc.SetKernel(k)
	enc.SetBindGroup(bg)
	enc.Dispatch(1, 1, 1)
	cb, err = enc.Finish()
	if err != nil || cb.Empty() {
		t.Fatalf("after a failed Finish the encoder must encode valid work: %v", err)
	}
	sub, err := d.Submit(cb)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Wait(t.Context(), sub); err != nil {
		t.Fatal(err)
	}
	if live := d.Live(); live.Encoders != 0 || live.CommandBuffers != 0 {
		t.Fatalf("nothing may leak: %+v", live)
	}
}

// TestTaskListEncodesLikeSingleCalls: the C replay loop computes what the
// same dispatches issued one by one compute.
func TestTaskListEncodesLikeSingleCalls(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	k, err := d.Kernel(addOne, "main")
	if err != nil {
		t.Fatal(err)
	}
	usage := wgpu.UsageStorage | wgpu.UsageCopySrc | wgpu.UsageCopyDst
	x, _ := d.NewBuffer(64, usage, "x")
	y, _ := d.NewBuffer(64, usage, "y")
	st, _ := d.NewBuffer(64, wgpu.UsageMapRead|wgpu.UsageCopyDst, "st")
	defer x.Release()
	defer y.Release()
	defer st.Release()
	xy, _ := d.NewBindGroup(k, []wgpu.Binding{{Buffer: x, Size: 64}, {Buffer: y, Size: 64}})
	yx, _ := d.NewBindGroup(k, []wgpu.Binding{{Buffer: y, Size: 64}, {Buffer: x, Size: 64}})
	defer xy.Release()
	defer yx.Release()
	l := wgpu.NewTaskList(2)
	defer l.Free()
	for i := range 10 {
		if i%2 == 0 {
			l.Append(k, xy, 1, 1, 1)
		} else {
			l.Append(k, yx, 1, 1, 1)
		}
	}
	enc, _ := d.NewEncoder()
	defer enc.Release()
	if err := enc.BeginPass(nil); err != nil {
		t.Fatal(err)
	}
	enc.EncodeTasks(l, 0, 4)
	enc.EncodeTasks(l, 4, 10)
	if err := enc.Copy(x, 0, st, 0, 64); err != nil {
		t.Fatal(err)
	}
	cb, err := enc.Finish()
	if err != nil {
		t.Fatal(err)
	}
	sub, err := d.Submit(cb)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 64)
	if err := d.ReadMapped(t.Context(), st, 0, out, sub); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, 16)
	for i := range want {
		want[i] = 10 // ten ping-pong steps of +1 from zero land in x
	}
	if diff := cmp.Diff(want, bytesf32(out)); diff != "" {
		t.Fatalf("ten chained add-one tasks (-want +got):\n%s", diff)
	}
}

func TestTimestampPeriodIsMeasured(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	p, err := d.TimestampPeriod()
	if !d.Info().Timestamps {
		if !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Fatalf("without timestamp queries TimestampPeriod must refuse, got %v", err)
		}
		return
	}
	if err != nil || !(p > 0.001 && p < 1000) {
		t.Fatalf("period %v ns/tick, err %v: want a plausible positive period", p, err)
	}
	t.Logf("%s: %.4f ns/tick", d.Info(), p)
}

// TestClosingWithUnsubmittedWritesLeavesTheNextDeviceWorking: wgpu-native
// v22 dropping a device whose queue writes were never submitted corrupts the
// next device of the process (its first submission aborts with "a resource
// with a different device"). Close submits pending writes first; without
// that this test aborts the test binary.
func TestClosingWithUnsubmittedWritesLeavesTheNextDeviceWorking(t *testing.T) {
	for range 3 {
		d, err := wgpu.Open(wgpu.Options{})
		if err != nil {
			t.Skip(err)
		}
		b, err := d.NewBuffer(64, wgpu.UsageStorage|wgpu.UsageCopyDst, "b")
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Write(b, 0, make([]byte, 64)); err != nil {
			t.Fatal(err)
		}
		b.Release()
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
	d := openDevice(t, wgpu.Options{})
	if diff := cmp.Diff([]float32{2, 3}, runAddOne(t, d, []float32{1, 2})); diff != "" {
		t.Fatalf("the next device computes (-want +got):\n%s", diff)
	}
}
