package softadapter

import (
	"strings"
	"testing"

	"github.com/softgraph/softgraph/wgpu"
)

// TestNoteOnlyForSoftwareAdapters: the note is printed for an adapter of
// type CPU and for no other.
func TestNoteOnlyForSoftwareAdapters(t *testing.T) {
	if n := Note(wgpu.AdapterInfo{Name: "llvmpipe", Type: wgpu.AdapterCPU}); !strings.Contains(n, "the CPU is the GPU") {
		t.Errorf("a CPU adapter must get the note; got %q", n)
	}
	for _, line := range strings.Split(Note(wgpu.AdapterInfo{Type: wgpu.AdapterCPU}), "\n") {
		if len([]rune(line)) > 120 {
			t.Errorf("the note is printed under a report that fits 120 columns; this line is %d: %q", len([]rune(line)), line)
		}
	}
	for _, typ := range []wgpu.AdapterType{wgpu.AdapterUnknown, wgpu.AdapterDiscrete, wgpu.AdapterIntegrated} {
		if n := Note(wgpu.AdapterInfo{Type: typ}); n != "" {
			t.Errorf("a %s adapter must get no note; got %q", typ, n)
		}
	}
}
