package recorder

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// captureAdds records n launches of +1 on x into a graph.
func (r *fakeRig) captureAdds(t *testing.T, s *Stream, x *Buffer, n int) *Graph {
	t.Helper()
	if err := s.PrepareCapture(); err != nil {
		t.Fatalf("GraphPrepare: %v", err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatalf("BeginCapture: %v", err)
	}
	for range n {
		if err := r.add(s, x, 1); err != nil {
			t.Fatalf("Launch while recording: %v", err)
		}
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatalf("EndCapture: %v", err)
	}
	t.Cleanup(g.Release)
	return g
}

// waitRampsEncoded waits until the stream's ramp worker has nothing
// pending (it encodes in the background after a sync point).
func waitRampsEncoded(t *testing.T, s *Stream) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.MemoryStats().RampPending > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the ramp worker did not finish: %+v", s.MemoryStats())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRampedAndPreencodedReplaysRunWhereTheyWereCalled: replays served by
// a ramp (a short graph's command buffers encoded ahead) or by the
// pre-encoder (a long graph's next replay encoded ahead) execute exactly
// where they were called among writes, and nothing executes that was not
// asked for. Each run writes a start value, replays, overwrites halfway
// and replays again; the read must equal the sequential result, and the
// device must have run one dispatch per recorded launch per replay.
// Without it, a command buffer encoded ahead could run before the write
// the caller issued first, or a ramp step could run replays nobody made.
func TestRampedAndPreencodedReplaysRunWhereTheyWereCalled(t *testing.T) {
	cases := []struct {
		name     string
		launches int // per graph: 1 is short (ramped), preEncodeMin is pre-encoded
		replays  int
	}{
		{"a short graph served by a ramp", 1, 60},
		{"a long graph served by the pre-encoder", preEncodeMin, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newFakeRig(t)
			// No flush timer: it would settle counted replays at
			// arbitrary points (correctly), hiding the ramp path.
			s := r.stream(t, WithFlushDelay(0), WithPreEncode(true))
			x := upload(t, s, 0)
			g := r.captureAdds(t, s, x, c.launches)
			base := r.dispatchCount()
			var want uint32
			for run := range 4 {
				want = uint32(1000 * run)
				if err := s.Write(x, 0, u32s(want)); err != nil {
					t.Fatalf("run %d: Write: %v", run, err)
				}
				for i := range c.replays {
					if i == c.replays/2 {
						want = uint32(1000*run + 500)
						if err := s.Write(x, 0, u32s(want)); err != nil {
							t.Fatalf("run %d: Write halfway: %v", run, err)
						}
					}
					if err := g.Replay(); err != nil {
						t.Fatalf("run %d: Replay %d: %v", run, i, err)
					}
					want += uint32(c.launches)
				}
				if diff := cmp.Diff([]uint32{want}, read(t, s, x)); diff != "" {
					t.Errorf("run %d: replays around two writes did not run where they were called (-want +got):\n%s", run, diff)
				}
				waitRampsEncoded(t, s)
			}
			if got, want := r.dispatchCount()-base, 4*c.replays*c.launches; got != want {
				t.Errorf("the device ran %d dispatches for %d replays of %d launches each, want %d", got, 4*c.replays, c.launches, want)
			}
			if c.launches == 1 {
				if m := s.MemoryStats(); m.RampReplays == 0 {
					t.Errorf("no replay ran from a ramp (%+v): the test did not exercise ramps", m)
				}
			}
		})
	}
}

// TestCountedReplaysOfAReleasedGraphStillRunAndFreeItsProgramAfter:
// replays counted against a ramp step travel with their batch as an entry
// the submitter encodes; a Launch after them goes behind them with no
// call settling anything, and a Release of the graph while its counted
// replays wait unsubmitted (the flush delay keeps the batch open) neither
// drops them nor frees the program under them: they run, in order, and the
// program is freed once their batch is done. Without it the replays would
// be lost, encoded from a freed program, or run after the launch.
func TestCountedReplaysOfAReleasedGraphStillRunAndFreeItsProgramAfter(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t, WithFlushDelay(time.Hour), WithPreEncode(true))
	x := upload(t, s, 0)
	y := upload(t, s, 0)
	g := r.captureAdds(t, s, x, 1)
	// A first run plans the ramp (steps of several replays each).
	for range 40 {
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay: %v", err)
		}
	}
	if diff := cmp.Diff([]uint32{40}, read(t, s, x)); diff != "" {
		t.Fatalf("the first run (-want +got):\n%s", diff)
	}
	waitRampsEncoded(t, s)
	programs := r.dev.Live().Programs
	for range 2 { // fewer than the first step holds: they stay counted
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay: %v", err)
		}
	}
	// The copy reads x after the two counted replays.
	if err := s.launch(r.copyK, Groups(1, 1, 1), []Arg{y, x}); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	g.Release()
	if got := r.dev.Live().Programs; got != programs {
		t.Errorf("Release with counted replays unsubmitted: %d live programs, want %d (the batch still needs the program)", got, programs)
	}
	if diff := cmp.Diff([]uint32{42}, read(t, s, y)); diff != "" {
		t.Errorf("the launch after two counted replays of a graph released meanwhile (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint32{42}, read(t, s, x)); diff != "" {
		t.Errorf("the counted replays (-want +got):\n%s", diff)
	}
	if got := r.dev.Live().Programs; got != programs-1 {
		t.Errorf("after the batch was done: %d live programs, want %d (the released graph's freed)", got, programs-1)
	}
}
