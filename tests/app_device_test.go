package tests

import (
	"runtime"
	"testing"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestAnApplicationsDeviceOpensOnAnEGLWithNoVendor: on a machine whose
// libEGL has no vendor library (made here with
// __EGL_VENDOR_LIBRARY_DIRS=/nonexistent), the test helper that makes an
// application's own device (gputest.AppDevice, cogentcore's instance and
// adapter) gets one on the backends that work and computes with it; the
// process does not abort. Without the check Open makes (wgpu.Unavailable),
// cogentcore's CreateInstance(nil) brought up wgpu-hal's EGL, which
// unwrapped EGL_NO_DISPLAY and aborted the test binary with SIGABRT.
func TestAnApplicationsDeviceOpensOnAnEGLWithNoVendor(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("EGL vendor libraries (glvnd) are Linux's: elsewhere OpenGL comes up another way")
	}
	if !gputest.InChild(t.Name()) {
		t.Setenv("__EGL_VENDOR_LIBRARY_DIRS", "/nonexistent")
		t.Setenv("SOFTGRAPH_BACKEND", "")
	}
	gputest.InFreshProcess(t, func(t *testing.T) {
		if missing := wgpu.Unavailable(wgpu.BackendGL); len(missing) == 0 {
			t.Fatalf("with no EGL vendor library, wgpu.Unavailable(BackendGL) must name what is missing; it named nothing")
		} else {
			t.Logf("OpenGL unavailable: %v", missing)
		}
		app := gputest.AppDevice(t)
		b := app.Buffer(t, 256, gputest.StorageUsage)
		app.WriteF32(t, b, gputest.Fill(64, 1.5))
		app.Double(t, b, 256)
		gputest.WantEqual(t, "the application's own kernel ran on the device it got", gputest.Fill(64, 3), app.ReadF32(t, b, 64))
	})
}
