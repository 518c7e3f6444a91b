package tests

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// openDevice opens the default device, or skips when the machine has no
// adapter, unless SOFTGRAPH_REQUIRE_GPU=1 (set by CI), where a missing
// adapter fails. The device is closed when the test ends.
func openDevice(t testing.TB) *wgpu.Device {
	t.Helper()
	return gputest.Open(t, wgpu.Options{})
}

// newStream makes a stream on d, closed when the test ends. Close is
// idempotent, so a test may close it earlier; an error from the cleanup
// Close wraps ErrClosed or ErrDeviceLost only when the test broke the device.
func newStream(t testing.TB, d *wgpu.Device, opts ...recorder.Option) *recorder.Stream {
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

// openStream is openDevice followed by newStream.
func openStream(t testing.TB, opts ...recorder.Option) (*wgpu.Device, *recorder.Stream) {
	t.Helper()
	d := openDevice(t)
	return d, newStream(t, d, opts...)
}

// addOneWGSL: dst = src + 1 over the first params.n elements.
const addOneWGSL = `
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

// addConstWGSL: x += params.c, in place over the whole buffer.
const addConstWGSL = `
struct P { c: f32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] + p.c; }
}
`

// scaleWGSL: x *= params.c, in place over the whole buffer.
const scaleWGSL = `
struct P { c: f32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] * p.c; }
}
`

// accumulateWGSL: dst += src, elementwise over dst.
const accumulateWGSL = `
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&dst)) { dst[id.x] = dst[id.x] + src[id.x]; }
}
`

// fixedWGSL binds a fixed-size 256-byte struct: a smaller binding passes
// every host check and fails device validation only when the dispatch is
// encoded and the batch is finished (at a flush, or when a recording is
// sealed), since wgpu checks a shader's minimum binding size per dispatch.
const fixedWGSL = `
struct S { a: array<f32, 64> }
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(1)
fn main() { s.a[0] = s.a[63]; }
`

func kernel(t testing.TB, d *wgpu.Device, src string) *wgpu.Kernel {
	t.Helper()
	k, err := d.Kernel(src, "main")
	if err != nil {
		t.Fatalf("Kernel: %v", err)
	}
	return k
}

func u32params(v ...uint32) recorder.Params {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func f32params(v float32) recorder.Params {
	return recorder.Params(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
}

func upload(t testing.TB, s *recorder.Stream, v []float32) *recorder.Buffer {
	t.Helper()
	b, err := recorder.UploadSlice(s, v)
	if err != nil {
		t.Fatalf("UploadSlice: %v", err)
	}
	return b
}

func empty(t testing.TB, s *recorder.Stream, size uint64) *recorder.Buffer {
	t.Helper()
	b, err := s.Empty(size)
	if err != nil {
		t.Fatalf("Empty(%d): %v", size, err)
	}
	return b
}

func read(t testing.TB, s *recorder.Stream, b *recorder.Buffer) []float32 {
	t.Helper()
	v, err := recorder.ReadSlice[float32](s, b)
	if err != nil {
		t.Fatalf("ReadSlice: %v", err)
	}
	return v
}

func fill(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func ramp(n int, start float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = start + float32(i)
	}
	return out
}

func plus(v []float32, d float32) []float32 {
	out := make([]float32, len(v))
	for i := range v {
		out[i] = v[i] + d
	}
	return out
}

func wantEqual[T any](t testing.TB, what string, want, got T) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s (-want +got):\n%s", what, d)
	}
}

// wantFloats is wantEqual for large results: an exact comparison first,
// the (slow, reflective) diff only on a mismatch.
func wantFloats(t testing.TB, what string, want, got []float32) {
	t.Helper()
	if !slices.Equal(want, got) {
		wantEqual(t, what, want, got)
	}
}

// chain launches n add-ones ping-ponging a→b→a…; with n even the result is
// back in a, n higher.
func chain(s *recorder.Stream, k *wgpu.Kernel, a, b *recorder.Buffer, n int, elems uint32) error {
	src, dst := a, b
	for i := range n {
		if err := s.Launch(k, recorder.Groups((elems+63)/64, 1, 1), src, dst, u32params(elems)); err != nil {
			return fmt.Errorf("launch %d of the chain: %w", i, err)
		}
		src, dst = dst, src
	}
	return nil
}

// capture runs step as the warmup and as the recorded run and returns the
// sealed graph, released when the test ends.
func capture(t testing.TB, s *recorder.Stream, step func()) *recorder.Graph {
	t.Helper()
	if err := s.GraphPrepare(); err != nil {
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

// wantErr checks that err wraps every sentinel in is and that its message
// contains every fragment of msg; rule restates the contract on failure.
func wantErr(t testing.TB, rule string, err error, is []error, msg ...string) {
	t.Helper()
	if problem := checkErr(err, is, msg); problem != "" {
		t.Fatalf("%s: %s", rule, problem)
	}
}

// checkErr is wantErr's test: "" when err matches, else what is wrong.
// With no sentinels it wants nil.
func checkErr(err error, is []error, msg []string) string {
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

// wantState fails unless s is in want.
func wantState(t testing.TB, rule string, s *recorder.Stream, want lifecycle.State) {
	t.Helper()
	if got := s.State(); got != want {
		t.Fatalf("%s: stream is in %v, want %v", rule, got, want)
	}
}

// childEnv names the test a re-executed test binary runs (see
// inFreshProcess).
const childEnv = "SOFTGRAPH_TESTS_CHILD"

// inFreshProcess runs body in a new process of this test binary, then, in
// that same process, opens a new device and checks it computes. It is for
// tests that close a device before the objects made from it: wgpu-native
// state is process-wide, so damage such a test does to the next device
// (up to aborting the process on its first submission) must show as this
// test's failure, not as a crash of whatever test runs next. t must be a
// top-level test.
//
// nextDeviceBug, when set, names an open library bug that breaks the next
// device; the check is then skipped with it (see bugs_test.go).
func inFreshProcess(t *testing.T, nextDeviceBug string, body func(t *testing.T)) {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		body(t)
		if t.Failed() || t.Skipped() {
			return
		}
		t.Run("the next device computes", func(t *testing.T) {
			if nextDeviceBug != "" {
				t.Skip(nextDeviceBug)
			}
			d := openDevice(t)
			s := newStream(t, d)
			k := kernel(t, d, addOneWGSL)
			a := upload(t, s, fill(64, 1))
			b := empty(t, s, a.Size())
			if err := chain(s, k, a, b, 2, 64); err != nil {
				t.Fatalf("a device opened after the test must work: %v", err)
			}
			wantEqual(t, "a device opened after the test computes", fill(64, 3), read(t, s, a))
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
	if strings.Contains(log, "--- SKIP: "+t.Name()+"/the_next_device_computes (") {
		t.Logf("passed in a fresh process; the next-device check was skipped: %s", nextDeviceBug)
		return
	}
	t.Logf("passed in a fresh process, and a device opened afterwards computed")
}
