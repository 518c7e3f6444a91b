package recorder

import (
	"context"
	"errors"

	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// Closing a stream: Close waits for the stream's work and releases what
// it owns; the handles it gave out are tracked so it can.

// Close submits what is enqueued, waits for the stream's work to finish,
// releases its graphs, caches and encoder, and makes every later call return
// an error wrapping ErrClosed; Buffers of the stream answer ErrClosed too.
// Memory another stream's batch or graph still uses stays alive until they
// let go. The Device stays open (the caller owns it). Close is idempotent:
// a Close racing another returns once the first has finished. It returns
// the errors still queued, once: to the call that closed the stream, or,
// after a CloseContext that gave up waiting, to the next Close.
//
// It waits the same way on every backend: until the GPU has finished the
// stream's last submission. On OpenGL (Mesa's llvmpipe measured) the
// driver runs the work inside the submit, so Flush (or Close's own
// submit) takes the work's time and the wait after it finds it done; on
// Vulkan the submit returns at once and Close waits. On a device that is
// lost or closed nothing can finish, and Close does not wait. One
// exception is measured and not yet explained: on NVIDIA's OpenGL (the
// H200), Close behind a single dispatch of hours returned nil after 15.5 s
// with no device error, where Vulkan blocks
// (docs/benchmarks/memory/README.md; the test
// TestCloseBehindADispatchLongerThanTheGLDriverRunsOne reads what the
// dispatch wrote after it). Bound such waits with CloseContext.
func (s *Stream) Close() error {
	if s == nil {
		return nil
	}
	if !s.closeStarted.CompareAndSwap(false, true) {
		<-s.done
		return s.takeCloseErr()
	}
	_ = s.teardown()
	return s.takeCloseErr()
}

// takeCloseErr hands the teardown's errors to the first caller that asks
// after it has finished, and nil to every later one.
func (s *Stream) takeCloseErr() error {
	if s.closeErrSeen.CompareAndSwap(false, true) {
		return s.closeErr
	}
	return nil
}

// CloseContext is Close that stops waiting when ctx ends. The stream is
// closed to new work at once, whatever ctx does: every later call fails
// with ErrClosed. If ctx ends before the stream's GPU work has finished,
// CloseContext returns an error wrapping ctx.Err() and the teardown goes on
// in the background, releasing everything once that work is done; a later
// Close waits for it and returns its errors.
func (s *Stream) CloseContext(ctx context.Context) error {
	if s == nil {
		return nil
	}
	if ctx == nil {
		return &Error{Op: "Close", Arg: "context is nil", Err: ErrInvalidArgument}
	}
	if s.closeStarted.CompareAndSwap(false, true) {
		s.closing.Store(true)
		go func() { _ = s.teardown() }()
	}
	select {
	case <-s.done:
		return s.takeCloseErr()
	case <-ctx.Done():
		return &Error{Op: "Close", Arg: "stream", Err: ctx.Err()}
	}
}

// teardown is the one Close's work; it closes s.done when finished.
func (s *Stream) teardown() (err error) {
	s.closing.Store(true) // refuse new calls before waiting for the lock
	defer func() {
		s.closeErr = err
		close(s.done)
	}()
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	if rec, ok := s.life.Abort(); ok {
		// The window's refusals were never returned by an EndCapture:
		// Close returns them with what else is queued.
		s.errs = append(s.errs, rec.refusals...)
		rec.discard(s)
	}
	// The stream's work is submitted and then finished with the lock
	// given up for both waits (Tx.Drain, Tx.Wait), so another stream's
	// Read, which takes this stream's lock to flush it, is not held behind
	// the GPU. No new call is admitted meanwhile (closing is set), but one
	// admitted before may still enqueue or hand a batch off while the lock
	// is given up: the waits are repeated until a round finds nothing new,
	// so nothing released below is used by unfinished work. Each round is
	// a transaction of its own (one that waited is never admitted again
	// once closing), whose operation is only a label.
	for {
		tx := s.eng.Begin(lifecycle.Flush, engine.Admission{Verdict: lifecycle.Execute})
		_ = tx.Drain(context.Background()) // a closed or lost device ends the wait
		gen := s.eng.Gen()
		if sub, any := s.eng.Last(); any {
			// A closed or lost device ends the wait; nothing is left to wait for.
			_ = tx.Wait(context.Background(), engine.GPU(sub))
		}
		if s.eng.Gen() == gen && s.eng.Enc().Empty() && !s.eng.HasCounted() {
			break
		}
	}
	s.eng.Flush() // nothing is left to hand off: it waits for nothing
	for g := range s.graphs {
		g.releaseLocked()
	}
	if s.ramps != nil {
		s.ramps.Close()
		s.ramps = nil
	}
	s.groups.clear()
	if p, ok := s.life.DropProfile(); ok {
		p.release()
	}
	for _, b := range s.stage {
		b.Release()
	}
	s.stage = nil
	s.meta.Close()
	s.dropOwned()
	s.mem.Close()
	s.eng.Close() // the submitter, drained above, and the encoders
	s.shared.remove(s)
	s.log.Debug().Msg("stream closed")
	err = s.takeErrors()
	s.mu.Unlock()
	// The other streams' caches may bind what this stream just released.
	s.shared.sweepGroups(s, false)
	if errors.Is(err, wgpu.ErrClosed) {
		return nil
	}
	return err
}

// ownedResource is a caller's handle on stream memory: Close releases it.
type ownedResource interface{ Release() }

func (s *Stream) own(r ownedResource) {
	s.ownedMu.Lock()
	s.owned[r] = struct{}{}
	s.ownedMu.Unlock()
}

func (s *Stream) disown(r ownedResource) {
	s.ownedMu.Lock()
	delete(s.owned, r)
	s.ownedMu.Unlock()
}

// dropOwned releases every caller handle still open on the stream (Close).
func (s *Stream) dropOwned() {
	s.ownedMu.Lock()
	list := make([]ownedResource, 0, len(s.owned))
	for r := range s.owned {
		list = append(list, r)
	}
	s.ownedMu.Unlock()
	for _, r := range list {
		r.Release()
	}
}
