package recorder

// This file is where a stream's buffers meet an application's own WebGPU
// code on the same device (wgpu.Adopt): Native hands a stream's buffer to
// the application, WrapBuffer hands the application's buffer to a stream.
// It imports the cogentcore bindings for their Buffer type only; every call
// on a native object goes through the driver's interop extension
// (internal/driver/interop), which package wgpu implements.

import (
	"fmt"

	webgpu "github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/driver/interop"
	"github.com/softgraph/softgraph/internal/lockrank"
	"github.com/softgraph/softgraph/lifecycle"
)

// Native is the native WebGPU buffer behind b, for the application's own
// pipelines and copies on the same device (see wgpu.Adopt), or nil for a
// nil, released or closed Buffer.
//
// Usage flags. A buffer from Empty or Upload is a pool page made with
// Storage, Uniform, CopySrc, CopyDst and Indirect usage; a wrapped buffer
// (WrapBuffer) is the application's own, with the flags it was made with.
//
// Size. A pool page may be larger than b (the pool rounds sizes up, and
// reuses pages): the Buffer's bytes are [0, b.Size()) of it. Bind that
// range explicitly (BindGroupEntry.Size = b.Size()), or WGSL's arrayLength
// sees the page.
//
// Lifetime. The native buffer is softgraph's: never Release or Destroy it.
// It is valid while b is live. After b's Release the page goes back to the
// pool and another Buffer may get it, and the pool releases it when the
// stream closes or trims: keep b live for as long as the application
// encodes or submits work that uses the native buffer.
//
// Cost. On a device softgraph opened (not adopted), the first Native
// makes the device's Finishes run one at a time from then on: the
// application's calls on the native buffer push error scopes of their own,
// which Finishes running at once without scopes cannot share the device
// with (docs/design.md, "The submitter and waits").
//
// Error scopes. wgpu-native keeps one error-scope stack per device, and
// cogentcore's calls on the native buffer (Unmap, MapAsync, ...) push and
// pop scopes on it without softgraph's lock. A call of the application's
// that fails while a softgraph call on the same device is inside its scope
// may have its error reported by that softgraph call instead (a Read
// failing with the application's "validation error"), and the other way
// round: make the application's calls on native objects that may fail from
// one goroutine at a time with the device's streams, as wgpu.Adopt says.
// Calls that cannot fail (GetSize, GetUsage) and valid use raise nothing.
//
// Ordering. GPU work runs in queue order (see wgpu.Adopt): the application
// sees what the stream enqueued once the stream's Flush (or Sync, or Read)
// has returned, and a launch enqueued after the application's submit or
// queue write returned sees the application's work. Between a stream's
// enqueue and its flush the two are unordered.
func (b *Buffer) Native() *webgpu.Buffer {
	if b == nil || b.Released() {
		return nil
	}
	nd, ok := interop.Of(b.s.drv)
	if !ok {
		return nil
	}
	nb, err := nd.NativeBuffer(b.pg.Buffer())
	if err != nil {
		return nil
	}
	return nb
}

// WrapBuffer makes a Buffer of the application's native buffer nb, of size
// bytes from its start, for launches, copies, clears, reads, writes and
// graphs on this stream like any Buffer — the other direction of Native.
// The stream's device must be nb's device: a wgpu.Adopt of the
// application's device.
//
// Requirements, checked now: nb is not nil; size is a positive multiple of
// 4 and at most nb's size; nb's usage includes Storage, CopySrc and CopyDst
// (a launch binds a Buffer as storage, Read copies out of it, Write is a
// queue write into it, and graphs copy and clear); nb is not a buffer
// softgraph made on another device (Native of another device's stream). A
// refusal returns an *Error wrapping ErrInvalidArgument (ErrForeignDevice
// for another device's buffer) and wraps nothing. What cannot be checked:
// a buffer of another device that softgraph did not make (wgpu-native v22
// cannot tell a buffer's device, and wgpu-core 22 binds and copies one
// without an error: the result is undefined, and a buffer of another wgpu
// instance's device can abort the process), and a buffer still mapped
// (MappedAtCreation and not yet unmapped: wgpu-native v22 does not
// implement wgpuBufferGetMapState; the first submission that uses it
// aborts the process). A
// Buffer used as a uniform or for indirect counts also needs Uniform or
// Indirect usage; without it that launch is refused when its bind group is
// made.
//
// Ownership. nb stays the application's. The Buffer holds a reference of
// its own on the native buffer (so the application releasing its handle
// early is safe) and drops it when the Buffer's page has no holder left: the
// Buffer's Release, or the stream's Close, and every graph and unsubmitted
// batch that uses it. softgraph never destroys nb and never recycles it into
// the pool. The application must not Destroy nb while the Buffer or a graph
// that binds it may still run (a graph keeps it for its own lifetime, until
// its Release); submitting work that uses a destroyed buffer aborts the
// process inside wgpu-native.
//
// A graph file saved from a graph that uses a wrapped Buffer records it as
// an ordinary buffer of its size: LoadGraph makes a pool buffer in its
// place (Graph.Rebind puts a wrapped one back).
func (s *Stream) WrapBuffer(nb *webgpu.Buffer, size uint64) (*Buffer, error) {
	const op = "WrapBuffer"
	if err := s.check(lifecycle.Alloc); err != nil {
		return nil, err
	}
	if nb == nil {
		return nil, &Error{Op: op, Arg: "native buffer is nil", Err: ErrInvalidArgument}
	}
	if size == 0 || size%4 != 0 {
		return nil, &Error{Op: op, Arg: fmt.Sprintf("size=%d (must be a positive multiple of 4)", size), Err: ErrInvalidArgument}
	}
	nd, ok := interop.Of(s.drv)
	if !ok {
		return nil, &Error{Op: op, Arg: "device has no native buffers", Err: ErrInvalidArgument}
	}
	buf, err := nd.WrapBuffer(nb, size, "")
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	pg := s.mem.Wrap(buf, size)
	b := &Buffer{s: s, pg: pg, size: size, mu: lockrank.Mutex{Rank: lockrank.Handle}}
	s.own(b)
	if s.closing.Load() {
		// Close raced with the wrap and may have dropped its owned list
		// already: give the reference back rather than leak it.
		b.Release()
		return nil, closedError(lifecycle.Alloc)
	}
	return b, nil
}
