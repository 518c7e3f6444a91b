package wgpu

import "github.com/cogentcore/webgpu/wgpu"

// allocationGranule is what an allocation cap is rounded down to: a
// buffer's memory requirement is its size rounded up to the driver's
// alignment (at most 64 KiB on the drivers measured), so a size at or
// below a cap that is a multiple of it also needs no more than the cap.
const allocationGranule = 64 << 10

// allocationCap is the largest buffer the adapter gi can allocate in one
// piece where wgpu-native's limits say more, 0 when unknown. On Vulkan it
// is the smaller of the device's maxMemoryAllocationSize (wgpu-hal's
// allocator refuses anything larger with "Not enough memory left") and its
// largest DEVICE_LOCAL heap, rounded down to allocationGranule. Why:
// wgpu-native reports maxBufferSize as 2^64-1 on NVIDIA (2^62 as softgraph
// requests it) while the H200's driver states a maxMemoryAllocationSize of
// about 4 GiB, so every Empty from 4 GiB to the reported maximum failed.
// Other backends report what wgpu-hal reports (OpenGL: 2^31-1).
func allocationCap(gi wgpu.AdapterInfo) uint64 {
	if backendOf(gi.BackendType) != BackendVulkan {
		return 0
	}
	var limit uint64
	for _, m := range vkDevices() {
		if !m.is(gi) {
			continue
		}
		c := m.maxAllocation
		if m.largestHeap > 0 {
			c = min(c, m.largestHeap)
		}
		// Identical GPUs state identical limits; were two to differ
		// under one name, the smaller holds for both.
		if limit == 0 || c < limit {
			limit = c
		}
	}
	return limit &^ (allocationGranule - 1)
}

// is reports whether m is the physical device behind gi: the same vendor
// and device ids (wgpu-native v22 reports the device id as the adapter's
// name, "0x0" on lavapipe, and Vulkan's device name as its description).
func (m vkMemory) is(gi wgpu.AdapterInfo) bool {
	return m.vendor == gi.VendorId && m.device == gi.DeviceId
}

// capLimits lowers l's buffer sizes to what one allocation can hold (cap,
// from allocationCap; 0 leaves l as it is). A binding is never larger than
// the buffer it views, so the binding limits are capped too.
func capLimits(l Limits, cap uint64) Limits {
	if cap == 0 {
		return l
	}
	l.MaxBufferSize = min(l.MaxBufferSize, cap)
	l.MaxStorageBufferBindingSize = min(l.MaxStorageBufferBindingSize, l.MaxBufferSize)
	l.MaxUniformBufferBindingSize = min(l.MaxUniformBufferBindingSize, l.MaxBufferSize)
	return l
}
