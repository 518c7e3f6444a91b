package wgpu_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// openN opens n devices with OpenN for the test, skipping (or failing under
// SOFTGRAPH_REQUIRE_GPU=1) where the machine has no adapter, and closes them
// when the test ends.
func openN(t *testing.T, o wgpu.Options, n int) []*wgpu.Device {
	t.Helper()
	devs, err := wgpu.OpenN(o, n)
	gputest.SkipIfNoAdapter(t, err)
	if err != nil {
		t.Fatalf("wgpu.OpenN(%+v, %d): %v", o, n, err)
	}
	t.Cleanup(func() {
		for _, d := range devs {
			d.Close()
		}
	})
	if len(devs) != n {
		t.Fatalf("OpenN(%d) opened %d devices", n, len(devs))
	}
	return devs
}

// TestDevicesOnOneAdapterComputeSideBySide: two Devices that OpenN opened
// on one adapter (lavapipe here, standing in for two GPUs) each compile
// and run kernels from their own goroutine at the same time, and closing
// one leaves the other computing.
func TestDevicesOnOneAdapterComputeSideBySide(t *testing.T) {
	computeSideBySide(t, wgpu.Options{})
}

// TestGLDevicesOnOneAdapterComputeSideBySide is the same on OpenGL, where
// every device of the process shares one GL context: it proves their use
// of it is serialised process-wide. With a lock per device, the second
// device made the context current while the first held it and the process
// aborted, so the test runs in a fresh process.
func TestGLDevicesOnOneAdapterComputeSideBySide(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		computeSideBySide(t, wgpu.Options{Backend: wgpu.BackendGL, IgnoreEnv: true})
	})
}

func computeSideBySide(t *testing.T, o wgpu.Options) {
	devs := openN(t, o, 2)
	if devs[0] == devs[1] || devs[0].Info().Backend != devs[1].Info().Backend {
		t.Fatalf("OpenN(2) must give two Devices on one backend: %s, %s", devs[0].Info(), devs[1].Info())
	}
	t.Run("side by side", func(t *testing.T) {
		for i, d := range devs {
			t.Run(fmt.Sprintf("device%d", i), func(t *testing.T) {
				t.Parallel()
				in := gputest.Ramp(256, float32(100*i))
				for range 10 {
					if d := cmp.Diff(gputest.Plus(in, 1), runAddOne(t, d, in)); d != "" {
						t.Fatalf("dst = src + 1 on each device at once (-want +got):\n%s", d)
					}
				}
			})
		}
	})
	devs[0].Close()
	if err := devs[0].Err(); !errors.Is(err, wgpu.ErrClosed) {
		t.Fatalf("the closed device must say ErrClosed, got %v", err)
	}
	if err := devs[1].Err(); err != nil {
		t.Fatalf("closing one device must leave the other usable: %v", err)
	}
	if d := cmp.Diff([]float32{2, 3}, runAddOne(t, devs[1], []float32{1, 2})); d != "" {
		t.Fatalf("the other device still computes after one closed (-want +got):\n%s", d)
	}
}

// TestOpenAllOpensTheBestAdapterFirst: OpenAll's first Device is on the
// adapter Open picks, every Device is on its backend and of its class
// (hardware, or software where the machine has no GPU), and none is shared
// with another call's.
func TestOpenAllOpensTheBestAdapterFirst(t *testing.T) {
	one := gputest.Open(t, wgpu.Options{})
	devs, err := wgpu.OpenAll(wgpu.Options{})
	if err != nil {
		t.Fatalf("OpenAll where Open works: %v", err)
	}
	t.Cleanup(func() {
		for _, d := range devs {
			d.Close()
		}
	})
	if len(devs) == 0 {
		t.Fatal("OpenAll opened no device where Open opens one")
	}
	best := one.Info()
	for i, d := range devs {
		t.Logf("device %d: %s", i, d.Info())
		info := d.Info()
		if info.Backend != best.Backend || (info.Type == wgpu.AdapterCPU) != (best.Type == wgpu.AdapterCPU) {
			t.Errorf("device %d is %s; every device must share the best adapter's backend and class (%s)", i, info, best)
		}
		if d == one {
			t.Errorf("device %d is the one Open returned", i)
		}
	}
	if devs[0].Info().Name != best.Name {
		t.Errorf("OpenAll's first device is on %q, Open's on %q: both rank the same way", devs[0].Info().Name, best.Name)
	}
}

// TestOpenNRefusesFewerThanOne: OpenN(o, 0) is a bad argument, refused
// before any adapter is touched.
func TestOpenNRefusesFewerThanOne(t *testing.T) {
	devs, err := wgpu.OpenN(wgpu.Options{}, 0)
	if !errors.Is(err, wgpu.ErrInvalidArgument) || devs != nil {
		t.Fatalf("OpenN(0) must fail with ErrInvalidArgument and no devices, got %v, %v", devs, err)
	}
}

// TestOpenAllFailsLikeOpenWhenNothingMatches: an adapter filter nothing
// matches fails with an *AdapterError listing what was found, and opens
// nothing.
func TestOpenAllFailsLikeOpenWhenNothingMatches(t *testing.T) {
	gputest.Open(t, wgpu.Options{})
	devs, err := wgpu.OpenAll(wgpu.Options{Adapter: "no-such-adapter-anywhere", IgnoreEnv: true})
	var ae *wgpu.AdapterError
	if !errors.As(err, &ae) || !errors.Is(err, wgpu.ErrNoAdapter) || devs != nil || len(ae.Found) == 0 {
		t.Fatalf("OpenAll with an unmatched filter must fail with an *AdapterError wrapping ErrNoAdapter listing the adapters, got %v, %v", devs, err)
	}
}
