package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestDevicesRunReplaysTheLoadedGraphOnEveryDeviceAndReportsTheScaling runs
// -devices 2 -quick as the multi-GPU measurement does (here two devices on
// one adapter, lavapipe or llvmpipe GL under SOFTGRAPH_BACKEND=gl, standing
// in for two GPUs) on a chain and a Life config, and checks the report:
// both devices listed, per-device figures for each, the aggregate and the
// scaling the quotients of the medians they come from, and every device's
// eager and replay results verified (the second device replayed the graph
// it loaded from the first one's file, and it computed), in a report that
// fits 120 columns.
func TestDevicesRunReplaysTheLoadedGraphOnEveryDeviceAndReportsTheScaling(t *testing.T) {
	gputest.Open(t, wgpu.Options{}) // skips, or fails on CI, where no adapter exists
	if testing.Short() {
		t.Skip("a -devices run takes several seconds")
	}
	configs := []string{"tiny_x150", "life64_g2_x200"}
	jsonPath := filepath.Join(gputest.TempDir(t), "devices.json")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-devices", "2", "-quick", "-configs", strings.Join(configs, ","), "-json", jsonPath}, &stdout, &stderr); err != nil {
		t.Fatalf("run -devices 2: %v\n%s", err, stderr.String())
	}
	for _, s := range []string{"adapter: ", "device 0: ", "device 1: ", "scaling"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("the output must show %q:\n%s", s, stdout.String())
		}
	}
	checkFits(t, "-devices 2", stdout.String())
	rep := readReport(t, jsonPath)
	if len(rep.DeviceList) != 2 || rep.DeviceList[0] != rep.Adapter || len(rep.Rows) != 0 {
		t.Fatalf("a -devices report lists its 2 devices (the first is the adapter) and no one-device rows: %q, %d rows", rep.DeviceList, len(rep.Rows))
	}
	var got []string
	for _, r := range rep.Scaling {
		got = append(got, r.Config)
	}
	if d := cmp.Diff(configs, got); d != "" {
		t.Fatalf("one scaling row per config (-want +got):\n%s", d)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }
	for _, r := range rep.Scaling {
		if r.Devices != 2 || r.Rounds < 3 || r.FileBytes <= 0 {
			t.Errorf("%s: 2 devices, at least 3 rounds and the graph file's size: %+v", r.Config, r)
		}
		for _, p := range scalingPaths {
			sp, ok := r.Paths[p]
			if !ok {
				t.Errorf("%s: path %s missing", r.Config, p)
				continue
			}
			if len(sp.PerDeviceUS) != 2 || len(sp.PerDeviceKps) != 2 || len(sp.Verified) != 2 {
				t.Errorf("%s %s: per-device figures for both devices: %+v", r.Config, p, sp)
				continue
			}
			if d := cmp.Diff([]bool{true, true}, sp.Verified); d != "" {
				t.Errorf("%s %s: every device's result must hold what its dispatches compute (-want +got):\n%s\n%q", r.Config, p, d, sp.VerifyError)
			}
			if !(sp.OneUS > 0) || !(sp.WallUS > 0) || sp.OneMinUS > sp.OneUS || sp.OneMaxUS < sp.OneUS || sp.WallMinUS > sp.WallUS || sp.WallMaxUS < sp.WallUS {
				t.Errorf("%s %s: pass times must be positive and ordered: %+v", r.Config, p, sp)
			}
			one := float64(r.Kernels) / (sp.OneUS / 1e6)
			agg := float64(2*r.Kernels) / (sp.WallUS / 1e6)
			if !near(sp.OneKps, one) || !near(sp.AggregateKps, agg) || !near(sp.Scaling, agg/one) {
				t.Errorf("%s %s: throughputs are dispatches over the median pass and scaling their quotient: one %v (want %v), aggregate %v (want %v), scaling %v (want %v)",
					r.Config, p, sp.OneKps, one, sp.AggregateKps, agg, sp.Scaling, agg/one)
			}
			// No device's own pass outlasts the wall time of the passes run
			// at once, which runs from their release to the last Sync: in
			// every round, so in the medians too.
			for i, us := range sp.PerDeviceUS {
				if !(us > 0) || us > sp.WallUS || !near(sp.PerDeviceKps[i], float64(r.Kernels)/(us/1e6)) {
					t.Errorf("%s %s: device %d's median pass %v µs must be within the wall time %v µs, and its throughput %v its dispatches over it", r.Config, p, i, us, sp.WallUS, sp.PerDeviceKps[i])
				}
			}
		}
	}
}

// TestDevicesFlagRefusesWhatItCannotDo: -devices takes "all" or a count of
// at least 1, and measures scaling only, so the one-device outputs (-svg,
// -save, -merge) and the one-device path filter (-paths) are refused with it
// rather than silently not written or not applied.
func TestDevicesFlagRefusesWhatItCannotDo(t *testing.T) {
	for _, args := range [][]string{
		{"-devices", "0"},
		{"-devices", "two"},
		{"-devices", "2", "-svg", "x.svg"},
		{"-devices", "2", "-save", "dir"},
		{"-devices", "all", "-merge", "a.json"},
		{"-devices", "2", "-paths", "replay"},
	} {
		if err := run(args, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "-devices") {
			t.Errorf("run %q must be refused naming -devices, got %v", args, err)
		}
	}
	if n, all, err := parseDevices("all"); err != nil || !all || n != 0 {
		t.Errorf(`parseDevices("all") = %d, %v, %v; want all`, n, all, err)
	}
	if n, all, err := parseDevices("2"); err != nil || all || n != 2 {
		t.Errorf(`parseDevices("2") = %d, %v, %v; want 2`, n, all, err)
	}
}
