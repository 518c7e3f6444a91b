//go:build !unix || darwin || ios

package wgpu

// vkMemory is what Vulkan says about one physical device's memory.
type vkMemory struct {
	vendor, device uint32
	name           string
	maxAllocation  uint64
	largestHeap    uint64
}

// vkDevices answers nil here: softgraph asks Vulkan through dlopen, which
// this platform does not have (on Windows the Vulkan limits stay as
// wgpu-native reports them).
func vkDevices() []vkMemory { return nil }
