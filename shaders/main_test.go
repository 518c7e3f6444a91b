package shaders_test

import (
	"os"
	"testing"

	"github.com/softgraph/softgraph/tests/gputest"
)

// TestMain runs the package's tests; its godoc examples need an adapter and
// are left out where none exists (gputest's skip-or-require rule).
func TestMain(m *testing.M) { os.Exit(gputest.MainSkippingExamples(m)) }

// longSweep reports whether exhaustive sweeps run: SOFTGRAPH_LONG=1. The
// default run keeps a representative part of each.
func longSweep() bool { return os.Getenv("SOFTGRAPH_LONG") == "1" }

// skipIfShort skips a GPU test that takes more than about two seconds on a
// software adapter (lavapipe, two cores, -race) when go test runs -short.
func skipIfShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("over 2 s on a software adapter: skipped under -short")
	}
}
