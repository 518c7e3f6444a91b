package recorder_test

import (
	"testing"

	"github.com/softgraph/softgraph/recorder"
)

// TestChainComputesEagerly: 150 dependent launches ping-pong between two
// buffers; the result is the input plus 150.
func TestChainComputesEagerly(t *testing.T) {
	d, s := openStream(t)
	k := kernel(t, d, addOneWGSL)
	in := iota(100, 0)
	a := upload(t, s, in)
	b, err := s.Empty(a.Size())
	if err != nil {
		t.Fatal(err)
	}
	out := chain(t, s, k, a, b, 150, 100)
	wantEqual(t, "150 chained add-ones", plus(in, 150), read(t, s, out))
}

// TestCaptureReplaysExactly is the capture issue's done-criterion: a
// 150-launch ping-pong with params metadata; warmup + 2 replays = 3 passes
// of results; then an input rewrite feeds the next replay.
func TestCaptureReplaysExactly(t *testing.T) {
	d, s := openStream(t)
	k := kernel(t, d, addOneWGSL)
	in := iota(100, 0)
	a := upload(t, s, in)
	b, err := s.Empty(a.Size())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	chain(t, s, k, a, b, 150, 100) // warmup: a = in + 150
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	chain(t, s, k, a, b, 150, 100) // recorded, not run
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	wantEqual(t, "after warmup only (the capture must not run)", plus(in, 150), read(t, s, a))
	for range 2 {
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	wantEqual(t, "warmup + 2 replays", plus(in, 450), read(t, s, a))
	if err := recorder.WriteSlice(s, a, 0, fill(100, -1000)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "a rewritten input feeds the next replay", fill(100, -850), read(t, s, a))
	wantEqual(t, "Len", 150, g.Len())
}
