package wgpu

// One accessor for the native handles inside cogentcore's objects.
//
// Why it exists. softgraph encodes, submits and maps through its own C
// (native.c) but creates most objects through cogentcore, whose handle
// types keep the wgpu-native pointer in an unexported field, ref, and offer
// no exported way to read it: no method returns it, and every cogentcore
// call that uses it passes it straight to C. The public API also exchanges
// cogentcore objects with applications (Adopt takes a *webgpu.Device,
// Buffer.Native hands out a *webgpu.Buffer, Stream.WrapBuffer takes one),
// so those handles cannot come from softgraph's C alone. And the two objects
// softgraph must create in C (the instance, whose cogentcore constructor
// passes uninitialised extras, and the device, whose cogentcore request
// cannot install softgraph's callbacks or limits) must become cogentcore
// objects for the calls softgraph leaves to cogentcore.
//
// How it is kept safe. The field is found by name and checked once, at
// init, for every cogentcore type softgraph reaches into: it must be named
// ref, be a pointer, and point to the wgpu-native struct of that object
// (WGPUBufferImpl for a Buffer, ...). If a cogentcore upgrade changes any of
// them, handleLayoutErr says which, Open and Adopt fail with it (wrapping
// ErrInternal), and nothing reads a wrong field. TestNativeHandleLayout
// checks it on every run. The offsets are plain variables, so a read on the
// dispatch path is one load.

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// handleOffsets are the offsets of the ref field of each cogentcore type
// softgraph reaches into; set by init, never changed.
var handleOffsets struct {
	instance, adapter, device, queue, buffer, texture, bindGroup, pipeline, querySet uintptr
}

// handleLayoutErr is non-nil when a cogentcore type does not have the
// layout this file reads; Open and Adopt then fail with it.
var handleLayoutErr error

func init() {
	o := &handleOffsets
	for _, h := range []struct {
		t    reflect.Type
		impl string // the wgpu-native struct its handle points to
		off  *uintptr
	}{
		{reflect.TypeFor[wgpu.Instance](), "WGPUInstanceImpl", &o.instance},
		{reflect.TypeFor[wgpu.Adapter](), "WGPUAdapterImpl", &o.adapter},
		{reflect.TypeFor[wgpu.Device](), "WGPUDeviceImpl", &o.device},
		{reflect.TypeFor[wgpu.Queue](), "WGPUQueueImpl", &o.queue},
		{reflect.TypeFor[wgpu.Buffer](), "WGPUBufferImpl", &o.buffer},
		{reflect.TypeFor[wgpu.Texture](), "WGPUTextureImpl", &o.texture},
		{reflect.TypeFor[wgpu.BindGroup](), "WGPUBindGroupImpl", &o.bindGroup},
		{reflect.TypeFor[wgpu.ComputePipeline](), "WGPUComputePipelineImpl", &o.pipeline},
		{reflect.TypeFor[wgpu.QuerySet](), "WGPUQuerySetImpl", &o.querySet},
	} {
		off, err := handleField(h.t, h.impl)
		if err != nil && handleLayoutErr == nil {
			handleLayoutErr = err
		}
		*h.off = off
	}
	// The two types built from a handle must hold nothing else, or the
	// object wrapHandle makes would miss what cogentcore's constructor sets.
	for _, t := range []reflect.Type{reflect.TypeFor[wgpu.Instance](), reflect.TypeFor[wgpu.Device]()} {
		if t.NumField() != 1 && handleLayoutErr == nil {
			handleLayoutErr = &Error{Op: "open", Arg: fmt.Sprintf("cogentcore's %s has %d fields; softgraph builds it from its handle alone", t, t.NumField()), Err: ErrInternal}
		}
	}
}

// handleField is the offset of t's native handle field, checked.
func handleField(t reflect.Type, impl string) (uintptr, error) {
	f, ok := t.FieldByName("ref")
	if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Size() != unsafe.Sizeof(unsafe.Pointer(nil)) ||
		f.Type.Elem().Name() != "_Ctype_struct_"+impl {
		return 0, &Error{Op: "open", Arg: fmt.Sprintf("cogentcore's %s has no field ref of type *%s (its layout changed; softgraph reads it)", t, impl), Err: ErrInternal}
	}
	return f.Offset, nil
}

// handle reads the native handle at off in the cogentcore object at p.
func handle[T any](p *T, off uintptr) unsafe.Pointer {
	if p == nil {
		return nil
	}
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(p), off))
}

// wrapHandle makes a cogentcore object of a native handle softgraph
// created in C: the zero object with its ref set. It is used for Instance
// and Device only, which init checks hold no other field.
func wrapHandle[T any](ref unsafe.Pointer, off uintptr) *T {
	p := new(T)
	*(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(p), off)) = ref
	return p
}
