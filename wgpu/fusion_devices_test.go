package wgpu

import "testing"

// TestChainedFloatsFuseOnlyOnTheMeasuredDevices: fusion trusts kernels
// chaining float operations to llvmpipe (lavapipe and its GL) and to
// NVIDIA's GL driver, where the differential sweeps measured them exact,
// and to no other device, NVIDIA's Vulkan driver included.
func TestChainedFloatsFuseOnlyOnTheMeasuredDevices(t *testing.T) {
	for _, c := range []struct {
		info AdapterInfo
		want bool
	}{
		{AdapterInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Backend: BackendVulkan, Type: AdapterCPU}, true},
		{AdapterInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Backend: BackendGL, Type: AdapterCPU}, true},
		{AdapterInfo{Name: "NVIDIA H200/PCIe/SSE2", Backend: BackendGL}, true},
		{AdapterInfo{Name: "Quadro", Vendor: "NVIDIA Corporation", Backend: BackendGL}, true},
		{AdapterInfo{Name: "NVIDIA H100 80GB HBM3", Backend: BackendVulkan}, false},
		{AdapterInfo{Name: "AMD Radeon RX 7900 XTX (RADV NAVI31)", Backend: BackendVulkan}, false},
		{AdapterInfo{Name: "Apple M2", Backend: BackendMetal}, false},
		{AdapterInfo{Name: "Microsoft Basic Render Driver", Backend: BackendDX12, Type: AdapterCPU}, false},
		{AdapterInfo{}, false},
	} {
		if got := fusesChainedFloats(c.info); got != c.want {
			t.Errorf("fusesChainedFloats(%v) = %v, want %v", c.info, got, c.want)
		}
	}
}
