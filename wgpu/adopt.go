package wgpu

// #include <stdlib.h>
// #include "native.h"
import "C"

import (
	"github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/lockrank"
)

// Adopt makes a softgraph Device on an application's own WebGPU device (a
// Cogent Core app's gpu.ComputeSystem.Device().Device, say), so that
// softgraph's streams and graphs run on the device the application renders
// and computes with, and buffers pass between the two without a copy
// through the host (WebGPU forbids sharing resources between devices).
//
// Ownership. The application keeps its device and queue. Adopt takes one
// reference of its own on the device (wgpuDeviceReference) and asks the
// device for a queue handle of its own (wgpuDeviceGetQueue hands out a new
// reference); Close releases exactly those two and every object softgraph
// made (buffers, bind groups, kernels, encoders, programs, queries), after
// waiting for the GPU, and never the application's references. So the
// application's use of the device keeps working during softgraph's life and
// after its Close, and releasing its own device first does not pull the
// device from under softgraph.
//
// Describing the device. wgpu-native cannot tell a device's adapter, and the
// backend decides how softgraph compiles kernels (OpenGL differs), so Adopt
// needs o.NativeAdapter, the adapter the device was requested from (Cogent
// Core: gpu.GPU.GPU), or else an explicit o.Backend. Info then describes
// that adapter. Limits are read from the device itself (wgpuDeviceGetLimits:
// what the application was granted, not what the adapter offers), with
// maxBindGroups capped at 4 as Open caps it; Timestamps is whether the
// device has the timestamp-query feature. Features softgraph asks for on
// devices it opens (adapter-specific texture formats) are used only if the
// application enabled them; without them a kernel that needs them is refused
// when it is compiled. The SOFTGRAPH_* variables are ignored: they choose
// adapters, and here the application chose.
//
// Error scopes. wgpu-native keeps one error-scope stack per device, shared by
// every thread. softgraph pushes its own scopes around each of its calls and
// pops them before the call returns, under the Device's lock; it never
// leaves a scope open between calls and never pops one it did not push.
// An application that pushes and pops scopes on another goroutine while a
// softgraph call is inside its scope may see an error land in the other
// party's scope (valid use raises none, so this only misattributes an error
// that exists anyway); an application that needs exact attribution uses the
// device from one goroutine at a time.
//
// The uncaptured-error and device-lost callbacks stay the application's:
// they are set when a device is requested and Adopt replaces neither. Every
// softgraph call is scoped, so softgraph's own errors never reach the
// application's uncaptured-error handler (nor wgpu-native's default one,
// which aborts); TakeErrors has nothing to report on an adopted device. A
// device loss reaches the application's callback only; softgraph's calls
// then fail with the errors the lost device returns.
//
// Submission. The application may submit to the same queue at any time,
// from any goroutine; wgpu-native orders submissions, and GPU work runs in
// queue order across the application's and softgraph's submissions. A
// recorder stream submits what it enqueued in chunks of its own choosing;
// its Flush, Sync and Read return only after everything enqueued before them
// is submitted. So work the application submits after a stream's Flush sees
// what the stream enqueued before it, and launches enqueued after the
// application's submit (or queue write) has returned see the application's
// work. Anything else is unordered. Polling (wgpuDevicePoll) runs the
// application's pending callbacks too, as any poll of the device does.
//
// Logging. wgpu-native's log callback is process-wide; as with Open, the
// most recently opened or adopted Device that is still open receives its
// lines at its NativeLog level.
//
// Adopt fails with an *Error wrapping ErrInvalidArgument for a nil device or
// when neither o.NativeAdapter nor o.Backend says the backend (or they
// disagree), and with the error of the probe kernel when the device cannot
// compile compute kernels. On failure nothing of the application's is
// released.
func Adopt(dev *wgpu.Device, o Options) (*Device, error) {
	const op = "Adopt"
	if handleLayoutErr != nil {
		return nil, handleLayoutErr
	}
	if dev == nil {
		return nil, opError(op, ErrInvalidArgument, "device is nil")
	}
	var info AdapterInfo
	switch {
	case o.NativeAdapter != nil:
		info = infoOf(o.NativeAdapter)
		if o.Backend != BackendAuto && o.Backend != info.Backend {
			return nil, opError(op, ErrInvalidArgument, "Backend=%v but NativeAdapter %q is %v", o.Backend, info.Name, info.Backend)
		}
	case o.Backend != BackendAuto:
		info = AdapterInfo{Name: "adopted device", Backend: o.Backend}
	default:
		return nil, opError(op, ErrInvalidArgument, "Options.NativeAdapter and Options.Backend are both unset (Adopt must know the device's backend)")
	}
	log := o.Logger.With().Str("component", "softgraph/wgpu").Logger()

	registry.Lock()
	registry.next++
	id := registry.next
	registry.Unlock()

	raw := rawDevice(dev)
	C.sg_device_reference(raw) // softgraph's own; Close releases it
	d := &Device{
		id:      id,
		info:    info,
		log:     log,
		use:     newGate(),
		closed:  make(chan struct{}),
		adopted: true,
		dev:     dev,
		queue:   dev.GetQueue(), // a new reference, softgraph's own
		raw:     raw,
		done:    C.sg_done_new(),
		kernels: map[kernelKey]*Kernel{},
		cbs:     map[uintptr]*cbRecord{},
		glMu:    glLock(info.Backend),
		pollGap: pollGapFor(info),
	}
	d.rankLocks()
	d.rawQ = rawQueue(d.queue)
	d.view = &driverView{d: d}
	d.info.Limits = deviceLimits(dev)
	if o.NativeAdapter != nil {
		d.info.Limits = capLimits(d.info.Limits, allocationCap(o.NativeAdapter.GetInfo()))
	}
	// Dispatches carry at most four bind groups (see sg_request_device).
	d.info.Limits.MaxBindGroups = min(d.info.Limits.MaxBindGroups, 4)
	d.info.Timestamps = dev.HasFeature(wgpu.FeatureNameTimestampQuery)
	d.driverInfo = driverInfoOf(d.info)
	registry.Lock()
	if registry.devices == nil {
		registry.devices = map[uintptr]*Device{}
	}
	registry.devices[id] = d
	registry.Unlock()
	pushNativeSink(id, d.log, o.NativeLog)
	if err := d.probe(); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.initGLBarrier("Adopt"); err != nil {
		d.Close()
		return nil, err
	}
	d.log.Debug().Str("adapter", d.info.String()).Msg("device adopted")
	return d, nil
}

// Adopted reports whether the device was made by Adopt (the application owns
// the native device) rather than Open.
func (d *Device) Adopted() bool { return d != nil && d.adopted }

// ownedBuffers maps the native buffers softgraph made to their device, so
// that wrapping one of them on another device is refused (wrapBuffer): no
// validation of wgpu-native's tells another device's buffer apart.
var ownedBuffers = struct {
	lockrank.Mutex
	m map[C.WGPUBuffer]C.WGPUDevice
}{Mutex: lockrank.Mutex{Rank: lockrank.Native}}

func noteBuffer(b C.WGPUBuffer, d C.WGPUDevice) {
	ownedBuffers.Lock()
	if ownedBuffers.m == nil {
		ownedBuffers.m = map[C.WGPUBuffer]C.WGPUDevice{}
	}
	ownedBuffers.m[b] = d
	ownedBuffers.Unlock()
}

func forgetBuffer(b C.WGPUBuffer) {
	ownedBuffers.Lock()
	delete(ownedBuffers.m, b)
	ownedBuffers.Unlock()
}

func ownerOf(b C.WGPUBuffer) (C.WGPUDevice, bool) {
	ownedBuffers.Lock()
	defer ownedBuffers.Unlock()
	d, ok := ownedBuffers.m[b]
	return d, ok
}

// wrapUsage is what a wrapped buffer must allow: binding as storage (every
// launch argument), and both copy directions (a stream reads by copying out,
// writes with a queue write, and copies and clears in graphs).
const wrapUsage = driver.UsageStorage | driver.UsageCopySrc | driver.UsageCopyDst

// wrapBuffer makes a driver buffer of an application's native buffer (see
// driver.Device.WrapBuffer). Whose device a native buffer belongs to is
// known only for buffers softgraph made (ownedBuffers): wgpu-native v22
// cannot ask a buffer for its device, and wgpu-core 22 does not check the
// device of a buffer in bind groups or copies (tried: a buffer of another
// device of the same instance was bound and copied without an error).
func (d *Device) wrapBuffer(nb *wgpu.Buffer, size uint64, label string) (driver.Buffer, error) {
	const op = "WrapBuffer"
	if err := d.enter(op); err != nil {
		return nil, err
	}
	defer d.leave()
	if nb == nil {
		return nil, opError(op, ErrInvalidArgument, "native buffer is nil")
	}
	if size == 0 || size%4 != 0 {
		return nil, opError(op, ErrInvalidArgument, "size=%d (must be a positive multiple of 4)", size)
	}
	raw := rawBuffer(nb)
	if owner, ok := ownerOf(raw); ok && owner != d.raw {
		return nil, opError(op, ErrForeignDevice, "native buffer of %d bytes was made by softgraph on another device", nb.GetSize())
	}
	if have := nb.GetSize(); size > have {
		return nil, opError(op, ErrInvalidArgument, "size=%d exceeds the native buffer's %d bytes", size, have)
	}
	usage := driver.Usage(nb.GetUsage())
	if usage&wrapUsage != wrapUsage {
		return nil, opError(op, ErrInvalidArgument, "usage=%#x lacks %#x (Storage, CopySrc and CopyDst are required)", uint32(usage), uint32(wrapUsage&^usage))
	}
	C.sg_buffer_reference(raw) // softgraph's own; freeNative releases it
	d.live.buffers.Add(1)
	b := &buffer{dev: d, buf: nb, raw: raw, size: size, usage: usage, borrowed: true}
	b.init()
	d.objs.add(b)
	return b, nil
}

// nativeBuffer is the cogentcore handle behind a buffer of this device.
func (d *Device) nativeBuffer(x driver.Buffer) (*wgpu.Buffer, error) {
	const op = "NativeBuffer"
	b, ok := x.(*buffer)
	if !ok || b == nil {
		return nil, opError(op, ErrInvalidArgument, "buffer is nil or not a buffer of this package")
	}
	if b.dev != d {
		return nil, opError(op, ErrForeignDevice, "buffer of %d bytes", b.size)
	}
	if b.Released() {
		return nil, opError(op, ErrReleased, "buffer of %d bytes", b.size)
	}
	d.leaveSharedMode()
	return b.buf, nil
}
