package wgpu_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/wgpu"
)

// drv is the driver view of d, the checked interface the recorder encodes
// through.
func drv(t testing.TB, d *wgpu.Device) driver.Device {
	t.Helper()
	v, err := driver.Of(d)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// kernelOf compiles entry "main" and returns both views of it.
func kernelOf(t testing.TB, d *wgpu.Device, src string) (*wgpu.Kernel, driver.Kernel) {
	t.Helper()
	k, err := d.Kernel(src, "main")
	if err != nil {
		t.Fatal(err)
	}
	dk, err := drv(t, d).Kernel(k)
	if err != nil {
		t.Fatal(err)
	}
	return k, dk
}

// newBuffer makes a native buffer released when the test ends.
func newBuffer(t testing.TB, v driver.Device, size uint64, usage driver.Usage) driver.Buffer {
	t.Helper()
	b, err := v.NewBuffer(size, usage, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Release)
	return b
}

const storageUsage = driver.UsageStorage | driver.UsageCopySrc | driver.UsageCopyDst | driver.UsageIndirect

// readBack submits a copy of b into a staging buffer and returns its bytes.
func readBack(t testing.TB, v driver.Device, b driver.Buffer) []byte {
	t.Helper()
	st := newBuffer(t, v, b.Size(), driver.UsageMapRead|driver.UsageCopyDst)
	enc, err := v.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	if err := enc.CopyBuffer(b, 0, st, 0, b.Size()); err != nil {
		t.Fatal(err)
	}
	cb, err := enc.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Submit([]driver.CommandBuffer{cb}); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, b.Size())
	if err := v.ReadBuffer(t.Context(), st, 0, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// addOneSetup makes addOne's kernel, a source buffer holding in, a
// destination buffer (released when the test ends) and their bind group,
// which the caller releases.
func addOneSetup(t *testing.T, d *wgpu.Device, in []float32) (v driver.Device, k driver.Kernel, dst driver.Buffer, bg driver.BindGroup) {
	t.Helper()
	v = drv(t, d)
	_, k = kernelOf(t, d, addOne)
	size := uint64(4 * len(in))
	src := newBuffer(t, v, size, storageUsage)
	dst = newBuffer(t, v, size, storageUsage)
	if err := v.WriteBuffer(src, 0, f32bytes(in)); err != nil {
		t.Fatal(err)
	}
	bg, err := v.NewBindGroup(k, 0, []driver.Entry{{Binding: 0, Buffer: src, Size: size}, {Binding: 1, Buffer: dst, Size: size}})
	if err != nil {
		t.Fatal(err)
	}
	return v, k, dst, bg
}

// runAddOne runs addOne on in through the driver alone and returns dst.
func runAddOne(t *testing.T, d *wgpu.Device, in []float32) []float32 {
	t.Helper()
	v, k, dst, bg := addOneSetup(t, d, in)
	defer bg.Release()
	enc, err := v.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	// A dispatch outside a pass opens one: nothing aborts for want of
	// BeginPass (the old encoder aborted the process with "invalid compute pass").
	if err := enc.Dispatch(k, []driver.BindGroup{bg}, uint32((len(in)+63)/64), 1, 1); err != nil {
		t.Fatal(err)
	}
	cb, err := enc.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Submit([]driver.CommandBuffer{cb}); err != nil {
		t.Fatal(err)
	}
	return bytesf32(readBack(t, v, dst))
}

// TestDriverCallsAreCheckedNotFatal: every misuse of the driver that used
// to abort the process inside wgpu-native (a dispatch with no pass, a task
// range past the end, a command buffer submitted twice, a released bind
// group or buffer) is an error wrapping a sentinel, and the device still
// computes afterwards.
func TestDriverCallsAreCheckedNotFatal(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	v := drv(t, d)
	_, k := kernelOf(t, d, addOne)
	a := newBuffer(t, v, 256, storageUsage)
	b := newBuffer(t, v, 256, storageUsage)
	gone := newBuffer(t, v, 256, storageUsage)
	gone.Release()
	bg, err := v.NewBindGroup(k, 0, []driver.Entry{{Binding: 0, Buffer: a, Size: 256}, {Binding: 1, Buffer: b, Size: 256}})
	if err != nil {
		t.Fatal(err)
	}
	deadGroup, err := v.NewBindGroup(k, 0, []driver.Entry{{Binding: 0, Buffer: a, Size: 256}, {Binding: 1, Buffer: b, Size: 256}})
	if err != nil {
		t.Fatal(err)
	}
	deadGroup.Release()
	enc, err := v.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	p, err := v.NewProgram()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if err := p.Dispatch(k, []driver.BindGroup{bg}, 1, 1, 1); err != nil {
		t.Fatal(err)
	}
	max := d.Info().Limits.MaxComputeWorkgroupsPerDimension
	cases := []struct {
		name string
		want error
		do   func() error
	}{
		{"released bind group", wgpu.ErrReleased, func() error { return enc.Dispatch(k, []driver.BindGroup{deadGroup}, 1, 1, 1) }},
		{"wrong group count", wgpu.ErrInvalidArgument, func() error { return enc.Dispatch(k, nil, 1, 1, 1) }},
		{"over the workgroup limit", wgpu.ErrInvalidArgument, func() error { return enc.Dispatch(k, []driver.BindGroup{bg}, max+1, 1, 1) }},
		{"released indirect buffer", wgpu.ErrReleased, func() error { return enc.DispatchIndirect(k, []driver.BindGroup{bg}, gone, 0) }},
		{"short indirect buffer", wgpu.ErrInvalidArgument, func() error { return enc.DispatchIndirect(k, []driver.BindGroup{bg}, a, 248) }},
		{"program range past the end", wgpu.ErrInvalidArgument, func() error { return enc.Encode(p, 0, 2) }},
		{"copy onto itself", wgpu.ErrInvalidArgument, func() error { return enc.CopyBuffer(a, 0, a, 16, 16) }},
		{"copy from a released buffer", wgpu.ErrReleased, func() error { return enc.CopyBuffer(gone, 0, a, 0, 16) }},
		{"clear past the end", wgpu.ErrInvalidArgument, func() error { return enc.ClearBuffer(a, 128, 256) }},
		{"bind group of the wrong size", wgpu.ErrInvalidArgument, func() error {
			_, err := v.NewBindGroup(k, 0, []driver.Entry{{Binding: 0, Buffer: a, Size: 512}, {Binding: 1, Buffer: b, Size: 256}})
			return err
		}},
		{"bind group for a group the kernel lacks", wgpu.ErrInvalidArgument, func() error {
			_, err := v.NewBindGroup(k, 1, nil)
			return err
		}},
	}
	for _, c := range cases {
		if err := c.do(); !errors.Is(err, c.want) {
			t.Errorf("%s: want an error wrapping %v, got %v", c.name, c.want, err)
		}
	}
	// A command buffer is submitted once; the second time is an error, not
	// an abort inside wgpu-native.
	if err := enc.Encode(p, 0, 1); err != nil {
		t.Fatal(err)
	}
	cb, err := enc.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Submit([]driver.CommandBuffer{cb}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Submit([]driver.CommandBuffer{cb}); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("a second submission of one command buffer must be refused, got %v", err)
	}
	// A MapRead buffer with a copy encoded into it cannot be mapped until
	// that copy is submitted (mapping it would abort the submission).
	st := newBuffer(t, v, 256, driver.UsageMapRead|driver.UsageCopyDst)
	if err := enc.CopyBuffer(a, 0, st, 0, 256); err != nil {
		t.Fatal(err)
	}
	if err := v.ReadBuffer(t.Context(), st, 0, make([]byte, 16)); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("mapping a buffer with an unsubmitted copy into it must be refused, got %v", err)
	}
	enc.Discard()
	if err := v.ReadBuffer(t.Context(), st, 0, make([]byte, 16)); err != nil {
		t.Errorf("once the copy is discarded the buffer maps: %v", err)
	}
	bg.Release()
	if diff := cmp.Diff([]float32{2, 3}, runAddOne(t, d, []float32{1, 2})); diff != "" {
		t.Fatalf("the device computes after every refusal (-want +got):\n%s", diff)
	}
}

// TestProgramsKeepWhatTheyUseAlive: a program holds its own references, so
// releasing every handle it was built from (kernel included) leaves it
// replayable, and it computes the same as single dispatches.
func TestProgramsKeepWhatTheyUseAlive(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	v := drv(t, d)
	wk, k := kernelOf(t, d, addOne)
	x, err := v.NewBuffer(64, storageUsage, "x")
	if err != nil {
		t.Fatal(err)
	}
	y := newBuffer(t, v, 64, storageUsage)
	xy, _ := v.NewBindGroup(k, 0, []driver.Entry{{Binding: 0, Buffer: x, Size: 64}, {Binding: 1, Buffer: y, Size: 64}})
	yx, _ := v.NewBindGroup(k, 0, []driver.Entry{{Binding: 0, Buffer: y, Size: 64}, {Binding: 1, Buffer: x, Size: 64}})
	p, err := v.NewProgram()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	for i := range 10 {
		g := xy
		if i%2 == 1 {
			g = yx
		}
		if err := p.Dispatch(k, []driver.BindGroup{g}, 1, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.ClearBuffer(y, 0, 64); err != nil {
		t.Fatal(err)
	}
	xy.Release()
	yx.Release()
	wk.Release()
	keep := x // released below; the program still binds it
	enc, _ := v.NewEncoder()
	defer enc.Release()
	if err := enc.Encode(p, 0, 4); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(p, 4, p.Len()); err != nil {
		t.Fatal(err)
	}
	cb, err := enc.Finish()
	if err != nil {
		t.Fatal(err)
	}
	out := newBuffer(t, v, 64, storageUsage)
	if err := enc.CopyBuffer(keep, 0, out, 0, 64); err != nil {
		t.Fatal(err)
	}
	cb2, err := enc.Finish()
	if err != nil {
		t.Fatal(err)
	}
	keep.Release()
	if _, err := v.Submit([]driver.CommandBuffer{cb, cb2}); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, 16)
	for i := range want {
		want[i] = 10 // ten ping-pong steps of +1 from zero land in x
	}
	if diff := cmp.Diff(want, bytesf32(readBack(t, v, out))); diff != "" {
		t.Fatalf("ten chained add-ones from a program whose handles were released (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(make([]float32, 16), bytesf32(readBack(t, v, y))); diff != "" {
		t.Fatalf("the program's clear ran last (-want +got):\n%s", diff)
	}
}

// TestKernelReflectsEveryGroupAndKind: bindings in several groups, with
// gaps, textures and samplers, and an override setting the workgroup size
// are all read from the WGSL, in launch-argument order.
func TestKernelReflectsEveryGroupAndKind(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	src := `
override size: u32 = 4u;
@group(1) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var img: texture_2d<f32>;
@group(0) @binding(2) var smp: sampler;
@group(2) @binding(0) var dst: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(size, size)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let c = textureSampleLevel(img, smp, vec2<f32>(0.5, 0.5), 0.0);
	out[id.x] = c.r;
	textureStore(dst, vec2<i32>(id.xy), c);
}
`
	k, err := d.Kernel(src, "main", wgpu.WithConstants(map[string]float64{"size": 8}))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Group, Binding uint32
		Name           string
		Kind           wgpu.BindingKind
	}
	var got []row
	for _, b := range k.Bindings() {
		got = append(got, row{b.Group, b.Binding, b.Name, b.Kind})
	}
	want := []row{
		{0, 1, "img", wgpu.BindTexture},
		{0, 2, "smp", wgpu.BindSampler},
		{1, 3, "out", wgpu.BindStorage},
		{2, 0, "dst", wgpu.BindStorageTexture},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("bindings in launch order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([3]uint32{8, 8, 1}, k.WorkgroupSize()); diff != "" {
		t.Fatalf("workgroup size from the override (-want +got):\n%s", diff)
	}
	k2, err := d.Kernel(src, "main", wgpu.WithConstants(map[string]float64{"size": 8}))
	if err != nil || k2 != k {
		t.Fatalf("the same source, entry and constants return the cached kernel: %v", err)
	}
	k4, err := d.Kernel(src, "main")
	if err != nil || k4 == k || k4.WorkgroupSize() != [3]uint32{4, 4, 1} {
		t.Fatalf("the default constant is another kernel with workgroup 4×4: %v", err)
	}
	_, err = d.Kernel(src, "main", wgpu.WithConstants(map[string]float64{"sise": 8}))
	if !errors.Is(err, wgpu.ErrInvalidArgument) || !strings.Contains(err.Error(), "sise") {
		t.Fatalf("an unknown constant must be refused by name, got %v", err)
	}
}

// TestKernelsOverTheDeviceLimitsAreRefused: a kernel the device cannot run
// (too much workgroup memory, too many invocations) is refused at Kernel
// from the reflection; such a kernel once compiled, launched, and lost the
// device, and the next submission aborted the process.
func TestKernelsOverTheDeviceLimitsAreRefused(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	lim := d.Info().Limits
	words := lim.MaxComputeWorkgroupStorageSize/4 + 1
	big := strings.ReplaceAll(`
var<workgroup> tile: array<f32, WORDS>;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() { tile[0] = 1.0; out[0] = tile[0]; }
`, "WORDS", itoa(words))
	_, err := d.Kernel(big, "main")
	var ce *wgpu.CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Diagnostic, "maxComputeWorkgroupStorageSize") {
		t.Fatalf("%d bytes of var<workgroup> must be refused naming the limit, got %v", 4*words, err)
	}
	wide := strings.ReplaceAll(`@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(N) fn main() { out[0] = 1.0; }`, "N", itoa(lim.MaxComputeInvocationsPerWorkgroup+1))
	if _, err := d.Kernel(wide, "main"); !errors.As(err, &ce) {
		t.Fatalf("a workgroup over the invocation limit must be refused, got %v", err)
	}
}

func itoa(n uint32) string {
	var b [10]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// TestAbstractIntRefusalsCarryAHint: the bundled compiler predates WGSL's
// abstract-integer conversions. The front end lowers the common forms, so
// they compile; a form it leaves to the compiler is refused with a hint
// saying what to write instead, and a real type error gets no such hint.
func TestAbstractIntRefusalsCarryAHint(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	for _, c := range []struct{ name, src string }{
		{"atomicAdd", `@group(0) @binding(0) var<storage, read_write> c: atomic<u32>;
@compute @workgroup_size(1) fn main() { atomicAdd(&c, 1); }`},
		{"case over u32", `@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(1) fn main() { switch c[0] { case 1: { c[1] = 2u; } default: {} } }`},
		{"untyped const", `const ALGO = 2;
@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(1) fn main() { if (c[0] == ALGO) { c[1] = 2u; } }`},
	} {
		if _, err := d.Kernel(c.src, "main"); err != nil {
			t.Errorf("%s: the front end lowers this form; it must compile: %v", c.name, err)
		}
	}
	for _, c := range []struct {
		name, src string
		hint      bool
	}{
		// array(1, 2) passed so converts element by element (the front end
		// spells the conversion out); with a negative element no
		// conversion exists and the compiler's refusal gets the hint.
		{"abstract array const with a negative element passed whole as an array of u32", `const A = array(-1, 2);
@group(0) @binding(0) var<storage, read_write> c: array<u32>;
fn second(a: array<u32, 2>) -> u32 { return a[1]; }
@compute @workgroup_size(1) fn main() { c[1] = second(A); }`, true},
		{"float against u32", `@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(1) fn main() { if (c[0] == 1.5f) { c[1] = 2u; } }`, false},
	} {
		_, err := d.Kernel(c.src, "main")
		var ce *wgpu.CompileError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: want a *CompileError, got %v", c.name, err)
		}
		if got := ce.Hint != "" && strings.Contains(err.Error(), "suffixes"); got != c.hint {
			t.Errorf("%s: hint given = %v, want %v:\n%v", c.name, got, c.hint, err)
		}
	}
}

// TestPreparedEncoderCountsNothingUntilACommand: Prepare (the submitter
// readying an encoder off the caller's path) opens a pass that is neither
// encoded work (Empty stays true, so an idle stream submits nothing) nor an
// open pass for BeginPass's callers (PassOpen stays false, so a profile
// still begins its timestamped pass); the commands after it run as they
// would on a fresh encoder.
func TestPreparedEncoderCountsNothingUntilACommand(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	in := []float32{1, 2, 3, 4}
	size := uint64(4 * len(in))
	v, k, dst, bg := addOneSetup(t, d, in)
	defer bg.Release()
	cp := newBuffer(t, v, size, storageUsage)
	enc, err := v.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	type state struct{ Empty, PassOpen bool }
	check := func(when string, want state) {
		t.Helper()
		if diff := cmp.Diff(want, state{enc.Empty(), enc.PassOpen()}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", when, diff)
		}
	}
	submit := func() {
		t.Helper()
		cb, err := enc.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Submit([]driver.CommandBuffer{cb}); err != nil {
			t.Fatal(err)
		}
	}

	enc.Prepare()
	enc.Prepare()
	check("prepared", state{Empty: true})
	if err := enc.Dispatch(k, []driver.BindGroup{bg}, 1, 1, 1); err != nil {
		t.Fatal(err)
	}
	check("dispatch into the prepared pass", state{PassOpen: true})
	submit()
	check("finished", state{Empty: true})
	if diff := cmp.Diff([]float32{2, 3, 4, 5}, bytesf32(readBack(t, v, dst))); diff != "" {
		t.Errorf("dispatch recorded into a prepared pass (-want +got):\n%s", diff)
	}

	// A copy ends the prepared pass and counts.
	enc.Prepare()
	if err := enc.CopyBuffer(dst, 0, cp, 0, size); err != nil {
		t.Fatal(err)
	}
	check("copy after Prepare", state{})
	submit()
	if diff := cmp.Diff([]float32{2, 3, 4, 5}, bytesf32(readBack(t, v, cp))); diff != "" {
		t.Errorf("copy after Prepare (-want +got):\n%s", diff)
	}

	// BeginPass replaces a prepared pass and counts, timestamps or not.
	enc.Prepare()
	if err := enc.BeginPass(nil); err != nil {
		t.Fatal(err)
	}
	check("BeginPass after Prepare", state{PassOpen: true})
	if err := enc.EndPass(); err != nil {
		t.Fatal(err)
	}
	submit()

	// Discard drops a prepared pass; Prepare after Release is a no-op.
	enc.Prepare()
	enc.Discard()
	check("discarded", state{Empty: true})
	enc.Prepare()
	enc.Release()
	enc.Prepare()
	check("released", state{Empty: true})
}

// TestCompileOwnedKernelsAreTheCallersAlone: the driver's CompileOwned
// compiles outside the device's cache (two calls, two kernels, neither the
// cached one), under the label given, and the caller's Release frees the
// kernel; the driver's Info names the adapter for the recorder's messages.
func TestCompileOwnedKernelsAreTheCallersAlone(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	v := drv(t, d)
	cached, err := v.Compile(addOne, "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := v.Live().Kernels
	a, err := v.CompileOwned(addOne, "main", nil, "mine")
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.CompileOwned(addOne, "main", nil, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if a == b || a == cached || b == cached {
		t.Errorf("CompileOwned returned a kernel twice or the cached one (a==b %v, a==cached %v, b==cached %v)", a == b, a == cached, b == cached)
	}
	if got := v.Live().Kernels - before; got != 2 {
		t.Errorf("two owned compiles added %d live kernels, want 2", got)
	}
	if a.Label() != "mine" {
		t.Errorf("owned kernel's label %q, want %q", a.Label(), "mine")
	}
	a.Release()
	b.Release()
	if got := v.Live().Kernels - before; got != 0 {
		t.Errorf("%d owned kernels live after their Release", got)
	}
	if _, err := v.CompileOwned("not wgsl", "main", nil, ""); !errors.Is(err, wgpu.ErrCompile) {
		t.Errorf("CompileOwned of bad WGSL: %v, want ErrCompile", err)
	}
	info := d.Info()
	want := driver.Info{Name: info.Name, Backend: info.Backend.String(), FusesChainedFloats: d.FusesChainedFloats()}
	got := v.Info()
	if diff := cmp.Diff(want, driver.Info{Name: got.Name, Backend: got.Backend, FusesChainedFloats: got.FusesChainedFloats}); diff != "" {
		t.Errorf("the driver's Info naming the adapter (-want +got):\n%s", diff)
	}
}

// TestFlushWritesIsASubmissionOfItsOwn: FlushWrites submits the queue's
// pending writes with no command buffer, so it hands out a new submission
// index (an empty Submit does not: it returns the last one), Wait returns
// for it, and a closed device refuses it.
func TestFlushWritesIsASubmissionOfItsOwn(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	v := drv(t, d)
	b, err := v.NewBuffer(256, driver.UsageStorage|driver.UsageCopyDst, "flushed")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	last, err := v.Submit(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.WriteBuffer(b, 0, make([]byte, 256)); err != nil {
		t.Fatal(err)
	}
	sub, err := v.FlushWrites()
	if err != nil {
		t.Fatal(err)
	}
	if sub <= last {
		t.Errorf("FlushWrites returned submission %d, not after the last one (%d): nothing was submitted", sub, last)
	}
	if err := v.Wait(context.Background(), sub); err != nil {
		t.Errorf("Wait for the flush: %v", err)
	}
	d.Close()
	if _, err := v.FlushWrites(); !errors.Is(err, wgpu.ErrClosed) {
		t.Errorf("FlushWrites on a closed device: %v, want ErrClosed", err)
	}
}
