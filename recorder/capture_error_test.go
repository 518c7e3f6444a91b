package recorder_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// TestARefusedCallInsideTheWindowFailsEndCapture: every call the recorder
// refuses while recording — Launch, Copy, Clear, If, While, a child
// Replay, SetVar — makes EndCapture fail with a *CaptureError naming the
// call, even when the caller ignored the call's own error: sealing would
// give a graph without that work (a refused Launch used to leave a graph of
// 0 dispatches). Nothing is sealed, the stream is back in NoCapture, and a
// capture right after works.
func TestARefusedCallInsideTheWindowFailsEndCapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, plusTwoWGSL)
	x, err := recorder.UploadSlice(s, make([]uint32, 64))
	if err != nil {
		t.Fatal(err)
	}
	y := gputest.Empty(t, s, 256)
	v, err := s.NewVar(recorder.ParamsOf[uint32](1))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	released := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x); err != nil {
			t.Fatal(err)
		}
	})
	released.Release()
	want := uint32(1) // the warmup of that capture
	body := func() error { return nil }
	for _, c := range []struct {
		op   string
		call func() error
	}{
		{"Launch", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, y) }},
		{"Copy", func() error { return s.Copy(x, 0, x, 4, 4) }},
		{"Clear", func() error { return s.Clear(x, 2, 4) }},
		{"Branch", func() error { return s.If(x, 0, nil) }},
		{"Branch", func() error { return s.While(x, 0, 0, body) }},
		// A launch refused inside a body: the If returns its error, and
		// the CaptureError names the launch (once).
		{"Launch", func() error {
			return s.If(y, 0, func() error { return s.Launch(k, recorder.Groups(0, 1, 1), x) })
		}},
		{"Replay", released.Replay},
		{"SetVar", func() error { return s.SetVar(v, recorder.ParamsOf[uint32](2)) }},
	} {
		if err := s.PrepareCapture(); err != nil {
			t.Fatal(err)
		}
		if err := s.BeginCapture(); err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x); err != nil {
			t.Fatal(err)
		}
		if err := c.call(); err == nil {
			t.Fatalf("%s: the call meant to be refused was accepted", c.op)
		}
		g, err := s.EndCapture()
		var ce *recorder.CaptureError
		if g != nil || !errors.As(err, &ce) || !errors.Is(err, lifecycle.ErrGraphState) {
			t.Fatalf("%s refused inside the window: EndCapture = %v, %v; want no graph and a *CaptureError matching ErrGraphState", c.op, g, err)
		}
		if n := strings.Count(err.Error(), c.op+":"); n != 1 {
			t.Errorf("the *CaptureError must name the refused call %s once (%d times): %v", c.op, n, err)
		}
		if st := s.State(); st != lifecycle.NoCapture {
			t.Fatalf("%s: state after the failed EndCapture = %s, want %s", c.op, st, lifecycle.NoCapture)
		}
		// The stream works right after: a capture seals and replays.
		g = gputest.Capture(t, s, func() {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x); err != nil {
				t.Fatal(err)
			}
		})
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		want += 2 // warmup and replay
		gputest.WantEqual(t, c.op+": the stream works after the failed capture (the failed window ran nothing)", want, gputest.ReadU32(t, s, x)[0])
	}
}

// TestCaptureFailsWhenTheStepIgnoresARefusal: a Capture step that drops a
// refused Launch's error still gets no graph: Capture returns the
// *CaptureError of EndCapture, and the stream is usable.
func TestCaptureFailsWhenTheStepIgnoresARefusal(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, plusTwoWGSL)
	x, err := recorder.UploadSlice(s, make([]uint32, 64))
	if err != nil {
		t.Fatal(err)
	}
	recorded := false
	g, err := s.Capture(func() error {
		if s.State() == lifecycle.Capture {
			recorded = true
			_ = s.Launch(k, recorder.Groups(1, 1, 1)) // refused: no argument; error dropped
		}
		return nil
	})
	var ce *recorder.CaptureError
	if !recorded || g != nil || !errors.As(err, &ce) {
		t.Fatalf("Capture of a step that ignored a refused Launch = %v, %v; want no graph and a *CaptureError", g, err)
	}
	gputest.WantErr(t, "the CaptureError names the refused launch", err, []error{recorder.ErrInvalidArgument, lifecycle.ErrGraphState}, "Launch:", "0 argument(s)")
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x); err != nil {
		t.Fatalf("the stream must work after the failed Capture: %v", err)
	}
	gputest.WantEqual(t, "one eager launch after the failed capture", uint32(1), gputest.ReadU32(t, s, x)[0])
}

// TestWithoutWarmupRunsNothing: Capture with WithoutWarmup records step
// without executing it, so a stateful step runs exactly N times for N
// replays (with the default warmup it runs N+1 times, the first while
// capturing), and a dispatch whose indirect counts the step itself writes
// never runs on counts nobody wrote.
func TestWithoutWarmupRunsNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []recorder.CaptureOption
		runs uint32 // executions for 5 replays
	}{
		{"WithoutWarmup", []recorder.CaptureOption{recorder.WithoutWarmup()}, 5},
		{"default warmup", nil, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, s := gputest.OpenStream(t, recorder.WithPreEncode(true))
			k := gputest.Kernel(t, d, plusTwoWGSL)
			x, err := recorder.UploadSlice(s, make([]uint32, 64))
			if err != nil {
				t.Fatal(err)
			}
			counts := gputest.UploadU32(t, s, 1000, 1000, 1000) // garbage counts
			good := gputest.UploadU32(t, s, 1, 1, 1)
			g, err := s.Capture(func() error {
				if err := s.Copy(counts, 0, good, 0, 12); err != nil {
					return err
				}
				return s.Launch(k, recorder.Indirect(counts, 0), x)
			}, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, "after the capture", c.runs-5, gputest.ReadU32(t, s, x)[0])
			for range 5 {
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
			}
			gputest.WantEqual(t, "after 5 replays", make([]uint32, 64), sub(gputest.ReadU32(t, s, x), c.runs))
		})
	}
}

func sub(v []uint32, d uint32) []uint32 {
	out := make([]uint32, len(v))
	for i := range v {
		out[i] = v[i] - d
	}
	return out
}
