package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/wgpu"
)

func openDevice(t *testing.T) *wgpu.Device {
	t.Helper()
	d, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		if errors.Is(err, wgpu.ErrNoAdapter) && os.Getenv("SOFTGRAPH_REQUIRE_GPU") != "1" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestFusedForwardHasAThirdFewerDispatchesAndTheSameLogits: the forward
// pass's bias, GELU and residual kernels fuse into the matrix multiplies
// that produce their inputs, removing at least 30% of the dispatches, and
// the fused graph's logits equal the plain graph's bit for bit.
func TestFusedForwardHasAThirdFewerDispatchesAndTheSameLogits(t *testing.T) {
	d := openDevice(t)
	sh := shape{T: 16, D: 64, H: 4, L: 2, V: 256}
	r, err := compare(d, sh, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 14*sh.L + 2; r.Plain != want {
		t.Errorf("plain graph has %d dispatches, want %d", r.Plain, want)
	}
	if r.Fused*10 > r.Plain*7 {
		t.Errorf("fused graph has %d dispatches of %d: fewer than 30%% removed\n%s", r.Fused, r.Plain, r.FusedChains)
	}
	if !strings.Contains(r.FusedChains, "matmul+add_bias+residual") || !strings.Contains(r.FusedChains, "matmul+add_bias+gelu") {
		t.Errorf("the fused graph lacks the epilogues: %s", r.FusedChains)
	}
	if !r.LogitsBitIdentical {
		t.Error("the fused graph's logits differ from the plain graph's (or are not finite)")
	}
}

// TestQuickRunReportsTheComparison: -quick runs end to end and prints the
// figures the README quotes.
func TestQuickRunReportsTheComparison(t *testing.T) {
	openDevice(t)
	var out bytes.Buffer
	if err := run([]string{"-quick"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"dispatches per forward: 31 plain, 17 fused", "logits bit-identical fused and plain: true", "median of 5 interleaved rounds"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
