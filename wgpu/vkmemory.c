//go:build unix && !darwin && !ios

// sg_vk_memory: the largest single allocation a Vulkan physical device
// allows, read from Vulkan itself because wgpu-native v22 exposes neither
// the physical device nor its memory properties. See vkmemory_unix.go.
//
// It makes a Vulkan instance of its own through the loader (dlopen, as
// wgpu-hal does), reads every physical device's identity,
// VkPhysicalDeviceMaintenance3Properties::maxMemoryAllocationSize (Vulkan
// 1.1; the limit wgpu-hal hands its allocator, gpu-alloc, which refuses any
// larger allocation with "out of device memory") and the heaps its
// DEVICE_LOCAL memory types use, and destroys the instance. The structs are
// declared here with the layouts of vulkan_core.h (no Vulkan headers are
// needed to build).
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vkmemory.h"

typedef struct VkInstance_T * VkInstance;
typedef struct VkPhysicalDevice_T * VkPhysicalDevice;
typedef int32_t VkResult;
typedef void (*PFN_vkVoidFunction)(void);
typedef PFN_vkVoidFunction (*PFN_vkGetInstanceProcAddr)(VkInstance, char const *);

typedef struct {
	int32_t sType; // VK_STRUCTURE_TYPE_APPLICATION_INFO = 0
	void const * pNext;
	char const * pApplicationName;
	uint32_t applicationVersion;
	char const * pEngineName;
	uint32_t engineVersion;
	uint32_t apiVersion;
} VkApplicationInfo;

typedef struct {
	int32_t sType; // VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO = 1
	void const * pNext;
	uint32_t flags;
	VkApplicationInfo const * pApplicationInfo;
	uint32_t enabledLayerCount;
	char const * const * ppEnabledLayerNames;
	uint32_t enabledExtensionCount;
	char const * const * ppEnabledExtensionNames;
} VkInstanceCreateInfo;

// The head of VkPhysicalDeviceProperties (what is read), then room for the
// rest (824 bytes in all on LP64); it is 8-byte aligned like the real one,
// whose limits hold VkDeviceSize fields.
typedef struct {
	uint32_t apiVersion;
	uint32_t driverVersion;
	uint32_t vendorID;
	uint32_t deviceID;
	uint32_t deviceType;
	char deviceName[256];
	uint8_t rest[2048];
} __attribute__((aligned(8))) sg_vk_props;

typedef struct {
	int32_t sType; // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2 = 1000059001
	void * pNext;
	sg_vk_props properties;
} VkPhysicalDeviceProperties2;

typedef struct {
	int32_t sType; // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES = 1000168000
	void * pNext;
	uint32_t maxPerSetDescriptors;
	uint64_t maxMemoryAllocationSize;
} VkPhysicalDeviceMaintenance3Properties;

typedef struct {
	uint32_t propertyFlags;
	uint32_t heapIndex;
} VkMemoryType;

typedef struct {
	uint64_t size;
	uint32_t flags;
} VkMemoryHeap;

typedef struct {
	uint32_t memoryTypeCount;
	VkMemoryType memoryTypes[32];
	uint32_t memoryHeapCount;
	VkMemoryHeap memoryHeaps[16];
} VkPhysicalDeviceMemoryProperties;

#define VK_API_VERSION_1_1 ((1u << 22) | (1u << 12))
#define VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT 0x1u

typedef VkResult (*PFN_vkCreateInstance)(VkInstanceCreateInfo const *, void const *, VkInstance *);
typedef void (*PFN_vkDestroyInstance)(VkInstance, void const *);
typedef VkResult (*PFN_vkEnumeratePhysicalDevices)(VkInstance, uint32_t *, VkPhysicalDevice *);
typedef void (*PFN_vkGetPhysicalDeviceProperties)(VkPhysicalDevice, sg_vk_props *);
typedef void (*PFN_vkGetPhysicalDeviceProperties2)(VkPhysicalDevice, VkPhysicalDeviceProperties2 *);
typedef void (*PFN_vkGetPhysicalDeviceMemoryProperties)(VkPhysicalDevice, VkPhysicalDeviceMemoryProperties *);

int sg_vk_memory(sg_vk_device * out, int max) {
	void * lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) lib = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) return -1;
	int n = -1;
	PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
	PFN_vkCreateInstance create = gipa ? (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance") : NULL;
	if (create == NULL) goto out;
	VkApplicationInfo app;
	memset(&app, 0, sizeof app);
	app.sType = 0;
	app.pApplicationName = "softgraph memory limits";
	app.apiVersion = VK_API_VERSION_1_1;
	VkInstanceCreateInfo ci;
	memset(&ci, 0, sizeof ci);
	ci.sType = 1;
	ci.pApplicationInfo = &app;
	VkInstance inst = NULL;
	if (create(&ci, NULL, &inst) != 0 || inst == NULL) goto out;
	PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)gipa(inst, "vkDestroyInstance");
	PFN_vkEnumeratePhysicalDevices enumerate = (PFN_vkEnumeratePhysicalDevices)gipa(inst, "vkEnumeratePhysicalDevices");
	PFN_vkGetPhysicalDeviceProperties props = (PFN_vkGetPhysicalDeviceProperties)gipa(inst, "vkGetPhysicalDeviceProperties");
	PFN_vkGetPhysicalDeviceProperties2 props2 = (PFN_vkGetPhysicalDeviceProperties2)gipa(inst, "vkGetPhysicalDeviceProperties2");
	PFN_vkGetPhysicalDeviceMemoryProperties memprops = (PFN_vkGetPhysicalDeviceMemoryProperties)gipa(inst, "vkGetPhysicalDeviceMemoryProperties");
	uint32_t count = 0;
	if (destroy == NULL || enumerate == NULL || props == NULL || memprops == NULL || enumerate(inst, &count, NULL) < 0) {
		if (destroy != NULL) destroy(inst, NULL);
		goto out;
	}
	VkPhysicalDevice * pds = calloc(count ? count : 1, sizeof *pds);
	if (pds == NULL || enumerate(inst, &count, pds) < 0) {
		free(pds);
		destroy(inst, NULL);
		goto out;
	}
	n = 0;
	for (uint32_t i = 0; i < count && n < max; i++) {
		sg_vk_device * d = &out[n++];
		memset(d, 0, sizeof *d);
		sg_vk_props p;
		memset(&p, 0, sizeof p);
		props(pds[i], &p);
		d->vendor = p.vendorID;
		d->device = p.deviceID;
		memcpy(d->name, p.deviceName, sizeof d->name - 1);
		d->max_allocation = UINT64_MAX; // no maintenance3: no stated limit
		if (props2 != NULL && p.apiVersion >= VK_API_VERSION_1_1) {
			VkPhysicalDeviceMaintenance3Properties m3;
			memset(&m3, 0, sizeof m3);
			m3.sType = 1000168000;
			VkPhysicalDeviceProperties2 p2;
			memset(&p2, 0, sizeof p2);
			p2.sType = 1000059001;
			p2.pNext = &m3;
			props2(pds[i], &p2);
			if (m3.maxMemoryAllocationSize != 0) d->max_allocation = m3.maxMemoryAllocationSize;
		}
		VkPhysicalDeviceMemoryProperties mp;
		memset(&mp, 0, sizeof mp);
		memprops(pds[i], &mp);
		for (uint32_t t = 0; t < mp.memoryTypeCount && t < 32; t++) {
			uint32_t h = mp.memoryTypes[t].heapIndex;
			if ((mp.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) && h < mp.memoryHeapCount && h < 16 &&
			    mp.memoryHeaps[h].size > d->largest_heap) {
				d->largest_heap = mp.memoryHeaps[h].size;
			}
		}
	}
	free(pds);
	destroy(inst, NULL);
out:
	// The loader stays loaded: wgpu-hal holds it too, and unloading a
	// driver some instance still uses is what not to risk.
	return n;
}
