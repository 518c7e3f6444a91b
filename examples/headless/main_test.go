package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

func TestSelfCheckPassesOnTheDefaultAdapter(t *testing.T) {
	gputest.Open(t, wgpu.Options{}) // skips, or fails on CI, where no adapter exists
	var out bytes.Buffer
	if err := run(nil, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "self-check passed on ") {
		t.Fatalf("output lacks the success line:\n%s", out.String())
	}
}

// TestMissingAdapterFailsWithWhatWasFound: a CI job asking for an adapter
// the machine lacks must fail, with wgpu.Open's list of what it found.
func TestMissingAdapterFailsWithWhatWasFound(t *testing.T) {
	err := run([]string{"-adapter", "no-such-adapter-3f9c"}, &bytes.Buffer{})
	if !errors.Is(err, wgpu.ErrNoAdapter) {
		t.Fatalf("want an error wrapping wgpu.ErrNoAdapter, got %v", err)
	}
	if !strings.Contains(err.Error(), "found") {
		t.Fatalf("the error must list what was found: %v", err)
	}
}
