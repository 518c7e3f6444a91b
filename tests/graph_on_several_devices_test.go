package tests

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestAGraphCapturedOnOneDeviceReplaysFromItsFileOnAnother is the
// multi-device method: a graph is captured on the first device, written as
// a graph file with its buffers' contents, and loaded from the file on a
// second device (OpenN: a second lavapipe device stands in for a second
// GPU where the machine has one adapter; SOFTGRAPH_BACKEND=gl runs it on
// OpenGL). Each device then replays its graph from its own goroutine at the
// same time, and both end with the same contents: what the chain computes.
// The loaded graph is the second device's own (its kernels compiled there,
// its buffers made there), so the two never touch each other's objects.
func TestAGraphCapturedOnOneDeviceReplaysFromItsFileOnAnother(t *testing.T) {
	const (
		elems   = 256
		chain   = 8 // dispatches per graph, even: the result lands back in a
		replays = 20
	)
	devs, err := wgpu.OpenN(wgpu.Options{}, 2)
	gputest.SkipIfNoAdapter(t, err)
	if err != nil {
		t.Fatalf("OpenN(2): %v", err)
	}
	for _, d := range devs {
		t.Cleanup(func() { d.Close() })
	}
	t.Logf("devices: %s, %s", devs[0].Info(), devs[1].Info())

	s0 := gputest.Stream(t, devs[0])
	k := gputest.Kernel(t, devs[0], gputest.AddOneWGSL)
	init := gputest.Ramp(elems, 1)
	a, b := gputest.Upload(t, s0, init), gputest.Empty(t, s0, elems*4)
	// The capture's warm-up runs the chain once: a holds init + chain.
	g0 := gputest.Capture(t, s0, func() { gputest.MustChain(t, s0, k, a, b, chain, elems) })
	var file bytes.Buffer
	if _, err := g0.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatalf("Save: %v", err)
	}

	s1 := gputest.Stream(t, devs[1])
	g1, err := s1.LoadGraph(bytes.NewReader(file.Bytes()))
	if err != nil {
		t.Fatalf("LoadGraph on the second device: %v", err)
	}
	t.Cleanup(g1.Release)
	if g1.Stream() != s1 || s1.Device() != devs[1] {
		t.Fatal("the loaded graph must belong to the second device's stream")
	}

	graphs := []*recorder.Graph{g0, g1}
	t.Run("side by side", func(t *testing.T) {
		for i, g := range graphs {
			t.Run(fmt.Sprintf("device%d", i), func(t *testing.T) {
				t.Parallel()
				for range replays {
					if err := g.Replay(); err != nil {
						t.Fatalf("Replay: %v", err)
					}
				}
				if err := g.Stream().Sync(); err != nil {
					t.Fatalf("Sync: %v", err)
				}
			})
		}
	})
	contents := func(g *recorder.Graph) [][]float32 {
		var out [][]float32
		for _, buf := range g.Buffers() {
			out = append(out, gputest.Read(t, g.Stream(), buf))
		}
		return out
	}
	got0, got1 := contents(g0), contents(g1)
	if d := cmp.Diff(gputest.Plus(init, chain*(1+replays)), gputest.Read(t, s0, a)); d != "" {
		t.Errorf("the first device's chain result after the warm-up and %d replays (-want +got):\n%s", replays, d)
	}
	if d := cmp.Diff(got0, got1); d != "" {
		t.Errorf("the graph loaded from the file on the second device must compute what the captured one computes on the first (-first +second):\n%s", d)
	}
}
