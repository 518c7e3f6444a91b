package wgpu

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAdaptersRankPrimaryHardwareFirstSoftwareLast: a GPU on the
// platform's primary backend beats one elsewhere, any GPU beats a software
// adapter, and among software adapters the primary backend comes first.
// Ranking by device type alone picked wine's DX12 adapter, which cannot
// compile compute kernels, over working Vulkan ones.
func TestAdaptersRankPrimaryHardwareFirstSoftwareLast(t *testing.T) {
	primary := primaryBackends()[0]
	other := BackendDX12
	if primary == BackendDX12 || slices.Contains(primaryBackends(), BackendDX12) {
		other = BackendGL
	}
	in := []AdapterInfo{
		{Name: "cpu-gl", Backend: BackendGL, Type: AdapterCPU},
		{Name: "cpu-primary", Backend: primary, Type: AdapterCPU},
		{Name: "integrated-other", Backend: other, Type: AdapterIntegrated},
		{Name: "discrete-other", Backend: other, Type: AdapterDiscrete},
		{Name: "integrated-primary", Backend: primary, Type: AdapterIntegrated},
		{Name: "discrete-primary", Backend: primary, Type: AdapterDiscrete},
	}
	slices.SortStableFunc(in, func(a, b AdapterInfo) int { return rank(a) - rank(b) })
	var got []string
	for _, a := range in {
		got = append(got, a.Name)
	}
	want := []string{"discrete-primary", "integrated-primary", "discrete-other", "integrated-other", "cpu-primary", "cpu-gl"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("ranking on %s (-want +got):\n%s", runtime.GOOS, d)
	}
	if !strings.Contains(RankReason(in[0]), "primary backend") || !strings.Contains(RankReason(in[5]), "software") {
		t.Errorf("RankReason must say why: %q, %q", RankReason(in[0]), RankReason(in[5]))
	}
}

// TestNoAdapterHintsFitTheOperatingSystem: the hint for a machine with no
// adapter names what to install there, not Debian packages everywhere.
func TestNoAdapterHintsFitTheOperatingSystem(t *testing.T) {
	for goos, want := range map[string]string{
		"linux":   "apt-get install mesa-vulkan-drivers",
		"windows": "SOFTGRAPH_FALLBACK=1",
		"darwin":  "Metal is built into macOS",
	} {
		h := noAdapterHint(goos)
		if !strings.Contains(h, want) {
			t.Errorf("%s: hint %q must mention %q", goos, h, want)
		}
		if goos != "linux" && strings.Contains(h, "apt-get") {
			t.Errorf("%s: hint %q must not tell users to run apt-get", goos, h)
		}
	}
}
