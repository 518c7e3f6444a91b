//go:build unix && !darwin && !ios

package wgpu

// #include <stdlib.h>
// #include "vkmemory.h"
import "C"

import (
	"sync"
	"unsafe"
)

// vkMemory is what Vulkan says about one physical device's memory.
type vkMemory struct {
	vendor, device uint32
	name           string
	maxAllocation  uint64 // maxMemoryAllocationSize; MaxUint64 when the device states none
	largestHeap    uint64 // the largest DEVICE_LOCAL heap; 0 when none
}

// vkDevices asks Vulkan, once per process, about every physical device's
// memory (vkmemory.c makes an instance of its own for it: wgpu-native v22
// exposes neither the physical device nor its memory properties). nil when
// Vulkan cannot be asked.
var vkDevices = sync.OnceValue(func() []vkMemory {
	const max = 64
	p := (*C.sg_vk_device)(C.calloc(max, C.size_t(unsafe.Sizeof(C.sg_vk_device{}))))
	defer C.free(unsafe.Pointer(p))
	n := int(C.sg_vk_memory(p, max))
	if n <= 0 {
		return nil
	}
	out := make([]vkMemory, n)
	for i, d := range unsafe.Slice(p, n) {
		out[i] = vkMemory{
			vendor:        uint32(d.vendor),
			device:        uint32(d.device),
			name:          C.GoString(&d.name[0]),
			maxAllocation: uint64(d.max_allocation),
			largestHeap:   uint64(d.largest_heap),
		}
	}
	return out
})
