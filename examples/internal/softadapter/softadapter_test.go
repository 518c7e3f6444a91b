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
	for _, typ := range []wgpu.AdapterType{wgpu.AdapterUnknown, wgpu.AdapterDiscrete, wgpu.AdapterIntegrated} {
		if n := Note(wgpu.AdapterInfo{Type: typ}); n != "" {
			t.Errorf("a %s adapter must get no note; got %q", typ, n)
		}
	}
}
