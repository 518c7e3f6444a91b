package recorder

// The kernels the recorder compiles itself (a loaded graph's, the
// CopyIndirect kernel, fused kernels) go through the driver seam
// (driver.Device.Compile and CompileOwned), so these paths run on the fake
// device: which kernels are compiled, for whom, and when they are freed.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"
	"github.com/softgraph/softgraph/internal/kernels"
	"github.com/softgraph/softgraph/wgpu"
)

// addSource is a pointwise WGSL kernel that adds params.x to every u32 of
// x: what fusion analyses (the fake runs its Go stand-in).
const addSource = `@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@group(0) @binding(1) var<uniform> params: vec4<u32>;

@compute @workgroup_size(64)
fn add_words(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x;
	if (i >= arrayLength(&x)) {
		return;
	}
	x[i] = x[i] + params.x;
}
`

// addWords adds the first word of each params binding to every u32 of x, in
// binding order: add_words's dispatch (one params binding) and, for the
// fused kernel, every part's in the order the parts ran.
func addWords(c fake.Call) {
	x := c.Bufs[0]
	for _, p := range c.Bufs[1:] {
		if len(p) < 4 {
			continue
		}
		k := binary.LittleEndian.Uint32(p)
		for i := 0; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(x[i:], binary.LittleEndian.Uint32(x[i:])+k)
		}
	}
}

// registerAddWords registers add_words with its WGSL source on the rig.
func (r *fakeRig) registerAddWords() *fake.Kernel {
	return r.dev.Register(fake.KernelSpec{
		Entry:  "add_words",
		Source: addSource,
		Resources: []driver.Resource{
			{Group: 0, Binding: 0, Name: "x", Kind: driver.ResourceStorage, Type: "array<u32>", MinSize: 4, Access: "read_write"},
			{Group: 0, Binding: 1, Name: "params", Kind: driver.ResourceUniform, Type: "vec4<u32>", MinSize: 16},
		},
		WorkgroupSize: [3]uint32{64, 1, 1},
		Run:           addWords,
	})
}

// captureFake captures step on s, failing the test on error.
func captureFake(t *testing.T, s *Stream, step func() error) *Graph {
	t.Helper()
	g, err := s.Capture(step)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	return g
}

// TestLoadGraphCompilesItsKernelsForItselfAndFreesThem: a loaded graph's
// kernels are compiled through the driver for that graph alone (the fake
// counts one more live kernel per file kernel), its replays compute what
// the saved graph did, and its Release frees them; a load the device
// refuses after compiling (a buffer it cannot allocate) frees them too.
func TestLoadGraphCompilesItsKernelsForItselfAndFreesThem(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t)
	x := upload(t, s, 1, 2, 3, 4)
	g := captureFake(t, s, func() error { return r.add(s, x, 10) })
	var file bytes.Buffer
	if _, err := g.Save(&file, SaveOptions{Contents: true}); err != nil {
		t.Fatalf("Save: %v", err)
	}
	g.Release()
	base := r.dev.Live().Kernels

	lg, err := s.LoadGraph(bytes.NewReader(file.Bytes()))
	if err != nil {
		t.Fatalf("LoadGraph: %v", err)
	}
	if got := r.dev.Live().Kernels - base; got != 1 {
		t.Errorf("a loaded graph of one kernel holds %d live kernels of its own, want 1", got)
	}
	if err := lg.Replay(); err != nil {
		t.Fatalf("Replay of the loaded graph: %v", err)
	}
	bufs := lg.Buffers()
	if len(bufs) == 0 {
		t.Fatalf("the loaded graph has no buffers")
	}
	// The file holds x after its capture's warmup (+10); one replay adds 10.
	if diff := cmp.Diff([]uint32{21, 22, 23, 24}, read(t, s, bufs[0])); diff != "" {
		t.Errorf("the loaded graph's buffer after one replay (-want +got):\n%s", diff)
	}
	lg.Release()
	if got := r.dev.Live().Kernels - base; got != 0 {
		t.Errorf("%d kernels of the released loaded graph are still live", got)
	}

	r.dev.Fail(fake.OpNewBuffer, 1)
	if _, err := s.LoadGraph(bytes.NewReader(file.Bytes())); !errors.Is(err, wgpu.ErrOutOfMemory) {
		t.Fatalf("LoadGraph with the device refusing its buffer: %v, want ErrOutOfMemory", err)
	}
	if got := r.dev.Live().Kernels - base; got != 0 {
		t.Errorf("a refused load left %d kernels live; it compiled them for itself", got)
	}
}

// TestLoadGraphOfAKernelTheDeviceDoesNotCompileFailsWithErrCompile: the
// driver's compile error reaches the caller, naming the file's kernel.
func TestLoadGraphOfAKernelTheDeviceDoesNotCompileFailsWithErrCompile(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t)
	x := upload(t, s, 1)
	g := captureFake(t, s, func() error { return r.add(s, x, 1) })
	defer g.Release()
	var file bytes.Buffer
	if _, err := g.Save(&file, SaveOptions{}); err != nil {
		t.Fatalf("Save: %v", err)
	}
	other := newFakeRig(t) // registers add_const too: release it there
	other.addConst.Release()
	os := other.stream(t)
	_, err := os.LoadGraph(bytes.NewReader(file.Bytes()))
	if !errors.Is(err, wgpu.ErrCompile) || !strings.Contains(err.Error(), "add_const") {
		t.Fatalf("LoadGraph of a kernel the device lacks: %v, want ErrCompile naming add_const", err)
	}
}

// TestCopyIndirectCompilesItsKernelThroughTheDriver: CopyIndirect's kernel
// comes from the driver's Compile (the fake's registered stand-in runs it),
// its binding order is the layout's, and the range comes from the Var.
func TestCopyIndirectCompilesItsKernelThroughTheDriver(t *testing.T) {
	ck, err := kernels.CopyIndirect()
	if err != nil {
		t.Fatal(err)
	}
	r := newFakeRig(t)
	res := make([]driver.Resource, 3)
	for _, b := range []struct {
		at   kernels.Binding
		name string
		kind driver.ResourceKind
	}{{ck.Layout.Src, "src", driver.ResourceReadOnlyStorage}, {ck.Layout.Dst, "dst", driver.ResourceStorage}, {ck.Layout.Range, "c", driver.ResourceUniform}} {
		res[b.at.Binding] = driver.Resource{Group: b.at.Group, Binding: b.at.Binding, Name: b.name, Kind: b.kind, MinSize: 4}
	}
	calls := 0
	r.dev.Register(fake.KernelSpec{
		Entry: ck.Entry, Source: ck.Source, Resources: res, WorkgroupSize: [3]uint32{64, 1, 1},
		Run: func(c fake.Call) {
			calls++
			at := func(b kernels.Binding) []byte { return c.Bufs[b.Binding] }
			rng := at(ck.Layout.Range)
			so, do, n := binary.LittleEndian.Uint32(rng), binary.LittleEndian.Uint32(rng[4:]), binary.LittleEndian.Uint32(rng[8:])
			copy(at(ck.Layout.Dst)[do:do+n], at(ck.Layout.Src)[so:so+n])
		},
	})
	s := r.stream(t)
	src := upload(t, s, 1, 2, 3, 4, 5, 6)
	dst := upload(t, s, 0, 0, 0, 0, 0, 0)
	offsets, err := s.NewVar(ParamsOf(uint32(4), uint32(8), uint32(12)))
	if err != nil {
		t.Fatalf("NewVar: %v", err)
	}
	if err := s.CopyIndirect(dst, src, offsets); err != nil {
		t.Fatalf("CopyIndirect: %v", err)
	}
	if diff := cmp.Diff([]uint32{0, 0, 2, 3, 4, 0}, read(t, s, dst)); diff != "" {
		t.Errorf("CopyIndirect of 12 bytes from byte 4 to byte 8 (-want +got):\n%s", diff)
	}
	if calls != 1 {
		t.Errorf("the CopyIndirect kernel ran %d times, want 1", calls)
	}
}

// TestFusionCompilesThroughTheDriverAndSharesAndFreesFusedKernels: a chain
// of two pointwise launches fuses into one dispatch of a kernel compiled
// through the driver for the stream's graphs: a second graph of the same
// chain shares it (no second compile), and it is freed with the last graph
// holding it. A Rebind fuses the rebound dispatches again into the same
// kernel, shared as well.
func TestFusionCompilesThroughTheDriverAndSharesAndFreesFusedKernels(t *testing.T) {
	r := newFakeRig(t)
	add := r.registerAddWords()
	fusedRuns := 0
	r.dev.Register(fake.KernelSpec{
		Entry: wgpu.FusedEntry, // any source: the fused module FuseSource wrote
		Resources: []driver.Resource{
			{Group: 0, Binding: 0, Name: "x", Kind: driver.ResourceStorage, MinSize: 4, Access: "read_write"},
			{Group: 0, Binding: 1, Name: "p1", Kind: driver.ResourceUniform, MinSize: 16},
			{Group: 0, Binding: 2, Name: "p2", Kind: driver.ResourceUniform, MinSize: 16},
			{Group: 0, Binding: 3, Name: "zero", Kind: driver.ResourceUniform, MinSize: 4},
		},
		WorkgroupSize: [3]uint32{64, 1, 1},
		Run:           func(c fake.Call) { fusedRuns++; addWords(fake.Call{Bufs: c.Bufs[:3]}) },
	})
	s := r.stream(t, WithFusion(true))
	x := upload(t, s, 1, 2, 3, 4)
	step := func() error {
		if err := s.launch(add, Groups(1, 1, 1), []Arg{x, ParamsOf(uint32(10))}); err != nil {
			return err
		}
		return s.launch(add, Groups(1, 1, 1), []Arg{x, ParamsOf(uint32(100))})
	}
	base := r.dev.Live().Kernels
	g1 := captureFake(t, s, step)
	if st := g1.Stats(); st.Dispatches != 1 || st.FusionCompiles != 1 {
		t.Fatalf("the first graph: %d dispatch(es), %d fused compile(s), want 1 and 1:\n%s", st.Dispatches, st.FusionCompiles, g1)
	}
	g2 := captureFake(t, s, step)
	if st := g2.Stats(); st.Dispatches != 1 || st.FusionCompiles != 0 {
		t.Errorf("the second graph of the same chain: %d dispatch(es), %d fused compile(s), want 1 and 0 (it shares the first's kernel)", st.Dispatches, st.FusionCompiles)
	}
	if got := r.dev.Live().Kernels - base; got != 1 {
		t.Errorf("two graphs of one fused chain hold %d live kernels of their own, want 1", got)
	}
	if err := g1.Replay(); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	// Two warmups of +110 and one fused replay of +110.
	if diff := cmp.Diff([]uint32{331, 332, 333, 334}, read(t, s, x)); diff != "" {
		t.Errorf("x after two captures' warmups and one fused replay (-want +got):\n%s", diff)
	}
	if fusedRuns != 1 {
		t.Errorf("the fused kernel ran %d times, want once (the replay)", fusedRuns)
	}
	fusedRuns = 0
	// A Rebind fuses the rebound nodes again, to the same source: it
	// shares the kernel too.
	y := upload(t, s, 5, 6, 7, 8)
	g3, err := g1.Rebind(x, y)
	if err != nil {
		t.Fatalf("Rebind: %v", err)
	}
	if st := g3.Stats(); st.Dispatches != 1 || st.FusionCompiles != 0 {
		t.Errorf("the rebound graph: %d dispatch(es), %d fused compile(s), want 1 and 0", st.Dispatches, st.FusionCompiles)
	}
	if err := g3.Replay(); err != nil {
		t.Fatalf("Replay of the rebound graph: %v", err)
	}
	if diff := cmp.Diff([]uint32{115, 116, 117, 118}, read(t, s, y)); diff != "" {
		t.Errorf("y after one replay of the rebound fused graph (-want +got):\n%s", diff)
	}
	if fusedRuns != 1 {
		t.Errorf("the rebound graph's replay ran the fused kernel %d times, want once", fusedRuns)
	}
	for i, g := range []*Graph{g1, g2} {
		g.Release()
		if got := r.dev.Live().Kernels - base; got != 1 {
			t.Errorf("after releasing graph %d of 3, %d fused kernels are live, want 1 (another graph holds it)", i+1, got)
		}
	}
	g3.Release()
	if got := r.dev.Live().Kernels - base; got != 0 {
		t.Errorf("after every graph's release %d fused kernels are live, want 0", got)
	}
}
