package recorder_test

import (
	"fmt"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// TestAWriteWaitsForHandedOffLaunchesThatUseItsBuffer: with every launch
// handed to the background submitter at once (chunks of one), a Write to a
// buffer an earlier launch reads must still land after that launch: the
// submitter may not have submitted it yet, and a queue write overtakes
// everything unsubmitted. Without the submitter the same holds.
func TestAWriteWaitsForHandedOffLaunchesThatUseItsBuffer(t *testing.T) {
	for _, async := range []bool{true, false} {
		t.Run(fmt.Sprintf("background=%v", async), func(t *testing.T) {
			d, s := gputest.OpenStream(t, recorder.WithSubmitChunks(1, 1), recorder.WithBackgroundSubmit(async))
			k := gputest.Kernel(t, d, gputest.AddOneWGSL)
			x := gputest.Upload(t, s, gputest.Fill(64, 1))
			outs := make([]*recorder.Buffer, 20)
			for i := range outs {
				outs[i] = gputest.Empty(t, s, x.Size())
				if err := s.Launch(k, recorder.Groups(1, 1, 1), x, outs[i], gputest.U32(64)); err != nil {
					t.Fatal(err)
				}
				if err := recorder.WriteSlice(s, x, 0, gputest.Fill(64, float32(i+2))); err != nil {
					t.Fatal(err)
				}
			}
			for i, o := range outs {
				gputest.WantEqual(t, fmt.Sprintf("launch %d read x before the write after it", i), gputest.Fill(64, float32(i+2)), gputest.Read(t, s, o))
			}
		})
	}
}

// TestLongChainsComputeWithAndWithoutTheSubmitter: a long chain of
// dependent launches, and replays of a graph, split across many handed-off
// batches, compute the same as without the submitter.
func TestLongChainsComputeWithAndWithoutTheSubmitter(t *testing.T) {
	for _, async := range []bool{true, false} {
		t.Run(fmt.Sprintf("background=%v", async), func(t *testing.T) {
			d, s := gputest.OpenStream(t, recorder.WithSubmitChunks(4, 16), recorder.WithBackgroundSubmit(async))
			k := gputest.Kernel(t, d, gputest.AddOneWGSL)
			a := gputest.Upload(t, s, gputest.Ramp(64, 0))
			b := gputest.Empty(t, s, a.Size())
			out := gputest.MustChain(t, s, k, a, b, 300, 64)
			gputest.WantEqual(t, "300 chained add-ones", gputest.Plus(gputest.Ramp(64, 0), 300), gputest.Read(t, s, out))
			g := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, b, 2, 64) })
			for range 100 {
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
			}
			gputest.WantEqual(t, "warmup and 100 replays of 2 add-ones after the chain", gputest.Plus(gputest.Ramp(64, 0), 300+2+200), gputest.Read(t, s, a))
		})
	}
}
