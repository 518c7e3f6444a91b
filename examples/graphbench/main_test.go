package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestQuickRunWritesCompleteJSONAndEveryPathComputed runs the benchmark as
// a user would with -quick -configs tiny_x150, and checks that the JSON has
// every field for every path and that every path's result buffer held the
// expected value (the paths computed, they were not just timed).
func TestQuickRunWritesCompleteJSONAndEveryPathComputed(t *testing.T) {
	gputest.Open(t, wgpu.Options{}) // skips, or fails on CI, where no adapter exists
	dir := flatTempDir(t)
	jsonPath, svgPath := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.svg")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-quick", "-configs", "tiny_x150", "-json", jsonPath, "-svg", svgPath}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "adapter: ") || !strings.Contains(stdout.String(), "tiny_x150") {
		t.Fatalf("the table starts with the adapter and lists the config:\n%s", stdout.String())
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	if rep.Adapter == "" || len(rep.Rows) != 1 {
		t.Fatalf("want the adapter and one row, got adapter=%q rows=%d", rep.Adapter, len(rep.Rows))
	}
	r := rep.Rows[0]
	if r.Config != "tiny_x150" || r.Elems != 64 || r.Kernels != 150 || r.Rounds < 3 {
		t.Fatalf("row identity: %+v", r)
	}
	// Timings are checked for presence, sign and order, not for being
	// positive: a clock that ticks coarsely (Go's on Windows reads the
	// interrupt time, which wine on CI's Windows leg updates in steps of
	// milliseconds) reads a short interval as zero. That every path ran is
	// what Verified proves below.
	measured := func(m map[string]float64, p string) bool {
		v, ok := m[p]
		return ok && v >= 0 // false for NaN too
	}
	for _, p := range paths {
		if !measured(r.E2E, p) || !measured(r.E2EMin, p) || !measured(r.E2EMax, p) || r.E2EMin[p] > r.E2E[p] || r.E2EMax[p] < r.E2E[p] {
			t.Errorf("path %s: e2e median %v, min %v, max %v must be present, non-negative and ordered", p, r.E2E[p], r.E2EMin[p], r.E2EMax[p])
		}
	}
	for _, p := range []string{"eager", "replay", "replay_inline"} {
		if !measured(r.Enqueue, p) {
			t.Errorf("enqueue µs/pass of %s must be present and non-negative, got %v", p, r.Enqueue[p])
		}
	}
	if !(r.Share >= 0) || !(r.CaptureMS >= 0) || len(r.Ratios) != 3 {
		t.Errorf("share %v and capture_ms %v must be non-negative, with 3 ratios: %v", r.Share, r.CaptureMS, r.Ratios)
	}
	want := map[string]bool{"eager": true, "replay": true, "replay_inline": true, "raw": true, "gpu": true}
	if d := cmp.Diff(want, r.Verified); d != "" {
		t.Fatalf("every path's result buffer must hold passes×kernels (-want +got):\n%s\n%v", d, r.VerifyError)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil || !bytes.HasPrefix(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("tiny_x150")) {
		t.Fatalf("the SVG chart is missing or empty: %v", err)
	}
}

// flatTempDir is t.TempDir for a directory that holds only files: its
// cleanup removes each file and then the directory with os.Remove, and fails
// the test if any is left. t.TempDir's cleanup uses os.RemoveAll, which on
// Windows deletes through NtSetInformationFile's FileDispositionInformationEx;
// wine 8 (CI's Windows leg) does not implement it and answers "Invalid
// function", a status Go does not fall back from, so the cleanup failed the
// test. os.Remove uses DeleteFileW and RemoveDirectoryW, which wine has.
func flatTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "graphbench-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Errorf("the test's directory must be readable at cleanup: %v", err)
			return
		}
		for _, e := range entries {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				t.Errorf("the test's output must be removable: %v", err)
			}
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("the test's directory must be removable: %v", err)
		}
	})
	return dir
}

func TestUnknownConfigIsRefusedWithTheList(t *testing.T) {
	err := run([]string{"-configs", "nope"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "tiny_x150") {
		t.Fatalf("an unknown config must be refused listing the known ones, got %v", err)
	}
}
