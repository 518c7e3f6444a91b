package wgpu

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
)

// openShared opens a device whose Finish and Prepare run in shared mode,
// or skips (OpenGL has none).
func openShared(t *testing.T) *Device {
	t.Helper()
	d, err := Open(Options{})
	if err != nil {
		t.Skipf("no adapter: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	if !d.sharedScopes.Load() {
		t.Skipf("%s: no shared mode on this backend", d.Info())
	}
	if !d.view.Info().ConcurrentFinish {
		t.Fatal("a device in shared mode does not tell the recorder its Finishes run at once")
	}
	return d
}

// TestSharedModeCatchesAnErrorWithTheCallThatRaisedIt: a call in shared
// mode pushes no error scope, and the error wgpu-native raises (a Finish
// while a pass is open) still comes back from that call, not from the
// device's uncaptured errors.
func TestSharedModeCatchesAnErrorWithTheCallThatRaisedIt(t *testing.T) {
	d := openShared(t)
	err := d.sharedProbe()
	var de *DeviceError
	if !errors.As(err, &de) || de.Type != ErrorValidation {
		t.Fatalf("a Finish refused in shared mode returned %v; want a *DeviceError of type validation", err)
	}
	if errs := d.takeErrors(); len(errs) != 0 {
		t.Errorf("the device's uncaptured errors hold %v; the error belongs to the call alone", errs)
	}
}

// TestSharedModeErrorsStayWithTheirCallsAmongScopedOnes: shared-mode calls
// refused on several goroutines at once, beside scoped calls that fail
// (a kernel that does not compile) and scoped calls that succeed (buffers
// made and released), each report exactly their own outcome.
func TestSharedModeErrorsStayWithTheirCallsAmongScopedOnes(t *testing.T) {
	d := openShared(t)
	const workers, rounds = 6, 40
	type tally struct{ probesCaught, compilesRefused, buffersMade int }
	got := make([]tally, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				switch w % 3 {
				case 0, 1:
					var de *DeviceError
					if err := d.sharedProbe(); errors.As(err, &de) && de.Type == ErrorValidation {
						got[w].probesCaught++
					}
				}
				if w%2 == 0 {
					if _, err := d.view.Compile("fn main( {", "main", nil); err != nil {
						got[w].compilesRefused++
					}
				} else if b, err := d.view.NewBuffer(256, driver.UsageStorage|driver.UsageCopyDst, "shared-test"); err == nil {
					got[w].buffersMade++
					b.Release()
				}
			}
		}()
	}
	wg.Wait()
	want := make([]tally, workers)
	for w := range want {
		if w%3 != 2 {
			want[w].probesCaught = rounds
		}
		if w%2 == 0 {
			want[w].compilesRefused = rounds
		} else {
			want[w].buffersMade = rounds
		}
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(tally{})); diff != "" {
		t.Errorf("outcomes per goroutine (-want +got):\n%s", diff)
	}
	if errs := d.takeErrors(); len(errs) != 0 {
		t.Errorf("the device's uncaptured errors hold %d errors (first: %v); every error belongs to its call", len(errs), errs[0])
	}
}

// TestHandingOutANativeBufferEndsSharedMode: once the application holds a
// native object of the device (recorder's Buffer.Native), its own calls may
// push error scopes without softgraph's lock, so shared mode ends for good:
// a later Finish is scoped again, and still works.
func TestHandingOutANativeBufferEndsSharedMode(t *testing.T) {
	d := openShared(t)
	b, err := d.view.NewBuffer(256, driver.UsageStorage|driver.UsageCopyDst, "native")
	if err != nil {
		t.Fatalf("NewBuffer: %v", err)
	}
	defer b.Release()
	if nb, err := d.nativeBuffer(b); err != nil || nb == nil {
		t.Fatalf("nativeBuffer returned %v, %v; want the native buffer", nb, err)
	}
	if d.sharedScopes.Load() {
		t.Fatal("the device is still in shared mode after handing out a native buffer")
	}
	if err := d.sharedProbe(); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("a shared call after shared mode ended returned %v; want a refusal wrapping ErrInvalidArgument", err)
	}
	enc, err := d.view.NewEncoder()
	if err != nil {
		t.Fatalf("NewEncoder: %v", err)
	}
	defer enc.Release()
	enc.Prepare()
	if _, err := enc.Finish(); err != nil {
		t.Errorf("a scoped Finish after shared mode ended: %v", err)
	}
}
