package recorder_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestKernelLabelsNameGraphCommands: kernels whose entry points are all
// "main" are told apart by their wgpu.WithLabel labels in Graph.String,
// WriteDOT and ReplayProfile, and a graph file keeps the labels. Without
// labels the text reads "main ×1, main#2 ×1", which says nothing.
func TestKernelLabelsNameGraphCommands(t *testing.T) {
	d, s := gputest.OpenStream(t)
	inc := gputest.Kernel(t, d, plusTwoWGSL, wgpu.WithLabel("increment"))
	mul := gputest.Kernel(t, d, timesThreePlusOneWGSL, wgpu.WithLabel("times3plus1"))
	plain := gputest.Kernel(t, d, plusTwoWGSL)
	if inc == plain || inc.Label() != "increment" || plain.Label() != "" || inc.Name() != "increment" || plain.Name() != "main" {
		t.Fatalf("a label is part of a kernel's identity: labelled %p %q, plain %p %q", inc, inc.Label(), plain, plain.Label())
	}
	x, err := recorder.UploadSlice(s, make([]uint32, 64))
	if err != nil {
		t.Fatal(err)
	}
	g := gputest.Capture(t, s, func() {
		for _, k := range []*wgpu.Kernel{inc, mul, inc} {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x); err != nil {
				t.Fatal(err)
			}
		}
	})
	check := func(what string, g *recorder.Graph) {
		t.Helper()
		text := g.String()
		for _, want := range []string{"increment ×2", "times3plus1 ×1"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: Graph.String must name kernels by label (%q): %s", what, want, text)
			}
		}
		var dot bytes.Buffer
		if err := g.WriteDOT(&dot); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(dot.String(), "increment") || !strings.Contains(dot.String(), "times3plus1") {
			t.Errorf("%s: WriteDOT must name kernels by label:\n%s", what, dot.String())
		}
		p, err := s.ProfileReplay(g)
		if err != nil {
			t.Fatal(err)
		}
		if p.Method == recorder.ProfileTimestamps {
			var names []string
			for _, dt := range p.Dispatches {
				names = append(names, dt.Kernel)
			}
			gputest.WantEqual(t, what+": ReplayProfile names dispatches by label", []string{"increment", "times3plus1", "increment"}, names)
		}
	}
	check("captured graph", g)
	var file bytes.Buffer
	if _, err := g.WriteTo(&file); err != nil {
		t.Fatal(err)
	}
	lg, err := s.LoadGraph(&file)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Release()
	check("loaded graph", lg)
}
