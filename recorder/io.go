package recorder

import (
	"context"

	"github.com/softgraph/softgraph/wgpu"
)

// Write copies data into b at offset (both multiples of 4, in range). It is
// asynchronous and ordered: launches enqueued before it see the old
// contents, launches after it the new ones, although WebGPU's queue writes
// overtake unsubmitted encoder work (the stream submits first when the open
// batch uses b).
//
// Host-side errors (nil, released or foreign buffer, misaligned or
// out-of-range offset or length) are returned on the spot. While recording,
// Write is rejected lazily: it returns nil, applies nothing, and queues an
// error (wrapping lifecycle.ErrGraphState) that makes EndCapture fail, since
// a graph missing an operation is worse than a late diagnostic.
func (s *Stream) Write(b *Buffer, offset uint64, data []byte) error {
	if err := s.check("Write"); err != nil {
		return err
	}
	return s.write("Write", b, offset, data)
}

func (s *Stream) write(op string, b *Buffer, offset uint64, data []byte) error {
	if err := b.usable(op, "buffer", s); err != nil {
		return err
	}
	n := uint64(len(data))
	if offset%4 != 0 || n%4 != 0 {
		return argError(op, ErrInvalidArgument, "offset=%d len=%d (both must be multiples of 4)", offset, n)
	}
	if offset > b.size || n > b.size-offset {
		return argError(op, ErrInvalidArgument, "offset=%d len=%d past the end of a %d-byte buffer", offset, n, b.size)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return closedError(op)
	}
	if n == 0 {
		return nil // nothing to order, apply or record
	}
	if s.state.IsRecording() {
		s.errs = append(s.errs, s.state.Refuse("write", "a write was issued while recording; graphs record launches only, so the graph would replay without it (write before BeginCapture or between replays)"))
		return nil
	}
	// Queue writes run before any command submitted after them: if the open
	// batch has a launch using b, it must be submitted first.
	if b.pg.touch.Load() == s.token() {
		s.flushLocked()
	}
	if err := s.dev.Write(b.pg.buf, offset, data); err != nil {
		return &Error{Op: op, Arg: b.String(), Err: err}
	}
	return nil
}

// Read returns a copy of b's contents, exactly b.Size() bytes, reflecting
// all work enqueued before it on any stream of the device. It waits for the
// GPU. Errors queued since the last sync point are returned first (and
// cleared), with no data. Refused on the spot while recording.
func (s *Stream) Read(b *Buffer) ([]byte, error) {
	return s.ReadContext(context.Background(), b)
}

// ReadContext is Read bounded by ctx (see SyncContext).
func (s *Stream) ReadContext(ctx context.Context, b *Buffer) ([]byte, error) {
	if err := s.check("Read"); err != nil {
		return nil, err
	}
	if err := b.usable("Read", "buffer", s); err != nil {
		return nil, err
	}
	if err := s.refuseWhileRecording("read"); err != nil {
		return nil, err
	}
	// Other streams first, without holding this stream's lock, so two
	// streams reading at once cannot deadlock on each other.
	s.dev.FlushOthers(s)

	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return nil, closedError("Read")
	}
	if s.state.IsRecording() {
		s.mu.Unlock()
		return nil, s.state.Refuse("read", "a read is refused while recording")
	}
	s.flushLocked()
	if err := s.takeErrors(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	st, err := s.staging(b.size)
	if err == nil {
		err = s.enc.Copy(b.pg.buf, 0, st, 0, b.size)
		if err == nil {
			s.flushLocked()
			err = s.takeErrors()
		} else {
			s.enc.Discard()
		}
		if err != nil {
			s.stage = append(s.stage, st)
		}
	}
	sub := s.lastSub
	s.nextSubmit = s.cfg.firstChunk
	s.mu.Unlock()
	if err != nil {
		return nil, &Error{Op: "Read", Arg: b.String(), Err: err}
	}
	out := make([]byte, b.size)
	err = s.dev.ReadMapped(ctx, st, 0, out, sub)
	s.mu.Lock()
	if s.closed.Load() {
		st.Release()
	} else {
		s.stage = append(s.stage, st)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, &Error{Op: "Read", Arg: b.String(), Err: err}
	}
	return out, nil
}

// staging takes a map-read buffer of at least size bytes from the stream's
// free ones, or makes one (power-of-two sizes, so they are reused).
func (s *Stream) staging(size uint64) (*wgpu.Buffer, error) {
	for i, st := range s.stage {
		if st.Size() >= size {
			s.stage = append(s.stage[:i], s.stage[i+1:]...)
			return st, nil
		}
	}
	return s.dev.NewBuffer(sizeClass(size), wgpu.UsageMapRead|wgpu.UsageCopyDst, "softgraph staging")
}

func (s *Stream) refuseWhileRecording(op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.IsRecording() {
		return s.state.Refuse(op, "a "+op+" is refused while recording")
	}
	return nil
}
