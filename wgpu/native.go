package wgpu

// This file is the Go half of the wgpu-native calls that
// github.com/cogentcore/webgpu v0.23.0 does not wrap (or wraps unsafely): a
// fully initialised instance, a device request that installs the
// uncaptured-error and device-lost callbacks and asks for the adapter's
// limits, an out-of-memory error scope, and the native log callback. The C
// half is native.c; native.h restates what it needs of webgpu.h / wgpu.h.

// #include <stdlib.h>
// #include "native.h"
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// createInstance creates an instance for the given wgpu.InstanceBackend
// flags, wrapped as a cogentcore instance. It returns nil if wgpu-native
// returns none.
func createInstance(backends wgpu.InstanceBackend) *wgpu.Instance {
	ref := C.sg_create_instance(C.uint32_t(backends))
	if ref == nil {
		return nil
	}
	return wrapHandle[wgpu.Instance](unsafe.Pointer(ref), handleOffsets.instance)
}

func limitsFromC(l *C.WGPULimits) Limits {
	return Limits{
		MaxComputeWorkgroupStorageSize:    uint32(l.maxComputeWorkgroupStorageSize),
		MaxComputeWorkgroupSizeX:          uint32(l.maxComputeWorkgroupSizeX),
		MaxComputeWorkgroupSizeY:          uint32(l.maxComputeWorkgroupSizeY),
		MaxComputeWorkgroupSizeZ:          uint32(l.maxComputeWorkgroupSizeZ),
		MaxBindGroups:                     uint32(l.maxBindGroups),
		MaxTextureDimension2D:             uint32(l.maxTextureDimension2D),
		MaxTextureDimension3D:             uint32(l.maxTextureDimension3D),
		MaxSampledTexturesPerShaderStage:  uint32(l.maxSampledTexturesPerShaderStage),
		MaxSamplersPerShaderStage:         uint32(l.maxSamplersPerShaderStage),
		MaxStorageTexturesPerShaderStage:  uint32(l.maxStorageTexturesPerShaderStage),
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

// The native handles of cogentcore objects, through the one checked
// accessor (handles.go).
func adapterRef(a *wgpu.Adapter) C.WGPUAdapter {
	return C.WGPUAdapter(handle(a, handleOffsets.adapter))
}
func rawDevice(d *wgpu.Device) C.WGPUDevice {
	return C.WGPUDevice(handle(d, handleOffsets.device))
}
func rawQueue(q *wgpu.Queue) C.WGPUQueue {
	return C.WGPUQueue(handle(q, handleOffsets.queue))
}
func rawBuffer(b *wgpu.Buffer) C.WGPUBuffer {
	return C.WGPUBuffer(handle(b, handleOffsets.buffer))
}
func rawTexture(t *wgpu.Texture) C.WGPUTexture {
	return C.WGPUTexture(handle(t, handleOffsets.texture))
}
func rawBindGroup(g *wgpu.BindGroup) C.WGPUBindGroup {
	return C.WGPUBindGroup(handle(g, handleOffsets.bindGroup))
}
func rawPipeline(p *wgpu.ComputePipeline) C.WGPUComputePipeline {
	return C.WGPUComputePipeline(handle(p, handleOffsets.pipeline))
}
func rawQuerySet(q *wgpu.QuerySet) C.WGPUQuerySet {
	return C.WGPUQuerySet(handle(q, handleOffsets.querySet))
}

// nativeErr is a C-allocated error slot (C memory, so passing it to C needs
// no pinning and no allocation).
type nativeErr struct{ c *C.sg_err }

func newNativeErr() nativeErr {
	return nativeErr{(*C.sg_err)(C.calloc(1, C.size_t(unsafe.Sizeof(C.sg_err{}))))}
}

func freeNativeErr(e nativeErr) { C.free(unsafe.Pointer(e.c)) }

// errFrom turns a C error slot into a *DeviceError for op, or nil.
func errFrom(op string, e *C.sg_err) error {
	if e._type == 0 {
		return nil
	}
	return deviceError(op, ErrorType(e._type), C.GoString(&e.message[0]))
}

func deviceFromRef(ref C.WGPUDevice) *wgpu.Device {
	return wrapHandle[wgpu.Device](unsafe.Pointer(ref), handleOffsets.device)
}

func deviceRef(d *wgpu.Device) C.WGPUDevice { return rawDevice(d) }

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
	e := newNativeErr()
	defer freeNativeErr(e)
	ref := C.sg_request_device(adapterRef(a), feats, C.size_t(len(features)), C.uintptr_t(id), e.c)
	if ref == nil {
		return nil, fmt.Errorf("request device: status %d: %s", uint32(e.c._type), C.GoString(&e.c.message[0]))
	}
	return deviceFromRef(ref), nil
}

// scopedError runs f inside an out-of-memory error scope and returns what
// it caught (validation is caught by cogentcore's scope inside f). It holds
// the device's scope lock throughout (see Device.scopeMu). It turns errors that would otherwise reach the uncaptured handler into
// an error at the call that caused them.
func scopedError(d *Device, f func()) (ErrorType, string) {
	d.scopeMu.Lock()
	defer d.scopeMu.Unlock()
	ref := deviceRef(d.dev)
	C.sg_push_oom(ref)
	f()
	e := newNativeErr()
	defer freeNativeErr(e)
	C.sg_pop_oom(ref, e.c)
	return ErrorType(e.c._type), C.GoString(&e.c.message[0])
}

// scoped runs f, a cogentcore call that reports validation errors itself,
// inside the device's out-of-memory scope, and turns whatever either caught
// into one error for op: a *DeviceError of the right type, or nil.
func (d *Device) scoped(op string, f func() error) error {
	var ferr error
	typ, msg := scopedError(d, func() {
		// Device-level calls may take the GL context (glMu).
		d.lockGL()
		defer d.unlockGL()
		ferr = f()
	})
	if ferr != nil {
		return validationError(op, ferr)
	}
	if typ != ErrorNone {
		return deviceError(op, typ, msg)
	}
	return nil
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

// sharedProbe finishes, in shared mode, an encoder that wgpu-native must
// refuse (native.c, sg_shared_probe) and returns the error shared mode
// caught for it: the tests' check that such an error lands with the call
// that raised it and not in the device's uncaptured errors.
func (d *Device) sharedProbe() error {
	var e C.sg_err
	if !d.sharedCall(func() { C.sg_shared_probe(d.raw, &e) }) {
		return opError("sharedProbe", ErrInvalidArgument, "the device is not in shared mode")
	}
	return errFrom("sharedProbe", &e)
}
