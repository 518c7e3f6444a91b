package driver

import (
	"context"
	"errors"
	"sync"

	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/internal/lockrank"
)

// Usage says what a buffer may be used for (WebGPU's GPUBufferUsage bits).
type Usage uint32

const (
	UsageMapRead      Usage = 0x0001
	UsageMapWrite     Usage = 0x0002
	UsageCopySrc      Usage = 0x0004
	UsageCopyDst      Usage = 0x0008
	UsageUniform      Usage = 0x0040
	UsageStorage      Usage = 0x0080
	UsageIndirect     Usage = 0x0100
	UsageQueryResolve Usage = 0x0200
)

// Submission identifies one queue submission, for Wait.
type Submission uint64

// Device is one wgpu device as the recorder sees it.
type Device interface {
	// Err is nil while the device is usable, else an error wrapping
	// ErrClosed or ErrDeviceLost.
	Err() error
	// Logger is the device's logger.
	Logger() zerolog.Logger
	// Info is what the recorder needs to know of the adapter.
	Info() Info
	// Locals is the device's slot for the values packages above the driver
	// keep per device (see Local); the device never looks inside it.
	Locals() *Locals

	// Kernel is the driver view of a kernel the public API handed out (a
	// *wgpu.Kernel for package wgpu's driver, a *fake.Kernel for the fake).
	// It fails with ErrInvalidArgument for a handle of another
	// implementation, ErrForeignDevice for another device's kernel and
	// ErrReleased after the kernel's Release.
	Kernel(k KernelHandle) (Kernel, error)
	// Compile compiles (or finds in the device's cache) entry of WGSL
	// source with constants overridden: how the recorder obtains the
	// kernels it uses itself (the control-flow helpers). The device's cache
	// owns the result. It fails with an error wrapping ErrCompile.
	Compile(source, entry string, constants map[string]float64) (Kernel, error)
	// CompileOwned compiles entry of WGSL source with constants overridden
	// for the caller alone, under label: the device's cache neither keeps
	// nor returns it, and the caller's Release frees it. The recorder
	// compiles this way what belongs to one graph (a fused kernel, a
	// loaded graph's kernels), so a graph's release or a refused load
	// leaves nothing behind. It fails with an error wrapping ErrCompile.
	CompileOwned(source, entry string, constants map[string]float64, label string) (Kernel, error)

	NewBuffer(size uint64, usage Usage, label string) (Buffer, error)
	NewTexture(d TextureDesc) (Texture, error)
	NewSampler(d SamplerDesc) (Sampler, error)
	// NewBindGroup makes bind group number group of k's layout; entries
	// must match the layout's bindings of that group, in binding order.
	NewBindGroup(k Kernel, group uint32, entries []Entry) (BindGroup, error)
	NewEncoder() (Encoder, error)
	NewProgram() (Program, error)
	NewQueries(count uint32) (QuerySet, error)

	// WriteBuffer copies data into b at offset through the queue: it takes
	// effect after every command buffer submitted before it and before
	// every one submitted after it.
	WriteBuffer(b Buffer, offset uint64, data []byte) error
	// WriteTexture fills the whole texture from tightly packed rows.
	WriteTexture(t Texture, data []byte) error

	// Submit submits the command buffers in order, in one submission, and
	// releases them. Empty ones are skipped; all empty returns the last
	// submission. On error every command buffer is released unsubmitted.
	Submit(cbs []CommandBuffer) (Submission, error)
	// FlushWrites submits the queue's pending writes with no command
	// buffer: an empty submission. wgpu-core keeps each write's staging
	// copy until the queue's next submission, so a caller that wrote and
	// will submit nothing else (a refused load) flushes them here.
	FlushWrites() (Submission, error)
	// Drop releases a command buffer without submitting it.
	Drop(cb CommandBuffer)
	// Wait returns when the GPU has finished submission s and everything
	// before it, when ctx is done (an error wrapping ctx.Err()), or when the
	// device is closed or lost. It never returns early otherwise.
	Wait(ctx context.Context, s Submission) error
	// ReadBuffer waits for every submitted command that uses b (a MapRead
	// buffer), then copies b[offset:offset+len(dst)] into dst.
	ReadBuffer(ctx context.Context, b Buffer, offset uint64, dst []byte) error
	// TimestampPeriod is nanoseconds per timestamp tick (measured once).
	TimestampPeriod() (float64, error)
	// TakeErrors returns and clears the device errors no call's error
	// scope caught, oldest first.
	TakeErrors() []error
	// Live counts the native objects made through the device and alive.
	Live() Live
}

// Object is what every native object shares.
type Object interface {
	// Release drops the handle. Idempotent. Work already encoded or built
	// into a Program keeps the native object alive as long as it needs it.
	Release()
	// Released reports whether Release was called.
	Released() bool
}

// Buffer is one native buffer.
type Buffer interface {
	Object
	Size() uint64
	Usage() Usage
	// Memory identifies the memory behind the buffer: two Buffers of one
	// native buffer (an application's buffer wrapped twice) have equal
	// Memory, and live Buffers of different memory never do. Passes that
	// reason about which bindings meet (fusion) compare it, not Buffers.
	Memory() any
}

// TextureDim is a texture's dimensionality.
type TextureDim uint8

const (
	Texture2D TextureDim = iota + 1
	Texture3D
)

// TextureDesc describes a texture. Format is the WGSL texel format name
// ("rgba8unorm"). The implementation grants every usage the format allows
// (sampled, storage where the adapter supports it, copies).
type TextureDesc struct {
	Width, Height, Depth uint32 // Depth is 1 for a 2D texture
	Dim                  TextureDim
	Format               string
	Label                string
}

// Texture is one native texture with its default view.
type Texture interface {
	Object
	Desc() TextureDesc
	// TexelSize is the bytes of one texel of its format.
	TexelSize() uint32
	// Storage reports whether the texture may be bound as a storage texture.
	Storage() bool
	// Filterable reports whether its format may be sampled with filtering.
	Filterable() bool
}

// SamplerDesc describes a sampler: nearest or linear filtering, clamp to
// edge or repeat addressing, and optionally a comparison sampler.
type SamplerDesc struct {
	Linear, Repeat, Compare bool
}

// Sampler is one native sampler.
type Sampler interface {
	Object
	Desc() SamplerDesc
}

// BindGroup binds resources to one group of a kernel's layout. It is
// immutable.
type BindGroup interface{ Object }

// Entry is one binding of a bind group: Size bytes of Buffer at Offset, a
// Texture (its default view), or a Sampler. Exactly one is set. Entries are
// comparable, so a bind group cache can key on them.
type Entry struct {
	Binding uint32
	Buffer  Buffer
	Offset  uint64
	Size    uint64
	Texture Texture
	Sampler Sampler
}

// ResourceKind is what a binding of a kernel holds.
type ResourceKind uint8

const (
	ResourceStorage           ResourceKind = iota // var<storage, read_write>
	ResourceReadOnlyStorage                       // var<storage> or var<storage, read>
	ResourceUniform                               // var<uniform>
	ResourceTexture                               // a sampled texture
	ResourceStorageTexture                        // texture_storage_*
	ResourceSampler                               // sampler
	ResourceComparisonSampler                     // sampler_comparison
)

// Resource is one binding an entry point uses, as reflected from its WGSL.
type Resource struct {
	Group, Binding uint32
	Name           string
	Kind           ResourceKind
	Type           string // the store type as written, normalised
	MinSize        uint64 // buffers: the minimum binding size
	Dim            string // textures: "1d", "2d", "2d_array", "3d", "cube", "cube_array"
	SampleType     string // sampled textures: "float", "unfilterable-float", "sint", "uint", "depth"
	Multisampled   bool
	Format         string // storage textures: the texel format
	Access         string // storage buffers and textures: "read", "write", "read_write"
}

// Kernel is a compiled compute entry point as the recorder uses it.
type Kernel interface {
	Object
	Entry() string
	// Label is the name the kernel was given (wgpu.WithLabel), or "".
	Label() string
	// Source, Constants: what it was compiled from (for graph files).
	Source() string
	Constants() map[string]float64
	// Resources are the bindings in launch-argument order: by group, then
	// binding.
	Resources() []Resource
	// Declared are every resource binding the kernel's module declares, by
	// group, then binding: Resources plus the ones the entry point does not
	// use (the other argument list a launch may pass, as gosl's generated
	// code does). Those extra bindings are not in the pipeline layout: the
	// recorder checks their arguments and binds only Resources. Declared
	// is Resources when the entry point uses every declared binding.
	Declared() []Resource
	// Groups is the number of bind groups its pipeline layout has.
	Groups() int
	WorkgroupSize() [3]uint32
	// Guarded: k is a guarded variant (Guarder.Guarded), however it was
	// compiled (a graph file stores variants as source).
	Guarded() bool
}

// Timestamps asks a pass to write GPU timestamps at its beginning and end.
type Timestamps struct {
	Set        QuerySet
	Begin, End uint32
}

// QuerySet holds GPU timestamps.
type QuerySet interface {
	Object
	Count() uint32
}

// CommandBuffer is a finished command buffer, submitted once by
// Device.Submit or dropped by Release. The zero value is empty.
type CommandBuffer struct {
	// Native is the implementation's handle; Owner the device that made it.
	Native uintptr
	Owner  Device
	// Dispatches counts the dispatches it holds.
	Dispatches int
}

// Empty reports whether there is nothing to submit.
func (c CommandBuffer) Empty() bool { return c.Native == 0 }

// Release drops a command buffer that will not be submitted.
func (c CommandBuffer) Release() {
	if c.Native != 0 && c.Owner != nil {
		c.Owner.Drop(c)
	}
}

// Encoder records commands into command buffers, one at a time, reusing
// itself after every Finish. A dispatch outside a pass opens one (without
// timestamps); copies, clears and query resolves end the open pass.
type Encoder interface {
	BeginPass(ts *Timestamps) error
	EndPass() error
	// PassOpen reports whether a compute pass that holds commands, or
	// was begun by BeginPass, is open (a pass Prepare began does not
	// count: BeginPass replaces it).
	PassOpen() bool
	// Prepare readies the encoder for its next command ahead of time
	// (the native encoder made, a pass without timestamps begun), so that
	// recording it does not wait for the device. Nothing counts as
	// encoded; a failure is reported by the next command instead.
	Prepare()
	Dispatch(k Kernel, groups []BindGroup, x, y, z uint32) error
	DispatchIndirect(k Kernel, groups []BindGroup, counts Buffer, offset uint64) error
	// Encode encodes commands [from, to) of p.
	Encode(p Program, from, to int) error
	CopyBuffer(src Buffer, srcOffset uint64, dst Buffer, dstOffset, size uint64) error
	ClearBuffer(b Buffer, offset, size uint64) error
	// CopyBufferToTexture and CopyTextureToBuffer move a whole texture;
	// rows in the buffer are bytesPerRow apart (a multiple of 256).
	CopyBufferToTexture(src Buffer, offset uint64, bytesPerRow uint32, dst Texture) error
	CopyTextureToBuffer(src Texture, dst Buffer, offset uint64, bytesPerRow uint32) error
	ResolveQueries(q QuerySet, first, count uint32, dst Buffer, offset uint64) error
	// Dispatches counts the dispatches encoded since the last Finish.
	Dispatches() int
	// Empty reports whether nothing was encoded since the last Finish.
	Empty() bool
	// Finish ends the pass and the command buffer. On failure nothing is
	// returned that could reach Submit, and the error says what the device
	// refused; the Encoder is ready for new commands either way.
	Finish() (CommandBuffer, error)
	// Discard drops what was encoded since the last Finish.
	Discard()
	Release()
}

// Program is a prebuilt command list that Encoder.Encode replays with as
// few native calls as possible: the sealed form of a graph. It holds
// references to everything its commands use until Release.
type Program interface {
	Dispatch(k Kernel, groups []BindGroup, x, y, z uint32) error
	DispatchIndirect(k Kernel, groups []BindGroup, counts Buffer, offset uint64) error
	CopyBuffer(src Buffer, srcOffset uint64, dst Buffer, dstOffset, size uint64) error
	ClearBuffer(b Buffer, offset, size uint64) error
	// Len is the number of commands; Dispatches the number of dispatches.
	Len() int
	Dispatches() int
	Release()
}

// Live counts native objects made through a device and not yet released.
type Live struct {
	Buffers, Textures, Samplers, BindGroups, Encoders, CommandBuffers, QuerySets, Kernels, Programs int64
}

// Guarder is the extension a driver implements when it can compile a
// kernel's guarded variant: the one call made for graphs (the bodies of If
// and While), found by type assertion like database/sql/driver's optional
// interfaces. A driver without it (the fake, unless told otherwise) makes
// the recorder gate every such dispatch indirectly.
type Guarder interface {
	// Guarded is k's guarded variant (compiled once, cached by the
	// device): the same entry point, but every invocation returns at once
	// unless words[at.x] is non-zero. With latch the variant decides from
	// cond[at.y] instead and its first invocation writes the decision, 1
	// or 0, to words[at.x]. Where words, at and cond bind is the layout
	// returned, as the WGSL front end placed them. It fails when k has no
	// such variant (its last group is the device's last, or the variant is
	// over the device's limits); the caller then gates k another way.
	Guarded(k Kernel, latch bool) (v Kernel, l GuardLayout, err error)
}

// GuardLayout is where a guarded variant's guard binds its resources: all
// in bind group Group, words (enable words, array<u32>, read_write for a
// latch) at binding Words, at (vec4<u32>: x the enable word's index, y
// the condition word's) at At, and for a latch cond (array<u32>) at Cond.
// The WGSL front end decides it; drivers pass it on unchanged.
type GuardLayout struct {
	Group, Words, At, Cond uint32
	// EnableAt and CondAt are the components of the at vector (0 for x)
	// holding the enable word's index and the condition word's index.
	EnableAt, CondAt uint32
}

// AtWords is the at vector (four u32s) of a guarded dispatch: the enable
// word's index and the condition word's index where the layout puts them.
func (l GuardLayout) AtWords(enable, cond uint32) []uint32 {
	v := make([]uint32, 4)
	v[l.EnableAt%4] = enable
	v[l.CondAt%4] = cond
	return v
}

// KernelHandle is a kernel as a public API hands it out (*wgpu.Kernel): the
// two questions the recorder asks before it has the driver view, for its
// messages. Device.Kernel turns it into a Kernel, refusing handles of other
// implementations and devices.
type KernelHandle interface {
	Entry() string
	// Label is the kernel's name (wgpu.WithLabel), or "": errors about a
	// launch name it.
	Label() string
	Released() bool
}

// Info is what the recorder needs to know of a device's adapter.
type Info struct {
	// Software: the adapter is a CPU implementation (lavapipe, llvmpipe),
	// whose "GPU" competes with the host's threads.
	Software bool
	// GL: the adapter is OpenGL (no guarded variants; see recorder's
	// WithPredication).
	GL bool
	// Timestamps: GPU timestamp queries are available.
	Timestamps bool
	// ConcurrentFinish: Encoder.Finish and Encoder.Prepare of different
	// encoders may run at once on several goroutines, and do run in
	// parallel (otherwise they are safe to call at once but one runs at a
	// time). The recorder then finishes each batch on a goroutine of its
	// own as soon as it is handed off, so several batches' pass ends (most
	// of a dispatch's host cost) run at once while its submitter submits in
	// order.
	ConcurrentFinish bool
	// Name and Backend name the adapter in messages ("llvmpipe (LLVM
	// 15.0.6, 256 bits)", "vulkan").
	Name, Backend string
	// FusesChainedFloats: kernels that feed one float operation's result
	// to another fuse exactly on this device (wgpu.Device.FusesChainedFloats
	// says which devices were measured so).
	FusesChainedFloats bool
	Limits             Limits
}

// Limits are the device limits the recorder checks on the host (WebGPU's
// GPUSupportedLimits of the same names).
type Limits struct {
	MaxBufferSize                    uint64
	MaxStorageBufferBindingSize      uint64
	MaxUniformBufferBindingSize      uint64
	MaxComputeWorkgroupsPerDimension uint32
	MinUniformBufferOffsetAlignment  uint32
	MinStorageBufferOffsetAlignment  uint32
	// What a generated (fused) kernel must stay within.
	MaxStorageBuffersPerShaderStage uint32
	MaxUniformBuffersPerShaderStage uint32
	MaxBindingsPerBindGroup         uint32
}

// Locals holds the values packages above the driver keep per device, one
// per Key. The zero value is ready; a device embeds one and drops it with
// itself, so what a package keeps there lives exactly as long as the device.
type Locals struct {
	// ranked sets mu's rank on first use, so the zero Locals is ready.
	ranked sync.Once
	mu     lockrank.Mutex // lockrank.Driver
	m      map[localKey]*localSlot
}

type localKey struct{ p *byte }

type localSlot struct {
	once sync.Once
	v    any // a *T of the slot's Key[T]; set once by Local
}

// Key names one per-device value of type T. Declare one package-level Key
// per kind of value; its address identifies it.
type Key[T any] struct {
	// New makes the device's value on first use.
	New func() *T
	id  byte
}

// Local returns d's value for key, made by key.New on the first call for
// this device; every later call returns the same pointer.
func Local[T any](d Device, key *Key[T]) *T {
	l := d.Locals()
	l.ranked.Do(func() { l.mu.Rank = lockrank.Driver })
	l.mu.Lock()
	if l.m == nil {
		l.m = map[localKey]*localSlot{}
	}
	k := localKey{&key.id}
	sl := l.m[k]
	if sl == nil {
		sl = &localSlot{}
		l.m[k] = sl
	}
	l.mu.Unlock()
	sl.once.Do(func() { sl.v = key.New() })
	return sl.v.(*T) // the slot of key was only ever filled by key.New
}

// Bridge is how a package that implements Device for its public device
// type H (package wgpu: H is *wgpu.Device) hands the driver view of its
// devices to softgraph's own packages without exporting it. It is
// registered once per H, so that every function here is typed on the
// public handle and no caller passes an untyped value.
type Bridge[H comparable] struct {
	// Device returns the driver view of a device.
	Device func(dev H) (Device, error)
	// InjectLoss runs the path the device-lost callback runs, for tests of
	// what follows a loss (which hardware cannot produce on cue).
	InjectLoss func(dev H, reason string)
	// Override makes Device return wrap's result for dev from now on (nil
	// restores the device's own view): how a fault injector is put between
	// a device and the streams opened on it.
	Override func(dev H, wrap func(Device) Device) error
}

// bridges maps the public handle type H to its *Bridge[H]. Register stores
// a *Bridge[H] under H's key and Of loads it back for the same H, so the
// type assertion in bridgeOf cannot fail.
var bridges sync.Map // bridgeKey[H]{} -> *Bridge[H]

type bridgeKey[H comparable] struct{}

// Register installs the bridge for handle type H; package wgpu calls it
// once, from its init.
func Register[H comparable](b Bridge[H]) { bridges.Store(bridgeKey[H]{}, &b) }

// ErrNoBridge: no implementation registered a bridge for the handle type
// (package wgpu was not linked in).
var ErrNoBridge = errors.New("driver: no device implementation registered")

func bridgeOf[H comparable]() (*Bridge[H], error) {
	b, ok := bridges.Load(bridgeKey[H]{})
	if !ok {
		return nil, ErrNoBridge
	}
	return b.(*Bridge[H]), nil
}

// Of returns the driver view of a public device handle (a *wgpu.Device).
func Of[H comparable](dev H) (Device, error) {
	b, err := bridgeOf[H]()
	if err != nil {
		return nil, err
	}
	return b.Device(dev)
}

// InjectLoss marks a device lost, as its device-lost callback would.
func InjectLoss[H comparable](dev H, reason string) {
	if b, err := bridgeOf[H](); err == nil {
		b.InjectLoss(dev, reason)
	}
}

// Override puts wrap(view) between a device and everything that calls Of
// afterwards (streams opened later); nil restores the device's own view.
// For fault injection in tests.
func Override[H comparable](dev H, wrap func(Device) Device) error {
	b, err := bridgeOf[H]()
	if err != nil {
		return err
	}
	return b.Override(dev, wrap)
}
