package wgpu

// #include "report.h"
import "C"

import (
	"github.com/cogentcore/webgpu/wgpu"
)

// NativeCount is one kind of object in wgpu-native's registry
// (WGPURegistryReport in wgpu.h).
type NativeCount struct {
	// Held is how many are held by their users right now: made and not yet
	// released (numKeptFromUser). A leak of handles shows here.
	Held int
	// Allocated is how many ids the registry has handed out and not taken
	// back (numAllocated): Held, plus released ids the registry has not
	// recycled yet.
	Allocated int
	// Errors is how many are invalid objects (a failed creation keeps an
	// error entry until released).
	Errors int
}

// NativeReport is wgpu-native's own account of the objects alive in
// softgraph's instances (wgpuGenerateReport), summed over every backend's
// hub: what wgpu-core's registries hold, independent of softgraph's own
// counts (driver.Live) and of the driver's memory below wgpu-native.
//
// A registry counts handles, not memory: an object wgpu-core still keeps
// alive internally after its last handle went (a command buffer's
// resources until its submission is triaged) is not counted, nor is what
// the Vulkan or GL driver allocated for it. A Device adopted from an
// application (Adopt) lives in the application's instance and is not in
// this report.
type NativeReport struct {
	Adapters, Devices, Queues                               NativeCount
	ShaderModules, BindGroupLayouts, PipelineLayouts        NativeCount
	ComputePipelines, BindGroups, CommandBuffers, QuerySets NativeCount
	Buffers, Textures, TextureViews, Samplers               NativeCount
}

// NativeObjects asks wgpu-native for its report on every instance
// softgraph has made so far (the primary one, and the OpenGL one once GL
// was asked for). It makes no instance: before the first Open or Adapters
// call it reports zeros. It takes each registry's lock briefly and
// allocates nothing native; it is meant for tests and diagnostics, not for
// a replay loop.
func NativeObjects() NativeReport {
	var r NativeReport
	for _, inst := range createdInstances() {
		var g C.WGPUGlobalReport
		C.wgpuGenerateReport(C.WGPUInstance(handle(inst, handleOffsets.instance)), &g)
		for _, h := range []*C.WGPUHubReport{&g.vulkan, &g.metal, &g.dx12, &g.gl} {
			r.add(h)
		}
	}
	return r
}

// createdInstances is the instances made so far, without making one.
func createdInstances() []*wgpu.Instance {
	instances.mu.Lock()
	defer instances.mu.Unlock()
	var out []*wgpu.Instance
	for _, i := range []*wgpu.Instance{instances.primary, instances.gl} {
		if i != nil {
			out = append(out, i)
		}
	}
	return out
}

func (r *NativeReport) add(h *C.WGPUHubReport) {
	for _, p := range []struct {
		dst *NativeCount
		src *C.WGPURegistryReport
	}{
		{&r.Adapters, &h.adapters}, {&r.Devices, &h.devices}, {&r.Queues, &h.queues},
		{&r.ShaderModules, &h.shaderModules}, {&r.BindGroupLayouts, &h.bindGroupLayouts},
		{&r.PipelineLayouts, &h.pipelineLayouts}, {&r.ComputePipelines, &h.computePipelines},
		{&r.BindGroups, &h.bindGroups}, {&r.CommandBuffers, &h.commandBuffers}, {&r.QuerySets, &h.querySets},
		{&r.Buffers, &h.buffers}, {&r.Textures, &h.textures}, {&r.TextureViews, &h.textureViews},
		{&r.Samplers, &h.samplers},
	} {
		p.dst.Held += int(p.src.numKeptFromUser)
		p.dst.Allocated += int(p.src.numAllocated)
		p.dst.Errors += int(p.src.numError)
	}
}
