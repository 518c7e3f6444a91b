// wgpu-native v22's object report (wgpu.h as shipped by
// github.com/cogentcore/webgpu v0.23.0), restated field for field like
// native.h: WGPURegistryReport, WGPUHubReport, WGPUGlobalReport and
// wgpuGenerateReport. cogentcore wraps the call (Instance.GenerateReport)
// but drops the queues' registry and maps one hub only; softgraph reads
// every hub of its own instances.
#ifndef SOFTGRAPH_REPORT_H
#define SOFTGRAPH_REPORT_H

#include "native.h"

typedef struct WGPURegistryReport {
	size_t numAllocated;
	size_t numKeptFromUser;
	size_t numReleasedFromUser;
	size_t numError;
	size_t elementSize;
} WGPURegistryReport;

typedef struct WGPUHubReport {
	WGPURegistryReport adapters;
	WGPURegistryReport devices;
	WGPURegistryReport queues;
	WGPURegistryReport pipelineLayouts;
	WGPURegistryReport shaderModules;
	WGPURegistryReport bindGroupLayouts;
	WGPURegistryReport bindGroups;
	WGPURegistryReport commandBuffers;
	WGPURegistryReport renderBundles;
	WGPURegistryReport renderPipelines;
	WGPURegistryReport computePipelines;
	WGPURegistryReport querySets;
	WGPURegistryReport buffers;
	WGPURegistryReport textures;
	WGPURegistryReport textureViews;
	WGPURegistryReport samplers;
} WGPUHubReport;

typedef struct WGPUGlobalReport {
	WGPURegistryReport surfaces;
	uint32_t backendType;
	WGPUHubReport vulkan;
	WGPUHubReport metal;
	WGPUHubReport dx12;
	WGPUHubReport gl;
} WGPUGlobalReport;

void wgpuGenerateReport(WGPUInstance instance, WGPUGlobalReport * report);

#endif
