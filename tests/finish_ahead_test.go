package tests

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestFinishingAheadStaysExactWhileOtherCallsFailAndNativeBuffersGoOut:
// streams whose batches are finished ahead (several Finishes at once, in
// shared mode, errors caught per thread) run long eager chains while another
// goroutine, on the same device, compiles kernels that fail (errors caught
// by error scopes, which exclude the shared Finishes), allocates and
// releases buffers, and hands native buffers to the application, which ends
// shared mode in the middle of the chains. Then, with the streams idle, a
// failing cogentcore call on a native buffer reports its own error and
// leaves the streams clean. Every chain ends exact, every
// failing compile reports its own *CompileError, and nothing else fails.
// Without it, a scope error landing in a shared Finish (or the reverse), a
// Finish running unscoped after shared mode ended, or a batch submitted out
// of order would go unseen until a wrong result or an abort in wgpu-native.
func TestFinishingAheadStaysExactWhileOtherCallsFailAndNativeBuffersGoOut(t *testing.T) {
	t.Setenv("SOFTGRAPH_FINISH_AHEAD", "1") // on lavapipe too (read by recorder.New)
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	const (
		streams  = 3
		rounds   = 4
		chainLen = 200 // several full batches per round (first chunk 16, growing)
		elems    = 64
	)
	var errs collect
	var running, roundsDone atomic.Int32
	var wg sync.WaitGroup
	// Stream 0 waits after its second round until the first native buffer
	// is out, so shared mode surely ends while it still has chains to run.
	nativeOut := make(chan struct{})
	for si := range streams {
		s := gputest.Stream(t, d)
		a := gputest.Upload(t, s, gputest.Ramp(elems, float32(1000*si)))
		b := gputest.Empty(t, s, a.Size())
		running.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer running.Add(-1)
			for r := range rounds {
				if err := gputest.Chain(s, k, a, b, chainLen, elems); err != nil {
					errs.add(fmt.Errorf("stream %d round %d: %w", si, r, err))
					return
				}
				got, err := recorder.ReadSlice[float32](s, a)
				if err != nil {
					errs.add(fmt.Errorf("stream %d round %d: read: %w", si, r, err))
					return
				}
				want := gputest.Plus(gputest.Ramp(elems, float32(1000*si)), float32(chainLen*(r+1)))
				if fmt.Sprint(got) != fmt.Sprint(want) {
					errs.add(fmt.Errorf("stream %d round %d: got %v…, want %v…", si, r, got[:4], want[:4]))
				}
				roundsDone.Add(1)
				if si == 0 && r == 1 {
					select {
					case <-nativeOut:
					case <-time.After(time.Minute):
						errs.add(errors.New("stream 0: no native buffer went out within a minute"))
						return
					}
				}
			}
		}()
	}

	// The hostile neighbour: scoped calls that fail and allocations while
	// the chains run, then, once two rounds are done, native buffers handed
	// out (the first ends shared mode).
	side := gputest.Stream(t, d)
	compiles, natives, sharedCompiles := 0, 0, 0
	for i := 0; running.Load() > 0 || i < 4; i++ {
		// Each source differs, so no cache answers for wgpu-native.
		_, err := d.Kernel(fmt.Sprintf("@compute @workgroup_size(1) fn main() { let x: u32 = %d.5; }", i), "main")
		var ce *wgpu.CompileError
		if !errors.Is(err, wgpu.ErrCompile) || !errors.As(err, &ce) {
			t.Errorf("compile %d of a kernel that cannot compile: got %v, want a *CompileError wrapping ErrCompile", i, err)
		}
		compiles++
		if natives == 0 {
			sharedCompiles++
		}
		buf, err := recorder.UploadSlice(side, gputest.Fill(elems, float32(i)))
		if err != nil {
			t.Fatalf("upload %d on the neighbouring stream: %v", i, err)
		}
		if roundsDone.Load() >= 2 && (natives == 0 || i%3 == 1) {
			nb := buf.Native()
			if nb == nil {
				t.Fatalf("Native %d: nil for a live buffer", i)
			}
			if got := nb.GetSize(); got != buf.Size() {
				t.Errorf("Native %d: cogentcore reports %d bytes, the buffer holds %d", i, got, buf.Size())
			}
			natives++
			if natives == 1 {
				close(nativeOut)
			}
		}
		buf.Release()
	}
	wg.Wait()
	errs.report(t)
	t.Logf("the neighbour made %d failing compiles (%d before the first native buffer) and %d native buffers while the chains ran", compiles, sharedCompiles, natives)
	if natives == 0 || sharedCompiles == 0 {
		t.Fatalf("the neighbour made %d failing compiles before the first native buffer and %d native buffers; the test needs both", sharedCompiles, natives)
	}

	// After shared mode has ended: an application's failing call (the
	// buffer is not mapped), made while no softgraph call runs (Native's
	// rule), is the application's to report; the streams still finish
	// ahead, scoped, and exactly.
	s := gputest.Stream(t, d)
	a := gputest.Upload(t, s, gputest.Fill(elems, 0))
	b := gputest.Empty(t, s, a.Size())
	if err := s.Sync(); err != nil { // nothing of softgraph's left in flight
		t.Fatal(err)
	}
	if err := a.Native().Unmap(); err == nil {
		t.Error("Unmap of a native buffer that is not mapped returned no error")
	}
	if err := gputest.Chain(s, k, a, b, chainLen, elems); err != nil {
		t.Fatal(err)
	}
	gputest.WantFloats(t, "a chain after shared mode ended", gputest.Fill(elems, chainLen), gputest.Read(t, s, a))
}
