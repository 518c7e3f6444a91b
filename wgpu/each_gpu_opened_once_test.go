package wgpu

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOpenAllOpensEachGPUOnceOnTheBestBackend: of the ranked adapters,
// OpenAll keeps those on the best one's backend and of its class. A
// platform with two native APIs lists each GPU once per API (Windows: the
// same GPUs on Vulkan and DX12), so taking every hardware adapter would
// open each GPU twice; and software adapters stand in only where no GPU
// exists, so a machine with GPUs never gets a lavapipe device among them,
// while one without (CI) gets its software adapters rather than nothing.
func TestOpenAllOpensEachGPUOnceOnTheBestBackend(t *testing.T) {
	names := func(in []AdapterInfo, keep []bool) []string {
		var out []string
		for i, a := range in {
			if keep[i] {
				out = append(out, a.Name)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   []AdapterInfo // ranked, best first
		want []string
	}{
		{"two GPUs listed by two APIs", []AdapterInfo{
			{Name: "gpu0-vk", Backend: BackendVulkan, Type: AdapterDiscrete},
			{Name: "gpu1-vk", Backend: BackendVulkan, Type: AdapterDiscrete},
			{Name: "gpu0-dx12", Backend: BackendDX12, Type: AdapterDiscrete},
			{Name: "igpu-vk", Backend: BackendVulkan, Type: AdapterIntegrated},
			{Name: "igpu-dx12", Backend: BackendDX12, Type: AdapterIntegrated},
			{Name: "lavapipe", Backend: BackendVulkan, Type: AdapterCPU},
		}, []string{"gpu0-vk", "gpu1-vk", "igpu-vk"}},
		{"software only", []AdapterInfo{
			{Name: "lavapipe", Backend: BackendVulkan, Type: AdapterCPU},
			{Name: "llvmpipe", Backend: BackendGL, Type: AdapterCPU},
		}, []string{"lavapipe"}},
		{"GL asked for", []AdapterInfo{
			{Name: "llvmpipe", Backend: BackendGL, Type: AdapterCPU},
		}, []string{"llvmpipe"}},
		{"nothing", nil, nil},
	} {
		if d := cmp.Diff(tc.want, names(tc.in, setOf(tc.in))); d != "" {
			t.Errorf("%s: the adapters OpenAll opens (-want +got):\n%s", tc.name, d)
		}
	}
}
