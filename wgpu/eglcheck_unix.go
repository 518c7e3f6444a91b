//go:build unix && !darwin && !ios

package wgpu

// #cgo linux LDFLAGS: -ldl
// #include <dlfcn.h>
// #include <stdlib.h>
// #include "eglcheck.h"
import "C"

import (
	"fmt"
	"os"
	"strings"
	"unsafe"
)

// glProblem says why wgpu-hal's OpenGL backend cannot start in this
// process, or "" when it can; glInstance asks it before creating the GL
// instance and creates none when it answers.
//
// Why it exists: wgpu-hal's EGL start-up (gles::egl::Instance::init, run
// inside wgpuCreateInstance) unwraps the display it asks EGL for, so a
// machine where EGL cannot make one — libglvnd's libEGL installed with no
// vendor library (libegl1 without libegl-mesa0, a common container state;
// reproduced with __EGL_VENDOR_LIBRARY_DIRS=/nonexistent) — panicked in
// Rust and aborted the process with SIGABRT, from Open, Adapters or
// OpenAll, even where lavapipe works. sg_egl_check (eglcheck.c) repeats
// those steps up to the last unwrap with EGL's own calls, which only
// return errors, and stops where wgpu-hal would abort.
//
// It costs one dlopen of libEGL and, where EGL works, the eglInitialize
// that wgpu-hal would make anyway (the display is left initialised for it).
func glProblem() string {
	var r C.sg_egl_report
	C.sg_egl_check(&r)
	return eglProblemText(eglReport{
		status:   int(r.status),
		platform: int(r.platform),
		error:    int32(r.error),
		detail:   C.GoString(&r.detail[0]),
		client:   C.GoString(&r.client_extensions[0]),
	}, os.Getenv)
}

// eglReport is sg_egl_report in Go, for eglProblemText.
type eglReport struct {
	status, platform int
	error            int32
	detail, client   string
}

var eglPlatforms = map[int]string{
	C.SG_EGL_PLATFORM_WAYLAND:     "Wayland",
	C.SG_EGL_PLATFORM_X11:         "X11",
	C.SG_EGL_PLATFORM_ANGLE:       "ANGLE",
	C.SG_EGL_PLATFORM_SURFACELESS: "surfaceless",
	C.SG_EGL_PLATFORM_DEFAULT:     "default",
}

// glvndVariables are libglvnd's and Mesa's variables that change which EGL
// vendor and driver load; a problem names those that are set, since a
// stray one (a container's __EGL_VENDOR_LIBRARY_DIRS) is a common cause.
var glvndVariables = []string{"__EGL_VENDOR_LIBRARY_DIRS", "__EGL_VENDOR_LIBRARY_FILENAMES", "EGL_PLATFORM", "LIBGL_DRIVERS_PATH", "MESA_LOADER_DRIVER_OVERRIDE"}

// eglProblemText turns a report into glProblem's answer; getenv reads the
// environment (a parameter so tests can give their own).
func eglProblemText(r eglReport, getenv func(string) string) string {
	const skip = "or set SOFTGRAPH_BACKEND=vulkan to leave OpenGL alone"
	set := ""
	for _, v := range glvndVariables {
		if val := getenv(v); val != "" {
			set += fmt.Sprintf(" %s=%q is set;", v, val)
		}
	}
	platform := eglPlatforms[r.platform]
	switch r.status {
	case C.SG_EGL_OK:
		return ""
	case C.SG_EGL_NO_LIBRARY:
		return fmt.Sprintf("libEGL did not load (%s): install libegl1 libegl-mesa0 libgl1-mesa-dri, %s", r.detail, skip)
	case C.SG_EGL_NO_EGL15:
		return fmt.Sprintf("%s: wgpu's surfaceless EGL display needs EGL 1.5; install libegl1 (libglvnd) and libegl-mesa0, %s", r.detail, skip)
	case C.SG_EGL_NO_DISPLAY:
		why := fmt.Sprintf("EGL gave no %s display (EGL error %#x)", platform, r.error)
		if !hasVendorPlatform(r.client) {
			// libglvnd lists the platforms its vendors offer; with
			// none, no vendor library loaded.
			why += ": libEGL found no EGL vendor library"
		}
		return fmt.Sprintf("%s;%s install libegl-mesa0 (Mesa's EGL vendor) and libgl1-mesa-dri, %s", why, set, skip)
	case C.SG_EGL_INIT_FAILED:
		return fmt.Sprintf("eglInitialize failed on the %s display (EGL error %#x): the EGL vendor found no driver for it;%s install libgl1-mesa-dri (llvmpipe), %s", platform, r.error, set, skip)
	case C.SG_EGL_NO_VENDOR:
		return fmt.Sprintf("the %s EGL display has no vendor or extension string (EGL error %#x);%s reinstall libegl-mesa0, %s", platform, r.error, set, skip)
	}
	return fmt.Sprintf("EGL check status %d", r.status)
}

// hasVendorPlatform reports whether EGL's client extensions name a
// platform that only a vendor library brings (libglvnd alone has
// EGL_EXT_platform_base and EGL_EXT_platform_device).
func hasVendorPlatform(client string) bool {
	for _, e := range strings.Fields(client) {
		if strings.Contains(e, "_platform_") && e != "EGL_EXT_platform_base" && e != "EGL_EXT_platform_device" {
			return true
		}
	}
	return false
}

// vulkanProblem says why the Vulkan backend offered no adapter: the
// loader is missing, or it found no driver (naming the loader's variables
// that are set, which override the installed drivers).
func vulkanProblem(getenv func(string) string) string {
	name := C.CString("libvulkan.so.1")
	defer C.free(unsafe.Pointer(name))
	h := C.dlopen(name, C.RTLD_NOW|C.RTLD_LOCAL)
	if h == nil {
		return fmt.Sprintf("the Vulkan loader (libvulkan.so.1) did not load (%s): install libvulkan1 and a driver (mesa-vulkan-drivers for lavapipe, or the GPU vendor's), or set SOFTGRAPH_BACKEND=gl", C.GoString(C.dlerror()))
	}
	C.dlclose(h)
	set := ""
	for _, v := range []string{"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES"} {
		if val := getenv(v); val != "" {
			set += fmt.Sprintf(" %s=%q is set (it replaces the installed drivers);", v, val)
		}
	}
	return fmt.Sprintf("the Vulkan loader found no driver that loads;%s install mesa-vulkan-drivers (lavapipe) or the GPU vendor's driver, or set SOFTGRAPH_BACKEND=gl", set)
}
