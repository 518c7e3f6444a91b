package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestThreeWaysSolveIdentically: the host loop, the fixed graph and the
// While graph end with the same grid bit for bit after the same number of
// iterations (run checks every solve), and the JSON says so.
func TestThreeWaysSolveIdentically(t *testing.T) {
	gputest.Open(t, wgpu.Options{}).Close() // skip-or-require before the program opens its own
	js := filepath.Join(gputest.TempDir(t), "solver.json")
	var out bytes.Buffer
	if err := run([]string{"-n", "32", "-sweeps", "4", "-tol", "1e-3", "-rounds", "2", "-json", js}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Identical || r.Iterations < 2 || r.MaxIterations < r.Iterations || r.MedianUS["while"] <= 0 {
		t.Fatalf("the result must record identical solves of at least 2 iterations: %+v\n%s", r, out.String())
	}
}
