package wgpu

// #include <stdlib.h>
// #include "native.h"
import "C"

import (
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// On OpenGL, wgpu-hal puts a memory barrier in front of a command only for
// a buffer whose previous use was a writable storage binding (design.md,
// hazard 23). Encoders there follow the buffers each command uses and, where
// a dispatch, copy or clear writes a buffer read since the last barrier
// they can be sure of, dispatch the barrier kernel first (native.c, "OpenGL
// barriers"); read-only storage stays read-only. glBarrier is that kernel:
// one invocation binding a 16-byte buffer writable, which it never writes
// (the buffer starts zeroed).
type glBarrier struct {
	module   *wgpu.ShaderModule
	layout   *wgpu.BindGroupLayout
	playout  *wgpu.PipelineLayout
	pipeline *wgpu.ComputePipeline
	buf      *wgpu.Buffer
	group    *wgpu.BindGroup
}

const glBarrierWGSL = `
@group(0) @binding(0) var<storage, read_write> sg_barrier: array<u32>;

@compute @workgroup_size(1)
fn main() {
	if (sg_barrier[0] == 0xffffffffu) {
		sg_barrier[0] = 0u;
	}
}
`

// initGLBarrier makes the barrier kernel of an OpenGL device; elsewhere it
// does nothing.
func (d *Device) initGLBarrier(op string) error {
	if d.info.Backend != BackendGL {
		return nil
	}
	b := &glBarrier{}
	fail := func(what string, err error) error {
		b.release()
		return opError(op, ErrInternal, "the OpenGL barrier kernel's %s: %v", what, err)
	}
	var err error
	d.lockGL()
	defer d.unlockGL()
	if b.module, err = d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{Label: "softgraph barrier", WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: glBarrierWGSL}}); err != nil {
		return fail("module", err)
	}
	if b.layout, err = d.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: "softgraph barrier", Entries: []wgpu.BindGroupLayoutEntry{{
		Binding: 0, Visibility: wgpu.ShaderStageCompute, Buffer: wgpu.BufferBindingLayout{Type: wgpu.BufferBindingTypeStorage},
	}}}); err != nil {
		return fail("bind group layout", err)
	}
	if b.playout, err = d.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: "softgraph barrier", BindGroupLayouts: []*wgpu.BindGroupLayout{b.layout}}); err != nil {
		return fail("pipeline layout", err)
	}
	if b.pipeline, err = d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{Label: "softgraph barrier", Layout: b.playout, Compute: wgpu.ProgrammableStageDescriptor{Module: b.module, EntryPoint: "main"}}); err != nil {
		return fail("pipeline", err)
	}
	if b.buf, err = d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: "softgraph barrier", Size: 16, Usage: wgpu.BufferUsageStorage}); err != nil {
		return fail("buffer", err)
	}
	if b.group, err = d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: "softgraph barrier", Layout: b.layout, Entries: []wgpu.BindGroupEntry{{Binding: 0, Buffer: b.buf, Size: wgpu.WholeSize}}}); err != nil {
		return fail("bind group", err)
	}
	d.glBarrier = b
	return nil
}

// release drops what b holds; the caller holds the GL lock. Encoders and
// programs keep their own references on the pipeline and group they used.
func (b *glBarrier) release() {
	if b == nil {
		return
	}
	if b.group != nil {
		b.group.Release()
	}
	if b.buf != nil {
		b.buf.Release()
	}
	if b.pipeline != nil {
		b.pipeline.Release()
	}
	if b.playout != nil {
		b.playout.Release()
	}
	if b.layout != nil {
		b.layout.Release()
	}
	if b.module != nil {
		b.module.Release()
	}
}

// newUses copies uses, the buffers a bind group binds and how, into C
// memory (native.h's sg_uses) for the encoders' barrier rule; it returns
// nil for none, or when out of host memory, which the rule reads as no
// buffers, so it is checked by the caller. freeUses frees it.
func newUses(uses []C.sg_use) *C.sg_uses {
	if len(uses) == 0 {
		return nil
	}
	head := C.size_t(unsafe.Sizeof(C.sg_uses{}))
	mem := C.calloc(1, head+C.size_t(len(uses))*C.size_t(unsafe.Sizeof(C.sg_use{})))
	if mem == nil {
		return nil
	}
	u := (*C.sg_uses)(mem)
	list := unsafe.Slice((*C.sg_use)(unsafe.Add(mem, head)), len(uses))
	copy(list, uses)
	u.n, u.u = C.uint32_t(len(uses)), &list[0]
	return u
}

func freeUses(u *C.sg_uses) {
	if u != nil {
		C.free(unsafe.Pointer(u))
	}
}

// glBarriers reports how many barrier dispatches e has encoded (tests).
func (e *encoder) glBarriers() int { return int(e.c.barriers) }
