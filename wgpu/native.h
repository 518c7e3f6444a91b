// softgraph's view of wgpu-native v22 (webgpu.h / wgpu.h as shipped by
// github.com/cogentcore/webgpu v0.23.0): only the types and entry points that
// binding does not wrap, or wraps in a way softgraph cannot use, restated
// field for field. The symbols are in the libwgpu_native static library that
// cogentcore links. Enums are passed as uint32_t (same size and ABI).
#ifndef SOFTGRAPH_NATIVE_H
#define SOFTGRAPH_NATIVE_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t WGPUBool;
typedef uint64_t WGPUSubmissionIndex;
typedef struct WGPUInstanceImpl* WGPUInstance;
typedef struct WGPUAdapterImpl* WGPUAdapter;
typedef struct WGPUDeviceImpl* WGPUDevice;
typedef struct WGPUQueueImpl* WGPUQueue;
typedef struct WGPUBufferImpl* WGPUBuffer;
typedef struct WGPUBindGroupImpl* WGPUBindGroup;
typedef struct WGPUComputePipelineImpl* WGPUComputePipeline;
typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;
typedef struct WGPUCommandBufferImpl* WGPUCommandBuffer;
typedef struct WGPUComputePassEncoderImpl* WGPUComputePassEncoder;
typedef struct WGPUQuerySetImpl* WGPUQuerySet;

typedef struct WGPUChainedStruct {
	struct WGPUChainedStruct const * next;
	uint32_t sType;
} WGPUChainedStruct;

typedef struct WGPUChainedStructOut {
	struct WGPUChainedStructOut * next;
	uint32_t sType;
} WGPUChainedStructOut;

typedef struct WGPULimits {
	uint32_t maxTextureDimension1D;
	uint32_t maxTextureDimension2D;
	uint32_t maxTextureDimension3D;
	uint32_t maxTextureArrayLayers;
	uint32_t maxBindGroups;
	uint32_t maxBindGroupsPlusVertexBuffers;
	uint32_t maxBindingsPerBindGroup;
	uint32_t maxDynamicUniformBuffersPerPipelineLayout;
	uint32_t maxDynamicStorageBuffersPerPipelineLayout;
	uint32_t maxSampledTexturesPerShaderStage;
	uint32_t maxSamplersPerShaderStage;
	uint32_t maxStorageBuffersPerShaderStage;
	uint32_t maxStorageTexturesPerShaderStage;
	uint32_t maxUniformBuffersPerShaderStage;
	uint64_t maxUniformBufferBindingSize;
	uint64_t maxStorageBufferBindingSize;
	uint32_t minUniformBufferOffsetAlignment;
	uint32_t minStorageBufferOffsetAlignment;
	uint32_t maxVertexBuffers;
	uint64_t maxBufferSize;
	uint32_t maxVertexAttributes;
	uint32_t maxVertexBufferArrayStride;
	uint32_t maxInterStageShaderComponents;
	uint32_t maxInterStageShaderVariables;
	uint32_t maxColorAttachments;
	uint32_t maxColorAttachmentBytesPerSample;
	uint32_t maxComputeWorkgroupStorageSize;
	uint32_t maxComputeInvocationsPerWorkgroup;
	uint32_t maxComputeWorkgroupSizeX;
	uint32_t maxComputeWorkgroupSizeY;
	uint32_t maxComputeWorkgroupSizeZ;
	uint32_t maxComputeWorkgroupsPerDimension;
} WGPULimits;

// sg_err receives the first error an operation's scopes caught (type 0: none).
typedef struct {
	uint32_t type;
	char message[2048];
} sg_err;

// sg_task is one prebuilt dispatch of a replay.
typedef struct {
	WGPUComputePipeline pipeline;
	WGPUBindGroup group;
	WGPUBuffer indirect; // NULL for a direct dispatch
	uint64_t offset;
	uint32_t x, y, z;
} sg_task;

// Device, instance and logging (native.c).
WGPUInstance sg_create_instance(uint32_t backends);
void sg_adapter_limits(WGPUAdapter adapter, WGPULimits * out);
void sg_device_limits(WGPUDevice device, WGPULimits * out);
WGPUDevice sg_request_device(WGPUAdapter adapter, uint32_t const * features, size_t nfeatures, uintptr_t id, sg_err * out);
void sg_install_log(uint32_t level);
void sg_push_oom(WGPUDevice device);
void sg_pop_oom(WGPUDevice device, sg_err * out);

// Encoding (native.c).
WGPUCommandEncoder sg_encoder(WGPUDevice d, sg_err * e);
WGPUComputePassEncoder sg_pass(WGPUCommandEncoder enc, WGPUQuerySet set, uint32_t begin, uint32_t end);
void sg_pass_end(WGPUDevice d, WGPUComputePassEncoder pass, sg_err * e);
void sg_encode(WGPUComputePassEncoder pass, sg_task const * tasks, size_t from, size_t to, WGPUComputePipeline * last);
void sg_copy(WGPUDevice d, WGPUCommandEncoder enc, WGPUBuffer src, uint64_t so, WGPUBuffer dst, uint64_t dOff, uint64_t size, sg_err * e);
void sg_resolve(WGPUDevice d, WGPUCommandEncoder enc, WGPUQuerySet set, uint32_t first, uint32_t count, WGPUBuffer dst, uint64_t off, sg_err * e);
WGPUCommandBuffer sg_finish(WGPUDevice d, WGPUCommandEncoder enc, sg_err * e);
WGPUSubmissionIndex sg_submit(WGPUQueue q, WGPUCommandBuffer cb);

// wgpu-native entry points called directly from Go.
void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline);
void wgpuComputePassEncoderSetBindGroup(WGPUComputePassEncoder pass, uint32_t index, WGPUBindGroup group, size_t n, uint32_t const * offsets);
void wgpuComputePassEncoderDispatchWorkgroups(WGPUComputePassEncoder pass, uint32_t x, uint32_t y, uint32_t z);
void wgpuComputePassEncoderDispatchWorkgroupsIndirect(WGPUComputePassEncoder pass, WGPUBuffer buffer, uint64_t offset);
void wgpuCommandEncoderRelease(WGPUCommandEncoder encoder);
void wgpuCommandBufferRelease(WGPUCommandBuffer cb);

#endif
