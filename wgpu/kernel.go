package wgpu

// #include "native.h"
import "C"

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/wgpu/internal/wgsl"
)

// BindingKind is what a binding of a kernel holds.
type BindingKind uint8

const (
	// BindStorage is var<storage, read_write>.
	BindStorage BindingKind = iota
	// BindReadOnlyStorage is var<storage, read> or var<storage>.
	BindReadOnlyStorage
	// BindUniform is var<uniform>.
	BindUniform
	// BindTexture is a sampled texture (texture_2d<f32>, texture_3d<u32>, ...).
	BindTexture
	// BindStorageTexture is texture_storage_2d<format, access> or _3d.
	BindStorageTexture
	// BindSampler is sampler.
	BindSampler
	// BindComparisonSampler is sampler_comparison.
	BindComparisonSampler
)

func (k BindingKind) String() string {
	switch k {
	case BindStorage:
		return "storage"
	case BindReadOnlyStorage:
		return "read-only storage"
	case BindUniform:
		return "uniform"
	case BindTexture:
		return "texture"
	case BindStorageTexture:
		return "storage texture"
	case BindSampler:
		return "sampler"
	case BindComparisonSampler:
		return "comparison sampler"
	}
	return fmt.Sprintf("BindingKind(%d)", uint8(k))
}

// IsBuffer reports whether the binding takes a buffer.
func (k BindingKind) IsBuffer() bool { return k <= BindUniform }

// Binding describes one resource a kernel's entry point uses, as its WGSL
// declares it. A launch passes one argument per Binding, in the order
// Kernel.Bindings lists them: by group, then binding number.
type Binding struct {
	Group, Binding uint32
	Name           string      // the variable's name in the WGSL
	Kind           BindingKind // what it holds
	Type           string      // the store type as written: "array<f32>", "Params", "texture_2d<f32>", ...
	MinSize        uint64      // buffers: the fewest bytes a bound buffer must have
	Dim            string      // textures: "2d", "3d", ...
	SampleType     string      // sampled textures: "float", "unfilterable-float", "sint", "uint", "depth"
	Format         string      // storage textures: the texel format
	Access         string      // storage buffers and textures: "read", "write" or "read_write"
}

// String names the binding for messages: "@group(0) @binding(1) dst (storage)".
func (b Binding) String() string {
	return fmt.Sprintf("@group(%d) @binding(%d) %s (%s)", b.Group, b.Binding, b.Name, b.Kind)
}

// KernelOption configures Device.Kernel.
type KernelOption func(*kernelOptions)

type kernelOptions struct {
	constants map[string]float64
	private   bool
	label     string
}

// Private compiles a kernel of the caller's own: it is neither taken from
// nor added to the device's cache, so its Release frees it whatever else
// compiled the same source, and nothing else can get hold of it. The
// recorder compiles a graph file's kernels this way, so that releasing the
// loaded graph, or a refused load, frees them. Like every kernel, one
// still live when its Device closes is released by Close.
func Private() KernelOption { return func(o *kernelOptions) { o.private = true } }

// WithLabel names the kernel: graphs show the label in place of the entry
// point (Graph.String, WriteDOT, ReplayProfile), so kernels whose entry
// points are all "main" can be told apart. The label is part of the
// kernel's identity in the Device's cache: the same source and entry with
// two labels are two Kernels (each compiled once).
func WithLabel(name string) KernelOption {
	return func(o *kernelOptions) { o.label = name }
}

// WithConstants gives pipeline-overridable constants: values for the WGSL
// module's `override` declarations, keyed by the override's name or by its
// @id as decimal text ("7"). An override without a value takes its
// default; one with neither is an error naming it, and so is a key that
// names no override. Values must be representable in the override's type.
func WithConstants(c map[string]float64) KernelOption {
	return func(o *kernelOptions) { o.constants = maps.Clone(c) }
}

// Kernel is a compiled WGSL compute entry point: its pipeline, and explicit
// bind group layouts derived from the resources the entry point uses.
//
// The layouts are explicit on purpose: a pipeline with an automatic layout
// keeps only the bindings its entry point uses, and a bind group carrying an
// entry for a declared-but-unused binding is then a validation error. With
// the layouts taken from the reflected entry point, argument i always meets
// binding i of Bindings. The bindings the module declares and the entry
// point does not use (DeclaredBindings lists them with the rest) stay out
// of the layout: in it they would count against the per-stage binding
// limits and the usage-conflict rule of every dispatch, for resources the
// shader never touches. A launch passing them has them checked, not bound.
//
// Kernels are cached by their Device: Device.Kernel with the same source,
// entry and constants returns the same *Kernel until Release. Release frees
// the kernel's native objects once nothing uses them (graphs, and work
// already encoded, hold their own references), removes it from the cache,
// and makes every later launch with it fail with ErrReleased; it releases
// the kernel for every holder of the *Kernel. Device.Close releases every
// kernel.
type Kernel struct {
	life
	dev       *Device
	key       kernelKey
	entry     string
	label     string // WithLabel's name, or ""
	source    string
	constants map[string]float64 // every override's value
	resources []driver.Resource  // launch-argument order
	// declared are resources plus the module's declared resources the
	// entry point does not use, by (group, binding): the other argument
	// order a launch may take (DeclaredBindings). It is resources itself
	// when the entry point uses every declared resource.
	declared []driver.Resource
	// storageOnGL holds the (group, binding) of each uniform the rewritten
	// source declares var<storage, read> (OpenGL; wgsl.Resource.StorageOnGL):
	// its layout entry and bind group need a storage buffer binding.
	storageOnGL map[[2]uint32]bool
	bindings    []Binding
	declBinds   []Binding // declared, as Bindings
	wgSize      [3]uint32
	groups      int // bind groups in the pipeline layout
	guarded     bool
	// variants are the guarded variants made of this kernel (the driver's
	// Guarded), released with it. Guarded by dev.kernelsMu.
	variants []*Kernel

	module   *wgpu.ShaderModule      // owned
	layouts  []*wgpu.BindGroupLayout // owned; one per group index
	empty    []*wgpu.BindGroup       // owned; for group indices with no bindings
	playout  *wgpu.PipelineLayout    // owned
	pipeline *wgpu.ComputePipeline   // owned
	raw      C.WGPUComputePipeline
	view     *kernelView
}

type kernelKey struct{ source, entry, constants, label string }

// The getters answer a nil *Kernel with zero values, like Release.

// Entry is the kernel's entry point name.
func (k *Kernel) Entry() string {
	if k == nil {
		return ""
	}
	return k.entry
}

// Label is the name given with WithLabel ("" if none).
func (k *Kernel) Label() string {
	if k == nil {
		return ""
	}
	return k.label
}

// Name is the label, or the entry point when the kernel has no label.
func (k *Kernel) Name() string {
	if k == nil {
		return ""
	}
	if k.label != "" {
		return k.label
	}
	return k.entry
}

// Device is the device the kernel was compiled on.
func (k *Kernel) Device() *Device {
	if k == nil {
		return nil
	}
	return k.dev
}

// Source is the WGSL the kernel was compiled from, as given.
func (k *Kernel) Source() string {
	if k == nil {
		return ""
	}
	return k.source
}

// Constants are the values every override of the module took (given or
// default), by name.
func (k *Kernel) Constants() map[string]float64 {
	if k == nil {
		return nil
	}
	return maps.Clone(k.constants)
}

// Bindings lists the resources the entry point uses, in launch-argument
// order (by group, then binding).
func (k *Kernel) Bindings() []Binding {
	if k == nil {
		return nil
	}
	return slices.Clone(k.bindings)
}

// DeclaredBindings lists every resource binding the kernel's module
// declares, in (group, binding) order: Bindings plus the ones the entry
// point does not use, one per (group, binding) (where several unused
// variables share one, the first in the source). A launch may pass its
// arguments in this order instead, as code generated by Cogent Core's gosl
// does; the arguments for the unused bindings are checked like the others
// and not bound, since the kernel's pipeline layout holds only the
// bindings its entry point uses (see Kernel). It equals Bindings when the
// entry point uses every declared binding.
func (k *Kernel) DeclaredBindings() []Binding {
	if k == nil {
		return nil
	}
	return slices.Clone(k.declBinds)
}

// WorkgroupSize is the entry point's @workgroup_size, with overrides and
// constant expressions evaluated and missing dimensions 1.
func (k *Kernel) WorkgroupSize() [3]uint32 {
	if k == nil {
		return [3]uint32{}
	}
	return k.wgSize
}

// Released reports whether Release was called (true for a nil Kernel,
// which no launch accepts either).
func (k *Kernel) Released() bool {
	if k == nil {
		return true
	}
	return k.life.Released()
}

// Release frees the kernel (see Kernel). Idempotent and nil-safe.
//
// It does all of its work inside the device's gate. The device's kernel
// maps are how Close finds the kernels to free before the device (kernels
// are not in its object set): a Release that took a kernel out of them and
// then found Close begun left it to nobody, and its pipeline outlived the
// device, which aborted the next device's first submission. A Release that
// finds Close begun does nothing; Close frees the kernel.
func (k *Kernel) Release() {
	if k == nil {
		return
	}
	if !k.dev.use.enter() {
		return
	}
	defer k.dev.use.leave()
	k.dev.kernelsMu.Lock()
	if k.dev.kernels != nil && k.dev.kernels[k.key] == k {
		delete(k.dev.kernels, k.key)
	}
	delete(k.dev.private, k)
	k.dev.kernelsMu.Unlock()
	k.life.release(k)
	k.dev.kernelsMu.Lock()
	variants := k.variants
	k.variants = nil
	k.dev.kernelsMu.Unlock()
	// Graphs already built with a variant keep its pipeline (their native
	// command lists hold it); the cache must not keep it past the kernel.
	for _, v := range variants {
		v.Release()
	}
}

// freeNative releases the kernel's native objects, then polls the device
// once without blocking. wgpu-core (v22) frees a released pipeline, its
// layouts and its shader module only at the device's next maintenance — a
// submit or a poll — and until then keeps them, with the driver's compiled
// code, alive though no handle is left: 1500 refused LoadGraph calls, which
// compile a file's kernels and release them without submitting anything,
// grew the RSS from 85 to 273 MB on lavapipe (about 120 KiB a kernel,
// measured; the same without softgraph's recorder, docs/design.md "Native
// memory"). The poll is what a submit would do; it blocks on nothing.
func (k *Kernel) freeNative() {
	k.dev.lockGL()
	k.pipeline.Release()
	k.playout.Release()
	for _, g := range k.empty {
		if g != nil {
			g.Release()
		}
	}
	for _, l := range k.layouts {
		l.Release()
	}
	k.module.Release()
	k.dev.unlockGL()
	k.dev.live.kernels.Add(-1)
	k.dev.triage(true)
}

// Kernel compiles the WGSL compute entry point entry of source, or returns
// the cached *Kernel for the same source, entry and constants.
//
// The source is read by softgraph's own WGSL front-end first (comments,
// attributes in any order, overrides, every bind group, textures and
// samplers), then compiled by wgpu-native's. The bundled compiler predates
// `override`; each override is replaced by a module-scope const with its
// value before compiling, so `@workgroup_size(blockSize)` works. Integer
// `/` and `%` (i32 and u32, scalar or vector, `/=` and `%=` included)
// whose divisor is not a constant that makes the target's instruction
// exact become calls of helpers appended after the last line, giving
// WGSL's result for every divisor on every backend (the bundled compiler
// leaves zero divisors to the driver, and on OpenGL writes GLSL's %,
// undefined for negative operands, so there every i32 remainder does).
//
// Failures are a *CompileError (wrapping ErrCompile) with the compiler's
// diagnostic: invalid WGSL, a missing or non-compute entry point, a kernel
// over this device's limits (workgroup size, invocations, workgroup
// storage, bind groups, bindings per stage), an integer division by zero
// in a constant expression, an integer `/=` or `%=` in a for loop's
// header that needs a helper and whose left-hand side calls a function,
// and an override given no value;
// a constants key naming no override is an *Error wrapping
// ErrInvalidArgument. It never panics and never aborts the process.
func (d *Device) Kernel(source, entry string, opts ...KernelOption) (*Kernel, error) {
	const op = "Kernel"
	if err := d.enter(op); err != nil {
		return nil, err
	}
	defer d.leave()
	var o kernelOptions
	for _, opt := range opts {
		if opt != nil { // a nil option sets nothing
			opt(&o)
		}
	}
	if entry == "" {
		return nil, opError(op, ErrInvalidArgument, "entry=\"\"")
	}
	if strings.TrimSpace(source) == "" {
		return nil, opError(op, ErrInvalidArgument, "source is empty")
	}
	// wgpu-native converts both strings to Rust strs and panics (aborting
	// the process) on invalid UTF-8; a NUL would cut the C string short.
	if !utf8.ValidString(source) || strings.IndexByte(source, 0) >= 0 {
		return nil, opError(op, ErrInvalidArgument, "source is not valid UTF-8 text without NUL bytes")
	}
	if !utf8.ValidString(entry) || strings.IndexByte(entry, 0) >= 0 {
		return nil, opError(op, ErrInvalidArgument, "entry=%q is not valid UTF-8 text without NUL bytes", entry)
	}
	if !utf8.ValidString(o.label) {
		return nil, opError(op, ErrInvalidArgument, "label %q is not valid UTF-8", o.label)
	}
	key := kernelKey{source, entry, constantsKey(o.constants), o.label}
	d.kernelsMu.Lock()
	defer d.kernelsMu.Unlock()
	if k, ok := d.kernels[key]; ok && !o.private {
		return k, nil
	}
	k, err := d.compile(source, entry, o.label, o.constants)
	if err != nil {
		return nil, err
	}
	k.key, k.label = key, o.label // Release drops the cache entry only if it is this kernel
	if o.private {
		if d.private == nil {
			d.private = map[*Kernel]struct{}{}
		}
		d.private[k] = struct{}{}
	} else {
		d.kernels[key] = k
	}
	d.live.kernels.Add(1)
	d.log.Debug().Str("entry", entry).Int("bindings", len(k.bindings)).Msg("kernel compiled")
	return k, nil
}

func constantsKey(c map[string]float64) string {
	if len(c) == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(c))
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(strconv.FormatFloat(c[k], 'g', -1, 64))
		b.WriteByte(';')
	}
	return b.String()
}

// compile reflects the entry point, checks it against the device's limits,
// and builds module, layouts and pipeline. Every native object made on the
// way is released on failure.
//
// The native objects are named after the kernel ("label (entry)", or the
// entry point without a label), so the device's messages about a dispatch
// say which kernel it was.
func (d *Device) compile(source, entry, label string, constants map[string]float64) (_ *Kernel, err error) {
	defer func() {
		if ce, ok := errors.AsType[*CompileError](err); ok && ce.Label == "" {
			ce.Label = label
		}
	}()
	spec, err := wgsl.Specialize(source, entry, wgsl.Options{Constants: constants, OpenGL: d.info.Backend == BackendGL})
	if err != nil {
		// A constants value the caller got wrong (a key naming no
		// override, a value the override's type cannot hold) is a bad
		// argument; an override the module leaves without any value is
		// the kernel's own fault, a compile error as documented.
		var oe *wgsl.OverrideError
		if errors.As(err, &oe) && !errors.Is(err, wgsl.ErrMissingOverride) {
			return nil, &Error{Op: "Kernel", Arg: "constants", Err: fmt.Errorf("%w: %v", ErrInvalidArgument, err)}
		}
		return nil, &CompileError{Entry: entry, Diagnostic: err.Error()}
	}
	if err := d.checkLimits(spec); err != nil {
		return nil, &CompileError{Entry: entry, Diagnostic: err.Error()}
	}
	k := &Kernel{dev: d, entry: entry, source: source, constants: spec.Overrides, wgSize: spec.WorkgroupSize, guarded: spec.Guarded}
	if k.constants == nil {
		k.constants = map[string]float64{}
	}
	defer func() {
		if err != nil {
			k.freePartial()
		}
	}()
	for _, r := range spec.Resources {
		dr := resourceOf(r)
		if why := unbindableTexture(dr); why != "" && d.info.Backend == BackendGL {
			return nil, &CompileError{Entry: entry, Diagnostic: fmt.Sprintf("@group(%d) @binding(%d) %s: %s", r.Group, r.Binding, r.Name, why)}
		}
		if d.info.Backend == BackendGL && dr.Kind == driver.ResourceStorageTexture {
			if why := glStorageRefusal(dr.Format, dr.Dim, dr.Access); why != "" {
				return nil, &CompileError{Entry: entry, Diagnostic: fmt.Sprintf("@group(%d) @binding(%d) %s: %s", r.Group, r.Binding, r.Name, why)}
			}
		}
		k.resources = append(k.resources, dr)
		if r.StorageOnGL {
			if k.storageOnGL == nil {
				k.storageOnGL = map[[2]uint32]bool{}
			}
			k.storageOnGL[[2]uint32{r.Group, r.Binding}] = true
		}
		k.bindings = append(k.bindings, bindingOf(dr))
		k.groups = max(k.groups, int(r.Group)+1)
	}
	k.declared, k.declBinds = k.resources, k.bindings
	if len(spec.Declared) > len(spec.Resources) {
		k.declared, k.declBinds = nil, nil
		for _, r := range spec.Declared {
			dr := resourceOf(r)
			k.declared = append(k.declared, dr)
			k.declBinds = append(k.declBinds, bindingOf(dr))
		}
	}
	native := entry
	if label != "" {
		native = label + " (" + entry + ")"
	}

	var cerr error
	typ, msg := scopedError(d, func() {
		k.module, cerr = d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
			Label:          native,
			WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: spec.Source},
		})
	})
	if err := compileFailure(entry, cerr, typ, msg, spec.Source); err != nil {
		return nil, err
	}
	for g := 0; g < k.groups; g++ {
		var entries []wgpu.BindGroupLayoutEntry
		for _, r := range k.resources {
			if int(r.Group) == g {
				e := layoutEntry(r)
				if k.storageOnGL[[2]uint32{r.Group, r.Binding}] {
					e.Buffer.Type = wgpu.BufferBindingTypeReadOnlyStorage
				}
				entries = append(entries, e)
			}
		}
		var l *wgpu.BindGroupLayout
		typ, msg = scopedError(d, func() {
			l, cerr = d.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: native, Entries: entries})
		})
		if l != nil {
			k.layouts = append(k.layouts, l)
		}
		if err := compileFailure(entry, cerr, typ, msg, ""); err != nil {
			return nil, err
		}
		var empty *wgpu.BindGroup
		if len(entries) == 0 {
			typ, msg = scopedError(d, func() {
				empty, cerr = d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Layout: l})
			})
			if err := compileFailure(entry, cerr, typ, msg, ""); err != nil {
				return nil, err
			}
		}
		k.empty = append(k.empty, empty)
	}
	typ, msg = scopedError(d, func() {
		k.playout, cerr = d.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: native, BindGroupLayouts: k.layouts})
	})
	if err := compileFailure(entry, cerr, typ, msg, ""); err != nil {
		return nil, err
	}
	typ, msg = scopedError(d, func() {
		d.lockGL()
		defer d.unlockGL()
		k.pipeline, cerr = d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
			Label:   native,
			Layout:  k.playout,
			Compute: wgpu.ProgrammableStageDescriptor{Module: k.module, EntryPoint: spec.Entry},
		})
	})
	if err := compileFailure(entry, cerr, typ, msg, spec.Source); err != nil {
		return nil, err
	}
	k.raw = rawPipeline(k.pipeline)
	k.view = &kernelView{k}
	k.init()
	return k, nil
}

// unbindableTexture says why no texture softgraph makes can be bound to
// r ("" when one can): recorder textures are 2D or 3D, of color formats,
// with one mip level and one sample. On OpenGL naga v22 or the driver
// refuses several of the builtins over these kinds with internal errors
// (textureNumLayers of a texture_2d_array, textureNumSamples, textureLoad
// of a depth texture), so there Kernel refuses such a kernel with this
// reason; elsewhere it compiles (a module is valid WGSL whatever textures
// exist), and Launch refuses a texture bound to such a binding.
func unbindableTexture(r driver.Resource) string {
	if r.Kind != driver.ResourceTexture && r.Kind != driver.ResourceStorageTexture {
		return ""
	}
	switch {
	case r.Multisampled:
		return "a multisampled texture binding: softgraph's textures have one sample (no multisampled texture can be bound)"
	case r.SampleType == "depth":
		return "a depth texture binding (texture_depth_*): softgraph's textures have color formats; load depth values from an r32float texture_2d<f32> instead"
	case r.Dim != "2d" && r.Dim != "3d":
		return fmt.Sprintf("a texture_%s binding: softgraph makes 2D and 3D textures only (no arrays, cube maps or 1D textures)", r.Dim)
	}
	return ""
}

// freePartial releases what a failed compile made.
func (k *Kernel) freePartial() {
	if k.pipeline != nil {
		k.dev.lockGL()
		k.pipeline.Release()
		k.dev.unlockGL()
	}
	if k.playout != nil {
		k.playout.Release()
	}
	for _, g := range k.empty {
		if g != nil {
			g.Release()
		}
	}
	for _, l := range k.layouts {
		l.Release()
	}
	if k.module != nil {
		k.module.Release()
	}
}

// checkLimits refuses a kernel the device cannot run. A kernel over
// maxComputeWorkgroupStorageSize compiles and launches on some drivers and
// then loses the device (seen on the H200: 256 KiB of var<workgroup> against
// its 48 KiB), and the next submission aborts the process; so it is refused
// here, from the reflection, before any native call.
func (d *Device) checkLimits(k *wgsl.Kernel) error {
	l := d.info.Limits
	ws := k.WorkgroupSize
	if ws[0] > l.MaxComputeWorkgroupSizeX || ws[1] > l.MaxComputeWorkgroupSizeY || ws[2] > l.MaxComputeWorkgroupSizeZ {
		return fmt.Errorf("@workgroup_size(%d, %d, %d) is over this device's maxComputeWorkgroupSize (%d, %d, %d)",
			ws[0], ws[1], ws[2], l.MaxComputeWorkgroupSizeX, l.MaxComputeWorkgroupSizeY, l.MaxComputeWorkgroupSizeZ)
	}
	if n := uint64(ws[0]) * uint64(ws[1]) * uint64(ws[2]); n > uint64(l.MaxComputeInvocationsPerWorkgroup) {
		return fmt.Errorf("@workgroup_size(%d, %d, %d) is %d invocations, over this device's maxComputeInvocationsPerWorkgroup %d",
			ws[0], ws[1], ws[2], n, l.MaxComputeInvocationsPerWorkgroup)
	}
	if k.WorkgroupStorage > uint64(l.MaxComputeWorkgroupStorageSize) {
		return fmt.Errorf("the entry point uses %d bytes of var<workgroup> memory, over this device's maxComputeWorkgroupStorageSize %d",
			k.WorkgroupStorage, l.MaxComputeWorkgroupStorageSize)
	}
	var storage, uniform, textures, samplers, storageTextures uint32
	for _, r := range k.Resources {
		if r.Group >= l.MaxBindGroups {
			return fmt.Errorf("%s is in @group(%d); this device has %d bind groups (0..%d)", r.Name, r.Group, l.MaxBindGroups, l.MaxBindGroups-1)
		}
		if r.Binding >= l.MaxBindingsPerBindGroup {
			return fmt.Errorf("%s is @binding(%d); this device allows bindings 0..%d", r.Name, r.Binding, l.MaxBindingsPerBindGroup-1)
		}
		switch r.Kind {
		case wgsl.ResourceStorage, wgsl.ResourceReadOnlyStorage:
			storage++
		case wgsl.ResourceUniform:
			if r.StorageOnGL {
				storage++
			} else {
				uniform++
			}
		case wgsl.ResourceTexture:
			textures++
		case wgsl.ResourceStorageTexture:
			storageTextures++
		case wgsl.ResourceSampler, wgsl.ResourceComparisonSampler:
			samplers++
		}
	}
	for _, c := range []struct {
		what       string
		n, limit   uint32
		limitsName string
	}{
		{"storage buffers", storage, l.MaxStorageBuffersPerShaderStage, "maxStorageBuffersPerShaderStage"},
		{"uniform buffers", uniform, l.MaxUniformBuffersPerShaderStage, "maxUniformBuffersPerShaderStage"},
		{"sampled textures", textures, l.MaxSampledTexturesPerShaderStage, "maxSampledTexturesPerShaderStage"},
		{"storage textures", storageTextures, l.MaxStorageTexturesPerShaderStage, "maxStorageTexturesPerShaderStage"},
		{"samplers", samplers, l.MaxSamplersPerShaderStage, "maxSamplersPerShaderStage"},
	} {
		if c.n > c.limit {
			return fmt.Errorf("the entry point uses %d %s, over this device's %s %d", c.n, c.what, c.limitsName, c.limit)
		}
	}
	return nil
}

func resourceOf(r wgsl.Resource) driver.Resource {
	out := driver.Resource{Group: r.Group, Binding: r.Binding, Name: r.Name, Type: r.Type, MinSize: r.MinSize,
		Multisampled: r.Multisampled, Format: r.Format}
	switch r.Kind {
	case wgsl.ResourceStorage:
		out.Kind, out.Access = driver.ResourceStorage, "read_write"
	case wgsl.ResourceReadOnlyStorage:
		out.Kind, out.Access = driver.ResourceReadOnlyStorage, "read"
	case wgsl.ResourceUniform:
		out.Kind = driver.ResourceUniform
	case wgsl.ResourceTexture:
		out.Kind = driver.ResourceTexture
	case wgsl.ResourceStorageTexture:
		out.Kind = driver.ResourceStorageTexture
	case wgsl.ResourceSampler:
		out.Kind = driver.ResourceSampler
	case wgsl.ResourceComparisonSampler:
		out.Kind = driver.ResourceComparisonSampler
	}
	if r.Kind == wgsl.ResourceTexture || r.Kind == wgsl.ResourceStorageTexture {
		out.Dim = dimName(r.Dim)
	}
	if r.Kind == wgsl.ResourceTexture {
		switch r.SampleType {
		case wgsl.SampleFloat:
			// A texture the entry point samples with a filtering call needs a
			// filterable format; one it only loads from accepts every float
			// format (rgba32float included).
			out.SampleType = "unfilterable-float"
			if r.Filtered {
				out.SampleType = "float"
			}
		case wgsl.SampleSint:
			out.SampleType = "sint"
		case wgsl.SampleUint:
			out.SampleType = "uint"
		case wgsl.SampleDepth:
			out.SampleType = "depth"
		}
	}
	if r.Kind == wgsl.ResourceStorageTexture {
		switch r.Access {
		case wgsl.AccessRead:
			out.Access = "read"
		case wgsl.AccessWrite:
			out.Access = "write"
		default:
			out.Access = "read_write"
		}
	}
	return out
}

func dimName(d wgsl.TextureDim) string {
	switch d {
	case wgsl.Dim1D:
		return "1d"
	case wgsl.Dim2D:
		return "2d"
	case wgsl.Dim2DArray:
		return "2d_array"
	case wgsl.Dim3D:
		return "3d"
	case wgsl.DimCube:
		return "cube"
	case wgsl.DimCubeArray:
		return "cube_array"
	}
	return "?"
}

func bindingOf(r driver.Resource) Binding {
	return Binding{Group: r.Group, Binding: r.Binding, Name: r.Name, Kind: BindingKind(r.Kind), Type: r.Type,
		MinSize: r.MinSize, Dim: r.Dim, SampleType: r.SampleType, Format: r.Format, Access: r.Access}
}

var viewDims = map[string]wgpu.TextureViewDimension{
	"1d": wgpu.TextureViewDimension1D, "2d": wgpu.TextureViewDimension2D, "2d_array": wgpu.TextureViewDimension2DArray,
	"3d": wgpu.TextureViewDimension3D, "cube": wgpu.TextureViewDimensionCube, "cube_array": wgpu.TextureViewDimensionCubeArray,
}

var sampleTypes = map[string]wgpu.TextureSampleType{
	"float": wgpu.TextureSampleTypeFloat, "unfilterable-float": wgpu.TextureSampleTypeUnfilterableFloat,
	"sint": wgpu.TextureSampleTypeSint, "uint": wgpu.TextureSampleTypeUint, "depth": wgpu.TextureSampleTypeDepth,
}

func layoutEntry(r driver.Resource) wgpu.BindGroupLayoutEntry {
	e := wgpu.BindGroupLayoutEntry{Binding: r.Binding, Visibility: wgpu.ShaderStageCompute}
	switch r.Kind {
	case driver.ResourceStorage:
		e.Buffer.Type = wgpu.BufferBindingTypeStorage
	case driver.ResourceReadOnlyStorage:
		e.Buffer.Type = wgpu.BufferBindingTypeReadOnlyStorage
	case driver.ResourceUniform:
		e.Buffer.Type = wgpu.BufferBindingTypeUniform
	case driver.ResourceTexture:
		e.Texture = wgpu.TextureBindingLayout{SampleType: sampleTypes[r.SampleType], ViewDimension: viewDims[r.Dim], Multisampled: r.Multisampled}
	case driver.ResourceStorageTexture:
		access := wgpu.StorageTextureAccessReadWrite
		switch r.Access {
		case "read":
			access = wgpu.StorageTextureAccessReadOnly
		case "write":
			access = wgpu.StorageTextureAccessWriteOnly
		}
		e.StorageTexture = wgpu.StorageTextureBindingLayout{Access: access, Format: texelFormats[r.Format].format, ViewDimension: viewDims[r.Dim]}
	case driver.ResourceSampler:
		e.Sampler.Type = wgpu.SamplerBindingTypeFiltering
	case driver.ResourceComparisonSampler:
		e.Sampler.Type = wgpu.SamplerBindingTypeComparison
	}
	return e
}

// compileFailure turns what a scoped creation reported into a
// *CompileError; source, when given, lets it add a hint for the bundled
// compiler's known gaps.
func compileFailure(entry string, err error, typ ErrorType, msg, source string) error {
	var diag string
	switch {
	case err != nil:
		diag = err.Error()
		if i := strings.Index(diag, "(): "); i >= 0 {
			diag = diag[i+4:]
		}
	case typ != ErrorNone:
		diag = typ.String() + ": " + msg
	default:
		return nil
	}
	return &CompileError{Entry: entry, Diagnostic: diag, Hint: abstractIntHint(diag, source)}
}

// kernelView is the driver.Kernel of a Kernel.
type kernelView struct{ k *Kernel }

func (v *kernelView) Release()                      { v.k.Release() }
func (v *kernelView) Released() bool                { return v.k.Released() }
func (v *kernelView) Entry() string                 { return v.k.entry }
func (v *kernelView) Label() string                 { return v.k.label }
func (v *kernelView) Source() string                { return v.k.source }
func (v *kernelView) Constants() map[string]float64 { return maps.Clone(v.k.constants) }
func (v *kernelView) Resources() []driver.Resource  { return v.k.resources }
func (v *kernelView) Declared() []driver.Resource   { return v.k.declared }
func (v *kernelView) Groups() int                   { return v.k.groups }
func (v *kernelView) WorkgroupSize() [3]uint32      { return v.k.wgSize }
func (v *kernelView) Guarded() bool                 { return v.k.guarded }

func (d *Device) ownKernel(op string, x driver.Kernel) (*Kernel, error) {
	v, ok := x.(*kernelView)
	if !ok || v == nil {
		return nil, opError(op, ErrInvalidArgument, "kernel is nil or not a kernel of this package")
	}
	if v.k.dev != d {
		return nil, opError(op, ErrForeignDevice, "kernel %q", v.k.entry)
	}
	if !v.k.acquire() {
		return nil, opError(op, ErrReleased, "kernel %q", v.k.entry)
	}
	return v.k, nil
}

func sortStrings(s []string) { sort.Strings(s) }
