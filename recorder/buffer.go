package recorder

import (
	"fmt"
	"github.com/softgraph/softgraph/internal/lockrank"
	"sync/atomic"
	"unsafe"

	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// Buffer is GPU memory from a stream's pool: a storage buffer of Size bytes
// that can also be bound as a small uniform, hold indirect dispatch counts,
// and be copied from and to. It binds exactly its own byte range, so WGSL's
// arrayLength() of an array<f32> is Size()/4 even when the pool handed out a
// larger page.
//
// A Buffer may be used from any goroutine and on any stream of its device
// while its own stream is open. Release gives the memory back: it becomes
// reusable once every launch that was enqueued with it has been submitted,
// and never while a Graph binds it.
type Buffer struct {
	s    *Stream // the stream whose pool owns the page
	pg   *pool.Page
	size uint64

	// mu orders Release against the calls that take a reference on the
	// page: a call either takes its reference while the Buffer is live (and
	// the page cannot be reused under it), or sees it released. Without it
	// a Release between a launch's check and its reference put the page on
	// the free list while a batch held it, and two Buffers shared memory.
	mu       lockrank.Mutex // lockrank.Handle
	released bool
	label    string

	// v is the Var this buffer holds, nil for a plain Buffer; set once by
	// NewVar (or LoadGraph) before the Buffer is shared.
	v *Var
	// foreign is set once a stream other than s binds the buffer: a
	// Var's value then goes to the queue at SetVar (so the other
	// stream's next submission sees it), not with its own stream's next
	// batch (Stream.SetVar).
	foreign atomic.Bool
}

// Size is the buffer's size in bytes (0 for a nil Buffer).
func (b *Buffer) Size() uint64 {
	if b == nil {
		return 0
	}
	return b.size
}

// Stream is the stream whose pool the buffer came from (nil for a nil
// Buffer).
func (b *Buffer) Stream() *Stream {
	if b == nil {
		return nil
	}
	return b.s
}

// Label is the buffer's name (empty unless set, or loaded from a graph file).
func (b *Buffer) Label() string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.label
}

// SetLabel names the buffer; graph files and Graph.String carry the name.
func (b *Buffer) SetLabel(label string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.label = label
	b.mu.Unlock()
}

// Release drops the caller's reference. It is asynchronous (work already
// enqueued with the buffer still sees its contents) and idempotent; every
// later use of the Buffer returns an error wrapping ErrReleased. Safe to
// call concurrently with any operation using the buffer.
func (b *Buffer) Release() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.released {
		b.mu.Unlock()
		return
	}
	b.released = true
	b.mu.Unlock()
	b.s.disown(b)
	b.pg.Unref()
}

// Released reports whether Release was called (true for a nil Buffer,
// which no operation accepts either).
func (b *Buffer) Released() bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.released
}

func (b *Buffer) String() string {
	if b == nil {
		return "<nil buffer>"
	}
	if l := b.Label(); l != "" {
		return fmt.Sprintf("buffer %q (%d bytes)", l, b.size)
	}
	return fmt.Sprintf("buffer(%d bytes)", b.size)
}

// acquire takes a reference on b's page for an operation of stream s; the
// caller drops it (pg.Unref) or hands it to a batch, recording or graph.
// name says which argument b is, for the message.
func (b *Buffer) acquire(op lifecycle.Op, name string, s *Stream) (*pool.Page, error) {
	pg, why, sentinel := b.take(s)
	if sentinel != nil {
		return nil, argError(op, sentinel, "%s %s", name, why)
	}
	return pg, nil
}

// take is acquire without the message: on failure it says why and which
// sentinel applies, so the launch path builds strings only on failure.
func (b *Buffer) take(s *Stream) (*pool.Page, string, error) {
	if b == nil {
		return nil, "is nil", ErrInvalidArgument
	}
	if b.s.dev != s.dev {
		return nil, fmt.Sprintf("(%d bytes) belongs to another device", b.size), ErrForeignDevice
	}
	if b.s != s && b.s.closing.Load() {
		return nil, fmt.Sprintf("(%d bytes) belongs to a closed stream", b.size), ErrClosed
	}
	if b.s != s && b.v != nil && !b.foreign.Load() {
		b.foreign.Store(true)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		if b.s.closing.Load() {
			// Released by its stream's Close, which a call racing it sees
			// as the stream closing, not as a Release of the caller's.
			return nil, fmt.Sprintf("(%d bytes) belongs to a closed stream", b.size), ErrClosed
		}
		return nil, fmt.Sprintf("(%d bytes) was released", b.size), ErrReleased
	}
	b.pg.Ref()
	return b.pg, "", nil
}

// newBufferLocked makes a Buffer for op in the pool mode of the verdict op
// was admitted with: read from the lifecycle state under the stream's lock
// and used under that same hold (or, for an operation of several steps,
// read when it was admitted), so a capture that begins or ends meanwhile
// cannot leave a buffer allocated in another state's mode (a priming hold
// that BeginCapture never drops, or a normal page recycled under a graph).
// The caller holds s.mu.
func (s *Stream) newBufferLocked(op lifecycle.Op, size uint64, mode lifecycle.PoolMode) (*Buffer, error) {
	if size == 0 || size%4 != 0 {
		return nil, argError(op, ErrInvalidArgument, "size=%d (must be a positive multiple of 4)", size)
	}
	if max := s.limits.MaxBufferSize; size > max {
		return nil, argError(op, ErrInvalidArgument, "size=%d exceeds the device's maxBufferSize %d", size, max)
	}
	pg, err := s.mem.Alloc(size, mode)
	if err != nil {
		return nil, s.allocError(op, size, err)
	}
	b := &Buffer{s: s, pg: pg, size: size, mu: lockrank.Mutex{Rank: lockrank.Handle}}
	s.own(b)
	return b, nil
}

// Alloc allocates a pooled buffer of size bytes (a positive multiple of 4)
// with unspecified contents. Allocation is admitted in every lifecycle
// state (lifecycle.Alloc); inside a capture window the buffer is pinned by
// the graph that binds it. Refusals are an *Error wrapping
// ErrInvalidArgument (a size WebGPU refuses), ErrClosed, or the device's
// error (wgpu.ErrOutOfMemory, wgpu.ErrDeviceLost).
func (s *Stream) Alloc(size uint64) (*Buffer, error) {
	const op = lifecycle.Alloc
	if err := s.check(op); err != nil {
		return nil, err
	}
	var b *Buffer
	err := s.eng.Do(op, func(tx *engine.Tx) (err error) {
		b, err = s.newBufferLocked(op, size, tx.PoolMode())
		return err
	})
	return b, err
}

// Empty is Alloc.
//
// Deprecated: the name hides that it allocates; use Alloc.
func (s *Stream) Empty(size uint64) (*Buffer, error) { return s.Alloc(size) }

// Upload returns a pooled buffer holding a copy of data (length a positive
// multiple of 4). It is Alloc followed by Write, in stream order: inside a
// capture window the write is rejected lazily like any Write (the buffer is
// returned, its contents unspecified, and EndCapture fails), because a graph
// replays GPU work only; upload constants before PrepareCapture.
func (s *Stream) Upload(data []byte) (*Buffer, error) {
	b, err := s.Alloc(uint64(len(data)))
	if err != nil {
		return nil, err
	}
	if err := s.Write(b, 0, data); err != nil {
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
		return nil, s.refused(lifecycle.Read, argError(lifecycle.Read, ErrInvalidArgument, "buffer of %d bytes is not a whole number of %d-byte elements", b.size, el))
	}
	raw, err := s.Read(b)
	if err != nil {
		return nil, err
	}
	out := make([]T, uint64(len(raw))/el)
	copy(asBytes(out), raw)
	return out, nil
}
