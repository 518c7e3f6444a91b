// Package gputest holds the one rule every GPU test in softgraph follows
// when it needs a device: open the default adapter (or the one the
// SOFTGRAPH_* variables pick), skip cleanly on a machine with none, but fail
// instead when SOFTGRAPH_REQUIRE_GPU=1 (CI sets it), so GPU tests cannot
// pass by skipping where a GPU is expected. It is test support, imported
// only by _test.go files.
package gputest

import (
	"errors"
	"os"
	"testing"

	"github.com/softgraph/softgraph/wgpu"
)

// Required reports whether a missing adapter must fail the test run.
func Required() bool { return os.Getenv("SOFTGRAPH_REQUIRE_GPU") == "1" }

// SkipIfNoAdapter skips t when err says no adapter exists and GPUs are not
// required; any other error is left to the caller.
func SkipIfNoAdapter(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, wgpu.ErrNoAdapter) && !Required() {
		t.Skipf("no adapter: %v", err)
	}
}

// Open opens a device with o for the test, following the rule above, and
// closes it when the test ends.
func Open(t testing.TB, o wgpu.Options) *wgpu.Device {
	t.Helper()
	d, err := wgpu.Open(o)
	SkipIfNoAdapter(t, err)
	if err != nil {
		t.Fatalf("wgpu.Open(%+v): %v", o, err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}
