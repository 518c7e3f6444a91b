// sg_egl_check (eglcheck.c): whether wgpu-hal's EGL start-up can run in this
// process without one of its unwraps aborting it. Unix but not Apple.
#ifndef SG_EGLCHECK_H
#define SG_EGLCHECK_H

#include <stdint.h>

enum {
	SG_EGL_OK = 0,
	SG_EGL_NO_LIBRARY = 1,  // libEGL.so.1 (or libEGL.so) did not load, or lacks EGL 1.4
	SG_EGL_NO_EGL15 = 2,    // the surfaceless platform needs EGL 1.5, which libEGL lacks
	SG_EGL_NO_DISPLAY = 3,  // the display wgpu-hal would get is EGL_NO_DISPLAY
	SG_EGL_INIT_FAILED = 4, // eglInitialize failed on it
	SG_EGL_NO_VENDOR = 5,   // it has no vendor or extension string
};

enum {
	SG_EGL_PLATFORM_NONE = 0,
	SG_EGL_PLATFORM_WAYLAND = 1,
	SG_EGL_PLATFORM_X11 = 2,
	SG_EGL_PLATFORM_ANGLE = 3, // ANGLE on X11: not checked past the X connection
	SG_EGL_PLATFORM_SURFACELESS = 4,
	SG_EGL_PLATFORM_DEFAULT = 5,
};

typedef struct sg_egl_report {
	int status;                   // SG_EGL_*
	int platform;                 // SG_EGL_PLATFORM_*: the one wgpu-hal would use
	int32_t error;                // eglGetError after the failing call (0 when none was made)
	int32_t major, minor;         // the EGL version eglInitialize reported
	char detail[256];             // dlerror's text, or what is lacking
	char vendor[128];             // the display's EGL_VENDOR
	char client_extensions[1024]; // eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS), cut short
} sg_egl_report;

void sg_egl_check(sg_egl_report * r);

#endif
