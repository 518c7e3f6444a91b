package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestThreeWaysSolveIdentically: the host loop, the fixed graph and the
// While graph end with the same grid bit for bit after the same number of
// iterations (run checks every solve), and the JSON says so. The run is a
// -quick one (a 32×32 grid) with -rounds given, which wins over -quick's 3,
// and on a software adapter it says that the CPU is the GPU there.
func TestThreeWaysSolveIdentically(t *testing.T) {
	dev := gputest.Open(t, wgpu.Options{}) // skip-or-require before the program opens its own
	info := dev.Info()
	dev.Close()
	js := filepath.Join(gputest.TempDir(t), "solver.json")
	var out bytes.Buffer
	if err := run([]string{"-quick", "-sweeps", "4", "-tol", "1e-3", "-rounds", "2", "-json", js}, &out, io.Discard); err != nil {
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
	if r.N != 32 || r.Rounds != 2 {
		t.Errorf("-quick -rounds 2 must solve a 32×32 grid in 2 rounds; got %d×%d in %d", r.N, r.N, r.Rounds)
	}
	if note := "the CPU is the GPU here"; info.Type == wgpu.AdapterCPU && !strings.Contains(out.String(), note) {
		t.Errorf("on a software adapter the output must say %q:\n%s", note, out.String())
	}
}
