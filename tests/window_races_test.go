package tests

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// TestCallsRacingCapturesOnTheirStreamEndAsTheTableSays: goroutines call
// Write, Read, Sync and SetVar on a stream while another goroutine captures
// on it over and over, so calls are admitted before a window and wait
// across it, or meet it. Every call ends as lifecycle's table says for the
// state it was decided in: nil, or (Read, Sync, SetVar) a refusal naming
// itself; a Write returns nil either way (refused inside a window, it is
// deferred). Every capture seals its own two launches or fails with a
// *CaptureError whose every cause is a refusal of one of those calls, and
// no call returns another call's refusal (before, a Sync that waited across
// a window returned a Write refused in it, and that capture sealed). The
// captured buffer holds each capture's warmup and one replay of each that
// sealed.
func TestCallsRacingCapturesOnTheirStreamEndAsTheTableSays(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	const (
		elems      = 64
		wantSealed = 100
		maxTries   = 2000
	)
	ca := gputest.Upload(t, s, gputest.Fill(elems, 0))
	cb := gputest.Empty(t, s, ca.Size())
	w := gputest.Upload(t, s, gputest.Fill(elems, 0))
	v, err := s.NewVar(gputest.U32(0))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()

	var errs collect
	var sealed, failed atomic.Int32
	var calls [4]atomic.Int32 // Write, Read, Sync, SetVar that returned
	var refusedCalls atomic.Int32
	stop := make(chan struct{})
	// ownRefusal checks a call's error: nil, or a refusal of the call itself.
	ownRefusal := func(op string, i int, err error) {
		if err == nil {
			return
		}
		var se *lifecycle.StateError
		if !errors.As(err, &se) || se.Op != op {
			errs.add(fmt.Errorf("%s %d: %v; want nil or a refusal of %s itself", op, i, err, op))
			return
		}
		refusedCalls.Add(1)
	}
	var wg sync.WaitGroup
	callers := []func(i int){
		func(i int) {
			words := make([]uint32, elems)
			for j := range words {
				words[j] = uint32(i)
			}
			ownRefusal("Write", i, s.Write(w, 0, u32Bytes(words...)))
			calls[0].Add(1)
		},
		func(i int) {
			_, err := s.Read(w)
			ownRefusal("Read", i, err)
			calls[1].Add(1)
		},
		func(i int) {
			ownRefusal("Sync", i, s.Sync())
			calls[2].Add(1)
		},
		func(i int) {
			ownRefusal("SetVar", i, s.SetVar(v, gputest.U32(uint32(i))))
			calls[3].Add(1)
		},
	}
	for _, call := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				call(i)
			}
		}()
	}
	refusable := map[string]bool{"Write": true, "Read": true, "Sync": true, "SetVar": true}
	deadline := time.Now().Add(20 * time.Second)
	for try := 0; try < maxTries && sealed.Load() < wantSealed && time.Now().Before(deadline); try++ {
		g, err := s.Capture(func() error { return gputest.Chain(s, k, ca, cb, 2, elems) })
		if err != nil {
			var ce *recorder.CaptureError
			if !errors.As(err, &ce) {
				errs.add(fmt.Errorf("capture %d: %v; want a sealed graph or a *CaptureError", try, err))
				break
			}
			for _, c := range leaves(ce.Causes) {
				var se *lifecycle.StateError
				if !errors.As(c, &se) || !refusable[se.Op] {
					errs.add(fmt.Errorf("capture %d failed for %v; want only refusals of the racing calls", try, c))
				}
			}
			failed.Add(1)
			continue
		}
		if n := g.Len(); n != 2 {
			errs.add(fmt.Errorf("capture %d sealed %d dispatches; want its own 2", try, n))
		}
		if err := g.Replay(); err != nil {
			errs.add(fmt.Errorf("replay of capture %d: %w", try, err))
		}
		g.Release()
		sealed.Add(1)
	}
	close(stop)
	wg.Wait()
	errs.report(t)
	t.Logf("%d captures sealed, %d failed; calls Write %d, Read %d, Sync %d, SetVar %d; %d refused",
		sealed.Load(), failed.Load(), calls[0].Load(), calls[1].Load(), calls[2].Load(), calls[3].Load(), refusedCalls.Load())
	if sealed.Load() == 0 {
		t.Fatalf("no capture sealed beside the racing calls in %d tries", sealed.Load()+failed.Load())
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("Sync after the race: %v", err)
	}
	want := float32(2 * (sealed.Load() + failed.Load() + sealed.Load()))
	gputest.WantFloats(t, "the captured buffer (each capture's warmup, one replay of each that sealed)", gputest.Fill(elems, want), gputest.Read(t, s, ca))
}

// leaves flattens errors joined with errors.Join into their members.
func leaves(errs []error) []error {
	var out []error
	for _, e := range errs {
		if j, ok := e.(interface{ Unwrap() []error }); ok && !isCaptureError(e) {
			out = append(out, leaves(j.Unwrap())...)
			continue
		}
		out = append(out, e)
	}
	return out
}

func isCaptureError(err error) bool {
	_, ok := err.(*recorder.CaptureError)
	return ok
}
