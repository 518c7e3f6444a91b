package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestSmallRunVerifiesEveryStep decodes a tiny model as a user would and
// checks that the run reports every step verified.
func TestSmallRunVerifiesEveryStep(t *testing.T) {
	gputest.Open(t, wgpu.Options{}) // skips, or fails on CI, where no adapter exists
	var out bytes.Buffer
	if err := run([]string{"-steps", "8", "-hidden", "16", "-vocab", "40", "-seed", "3"}, &out, io.Discard); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"adapter: ", "graph:    6 dispatches", "eager:", "replay:", "verified: 8/8 steps"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestQuickShrinksTheModelUnlessSizesAreGiven: -quick picks a small model
// (hidden 64, vocab 256) but a size given on the command line wins, and on
// a software adapter the run says that the CPU is the GPU there.
func TestQuickShrinksTheModelUnlessSizesAreGiven(t *testing.T) {
	dev := gputest.Open(t, wgpu.Options{})
	var out bytes.Buffer
	if err := run([]string{"-quick", "-steps", "2", "-hidden", "16"}, &out, io.Discard); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	want := []string{"model:    hidden 16, ffn 64, vocab 256;", "verified: 2/2 steps"}
	if dev.Info().Type == wgpu.AdapterCPU {
		want = append(want, "the CPU is the GPU here")
	}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
}

func TestVerifyReportsTheFirstMismatch(t *testing.T) {
	eager := trace{probs: [][]float32{{0.25, 0.75}, {0.5, 0.5}}}
	replay := trace{probs: [][]float32{{0.25, 0.75}, {0.5, 0.5000001}}}
	err := verify(eager, replay)
	if err == nil || !strings.Contains(err.Error(), "step 1") || !strings.Contains(err.Error(), "probs[1]") {
		t.Fatalf("want the mismatch at step 1, probs[1]; got %v", err)
	}
	if err := verify(eager, eager); err != nil {
		t.Fatalf("identical traces: %v", err)
	}
	if err := verify(trace{probs: [][]float32{{0, 0}}}, trace{probs: [][]float32{{0, 0}}}); err == nil {
		t.Fatal("an all-zero output is not a distribution and must not verify")
	}
}

func TestSampleWalksTheCDF(t *testing.T) {
	p := []float32{0.1, 0.2, 0.3, 0.4}
	for _, c := range []struct {
		u    float64
		want int
	}{{0, 0}, {0.05, 0}, {0.1, 1}, {0.35, 2}, {0.99, 3}, {0.999999999, 3}} {
		if got := sample(p, c.u); got != c.want {
			t.Errorf("sample(%v, %v) = %d, want %d", p, c.u, got, c.want)
		}
	}
}

func TestBadSizesAreRefused(t *testing.T) {
	if err := run([]string{"-steps", "0"}, &bytes.Buffer{}, io.Discard); err == nil {
		t.Fatal("-steps 0 must be refused")
	}
}
