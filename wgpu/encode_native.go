package wgpu

// The encoding path runs through native.c: encoders, compute passes, the
// replay task loop, finish and submit. cogentcore's wrappers allocate a
// cgo.Handle and a closure per call for their error scopes; these keep the
// whole path free of Go allocations, so a replay's garbage does not grow
// with its length.

// #include <stdlib.h>
// #include "native.h"
import "C"

import (
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

func rawDevice(d *wgpu.Device) C.WGPUDevice {
	return C.WGPUDevice((*oneRef)(unsafe.Pointer(d)).ref)
}
func rawQueue(q *wgpu.Queue) C.WGPUQueue {
	return C.WGPUQueue((*twoRef)(unsafe.Pointer(q)).ref)
}
func rawBuffer(b *wgpu.Buffer) C.WGPUBuffer {
	return C.WGPUBuffer((*twoRef)(unsafe.Pointer(b)).ref)
}
func rawBindGroup(g *wgpu.BindGroup) C.WGPUBindGroup {
	return C.WGPUBindGroup((*oneRef)(unsafe.Pointer(g)).ref)
}
func rawPipeline(p *wgpu.ComputePipeline) C.WGPUComputePipeline {
	return C.WGPUComputePipeline((*oneRef)(unsafe.Pointer(p)).ref)
}
func rawQuerySet(q *wgpu.QuerySet) C.WGPUQuerySet {
	return C.WGPUQuerySet((*oneRef)(unsafe.Pointer(q)).ref)
}

// nativeErr is a C-allocated error slot, reused for every call of an
// Encoder (C memory, so passing it to C needs no pinning and no allocation).
type nativeErr struct{ c *C.sg_err }

func newNativeErr() nativeErr {
	return nativeErr{(*C.sg_err)(C.calloc(1, C.size_t(unsafe.Sizeof(C.sg_err{}))))}
}

func freeNativeErr(e nativeErr) { C.free(unsafe.Pointer(e.c)) }

func (e nativeErr) failed() bool { return e.c._type != 0 }

func (e nativeErr) err(op string) error {
	return &DeviceError{Op: op, Type: ErrorType(e.c._type), Message: C.GoString(&e.c.message[0])}
}

// TaskList is a C array of prebuilt dispatches (pipeline, bind group,
// workgroup counts or indirect buffer) that Encoder.EncodeTasks replays with
// one cgo call per chunk. It holds raw references: the owner keeps the
// kernels, bind groups and buffers alive for as long as the list is used.
type TaskList struct {
	tasks *C.sg_task
	n     int
	cap   int
}

// NewTaskList allocates room for n tasks (it grows as needed).
func NewTaskList(n int) *TaskList {
	if n < 1 {
		n = 1
	}
	return &TaskList{tasks: (*C.sg_task)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.sg_task{})))), cap: n}
}

// Len is the number of tasks appended.
func (l *TaskList) Len() int { return l.n }

func (l *TaskList) slot() *C.sg_task {
	if l.n == l.cap {
		ncap := 2 * l.cap
		p := C.realloc(unsafe.Pointer(l.tasks), C.size_t(ncap)*C.size_t(unsafe.Sizeof(C.sg_task{})))
		if p == nil {
			panic("softgraph: out of host memory growing a task list")
		}
		l.tasks, l.cap = (*C.sg_task)(p), ncap
	}
	t := &unsafe.Slice(l.tasks, l.cap)[l.n]
	l.n++
	*t = C.sg_task{}
	return t
}

// Append adds a direct dispatch.
func (l *TaskList) Append(k *Kernel, g *BindGroup, x, y, z uint32) {
	t := l.slot()
	t.pipeline = rawPipeline(k.pipeline)
	t.group = rawBindGroup(g.bg)
	t.x, t.y, t.z = C.uint32_t(x), C.uint32_t(y), C.uint32_t(z)
}

// AppendIndirect adds a dispatch whose counts the GPU reads from b at offset.
func (l *TaskList) AppendIndirect(k *Kernel, g *BindGroup, b *Buffer, offset uint64) {
	t := l.slot()
	t.pipeline = rawPipeline(k.pipeline)
	t.group = rawBindGroup(g.bg)
	t.indirect = rawBuffer(b.buf)
	t.offset = C.uint64_t(offset)
}

// Set replaces task i (0 ≤ i < Len) with a dispatch of k using g, with
// either fixed counts (indirect nil) or counts read from indirect at offset.
func (l *TaskList) Set(i int, k *Kernel, g *BindGroup, x, y, z uint32, indirect *Buffer, offset uint64) {
	t := &unsafe.Slice(l.tasks, l.cap)[i]
	*t = C.sg_task{}
	t.pipeline = rawPipeline(k.pipeline)
	t.group = rawBindGroup(g.bg)
	if indirect != nil {
		t.indirect = rawBuffer(indirect.buf)
		t.offset = C.uint64_t(offset)
	} else {
		t.x, t.y, t.z = C.uint32_t(x), C.uint32_t(y), C.uint32_t(z)
	}
}

// Free releases the C array; the list is empty afterwards. Idempotent.
func (l *TaskList) Free() {
	if l.tasks != nil {
		C.free(unsafe.Pointer(l.tasks))
		l.tasks, l.n, l.cap = nil, 0, 0
	}
}
