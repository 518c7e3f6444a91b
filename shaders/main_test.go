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
