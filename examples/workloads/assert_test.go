package workloads_test

import (
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// wantIdentical fails t unless got equals want element for element; the
// message restates the rule, counts the mismatches and shows the first
// (a full diff of thousands of elements says less).
func wantIdentical[T comparable](t testing.TB, rule string, want, got []T) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: got %d elements, want %d", rule, len(got), len(want))
	}
	first, n := -1, 0
	for i := range want {
		if want[i] != got[i] {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n > 0 {
		t.Fatalf("%s: %d of %d elements differ, the first at [%d]: got %v, want %v", rule, n, len(want), first, got[first], want[first])
	}
}

// openStream is gputest.OpenStream, logging the adapter the test runs on
// (SOFTGRAPH_BACKEND=gl picks OpenGL), since exactness is per backend.
func openStream(t *testing.T, opts ...recorder.Option) *recorder.Stream {
	t.Helper()
	d, s := gputest.OpenStream(t, opts...)
	t.Logf("adapter: %s", d.Info())
	return s
}
