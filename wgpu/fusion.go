package wgpu

import (
	"strings"

	"github.com/softgraph/softgraph/wgpu/internal/wgsl"
)

// ErrNotPointwise is wrapped by the *PointwiseError AnalyzePointwise returns
// for a kernel that cannot be fused.
var ErrNotPointwise = wgsl.ErrNotPointwise

// PointwiseError says why an entry point is not pointwise (its Reason).
type PointwiseError = wgsl.PointwiseError

// Pointwise describes an entry point whose invocations read and write
// storage only at their own index (docs/wgsl.md, "Pointwise kernels"):
// its workgroup size, the index in a canonical spelling, and which
// resources it reads at other indices (read-only ones only).
type Pointwise = wgsl.Pointwise

// FusedEntry is the entry point of every module FuseSource writes, and
// FusedHeader the comment it begins with: together they mark a fused
// kernel (a loaded graph's, say).
const (
	FusedEntry  = wgsl.FusedEntry
	FusedHeader = wgsl.FusedHeader
)

// FuseZeroBytes is the size of the uniform buffer of zeros a fused module
// binds after its parts' bindings (FuseZeroBinding), which the caller
// must bind: it is what keeps each part's arithmetic its own
// (docs/fusion.md). MaxFuseParts is the most parts one module runs.
const (
	FuseZeroBytes = wgsl.FuseZeroBytes
	MaxFuseParts  = wgsl.MaxFuseParts
)

// FuseZeroBinding is the @binding, in @group(0), of the zero words of the
// module FuseSource writes for parts: one past their largest slot.
func FuseZeroBinding(parts []FusePart) uint32 { return wgsl.FuseZeroBinding(parts) }

// FusePart is one kernel of a chain FuseSource fuses: its source, entry
// point, and per resource the binding it gets in the fused module and
// whether it is declared read_write there.
type FusePart = wgsl.FusePart

// FuseShareable reports whether parts of different kernels may share a
// binding of store type typ in FuseSource: a runtime array of a
// predeclared scalar or vector type (array<f32>, array<vec4<u32>>). A type
// that names a module's declarations (array<Particle>) is each part's own
// in the fused module, so only parts of one kernel share it.
func FuseShareable(typ string) bool { return wgsl.Shareable(typ) }

// AnalyzePointwise decides, from the WGSL alone, whether entry of source is
// pointwise: one entry point with a 1-D workgroup size, builtin invocation
// ids as its only parameters, no workgroup memory, barriers, atomics,
// subgroup or derivative builtins, textures or overrides, and every storage
// access NAME[i] for one invocation index i (reads of read-only storage at
// other indices are allowed and reported). A source that does not
// specialize returns that error; a kernel that is not pointwise a
// *PointwiseError wrapping ErrNotPointwise, whose Reason names what was
// refused. The analysis is conservative: what it does not recognise is not
// pointwise. It compiles nothing.
func AnalyzePointwise(source, entry string) (*Pointwise, error) {
	return wgsl.AnalyzePointwise(source, entry)
}

// BindOverrides is source with every override turned into a const of its
// value under constants, as Device.Kernel's WithConstants binds them, and
// nothing else changed: the text of a kernel compiled with constants that
// AnalyzePointwise and FuseSource take.
func BindOverrides(source string, constants map[string]float64) (string, error) {
	return wgsl.BindOverrides(source, constants)
}

// FuseSource writes one WGSL module whose entry point runs each part's
// entry point, in order, in every invocation (each body a function of its
// own, so a return leaves only that body), with the parts' resources
// re-bound to @group(0) at the bindings the parts ask for. It returns the
// module and its entry point's name; Device.Kernel compiles it. Whether the
// fused kernel computes what the parts did as separate dispatches depends
// on the buffers bound, which FuseSource does not see: the recorder's
// fusion pass (recorder.WithFusion) checks that.
func FuseSource(parts []FusePart) (source, entry string, err error) {
	src, err := wgsl.Fuse(parts)
	if err != nil {
		return "", "", err
	}
	return src, FusedEntry, nil
}

// AnalyzeProducer decides whether entry of source can begin a fused chain
// as an epilogue's producer: a kernel that need not be pointwise (a tiled
// matrix multiply with workgroup memory and barriers) but stores each
// read_write buffer once per invocation, outside loops, at one invocation
// index, and touches those buffers nowhere else. Pointwise kernels that
// follow it and read what it stored at that index then run inside its
// invocations (FusePart.Producer; docs/fusion.md, "Epilogues").
func AnalyzeProducer(source, entry string) (*Pointwise, error) {
	return wgsl.AnalyzeProducer(source, entry)
}

// FuseJoins reports whether part p can run inside the invocations of
// head, the first part of a fused chain, for dispatches covering the same
// global invocation ids: the same index function and workgroup size, or
// a part that takes only the global id.
func FuseJoins(head, p *Pointwise) bool { return wgsl.Joins(head, p) }

// FusesChainedFloats reports whether fusion may fuse, on this device,
// kernels that feed one float operation's result to another
// (Pointwise.ChainsFloats). Such a kernel leaves its compiler free to
// contract a multiply and an add into an fma, or to reassociate, and
// whether a compiler uses that freedom alike for the kernel alone and
// inside a fused module is measured per device, not given by WGSL: the
// differential sweeps (docs/fusion.md) found Mesa's llvmpipe (its Vulkan
// driver, lavapipe, and its OpenGL) and NVIDIA's OpenGL driver exact over
// 10000 random chains each, and NVIDIA's Vulkan driver not (8 chains of
// 10000 on an H100). Every other device, unmeasured, is not trusted with
// them: fusion leaves such kernels unfused there and Graph.String says
// why. Kernels of single float operations, and integer kernels, fuse on
// every device.
func (d *Device) FusesChainedFloats() bool { return fusesChainedFloats(d.Info()) }

// fusesChainedFloats is FusesChainedFloats for an adapter.
func fusesChainedFloats(info AdapterInfo) bool {
	name := strings.ToLower(info.Name)
	switch {
	case strings.Contains(name, "llvmpipe"):
		return true
	case info.Backend == BackendGL && (strings.Contains(name, "nvidia") || strings.Contains(strings.ToLower(info.Vendor), "nvidia")):
		return true
	}
	return false
}
