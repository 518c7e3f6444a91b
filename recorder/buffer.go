package recorder

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Buffer is GPU memory from a stream's pool: a storage buffer of Size bytes
// that can also be bound as a small uniform, hold indirect dispatch counts,
// and be copied from and to. It binds exactly its own byte range, so WGSL's
// arrayLength() of an array<f32> is Size()/4 even when the pool handed out a
// larger page.
//
// A Buffer may be used from any goroutine and on any stream of its device.
// Release gives the memory back: it becomes reusable once every launch that
// was enqueued with it has been submitted, and never while a Graph binds it.
type Buffer struct {
	s        *Stream // the stream whose pool owns the page
	pg       *page
	size     uint64
	released atomic.Bool
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() uint64 { return b.size }

// Stream is the stream whose pool the buffer came from.
func (b *Buffer) Stream() *Stream { return b.s }

// Release drops the caller's reference. It is asynchronous (work already
// enqueued with the buffer still sees its contents) and idempotent; every
// later use of the Buffer returns an error wrapping ErrReleased.
func (b *Buffer) Release() {
	if b == nil || !b.released.CompareAndSwap(false, true) {
		return
	}
	b.pg.unref()
}

func (b *Buffer) String() string {
	if b == nil {
		return "<nil buffer>"
	}
	return fmt.Sprintf("buffer(%d bytes)", b.size)
}

// usable checks that b can be used by an operation of stream s; name says
// which argument b is, for the message.
func (b *Buffer) usable(op, name string, s *Stream) error {
	if why, sentinel := b.problem(s); sentinel != nil {
		return argError(op, sentinel, "%s %s", name, why)
	}
	return nil
}

// problem is usable without the message: nil when b is fine. Launch calls
// it per argument and formats only on failure, keeping the launch path free
// of string building.
func (b *Buffer) problem(s *Stream) (string, error) {
	switch {
	case b == nil:
		return "is nil", ErrInvalidArgument
	case b.released.Load():
		return fmt.Sprintf("(%d bytes) was released", b.size), ErrReleased
	case b.s.dev != s.dev:
		return fmt.Sprintf("(%d bytes) belongs to another device", b.size), ErrForeignDevice
	case b.s != s && b.s.isClosed():
		return fmt.Sprintf("(%d bytes) belongs to a closed stream", b.size), ErrClosed
	}
	return "", nil
}

func (s *Stream) newBuffer(op string, size uint64) (*Buffer, error) {
	if size == 0 || size%4 != 0 {
		return nil, argError(op, ErrInvalidArgument, "size=%d (must be a positive multiple of 4)", size)
	}
	if max := s.dev.Info().Limits.MaxBufferSize; size > max {
		return nil, argError(op, ErrInvalidArgument, "size=%d exceeds the device's maxBufferSize %d", size, max)
	}
	pg, err := s.mem.alloc(size)
	if err != nil {
		return nil, s.allocError(op, size, err)
	}
	return &Buffer{s: s, pg: pg, size: size}, nil
}

// Empty returns a pooled buffer of size bytes (a positive multiple of 4)
// with unspecified contents. Allocation is allowed in every lifecycle state;
// inside a capture window the buffer is pinned by the graph that binds it.
func (s *Stream) Empty(size uint64) (*Buffer, error) {
	if err := s.check("Empty"); err != nil {
		return nil, err
	}
	return s.newBuffer("Empty", size)
}

// Upload returns a pooled buffer holding a copy of data (length a positive
// multiple of 4). It is Empty followed by Write, in stream order: inside a
// capture window the write is rejected lazily like any Write (the buffer is
// returned, its contents unspecified, and EndCapture fails), because a graph
// replays launches only; upload constants before GraphPrepare.
func (s *Stream) Upload(data []byte) (*Buffer, error) {
	if err := s.check("Upload"); err != nil {
		return nil, err
	}
	b, err := s.newBuffer("Upload", uint64(len(data)))
	if err != nil {
		return nil, err
	}
	if err := s.write("Upload", b, 0, data); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// Number is an element type UploadSlice and ReadSlice move as little-endian
// bytes (the host order of every platform wgpu-native runs on).
type Number interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

func asBytes[T Number](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(zero)))
}

// UploadSlice uploads v as a new buffer of len(v)*sizeof(T) bytes (a
// positive multiple of 4).
func UploadSlice[T Number](s *Stream, v []T) (*Buffer, error) {
	return s.Upload(asBytes(v))
}

// WriteSlice writes v into b at byte offset, like Stream.Write.
func WriteSlice[T Number](s *Stream, b *Buffer, offset uint64, v []T) error {
	return s.Write(b, offset, asBytes(v))
}

// ReadSlice reads b as a []T; b's size must be a multiple of sizeof(T).
func ReadSlice[T Number](s *Stream, b *Buffer) ([]T, error) {
	var zero T
	el := uint64(unsafe.Sizeof(zero))
	if b != nil && b.size%el != 0 {
		return nil, argError("ReadSlice", ErrInvalidArgument, "buffer of %d bytes is not a whole number of %d-byte elements", b.size, el)
	}
	raw, err := s.Read(b)
	if err != nil {
		return nil, err
	}
	out := make([]T, uint64(len(raw))/el)
	copy(asBytes(out), raw)
	return out, nil
}
