package wgpu_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestCloseReleasesPrivateKernelsSoTheNextDeviceWorks: closing a Device
// releases the kernels made with Private (a caller's, and those LoadGraph
// compiles for a graph on a stream never closed), and the next device of
// the process then computes exactly. Close released only the kernel cache:
// a private kernel outlived its device, and wgpu-native v22 aborted the
// process at the next device's first submission ("a resource with a
// different device"), on lavapipe and llvmpipe's GL alike. On each backend
// that has an adapter, in a fresh process: an abort is this test's
// failure.
func TestCloseReleasesPrivateKernelsSoTheNextDeviceWorks(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		gputest.OnEveryBackend(t, closeWithPrivateKernelsThenCompute)
	})
}

func closeWithPrivateKernelsThenCompute(t *testing.T, b wgpu.Backend) {
	o := wgpu.Options{Backend: b, IgnoreEnv: true}
	// A graph file, from a device closed the ordinary way.
	var file bytes.Buffer
	{
		d := gputest.Open(t, o)
		s := gputest.Stream(t, d)
		k := gputest.Kernel(t, d, gputest.AddOneWGSL)
		a, out := gputest.Upload(t, s, gputest.Fill(64, 0)), gputest.Empty(t, s, 256)
		g := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, out, 4, 64) })
		if _, err := g.WriteTo(&file); err != nil {
			t.Fatal(err)
		}
		s.Close()
		d.Close()
	}
	for round := range 2 {
		d, err := wgpu.Open(o)
		if err != nil {
			t.Fatal(err)
		}
		k, err := d.Kernel(gputest.AddOneWGSL, "main", wgpu.Private())
		if err != nil {
			t.Fatal(err)
		}
		s, err := recorder.New(d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.LoadGraph(bytes.NewReader(file.Bytes())); err != nil {
			t.Fatal(err)
		}
		// Neither the kernel, the loaded graph nor the stream is released.
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if !k.Released() {
			t.Errorf("round %d: Close must release the device's private kernels; this one is still live", round)
		}
	}
	nextDeviceComputes(t, o)
}

// TestKernelReleaseRacingCloseLeavesNothingForTheNextDevice: a goroutine
// compiling and releasing kernels while the device closes leaves no native
// object of that device behind, and the next device computes exactly.
// Release took the kernel out of the device's kernel maps (how Close finds
// the kernels to free) before it entered the device's gate: one that then
// found Close begun did nothing, and Close no longer saw the kernel, whose
// pipeline outlived the device; wgpu-native v22 aborted the next device's
// first submission ("a resource with a different device"), on lavapipe and
// llvmpipe's GL, in the first or second round. In a fresh process: an
// abort is this test's failure.
func TestKernelReleaseRacingCloseLeavesNothingForTheNextDevice(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		gputest.OnEveryBackend(t, releaseKernelsRacingCloseThenCompute)
	})
}

func releaseKernelsRacingCloseThenCompute(t *testing.T, b wgpu.Backend) {
	o := wgpu.Options{Backend: b, IgnoreEnv: true}
	for round := range 4 {
		d := gputest.Open(t, o)
		done := make(chan error, 1)
		go func() {
			for i := 0; ; i++ {
				k, err := d.Kernel(fmt.Sprintf("%s\n// round %d kernel %d", gputest.AddOneWGSL, round, i), "main")
				if err != nil {
					if errors.Is(err, wgpu.ErrClosed) {
						err = nil
					}
					done <- err
					return
				}
				k.Release()
			}
		}()
		time.Sleep(time.Duration(5+5*round) * time.Millisecond)
		if err := d.Close(); err != nil {
			t.Fatalf("round %d: Close: %v", round, err)
		}
		if err := <-done; err != nil {
			t.Errorf("round %d: Kernel racing Close: %v; want a kernel or ErrClosed", round, err)
		}
	}
	nextDeviceComputes(t, o)
}

// nextDeviceComputes opens a device after the closed ones and checks that
// it computes exactly: a native object a closed device left behind aborts
// its first submission.
func nextDeviceComputes(t *testing.T, o wgpu.Options) {
	t.Helper()
	d := gputest.Open(t, o)
	s := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a, out := gputest.Upload(t, s, gputest.Ramp(64, 5)), gputest.Empty(t, s, 256)
	gputest.MustChain(t, s, k, a, out, 3, 64)
	gputest.WantFloats(t, "three add-ones on the next device", gputest.Plus(gputest.Ramp(64, 5), 3), gputest.Read(t, s, out))
}
