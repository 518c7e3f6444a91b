package wgpu_test

import (
	"errors"
	"testing"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

func TestKernelOverrideWithoutAnyValueIsACompileError(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	src := `override n: u32;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1) fn main() { o[0] = n; }`
	_, err := d.Kernel(src, "main")
	var ce *wgpu.CompileError
	if !errors.As(err, &ce) || !errors.Is(err, wgpu.ErrCompile) {
		t.Fatalf("an override with no value and no default: err = %v, want a *CompileError wrapping ErrCompile", err)
	}
	// A constants key naming no override stays the caller's bad argument.
	_, err = d.Kernel(src, "main", wgpu.WithConstants(map[string]float64{"n": 1, "m": 2}))
	if !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Fatalf("a constants key naming no override: err = %v, want ErrInvalidArgument", err)
	}
	if _, err := d.Kernel(src, "main", wgpu.WithConstants(map[string]float64{"n": 1})); err != nil {
		t.Fatalf("the override given a value: %v", err)
	}
}
