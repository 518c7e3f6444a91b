package recorder_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// TestEveryNodeKindRoundTripsThroughSaveLoadRebindAndString: a graph
// holding a command of every kind the graph file registers (a dispatch, a
// copy, a clear) keeps each one, in order and doing what it did, through
// Save and LoadGraph and through a Rebind of a buffer every one of them
// uses, and String and WriteDOT describe the copies alike. Each kind is its
// own type behind one interface (recorder/node.go); a kind whose save,
// load, rebinding or description were missing or wrong would come back
// different here. A kind registered in the file format but absent from
// this graph fails the test, so the sample grows with the kinds.
func TestEveryNodeKindRoundTripsThroughSaveLoadRebindAndString(t *testing.T) {
	d, s := gputest.OpenStream(t)
	add := gputest.Kernel(t, d, gputest.AddOneWGSL)
	const n = 64
	a := gputest.Upload(t, s, gputest.Ramp(n, 1))
	a.SetLabel("input")
	b := gputest.Empty(t, s, a.Size())
	c := gputest.Empty(t, s, a.Size())
	// b = a+1 with its first half cleared afterwards; c = a+1, copied
	// before the clear.
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(add, recorder.Groups(1, 1, 1), a, b, gputest.U32(n)); err != nil {
			t.Fatal(err)
		}
		if err := s.Copy(c, 0, b, 0, b.Size()); err != nil {
			t.Fatal(err)
		}
		if err := s.Clear(b, 0, b.Size()/2); err != nil {
			t.Fatal(err)
		}
	})
	cmds := recorder.Commands(g)
	var kinds []uint8
	for _, cd := range cmds {
		kinds = append(kinds, cd.Kind)
	}
	if diff := cmp.Diff(recorder.RegisteredNodeKinds(), kinds); diff != "" {
		t.Fatalf("the sample graph holds one command of every registered kind, in tag order (-registered +sample):\n%s", diff)
	}
	wantC := gputest.Plus(gputest.Ramp(n, 1), 1)
	wantB := append(gputest.Fill(n/2, 0), wantC[n/2:]...)
	check := func(what string, s *recorder.Stream, g *recorder.Graph, b, c *recorder.Buffer) {
		t.Helper()
		if err := g.Replay(); err != nil {
			t.Fatalf("%s: Replay: %v", what, err)
		}
		gputest.WantFloats(t, what+": the dispatch's output, half cleared", wantB, gputest.Read(t, s, b))
		gputest.WantFloats(t, what+": the copy of the dispatch's output", wantC, gputest.Read(t, s, c))
	}
	check("the captured graph", s, g, b, c)
	// String ends with the bytes pinned, which depend on the pages the
	// pool handed out; everything before them describes the commands.
	described := func(g *recorder.Graph) string {
		str, _, _ := strings.Cut(g.String(), "; pinned")
		return str
	}
	dot := func(g *recorder.Graph) string {
		var w bytes.Buffer
		if err := g.WriteDOT(&w); err != nil {
			t.Fatal(err)
		}
		return w.String()
	}

	s2 := gputest.Stream(t, d)
	lg, _ := saveLoad(t, g, s2, true)
	if diff := cmp.Diff(cmds, recorder.Commands(lg)); diff != "" {
		t.Errorf("a saved and loaded graph has the commands it was saved with (-saved +loaded):\n%s", diff)
	}
	if diff := cmp.Diff(described(g), described(lg)); diff != "" {
		t.Errorf("String describes a loaded graph as the graph it was saved from (-saved +loaded):\n%s", diff)
	}
	if diff := cmp.Diff(dot(g), dot(lg)); diff != "" {
		t.Errorf("WriteDOT draws a loaded graph as the graph it was saved from (-saved +loaded):\n%s", diff)
	}
	lb := lg.Buffers()
	if len(lb) != 3 {
		t.Fatalf("the loaded graph binds %d buffers, want 3 (input, output, copy)", len(lb))
	}
	check("the loaded graph", s2, lg, lb[1], lb[2])

	// b is the dispatch's output, the copy's source and the clear's
	// destination: rebinding it rebinds a command of every kind.
	b2 := gputest.Empty(t, s, b.Size())
	rg, err := g.Rebind(b, b2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rg.Release)
	if diff := cmp.Diff(cmds, recorder.Commands(rg)); diff != "" {
		t.Errorf("a rebound graph has the commands of its graph (-graph +rebound):\n%s", diff)
	}
	if diff := cmp.Diff(described(g), described(rg)); diff != "" {
		t.Errorf("String describes a rebound graph, which binds buffers of the same sizes, as its graph (-graph +rebound):\n%s", diff)
	}
	if diff := cmp.Diff(dot(g), dot(rg)); diff != "" {
		t.Errorf("WriteDOT draws a rebound graph as its graph (-graph +rebound):\n%s", diff)
	}
	if err := s.Write(c, 0, make([]byte, c.Size())); err != nil {
		t.Fatal(err)
	}
	check("the rebound graph", s, rg, b2, c)
	// The original still binds b.
	check("the graph after its Rebind", s, g, b, c)
}
