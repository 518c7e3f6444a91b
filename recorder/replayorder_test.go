package recorder_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// In-place u32 kernels whose compositions do not commute, so any
// reordering of replays, launches and writes shows in the result.
const (
	plusTwoWGSL = `
@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] + 1u; }
}
`
	timesThreePlusOneWGSL = `
@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] * 3u + 1u; }
}
`
)

// runFixture is a stream with pre-encoding on (as on hardware adapters, so
// the pre-encoder's paths run here too) and two short graphs over one
// buffer of 64 u32: g adds 2 (two dispatches of +1), h maps x to 3x+1 (one
// dispatch).
type runFixture struct {
	d       *wgpu.Device
	s       *recorder.Stream
	x       *recorder.Buffer
	inc     *wgpu.Kernel
	mul     *wgpu.Kernel
	g, h    *recorder.Graph
	elems   int
	current uint32 // the Go model of every element of x
	// snapWant is what a copy of x taken by a test should read (0: none).
	snapWant uint32
}

func newRunFixture(t *testing.T, opts ...recorder.Option) *runFixture {
	d, s := gputest.OpenStream(t, append([]recorder.Option{recorder.WithPreEncode(true)}, opts...)...)
	f := &runFixture{d: d, s: s, elems: 64}
	f.inc = gputest.Kernel(t, d, plusTwoWGSL)
	f.mul = gputest.Kernel(t, d, timesThreePlusOneWGSL)
	var err error
	if f.x, err = recorder.UploadSlice(s, make([]uint32, f.elems)); err != nil {
		t.Fatal(err)
	}
	f.g = gputest.Capture(t, s, func() {
		for range 2 {
			if err := s.Launch(f.inc, recorder.Groups(1, 1, 1), f.x); err != nil {
				t.Fatal(err)
			}
		}
	})
	f.h = gputest.Capture(t, s, func() {
		if err := s.Launch(f.mul, recorder.Groups(1, 1, 1), f.x); err != nil {
			t.Fatal(err)
		}
	})
	f.set(t, 0)
	return f
}

func (f *runFixture) set(t *testing.T, v uint32) {
	t.Helper()
	w := make([]uint32, f.elems)
	for i := range w {
		w[i] = v
	}
	if err := recorder.WriteSlice(f.s, f.x, 0, w); err != nil {
		t.Fatal(err)
	}
	f.current = v
}

func (f *runFixture) replay(t *testing.T, g *recorder.Graph) {
	t.Helper()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	if g == f.g {
		f.current += 2
	} else {
		f.current = f.current*3 + 1
	}
}

func (f *runFixture) check(t *testing.T, what string) {
	t.Helper()
	got, err := recorder.ReadSlice[uint32](f.s, f.x)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint32, f.elems)
	for i := range want {
		want[i] = f.current
	}
	gputest.WantEqual(t, what, want, got)
}

// TestRunsOfShortReplaysKeepStreamOrder: replays of short graphs stay in
// stream order with everything around them: runs of many lengths (across
// submission chunks), two graphs interleaved, writes, eager launches,
// copies, reads, syncs, flushes and the flush timer between replays, in
// random sequences checked against a Go model. It guards any scheme that
// batches, defers or pre-encodes replays: one that let a launch, a copy or
// a read pass a replay enqueued before it fails here (an earlier scheme
// that deferred short replays was checked this way).
func TestRunsOfShortReplaysKeepStreamOrder(t *testing.T) {
	f := newRunFixture(t)
	s := f.s
	copyK := gputest.Kernel(t, f.d, gputest.CopyWGSL)
	snap := gputest.Empty(t, s, f.x.Size())

	t.Run("runs of every length", func(t *testing.T) {
		for _, n := range []int{1, 2, 31, 32, 33, 64, 65, 200} {
			f.set(t, 5)
			for range n {
				f.replay(t, f.g)
			}
			f.check(t, fmt.Sprintf("%d replays of the 2-dispatch graph", n))
		}
		for _, n := range []int{1, 63, 64, 65, 129} {
			f.set(t, 1)
			for range n {
				f.replay(t, f.h)
			}
			f.check(t, fmt.Sprintf("%d replays of the 1-dispatch graph", n))
		}
	})

	t.Run("random sequences", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 11))
		for seq := range 12 {
			f.set(t, uint32(seq))
			var snapWant uint32
			snapped := false
			var ops []string
			for range 400 {
				switch r := rng.IntN(100); {
				case r < 55:
					f.replay(t, f.g)
					ops = append(ops, "g")
				case r < 75:
					f.replay(t, f.h)
					ops = append(ops, "h")
				case r < 80:
					v := rng.Uint32N(1000)
					f.set(t, v)
					ops = append(ops, "write")
				case r < 85:
					if err := s.Launch(f.inc, recorder.Groups(1, 1, 1), f.x); err != nil {
						t.Fatal(err)
					}
					f.current++
					ops = append(ops, "launch")
				case r < 89:
					// A kernel copy reads x where it stands in stream order.
					if err := s.Launch(copyK, recorder.Groups(1, 1, 1), f.x, snap); err != nil {
						t.Fatal(err)
					}
					snapWant, snapped = f.current, true
					ops = append(ops, "copy")
				case r < 92:
					f.check(t, fmt.Sprintf("sequence %d: read after %v", seq, ops))
					ops = append(ops, "read")
				case r < 95:
					if err := s.Flush(); err != nil {
						t.Fatal(err)
					}
					ops = append(ops, "flush")
				case r < 97:
					time.Sleep(3 * time.Millisecond) // past the flush delay: the timer submits
					ops = append(ops, "sleep")
				default:
					if err := s.Sync(); err != nil {
						t.Fatal(err)
					}
					ops = append(ops, "sync")
				}
			}
			f.check(t, fmt.Sprintf("sequence %d at its end", seq))
			if snapped {
				got, err := recorder.ReadSlice[uint32](s, snap)
				if err != nil {
					t.Fatal(err)
				}
				if got[0] != snapWant || got[len(got)-1] != snapWant {
					t.Fatalf("sequence %d: the last copy read %d…%d, want %d (x as it stood when the copy was enqueued)", seq, got[0], got[len(got)-1], snapWant)
				}
			}
		}
	})

	t.Run("profile between replays", func(t *testing.T) {
		f.set(t, 3)
		for range 10 {
			f.replay(t, f.g)
		}
		p, err := s.ProfileReplay(f.h)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total <= 0 {
			t.Errorf("ProfileReplay measured nothing: %+v", p)
		}
		f.current = f.current*3 + 1 // the profiled replay ran
		for range 40 {
			f.replay(t, f.g)
		}
		f.check(t, "replays, a profiled replay of another graph, replays")
	})
}

// TestReplaysAreSubmittedByTheFlushTimer: replays of a short graph that
// nothing follows still reach the GPU within the flush delay. Another
// stream's work enqueued after the delay runs after them on the device's
// one queue, so a copy it makes sees them; without the timer armed for
// replays they would wait for the stream's next call.
//
// Primed, the stream has a ramp for the graph (a run of 8 and a sync
// point): the 3 replays are counted against its first step of 4, and the
// timer must encode them as they are.
func TestReplaysAreSubmittedByTheFlushTimer(t *testing.T) {
	for _, primed := range []bool{false, true} {
		t.Run(fmt.Sprintf("primed=%v", primed), func(t *testing.T) { replaysAreSubmittedByTheFlushTimer(t, primed) })
	}
}

func replaysAreSubmittedByTheFlushTimer(t *testing.T, primed bool) {
	f := newRunFixture(t, recorder.WithFlushDelay(time.Millisecond))
	other := gputest.Stream(t, f.d)
	copyK := gputest.Kernel(t, f.d, gputest.CopyWGSL)
	snap := gputest.Empty(t, other, f.x.Size())
	if primed {
		for range 8 {
			f.replay(t, f.g)
		}
		if err := f.s.Sync(); err != nil {
			t.Fatal(err)
		}
		waitRamps(t, f.s, 2)
	}
	f.set(t, 10)
	if err := f.s.Sync(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		f.replay(t, f.g)
	}
	time.Sleep(100 * time.Millisecond)
	if err := other.Launch(copyK, recorder.Groups(1, 1, 1), f.x, snap); err != nil {
		t.Fatal(err)
	}
	if err := other.Sync(); err != nil {
		t.Fatal(err)
	}
	got, err := recorder.ReadSlice[uint32](other, snap)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != f.current {
		t.Fatalf("another stream's copy made after the flush delay read %d, want %d: the replays were not submitted", got[0], f.current)
	}
}

// TestReleaseAndCloseKeepEnqueuedReplays: a graph released, or its stream
// closed, right after replays that are enqueued and not yet submitted: the
// replays run all the same.
func TestReleaseAndCloseKeepEnqueuedReplays(t *testing.T) {
	t.Run("release", func(t *testing.T) {
		f := newRunFixture(t)
		f.set(t, 4)
		for range 5 {
			f.replay(t, f.g)
		}
		f.g.Release()
		f.check(t, "five replays, then Release")
	})
	t.Run("close", func(t *testing.T) {
		// The buffer belongs to another stream, which outlives the closed one.
		f := newRunFixture(t)
		other := gputest.Stream(t, f.d)
		copyK := gputest.Kernel(t, f.d, gputest.CopyWGSL)
		y, err := recorder.UploadSlice(other, make([]uint32, 64))
		if err != nil {
			t.Fatal(err)
		}
		snap := gputest.Empty(t, other, y.Size())
		g := gputest.Capture(t, f.s, func() {
			if err := f.s.Launch(f.inc, recorder.Groups(1, 1, 1), y); err != nil {
				t.Fatal(err)
			}
		})
		if err := recorder.WriteSlice(f.s, y, 0, make([]uint32, 64)); err != nil {
			t.Fatal(err)
		}
		for range 37 {
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := other.Launch(copyK, recorder.Groups(1, 1, 1), y, snap); err != nil {
			t.Fatal(err)
		}
		got, err := recorder.ReadSlice[uint32](other, snap)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != 37 {
			t.Fatalf("after 37 replays of +1 and Close another stream read %d, want 37", got[0])
		}
	})
}
