package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// Fusion of indirect dispatches: dispatches whose counts come from the
// same words fuse, and the fused kernel runs each index value once, so it
// computes what the unfused chain computes on every counts the unfused
// chain is race-free on, and each element once where the counts repeat
// an index (where the unfused dispatches race).

// indirectKernels are a chain written so that running any part twice for
// one element changes the result: A reads a, B writes a from A's output,
// C adds in place.
func indirectKernels(twoD bool) [3]string {
	head := "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n\tlet i = gid.x;\n"
	if twoD {
		head = "@compute @workgroup_size(8, 8)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n\tlet i = gid.x + gid.y * 32u;\n"
	}
	decl := "@group(0) @binding(0) var<storage, read> src: array<u32>;\n@group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n"
	guard := "\tif (i >= arrayLength(&dst)) { return; }\n"
	return [3]string{
		decl + head + guard + "\tdst[i] = src[i] * 3u + 1u;\n}\n",
		decl + head + guard + "\tdst[i] = src[i] ^ 0x55u;\n}\n",
		decl + head + guard + "\tdst[i] = dst[i] + src[i];\n}\n",
	}
}

// indirectReference is the chain on a, b, c (A: b from a, B: a from b, C:
// c += b) run once for each index in covered.
func indirectReference(a, b, c []uint32, covered func(i int) bool) [3][]uint32 {
	a, b, c = append([]uint32(nil), a...), append([]uint32(nil), b...), append([]uint32(nil), c...)
	for i := range a {
		if !covered(i) {
			continue
		}
		b[i] = a[i]*3 + 1
		a[i] = b[i] ^ 0x55
		c[i] += b[i]
	}
	return [3][]uint32{a, b, c}
}

// TestIndirectDispatchesOfOneVarFuseAndFollowItsCounts: a chain dispatched
// from one Var fuses to one dispatch; after SetVar, its replays follow the
// new counts and equal the plain stream's and a Go reference, and where the
// counts repeat the index (y of 2 over an index of x alone) the fused
// kernel updates each element once.
func TestIndirectDispatchesOfOneVarFuseAndFollowItsCounts(t *testing.T) {
	d, fs, ps, _ := fusePair(t)
	const n = 1000
	init := [3][]uint32{make([]uint32, n), make([]uint32, n), make([]uint32, n)}
	for i := range n {
		init[0][i], init[1][i], init[2][i] = uint32(i*7+3), uint32(i), uint32(1000-i)
	}
	for _, twoD := range []bool{false, true} {
		t.Run(fmt.Sprintf("2-D %v", twoD), func(t *testing.T) {
			srcs := indirectKernels(twoD)
			var ks [3]*wgpu.Kernel
			for i, src := range srcs {
				ks[i] = gputest.Kernel(t, d, src)
			}
			// The counts cover n elements; a second setting covers 128 of
			// them, a third repeats each index (y = 2 over x alone, or an x
			// extent of 64 over a row of 32).
			full := [3]uint32{(n + 63) / 64, 1, 1}
			part := [3]uint32{2, 1, 1}
			repeat := [3]uint32{(n + 63) / 64, 2, 1}
			covered := func(c [3]uint32) func(int) bool {
				return func(i int) bool { return i < int(c[0]*64) }
			}
			if twoD {
				full, part, repeat = [3]uint32{4, (n + 255) / 256, 1}, [3]uint32{4, 2, 1}, [3]uint32{8, (n + 255) / 256, 1}
				covered = func(c [3]uint32) func(int) bool {
					return func(i int) bool {
						x, y := c[0]*8, c[1]*8
						for gy := range y {
							if uint32(i) >= gy*32 && uint32(i)-gy*32 < x {
								return true
							}
						}
						return false
					}
				}
			}
			type world struct {
				s       *recorder.Stream
				v       *recorder.Var
				a, b, c *recorder.Buffer
				g       *recorder.Graph
			}
			capture := func(s *recorder.Stream) *world {
				w := &world{s: s}
				var err error
				if w.v, err = s.NewVar(recorder.ParamsOf(full[:]...)); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(w.v.Release)
				w.a, w.b, w.c = gputest.UploadU32(t, s, init[0]...), gputest.UploadU32(t, s, init[1]...), gputest.UploadU32(t, s, init[2]...)
				di := recorder.IndirectVar(w.v, 0)
				w.g, err = s.Capture(func() error {
					for _, l := range []struct {
						k        *wgpu.Kernel
						src, dst *recorder.Buffer
					}{{ks[0], w.a, w.b}, {ks[1], w.b, w.a}, {ks[2], w.b, w.c}} {
						if err := s.Launch(l.k, di, l.src, l.dst); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(w.g.Release)
				return w
			}
			fw, pw := capture(fs), capture(ps)
			if got := fw.g.Stats().Dispatches; got != 1 {
				t.Fatalf("the fused graph has %d dispatches; want 1:\n%v", got, fw.g)
			}
			read := func(w *world) [3][]uint32 {
				return [3][]uint32{gputest.ReadU32(t, w.s, w.a), gputest.ReadU32(t, w.s, w.b), gputest.ReadU32(t, w.s, w.c)}
			}
			reset := func(w *world) {
				for i, b := range []*recorder.Buffer{w.a, w.b, w.c} {
					if err := recorder.WriteSlice(w.s, b, 0, init[i]); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, c := range []struct {
				name   string
				counts [3]uint32
				plain  bool // the plain stream is race-free on these counts
			}{{"every element", full, true}, {"the first rows", part, true}, {"an index repeated", repeat, false}} {
				for _, w := range []*world{fw, pw} {
					reset(w)
					if err := w.s.SetVar(w.v, recorder.ParamsOf(c.counts[:]...)); err != nil {
						t.Fatal(err)
					}
					if err := w.g.Replay(); err != nil {
						t.Fatal(err)
					}
				}
				want := indirectReference(init[0], init[1], init[2], covered(c.counts))
				if diff := cmp.Diff(want, read(fw)); diff != "" {
					t.Errorf("%s: the fused graph differs from the reference (-want +got):\n%s", c.name, firstLines(diff, 12))
				}
				if c.plain {
					if diff := cmp.Diff(read(pw), read(fw)); diff != "" {
						t.Errorf("%s: the fused graph differs from the plain one (-plain +fused):\n%s", c.name, firstLines(diff, 12))
					}
				}
			}
		})
	}
}

// TestIndirectDispatchesFuseOnlyOverTheSameCounts: dispatches from other
// counts (another Var, another offset), a dispatch by counts after an
// indirect one, and a chain that binds the buffer its counts come from
// stay unfused, each with its reason in String, and compute the plain
// values.
func TestIndirectDispatchesFuseOnlyOverTheSameCounts(t *testing.T) {
	d, fs, ps, _ := fusePair(t)
	srcs := indirectKernels(false)
	var ks [3]*wgpu.Kernel
	for i, src := range srcs {
		ks[i] = gputest.Kernel(t, d, src)
	}
	const n = 256
	init := make([]uint32, n)
	for i := range init {
		init[i] = uint32(i * 5)
	}
	counts := []uint32{n / 64, 1, 1, n / 64, 1, 1}
	for _, c := range []struct {
		name, why string
		second    func(v, w *recorder.Var, cb *recorder.Buffer) recorder.Dispatch
		bindsCB   bool // the second kernel reads the counts buffer
	}{
		{"another Var", "indirect counts from other memory", func(v, w *recorder.Var, _ *recorder.Buffer) recorder.Dispatch { return recorder.IndirectVar(w, 0) }, false},
		{"another offset", "indirect counts from other memory", func(v, _ *recorder.Var, _ *recorder.Buffer) recorder.Dispatch { return recorder.IndirectVar(v, 12) }, false},
		{"by counts", "dispatched by counts, the chain indirectly", func(*recorder.Var, *recorder.Var, *recorder.Buffer) recorder.Dispatch {
			return recorder.Groups(n/64, 1, 1)
		}, false},
		{"binding the counts", "binds the buffer the chain's indirect counts are read from", func(_, _ *recorder.Var, cb *recorder.Buffer) recorder.Dispatch {
			return recorder.Indirect(cb, 0)
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out [2][][]uint32
			for i, s := range []*recorder.Stream{fs, ps} {
				v, err := s.NewVar(recorder.ParamsOf(counts...))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(v.Release)
				w, err := s.NewVar(recorder.ParamsOf(counts...))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(w.Release)
				cb := gputest.UploadU32(t, s, append(append([]uint32(nil), counts...), make([]uint32, n-len(counts))...)...) // n words: read as data too
				a, b := gputest.UploadU32(t, s, init...), gputest.UploadU32(t, s, init...)
				first := recorder.IndirectVar(v, 0)
				if c.bindsCB {
					first = recorder.Indirect(cb, 0)
				}
				g, err := s.Capture(func() error {
					if err := s.Launch(ks[0], first, a, b); err != nil {
						return err
					}
					src := b
					if c.bindsCB {
						src = cb // reads the counts' words as data
					}
					return s.Launch(ks[1], c.second(v, w, cb), src, a)
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(g.Release)
				if i == 0 {
					if got := g.Stats().Dispatches; got != 2 {
						t.Errorf("the fusing stream's graph has %d dispatches; want 2 (unfused)", got)
					}
					if s := g.String(); !strings.Contains(s, c.why) {
						t.Errorf("String does not say %q:\n%s", c.why, s)
					}
				}
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
				out[i] = [][]uint32{gputest.ReadU32(t, s, a), gputest.ReadU32(t, s, b)}
			}
			if diff := cmp.Diff(out[1], out[0]); diff != "" {
				t.Errorf("results differ (-plain +fusing):\n%s", firstLines(diff, 12))
			}
		})
	}
}
