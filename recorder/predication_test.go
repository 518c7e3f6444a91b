package recorder_test

import (
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// sumStepWGSL: one iteration of a loop whose body is a real kernel, with
// workgroup memory and barriers: each of the 4 workgroups sums its 64
// inputs by a tree reduction and adds the sum to out[wg]; workgroup 0 also
// takes one from the loop condition st[0] (down to 0) and counts the
// iteration in st[1].
const sumStepWGSL = `
@group(0) @binding(0) var<storage, read> xs: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(1) @binding(0) var<storage, read_write> st: array<u32>;

var<workgroup> part: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
	part[li] = xs[wg.x * 64u + li];
	workgroupBarrier();
	for (var s = 32u; s > 0u; s = s >> 1u) {
		if (li < s) { part[li] = part[li] + part[li + s]; }
		workgroupBarrier();
	}
	if (li == 0u) {
		out[wg.x] = out[wg.x] + part[0];
	}
	if (li == 0u && wg.x == 0u) {
		if (st[0] > 0u) { st[0] = st[0] - 1u; }
		st[1] = st[1] + 1u;
	}
}
`

// wideWGSL: a dispatch too large to be predicated (more than 256
// workgroups): adds one to each of its elements.
const wideWGSL = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wg: vec3<u32>) { v[wg.x] = v[wg.x] + 1u; }
`

// lastGroupWGSL uses bind group 3, the last a device offers: its kernel
// has no guarded variant.
const lastGroupWGSL = `
@group(3) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(1)
fn main() { c[0] = c[0] + 1u; }
`

// TestPredicatedAndIndirectBodiesAgree: a While whose body holds a
// predicatable kernel (with barriers and workgroup memory), a dispatch too
// wide to be predicated and a kernel without a guarded variant runs each
// exactly as often as the Go model says, whichever way its dispatches are
// skipped; String names the dispatches that went through a guarded variant,
// and only those.
func TestPredicatedAndIndirectBodiesAgree(t *testing.T) {
	const wide = 300 // workgroups: past the predication bound
	const max = 6
	xs := make([]uint32, 256)
	var sums [4]uint32
	for i := range xs {
		xs[i] = uint32(i*7 + 1)
		sums[i/64] += xs[i]
	}
	model := func(n uint32) [][]uint32 {
		it := min(n, max)
		out := make([]uint32, 4)
		for w := range out {
			out[w] = it * sums[w]
		}
		v := make([]uint32, wide)
		for i := range v {
			v[i] = it
		}
		return [][]uint32{{n - it, it}, out, v, {it}}
	}
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "predicated", false: "indirect"}[on], func(t *testing.T) {
			d, s := gputest.OpenStream(t, recorder.WithPredication(on))
			sum := gputest.Kernel(t, d, sumStepWGSL)
			widen := gputest.Kernel(t, d, wideWGSL)
			last := gputest.Kernel(t, d, lastGroupWGSL)
			in := gputest.UploadU32(t, s, xs...)
			st := gputest.UploadU32(t, s, 0, 0)
			out := gputest.UploadU32(t, s, 0, 0, 0, 0)
			v := gputest.UploadU32(t, s, make([]uint32, wide)...)
			c := gputest.UploadU32(t, s, 0)
			step := func() error {
				return s.While(st, 0, max, func() error {
					if err := s.Launch(widen, recorder.Groups(wide, 1, 1), v); err != nil {
						return err
					}
					if err := s.Launch(last, recorder.Groups(1, 1, 1), c); err != nil {
						return err
					}
					return s.Launch(sum, recorder.Groups(4, 1, 1), in, out, st)
				})
			}
			reset := func(n uint32) {
				setU32(t, s, st, n, 0)
				setU32(t, s, out, 0, 0, 0, 0)
				setU32(t, s, v, make([]uint32, wide)...)
				setU32(t, s, c, 0)
			}
			read := func() [][]uint32 {
				return [][]uint32{u32s(t, s, st), u32s(t, s, out), u32s(t, s, v), u32s(t, s, c)}
			}
			reset(2)
			g, err := s.Capture(step)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			for _, n := range []uint32{0, 1, 3, max, 40} {
				reset(n)
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
				gputest.WantEqual(t, "replay with n="+itoa(n)+" (st, out, wide, last group)", model(n), read())
			}
			str := g.String()
			if got, want := strings.Count(str, "(predicated)"), map[bool]int{true: 1, false: 0}[on]; got != want {
				t.Errorf("String names %d predicated kernels, want %d (only the 4-workgroup kernel with bind groups to spare): %s", got, want, str)
			}
		})
	}
}
