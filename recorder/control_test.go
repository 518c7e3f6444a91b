package recorder_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// countdownWGSL: st[0] is the loop condition n; each run takes one from it
// (down to 0) and counts itself in st[1].
const countdownWGSL = `
@group(0) @binding(0) var<storage, read_write> st: array<u32>;
@compute @workgroup_size(1)
fn main() {
	if (st[0] > 0u) { st[0] = st[0] - 1u; }
	st[1] = st[1] + 1u;
}
`

// toggleWGSL flips f[0] between 0 and 1 and counts how often it ran in f[1].
const toggleWGSL = `
@group(0) @binding(0) var<storage, read_write> f: array<u32>;
@compute @workgroup_size(1)
fn main() { f[0] = 1u - f[0]; f[1] = f[1] + 1u; }
`

func u32s(t testing.TB, s *recorder.Stream, b *recorder.Buffer) []uint32 {
	t.Helper()
	v, err := recorder.ReadSlice[uint32](s, b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func setU32(t testing.TB, s *recorder.Stream, b *recorder.Buffer, v ...uint32) {
	t.Helper()
	if err := recorder.WriteSlice(s, b, 0, v); err != nil {
		t.Fatal(err)
	}
}

// TestWhileRunsTheBodyWhileTheConditionHolds: a While replayed from a graph
// runs its body exactly as often as the eager loop does: zero times when
// the condition is false at entry, k times when the body clears it after k
// runs, and maxIterations times when it never does — and then the condition
// is still non-zero, so a caller can tell the loop was cut. A write to the
// condition between replays is seen by the next replay.
func TestWhileRunsTheBodyWhileTheConditionHolds(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownWGSL)
	st, err := recorder.UploadSlice(s, []uint32{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	const max = 10
	loop := func() error {
		return s.While(st, 0, max, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) })
	}
	setU32(t, s, st, 3, 0)
	g, err := s.Capture(loop) // the warmup runs the loop eagerly: 3 iterations
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	gputest.WantEqual(t, "the eager warmup ran 3 iterations", []uint32{0, 3}, u32s(t, s, st))
	for _, c := range []struct {
		n, want uint32
	}{{0, 0}, {1, 1}, {7, 7}, {max, max}, {25, max}} {
		setU32(t, s, st, c.n, 0)
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		left := c.n - min(c.n, max)
		gputest.WantEqual(t, "iterations run and condition left by a replay with n="+itoa(c.n), []uint32{left, c.want}, u32s(t, s, st))
		setU32(t, s, st, c.n, 0)
		if err := loop(); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, "the eager loop agrees for n="+itoa(c.n), []uint32{left, c.want}, u32s(t, s, st))
	}
	if !strings.Contains(g.String(), "While r1") {
		t.Errorf("String must show the loop: %s", g)
	}
}

// TestIfNestedInWhileRunsOnlyOnItsIterations: an If inside a While body is
// gated by both: its body runs on the iterations where its own condition
// holds, and never once the loop has stopped. Copies and clears inside the
// bodies are skipped with them.
// It runs with each way of skipping a body's dispatches (WithPredication).
func TestIfNestedInWhileRunsOnlyOnItsIterations(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "predicated", false: "indirect"}[on], func(t *testing.T) {
			ifNestedInWhile(t, recorder.WithPredication(on))
		})
	}
}

func ifNestedInWhile(t *testing.T, opts ...recorder.Option) {
	d, s := gputest.OpenStream(t, opts...)
	count := gputest.Kernel(t, d, countdownWGSL)
	toggle := gputest.Kernel(t, d, toggleWGSL)
	st, _ := recorder.UploadSlice(s, []uint32{0, 0})
	flag, _ := recorder.UploadSlice(s, []uint32{0, 0})
	inner, _ := recorder.UploadSlice(s, []uint32{0, 0})
	snap, _ := recorder.UploadSlice(s, []uint32{0, 0})
	scratch, _ := recorder.UploadSlice(s, []uint32{7, 7})
	step := func() error {
		return s.While(st, 0, 8, func() error {
			if err := s.Launch(count, recorder.Groups(1, 1, 1), st); err != nil {
				return err
			}
			if err := s.Launch(toggle, recorder.Groups(1, 1, 1), flag); err != nil {
				return err
			}
			if err := s.Copy(snap, 0, st, 0, 8); err != nil {
				return err
			}
			return s.If(flag, 0, func() error {
				if err := s.Clear(scratch, 0, 8); err != nil {
					return err
				}
				return s.Launch(toggle, recorder.Groups(1, 1, 1), inner) // counts in inner[1]
			})
		})
	}
	reset := func(n uint32) {
		setU32(t, s, st, n, 0)
		setU32(t, s, flag, 0, 0)
		setU32(t, s, inner, 0, 0)
		setU32(t, s, snap, 0, 0)
		setU32(t, s, scratch, 7, 7)
	}
	// A Go model: n iterations (at most 8); the flag is 1 after odd toggles,
	// so the If runs on iterations 1, 3, 5, ... (1-based).
	model := func(n uint32) [][]uint32 {
		it := min(n, 8)
		ifRuns := (it + 1) / 2
		scr := []uint32{7, 7}
		if ifRuns > 0 {
			scr = []uint32{0, 0}
		}
		snapV := []uint32{0, 0}
		if it > 0 {
			snapV = []uint32{n - it, it}
		}
		return [][]uint32{{n - it, it}, {it % 2, it}, {ifRuns % 2, ifRuns}, snapV, scr}
	}
	read := func() [][]uint32 {
		return [][]uint32{u32s(t, s, st), u32s(t, s, flag), u32s(t, s, inner), u32s(t, s, snap), u32s(t, s, scratch)}
	}
	reset(5)
	g, err := s.Capture(step)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	for _, n := range []uint32{0, 1, 4, 5, 8, 30} {
		reset(n)
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, "replay with n="+itoa(n)+" (st, flag, inner, snapshot, scratch)", model(n), read())
		reset(n)
		if err := step(); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, "eager with n="+itoa(n), model(n), read())
	}
	p, err := s.ProfileReplay(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Branches) != 2 || len(p.Branches[0].Ran) != 8 || p.Branches[0].Kind != "While" {
		t.Fatalf("ProfileReplay reports each region's iterations: %+v", p.Branches)
	}
}

// TestRebindingTheConditionSteersTheLoop: the condition is a binding like
// any other; a rebound graph reads its new condition buffer, and the
// original graph keeps reading the old one.
func TestRebindingTheConditionSteersTheLoop(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownWGSL)
	a, _ := recorder.UploadSlice(s, []uint32{2, 0})
	b, _ := recorder.UploadSlice(s, []uint32{5, 0})
	g, err := s.Capture(func() error {
		return s.While(a, 0, 16, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a) })
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	gb, err := g.Rebind(a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Release()
	setU32(t, s, a, 3, 0)
	if err := gb.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the rebound graph looped on b", []uint32{0, 5}, u32s(t, s, b))
	gputest.WantEqual(t, "and left a alone", []uint32{3, 0}, u32s(t, s, a))
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the original graph still loops on a", []uint32{0, 3}, u32s(t, s, a))
}

// TestBranchArgumentsAreChecked: a bad condition, a nil body, an
// out-of-range maxIterations and a body error are refused or returned, and
// a failed body leaves nothing of itself in the capture.
func TestBranchArgumentsAreChecked(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownWGSL)
	st, _ := recorder.UploadSlice(s, []uint32{1, 0})
	nop := func() error { return nil }
	gputest.WantErr(t, "nil condition", s.If(nil, 0, nop), []error{wgpu.ErrInvalidArgument}, "nil")
	gputest.WantErr(t, "misaligned condition", s.If(st, 2, nop), []error{wgpu.ErrInvalidArgument}, "offset=2")
	gputest.WantErr(t, "condition past the end", s.If(st, 8, nop), []error{wgpu.ErrInvalidArgument}, "offset=8")
	gputest.WantErr(t, "nil body", s.While(st, 0, 3, nil), []error{wgpu.ErrInvalidArgument}, "body is nil")
	gputest.WantErr(t, "zero iterations", s.While(st, 0, 0, nop), []error{wgpu.ErrInvalidArgument}, "maxIterations=0")
	gputest.WantErr(t, "too many iterations", s.While(st, 0, recorder.MaxWhileIterations+1, nop), []error{wgpu.ErrInvalidArgument}, "maxIterations")
	boom := errors.New("boom")
	if err := s.PrepareCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), st); err != nil {
		t.Fatal(err)
	}
	err := s.If(st, 0, func() error {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), st); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("the body's error comes back wrapped, got %v", err)
	}
	// A failed If is a refused call inside the window: a caller that
	// ignored its error would otherwise seal a graph without the If.
	g, err := s.EndCapture()
	var ce *recorder.CaptureError
	if g != nil || !errors.As(err, &ce) || !errors.Is(err, boom) {
		t.Fatalf("EndCapture after a failed If body = %v, %v; want no graph and a *CaptureError wrapping the body's error", g, err)
	}
	g = gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), st); err != nil {
			t.Fatal(err)
		}
	})
	if g.Len() != 1 {
		t.Fatalf("a capture after the failed one records its own launch only: %d dispatches, want 1", g.Len())
	}
}

func itoa(n uint32) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
