// sg_vk_memory (vkmemory.c): what Vulkan says about the memory of each
// physical device. Unix but not Apple.
#ifndef SG_VKMEMORY_H
#define SG_VKMEMORY_H

#include <stdint.h>

typedef struct sg_vk_device {
	uint32_t vendor, device;  // VkPhysicalDeviceProperties' vendorID and deviceID
	char name[256];           // its deviceName
	uint64_t max_allocation;  // maxMemoryAllocationSize (Vulkan 1.1), UINT64_MAX when not stated
	uint64_t largest_heap;    // the largest heap a DEVICE_LOCAL memory type uses, 0 when none
} sg_vk_device;

// sg_vk_memory fills out with up to max devices and returns how many, or
// -1 when Vulkan cannot be asked (no loader, no instance).
int sg_vk_memory(sg_vk_device * out, int max);

#endif
