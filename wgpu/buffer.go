package wgpu

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/cogentcore/webgpu/wgpu"
)

// Usage says what a buffer may be used for (WebGPU's GPUBufferUsage).
type Usage uint32

const (
	UsageMapRead      = Usage(wgpu.BufferUsageMapRead)
	UsageCopySrc      = Usage(wgpu.BufferUsageCopySrc)
	UsageCopyDst      = Usage(wgpu.BufferUsageCopyDst)
	UsageUniform      = Usage(wgpu.BufferUsageUniform)
	UsageStorage      = Usage(wgpu.BufferUsageStorage)
	UsageIndirect     = Usage(wgpu.BufferUsageIndirect)
	UsageQueryResolve = Usage(wgpu.BufferUsageQueryResolve)
)

// Buffer is one native wgpu buffer.
//
// Release drops softgraph's handle; wgpu-native keeps the memory alive until
// the GPU has finished every submitted command that uses it. softgraph never
// calls wgpuBufferDestroy on a buffer that encoded or in-flight work may use:
// submitting work that uses a destroyed buffer aborts the process inside
// wgpu-native, and no error scope catches it.
type Buffer struct {
	dev      *Device
	buf      *wgpu.Buffer // owned; released by Release
	size     uint64
	usage    Usage
	released atomic.Bool
}

// NewBuffer creates a buffer of size bytes (a multiple of 4, at most the
// device's MaxBufferSize) with the given usage. Allocation failures are
// returned as a *DeviceError wrapping ErrOutOfMemory.
func (d *Device) NewBuffer(size uint64, usage Usage, label string) (*Buffer, error) {
	if err := d.enter("NewBuffer"); err != nil {
		return nil, err
	}
	defer d.leave()
	if size == 0 || size%4 != 0 {
		return nil, opError("NewBuffer", ErrInvalidArgument, "size=%d (must be a positive multiple of 4)", size)
	}
	if size > d.info.Limits.MaxBufferSize {
		return nil, opError("NewBuffer", ErrInvalidArgument, "size=%d exceeds the device's maxBufferSize %d", size, d.info.Limits.MaxBufferSize)
	}
	var buf *wgpu.Buffer
	if err := d.scoped("NewBuffer", func() (err error) {
		buf, err = d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: label, Size: size, Usage: wgpu.BufferUsage(usage)})
		return err
	}); err != nil {
		if buf != nil {
			buf.Release()
		}
		return nil, fmt.Errorf("size=%d: %w", size, err)
	}
	d.live.buffers.Add(1)
	b := &Buffer{dev: d, buf: buf, size: size, usage: usage}
	d.track(b)
	return b, nil
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() uint64 { return b.size }

// Usage is what the buffer was created for.
func (b *Buffer) Usage() Usage { return b.usage }

// Device is the device that made the buffer.
func (b *Buffer) Device() *Device { return b.dev }

// Released reports whether Release was called.
func (b *Buffer) Released() bool { return b.released.Load() }

// Release drops the handle (see Buffer). It is idempotent, and a no-op
// after the device's Close (which released it).
func (b *Buffer) Release() {
	if b != nil && b.releaseNative() {
		b.dev.untrack(b)
	}
}

func (b *Buffer) releaseNative() bool {
	if !b.released.CompareAndSwap(false, true) {
		return false
	}
	b.buf.Release()
	b.dev.live.buffers.Add(-1)
	return true
}

// mapPending is no map status: the callback has not run yet.
const mapPending = 0xffff

// ReadMapped maps size bytes of a MapRead buffer at offset after the
// submission s has completed, copies them into dst, and unmaps. The buffer
// must not be used by any submitted-but-unfinished work; callers wait for the
// submission that wrote it (Wait) or pass it here.
func (d *Device) ReadMapped(ctx context.Context, b *Buffer, offset uint64, dst []byte, s Submission) error {
	if err := d.Wait(ctx, s); err != nil {
		return err
	}
	if err := d.enter("ReadMapped"); err != nil {
		return err
	}
	defer d.leave()
	if err := d.owns("ReadMapped", b); err != nil {
		return err
	}
	size := uint64(len(dst))
	if offset%8 != 0 || size%4 != 0 || offset+size > b.size {
		return opError("ReadMapped", ErrInvalidArgument, "offset=%d size=%d of a %d-byte buffer (offset must be a multiple of 8, size of 4)", offset, size, b.size)
	}
	if size == 0 {
		return nil
	}
	// The callback runs inside whichever goroutine's Poll or Submit
	// wgpu-native processes it in, so the status is atomic.
	var status atomic.Uint32
	status.Store(mapPending)
	if err := d.scoped("ReadMapped", func() error {
		return b.buf.MapAsync(wgpu.MapModeRead, offset, size, func(st wgpu.BufferMapAsyncStatus) { status.Store(uint32(st)) })
	}); err != nil {
		return err
	}
	// The map callback runs inside Poll once the GPU is done with the buffer.
	for status.Load() == mapPending {
		d.dev.Poll(true, nil)
		if err := d.usable("ReadMapped"); err != nil {
			return err
		}
	}
	if st := wgpu.BufferMapAsyncStatus(status.Load()); st != wgpu.BufferMapAsyncStatusSuccess {
		return &DeviceError{Op: "ReadMapped", Type: ErrorValidation, Message: "map failed: " + st.String()}
	}
	copy(dst, b.buf.GetMappedRange(uint(offset), uint(size)))
	return d.scoped("ReadMapped", b.buf.Unmap)
}
