package wgpu

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
	var berr error
	typ, msg := scopedError(d.dev, func() {
		bg, berr = d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Layout: k.layout, Entries: entries})
	})
	if berr != nil {
		return nil, validationError("NewBindGroup", berr)
	}
	if typ != ErrorNone {
		bg.Release()
		return nil, &DeviceError{Op: "NewBindGroup", Type: typ, Message: msg}
	}
	d.live.bindGroups.Add(1)
	return &BindGroup{dev: d, bg: bg}, nil
}

// Release drops the bind group; idempotent.
func (g *BindGroup) Release() {
	if g == nil || !g.released.CompareAndSwap(false, true) {
		return
	}
	g.bg.Release()
	g.dev.live.bindGroups.Add(-1)
}

// Encoder records commands into one command buffer. It is not safe for
// concurrent use. Finish turns it into a CommandBuffer; Release abandons it.
type Encoder struct {
	dev  *Device
	enc  *wgpu.CommandEncoder // owned until Finish or Release
	pass Pass                 // the open pass, if pass.open
}

// NewEncoder starts a command encoder.
func (d *Device) NewEncoder() (*Encoder, error) {
	if err := d.enter("NewEncoder"); err != nil {
		return nil, err
	}
	defer d.leave()
	var enc *wgpu.CommandEncoder
	var eerr error
	typ, msg := scopedError(d.dev, func() { enc, eerr = d.dev.CreateCommandEncoder(nil) })
	if eerr != nil {
		return nil, validationError("NewEncoder", eerr)
	}
	if typ != ErrorNone {
		enc.Release()
		return nil, &DeviceError{Op: "NewEncoder", Type: typ, Message: msg}
	}
	d.live.encoders.Add(1)
	e := &Encoder{dev: d, enc: enc}
	e.pass.enc = e
	return e, nil
}

// Timestamps asks a pass to write GPU timestamps at its beginning and end,
// into Set at indices Begin and End.
type Timestamps struct {
	Set        *QuerySet
	Begin, End uint32
}

// Pass is an open compute pass. Its methods are the replay loop's hot path:
// thin calls into wgpu-native that neither allocate nor validate. Errors from
// the commands are reported by End.
type Pass struct {
	enc  *Encoder
	pass *wgpu.ComputePassEncoder
	open bool
	last *Kernel // the pipeline set last, to skip a redundant SetPipeline
}

// BeginPass opens a compute pass, with timestamp writes when ts is not nil
// (the device must have Info().Timestamps). Only one pass is open at a time.
func (e *Encoder) BeginPass(ts *Timestamps) (*Pass, error) {
	if e.enc == nil {
		return nil, opError("BeginPass", ErrReleased, "encoder")
	}
	if e.pass.open {
		return nil, opError("BeginPass", ErrInvalidArgument, "a pass is already open on this encoder")
	}
	if err := e.dev.enter("BeginPass"); err != nil {
		return nil, err
	}
	defer e.dev.leave()
	var p *wgpu.ComputePassEncoder
	if ts != nil {
		if !e.dev.info.Timestamps {
			return nil, opError("BeginPass", ErrInvalidArgument, "timestamps requested but the adapter has no timestamp-query feature")
		}
		if ts.Set == nil || ts.Set.dev != e.dev {
			return nil, opError("BeginPass", ErrInvalidArgument, "timestamps need a query set of this device")
		}
		p = beginTimedPass(e.dev.dev, e.enc, ts.Set.qs, ts.Begin, ts.End)
		if p == nil {
			return nil, &DeviceError{Op: "BeginPass", Type: ErrorInternal, Message: "wgpu-native returned no pass"}
		}
	} else {
		p = e.enc.BeginComputePass(nil)
	}
	e.pass = Pass{enc: e, pass: p, open: true}
	return &e.pass, nil
}

// SetKernel sets k's pipeline unless it is already the one set in this pass.
func (p *Pass) SetKernel(k *Kernel) {
	if p.last == k {
		return
	}
	p.pass.SetPipeline(k.pipeline)
	p.last = k
}

// SetBindGroup sets group 0.
func (p *Pass) SetBindGroup(g *BindGroup) { p.pass.SetBindGroup(0, g.bg, nil) }

// Dispatch dispatches x×y×z workgroups.
func (p *Pass) Dispatch(x, y, z uint32) { p.pass.DispatchWorkgroups(x, y, z) }

// DispatchIndirect dispatches the workgroup counts stored in b at offset
// (three u32), read by the GPU when the dispatch executes.
func (p *Pass) DispatchIndirect(b *Buffer, offset uint64) {
	p.pass.DispatchWorkgroupsIndirect(b.buf, offset)
}

// End closes the pass and releases it (wgpu-native wants the pass released
// after End and before Finish). A command the device refused anywhere in the
// pass is reported here; the encoder is then invalid and Finish fails too.
func (p *Pass) End() error {
	if !p.open {
		return nil
	}
	p.open = false
	err := p.pass.End()
	p.pass.Release()
	p.pass = nil
	if err != nil {
		return validationError("Pass.End", err)
	}
	return nil
}

// Open reports whether the pass is still open.
func (p *Pass) Open() bool { return p.open }

// Copy copies size bytes from src at srcOffset to dst at dstOffset. Offsets
// and size must be multiples of 4. A pass must not be open.
func (e *Encoder) Copy(src *Buffer, srcOffset uint64, dst *Buffer, dstOffset, size uint64) error {
	if e.enc == nil {
		return opError("Copy", ErrReleased, "encoder")
	}
	if e.pass.open {
		return opError("Copy", ErrInvalidArgument, "a compute pass is open; End it first")
	}
	if srcOffset%4 != 0 || dstOffset%4 != 0 || size%4 != 0 {
		return opError("Copy", ErrInvalidArgument, "srcOffset=%d dstOffset=%d size=%d (multiples of 4)", srcOffset, dstOffset, size)
	}
	if err := e.dev.owns("Copy", src); err != nil {
		return err
	}
	if err := e.dev.owns("Copy", dst); err != nil {
		return err
	}
	if srcOffset+size > src.size || dstOffset+size > dst.size {
		return opError("Copy", ErrInvalidArgument, "size=%d past the end (src %d bytes at %d, dst %d bytes at %d)", size, src.size, srcOffset, dst.size, dstOffset)
	}
	if err := e.enc.CopyBufferToBuffer(src.buf, srcOffset, dst.buf, dstOffset, size); err != nil {
		return validationError("Copy", err)
	}
	return nil
}

// ResolveQueries writes count timestamps from set, starting at first, into
// dst at offset (a multiple of 256) as little-endian u64 ticks.
func (e *Encoder) ResolveQueries(set *QuerySet, first, count uint32, dst *Buffer, offset uint64) error {
	if e.enc == nil {
		return opError("ResolveQueries", ErrReleased, "encoder")
	}
	if e.pass.open {
		return opError("ResolveQueries", ErrInvalidArgument, "a compute pass is open; End it first")
	}
	if err := e.enc.ResolveQuerySet(set.qs, first, count, dst.buf, offset); err != nil {
		return validationError("ResolveQueries", err)
	}
	return nil
}

// Finish ends the encoder and returns its command buffer. On failure the
// encoder is released and no command buffer is returned, so a failed Finish
// can never reach Submit. An open pass is ended first.
func (e *Encoder) Finish() (*CommandBuffer, error) {
	if e.enc == nil {
		return nil, opError("Finish", ErrReleased, "encoder")
	}
	passErr := e.pass.End()
	var cb *wgpu.CommandBuffer
	var ferr error
	typ, msg := scopedError(e.dev.dev, func() { cb, ferr = e.enc.Finish(nil) })
	e.Release()
	if passErr != nil {
		if cb != nil {
			cb.Release()
		}
		return nil, passErr
	}
	if ferr != nil {
		return nil, validationError("Finish", ferr)
	}
	if typ != ErrorNone {
		cb.Release()
		return nil, &DeviceError{Op: "Finish", Type: typ, Message: msg}
	}
	e.dev.live.commandBuffers.Add(1)
	return &CommandBuffer{dev: e.dev, cb: cb}, nil
}

// Release abandons the encoder (and its open pass); idempotent.
func (e *Encoder) Release() {
	if e == nil || e.enc == nil {
		return
	}
	if e.pass.open {
		e.pass.open = false
		_ = e.pass.pass.End()
		e.pass.pass.Release()
		e.pass.pass = nil
	}
	e.enc.Release()
	e.enc = nil
	e.dev.live.encoders.Add(-1)
}

// CommandBuffer is a finished encoder, to be submitted once.
type CommandBuffer struct {
	dev *Device
	cb  *wgpu.CommandBuffer // owned until submitted or released
}

// Release drops an unsubmitted command buffer; Submit releases the ones it
// submits. Idempotent.
func (c *CommandBuffer) Release() {
	if c == nil || c.cb == nil {
		return
	}
	c.cb.Release()
	c.cb = nil
	c.dev.live.commandBuffers.Add(-1)
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
	var qerr error
	typ, msg := scopedError(d.dev, func() {
		qs, qerr = d.dev.CreateQuerySet(&wgpu.QuerySetDescriptor{Type: wgpu.QueryTypeTimestamp, Count: count})
	})
	if qerr != nil {
		return nil, validationError("NewTimestampQueries", qerr)
	}
	if typ != ErrorNone {
		qs.Release()
		return nil, &DeviceError{Op: "NewTimestampQueries", Type: typ, Message: msg}
	}
	d.live.querySets.Add(1)
	return &QuerySet{dev: d, qs: qs, count: count}, nil
}

// Count is the number of queries in the set.
func (q *QuerySet) Count() uint32 { return q.count }

// Release drops the query set; idempotent.
func (q *QuerySet) Release() {
	if q == nil || !q.released.CompareAndSwap(false, true) {
		return
	}
	q.qs.Release()
	q.dev.live.querySets.Add(-1)
}
