package wgpu

// #include <stdlib.h>
// #include "native.h"
import "C"

import (
	"context"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/driver"
)

// buffer is one native buffer (driver.Buffer).
//
// Release drops softgraph's handle; wgpu-native keeps the memory alive until
// the GPU has finished every submitted command that uses it, and encoders
// and programs hold their own references until then. softgraph never calls
// wgpuBufferDestroy: submitting work that uses a destroyed buffer aborts the
// process inside wgpu-native, and no error scope catches it.
type buffer struct {
	life
	dev   *Device
	buf   *wgpu.Buffer // owned; released by freeNative
	raw   C.WGPUBuffer
	size  uint64
	usage driver.Usage
	// borrowed says buf is an application's buffer (WrapBuffer): softgraph
	// holds a reference of its own on it, taken at the wrap and dropped by
	// freeNative, and never destroys it.
	borrowed bool

	// For MapRead buffers only: mapping is set while a map is requested
	// and not yet undone; pending counts copies into the buffer encoded
	// and not yet submitted or dropped. A buffer must never be mapped with
	// such a copy outstanding, nor copied into while mapped: submitting
	// work that uses a mapped buffer aborts the process in wgpu-native.
	mapping atomic.Bool
	pending atomic.Int32
	// mapStatus is where the native map callback stores its status: C
	// memory, made by the first read and kept until no callback can run
	// (see freeNative).
	mapStatus *C.uint32_t
}

func (b *buffer) Size() uint64        { return b.size }
func (b *buffer) Usage() driver.Usage { return b.usage }

// Memory is the native handle: a wrapped application buffer shares it with
// every other wrap of the same buffer.
func (b *buffer) Memory() any { return b.raw }
func (b *buffer) Release() {
	if b != nil {
		b.dev.releaseGated(&b.life, b)
	}
}

func (b *buffer) releaseOwner() { b.release(b) }

func (b *buffer) freeNative() {
	b.dev.objs.remove(b)
	b.dev.lockGL()
	if b.borrowed {
		C.sg_buffer_release(b.raw)
	} else {
		forgetBuffer(b.raw)
		b.buf.Release()
	}
	b.dev.unlockGL()
	b.dev.live.buffers.Add(-1)
	b.dev.triage(false)
	if st := b.mapStatus; st != nil {
		b.mapStatus = nil
		if C.sg_map_status(st) != C.SG_MAP_PENDING {
			C.free(unsafe.Pointer(st))
		} else {
			// An abandoned read's callback has not run yet: it still
			// writes here, at the latest when the device goes.
			b.dev.orphans.Lock()
			b.dev.orphans.status = append(b.dev.orphans.status, st)
			b.dev.orphans.Unlock()
		}
	}
}

func (d *Device) newBuffer(size uint64, usage driver.Usage, label string) (driver.Buffer, error) {
	const op = "NewBuffer"
	if err := d.enter(op); err != nil {
		return nil, err
	}
	defer d.leave()
	if size == 0 || size%4 != 0 {
		return nil, opError(op, ErrInvalidArgument, "size=%d (must be a positive multiple of 4)", size)
	}
	if size > d.info.Limits.MaxBufferSize {
		return nil, opError(op, ErrInvalidArgument, "size=%d exceeds the device's maxBufferSize %d", size, d.info.Limits.MaxBufferSize)
	}
	if usage&driver.UsageMapRead != 0 && usage&^(driver.UsageMapRead|driver.UsageCopyDst) != 0 {
		return nil, opError(op, ErrInvalidArgument, "usage=%#x (a MapRead buffer may only be a copy destination)", uint32(usage))
	}
	var buf *wgpu.Buffer
	if err := d.scoped(op, func() (err error) {
		buf, err = d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: label, Size: size, Usage: wgpu.BufferUsage(usage)})
		return err
	}); err != nil {
		if buf != nil {
			buf.Release()
		}
		return nil, fmt.Errorf("size=%d: %w", size, err)
	}
	d.live.buffers.Add(1)
	b := &buffer{dev: d, buf: buf, raw: rawBuffer(buf), size: size, usage: usage}
	noteBuffer(b.raw, d.raw)
	b.init()
	d.objs.add(b)
	return b, nil
}

// ownBuffer checks that x is a live buffer of d and acquires it; the caller
// drops it.
func (d *Device) ownBuffer(op, what string, x driver.Buffer) (*buffer, error) {
	b, ok := x.(*buffer)
	if !ok || b == nil {
		return nil, opError(op, ErrInvalidArgument, "%s is nil or not a buffer of this package", what)
	}
	if b.dev != d {
		return nil, opError(op, ErrForeignDevice, "%s of %d bytes", what, b.size)
	}
	if !b.acquire() {
		return nil, opError(op, ErrReleased, "%s of %d bytes", what, b.size)
	}
	return b, nil
}

func (d *Device) writeBuffer(x driver.Buffer, offset uint64, data []byte) error {
	const op = "Write"
	if err := d.enter(op); err != nil {
		return err
	}
	defer d.leave()
	b, err := d.ownBuffer(op, "buffer", x)
	if err != nil {
		return err
	}
	defer b.drop(b)
	if offset%4 != 0 || len(data)%4 != 0 {
		return opError(op, ErrInvalidArgument, "offset=%d len=%d (both must be multiples of 4)", offset, len(data))
	}
	if offset > b.size || uint64(len(data)) > b.size-offset {
		return opError(op, ErrInvalidArgument, "offset=%d len=%d past the end of a %d-byte buffer", offset, len(data), b.size)
	}
	if b.usage&driver.UsageCopyDst == 0 {
		return opError(op, ErrInvalidArgument, "the buffer was not made with CopyDst usage")
	}
	if b.mapping.Load() {
		return opError(op, ErrInvalidArgument, "the buffer is mapped")
	}
	if len(data) == 0 {
		return nil
	}
	return d.scoped(op, func() error { return d.queue.WriteBuffer(b.buf, offset, data) })
}

// readBuffer maps a MapRead buffer once every submitted command using it
// has finished, copies out, and unmaps. If ctx ends first, the map is left
// to finish on its own and the buffer stays unusable for copies until then
// (mapping stays set); callers drop such a buffer.
func (d *Device) readBuffer(ctx context.Context, x driver.Buffer, offset uint64, dst []byte) error {
	const op = "ReadMapped"
	if err := d.enter(op); err != nil {
		return err
	}
	defer d.leave()
	b, err := d.ownBuffer(op, "buffer", x)
	if err != nil {
		return err
	}
	defer b.drop(b)
	size := uint64(len(dst))
	if b.usage&driver.UsageMapRead == 0 {
		return opError(op, ErrInvalidArgument, "the buffer was not made with MapRead usage")
	}
	if offset%8 != 0 || size%4 != 0 || offset > b.size || size > b.size-offset {
		return opError(op, ErrInvalidArgument, "offset=%d size=%d of a %d-byte buffer (offset must be a multiple of 8, size of 4)", offset, size, b.size)
	}
	if size == 0 {
		return nil
	}
	if n := b.pending.Load(); n > 0 {
		return opError(op, ErrInvalidArgument, "%d copies into the buffer are encoded but not submitted; mapping it now would abort their submission", n)
	}
	if !b.mapping.CompareAndSwap(false, true) {
		return opError(op, ErrInvalidArgument, "the buffer is already being mapped")
	}
	// The callback runs inside whichever goroutine's poll or submit
	// wgpu-native processes it in; it stores the status atomically into C
	// memory that outlives this call (see sg_map_read).
	if b.mapStatus == nil {
		b.mapStatus = (*C.uint32_t)(C.malloc(4))
		if b.mapStatus == nil {
			b.mapping.Store(false)
			return opError(op, ErrInternal, "out of host memory")
		}
	}
	st := b.mapStatus
	if err := d.scoped(op, func() error {
		C.sg_map_read(b.raw, C.size_t(offset), C.size_t(size), st)
		return nil
	}); err != nil {
		if C.sg_map_status(st) == C.SG_MAP_PENDING {
			// Refused at once, the callback may still come: the buffer
			// stays marked as mapping, which refuses copies and reads.
			return err
		}
		b.mapping.Store(false)
		return err
	}
	err = d.pollUntil(ctx, func() bool { return C.sg_map_status(st) != C.SG_MAP_PENDING })
	if err != nil {
		// The map may still complete; the buffer stays marked as mapping,
		// which refuses copies into it. Callers release it.
		return &Error{Op: op, Err: err}
	}
	if s := wgpu.BufferMapAsyncStatus(C.sg_map_status(st)); s != wgpu.BufferMapAsyncStatusSuccess {
		b.mapping.Store(false)
		return &DeviceError{Op: op, Type: ErrorValidation, Message: "map failed: " + s.String()}
	}
	src := b.buf.GetMappedRange(uint(offset), uint(size))
	copy(dst, src)
	err = d.scoped(op, b.buf.Unmap)
	b.mapping.Store(false)
	return err
}

// pollUntil polls the device until cond holds, ctx ends, the device is
// lost or Close begins.
func (d *Device) pollUntil(ctx context.Context, cond func() bool) error {
	b := d.backoff()
	for !cond() {
		if lost := d.lost.Load(); lost != nil {
			return *lost
		}
		if d.use.closing() {
			return ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := d.poll(ctx); err != nil {
			return err
		}
		if cond() {
			return nil
		}
		b.nap()
	}
	return nil
}

// cbRecord is a finished command buffer not yet submitted or dropped.
type cbRecord struct {
	dev        *Device
	cb         C.WGPUCommandBuffer
	dispatches int
	targets    []*buffer // MapRead buffers it copies into (pending counted)
	done       atomic.Bool
}

// releaseOwner drops the command buffer unsubmitted (Close uses it; a
// caller drops one through Device.drop).
func (r *cbRecord) releaseOwner() { r.dev.dropRecord(r, true) }

func (d *Device) dropRecord(r *cbRecord, native bool) {
	if !r.done.CompareAndSwap(false, true) {
		return
	}
	for _, b := range r.targets {
		b.pending.Add(-1)
		b.drop(b)
	}
	if native {
		d.lockGL()
		C.sg_cb_release(r.cb)
		d.unlockGL()
	}
	d.live.commandBuffers.Add(-1)
	d.objs.remove(r)
	// Records are reused: a Finish per batch should not cost an allocation.
	d.cbMu.Lock()
	r.targets, r.cb = nil, nil
	d.cbFree = append(d.cbFree, r)
	d.cbMu.Unlock()
}

func (d *Device) record(cb C.WGPUCommandBuffer, dispatches int, targets []*buffer) driver.CommandBuffer {
	d.cbMu.Lock()
	var r *cbRecord
	if n := len(d.cbFree); n > 0 {
		r = d.cbFree[n-1]
		d.cbFree = d.cbFree[:n-1]
	} else {
		r = &cbRecord{dev: d}
	}
	r.cb, r.dispatches, r.targets = cb, dispatches, targets
	r.done.Store(false)
	d.cbs[uintptr(unsafe.Pointer(cb))] = r
	d.cbMu.Unlock()
	d.live.commandBuffers.Add(1)
	d.objs.add(r)
	return driver.CommandBuffer{Native: uintptr(unsafe.Pointer(cb)), Owner: d.view, Dispatches: dispatches}
}

// takeRecord removes the record of a command buffer of d, or returns nil
// for one that is not (or no longer) pending here.
func (d *Device) takeRecord(cb driver.CommandBuffer) *cbRecord {
	if cb.Native == 0 || cb.Owner != driver.Device(d.view) {
		return nil
	}
	d.cbMu.Lock()
	r := d.cbs[cb.Native]
	delete(d.cbs, cb.Native)
	d.cbMu.Unlock()
	return r
}

func (d *Device) drop(cb driver.CommandBuffer) {
	if r := d.takeRecord(cb); r != nil {
		if d.use.enter() {
			d.dropRecord(r, true)
			d.use.leave()
		}
	}
}

// submit submits command buffers of d in one submission.
func (d *Device) submit(cbs []driver.CommandBuffer) (driver.Submission, error) {
	const op = "Submit"
	if err := d.enter(op); err != nil {
		for _, cb := range cbs {
			d.drop(cb)
		}
		return 0, err
	}
	defer d.leave()
	d.submitMu.Lock()
	defer d.submitMu.Unlock()
	raws := d.submitRaws[:0]
	rs := d.submitRecs[:0]
	defer func() {
		clear(rs)
		d.submitRaws, d.submitRecs = raws[:0], rs[:0]
	}()
	var bad error
	for _, cb := range cbs {
		if cb.Native == 0 {
			continue
		}
		r := d.takeRecord(cb)
		if r == nil {
			bad = opError(op, ErrInvalidArgument, "a command buffer that is not pending on this device (submitted, dropped, or another device's)")
			continue
		}
		raws = append(raws, r.cb)
		rs = append(rs, r)
	}
	if bad != nil {
		for _, r := range rs {
			d.dropRecord(r, true)
		}
		return 0, bad
	}
	if len(raws) == 0 {
		return driver.Submission(d.lastSubmit.Load()), nil
	}
	idx := d.submitNative(raws)
	for _, r := range rs {
		d.dropRecord(r, false)
	}
	return driver.Submission(idx), nil
}

// flushWrites submits the queue's pending writes (an empty submission).
func (d *Device) flushWrites() (driver.Submission, error) {
	const op = "FlushWrites"
	if err := d.enter(op); err != nil {
		return 0, err
	}
	defer d.leave()
	d.submitMu.Lock()
	defer d.submitMu.Unlock()
	return driver.Submission(d.submitNative(nil)), nil
}

// submitNative submits raw command buffers (none: an empty submission that
// flushes queue writes) and records the index. The handles are copied into
// C memory, so no Go memory crosses into wgpu-native.
func (d *Device) submitNative(raws []C.WGPUCommandBuffer) uint64 {
	var p *C.WGPUCommandBuffer
	if len(raws) > 0 {
		if len(raws) > d.submitCap {
			C.free(unsafe.Pointer(d.submitC))
			d.submitCap = max(len(raws), 16)
			d.submitC = (*C.WGPUCommandBuffer)(C.malloc(C.size_t(d.submitCap) * C.size_t(unsafe.Sizeof(raws[0]))))
		}
		copy(unsafe.Slice(d.submitC, d.submitCap), raws)
		p = d.submitC
	}
	d.lockGL()
	idx := uint64(C.sg_submit(d.rawQ, p, C.size_t(len(raws)), d.done))
	d.unlockGL()
	for {
		old := d.lastSubmit.Load()
		if idx <= old || d.lastSubmit.CompareAndSwap(old, idx) {
			break
		}
	}
	return idx
}
