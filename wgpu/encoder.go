package wgpu

// #include "native.h"
import "C"

import (
	"fmt"
	"sync/atomic"

	"github.com/cogentcore/webgpu/wgpu"
)

// BindGroup binds buffer ranges to a kernel's @group(0) layout.
// It is immutable; Release is idempotent. A bind group recorded into a pass
// must stay unreleased until the command buffer holding it is submitted.
type BindGroup struct {
	dev      *Device
	bg       *wgpu.BindGroup // owned
	released atomic.Bool
}

// Binding is one entry of a bind group: Size bytes of Buffer at Offset.
type Binding struct {
	Buffer *Buffer
	Offset uint64
	Size   uint64
}

// NewBindGroup creates a bind group for k with one Binding per kernel
// binding, in order. The recorder checks kinds, sizes and alignment first;
// what the device still refuses comes back as a *DeviceError.
func (d *Device) NewBindGroup(k *Kernel, bindings []Binding) (*BindGroup, error) {
	if err := d.enter("NewBindGroup"); err != nil {
		return nil, err
	}
	defer d.leave()
	if k == nil {
		return nil, opError("NewBindGroup", ErrInvalidArgument, "kernel=nil")
	}
	if k.dev != d {
		return nil, opError("NewBindGroup", ErrForeignDevice, "kernel %q", k.entry)
	}
	if len(bindings) != len(k.bindings) {
		return nil, opError("NewBindGroup", ErrInvalidArgument, "%d bindings for kernel %q, which declares %d", len(bindings), k.entry, len(k.bindings))
	}
	var stack [8]wgpu.BindGroupEntry
	entries := stack[:0]
	for i, b := range bindings {
		if err := d.owns("NewBindGroup", b.Buffer); err != nil {
			return nil, fmt.Errorf("binding %d: %w", i, err)
		}
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(i), Buffer: b.Buffer.buf, Offset: b.Offset, Size: b.Size})
	}
	var bg *wgpu.BindGroup
	if err := d.scoped("NewBindGroup", func() (err error) {
		bg, err = d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Layout: k.layout, Entries: entries})
		return err
	}); err != nil {
		if bg != nil {
			bg.Release()
		}
		return nil, err
	}
	d.live.bindGroups.Add(1)
	g := &BindGroup{dev: d, bg: bg}
	d.track(g)
	return g, nil
}

// Release drops the bind group; idempotent, and a no-op after the
// device's Close.
func (g *BindGroup) Release() {
	if g != nil && g.releaseNative() {
		g.dev.untrack(g)
	}
}

func (g *BindGroup) releaseNative() bool {
	if !g.released.CompareAndSwap(false, true) {
		return false
	}
	g.bg.Release()
	g.dev.live.bindGroups.Add(-1)
	return true
}

// Encoder records commands into command buffers, one at a time. It is not
// safe for concurrent use. The same Encoder is reused: Finish ends the
// current native encoder and the next command starts a fresh one, so a
// stream keeps one Encoder for its whole life and the encoding path
// allocates nothing in Go.
//
// At most one compute pass is open; commands that cannot run inside a pass
// (Copy, ResolveQueries, Finish) end it first.
type Encoder struct {
	dev  *Device
	raw  C.WGPUDevice
	enc  C.WGPUCommandEncoder     // the native encoder; nil until the first command
	pass C.WGPUComputePassEncoder // the open pass; nil when none
	last C.WGPUComputePipeline    // pipeline set last in the open pass
	cerr nativeErr                // C-allocated error slot, reused
	dead bool                     // Release was called

	// Commands counts the dispatches encoded since the last Finish.
	Commands int
}

// NewEncoder returns an Encoder for d. It holds no native encoder until the
// first command.
func (d *Device) NewEncoder() (*Encoder, error) {
	if err := d.enter("NewEncoder"); err != nil {
		return nil, err
	}
	defer d.leave()
	e := &Encoder{dev: d, raw: rawDevice(d.dev), cerr: newNativeErr()}
	d.track(e)
	return e, nil
}

func (e *Encoder) begin(op string) error {
	if e.dead {
		return opError(op, ErrReleased, "encoder")
	}
	if e.enc != nil {
		return nil
	}
	if err := e.dev.enter(op); err != nil {
		return err
	}
	defer e.dev.leave()
	e.dev.scopeMu.Lock()
	e.enc = C.sg_encoder(e.raw, e.cerr.c)
	e.dev.scopeMu.Unlock()
	if e.enc == nil {
		if e.cerr.failed() {
			return e.cerr.err(op)
		}
		return &DeviceError{Op: op, Type: ErrorInternal, Message: "wgpu-native returned no command encoder"}
	}
	e.dev.live.encoders.Add(1)
	return nil
}

// Timestamps asks a pass to write GPU timestamps at its beginning and end,
// into Set at indices Begin and End.
type Timestamps struct {
	Set        *QuerySet
	Begin, End uint32
}

// BeginPass opens a compute pass, with timestamp writes when ts is not nil
// (the device must have Info().Timestamps). An open pass is ended first.
func (e *Encoder) BeginPass(ts *Timestamps) error {
	if err := e.begin("BeginPass"); err != nil {
		return err
	}
	if err := e.EndPass(); err != nil {
		return err
	}
	var set C.WGPUQuerySet
	var b, en uint32
	if ts != nil {
		if !e.dev.info.Timestamps {
			return opError("BeginPass", ErrInvalidArgument, "timestamps requested but the adapter has no timestamp-query feature")
		}
		if ts.Set == nil || ts.Set.dev != e.dev || ts.Begin >= ts.Set.count || ts.End >= ts.Set.count {
			return opError("BeginPass", ErrInvalidArgument, "timestamps need a query set of this device with indices in range")
		}
		set, b, en = rawQuerySet(ts.Set.qs), ts.Begin, ts.End
	}
	e.pass = C.sg_pass(e.enc, set, C.uint32_t(b), C.uint32_t(en))
	e.last = nil
	if e.pass == nil {
		return &DeviceError{Op: "BeginPass", Type: ErrorInternal, Message: "wgpu-native returned no compute pass"}
	}
	return nil
}

// PassOpen reports whether a compute pass is open.
func (e *Encoder) PassOpen() bool { return e.pass != nil }

// SetKernel sets k's pipeline unless it is the one set last in this pass.
// A pass must be open (BeginPass); SetKernel, SetBindGroup and Dispatch are
// the hot path and do not check.
func (e *Encoder) SetKernel(k *Kernel) {
	p := rawPipeline(k.pipeline)
	if p != e.last {
		C.wgpuComputePassEncoderSetPipeline(e.pass, p)
		e.last = p
	}
}

// SetBindGroup sets group 0.
func (e *Encoder) SetBindGroup(g *BindGroup) {
	C.wgpuComputePassEncoderSetBindGroup(e.pass, 0, rawBindGroup(g.bg), 0, nil)
}

// Dispatch dispatches x×y×z workgroups.
func (e *Encoder) Dispatch(x, y, z uint32) {
	C.wgpuComputePassEncoderDispatchWorkgroups(e.pass, C.uint32_t(x), C.uint32_t(y), C.uint32_t(z))
	e.Commands++
}

// DispatchIndirect dispatches the three u32 workgroup counts stored in b at
// offset, read by the GPU when the dispatch executes.
func (e *Encoder) DispatchIndirect(b *Buffer, offset uint64) {
	C.wgpuComputePassEncoderDispatchWorkgroupsIndirect(e.pass, rawBuffer(b.buf), C.uint64_t(offset))
	e.Commands++
}

// EncodeTasks encodes tasks [from, to) of l into the open pass with one cgo
// call. The caller guarantees the range and keeps what the tasks reference
// alive.
func (e *Encoder) EncodeTasks(l *TaskList, from, to int) {
	if to <= from {
		return
	}
	C.sg_encode(e.pass, l.tasks, C.size_t(from), C.size_t(to), &e.last)
	e.Commands += to - from
}

// EndPass ends the open pass, if any. A command the device refused anywhere
// in the pass is reported here as a *DeviceError; the native encoder is then
// invalid, and Finish will fail and discard it.
func (e *Encoder) EndPass() error {
	if e.pass == nil {
		return nil
	}
	e.dev.scopeMu.Lock()
	C.sg_pass_end(e.raw, e.pass, e.cerr.c)
	e.dev.scopeMu.Unlock()
	e.pass, e.last = nil, nil
	if e.cerr.failed() {
		return e.cerr.err("Pass.End")
	}
	return nil
}

// Copy copies size bytes from src at srcOffset to dst at dstOffset. Offsets
// and size must be multiples of 4 and in range.
func (e *Encoder) Copy(src *Buffer, srcOffset uint64, dst *Buffer, dstOffset, size uint64) error {
	if srcOffset%4 != 0 || dstOffset%4 != 0 || size%4 != 0 {
		return opError("Copy", ErrInvalidArgument, "srcOffset=%d dstOffset=%d size=%d (multiples of 4)", srcOffset, dstOffset, size)
	}
	if err := e.dev.owns("Copy", src); err != nil {
		return err
	}
	if err := e.dev.owns("Copy", dst); err != nil {
		return err
	}
	if srcOffset > src.size || size > src.size-srcOffset || dstOffset > dst.size || size > dst.size-dstOffset {
		return opError("Copy", ErrInvalidArgument, "size=%d past the end (src %d bytes at %d, dst %d bytes at %d)", size, src.size, srcOffset, dst.size, dstOffset)
	}
	if err := e.begin("Copy"); err != nil {
		return err
	}
	if err := e.EndPass(); err != nil {
		return err
	}
	e.dev.scopeMu.Lock()
	C.sg_copy(e.raw, e.enc, rawBuffer(src.buf), C.uint64_t(srcOffset), rawBuffer(dst.buf), C.uint64_t(dstOffset), C.uint64_t(size), e.cerr.c)
	e.dev.scopeMu.Unlock()
	if e.cerr.failed() {
		return e.cerr.err("Copy")
	}
	return nil
}

// ResolveQueries writes count timestamps from set, starting at first, into
// dst at offset (a multiple of 256) as little-endian u64 ticks.
func (e *Encoder) ResolveQueries(set *QuerySet, first, count uint32, dst *Buffer, offset uint64) error {
	if set == nil || set.dev != e.dev || first+count > set.count {
		return opError("ResolveQueries", ErrInvalidArgument, "first=%d count=%d", first, count)
	}
	if err := e.dev.owns("ResolveQueries", dst); err != nil {
		return err
	}
	if err := e.begin("ResolveQueries"); err != nil {
		return err
	}
	if err := e.EndPass(); err != nil {
		return err
	}
	e.dev.scopeMu.Lock()
	C.sg_resolve(e.raw, e.enc, rawQuerySet(set.qs), C.uint32_t(first), C.uint32_t(count), rawBuffer(dst.buf), C.uint64_t(offset), e.cerr.c)
	e.dev.scopeMu.Unlock()
	if e.cerr.failed() {
		return e.cerr.err("ResolveQueries")
	}
	return nil
}

// Empty reports whether no native encoder is open (nothing to finish).
func (e *Encoder) Empty() bool { return e.enc == nil }

// CommandBuffer is a finished native command buffer, submitted once by
// Device.Submit. The zero value is empty.
type CommandBuffer struct {
	cb  C.WGPUCommandBuffer
	dev *Device
}

// Finish ends the open pass and the native encoder and returns its command
// buffer; the Encoder is ready for new commands afterwards. On failure the
// native encoder is discarded and no command buffer is returned, so a failed
// Finish can never reach Submit: the error says what the device refused.
// Finishing an empty Encoder returns an empty CommandBuffer.
func (e *Encoder) Finish() (CommandBuffer, error) {
	if e.dead {
		return CommandBuffer{}, opError("Finish", ErrReleased, "encoder")
	}
	if e.enc == nil {
		return CommandBuffer{}, nil
	}
	passErr := e.EndPass()
	e.dev.scopeMu.Lock()
	cb := C.sg_finish(e.raw, e.enc, e.cerr.c)
	e.dev.scopeMu.Unlock()
	e.enc = nil
	e.Commands = 0
	e.dev.live.encoders.Add(-1)
	if passErr != nil {
		if cb != nil {
			C.wgpuCommandBufferRelease(cb)
		}
		return CommandBuffer{}, passErr
	}
	if cb == nil {
		if e.cerr.failed() {
			return CommandBuffer{}, e.cerr.err("Finish")
		}
		return CommandBuffer{}, &DeviceError{Op: "Finish", Type: ErrorInternal, Message: "wgpu-native returned no command buffer"}
	}
	e.dev.live.commandBuffers.Add(1)
	return CommandBuffer{cb: cb, dev: e.dev}, nil
}

// Release abandons the open native encoder and frees the Encoder's C
// memory; idempotent. The Encoder cannot be used afterwards.
func (e *Encoder) Release() {
	if e != nil && e.releaseNative() {
		e.dev.untrack(e)
	}
}

func (e *Encoder) releaseNative() bool {
	if e.dead {
		return false
	}
	e.Discard()
	e.dead = true
	freeNativeErr(e.cerr)
	e.cerr = nativeErr{}
	return true
}

// Discard drops the commands encoded since the last Finish (the native
// encoder and its pass) and leaves the Encoder ready for new commands.
func (e *Encoder) Discard() {
	if e.pass != nil {
		e.dev.scopeMu.Lock()
		C.sg_pass_end(e.raw, e.pass, e.cerr.c)
		e.dev.scopeMu.Unlock()
		e.pass, e.last = nil, nil
	}
	if e.enc != nil {
		C.wgpuCommandEncoderRelease(e.enc)
		e.enc = nil
		e.dev.live.encoders.Add(-1)
	}
	e.Commands = 0
}

// Empty reports whether the command buffer holds nothing to submit.
func (c CommandBuffer) Empty() bool { return c.cb == nil }

// Release drops a command buffer that will not be submitted.
func (c CommandBuffer) Release() {
	if c.cb != nil {
		C.wgpuCommandBufferRelease(c.cb)
		c.dev.live.commandBuffers.Add(-1)
	}
}

// QuerySet holds GPU timestamps.
type QuerySet struct {
	dev      *Device
	qs       *wgpu.QuerySet // owned
	count    uint32
	released atomic.Bool
}

// NewTimestampQueries creates a set of count timestamp queries. The device
// must have Info().Timestamps.
func (d *Device) NewTimestampQueries(count uint32) (*QuerySet, error) {
	if err := d.enter("NewTimestampQueries"); err != nil {
		return nil, err
	}
	defer d.leave()
	if !d.info.Timestamps {
		return nil, opError("NewTimestampQueries", ErrInvalidArgument, "the adapter has no timestamp-query feature")
	}
	if count == 0 || count > wgpu.QuerySetMaxQueries {
		return nil, opError("NewTimestampQueries", ErrInvalidArgument, "count=%d (1..%d)", count, wgpu.QuerySetMaxQueries)
	}
	var qs *wgpu.QuerySet
	if err := d.scoped("NewTimestampQueries", func() (err error) {
		qs, err = d.dev.CreateQuerySet(&wgpu.QuerySetDescriptor{Type: wgpu.QueryTypeTimestamp, Count: count})
		return err
	}); err != nil {
		if qs != nil {
			qs.Release()
		}
		return nil, err
	}
	d.live.querySets.Add(1)
	q := &QuerySet{dev: d, qs: qs, count: count}
	d.track(q)
	return q, nil
}

// Count is the number of queries in the set.
func (q *QuerySet) Count() uint32 { return q.count }

// Release drops the query set; idempotent, and a no-op after the device's
// Close.
func (q *QuerySet) Release() {
	if q != nil && q.releaseNative() {
		q.dev.untrack(q)
	}
}

func (q *QuerySet) releaseNative() bool {
	if !q.released.CompareAndSwap(false, true) {
		return false
	}
	q.qs.Release()
	q.dev.live.querySets.Add(-1)
	return true
}
