// Package gputest is softgraph's shared test harness: the one rule every
// GPU test follows when it needs a device (open the default adapter, or the
// one the SOFTGRAPH_* variables pick; skip cleanly on a machine with none,
// but fail instead when SOFTGRAPH_REQUIRE_GPU=1, which CI sets, so GPU tests
// cannot pass by skipping where a GPU is expected), the WGSL kernels tests
// share, and the small assertions they all use. It is test support,
// imported only by _test.go files.
package gputest

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// Required reports whether a missing adapter must fail the test run.
func Required() bool { return os.Getenv("SOFTGRAPH_REQUIRE_GPU") == "1" }

// SkipIfNoAdapter skips t when err says no adapter exists and GPUs are not
// required; any other error is left to the caller.
func SkipIfNoAdapter(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, wgpu.ErrNoAdapter) && !Required() {
		t.Skipf("no adapter: %v", err)
	}
}

// OnEveryBackend runs f as a subtest named after each backend this machine
// has an adapter for (Vulkan, then OpenGL), whatever SOFTGRAPH_BACKEND
// says: for behaviour that differs by backend, such as the native calls'
// order at Close. With neither, t is skipped, or fails where GPUs are
// required.
func OnEveryBackend(t *testing.T, f func(t *testing.T, b wgpu.Backend)) {
	t.Helper()
	ran := 0
	for _, b := range []wgpu.Backend{wgpu.BackendVulkan, wgpu.BackendGL} {
		if len(wgpu.Adapters(b)) == 0 {
			continue
		}
		ran++
		t.Run(b.String(), func(t *testing.T) { f(t, b) })
	}
	if ran == 0 {
		if Required() {
			t.Fatal("neither a Vulkan nor an OpenGL adapter, and SOFTGRAPH_REQUIRE_GPU=1")
		}
		t.Skip("neither a Vulkan nor an OpenGL adapter")
	}
}

// Open opens a device with o for the test, following the rule above, and
// closes it when the test ends.
func Open(t testing.TB, o wgpu.Options) *wgpu.Device {
	t.Helper()
	d, err := wgpu.Open(o)
	SkipIfNoAdapter(t, err)
	if err != nil {
		t.Fatalf("wgpu.Open(%+v): %v", o, err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// Stream makes a stream on d, closed when the test ends. Close is
// idempotent, so a test may close it earlier; the cleanup Close must return
// nil unless the test broke the device.
func Stream(t testing.TB, d *wgpu.Device, opts ...recorder.Option) *recorder.Stream {
	t.Helper()
	s, err := recorder.New(d, opts...)
	if err != nil {
		t.Fatalf("recorder.New: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil && d.Err() == nil {
			t.Errorf("Close must return nil when nothing is queued: %v", err)
		}
	})
	return s
}

// OpenStream is Open with the default options, then Stream.
func OpenStream(t testing.TB, opts ...recorder.Option) (*wgpu.Device, *recorder.Stream) {
	t.Helper()
	d := Open(t, wgpu.Options{})
	return d, Stream(t, d, opts...)
}

// AddOneWGSL: dst = src + 1 over the first p.n elements.
const AddOneWGSL = `
struct P { n: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: P;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < p.n) {
		dst[id.x] = src[id.x] + 1.0;
	}
}
`

// AddConstWGSL: x += p.c, in place over the whole buffer.
const AddConstWGSL = `
struct P { c: f32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] + p.c; }
}
`

// ScaleWGSL: x *= p.c, in place over the whole buffer.
const ScaleWGSL = `
struct P { c: f32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] * p.c; }
}
`

// AccumulateWGSL: dst += src, elementwise over dst.
const AccumulateWGSL = `
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&dst)) { dst[id.x] = dst[id.x] + src[id.x]; }
}
`

// CopyWGSL: dst = src, elementwise over dst.
const CopyWGSL = `
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&dst)) { dst[id.x] = src[id.x]; }
}
`

// LenWGSL writes arrayLength(&a) to out[0].
const LenWGSL = `
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() { out[0] = arrayLength(&a); }
`

// Kernel compiles entry "main" of src on d.
func Kernel(t testing.TB, d *wgpu.Device, src string, opts ...wgpu.KernelOption) *wgpu.Kernel {
	t.Helper()
	k, err := d.Kernel(src, "main", opts...)
	if err != nil {
		t.Fatalf("Kernel: %v", err)
	}
	return k
}

// U32 packs u32 params.
func U32(v ...uint32) recorder.Params { return recorder.ParamsOf(v...) }

// F32 packs one f32 param.
func F32(v float32) recorder.Params {
	return recorder.Params(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
}

// Upload uploads v as a new buffer.
func Upload(t testing.TB, s *recorder.Stream, v []float32) *recorder.Buffer {
	t.Helper()
	b, err := recorder.UploadSlice(s, v)
	if err != nil {
		t.Fatalf("UploadSlice: %v", err)
	}
	return b
}

// UploadU32 uploads v as a new buffer of u32s.
func UploadU32(t testing.TB, s *recorder.Stream, v ...uint32) *recorder.Buffer {
	t.Helper()
	b, err := recorder.UploadSlice(s, v)
	if err != nil {
		t.Fatalf("UploadSlice: %v", err)
	}
	return b
}

// ReadU32 reads b as u32s.
func ReadU32(t testing.TB, s *recorder.Stream, b *recorder.Buffer) []uint32 {
	t.Helper()
	v, err := recorder.ReadSlice[uint32](s, b)
	if err != nil {
		t.Fatalf("ReadSlice: %v", err)
	}
	return v
}

// Empty makes a buffer of size bytes.
func Empty(t testing.TB, s *recorder.Stream, size uint64) *recorder.Buffer {
	t.Helper()
	b, err := s.Alloc(size)
	if err != nil {
		t.Fatalf("Empty(%d): %v", size, err)
	}
	return b
}

// Read reads b as float32s.
func Read(t testing.TB, s *recorder.Stream, b *recorder.Buffer) []float32 {
	t.Helper()
	v, err := recorder.ReadSlice[float32](s, b)
	if err != nil {
		t.Fatalf("ReadSlice: %v", err)
	}
	return v
}

// Fill is n copies of v.
func Fill(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Ramp is start, start+1, ... (n values).
func Ramp(n int, start float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = start + float32(i)
	}
	return out
}

// Plus is v with d added to every element.
func Plus(v []float32, d float32) []float32 {
	out := make([]float32, len(v))
	for i := range v {
		out[i] = v[i] + d
	}
	return out
}

// WantEqual fails t unless want and got are equal, printing the diff.
func WantEqual[T any](t testing.TB, what string, want, got T) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s (-want +got):\n%s", what, d)
	}
}

// WantFloats is WantEqual for large results: an exact comparison first,
// the (slow, reflective) diff only on a mismatch.
func WantFloats(t testing.TB, what string, want, got []float32) {
	t.Helper()
	if !slices.Equal(want, got) {
		WantEqual(t, what, want, got)
	}
}

// Chain launches n add-ones (kernel k, AddOneWGSL) ping-ponging a→b→a…;
// with n even the result is back in a, n higher.
func Chain(s *recorder.Stream, k *wgpu.Kernel, a, b *recorder.Buffer, n int, elems uint32) error {
	src, dst := a, b
	for i := range n {
		if err := s.Launch(k, recorder.Groups((elems+63)/64, 1, 1), src, dst, U32(elems)); err != nil {
			return fmt.Errorf("launch %d of the chain: %w", i, err)
		}
		src, dst = dst, src
	}
	return nil
}

// Capture runs step as the warmup and as the recorded run and returns the
// sealed graph, released when the test ends.
func Capture(t testing.TB, s *recorder.Stream, step func()) *recorder.Graph {
	t.Helper()
	if err := s.PrepareCapture(); err != nil {
		t.Fatalf("GraphPrepare: %v", err)
	}
	step()
	if err := s.BeginCapture(); err != nil {
		t.Fatalf("BeginCapture: %v", err)
	}
	step()
	g, err := s.EndCapture()
	if err != nil {
		t.Fatalf("EndCapture: %v", err)
	}
	t.Cleanup(g.Release)
	return g
}

// WantErr checks that err wraps every sentinel in is and that its message
// contains every fragment of msg; rule restates the contract on failure.
func WantErr(t testing.TB, rule string, err error, is []error, msg ...string) {
	t.Helper()
	if problem := CheckErr(err, is, msg); problem != "" {
		t.Fatalf("%s: %s", rule, problem)
	}
}

// CheckErr is WantErr's test: "" when err matches, else what is wrong.
// With no sentinels it wants nil.
func CheckErr(err error, is []error, msg []string) string {
	if len(is) == 0 {
		if err != nil {
			return fmt.Sprintf("want no error, got %v", err)
		}
		return ""
	}
	if err == nil {
		return fmt.Sprintf("want an error wrapping %v, got nil", is)
	}
	for _, s := range is {
		if !errors.Is(err, s) {
			return fmt.Sprintf("want an error wrapping %q, got %q", s, err)
		}
	}
	for _, m := range msg {
		if !strings.Contains(err.Error(), m) {
			return fmt.Sprintf("the error must name %q, got %q", m, err)
		}
	}
	return ""
}

// childEnv names the test a re-executed test binary runs (InFreshProcess).
const childEnv = "SOFTGRAPH_TESTS_CHILD"

// InChild reports whether this process is the fresh process InFreshProcess
// started for test name.
func InChild(name string) bool { return os.Getenv(childEnv) == name }

// InFreshProcess runs body in a new process of this test binary, then, in
// that same process, opens a new device and checks it computes. It is for
// tests that could abort the process (a crash is then this test's failure,
// reported with the child's last lines, not the death of the suite) or that
// close a device before the objects made from it: wgpu-native state is
// process-wide, so damage to the next device must show as this test's
// failure. t must be a top-level test.
func InFreshProcess(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	if InChild(t.Name()) {
		body(t)
		if t.Failed() || t.Skipped() {
			return
		}
		t.Run("the next device computes", func(t *testing.T) {
			d, s := OpenStream(t)
			k := Kernel(t, d, AddOneWGSL)
			a := Upload(t, s, Fill(64, 1))
			b := Empty(t, s, a.Size())
			if err := Chain(s, k, a, b, 2, 64); err != nil {
				t.Fatalf("a device opened after the test must work: %v", err)
			}
			WantEqual(t, "a device opened after the test computes", Fill(64, 3), Read(t, s, a))
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	// What matters of the child's output: the test's own lines, and a
	// native panic's message rather than the goroutine dump after it.
	var kept []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "XDG_RUNTIME_DIR") || strings.HasPrefix(l, "goroutine ") {
			continue
		}
		if strings.HasPrefix(l, "SIGABRT") || strings.HasPrefix(l, "SIGSEGV") {
			kept = append(kept, l, "(goroutine dump omitted)")
			break
		}
		kept = append(kept, l)
	}
	log := strings.Join(kept, "\n")
	switch {
	case err != nil:
		t.Fatalf("%s in a fresh process: %v (the body runs first, then a new device must compute: a crash after the body's last line means it left wgpu-native broken for the next device)\n%s", t.Name(), err, log)
	case strings.Contains(log, "--- SKIP: "+t.Name()+" ("):
		t.Skipf("skipped in the fresh process:\n%s", log)
	case !strings.Contains(log, "--- PASS: "+t.Name()+" ("):
		t.Fatalf("%s did not run in the fresh process:\n%s", t.Name(), log)
	}
	t.Logf("passed in a fresh process, and a device opened afterwards computed")
}

// MustChain is Chain that fails t on error and returns the buffer holding
// the last result (a for n even, b for n odd).
func MustChain(t testing.TB, s *recorder.Stream, k *wgpu.Kernel, a, b *recorder.Buffer, n int, elems uint32) *recorder.Buffer {
	t.Helper()
	if err := Chain(s, k, a, b, n, elems); err != nil {
		t.Fatal(err)
	}
	if n%2 == 1 {
		return b
	}
	return a
}

// MainSkippingExamples runs a test binary's tests, leaving its runnable
// godoc examples out when this machine has no adapter and GPUs are not
// required (an example cannot skip itself: its output would not match).
// With SOFTGRAPH_REQUIRE_GPU=1 the examples always run. Call it from
// TestMain: os.Exit(gputest.MainSkippingExamples(m)).
func MainSkippingExamples(m *testing.M) int {
	flag.Parse()
	if !Required() && len(wgpu.Adapters(wgpu.BackendAuto)) == 0 {
		if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" {
			_ = flag.Set("test.run", "^(Test|Benchmark|Fuzz)")
			fmt.Fprintln(os.Stderr, "gputest: no adapter; runnable examples are not run")
		}
	}
	return m.Run()
}

// TempDir is t.TempDir with a cleanup that works under wine: it removes
// the directory's contents depth first with os.Remove and fails the test if
// anything is left. t.TempDir's cleanup uses os.RemoveAll, which on Windows
// (Go 1.26) deletes through NtSetInformationFile's
// FileDispositionInformationEx; wine 8 (CI's Windows leg) does not implement
// it and answers "Invalid function", a status Go does not fall back from,
// so every test that wrote a file failed at cleanup. os.Remove uses
// DeleteFileW and RemoveDirectoryW, which wine has.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "softgraph-test-")
	if err != nil {
		t.Fatalf("TempDir: %v", err)
	}
	t.Cleanup(func() {
		if err := removeTree(dir); err != nil {
			t.Errorf("the test's directory must be removable: %v", err)
		}
	})
	return dir
}

// removeTree removes dir and everything under it with os.Remove only.
func removeTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		p := dir + string(os.PathSeparator) + e.Name()
		if e.IsDir() {
			errs = append(errs, removeTree(p))
			continue
		}
		errs = append(errs, os.Remove(p))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return os.Remove(dir)
}

// Predicates reports whether recorder streams on d run If/While body
// dispatches through guarded kernel variants at all: not on OpenGL, where
// recorder.WithPredication is overridden and every body dispatch is gated
// indirectly.
func Predicates(d *wgpu.Device) bool { return d.Info().Backend != wgpu.BackendGL }

// RequireChainedFloatFusion skips a test whose point is fusing kernels that
// feed one float operation's result to another, on a device where fusion
// leaves such kernels unfused (wgpu.Device.FusesChainedFloats: NVIDIA's
// Vulkan driver, and devices not measured). The random differential tests
// still run such kernels there, unfused, and compare every word.
func RequireChainedFloatFusion(t testing.TB, d *wgpu.Device) {
	t.Helper()
	if !d.FusesChainedFloats() {
		t.Skipf("%s leaves kernels chaining float operations unfused (wgpu.Device.FusesChainedFloats)", d.Info())
	}
}
