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

typedef struct WGPUTextureImpl* WGPUTexture;

// sg_refs is a growable list of native references an encoder or a program
// holds (wgpu*Reference on the way in, wgpu*Release on the way out), so that
// what a command uses stays alive however its Go handles are released.
typedef struct {
	uint8_t * kinds;
	void ** refs;
	size_t n, cap;
} sg_refs;

// sg_use is one buffer a bind group binds, for OpenGL's barrier rule
// (native.c, "OpenGL barriers"): SG_USE_READ for read-only storage and
// uniforms, SG_USE_WRITE for read_write storage. sg_uses is a bind group's
// list, in C memory.
enum { SG_USE_READ = 1, SG_USE_WRITE = 2, SG_USE_COUNTS = 3 }; // SG_USE_COUNTS: an indirect dispatch's counts (the encoder's own)
typedef struct {
	WGPUBuffer buf;
	uint32_t use;
} sg_use;
typedef struct {
	uint32_t n;
	sg_use * u;
} sg_uses;

// sg_cmd is one command of a program (the sealed form of a graph).
enum { SG_DISPATCH = 0, SG_INDIRECT = 1, SG_COPY = 2, SG_CLEAR = 3 };
typedef struct {
	uint32_t kind;
	uint32_t ngroups;
	WGPUComputePipeline pipeline;
	WGPUBindGroup groups[4];
	WGPUBuffer a; // indirect counts, copy source, or the buffer to clear
	uint64_t aoff;
	WGPUBuffer b; // copy destination
	uint64_t boff;
	uint64_t size;
	uint32_t x, y, z;
	// uses are the groups' buffer lists (OpenGL; NULL elsewhere), read by
	// sg_prog_add, which copies them into own (nown entries).
	sg_uses const * uses[4];
	sg_use * own;
	uint32_t nown;
} sg_cmd;

// sg_prog is a program: commands plus the references they hold. It is
// reference-counted (atomically): its owner holds one, and every encoder
// that encoded it holds one until its command buffer is finished.
typedef struct {
	int64_t count; // atomic
	sg_cmd * cmds;
	size_t n, cap;
	sg_refs keep;
} sg_prog;

// sg_enc is a command encoder with at most one open compute pass.
typedef struct {
	WGPUDevice dev;
	WGPUCommandEncoder enc;       // NULL until the first command
	WGPUComputePassEncoder pass;  // NULL when no pass is open
	WGPUComputePipeline last;     // pipeline set last in the open pass
	WGPUBindGroup groups[4];      // bind groups set last in the open pass
	WGPUBindGroup scratch[4];     // the next dispatch's bind groups, filled by Go (no Go memory crosses)
	sg_refs keep;                 // released after Finish or Discard
	size_t dispatches;            // since the last Finish
	size_t others;                // other commands since the last Finish: transfers, resolves, passes begun on request
	int idle_pass;                // the open pass was begun ahead by sg_enc_prepare and holds nothing yet
	sg_err err;
	// OpenGL's barrier rule (native.c, "OpenGL barriers"); gl is 0 elsewhere.
	int gl;
	WGPUComputePipeline bpipe;    // the barrier kernel (the device's)
	WGPUBindGroup bgroup;         // its group: the device's barrier buffer, writable
	sg_uses const * scratch_uses[4]; // the next dispatch's groups' buffers, filled by Go
	struct sg_bstate * bs;        // the command buffer's buffers (open addressing)
	size_t bscap, bsn;
	uint64_t clock;               // commands encoded in this command buffer
	uint64_t covered;             // reads at or before this clock are ordered before what comes next
	int foreign;                  // other command buffers than these encoders' may run on the device (Adopt)
	int prior;                    // reads of earlier command buffers may be unordered (foreign, or out of memory)
	uint64_t dread;               // clock of the latest read by a dispatch
	uint32_t passno;              // passes begun by this encoder (0: none)
	uint64_t pass_clock;          // clock when the open pass began
	uint32_t bpass;               // passno of the last barrier dispatch
	uint64_t barriers;            // barrier dispatches encoded, ever (tests)
} sg_enc;

// sg_done is a device's completion record: the highest submission index
// whose work the GPU has finished, written by work-done callbacks.
typedef struct {
	uint64_t completed; // atomic
} sg_done;

// Device, instance and logging (native.c).
WGPUInstance sg_create_instance(uint32_t backends);
void sg_adapter_limits(WGPUAdapter adapter, WGPULimits * out);
void sg_device_limits(WGPUDevice device, WGPULimits * out);
WGPUDevice sg_request_device(WGPUAdapter adapter, uint32_t const * features, size_t nfeatures, uintptr_t id, sg_err * out);
void sg_install_log(uint32_t level);
void sg_push_oom(WGPUDevice device);
void sg_pop_oom(WGPUDevice device, sg_err * out);

// Encoders (native.c). Functions marked "scoped" push and pop error scopes:
// the Go caller holds the device's scope mutex around them.
sg_enc * sg_enc_new(WGPUDevice d);
void sg_enc_free(sg_enc * e);
int sg_enc_open(sg_enc * e);                                                          // scoped
void sg_enc_begin_pass(sg_enc * e, WGPUQuerySet set, uint32_t begin, uint32_t end);   // scoped
void sg_enc_prepare(sg_enc * e);                                                      // scoped
void sg_enc_end_pass(sg_enc * e);                                                     // scoped
void sg_enc_dispatch(sg_enc * e, WGPUComputePipeline p, uint32_t ngroups, WGPUBuffer indirect, uint64_t offset, uint32_t x, uint32_t y, uint32_t z);
size_t sg_enc_program(sg_enc * e, sg_prog * p, size_t from, size_t to);
void sg_enc_program_transfer(sg_enc * e, sg_prog * p, size_t i);                     // scoped
void sg_enc_copy(sg_enc * e, WGPUBuffer src, uint64_t so, WGPUBuffer dst, uint64_t dOff, uint64_t size);  // scoped
void sg_enc_clear(sg_enc * e, WGPUBuffer b, uint64_t off, uint64_t size);                                // scoped
void sg_enc_copy_b2t(sg_enc * e, WGPUBuffer src, uint64_t off, uint32_t bpr, uint32_t rows, WGPUTexture dst, uint32_t w, uint32_t h, uint32_t depth); // scoped
void sg_enc_copy_t2b(sg_enc * e, WGPUTexture src, uint32_t w, uint32_t h, uint32_t depth, WGPUBuffer dst, uint64_t off, uint32_t bpr, uint32_t rows); // scoped
void sg_enc_resolve(sg_enc * e, WGPUQuerySet set, uint32_t first, uint32_t count, WGPUBuffer dst, uint64_t off); // scoped
WGPUCommandBuffer sg_enc_finish(sg_enc * e);                                          // scoped
WGPUCommandBuffer sg_enc_finish_shared(sg_enc * e);                                   // shared mode
void sg_enc_prepare_shared(sg_enc * e);                                               // shared mode
void sg_shared_probe(WGPUDevice d, sg_err * out);                                     // shared mode
void sg_enc_discard(sg_enc * e);                                                      // scoped

// Programs (native.c).
sg_prog * sg_prog_new(void);
int sg_prog_add(sg_prog * p, sg_cmd const * c);
void sg_enc_gl(sg_enc * e, WGPUComputePipeline bpipe, WGPUBindGroup bgroup, int foreign);
void sg_prog_unref(sg_prog * p);

// Submission and completion (native.c).
sg_done * sg_done_new(void);
uint64_t sg_done_get(sg_done * d);
void sg_done_set(sg_done * d, uint64_t idx);
WGPUSubmissionIndex sg_submit(WGPUQueue q, WGPUCommandBuffer const * cbs, size_t n, sg_done * done);
uint32_t sg_poll(WGPUDevice d);
void sg_cb_release(WGPUCommandBuffer cb);

// Buffer mapping (native.c). sg_map_read starts a read mapping whose
// callback stores its status into *status (C memory the caller keeps until
// the callback has run); sg_map_status reads it. cogentcore's MapAsync hands
// wgpu-native a pointer into Go memory as the callback's user data, which
// the garbage collector may reuse before the callback runs (seen: "misuse of
// an invalid Handle" panics inside a later submit on the H200).
#define SG_MAP_PENDING 0xffffffffu
void sg_map_read(WGPUBuffer b, size_t offset, size_t size, uint32_t * status); // scoped
uint32_t sg_map_status(uint32_t const * status);

// Adopted devices and wrapped buffers (native.c): softgraph's own
// references on an application's objects, released by softgraph alone.
void sg_device_reference(WGPUDevice d);
void sg_device_release(WGPUDevice d);
void sg_buffer_reference(WGPUBuffer b);
void sg_buffer_release(WGPUBuffer b);

// wgpu-native entry points called directly from Go.
void wgpuCommandBufferRelease(WGPUCommandBuffer cb);

#endif
