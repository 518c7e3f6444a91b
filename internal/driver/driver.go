package driver

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/rs/zerolog"
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
	// wgpu.ErrClosed or wgpu.ErrDeviceLost.
	Err() error
	// Logger is the device's logger.
	Logger() zerolog.Logger
	// Local returns the one value the recorder keeps per device, making it
	// with make on the first call. The device does not look inside it.
	Local(make func() any) any

	// Kernel is the driver view of a *wgpu.Kernel of this device. It fails
	// with wgpu.ErrForeignDevice for another device's kernel and
	// wgpu.ErrReleased after the kernel's Release.
	Kernel(k any) (Kernel, error)
	// Guarded is k's guarded variant (compiled once, cached by the
	// device): the same entry point, but every invocation returns at once
	// unless words[at.x] is non-zero, where words (var<storage, read>
	// array<u32>) is binding 0 and at (var<uniform> vec4<u32>) binding 1 of
	// bind group group, the one after k's last. With latch the variant
	// decides from cond[at.y] instead (cond: var<storage, read> array<u32>,
	// binding 2) and its first invocation writes the decision, 1 or 0, to
	// words[at.x] (words is then read_write). It fails when k has no such
	// variant (its last group is the device's last, or the variant is over
	// the device's limits); the caller then gates k another way.
	Guarded(k Kernel, latch bool) (v Kernel, group uint32, err error)

	NewBuffer(size uint64, usage Usage, label string) (Buffer, error)
	// WrapBuffer is a Buffer of an application's native buffer of this
	// device (a *webgpu.Buffer of github.com/cogentcore/webgpu/wgpu, passed
	// as any so that this package stays free of cgo), of size bytes from
	// its start. The native buffer stays the application's: the Buffer
	// holds a reference of its own, which Release drops, and never destroys
	// it. It fails with wgpu.ErrInvalidArgument (nil or not a native
	// buffer, size 0, not a multiple of 4 or past its end, usage without
	// Storage, CopySrc and CopyDst) or wgpu.ErrForeignDevice (made
	// by softgraph on another device).
	WrapBuffer(native any, size uint64, label string) (Buffer, error)
	// NativeBuffer is the *webgpu.Buffer behind b (as any), owned by b: it
	// is valid until b's Release. It fails with wgpu.ErrReleased after
	// that and wgpu.ErrForeignDevice for another device's buffer.
	NativeBuffer(b Buffer) (any, error)
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
	// Groups is the number of bind groups its pipeline layout has.
	Groups() int
	WorkgroupSize() [3]uint32
	// Guarded: k is a guarded variant (Device.Guarded), however it was
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

// Bridge is how package wgpu hands the driver view of its devices to
// softgraph's own packages without exporting it.
type Bridge struct {
	// Device returns the driver view of a *wgpu.Device.
	Device func(dev any) (Device, error)
	// InjectLoss runs the path the device-lost callback runs, for tests of
	// what follows a loss (which hardware cannot produce on cue).
	InjectLoss func(dev any, reason string)
	// Native returns the cogentcore device and queue behind a
	// *wgpu.Device, for examples/graphbench's hand-written baseline.
	Native func(dev any) (device, queue any)
	// Override makes Device return wrap's result for dev from now on (nil
	// restores the device's own view): how a fault injector is put between
	// a device and the streams opened on it.
	Override func(dev any, wrap func(Device) Device) error
}

var bridge atomic.Pointer[Bridge]

// Register installs package wgpu's bridge; it is called once, from that
// package's init.
func Register(b Bridge) { bridge.Store(&b) }

// ErrNoBridge: package wgpu was not linked in.
var ErrNoBridge = errors.New("driver: no device implementation registered")

func current() (*Bridge, error) {
	b := bridge.Load()
	if b == nil {
		return nil, ErrNoBridge
	}
	return b, nil
}

// Of returns the driver view of a *wgpu.Device.
func Of(dev any) (Device, error) {
	b, err := current()
	if err != nil {
		return nil, err
	}
	return b.Device(dev)
}

// InjectLoss marks a *wgpu.Device lost, as its device-lost callback would.
func InjectLoss(dev any, reason string) {
	if b, err := current(); err == nil {
		b.InjectLoss(dev, reason)
	}
}

// Override puts wrap(view) between a *wgpu.Device and everything that
// calls Of afterwards (streams opened later); nil restores the device's
// own view. For fault injection in tests.
func Override(dev any, wrap func(Device) Device) error {
	b, err := current()
	if err != nil {
		return err
	}
	return b.Override(dev, wrap)
}

// Native returns the cogentcore device and queue behind a *wgpu.Device.
func Native(dev any) (device, queue any) {
	if b, err := current(); err == nil {
		return b.Native(dev)
	}
	return nil, nil
}
