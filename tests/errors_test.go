package tests

import (
	"errors"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestDeferredErrorCountsEveryDispatchLostWithTheBatch: with pre-encoding
// off, a batch holding one eager launch and one replay of a 5-dispatch
// graph that the device refuses (faulty fails its command buffer) reports a
// Flush *DeferredError with Lost = 6, and none of the 6 dispatches ran.
// Without it the replay's 5 dispatches were dropped with the batch but
// Lost said 1.
func TestDeferredErrorCountsEveryDispatchLostWithTheBatch(t *testing.T) {
	d, s, f := faultyStream(t, recorder.WithPreEncode(false))
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	y := gputest.Upload(t, s, gputest.Fill(64, 0))
	g := gputest.Capture(t, s, func() {
		for range 5 {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
				t.Fatal(err)
			}
		}
	})
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	f.FailFinishes(1)
	if err := s.Launch(k, recorder.Groups(1, 1, 1), y, gputest.F32(1)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	err := s.Sync()
	var de *recorder.DeferredError
	if !errors.As(err, &de) || de.Op != "Flush" || !errors.Is(err, wgpu.ErrValidation) {
		t.Fatalf("the refused batch is reported as a Flush *recorder.DeferredError wrapping the validation error, got %T %v", err, err)
	}
	if de.Lost != 6 {
		t.Fatalf("Lost counts every dispatch dropped with the batch, the replay's 5 included: got %d, want 6", de.Lost)
	}
	gputest.WantEqual(t, "the replay's dispatches were lost (the warmup's 5 ran)", gputest.Fill(64, 5), gputest.Read(t, s, x))
	gputest.WantEqual(t, "the eager launch was lost", gputest.Fill(64, 0), gputest.Read(t, s, y))
}

// TestErrorsMatchTheirDocumentedTypes: every documented error type is
// reachable with errors.As and matches its documented sentinels with
// errors.Is: *recorder.Error, *CaptureError (ErrGraphState and each
// cause), *StepError (the step's error), *DeferredError (the device's
// *wgpu.DeviceError), *GraphFileError (ErrGraphFile), *wgpu.CompileError
// (ErrCompile), *wgpu.Error, and lifecycle's *StateError.
func TestErrorsMatchTheirDocumentedTypes(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())

	err := s.Write(a, 3, make([]byte, 4))
	var re *recorder.Error
	if !errors.As(err, &re) || re.Op != "Write" || !errors.Is(err, recorder.ErrInvalidArgument) || !strings.Contains(re.Arg, "offset=3") {
		t.Errorf("Write at 3: want a *recorder.Error{Op: Write, Arg naming offset=3} wrapping ErrInvalidArgument, got %#v", err)
	}

	if err := s.BeginCapture(); err == nil {
		t.Fatal("BeginCapture without GraphPrepare must fail")
	} else if !errors.Is(err, lifecycle.ErrGraphState) {
		t.Errorf("BeginCapture without GraphPrepare: want ErrGraphState, got %v", err)
	} else {
		var se *lifecycle.StateError
		if !errors.As(err, &se) {
			t.Errorf("BeginCapture without GraphPrepare: want a *lifecycle.StateError inside, got %#v", err)
		}
	}

	sentinel := errors.New("the step's own error")
	_, err = s.Capture(func() error { return sentinel })
	var step *recorder.StepError
	if !errors.As(err, &step) || !errors.Is(err, sentinel) || step.Run != "warmup" {
		t.Errorf("a failing step: want a *StepError{Run: warmup} wrapping its error, got %#v", err)
	}

	_, err = s.Capture(func() error {
		if s.State() == lifecycle.Capture {
			return recorder.WriteSlice(s, a, 0, []float32{1})
		}
		return nil
	})
	var ce *recorder.CaptureError
	if !errors.As(err, &ce) || !errors.Is(err, lifecycle.ErrGraphState) || len(ce.Causes) == 0 || ce.Op != "EndCapture" {
		t.Errorf("a Write while recording: want a *CaptureError{Op: EndCapture} with causes, matching ErrGraphState, got %#v", err)
	} else {
		for _, c := range ce.Causes {
			if !errors.Is(err, c) {
				t.Errorf("the CaptureError must match its cause %v", c)
			}
		}
	}

	_, err = s.LoadGraph(strings.NewReader("not a graph file"))
	var gfe *recorder.GraphFileError
	if !errors.As(err, &gfe) || !errors.Is(err, recorder.ErrGraphFile) {
		t.Errorf("LoadGraph of junk: want a *GraphFileError wrapping ErrGraphFile, got %#v", err)
	}

	_, err = d.Kernel("fn main( {", "main")
	var cpe *wgpu.CompileError
	if !errors.As(err, &cpe) || !errors.Is(err, wgpu.ErrCompile) {
		t.Errorf("bad WGSL: want a *wgpu.CompileError wrapping ErrCompile, got %#v", err)
	}

	err = s.Launch(k, recorder.Groups(1, 1, 1), a, b)
	if !errors.As(err, &re) || re.Op != "Launch" || !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("a launch missing an argument: want a *recorder.Error{Op: Launch} wrapping ErrInvalidArgument, got %#v", err)
	}

	// Every refusal on a closed stream names ErrClosed, and the Stream's
	// own errors are *recorder.Error.
	s2 := gputest.Stream(t, d)
	c := gputest.Upload(t, s2, gputest.Fill(4, 1))
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"Sync":        s2.Sync,
		"Write":       func() error { return recorder.WriteSlice(s2, c, 0, []float32{1}) },
		"Launch":      func() error { return addOne(s2, k, c, c, 4) },
		"ReadTexture": func() error { _, err := s2.ReadTexture(nil); return err },
		"LoadGraph":   func() error { _, err := s2.LoadGraph(strings.NewReader("")); return err },
		"Trim":        func() error { _, err := s2.Trim(); return err },
	} {
		err := f()
		if !errors.Is(err, recorder.ErrClosed) {
			t.Errorf("%s on a closed stream: want ErrClosed, got %v", name, err)
		}
	}
}
