package recorder

// Go versions of the control-flow kernels (internal/kernels' WGSL: the
// gate, the forwarder, and the copy and clear a body runs as kernels),
// registered on every fake rig under their WGSL sources, so If and While
// record, lower and replay on the fake as they do on an adapter (the fake
// has no guarded variants, so gated dispatches go indirect through the
// gate buffer).

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"
	"github.com/softgraph/softgraph/internal/kernels"
)

func word(b []byte, i uint32) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }

func setWord(b []byte, i, v uint32) { binary.LittleEndian.PutUint32(b[4*i:], v) }

// words32 is a u32 storage binding of the control kernels.
func words32(binding uint32, name, access string) driver.Resource {
	kind := driver.ResourceStorage
	if access == "read" {
		kind = driver.ResourceReadOnlyStorage
	}
	return driver.Resource{Group: 0, Binding: binding, Name: name, Kind: kind, Type: "array<u32>", MinSize: 4, Access: access}
}

// uniform32 is a control kernel's params uniform of n words.
func uniform32(binding uint32, name, typ string, n uint64) driver.Resource {
	return driver.Resource{Group: 0, Binding: binding, Name: name, Kind: driver.ResourceUniform, Type: typ, MinSize: 4 * n}
}

// registerControlKernels registers the control-flow kernels on d.
func registerControlKernels(d *fake.Device) error {
	gk, err := kernels.Gate()
	if err != nil {
		return err
	}
	fk, err := kernels.Forward()
	if err != nil {
		return err
	}
	ck, err := kernels.Copy()
	if err != nil {
		return err
	}
	cl, err := kernels.Clear()
	if err != nil {
		return err
	}
	d.Register(fake.KernelSpec{Entry: gk.Entry, Source: gk.Source, WorkgroupSize: [3]uint32{64, 1, 1},
		Resources: []driver.Resource{words32(0, "cond", "read"), words32(1, "gate", "read_write"), words32(2, "table", "read"),
			uniform32(3, "g", "Gate", 8), words32(4, "enables", "read_write")},
		Run: func(c fake.Call) {
			cond, gate, table, g, enables := c.Bufs[0], c.Bufs[1], c.Bufs[2], c.Bufs[3], c.Bufs[4]
			condWord, parent, enable, first, count := word(g, 0), word(g, 1), word(g, 2), word(g, 3), word(g, 4)
			on := word(cond, condWord) != 0
			if parent != 0xffffffff {
				on = on && word(enables, parent) != 0
			}
			v := uint32(0)
			if on {
				v = 1
			}
			setWord(enables, enable, v)
			for i := range count {
				e := (first + i) * 4
				w := word(table, e)
				for j := range uint32(3) {
					x := uint32(0)
					if on {
						x = word(table, e+1+j)
					}
					setWord(gate, w+j, x)
				}
			}
		}})
	d.Register(fake.KernelSpec{Entry: fk.Entry, Source: fk.Source, WorkgroupSize: [3]uint32{1, 1, 1},
		Resources: []driver.Resource{words32(0, "counts", "read"), words32(1, "gate", "read_write"),
			uniform32(2, "f", "Forward", 4), words32(3, "enables", "read")},
		Run: func(c fake.Call) {
			counts, gate, f, enables := c.Bufs[0], c.Bufs[1], c.Bufs[2], c.Bufs[3]
			src, enable, slot := word(f, 0), word(f, 1), word(f, 2)
			on := word(enables, enable) != 0
			for j := range uint32(3) {
				x := uint32(0)
				if on {
					x = word(counts, src+j)
				}
				setWord(gate, slot+j, x)
			}
		}})
	d.Register(fake.KernelSpec{Entry: ck.Entry, Source: ck.Source, WorkgroupSize: [3]uint32{64, 1, 1},
		Resources: []driver.Resource{words32(0, "src", "read"), words32(1, "dst", "read_write"), uniform32(2, "c", "Words", 4)},
		Run: func(c fake.Call) {
			src, dst, p := c.Bufs[0], c.Bufs[1], c.Bufs[2]
			from, to, n := word(p, 0), word(p, 1), word(p, 2)
			copy(dst[4*to:4*(to+n)], src[4*from:4*(from+n)])
		}})
	d.Register(fake.KernelSpec{Entry: cl.Entry, Source: cl.Source, WorkgroupSize: [3]uint32{64, 1, 1},
		Resources: []driver.Resource{words32(0, "dst", "read_write"), uniform32(1, "c", "Words", 4)},
		Run: func(c fake.Call) {
			dst, p := c.Bufs[0], c.Bufs[1]
			to, n := word(p, 1), word(p, 2)
			clear(dst[4*to : 4*(to+n)])
		}})
	return nil
}

// TestIfAndWhileRecordAndReplayOnTheFake: an If whose condition is set
// and one whose condition is clear, and a While counting a word down,
// captured on the fake with launches, a copy and a clear in their bodies,
// replay as the bodies say (the control kernels above stand in for
// internal/kernels' WGSL). It is what lets the fake-driver tests of the
// capture rule try If and While like every other call.
func TestIfAndWhileRecordAndReplayOnTheFake(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t)
	x := upload(t, s, 0, 0, 0, 0)
	on, off := upload(t, s, 1), upload(t, s, 0)
	y := upload(t, s, 7, 7, 7, 7)
	g, err := s.Capture(func() error {
		if err := s.If(on, 0, func() error { return r.add(s, x, 1) }); err != nil {
			return err
		}
		if err := s.If(off, 0, func() error { return r.add(s, x, 100) }); err != nil {
			return err
		}
		return s.If(on, 0, func() error {
			if err := s.Copy(y, 0, x, 0, 8); err != nil {
				return err
			}
			return s.Clear(x, 8, 4)
		})
	})
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	defer g.Release()
	for range 2 {
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay: %v", err)
		}
	}
	// The warm-up ran each body once eagerly, each replay once more.
	got := map[string][]uint32{"x": read(t, s, x), "y": read(t, s, y)}
	want := map[string][]uint32{"x": {3, 3, 0, 3}, "y": {3, 3, 7, 7}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("If bodies after a warm-up and two replays (-want +got):\n%s\n%v", d, g)
	}

	// A While that counts c down, adding 10 to z per iteration: the
	// warm-up runs it from 2, the replay from the 3 written before it.
	c, z := upload(t, s, 2), upload(t, s, 0)
	w, err := s.Capture(func() error {
		return s.While(c, 0, 5, func() error {
			if err := r.add(s, z, 10); err != nil {
				return err
			}
			return r.add(s, c, 0xffffffff) // minus one
		})
	})
	if err != nil {
		t.Fatalf("Capture of the While: %v", err)
	}
	defer w.Release()
	if err := s.Write(c, 0, u32s(3)); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := w.Replay(); err != nil {
		t.Fatalf("Replay of the While: %v", err)
	}
	got = map[string][]uint32{"c": read(t, s, c), "z": read(t, s, z)}
	want = map[string][]uint32{"c": {0}, "z": {50}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a While after a warm-up of 2 iterations and a replay of 3 (-want +got):\n%s\n%v", d, w)
	}
}
