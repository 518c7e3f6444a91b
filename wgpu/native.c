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
void wgpuCommandEncoderRelease(WGPUCommandEncoder encoder);
void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline);
void wgpuComputePassEncoderSetBindGroup(WGPUComputePassEncoder pass, uint32_t index, WGPUBindGroup group, size_t n, uint32_t const * offsets);
void wgpuComputePassEncoderDispatchWorkgroups(WGPUComputePassEncoder pass, uint32_t x, uint32_t y, uint32_t z);
void wgpuComputePassEncoderDispatchWorkgroupsIndirect(WGPUComputePassEncoder pass, WGPUBuffer buffer, uint64_t offset);
void wgpuCommandEncoderClearBuffer(WGPUCommandEncoder encoder, WGPUBuffer buffer, uint64_t offset, uint64_t size);
void wgpuComputePipelineReference(WGPUComputePipeline p);
void wgpuComputePipelineRelease(WGPUComputePipeline p);
void wgpuBindGroupReference(WGPUBindGroup g);
void wgpuBindGroupRelease(WGPUBindGroup g);
void wgpuBufferReference(WGPUBuffer b);
void wgpuBufferRelease(WGPUBuffer b);
void wgpuTextureReference(WGPUTexture t);
void wgpuTextureRelease(WGPUTexture t);
void wgpuQuerySetReference(WGPUQuerySet q);
void wgpuQuerySetRelease(WGPUQuerySet q);
typedef void (*WGPUQueueOnSubmittedWorkDoneCallback)(uint32_t status, void * userdata);
void wgpuQueueOnSubmittedWorkDone(WGPUQueue queue, WGPUQueueOnSubmittedWorkDoneCallback callback, void * userdata);
typedef struct WGPUWrappedSubmissionIndex {
	WGPUQueue queue;
	WGPUSubmissionIndex submissionIndex;
} WGPUWrappedSubmissionIndex;
WGPUBool wgpuDevicePoll(WGPUDevice device, WGPUBool wait, WGPUWrappedSubmissionIndex const * index);

typedef struct WGPUOrigin3D { uint32_t x, y, z; } WGPUOrigin3D;
typedef struct WGPUExtent3D { uint32_t width, height, depthOrArrayLayers; } WGPUExtent3D;
typedef struct WGPUTextureDataLayout {
	WGPUChainedStruct const * nextInChain;
	uint64_t offset;
	uint32_t bytesPerRow;
	uint32_t rowsPerImage;
} WGPUTextureDataLayout;
typedef struct WGPUImageCopyBuffer {
	WGPUChainedStruct const * nextInChain;
	WGPUTextureDataLayout layout;
	WGPUBuffer buffer;
} WGPUImageCopyBuffer;
typedef struct WGPUImageCopyTexture {
	WGPUChainedStruct const * nextInChain;
	WGPUTexture texture;
	uint32_t mipLevel;
	WGPUOrigin3D origin;
	uint32_t aspect;
} WGPUImageCopyTexture;
void wgpuCommandEncoderCopyBufferToTexture(WGPUCommandEncoder e, WGPUImageCopyBuffer const * src, WGPUImageCopyTexture const * dst, WGPUExtent3D const * size);
void wgpuCommandEncoderCopyTextureToBuffer(WGPUCommandEncoder e, WGPUImageCopyTexture const * src, WGPUImageCopyBuffer const * dst, WGPUExtent3D const * size);
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

// Shared mode: a call on a device softgraph requested (whose uncaptured-error
// callback is sg_uncaptured), made while no error scope is pushed on the
// device by anyone (the Go side holds the scope lock shared, and every
// scoped call holds it exclusively), catches its errors without scopes:
// wgpu-native hands an error no scope catches to the uncaptured-error
// callback at once, on the thread whose call raised it, so sg_uncaptured
// keeps it in this thread's sg_caught instead of reporting it to Go. Why:
// scopes are one stack per device, so scoped calls must run one at a time,
// and a Finish ends its pass there: about a microsecond and a half per
// dispatch on the H200, which one goroutine cannot do faster than the GPU
// runs tiny dispatches. Calls in shared mode run at once on several
// threads. sg_push and sg_pop are what switch: in shared mode they push
// nothing and sg_pop moves what this thread caught into its sg_err.
static _Thread_local int sg_shared;
static _Thread_local sg_err sg_caught;

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
	if (sg_shared) {
		sg_set_err(&sg_caught, type, message);
		return;
	}
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
	// Dispatches carry at most four bind groups (sg_cmd.groups, the
	// encoder's and the recorder's tables): a device with more (lavapipe
	// reports 8) let a kernel using @group(4) compile, and its launch then
	// indexed past those tables. Kernel refuses such a group against this
	// limit instead.
	if (l->maxBindGroups > 4) l->maxBindGroups = 4;

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
	if (sg_shared) return;
	wgpuDevicePushErrorScope(d, 1);
	wgpuDevicePushErrorScope(d, 0);
}

static void sg_pop(WGPUDevice d, sg_err * e) {
	if (sg_shared) {
		if (sg_caught.type != 0) sg_set_err(e, sg_caught.type, sg_caught.message);
		sg_caught.type = 0;
		return;
	}
	wgpuDevicePopErrorScope(d, sg_err_cb, e);
	wgpuDevicePopErrorScope(d, sg_err_cb, e);
}

static void sg_shared_begin(void) {
	sg_shared = 1;
	sg_caught.type = 0;
}

static void sg_shared_end(void) {
	sg_shared = 0;
	sg_caught.type = 0;
}

// ---- references kept alive by encoders and programs ----

enum { SG_REF_PIPELINE = 1, SG_REF_GROUP, SG_REF_BUFFER, SG_REF_TEXTURE, SG_REF_QUERIES, SG_REF_PROGRAM };

static int sg_keep(sg_refs * r, uint8_t kind, void * h) {
	if (!h) return 1;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		void ** refs = realloc(r->refs, cap * sizeof *refs);
		if (!refs) return 0;
		r->refs = refs;
		uint8_t * kinds = realloc(r->kinds, cap);
		if (!kinds) return 0;
		r->kinds = kinds;
		r->cap = cap;
	}
	switch (kind) {
	case SG_REF_PIPELINE: wgpuComputePipelineReference((WGPUComputePipeline)h); break;
	case SG_REF_GROUP: wgpuBindGroupReference((WGPUBindGroup)h); break;
	case SG_REF_BUFFER: wgpuBufferReference((WGPUBuffer)h); break;
	case SG_REF_TEXTURE: wgpuTextureReference((WGPUTexture)h); break;
	case SG_REF_QUERIES: wgpuQuerySetReference((WGPUQuerySet)h); break;
	case SG_REF_PROGRAM: __atomic_add_fetch(&((sg_prog *)h)->count, 1, __ATOMIC_SEQ_CST); break;
	}
	r->kinds[r->n] = kind;
	r->refs[r->n] = h;
	r->n++;
	return 1;
}

static void sg_drop_all(sg_refs * r) {
	for (size_t i = 0; i < r->n; i++) {
		void * h = r->refs[i];
		switch (r->kinds[i]) {
		case SG_REF_PIPELINE: wgpuComputePipelineRelease((WGPUComputePipeline)h); break;
		case SG_REF_GROUP: wgpuBindGroupRelease((WGPUBindGroup)h); break;
		case SG_REF_BUFFER: wgpuBufferRelease((WGPUBuffer)h); break;
		case SG_REF_TEXTURE: wgpuTextureRelease((WGPUTexture)h); break;
		case SG_REF_QUERIES: wgpuQuerySetRelease((WGPUQuerySet)h); break;
		case SG_REF_PROGRAM: sg_prog_unref((sg_prog *)h); break;
		}
	}
	r->n = 0;
}

static void sg_refs_free(sg_refs * r) {
	sg_drop_all(r);
	free(r->refs);
	free(r->kinds);
	r->refs = NULL;
	r->kinds = NULL;
	r->cap = 0;
}

// ---- encoders ----


sg_enc * sg_enc_new(WGPUDevice d) {
	sg_enc * e = calloc(1, sizeof *e);
	if (e) e->dev = d;
	return e;
}

// sg_enc_open makes the native encoder if there is none; 0 on failure (the
// error is in e->err).
int sg_enc_open(sg_enc * e) {
	e->err.type = 0;
	if (e->enc) return 1;
	sg_push(e->dev);
	WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(e->dev, NULL);
	sg_pop(e->dev, &e->err);
	if (e->err.type != 0) {
		if (enc) wgpuCommandEncoderRelease(enc);
		return 0;
	}
	if (!enc) {
		e->err.type = 3;
		strcpy(e->err.message, "wgpu-native returned no command encoder");
		return 0;
	}
	e->enc = enc;
	return 1;
}

static void sg_enc_forget_pass(sg_enc * e) {
	e->pass = NULL;
	e->idle_pass = 0;
	e->last = NULL;
	memset(e->groups, 0, sizeof e->groups);
}

// End the pass and release it (wgpu-native wants it released after End and
// before Finish). Errors of any command in the pass are reported here.
void sg_enc_end_pass(sg_enc * e) {
	e->err.type = 0;
	if (!e->pass) return;
	sg_push(e->dev);
	wgpuComputePassEncoderEnd(e->pass);
	sg_pop(e->dev, &e->err);
	wgpuComputePassEncoderRelease(e->pass);
	sg_enc_forget_pass(e);
}

static void sg_enc_begin(sg_enc * e, WGPUQuerySet set, uint32_t begin, uint32_t end) {
	sg_enc_end_pass(e);
	if (e->err.type != 0) return;
	sg_push(e->dev);
	if (set) {
		sg_keep(&e->keep, SG_REF_QUERIES, set);
		WGPUComputePassTimestampWrites ts = { set, begin, end };
		WGPUComputePassDescriptor desc;
		memset(&desc, 0, sizeof desc);
		desc.timestampWrites = &ts;
		e->pass = wgpuCommandEncoderBeginComputePass(e->enc, &desc);
	} else {
		e->pass = wgpuCommandEncoderBeginComputePass(e->enc, NULL);
	}
	sg_pop(e->dev, &e->err);
	e->passno++;
	e->pass_clock = e->clock;
	if (!e->pass && e->err.type == 0) {
		e->err.type = 3;
		strcpy(e->err.message, "wgpu-native returned no compute pass");
	}
}

// sg_enc_begin_pass begins a pass on request (a command of its own: a
// timestamped pass writes its queries even if it stays empty).
void sg_enc_begin_pass(sg_enc * e, WGPUQuerySet set, uint32_t begin, uint32_t end) {
	sg_enc_begin(e, set, begin, end);
	if (e->pass) e->others++;
}

// sg_enc_prepare makes the native encoder and begins a pass without
// timestamps ahead of the next command, which then records without a
// scoped call. Nothing counts as encoded. A failure leaves the encoder as
// it was (the next command tries again, and reports it).
void sg_enc_prepare(sg_enc * e) {
	if (e->pass || !sg_enc_open(e)) return;
	sg_enc_begin(e, NULL, 0, 0);
	if (e->pass) e->idle_pass = 1;
}

// ---- OpenGL barriers ----
//
// wgpu-hal's GL backend puts a memory barrier before a command only for a
// buffer whose previous use was a writable storage binding (design.md,
// hazard 23): a dispatch writing a buffer that an earlier one only read
// gets none, and NVIDIA's GL ran the two overlapped. On OpenGL the encoder
// therefore follows every buffer the command buffer uses and, before a
// command that writes a buffer read since the last barrier it can be sure
// of, encodes the barrier kernel (one invocation binding the device's
// barrier buffer writable): its second dispatch in a pass is a writable use
// after a writable use, which wgpu-hal always separates with a barrier.
//
// A barrier is certain before a dispatch that binds a buffer whose last use
// was writable: inside the same pass it comes right before the dispatch;
// when that use was in an earlier pass, before the pass began (wgpu-core
// puts a pass's first-use transitions ahead of the pass). Before a copy or
// clear it comes right before the command. A command buffer's first use of
// a buffer gets no barrier inside it (wgpu-core's transit barriers go ahead
// of the whole command buffer, from state the encoder cannot see), so every
// command buffer with a dispatch's read not yet ordered ends with the
// barrier kernel: whatever comes later (another command buffer of any
// stream, a queue write, which wgpu puts in front of the next submission)
// is ordered after its reads. On a device other code submits to as well
// (Adopt), reads before a command buffer count as unordered until its first
// certain barrier (prior).
enum { SG_LAST_READ = 1, SG_LAST_WRITE = 2, SG_LAST_OTHER = 3 };

typedef struct sg_bstate {
	WGPUBuffer buf;
	uint32_t last;     // SG_LAST_*: the kind of the latest use
	uint32_t pass;     // passno of that use (0: outside passes)
	uint64_t read;     // clock of the latest read (0: none)
	uint64_t stamp;    // clock of the latest use
} sg_bstate;

static size_t sg_bs_slot(WGPUBuffer b, size_t cap) {
	uint64_t h = (uint64_t)(uintptr_t)b * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 20) & (cap - 1);
}

// sg_bs_find returns b's state, or NULL; with add, a new zeroed state
// (NULL only when out of host memory).
static sg_bstate * sg_bs_find(sg_enc * e, WGPUBuffer b, int add) {
	if (e->bscap) {
		for (size_t i = sg_bs_slot(b, e->bscap);; i = (i + 1) & (e->bscap - 1)) {
			if (e->bs[i].buf == b) return &e->bs[i];
			if (!e->bs[i].buf) break;
		}
	}
	if (!add) return NULL;
	if (2 * (e->bsn + 1) > e->bscap) {
		size_t cap = e->bscap ? 2 * e->bscap : 64;
		sg_bstate * bs = calloc(cap, sizeof *bs);
		if (!bs) return NULL;
		for (size_t j = 0; j < e->bscap; j++) {
			if (!e->bs[j].buf) continue;
			size_t i = sg_bs_slot(e->bs[j].buf, cap);
			while (bs[i].buf) i = (i + 1) & (cap - 1);
			bs[i] = e->bs[j];
		}
		free(e->bs);
		e->bs = bs;
		e->bscap = cap;
	}
	size_t i = sg_bs_slot(b, e->bscap);
	while (e->bs[i].buf) i = (i + 1) & (e->bscap - 1);
	e->bs[i].buf = b;
	e->bsn++;
	return &e->bs[i];
}

// sg_gl_reset starts a command buffer.
static void sg_gl_reset(sg_enc * e) {
	if (e->bsn) memset(e->bs, 0, e->bscap * sizeof *e->bs);
	e->bsn = 0;
	e->clock = 1;
	e->covered = 0;
	e->prior = e->foreign;
	e->dread = 0;
	e->pass_clock = 0;
	e->bpass = 0;
}

// sg_gl_forget drops what the encoder knows of this command buffer after
// running out of host memory: every later write then gets a barrier, and
// the command buffer ends with one.
static void sg_gl_forget(sg_enc * e) {
	uint64_t clock = e->clock;
	sg_gl_reset(e);
	e->clock = clock + 1;
	e->prior = 1;
	e->dread = e->clock;
}

// sg_enc_gl turns the rule on for an encoder of an OpenGL device.
void sg_enc_gl(sg_enc * e, WGPUComputePipeline bpipe, WGPUBindGroup bgroup, int foreign) {
	e->gl = 1;
	e->foreign = foreign;
	e->bpipe = bpipe;
	e->bgroup = bgroup;
	sg_gl_reset(e);
}

// sg_gl_cover records a certain barrier ordering reads up to clock.
static void sg_gl_cover(sg_enc * e, uint64_t clock) {
	if (clock > e->covered) e->covered = clock;
	e->prior = 0;
}

// sg_gl_unordered reports whether a write to b now could overlap a read.
static int sg_gl_unordered(sg_enc * e, WGPUBuffer b) {
	if (e->prior) return 1;
	sg_bstate const * st = sg_bs_find(e, b, 0);
	return st && st->read > e->covered;
}

// sg_gl_certain notes the barrier wgpu-hal puts before a dispatch that
// binds b.
static void sg_gl_certain(sg_enc * e, WGPUBuffer b) {
	sg_bstate const * st = sg_bs_find(e, b, 0);
	if (!st || st->last != SG_LAST_WRITE) return;
	sg_gl_cover(e, st->pass == e->passno ? e->clock : e->pass_clock);
}

// sg_gl_barrier encodes the barrier kernel into the open pass: twice when
// the barrier buffer is not yet bound in this pass, since only a writable
// use after one in the same pass is sure to get a barrier in front of it.
static void sg_gl_barrier(sg_enc * e) {
	int n = e->bpass == e->passno ? 1 : 2;
	sg_keep(&e->keep, SG_REF_PIPELINE, e->bpipe);
	sg_keep(&e->keep, SG_REF_GROUP, e->bgroup);
	wgpuComputePassEncoderSetPipeline(e->pass, e->bpipe);
	wgpuComputePassEncoderSetBindGroup(e->pass, 0, e->bgroup, 0, NULL);
	for (int i = 0; i < n; i++) wgpuComputePassEncoderDispatchWorkgroups(e->pass, 1, 1, 1);
	e->last = e->bpipe;
	memset(e->groups, 0, sizeof e->groups);
	e->groups[0] = e->bgroup;
	e->barriers += (uint64_t)n;
	e->bpass = e->passno;
	e->clock++;
	sg_gl_cover(e, e->clock);
}

// sg_gl_before applies the rule before a dispatch binding the buffers of
// lists, or of flat (a program's copy), and counts, its indirect buffer:
// it notes the barriers wgpu-hal will put in front of it and encodes the
// barrier kernel when one is needed and none is certain. sg_gl_after then
// records the dispatch's uses.
static void sg_gl_before(sg_enc * e, sg_uses const * const * lists, uint32_t nl, sg_use const * flat, uint32_t nflat, WGPUBuffer counts) {
	for (uint32_t l = 0; l < nl; l++) {
		if (!lists[l]) continue;
		for (uint32_t i = 0; i < lists[l]->n; i++) sg_gl_certain(e, lists[l]->u[i].buf);
	}
	for (uint32_t i = 0; i < nflat; i++) sg_gl_certain(e, flat[i].buf);
	if (counts) sg_gl_certain(e, counts);
	int need = 0;
	for (uint32_t l = 0; l < nl && !need; l++) {
		if (!lists[l]) continue;
		for (uint32_t i = 0; i < lists[l]->n && !need; i++) {
			need = lists[l]->u[i].use == SG_USE_WRITE && sg_gl_unordered(e, lists[l]->u[i].buf);
		}
	}
	for (uint32_t i = 0; i < nflat && !need; i++) need = flat[i].use == SG_USE_WRITE && sg_gl_unordered(e, flat[i].buf);
	if (need) sg_gl_barrier(e);
}

// sg_gl_use records a use of b by the dispatch at e->clock. A buffer the
// same dispatch both writes and reads stays written: wgpu merges the uses.
static void sg_gl_use(sg_enc * e, WGPUBuffer b, uint32_t use) {
	sg_bstate * st = sg_bs_find(e, b, 1);
	if (!st) {
		// Out of host memory: forget everything, so that every later
		// write gets a barrier (prior), which is never wrong.
		sg_gl_forget(e);
		return;
	}
	if (use != SG_USE_WRITE) e->dread = e->clock;
	if (use == SG_USE_WRITE) {
		st->last = SG_LAST_WRITE;
	} else {
		if (!(st->stamp == e->clock && st->last == SG_LAST_WRITE)) st->last = use == SG_USE_READ ? SG_LAST_READ : SG_LAST_OTHER;
		st->read = e->clock;
	}
	st->stamp = e->clock;
	st->pass = e->passno;
}

static void sg_gl_after(sg_enc * e, sg_uses const * const * lists, uint32_t nl, sg_use const * flat, uint32_t nflat, WGPUBuffer counts) {
	e->clock++;
	// Writes first, so that a buffer both written and read by the
	// dispatch ends up written.
	for (int pass = 0; pass < 2; pass++) {
		uint32_t want = pass == 0 ? SG_USE_WRITE : SG_USE_READ;
		for (uint32_t l = 0; l < nl; l++) {
			if (!lists[l]) continue;
			for (uint32_t i = 0; i < lists[l]->n; i++) {
				if (lists[l]->u[i].use == want) sg_gl_use(e, lists[l]->u[i].buf, want);
			}
		}
		for (uint32_t i = 0; i < nflat; i++) {
			if (flat[i].use == want) sg_gl_use(e, flat[i].buf, want);
		}
	}
	if (counts) sg_gl_use(e, counts, SG_USE_COUNTS);
}

// sg_gl_transfer applies the rule to a copy or clear outside passes (src
// read, dst written; either may be NULL), before it is encoded: where a
// barrier is needed, a pass holding the barrier kernel goes first.
static void sg_gl_transfer(sg_enc * e, WGPUBuffer src, WGPUBuffer dst) {
	sg_bstate * s = src ? sg_bs_find(e, src, 0) : NULL;
	sg_bstate * d = dst ? sg_bs_find(e, dst, 0) : NULL;
	if ((s && s->last == SG_LAST_WRITE) || (d && d->last == SG_LAST_WRITE)) sg_gl_cover(e, e->clock);
	if (dst && sg_gl_unordered(e, dst)) {
		sg_enc_begin(e, NULL, 0, 0);
		if (!e->pass) return; // the error is in e->err
		sg_gl_barrier(e);
		sg_enc_end_pass(e);
		if (e->err.type != 0) return;
	}
	e->clock++;
	WGPUBuffer bufs[2] = { src, dst };
	for (int i = 0; i < 2; i++) {
		if (!bufs[i]) continue;
		sg_bstate * st = sg_bs_find(e, bufs[i], 1);
		if (!st) {
			sg_gl_forget(e);
			return;
		}
		st->last = SG_LAST_OTHER;
		st->pass = 0;
		if (i == 0) st->read = e->clock;
	}
}

// sg_enc_dispatch encodes one dispatch into the open pass, skipping a
// pipeline or bind group already set. The Go side guarantees an open pass.
void sg_enc_dispatch(sg_enc * e, WGPUComputePipeline p, uint32_t ngroups, WGPUBuffer indirect, uint64_t offset, uint32_t x, uint32_t y, uint32_t z) {
	WGPUBindGroup const * groups = e->scratch;
	uint32_t nl = ngroups < 4 ? ngroups : 4;
	if (e->gl) sg_gl_before(e, e->scratch_uses, nl, NULL, 0, indirect);
	if (p != e->last) {
		sg_keep(&e->keep, SG_REF_PIPELINE, p);
		wgpuComputePassEncoderSetPipeline(e->pass, p);
		e->last = p;
	}
	for (uint32_t i = 0; i < ngroups && i < 4; i++) {
		if (groups[i] != e->groups[i]) {
			sg_keep(&e->keep, SG_REF_GROUP, groups[i]);
			wgpuComputePassEncoderSetBindGroup(e->pass, i, groups[i], 0, NULL);
			e->groups[i] = groups[i];
		}
	}
	if (indirect) {
		sg_keep(&e->keep, SG_REF_BUFFER, indirect);
		wgpuComputePassEncoderDispatchWorkgroupsIndirect(e->pass, indirect, offset);
	} else {
		wgpuComputePassEncoderDispatchWorkgroups(e->pass, x, y, z);
	}
	if (e->gl) {
		sg_gl_after(e, e->scratch_uses, nl, NULL, 0, indirect);
		memset(e->scratch_uses, 0, sizeof e->scratch_uses);
	}
	e->dispatches++;
	e->idle_pass = 0;
}

// sg_enc_program encodes the dispatches of p[from, to) into the open pass
// and returns the index of the first command it did not encode (a copy or
// clear, which needs the pass ended, or to). The program is kept alive by
// one reference for the whole command buffer, not one per command.
size_t sg_enc_program(sg_enc * e, sg_prog * p, size_t from, size_t to) {
	if (to > p->n) to = p->n;
	if (from < to) sg_keep(&e->keep, SG_REF_PROGRAM, p);
	WGPUComputePipeline cur = e->last;
	size_t i = from;
	for (; i < to; i++) {
		sg_cmd const * c = &p->cmds[i];
		if (c->kind != SG_DISPATCH && c->kind != SG_INDIRECT) break;
		WGPUBuffer counts = c->kind == SG_INDIRECT ? c->a : NULL;
		if (e->gl) {
			e->last = cur;
			sg_gl_before(e, NULL, 0, c->own, c->nown, counts);
			cur = e->last;
		}
		if (c->pipeline != cur) {
			wgpuComputePassEncoderSetPipeline(e->pass, c->pipeline);
			cur = c->pipeline;
		}
		for (uint32_t g = 0; g < c->ngroups; g++) {
			if (c->groups[g] != e->groups[g]) {
				wgpuComputePassEncoderSetBindGroup(e->pass, g, c->groups[g], 0, NULL);
				e->groups[g] = c->groups[g];
			}
		}
		if (c->kind == SG_INDIRECT) {
			wgpuComputePassEncoderDispatchWorkgroupsIndirect(e->pass, c->a, c->aoff);
		} else {
			wgpuComputePassEncoderDispatchWorkgroups(e->pass, c->x, c->y, c->z);
		}
		if (e->gl) sg_gl_after(e, NULL, 0, c->own, c->nown, counts);
		e->dispatches++;
		e->idle_pass = 0;
	}
	e->last = cur;
	return i;
}

void sg_enc_program_transfer(sg_enc * e, sg_prog * p, size_t i) {
	if (i >= p->n) return;
	sg_cmd const * c = &p->cmds[i];
	if (c->kind == SG_COPY) sg_enc_copy(e, c->a, c->aoff, c->b, c->boff, c->size);
	else if (c->kind == SG_CLEAR) sg_enc_clear(e, c->a, c->aoff, c->size);
}

void sg_enc_copy(sg_enc * e, WGPUBuffer src, uint64_t so, WGPUBuffer dst, uint64_t dOff, uint64_t size) {
	e->others++;
	e->err.type = 0;
	if (e->gl) {
		sg_gl_transfer(e, src, dst);
		if (e->err.type != 0) return;
	}
	sg_keep(&e->keep, SG_REF_BUFFER, src);
	sg_keep(&e->keep, SG_REF_BUFFER, dst);
	sg_push(e->dev);
	wgpuCommandEncoderCopyBufferToBuffer(e->enc, src, so, dst, dOff, size);
	sg_pop(e->dev, &e->err);
}

void sg_enc_clear(sg_enc * e, WGPUBuffer b, uint64_t off, uint64_t size) {
	e->others++;
	e->err.type = 0;
	if (e->gl) {
		sg_gl_transfer(e, NULL, b);
		if (e->err.type != 0) return;
	}
	sg_keep(&e->keep, SG_REF_BUFFER, b);
	sg_push(e->dev);
	wgpuCommandEncoderClearBuffer(e->enc, b, off, size);
	sg_pop(e->dev, &e->err);
}

static WGPUImageCopyTexture sg_whole(WGPUTexture t) {
	WGPUImageCopyTexture c;
	memset(&c, 0, sizeof c);
	c.texture = t;
	return c;
}

static WGPUImageCopyBuffer sg_rows(WGPUBuffer b, uint64_t off, uint32_t bpr, uint32_t rows) {
	WGPUImageCopyBuffer c;
	memset(&c, 0, sizeof c);
	c.layout.offset = off;
	c.layout.bytesPerRow = bpr;
	c.layout.rowsPerImage = rows;
	c.buffer = b;
	return c;
}

void sg_enc_copy_b2t(sg_enc * e, WGPUBuffer src, uint64_t off, uint32_t bpr, uint32_t rows, WGPUTexture dst, uint32_t w, uint32_t h, uint32_t depth) {
	e->others++;
	e->err.type = 0;
	sg_keep(&e->keep, SG_REF_BUFFER, src);
	sg_keep(&e->keep, SG_REF_TEXTURE, dst);
	WGPUImageCopyBuffer b = sg_rows(src, off, bpr, rows);
	WGPUImageCopyTexture t = sg_whole(dst);
	WGPUExtent3D size = { w, h, depth };
	sg_push(e->dev);
	wgpuCommandEncoderCopyBufferToTexture(e->enc, &b, &t, &size);
	sg_pop(e->dev, &e->err);
}

void sg_enc_copy_t2b(sg_enc * e, WGPUTexture src, uint32_t w, uint32_t h, uint32_t depth, WGPUBuffer dst, uint64_t off, uint32_t bpr, uint32_t rows) {
	e->others++;
	e->err.type = 0;
	sg_keep(&e->keep, SG_REF_TEXTURE, src);
	sg_keep(&e->keep, SG_REF_BUFFER, dst);
	WGPUImageCopyTexture t = sg_whole(src);
	WGPUImageCopyBuffer b = sg_rows(dst, off, bpr, rows);
	WGPUExtent3D size = { w, h, depth };
	sg_push(e->dev);
	wgpuCommandEncoderCopyTextureToBuffer(e->enc, &t, &b, &size);
	sg_pop(e->dev, &e->err);
}

void sg_enc_resolve(sg_enc * e, WGPUQuerySet set, uint32_t first, uint32_t count, WGPUBuffer dst, uint64_t off) {
	e->others++;
	e->err.type = 0;
	sg_keep(&e->keep, SG_REF_QUERIES, set);
	sg_keep(&e->keep, SG_REF_BUFFER, dst);
	sg_push(e->dev);
	wgpuCommandEncoderResolveQuerySet(e->enc, set, first, count, dst, off);
	sg_pop(e->dev, &e->err);
}

// sg_enc_finish ends the pass and finishes the native encoder. On error it
// returns NULL and no command buffer exists, so nothing invalid can reach
// Submit; the first error (the pass's or the finish's) is in e->err. The
// references kept for the encoded commands are dropped either way: a
// finished command buffer holds what it uses itself.
WGPUCommandBuffer sg_enc_finish(sg_enc * e) {
	sg_err passErr;
	passErr.type = 0;
	if (e->gl && e->enc && e->dread > e->covered) {
		// The command buffer ends ordered (OpenGL barriers).
		if (!e->pass) sg_enc_begin(e, NULL, 0, 0);
		if (e->pass) sg_gl_barrier(e);
		else passErr = e->err; // no command buffer without its barrier
	}
	if (e->pass) {
		sg_enc_end_pass(e);
		passErr = e->err;
	}
	e->err.type = 0;
	WGPUCommandBuffer cb = NULL;
	if (e->enc) {
		sg_push(e->dev);
		cb = wgpuCommandEncoderFinish(e->enc, NULL);
		sg_pop(e->dev, &e->err);
		wgpuCommandEncoderRelease(e->enc);
		e->enc = NULL;
	}
	if (passErr.type != 0) e->err = passErr;
	if (e->err.type != 0 && cb) {
		wgpuCommandBufferRelease(cb);
		cb = NULL;
	}
	sg_drop_all(&e->keep);
	e->dispatches = 0;
	e->others = 0;
	if (e->gl) sg_gl_reset(e);
	return cb;
}

// sg_enc_finish_shared and sg_enc_prepare_shared are sg_enc_finish and
// sg_enc_prepare in shared mode (see sg_shared): the caller holds the scope
// lock shared, on a device whose uncaptured-error callback is softgraph's.
WGPUCommandBuffer sg_enc_finish_shared(sg_enc * e) {
	sg_shared_begin();
	WGPUCommandBuffer cb = sg_enc_finish(e);
	sg_shared_end();
	return cb;
}

void sg_enc_prepare_shared(sg_enc * e) {
	sg_shared_begin();
	sg_enc_prepare(e);
	sg_shared_end();
}

// sg_shared_probe prepares an encoder and finishes it in shared mode after
// a dispatch with no pipeline set, which wgpu-native refuses when the pass
// ends, and returns the error the finish caught in out: what the tests
// check shared mode with (the error must come back from the finish and land
// nowhere else). No command buffer comes out of a refused finish.
void sg_shared_probe(WGPUDevice d, sg_err * out) {
	out->type = 0;
	sg_enc * e = sg_enc_new(d);
	if (!e) {
		sg_set_err(out, 3, "out of host memory");
		return;
	}
	sg_enc_prepare_shared(e);
	if (e->pass) wgpuComputePassEncoderDispatchWorkgroups(e->pass, 1, 1, 1);
	WGPUCommandBuffer cb = sg_enc_finish_shared(e);
	*out = e->err;
	if (cb) wgpuCommandBufferRelease(cb);
	sg_enc_free(e);
}

// sg_enc_discard drops what was encoded since the last finish.
void sg_enc_discard(sg_enc * e) {
	if (e->pass) sg_enc_end_pass(e);
	if (e->enc) {
		wgpuCommandEncoderRelease(e->enc);
		e->enc = NULL;
	}
	sg_drop_all(&e->keep);
	e->dispatches = 0;
	e->others = 0;
	e->err.type = 0;
	if (e->gl) sg_gl_reset(e);
}

void sg_enc_free(sg_enc * e) {
	if (!e) return;
	if (e->pass) {
		wgpuComputePassEncoderEnd(e->pass);
		wgpuComputePassEncoderRelease(e->pass);
	}
	if (e->enc) wgpuCommandEncoderRelease(e->enc);
	sg_refs_free(&e->keep);
	free(e->bs);
	free(e);
}

// ---- programs ----

sg_prog * sg_prog_new(void) {
	sg_prog * p = calloc(1, sizeof *p);
	if (p) p->count = 1;
	return p;
}

// sg_prog_add appends a command and takes references on what it uses;
// 0 when out of host memory.
int sg_prog_add(sg_prog * p, sg_cmd const * c) {
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		sg_cmd * cmds = realloc(p->cmds, cap * sizeof *cmds);
		if (!cmds) return 0;
		p->cmds = cmds;
		p->cap = cap;
	}
	int ok = sg_keep(&p->keep, SG_REF_PIPELINE, c->pipeline);
	for (uint32_t i = 0; i < c->ngroups && i < 4; i++) ok = ok && sg_keep(&p->keep, SG_REF_GROUP, c->groups[i]);
	ok = ok && sg_keep(&p->keep, SG_REF_BUFFER, c->a);
	ok = ok && sg_keep(&p->keep, SG_REF_BUFFER, c->b);
	if (!ok) return 0;
	sg_cmd cmd = *c;
	cmd.own = NULL;
	cmd.nown = 0;
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->ngroups && i < 4; i++) {
		if (c->uses[i]) n += c->uses[i]->n;
	}
	if (n) {
		cmd.own = malloc(n * sizeof *cmd.own);
		if (!cmd.own) return 0;
		for (uint32_t i = 0; i < c->ngroups && i < 4; i++) {
			if (!c->uses[i]) continue;
			memcpy(cmd.own + cmd.nown, c->uses[i]->u, c->uses[i]->n * sizeof *cmd.own);
			cmd.nown += c->uses[i]->n;
		}
	}
	memset(cmd.uses, 0, sizeof cmd.uses);
	p->cmds[p->n++] = cmd;
	return 1;
}

void sg_prog_unref(sg_prog * p) {
	if (!p) return;
	if (__atomic_sub_fetch(&p->count, 1, __ATOMIC_SEQ_CST) != 0) return;
	sg_refs_free(&p->keep);
	for (size_t i = 0; i < p->n; i++) free(p->cmds[i].own);
	free(p->cmds);
	free(p);
}

// ---- submission and completion ----

sg_done * sg_done_new(void) { return calloc(1, sizeof(sg_done)); }

uint64_t sg_done_get(sg_done * d) { return __atomic_load_n(&d->completed, __ATOMIC_SEQ_CST); }

void sg_done_set(sg_done * d, uint64_t idx) {
	uint64_t cur = __atomic_load_n(&d->completed, __ATOMIC_SEQ_CST);
	while (idx > cur && !__atomic_compare_exchange_n(&d->completed, &cur, idx, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
	}
}

typedef struct {
	sg_done * done;
	uint64_t idx;
} sg_work;

static void sg_work_done(uint32_t status, void * userdata) {
	sg_work * w = userdata;
	(void)status;
	sg_done_set(w->done, w->idx);
	free(w);
}

// sg_submit submits cbs in one submission, releases them, and registers a
// work-done callback that records the submission's index in done when the
// GPU has finished it (callbacks run inside a later submit or poll).
WGPUSubmissionIndex sg_submit(WGPUQueue q, WGPUCommandBuffer const * cbs, size_t n, sg_done * done) {
	WGPUSubmissionIndex idx = wgpuQueueSubmitForIndex(q, n, cbs);
	for (size_t i = 0; i < n; i++) wgpuCommandBufferRelease(cbs[i]);
	sg_work * w = malloc(sizeof *w);
	if (w) {
		w->done = done;
		w->idx = idx;
		wgpuQueueOnSubmittedWorkDone(q, sg_work_done, w);
	}
	return idx;
}

// sg_poll triages finished submissions without blocking (work-done and map
// callbacks run here) and reports whether the queue is empty. It never
// waits: wgpu-native's blocking poll gives up after five seconds and then
// treats unfinished work as finished.
uint32_t sg_poll(WGPUDevice d) { return wgpuDevicePoll(d, 0, NULL) ? 1 : 0; }

void sg_cb_release(WGPUCommandBuffer cb) { wgpuCommandBufferRelease(cb); }

typedef void (*sg_map_callback)(uint32_t status, void * userdata);
void wgpuBufferMapAsync(WGPUBuffer buffer, uint32_t mode, size_t offset, size_t size, sg_map_callback callback, void * userdata);

static void sg_map_done(uint32_t status, void * userdata) {
	__atomic_store_n((uint32_t *)userdata, status, __ATOMIC_RELEASE);
}

void sg_map_read(WGPUBuffer b, size_t offset, size_t size, uint32_t * status) {
	__atomic_store_n(status, SG_MAP_PENDING, __ATOMIC_RELEASE);
	wgpuBufferMapAsync(b, 1 /* WGPUMapMode_Read */, offset, size, sg_map_done, status);
}

uint32_t sg_map_status(uint32_t const * status) { return __atomic_load_n(status, __ATOMIC_ACQUIRE); }

// ---- adopted devices and wrapped buffers ----

void wgpuDeviceReference(WGPUDevice d);
void wgpuDeviceRelease(WGPUDevice d);

void sg_device_reference(WGPUDevice d) { wgpuDeviceReference(d); }
void sg_device_release(WGPUDevice d) { wgpuDeviceRelease(d); }
void sg_buffer_reference(WGPUBuffer b) { wgpuBufferReference(b); }
void sg_buffer_release(WGPUBuffer b) { wgpuBufferRelease(b); }
