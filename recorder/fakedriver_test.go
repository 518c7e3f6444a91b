package recorder

// The fake driver's rig: streams on internal/driver/fake, which run without
// an adapter (no GPU, no wgpu-native call), and the Go kernels the tests
// launch on it. Tests named fake_*_test.go prove ordering, admission and
// failure rules of the recorder that need no shader; what depends on a real
// adapter is tested on one by the package's other tests.

import (
	"encoding/binary"
	"testing"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"
)

// fakeRig is one fake device and the kernels registered on it.
type fakeRig struct {
	dev *fake.Device
	// addConst adds params[0] to every u32 of x: x (storage, group 0
	// binding 0), params (uniform, binding 1).
	addConst *fake.Kernel
	// copyK copies src into dst: dst (storage, binding 0), src (read-only
	// storage, binding 1).
	copyK *fake.Kernel
}

func newFakeRig(t testing.TB) *fakeRig {
	t.Helper()
	return newFakeRigOn(t, fake.Options{})
}

// newFakeRigOn is newFakeRig on a fake device opened with o.
func newFakeRigOn(t testing.TB, o fake.Options) *fakeRig {
	t.Helper()
	d := fake.New(o)
	t.Cleanup(d.Close)
	r := &fakeRig{dev: d}
	if err := registerControlKernels(d); err != nil {
		t.Fatalf("the control kernels: %v", err)
	}
	r.addConst = d.Register(fake.KernelSpec{
		Entry: "add_const",
		Resources: []driver.Resource{
			{Group: 0, Binding: 0, Name: "x", Kind: driver.ResourceStorage, Type: "array<u32>", MinSize: 4, Access: "read_write"},
			{Group: 0, Binding: 1, Name: "params", Kind: driver.ResourceUniform, Type: "vec4<u32>", MinSize: 16},
		},
		Run: func(c fake.Call) {
			k := binary.LittleEndian.Uint32(c.Bufs[1])
			x := c.Bufs[0]
			for i := 0; i+4 <= len(x); i += 4 {
				binary.LittleEndian.PutUint32(x[i:], binary.LittleEndian.Uint32(x[i:])+k)
			}
		},
	})
	r.copyK = d.Register(fake.KernelSpec{
		Entry: "copy",
		Resources: []driver.Resource{
			{Group: 0, Binding: 0, Name: "dst", Kind: driver.ResourceStorage, Type: "array<u32>", MinSize: 4, Access: "read_write"},
			{Group: 0, Binding: 1, Name: "src", Kind: driver.ResourceReadOnlyStorage, Type: "array<u32>", MinSize: 4, Access: "read"},
		},
		Run: func(c fake.Call) { copy(c.Bufs[0], c.Bufs[1]) },
	})
	return r
}

// stream opens a stream on the rig's device, closed at the test's end.
func (r *fakeRig) stream(t testing.TB, opts ...Option) *Stream {
	t.Helper()
	s, err := newOnDriver(nil, r.dev, opts...)
	if err != nil {
		t.Fatalf("a stream on the fake device: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// u32s encodes v little-endian.
func u32s(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// words decodes little-endian u32s.
func words(b []byte) []uint32 {
	v := make([]uint32, len(b)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return v
}

// upload uploads v, failing the test on error.
func upload(t testing.TB, s *Stream, v ...uint32) *Buffer {
	t.Helper()
	b, err := s.Upload(u32s(v...))
	if err != nil {
		t.Fatalf("Upload: %v", err)
	}
	return b
}

// read reads b as u32s, failing the test on error.
func read(t testing.TB, s *Stream, b *Buffer) []uint32 {
	t.Helper()
	raw, err := s.Read(b)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return words(raw)
}

// add launches addConst(b, k) on s.
func (r *fakeRig) add(s *Stream, b *Buffer, k uint32) error {
	return s.launch(r.addConst, Groups(1, 1, 1), []Arg{b, ParamsOf(k)})
}

// holdSubmitted holds the device's queue and submits gpuDepth batches of
// one +1 on x behind it (Flush waits for each submission, not for the
// device): the stream's submitter then waits for the oldest before it
// submits anything else. It returns the hold's release.
func (r *fakeRig) holdSubmitted(t testing.TB, s *Stream, x *Buffer) (release func()) {
	t.Helper()
	release = r.dev.Hold()
	for range gpuDepth {
		if err := r.add(s, x, 1); err != nil {
			release()
			t.Fatalf("Launch: %v", err)
		}
		if err := s.Flush(); err != nil {
			release()
			t.Fatalf("Flush: %v", err)
		}
	}
	return release
}
