package wgpu

// This file declares the few wgpu-native entry points that
// github.com/cogentcore/webgpu v0.23.0 does not wrap: a device request that
// installs the uncaptured-error and device-lost callbacks, compute passes with
// timestamp writes, raw error scopes that report the error type, and the
// native log callback. The symbols come from the libwgpu_native static
// library that cogentcore links; the declarations below restate the parts of
// webgpu.h / wgpu.h (wgpu-native v22) they need, field for field.

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t WGPUBool;
typedef struct WGPUInstanceImpl* WGPUInstance;
typedef struct WGPUAdapterImpl* WGPUAdapter;
typedef struct WGPUDeviceImpl* WGPUDevice;
typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;
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

WGPUInstance wgpuCreateInstance(WGPUInstanceDescriptor const * descriptor);
WGPUBool wgpuAdapterGetLimits(WGPUAdapter adapter, WGPUSupportedLimits * limits);
WGPUBool wgpuDeviceGetLimits(WGPUDevice device, WGPUSupportedLimits * limits);
void wgpuAdapterRequestDevice(WGPUAdapter adapter, WGPUDeviceDescriptor const * descriptor, WGPURequestDeviceCallback callback, void * userdata);
WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(WGPUCommandEncoder encoder, WGPUComputePassDescriptor const * descriptor);
void wgpuDeviceReference(WGPUDevice device);
void wgpuDevicePushErrorScope(WGPUDevice device, uint32_t filter);
void wgpuDevicePopErrorScope(WGPUDevice device, WGPUErrorCallback callback, void * userdata);
void wgpuSetLogCallback(WGPULogCallback callback, void * userdata);
void wgpuSetLogLevel(uint32_t level);

extern void softgraphDeviceLost(uint32_t reason, char * message, uintptr_t id);
extern void softgraphUncapturedError(uint32_t type, char * message, uintptr_t id);
extern void softgraphNativeLog(uint32_t level, char * message);

static void sg_device_lost(uint32_t reason, char const * message, void * userdata) {
	softgraphDeviceLost(reason, (char *)message, (uintptr_t)userdata);
}
static void sg_uncaptured(uint32_t type, char const * message, void * userdata) {
	if (type == 0) return;
	softgraphUncapturedError(type, (char *)message, (uintptr_t)userdata);
}
static void sg_log(uint32_t level, char const * message, void * userdata) {
	softgraphNativeLog(level, (char *)message);
}
static void sg_install_log(uint32_t level) {
	wgpuSetLogCallback(sg_log, NULL);
	wgpuSetLogLevel(level);
}

// sg_create_instance creates an instance with every extras field set.
// cogentcore's CreateInstance mallocs WGPUInstanceExtras and leaves flags and
// gles3MinorVersion uninitialised, so the OpenGL backend intermittently reads
// a garbage GLES minor version and wgpu-native aborts the process.
static WGPUInstance sg_create_instance(uint32_t backends) {
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
static void sg_adapter_limits(WGPUAdapter adapter, WGPULimits * out) {
	WGPUSupportedLimits s;
	memset(&s, 0, sizeof s);
	wgpuAdapterGetLimits(adapter, &s);
	*out = s.limits;
}
static void sg_device_limits(WGPUDevice device, WGPULimits * out) {
	WGPUSupportedLimits s;
	memset(&s, 0, sizeof s);
	wgpuDeviceGetLimits(device, &s);
	*out = s.limits;
}

typedef struct {
	uint32_t status;
	WGPUDevice device;
	char message[512];
} sg_device_result;

static void sg_request_cb(uint32_t status, WGPUDevice device, char const * message, void * userdata) {
	sg_device_result * r = (sg_device_result *)userdata;
	r->status = status;
	r->device = device;
	if (message) {
		strncpy(r->message, message, sizeof(r->message) - 1);
	}
}

// sg_request_device asks for a device with the adapter's own limits (not the
// WebGPU defaults) and the given features, with both callbacks routed to Go
// under the device's registry id.
static void sg_request_device(WGPUAdapter adapter, uint32_t const * features, size_t nfeatures, uintptr_t id, sg_device_result * out) {
	WGPUSupportedLimits supported;
	memset(&supported, 0, sizeof supported);
	wgpuAdapterGetLimits(adapter, &supported);

	WGPURequiredLimits required;
	memset(&required, 0, sizeof required);
	required.limits = supported.limits;

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

	memset(out, 0, sizeof *out);
	wgpuAdapterRequestDevice(adapter, &desc, sg_request_cb, out);
}

static WGPUComputePassEncoder sg_begin_timed_pass(WGPUDevice device, WGPUCommandEncoder encoder, WGPUQuerySet set, uint32_t begin, uint32_t end) {
	WGPUComputePassTimestampWrites ts = { set, begin, end };
	WGPUComputePassDescriptor desc;
	memset(&desc, 0, sizeof desc);
	desc.timestampWrites = &ts;
	WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &desc);
	if (pass) wgpuDeviceReference(device);
	return pass;
}

typedef struct {
	uint32_t type;
	char message[1024];
} sg_scope_result;

static void sg_scope_cb(uint32_t type, char const * message, void * userdata) {
	sg_scope_result * r = (sg_scope_result *)userdata;
	r->type = type;
	if (message) {
		strncpy(r->message, message, sizeof(r->message) - 1);
	}
}

// wgpu-native v22 supports two scope filters, validation and
// out-of-memory (any other value panics inside wgpu-native). Validation is
// caught by cogentcore's own scope around each call, so softgraph adds the
// out-of-memory one; internal errors go to the uncaptured-error callback.
static void sg_push_scopes(WGPUDevice device) {
	wgpuDevicePushErrorScope(device, 1); // WGPUErrorFilter_OutOfMemory
}
static void sg_pop_scopes(WGPUDevice device, sg_scope_result * out) {
	memset(out, 0, sizeof *out);
	wgpuDevicePopErrorScope(device, sg_scope_cb, out);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// The cogentcore handle types keep their native pointer in unexported
// fields. These views read and build them; TestNativeHandleLayout pins the
// layouts they assume (v0.23.0).
type (
	oneRef struct{ ref unsafe.Pointer }             // Adapter, Device, QuerySet, BindGroup, ComputePipeline
	twoRef struct{ device, ref unsafe.Pointer }     // CommandEncoder, ComputePassEncoder, Buffer, Queue
)

// createInstance creates an instance for the given wgpu.InstanceBackend
// flags, wrapped as a cogentcore instance. It returns nil if wgpu-native
// returns none.
func createInstance(backends wgpu.InstanceBackend) *wgpu.Instance {
	ref := C.sg_create_instance(C.uint32_t(backends))
	if ref == nil {
		return nil
	}
	inst := new(wgpu.Instance)
	(*oneRef)(unsafe.Pointer(inst)).ref = unsafe.Pointer(ref)
	return inst
}

func limitsFromC(l *C.WGPULimits) Limits {
	return Limits{
		MaxComputeWorkgroupsPerDimension:  uint32(l.maxComputeWorkgroupsPerDimension),
		MaxComputeInvocationsPerWorkgroup: uint32(l.maxComputeInvocationsPerWorkgroup),
		MaxStorageBufferBindingSize:       uint64(l.maxStorageBufferBindingSize),
		MaxUniformBufferBindingSize:       uint64(l.maxUniformBufferBindingSize),
		MaxBufferSize:                     uint64(l.maxBufferSize),
		MaxBindingsPerBindGroup:           uint32(l.maxBindingsPerBindGroup),
		MaxStorageBuffersPerShaderStage:   uint32(l.maxStorageBuffersPerShaderStage),
		MaxUniformBuffersPerShaderStage:   uint32(l.maxUniformBuffersPerShaderStage),
		MinStorageBufferOffsetAlignment:   uint32(l.minStorageBufferOffsetAlignment),
		MinUniformBufferOffsetAlignment:   uint32(l.minUniformBufferOffsetAlignment),
	}
}

func adapterLimits(a *wgpu.Adapter) Limits {
	var l C.WGPULimits
	C.sg_adapter_limits(adapterRef(a), &l)
	return limitsFromC(&l)
}

func deviceLimits(d *wgpu.Device) Limits {
	var l C.WGPULimits
	C.sg_device_limits(deviceRef(d), &l)
	return limitsFromC(&l)
}

func adapterRef(a *wgpu.Adapter) C.WGPUAdapter {
	return C.WGPUAdapter((*oneRef)(unsafe.Pointer(a)).ref)
}

func deviceFromRef(ref C.WGPUDevice) *wgpu.Device {
	d := new(wgpu.Device)
	(*oneRef)(unsafe.Pointer(d)).ref = unsafe.Pointer(ref)
	return d
}

func deviceRef(d *wgpu.Device) C.WGPUDevice {
	return C.WGPUDevice((*oneRef)(unsafe.Pointer(d)).ref)
}

// requestDevice asks the adapter for a device with its own limits, the given
// features, and the uncaptured-error and device-lost callbacks routed to the
// Device registered under id.
func requestDevice(a *wgpu.Adapter, features []wgpu.FeatureName, id uintptr) (*wgpu.Device, error) {
	var feats *C.uint32_t
	if len(features) > 0 {
		p := C.malloc(C.size_t(len(features)) * 4)
		defer C.free(p)
		s := unsafe.Slice((*C.uint32_t)(p), len(features))
		for i, f := range features {
			s[i] = C.uint32_t(f)
		}
		feats = (*C.uint32_t)(p)
	}
	res := (*C.sg_device_result)(C.malloc(C.size_t(unsafe.Sizeof(C.sg_device_result{}))))
	defer C.free(unsafe.Pointer(res))
	C.sg_request_device(adapterRef(a), feats, C.size_t(len(features)), C.uintptr_t(id), res)
	if res.status != 0 || res.device == nil {
		return nil, fmt.Errorf("request device: status %d: %s", uint32(res.status), C.GoString(&res.message[0]))
	}
	return deviceFromRef(res.device), nil
}

// beginTimedPass opens a compute pass whose begin and end write timestamps
// into set at the two indices. cogentcore's ComputePassDescriptor has no
// timestampWrites, so the pass is opened here and wrapped as a cogentcore
// pass, holding the device reference its Release drops.
func beginTimedPass(d *wgpu.Device, enc *wgpu.CommandEncoder, set *wgpu.QuerySet, begin, end uint32) *wgpu.ComputePassEncoder {
	encRef := (*twoRef)(unsafe.Pointer(enc)).ref
	setRef := (*oneRef)(unsafe.Pointer(set)).ref
	ref := C.sg_begin_timed_pass(deviceRef(d), C.WGPUCommandEncoder(encRef), C.WGPUQuerySet(setRef), C.uint32_t(begin), C.uint32_t(end))
	if ref == nil {
		return nil
	}
	p := new(wgpu.ComputePassEncoder)
	v := (*twoRef)(unsafe.Pointer(p))
	v.device = unsafe.Pointer(deviceRef(d))
	v.ref = unsafe.Pointer(ref)
	return p
}

// scopedError runs f inside an out-of-memory error scope and returns what
// it caught (validation is caught by cogentcore's scope inside f). It turns errors that would otherwise reach the uncaptured handler into
// an error at the call that caused them.
func scopedError(d *wgpu.Device, f func()) (ErrorType, string) {
	ref := deviceRef(d)
	C.sg_push_scopes(ref)
	f()
	res := (*C.sg_scope_result)(C.malloc(C.size_t(unsafe.Sizeof(C.sg_scope_result{}))))
	defer C.free(unsafe.Pointer(res))
	C.sg_pop_scopes(ref, res)
	return ErrorType(res._type), C.GoString(&res.message[0])
}

func installNativeLog(level uint32) { C.sg_install_log(C.uint32_t(level)) }

//export softgraphDeviceLost
func softgraphDeviceLost(reason C.uint32_t, message *C.char, id C.uintptr_t) {
	if d := lookupDevice(uintptr(id)); d != nil {
		d.markLost(fmt.Sprintf("reason %d: %s", uint32(reason), C.GoString(message)))
	}
}

//export softgraphUncapturedError
func softgraphUncapturedError(typ C.uint32_t, message *C.char, id C.uintptr_t) {
	if d := lookupDevice(uintptr(id)); d != nil {
		d.addUncaptured(ErrorType(typ), C.GoString(message))
	}
}

//export softgraphNativeLog
func softgraphNativeLog(level C.uint32_t, message *C.char) {
	nativeLog(uint32(level), C.GoString(message))
}
