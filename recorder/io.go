package recorder

import (
	"context"
	"errors"
	"fmt"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// Write copies data into b at offset (both multiples of 4, in range). It is
// asynchronous and ordered: work enqueued on this stream before it sees the
// old contents, work after it the new ones (WebGPU's queue writes overtake
// unsubmitted work, so the stream submits first when its open batch uses b,
// however many streams used b since). Across streams a Write is ordered
// after their submitted work only: Flush or Sync the other stream first to
// order it after that stream's enqueued work.
//
// Host-side errors (nil, released or foreign buffer, misaligned or
// out-of-range offset or length) are returned on the spot. While recording,
// Write is rejected lazily: it returns nil, applies nothing, and queues an
// error (wrapping lifecycle.ErrGraphState) that makes EndCapture fail, since
// a graph missing an operation is worse than a late diagnostic.
func (s *Stream) Write(b *Buffer, offset uint64, data []byte) error {
	return s.write(lifecycle.Write, b, offset, data)
}

// write is Write admitted as op: lifecycle.Write, or lifecycle.SetVar
// (refused on the spot while recording instead of deferred).
func (s *Stream) write(op lifecycle.Op, b *Buffer, offset uint64, data []byte) error {
	if err := s.check(op); err != nil {
		return err
	}
	// Refusals before admission are decided in a hold of their own
	// (refused); admission's, in its hold.
	n := uint64(len(data))
	if b != nil && (offset%4 != 0 || n%4 != 0) {
		return s.refused(op, argError(op, ErrInvalidArgument, "offset=%d len=%d (both must be multiples of 4)", offset, n))
	}
	if b != nil && (offset > b.size || n > b.size-offset) {
		return s.refused(op, argError(op, ErrInvalidArgument, "offset=%d len=%d past the end of a %d-byte buffer", offset, n, b.size))
	}
	pg, err := b.acquire(op, "buffer", s)
	if err != nil {
		return s.refused(op, err)
	}
	defer pg.Unref()
	if n == 0 {
		return nil // nothing to order, apply or record
	}
	// One transaction (a deferred refusal inside the capture window
	// returns nil without running it).
	return s.eng.Do(op, func(tx *engine.Tx) error {
		if s.uses(pg) {
			// The work that uses pg goes first. Behind long dispatches its
			// submission can wait for the GPU (the submitter keeps at most
			// gpuDepth submissions unfinished), so the wait releases the
			// stream's lock (Tx.Flush): a SyncContext beside it keeps its
			// deadline. Calls made meanwhile come after this Write.
			if err := tx.Flush(context.Background()); err != nil {
				if errors.Is(err, errDeferred) {
					return nil // a capture opened while it waited: refused, queued for EndCapture
				}
				return &Error{Op: op.String(), Arg: b.String(), Err: s.txError(err)}
			}
		}
		if err := tx.WriteBuffer(pg.Buffer(), offset, data); err != nil {
			return &Error{Op: op.String(), Arg: b.String(), Err: err}
		}
		return nil
	})
}

// Copy copies size bytes from src at srcOffset to dst at dstOffset (all
// multiples of 4, in range; src and dst distinct buffers) on the GPU, in
// stream order. While recording it is appended to the graph and runs at
// every replay. It is a native copy command, not a kernel — except inside
// an If or While body, where it runs as a kernel binding both whole
// buffers, so there each must fit maxStorageBufferBindingSize (refused on
// the spot otherwise).
func (s *Stream) Copy(dst *Buffer, dstOffset uint64, src *Buffer, srcOffset, size uint64) error {
	const op = lifecycle.Copy
	if err := s.check(op); err != nil {
		return err
	}
	var c transfer
	if err := s.resolveCopy(op, dst, dstOffset, src, srcOffset, size, &c); err != nil {
		c.release()
		return s.refused(op, err)
	}
	return s.enqueueTransfer(op, &c)
}

// Clear zeroes size bytes of b from offset (multiples of 4, in range) on
// the GPU, in stream order; recorded while recording. A native clear
// command, not a kernel.
func (s *Stream) Clear(b *Buffer, offset, size uint64) error {
	const op = lifecycle.Clear
	if err := s.check(op); err != nil {
		return err
	}
	c := transfer{clear: true, dstOff: offset, size: size}
	if b != nil && (offset%4 != 0 || size%4 != 0 || offset > b.size || size > b.size-offset) {
		return s.refused(op, argError(op, ErrInvalidArgument, "offset=%d size=%d of a %d-byte buffer (multiples of 4, in range)", offset, size, b.size))
	}
	pg, err := b.acquire(op, "buffer", s)
	if err != nil {
		return s.refused(op, err)
	}
	c.dst, c.dstBuf = pg, b
	return s.enqueueTransfer(op, &c)
}

// transfer is a resolved copy or clear, holding references on its pages.
type transfer struct {
	clear          bool
	src, dst       *pool.Page
	srcBuf, dstBuf *Buffer
	srcOff, dstOff uint64
	size           uint64
}

func (c *transfer) release() {
	if c.src != nil {
		c.src.Unref()
	}
	if c.dst != nil {
		c.dst.Unref()
	}
}

func (s *Stream) resolveCopy(op lifecycle.Op, dst *Buffer, dstOffset uint64, src *Buffer, srcOffset, size uint64, c *transfer) error {
	c.srcOff, c.dstOff, c.size = srcOffset, dstOffset, size
	if src != nil && dst != nil {
		if srcOffset%4 != 0 || dstOffset%4 != 0 || size%4 != 0 {
			return argError(op, ErrInvalidArgument, "srcOffset=%d dstOffset=%d size=%d (multiples of 4)", srcOffset, dstOffset, size)
		}
		if srcOffset > src.size || size > src.size-srcOffset || dstOffset > dst.size || size > dst.size-dstOffset {
			return argError(op, ErrInvalidArgument, "size=%d past the end (src %d bytes at %d, dst %d bytes at %d)", size, src.size, srcOffset, dst.size, dstOffset)
		}
	}
	var err error
	if c.src, err = src.acquire(op, "source", s); err != nil {
		return err
	}
	c.srcBuf = src
	if c.dst, err = dst.acquire(op, "destination", s); err != nil {
		return err
	}
	c.dstBuf = dst
	if c.src == c.dst {
		return argError(op, ErrInvalidArgument, "source and destination are the same buffer (WebGPU refuses such a copy; copy through a second buffer)")
	}
	return nil
}

// enqueueTransfer runs or records a resolved copy or clear. A refusal
// after admission fails the capture in the admitting hold.
func (s *Stream) enqueueTransfer(op lifecycle.Op, c *transfer) error {
	if err := s.check(op); err != nil {
		c.release()
		return err
	}
	ran := false
	err := s.eng.Do(op, func(tx *engine.Tx) (err error) {
		ran = true
		defer s.failsOnReturn(op, &err)
		return s.transferTx(tx, op, c)
	})
	if !ran {
		c.release() // refused: nothing took it over
	}
	return err
}

// transferTx is a copy or clear in its transaction.
func (s *Stream) transferTx(tx *engine.Tx, op lifecycle.Op, c *transfer) (err error) {
	v := tx.Verdict()
	if c.size == 0 {
		c.release()
		return nil
	}
	if v == lifecycle.Record {
		if err := s.bodyBinds(op, c.srcBuf, "source", false); err != nil {
			c.release()
			return err
		}
		if err := s.bodyBinds(op, c.dstBuf, "destination", false); err != nil {
			c.release()
			return err
		}
		s.capturing().addTransfer(c)
		return nil
	}
	if c.clear {
		err = s.eng.Enc().ClearBuffer(c.dst.Buffer(), c.dstOff, c.size)
	} else {
		err = s.eng.Enc().CopyBuffer(c.src.Buffer(), c.srcOff, c.dst.Buffer(), c.dstOff, c.size)
	}
	if err != nil {
		c.release()
		return &Error{Op: op.String(), Err: err}
	}
	if c.src != nil {
		s.hold(c.src)
	}
	s.hold(c.dst)
	s.enqueuedBy(tx)
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
	const op = lifecycle.Read
	if err := s.check(op); err != nil {
		return nil, err
	}
	if ctx == nil {
		// ctx.Err() on nil panics under the stream's lock.
		return nil, s.refused(op, argError(op, ErrInvalidArgument, "context is nil"))
	}
	pg, err := b.acquire(op, "buffer", s)
	if err != nil {
		return nil, s.refused(op, err)
	}
	defer pg.Unref()
	out := make([]byte, b.size)
	err = s.readBack(ctx, op, false, b.String(), func(enc driver.Encoder, st driver.Buffer) error {
		return enc.CopyBuffer(pg.Buffer(), 0, st, 0, b.size)
	}, b.size, func(raw []byte) { copy(out, raw) })
	if err != nil {
		return nil, err
	}
	if err := s.takeViolation(ctx, op); err != nil { // WithChecks (checks.go)
		return nil, err
	}
	return out, nil
}

// ReadTexture returns the texture's contents as tightly packed rows (layer
// after layer for a 3D texture), reflecting all work enqueued before it on
// any stream of the device. Like Read, it waits for the GPU and returns
// the errors queued since the last sync point first; refused while
// recording. On the OpenGL backend an r8snorm or rgba8snorm texture is
// refused (ErrInvalidArgument): wgpu's GL read-back clamps negative texels
// to 0; read it through textureLoad in a kernel.
func (s *Stream) ReadTexture(t *Texture) ([]byte, error) {
	const op = lifecycle.Read
	if err := s.check(op); err != nil {
		return nil, err
	}
	if err := t.acquire(op, "texture", s); err != nil {
		return nil, s.refused(op, err)
	}
	defer t.h.unref()
	texel := uint64(t.h.t.TexelSize())
	row := uint64(t.desc.Width) * texel
	pitch := (row + 255) &^ 255 // copies need 256-byte row pitch
	rows := uint64(t.desc.Height) * uint64(max(t.desc.Depth, 1))
	out := make([]byte, row*rows)
	err := s.readBack(context.Background(), op, false, t.String(), func(enc driver.Encoder, st driver.Buffer) error {
		return enc.CopyTextureToBuffer(t.h.t, st, 0, uint32(pitch))
	}, pitch*rows, func(raw []byte) {
		for r := uint64(0); r < rows; r++ {
			copy(out[r*row:(r+1)*row], raw[r*pitch:])
		}
	})
	if err != nil {
		return nil, err
	}
	if err := s.takeViolation(context.Background(), op); err != nil { // WithChecks (checks.go)
		return nil, err
	}
	return out, nil
}

// readBack is the common path of Read and ReadTexture: submit every
// stream's enqueued work, return queued errors, copy into a staging buffer
// with encodeCopy (into the transaction's encoder), submit, map and hand
// the bytes to take (after the stream's lock is let go). admitted says the
// call that reads was admitted before, in a hold it has given up since (a
// ProfileReplay reading which bodies ran, a Save): then its first ask is a
// re-ask (redo), as the one after every wait of the transaction is.
func (s *Stream) readBack(ctx context.Context, op lifecycle.Op, admitted bool, what string, encodeCopy func(driver.Encoder, driver.Buffer) error, size uint64, take func([]byte)) error {
	var raw []byte
	ran := false
	body := func(tx *engine.Tx) error {
		ran = true
		var err error
		raw, err = s.readBackTx(ctx, tx, what, encodeCopy, size)
		return err
	}
	var err error
	if admitted {
		err = s.redo(ctx, op, body)
	} else {
		err = s.eng.DoContext(ctx, op, body)
		if !ran && err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			err = &Error{Op: op.String(), Err: err} // gave up waiting for the lock
		}
	}
	if err != nil || !ran {
		return err
	}
	take(raw)
	return nil
}

// readBackTx is readBack's transaction: every wait in it is the
// transaction's (Tx.Wait, Tx.Flush), and each one that is followed by
// more work for the GPU is followed by Readmit, so a capture window opened
// while it waited refuses the read before anything of it reaches the GPU.
func (s *Stream) readBackTx(ctx context.Context, tx *engine.Tx, what string, encodeCopy func(driver.Encoder, driver.Buffer) error, size uint64) ([]byte, error) {
	op := tx.Op()
	fail := func(err error) ([]byte, error) { return nil, s.wrapUnlessRefused(op, what, err) }
	// Other streams first, with this stream's lock given up, so two
	// streams reading at once cannot deadlock on each other; the caller's
	// deadline bounds the wait for their submissions.
	if err := tx.Wait(ctx, engine.Call("others", func(ctx context.Context) error {
		return s.shared.flushOthers(ctx, s)
	})); err != nil {
		return fail(err)
	}
	if err := s.readmitTx(tx); err != nil {
		return nil, err
	}
	if err := tx.Flush(ctx); err != nil {
		return fail(err)
	}
	if err := s.takeErrors(); err != nil {
		return nil, err
	}
	enc, err := tx.Encoder()
	if err != nil {
		return fail(err)
	}
	if !enc.Empty() || s.eng.HasCounted() {
		// Other goroutines enqueued work while the flush waited with the
		// lock released: it goes on its way first, so that a copy the
		// device refuses (and Discard drops) takes nothing else with it.
		if err := tx.HandOff(); err != nil {
			return fail(err)
		}
		if enc, err = tx.Encoder(); err != nil {
			return fail(err)
		}
	}
	st, err := s.staging(size)
	if err == nil {
		if err = encodeCopy(enc, st); err == nil {
			if err = tx.Flush(ctx); err == nil {
				err = s.takeErrors()
			} else {
				// The copy into it is in flight: the buffer cannot be
				// reused; releasing it is safe (the work keeps it alive).
				st.Release()
				st = nil
			}
		} else {
			enc.Discard()
		}
		if err != nil && st != nil {
			s.stage = append(s.stage, st)
		}
	}
	if tx.Lost() {
		// The flush's wait ran into ctx's end before it took the lock back:
		// nothing the lock guards may be touched.
		return fail(err)
	}
	s.eng.ResetChunk()
	if err == nil {
		s.planRamps() // encoded while the GPU finishes
	}
	if err != nil {
		return fail(err)
	}
	// The mapping waits for the GPU, with the lock given up. Nothing
	// after it reaches the GPU, so the read is not admitted again.
	raw := make([]byte, size)
	err = tx.Wait(ctx, engine.Call("read", func(ctx context.Context) error {
		return s.drv.ReadBuffer(ctx, st, 0, raw)
	}))
	if s.closing.Load() || err != nil {
		// A read cut short by ctx may still be mapping the staging buffer:
		// it is released, not reused.
		st.Release()
	} else {
		s.stage = append(s.stage, st)
	}
	if err != nil {
		return fail(err)
	}
	return raw, nil
}

// staging takes a map-read buffer of at least size bytes from the stream's
// free ones, or makes one (a size class, so they are reused, but never more
// than the device allows).
func (s *Stream) staging(size uint64) (driver.Buffer, error) {
	for i, st := range s.stage {
		if st.Size() >= size {
			s.stage = append(s.stage[:i], s.stage[i+1:]...)
			return st, nil
		}
	}
	class := pool.SizeClass(size)
	if class > s.limits.MaxBufferSize {
		class = size
	}
	st, err := s.drv.NewBuffer(class, driver.UsageMapRead|driver.UsageCopyDst, "softgraph staging")
	if err != nil {
		return nil, fmt.Errorf("staging buffer of %d bytes: %w", class, err)
	}
	return st, nil
}
