package wgpu_test

import (
	"errors"
	"testing"

	webgpu "github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestAdoptedDeviceRunsStreamsAndGraphsAndOutlivesClose: softgraph on an
// application's own device (made with cogentcore's bindings, as a Cogent
// Core app makes it) runs eager launches and a captured graph, and after
// softgraph's Close — which must release only what softgraph made — the
// application's device still encodes, submits and reads back. Without the
// ownership rule Close would release the application's device or queue
// and its next submission would abort the process.
func TestAdoptedDeviceRunsStreamsAndGraphsAndOutlivesClose(t *testing.T) {
	app := gputest.AppDevice(t)
	d := app.Adopt(t)
	if !d.Adopted() {
		t.Fatal("a device made by Adopt must report Adopted")
	}
	if got, want := d.Info().Backend.String(), backendName(app.Adapter.GetInfo().BackendType); got != want {
		t.Errorf("Info().Backend = %s, want the adopted adapter's %s", got, want)
	}
	if d.Info().Limits.MaxBindGroups == 0 || d.Info().Limits.MaxBindGroups > 4 {
		t.Errorf("Info().Limits.MaxBindGroups = %d, want the device's own, capped at 4", d.Info().Limits.MaxBindGroups)
	}

	s := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Ramp(256, 0))
	b := gputest.Empty(t, s, 1024)
	gputest.MustChain(t, s, k, a, b, 1, 256)
	gputest.WantFloats(t, "an eager launch on the adopted device", gputest.Ramp(256, 1), gputest.Read(t, s, b))

	g := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, b, 1, 256) })
	for range 3 {
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay: %v", err)
		}
	}
	gputest.WantFloats(t, "a replayed graph on the adopted device", gputest.Ramp(256, 1), gputest.Read(t, s, b))
	g.Release()
	if err := s.Close(); err != nil {
		t.Fatalf("stream Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("device Close: %v", err)
	}
	if err := d.Err(); !errors.Is(err, wgpu.ErrClosed) {
		t.Errorf("after Close the softgraph Device answers ErrClosed, got %v", err)
	}

	// The application's device, after softgraph is gone.
	src := app.Buffer(t, 64, gputest.StorageUsage)
	app.WriteF32(t, src, gputest.Ramp(16, 5))
	dst := app.Buffer(t, 64, gputest.StorageUsage)
	enc, err := app.Device.CreateCommandEncoder(nil)
	if err != nil {
		t.Fatalf("the application's CreateCommandEncoder after softgraph's Close: %v", err)
	}
	if err := enc.CopyBufferToBuffer(src, 0, dst, 0, 64); err != nil {
		t.Fatal(err)
	}
	cb, err := enc.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	app.Queue.Submit(cb)
	cb.Release()
	enc.Release()
	gputest.WantFloats(t, "the application's own copy after softgraph's Close", gputest.Ramp(16, 5), app.ReadF32(t, dst, 16))
}

// TestAdoptedDeviceKeepsWorkingWhenTheApplicationReleasesItFirst: Adopt
// holds a reference of its own on the device, so an application that
// releases its handle while softgraph still runs does not pull the device
// from under it; softgraph's Close then drops the last reference.
func TestAdoptedDeviceKeepsWorkingWhenTheApplicationReleasesItFirst(t *testing.T) {
	app := gputest.AppDevice(t)
	d, err := wgpu.Adopt(app.Device, wgpu.Options{NativeAdapter: app.Adapter})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	app.Queue.Release()
	app.Device.Release()
	app.Queue, app.Device = nil, nil

	s := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, 256)
	gputest.MustChain(t, s, k, a, b, 1, 64)
	gputest.WantFloats(t, "a launch after the application released its device", gputest.Fill(64, 2), gputest.Read(t, s, b))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAdoptRefusesWhatItCannotDescribe: without the adapter or an explicit
// backend softgraph cannot know how to compile kernels for the device, so
// Adopt refuses rather than guess; a nil device and a backend that
// contradicts the adapter are refused too. Each refusal leaves the
// application's device untouched and usable.
func TestAdoptRefusesWhatItCannotDescribe(t *testing.T) {
	app := gputest.AppDevice(t)
	other := wgpu.BackendVulkan
	if backendName(app.Adapter.GetInfo().BackendType) == "vulkan" {
		other = wgpu.BackendGL
	}
	for _, c := range []struct {
		name string
		dev  *webgpu.Device
		o    wgpu.Options
	}{
		{"nil device", nil, wgpu.Options{NativeAdapter: app.Adapter}},
		{"no adapter and no backend", app.Device, wgpu.Options{}},
		{"backend contradicting the adapter", app.Device, wgpu.Options{NativeAdapter: app.Adapter, Backend: other}},
	} {
		d, err := wgpu.Adopt(c.dev, c.o)
		if d != nil {
			d.Close()
		}
		gputest.WantErr(t, "Adopt refuses "+c.name, err, []error{wgpu.ErrInvalidArgument})
	}
	d := app.Adopt(t)
	if err := d.Err(); err != nil {
		t.Fatalf("after the refusals Adopt of the same device works: %v", err)
	}
}

func backendName(b webgpu.BackendType) string {
	switch b {
	case webgpu.BackendTypeVulkan:
		return "vulkan"
	case webgpu.BackendTypeMetal:
		return "metal"
	case webgpu.BackendTypeD3D12:
		return "dx12"
	case webgpu.BackendTypeOpenGL, webgpu.BackendTypeOpenGLES:
		return "gl"
	}
	return b.String()
}
