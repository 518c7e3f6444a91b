package wgpu_test

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/wgpu"
)

// barrierRig is a device's driver view, addOne and four buffers.
type barrierRig struct {
	t    *testing.T
	v    driver.Device
	k    driver.Kernel
	bufs map[string]driver.Buffer
	n    int
}

func newBarrierRig(t *testing.T, b wgpu.Backend) *barrierRig {
	t.Helper()
	d := openDevice(t, wgpu.Options{Backend: b, IgnoreEnv: true})
	r := &barrierRig{t: t, v: drv(t, d), bufs: map[string]driver.Buffer{}, n: 64}
	_, r.k = kernelOf(t, d, addOne)
	for i, name := range []string{"a", "b", "c", "d"} {
		r.bufs[name] = newBuffer(t, r.v, uint64(4*r.n), storageUsage)
		if err := r.v.WriteBuffer(r.bufs[name], 0, f32bytes(slices.Repeat([]float32{float32(100 * i)}, r.n))); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// step is one command of a test program: a dispatch "src>dst" (dst = src
// + 1), or a clear "clear dst".
type barrierStep struct{ src, dst string }

// run encodes steps into one command buffer (directly, or as a program
// encoded whole, the way a graph replays), submits it, and returns the
// barrier dispatches it took and each buffer's first word after it.
func (r *barrierRig) run(steps []barrierStep, asProgram bool) (int, map[string]float32) {
	t := r.t
	t.Helper()
	e, err := r.v.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Release()
	before := wgpu.GLBarriers(e)
	// rec is what the steps are recorded into: the encoder, or a program.
	var rec interface {
		Dispatch(k driver.Kernel, groups []driver.BindGroup, x, y, z uint32) error
		ClearBuffer(b driver.Buffer, offset, size uint64) error
	} = e
	var prog driver.Program
	if asProgram {
		if prog, err = r.v.NewProgram(); err != nil {
			t.Fatal(err)
		}
		defer prog.Release()
		rec = prog
	}
	for _, s := range steps {
		if s.src == "" {
			if err := rec.ClearBuffer(r.bufs[s.dst], 0, uint64(4*r.n)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		g, err := r.v.NewBindGroup(r.k, 0, []driver.Entry{{Binding: 0, Buffer: r.bufs[s.src], Size: uint64(4 * r.n)}, {Binding: 1, Buffer: r.bufs[s.dst], Size: uint64(4 * r.n)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Dispatch(r.k, []driver.BindGroup{g}, uint32(r.n/64), 1, 1); err != nil {
			t.Fatal(err)
		}
		g.Release()
	}
	if asProgram {
		if err := e.Encode(prog, 0, prog.Len()); err != nil {
			t.Fatal(err)
		}
	}
	cb, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	barriers := wgpu.GLBarriers(e) - before
	if _, err := r.v.Submit([]driver.CommandBuffer{cb}); err != nil {
		t.Fatal(err)
	}
	out := map[string]float32{}
	for name, b := range r.bufs {
		out[name] = math.Float32frombits(binary.LittleEndian.Uint32(readBack(t, r.v, b)))
	}
	return barriers, out
}

// TestOpenGLEncodersPutABarrierExactlyBetweenAReadAndALaterWrite: on
// OpenGL read-only storage stays read-only, and an encoder dispatches the
// barrier kernel before a command that writes a buffer read since the last
// barrier wgpu-hal is sure to put (design.md, hazard 23), and at the end of
// a command buffer whose reads are not yet ordered, and nowhere else: a
// chain whose every dispatch reads what the one before wrote needs none
// inside, as a hand-written loop; a write to a buffer read two dispatches
// earlier, or a clear of one, does. The counts are the rule's; the values
// prove the commands ran in order. On Vulkan no barrier kernel is ever
// dispatched.
func TestOpenGLEncodersPutABarrierExactlyBetweenAReadAndALaterWrite(t *testing.T) {
	type want struct {
		barriers int
		values   map[string]float32
	}
	cases := []struct {
		name  string
		steps []barrierStep
		gl    want
	}{
		{
			// Each dispatch binds what the one before wrote: wgpu-hal's
			// barrier orders it. The command buffer ends with two barrier
			// dispatches (the second is the one wgpu-hal separates).
			name:  "a chain",
			steps: []barrierStep{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"a", "b"}, {"b", "c"}},
			gl:    want{2, map[string]float32{"a": 3, "b": 4, "c": 5, "d": 300}},
		},
		{
			// c>d is ordered after b>c by c's written-then-read barrier,
			// which orders every read before it too; c's read by c>d is
			// then unordered before a>c's write: two barrier dispatches,
			// and one at the end (the barrier buffer is bound in the pass).
			name:  "a write after an unordered read",
			steps: []barrierStep{{"a", "b"}, {"b", "c"}, {"c", "d"}, {"a", "c"}},
			gl:    want{3, map[string]float32{"a": 0, "b": 1, "c": 1, "d": 3}},
		},
		{
			// A pass of two barrier dispatches before the clear; b>c in a
			// new pass, which wgpu-core's transition for b (written in the
			// first pass) orders; two at the end.
			name:  "a clear after a read",
			steps: []barrierStep{{"a", "b"}, {"", "a"}, {"b", "c"}},
			gl:    want{4, map[string]float32{"a": 0, "b": 1, "c": 2, "d": 300}},
		},
	}
	for _, b := range []wgpu.Backend{wgpu.BackendGL, wgpu.BackendVulkan} {
		t.Run(b.String(), func(t *testing.T) {
			for _, c := range cases {
				for _, asProgram := range []bool{false, true} {
					name := c.name
					if asProgram {
						name += " as a program"
					}
					t.Run(name, func(t *testing.T) {
						r := newBarrierRig(t, b)
						w := c.gl
						if b != wgpu.BackendGL {
							w.barriers = 0
						}
						n, values := r.run(c.steps, asProgram)
						if diff := cmp.Diff(w, want{n, values}, cmp.AllowUnexported(want{})); diff != "" {
							t.Errorf("barrier dispatches and first words (-want +got):\n%s", diff)
						}
					})
				}
			}
		})
	}
}
