// The C half of softgraph's device layer: see native.h.
#include <stdlib.h>
#include <string.h>

#include "native.h"

typedef struct WGPUSupportedLimits {
	WGPUChainedStructOut * nextInChain;
	WGPULimits limits;
} WGPUSupportedLimits;

typedef struct WGPURequiredLimits {
	WGPUChainedStruct const * nextInChain;
	WGPULimits limits;
} WGPURequiredLimits;

typedef struct WGPUQueueDescriptor {
	WGPUChainedStruct const * nextInChain;
	char const * label;
} WGPUQueueDescriptor;

typedef void (*WGPUDeviceLostCallback)(uint32_t reason, char const * message, void * userdata);
typedef void (*WGPUErrorCallback)(uint32_t type, char const * message, void * userdata);
typedef void (*WGPURequestDeviceCallback)(uint32_t status, WGPUDevice device, char const * message, void * userdata);
typedef void (*WGPULogCallback)(uint32_t level, char const * message, void * userdata);

typedef struct WGPUUncapturedErrorCallbackInfo {
	WGPUChainedStruct const * nextInChain;
	WGPUErrorCallback callback;
	void * userdata;
} WGPUUncapturedErrorCallbackInfo;

typedef struct WGPUDeviceDescriptor {
	WGPUChainedStruct const * nextInChain;
	char const * label;
	size_t requiredFeatureCount;
	uint32_t const * requiredFeatures;
	WGPURequiredLimits const * requiredLimits;
	WGPUQueueDescriptor defaultQueue;
	WGPUDeviceLostCallback deviceLostCallback;
	void * deviceLostUserdata;
	WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
} WGPUDeviceDescriptor;

typedef struct WGPUInstanceExtras {
	WGPUChainedStruct chain;
	uint32_t backends;
	uint32_t flags;
	uint32_t dx12ShaderCompiler;
	uint32_t gles3MinorVersion;
	const char * dxilPath;
	const char * dxcPath;
} WGPUInstanceExtras;

typedef struct WGPUInstanceDescriptor {
	WGPUChainedStruct const * nextInChain;
} WGPUInstanceDescriptor;

typedef struct WGPUComputePassTimestampWrites {
	WGPUQuerySet querySet;
	uint32_t beginningOfPassWriteIndex;
	uint32_t endOfPassWriteIndex;
} WGPUComputePassTimestampWrites;

typedef struct WGPUComputePassDescriptor {
	WGPUChainedStruct const * nextInChain;
	char const * label;
	WGPUComputePassTimestampWrites const * timestampWrites;
} WGPUComputePassDescriptor;

WGPUInstance wgpuCreateInstance(WGPUInstanceDescriptor const * descriptor);
WGPUBool wgpuAdapterGetLimits(WGPUAdapter adapter, WGPUSupportedLimits * limits);
WGPUBool wgpuDeviceGetLimits(WGPUDevice device, WGPUSupportedLimits * limits);
void wgpuAdapterRequestDevice(WGPUAdapter adapter, WGPUDeviceDescriptor const * descriptor, WGPURequestDeviceCallback callback, void * userdata);
void wgpuDevicePushErrorScope(WGPUDevice device, uint32_t filter);
void wgpuDevicePopErrorScope(WGPUDevice device, WGPUErrorCallback callback, void * userdata);
void wgpuSetLogCallback(WGPULogCallback callback, void * userdata);
void wgpuSetLogLevel(uint32_t level);
WGPUCommandEncoder wgpuDeviceCreateCommandEncoder(WGPUDevice device, void const * descriptor);
WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(WGPUCommandEncoder encoder, WGPUComputePassDescriptor const * descriptor);
void wgpuComputePassEncoderEnd(WGPUComputePassEncoder pass);
void wgpuComputePassEncoderRelease(WGPUComputePassEncoder pass);
void wgpuCommandEncoderCopyBufferToBuffer(WGPUCommandEncoder encoder, WGPUBuffer src, uint64_t srcOffset, WGPUBuffer dst, uint64_t dstOffset, uint64_t size);
void wgpuCommandEncoderResolveQuerySet(WGPUCommandEncoder encoder, WGPUQuerySet set, uint32_t first, uint32_t count, WGPUBuffer dst, uint64_t offset);
WGPUCommandBuffer wgpuCommandEncoderFinish(WGPUCommandEncoder encoder, void const * descriptor);
WGPUSubmissionIndex wgpuQueueSubmitForIndex(WGPUQueue queue, size_t count, WGPUCommandBuffer const * commands);

// Go side (exported from native.go).
extern void softgraphDeviceLost(uint32_t reason, char * message, uintptr_t id);
extern void softgraphUncapturedError(uint32_t type, char * message, uintptr_t id);
extern void softgraphNativeLog(uint32_t level, char * message);

static void sg_set_err(sg_err * e, uint32_t type, char const * message) {
	if (type == 0 || e->type != 0) return;
	e->type = type;
	e->message[0] = 0;
	if (message) {
		strncpy(e->message, message, sizeof(e->message) - 1);
		e->message[sizeof(e->message) - 1] = 0;
	}
}

static void sg_err_cb(uint32_t type, char const * message, void * userdata) {
	sg_set_err((sg_err *)userdata, type, message);
}

// cogentcore's CreateInstance mallocs WGPUInstanceExtras and leaves flags
// and gles3MinorVersion uninitialised, so the OpenGL backend intermittently
// reads a garbage GLES minor version and wgpu-native aborts the process.
// Here every field is set.
WGPUInstance sg_create_instance(uint32_t backends) {
	WGPUInstanceExtras extras;
	memset(&extras, 0, sizeof extras);
	extras.chain.sType = 0x00030006; // WGPUSType_InstanceExtras
	extras.backends = backends;
	WGPUInstanceDescriptor desc;
	desc.nextInChain = &extras.chain;
	return wgpuCreateInstance(&desc);
}

// The limits queries pass a zeroed struct with no chain: cogentcore's
// GetLimits chains an uninitialised extras struct.
void sg_adapter_limits(WGPUAdapter adapter, WGPULimits * out) {
	WGPUSupportedLimits s;
	memset(&s, 0, sizeof s);
	wgpuAdapterGetLimits(adapter, &s);
	*out = s.limits;
}

void sg_device_limits(WGPUDevice device, WGPULimits * out) {
	WGPUSupportedLimits s;
	memset(&s, 0, sizeof s);
	wgpuDeviceGetLimits(device, &s);
	*out = s.limits;
}

static void sg_device_lost(uint32_t reason, char const * message, void * userdata) {
	softgraphDeviceLost(reason, (char *)message, (uintptr_t)userdata);
}

static void sg_uncaptured(uint32_t type, char const * message, void * userdata) {
	if (type == 0) return;
	softgraphUncapturedError(type, (char *)message, (uintptr_t)userdata);
}

typedef struct {
	uint32_t status;
	WGPUDevice device;
	sg_err * err;
} sg_device_result;

static void sg_request_cb(uint32_t status, WGPUDevice device, char const * message, void * userdata) {
	sg_device_result * r = (sg_device_result *)userdata;
	r->status = status;
	r->device = device;
	if (status != 0) sg_set_err(r->err, status, message ? message : "request failed");
}

// sg_request_device asks for a device with the adapter's own limits (not the
// WebGPU defaults) and the given features, with the device-lost and
// uncaptured-error callbacks routed to Go under the device's registry id.
// wgpu-native's default uncaptured-error handler panics, which would abort
// the process.
WGPUDevice sg_request_device(WGPUAdapter adapter, uint32_t const * features, size_t nfeatures, uintptr_t id, sg_err * out) {
	WGPUSupportedLimits supported;
	memset(&supported, 0, sizeof supported);
	wgpuAdapterGetLimits(adapter, &supported);

	WGPURequiredLimits required;
	memset(&required, 0, sizeof required);
	required.limits = supported.limits;
	// An adapter may report "no limit" as the all-ones value, which a
	// request reads as WGPU_LIMIT_*_UNDEFINED and replaces with the WebGPU
	// default (NVIDIA's Vulkan maxBufferSize: UINT64_MAX would become
	// 256 MiB). Ask for a defined value within the adapter instead: 2^62
	// bytes for sizes (far beyond any memory, and size arithmetic cannot
	// overflow below it; real exhaustion is reported as out of memory),
	// one less than all-ones for counts.
	WGPULimits * l = &required.limits;
	if (l->maxUniformBufferBindingSize == UINT64_MAX) l->maxUniformBufferBindingSize = (uint64_t)1 << 62;
	if (l->maxStorageBufferBindingSize == UINT64_MAX) l->maxStorageBufferBindingSize = (uint64_t)1 << 62;
	if (l->maxBufferSize == UINT64_MAX) l->maxBufferSize = (uint64_t)1 << 62;
	uint32_t * u32s[] = {
		&l->maxTextureDimension1D, &l->maxTextureDimension2D, &l->maxTextureDimension3D,
		&l->maxTextureArrayLayers, &l->maxBindGroups, &l->maxBindGroupsPlusVertexBuffers,
		&l->maxBindingsPerBindGroup, &l->maxDynamicUniformBuffersPerPipelineLayout,
		&l->maxDynamicStorageBuffersPerPipelineLayout, &l->maxSampledTexturesPerShaderStage,
		&l->maxSamplersPerShaderStage, &l->maxStorageBuffersPerShaderStage,
		&l->maxStorageTexturesPerShaderStage, &l->maxUniformBuffersPerShaderStage,
		&l->maxVertexBuffers, &l->maxVertexAttributes, &l->maxVertexBufferArrayStride,
		&l->maxInterStageShaderComponents, &l->maxInterStageShaderVariables,
		&l->maxColorAttachments, &l->maxColorAttachmentBytesPerSample,
		&l->maxComputeWorkgroupStorageSize, &l->maxComputeInvocationsPerWorkgroup,
		&l->maxComputeWorkgroupSizeX, &l->maxComputeWorkgroupSizeY, &l->maxComputeWorkgroupSizeZ,
		&l->maxComputeWorkgroupsPerDimension,
	};
	for (size_t i = 0; i < sizeof u32s / sizeof u32s[0]; i++) {
		if (*u32s[i] == UINT32_MAX) (*u32s[i])--;
	}

	WGPUDeviceDescriptor desc;
	memset(&desc, 0, sizeof desc);
	desc.label = "softgraph";
	desc.requiredFeatureCount = nfeatures;
	desc.requiredFeatures = features;
	desc.requiredLimits = &required;
	desc.deviceLostCallback = sg_device_lost;
	desc.deviceLostUserdata = (void *)id;
	desc.uncapturedErrorCallbackInfo.callback = sg_uncaptured;
	desc.uncapturedErrorCallbackInfo.userdata = (void *)id;

	sg_device_result r;
	memset(&r, 0, sizeof r);
	r.err = out;
	out->type = 0;
	wgpuAdapterRequestDevice(adapter, &desc, sg_request_cb, &r);
	if (r.status != 0) return NULL;
	return r.device;
}

static void sg_log(uint32_t level, char const * message, void * userdata) {
	(void)userdata;
	softgraphNativeLog(level, (char *)message);
}

void sg_install_log(uint32_t level) {
	wgpuSetLogCallback(sg_log, NULL);
	wgpuSetLogLevel(level);
}

// wgpu-native v22 has two scope filters, validation (0) and out-of-memory
// (1); any other value panics inside it. cogentcore scopes its calls for
// validation; softgraph adds out-of-memory around them.
void sg_push_oom(WGPUDevice device) { wgpuDevicePushErrorScope(device, 1); }

void sg_pop_oom(WGPUDevice device, sg_err * out) {
	out->type = 0;
	wgpuDevicePopErrorScope(device, sg_err_cb, out);
}

// Validation inside out-of-memory, for softgraph's own calls.
static void sg_push(WGPUDevice d) {
	wgpuDevicePushErrorScope(d, 1);
	wgpuDevicePushErrorScope(d, 0);
}

static void sg_pop(WGPUDevice d, sg_err * e) {
	wgpuDevicePopErrorScope(d, sg_err_cb, e);
	wgpuDevicePopErrorScope(d, sg_err_cb, e);
}

WGPUCommandEncoder sg_encoder(WGPUDevice d, sg_err * e) {
	e->type = 0;
	sg_push(d);
	WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(d, NULL);
	sg_pop(d, e);
	if (e->type != 0 && enc) {
		wgpuCommandEncoderRelease(enc);
		return NULL;
	}
	return enc;
}

WGPUComputePassEncoder sg_pass(WGPUCommandEncoder enc, WGPUQuerySet set, uint32_t begin, uint32_t end) {
	if (!set) return wgpuCommandEncoderBeginComputePass(enc, NULL);
	WGPUComputePassTimestampWrites ts = { set, begin, end };
	WGPUComputePassDescriptor desc;
	memset(&desc, 0, sizeof desc);
	desc.timestampWrites = &ts;
	return wgpuCommandEncoderBeginComputePass(enc, &desc);
}

// End the pass and release it (wgpu-native wants it released after End and
// before Finish). Errors of any command in the pass are reported here.
void sg_pass_end(WGPUDevice d, WGPUComputePassEncoder pass, sg_err * e) {
	e->type = 0;
	sg_push(d);
	wgpuComputePassEncoderEnd(pass);
	sg_pop(d, e);
	wgpuComputePassEncoderRelease(pass);
}

// sg_encode encodes tasks[from:to) into the pass, skipping SetPipeline when
// the pipeline is the one set last; *last carries that across calls.
void sg_encode(WGPUComputePassEncoder pass, sg_task const * tasks, size_t from, size_t to, WGPUComputePipeline * last) {
	WGPUComputePipeline cur = *last;
	for (size_t i = from; i < to; i++) {
		sg_task const * t = &tasks[i];
		if (t->pipeline != cur) {
			wgpuComputePassEncoderSetPipeline(pass, t->pipeline);
			cur = t->pipeline;
		}
		wgpuComputePassEncoderSetBindGroup(pass, 0, t->group, 0, NULL);
		if (t->indirect) {
			wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass, t->indirect, t->offset);
		} else {
			wgpuComputePassEncoderDispatchWorkgroups(pass, t->x, t->y, t->z);
		}
	}
	*last = cur;
}

void sg_copy(WGPUDevice d, WGPUCommandEncoder enc, WGPUBuffer src, uint64_t so, WGPUBuffer dst, uint64_t dOff, uint64_t size, sg_err * e) {
	e->type = 0;
	sg_push(d);
	wgpuCommandEncoderCopyBufferToBuffer(enc, src, so, dst, dOff, size);
	sg_pop(d, e);
}

void sg_resolve(WGPUDevice d, WGPUCommandEncoder enc, WGPUQuerySet set, uint32_t first, uint32_t count, WGPUBuffer dst, uint64_t off, sg_err * e) {
	e->type = 0;
	sg_push(d);
	wgpuCommandEncoderResolveQuerySet(enc, set, first, count, dst, off);
	sg_pop(d, e);
}

// sg_finish finishes and releases the encoder. On error it returns NULL and
// no command buffer exists, so nothing invalid can reach Submit.
WGPUCommandBuffer sg_finish(WGPUDevice d, WGPUCommandEncoder enc, sg_err * e) {
	e->type = 0;
	sg_push(d);
	WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
	sg_pop(d, e);
	wgpuCommandEncoderRelease(enc);
	if (e->type != 0) {
		if (cb) wgpuCommandBufferRelease(cb);
		return NULL;
	}
	return cb;
}

WGPUSubmissionIndex sg_submit(WGPUQueue q, WGPUCommandBuffer cb) {
	WGPUSubmissionIndex idx = wgpuQueueSubmitForIndex(q, 1, &cb);
	wgpuCommandBufferRelease(cb);
	return idx;
}
