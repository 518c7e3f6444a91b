package recorder

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// TestCloseRacingCallsEndsEveryCallCleanly: calls on a stream racing its
// Close each either complete or fail with ErrClosed (never another error,
// a panic or a hang), every call after Close fails with ErrClosed, and the
// stream leaves no command buffer or encoder alive on the device. Without
// it, a call that took the stream's state before Close tore it down would
// use a released encoder or leak a command buffer. The fake's Delay makes
// submissions slow, so Close meets work in flight.
func TestCloseRacingCallsEndsEveryCallCleanly(t *testing.T) {
	for round := range 20 {
		r := newFakeRig(t)
		r.dev.Delay(50 * time.Microsecond)
		s, err := newOnDriver(nil, r.dev)
		if err != nil {
			t.Fatalf("a stream on the fake device: %v", err)
		}
		x := upload(t, s, 0)
		var wg sync.WaitGroup
		errs := make(chan error, 1024)
		calls := []func() error{
			func() error { return r.add(s, x, 1) },
			func() error { return s.Write(x, 0, u32s(7)) },
			func() error { _, err := s.Read(x); return err },
			func() error { return s.Flush() },
			func() error { _, err := s.Upload(u32s(1, 2)); return err },
		}
		for _, call := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 30 {
					errs <- call()
				}
			}()
		}
		time.Sleep(time.Duration(round) * 100 * time.Microsecond)
		if err := s.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("round %d: Close returned %v", round, err)
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: calls racing Close did not return within 10 s", round)
		}
		close(errs)
		for err := range errs {
			if err != nil && !errors.Is(err, ErrClosed) {
				t.Errorf("round %d: a call racing Close failed with %v; want nil or ErrClosed", round, err)
			}
		}
		for i, call := range calls {
			if err := call(); !errors.Is(err, ErrClosed) {
				t.Errorf("round %d: call %d after Close returned %v, want ErrClosed", round, i, err)
			}
		}
		if l := r.dev.Live(); l.CommandBuffers != 0 || l.Encoders != 0 {
			t.Errorf("round %d: after Close the device holds %d command buffers and %d encoders, want none", round, l.CommandBuffers, l.Encoders)
		}
	}
}
