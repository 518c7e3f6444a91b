package wgpu_test

import (
	"testing"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestWithLabelIsPartOfAKernelsIdentity: the device's kernel cache keys on
// the label too, so one source and entry compiled under two labels are two
// Kernels, each answering its own Label, and the same label returns the
// cached one. A label that is not UTF-8 is refused like an entry.
func TestWithLabelIsPartOfAKernelsIdentity(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	const src = `@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@compute @workgroup_size(1) fn main() { x[0] = 1u; }`
	a := gputest.Kernel(t, d, src, wgpu.WithLabel("a"))
	a2 := gputest.Kernel(t, d, src, wgpu.WithLabel("a"))
	b := gputest.Kernel(t, d, src, wgpu.WithLabel("b"))
	plain := gputest.Kernel(t, d, src)
	if a != a2 || a == b || a == plain {
		t.Fatalf("cache identity: a=%p a again=%p b=%p unlabelled=%p; want a == a again, all others distinct", a, a2, b, plain)
	}
	got := [][2]string{{a.Label(), a.Name()}, {b.Label(), b.Name()}, {plain.Label(), plain.Name()}}
	gputest.WantEqual(t, "Label and Name", [][2]string{{"a", "a"}, {"b", "b"}, {"", "main"}}, got)
	_, err := d.Kernel(src, "main", wgpu.WithLabel("\xff"))
	gputest.WantErr(t, "a label that is not UTF-8", err, []error{wgpu.ErrInvalidArgument}, "label")
}
