//go:build unix && !darwin && !ios

// sg_egl_check: can wgpu-hal's EGL backend start in this process without
// panicking? See eglcheck_unix.go for why and for what each answer means.
//
// It repeats, with dlopen and the EGL entry points, the steps of
// wgpu-hal's gles::egl::Instance::init (wgpu-native v22, wgpu commit
// 87576b7, wgpu-hal/src/gles/egl.rs) up to the first call whose failure
// that code unwraps: load libEGL.so.1 (else libEGL.so), read the client
// extensions, choose the platform the same way (Wayland if the client has
// EGL_EXT_platform_wayland and a compositor answers, X11 if it has
// EGL_EXT_platform_x11 and XOpenDisplay works, surfaceless if it has
// EGL_MESA_platform_surfaceless, else the default display), get that
// display (wgpu-hal unwraps it: EGL_NO_DISPLAY aborts the process),
// initialise it (wgpu-hal returns that error) and read its vendor and
// extension strings (both unwrapped).
//
// The default, surfaceless and Wayland displays (keyed by the platform and
// EGL_DEFAULT_DISPLAY) are the ones wgpu-hal gets next, so they are left
// initialised, never terminated: eglTerminate would end them for anyone
// else in the process using them, and wgpu-hal's own eglInitialize of an
// initialised display only returns its version. The X11 display is made on
// an X connection of our own, so it is terminated and closed here.
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "eglcheck.h"

typedef void * EGLDisplay;
typedef int32_t EGLint;
typedef unsigned int EGLBoolean;
typedef unsigned int EGLenum;
typedef intptr_t EGLAttrib;

#define EGL_NO_DISPLAY ((EGLDisplay)0)
#define EGL_DEFAULT_DISPLAY ((void *)0)
#define EGL_SUCCESS 0x3000
#define EGL_VENDOR 0x3053
#define EGL_VERSION 0x3054
#define EGL_EXTENSIONS 0x3055
#define EGL_NONE 0x3038
#define EGL_PLATFORM_X11_KHR 0x31D5
#define EGL_PLATFORM_WAYLAND_KHR 0x31D8
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD

typedef EGLDisplay (*get_display_fn)(void *);
typedef EGLDisplay (*get_platform_display_fn)(EGLenum, void *, EGLAttrib const *);
typedef EGLBoolean (*initialize_fn)(EGLDisplay, EGLint *, EGLint *);
typedef EGLBoolean (*terminate_fn)(EGLDisplay);
typedef char const * (*query_string_fn)(EGLDisplay, EGLint);
typedef EGLint (*get_error_fn)(void);

// The EGL 1.5 entry points khronos-egl loads before it offers EGL 1.5
// (wgpu-hal's egl.upcast::<EGL1_5>()); wgpu-hal uses the platform
// displays only through it.
static char const * const egl15[] = {
	"eglCreateSync", "eglDestroySync", "eglClientWaitSync", "eglGetSyncAttrib",
	"eglCreateImage", "eglDestroyImage", "eglGetPlatformDisplay",
	"eglCreatePlatformWindowSurface", "eglCreatePlatformPixmapSurface", "eglWaitSync",
};

static void * open_first(char const * a, char const * b) {
	void * h = dlopen(a, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL && b != NULL) h = dlopen(b, RTLD_NOW | RTLD_LOCAL);
	return h;
}

// has_ext reports whether the space-separated list holds name exactly.
static int has_ext(char const * list, char const * name) {
	size_t n = strlen(name);
	for (char const * p = list; p != NULL && *p != 0;) {
		while (*p == ' ') p++;
		char const * end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && strncmp(p, name, n) == 0) return 1;
		p = end;
	}
	return 0;
}

// wayland_answers is wgpu-hal's test_wayland_display: libwayland-client
// loads, a compositor accepts a connection, and libwayland-egl loads.
static int wayland_answers(void) {
	void * lib = open_first("libwayland-client.so.0", "libwayland-client.so");
	if (lib == NULL) return 0;
	void * (*connect)(char const *) = (void * (*)(char const *))dlsym(lib, "wl_display_connect");
	void (*disconnect)(void *) = (void (*)(void *))dlsym(lib, "wl_display_disconnect");
	int ok = 0;
	if (connect != NULL && disconnect != NULL) {
		void * d = connect(NULL);
		if (d != NULL) {
			disconnect(d);
			void * egl = open_first("libwayland-egl.so.1", "libwayland-egl.so");
			ok = egl != NULL;
			if (egl != NULL) dlclose(egl);
		}
	}
	dlclose(lib);
	return ok;
}

static void set(sg_egl_report * r, int status, EGLint error, char const * detail) {
	r->status = status;
	r->error = error;
	snprintf(r->detail, sizeof r->detail, "%s", detail ? detail : "");
}

void sg_egl_check(sg_egl_report * r) {
	memset(r, 0, sizeof *r);
	void * lib = open_first("libEGL.so.1", "libEGL.so");
	if (lib == NULL) {
		char const * why = dlerror();
		set(r, SG_EGL_NO_LIBRARY, 0, why);
		return;
	}
	// The library stays loaded: wgpu-hal loads it next, and a vendor
	// library it brought in must not be unloaded under an initialised
	// display.
	get_display_fn get_display = (get_display_fn)dlsym(lib, "eglGetDisplay");
	initialize_fn initialize = (initialize_fn)dlsym(lib, "eglInitialize");
	terminate_fn terminate = (terminate_fn)dlsym(lib, "eglTerminate");
	query_string_fn query_string = (query_string_fn)dlsym(lib, "eglQueryString");
	get_error_fn get_error = (get_error_fn)dlsym(lib, "eglGetError");
	if (get_display == NULL || initialize == NULL || terminate == NULL || query_string == NULL || get_error == NULL) {
		set(r, SG_EGL_NO_LIBRARY, 0, "libEGL lacks the EGL 1.4 entry points");
		return;
	}
	int is15 = 1;
	for (size_t i = 0; i < sizeof egl15 / sizeof egl15[0]; i++) {
		if (dlsym(lib, egl15[i]) == NULL) is15 = 0;
	}
	get_platform_display_fn get_platform_display = is15 ? (get_platform_display_fn)dlsym(lib, "eglGetPlatformDisplay") : NULL;

	char const * client = query_string(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	if (client == NULL) client = "";
	snprintf(r->client_extensions, sizeof r->client_extensions, "%s", client);

	EGLAttrib const none[] = {EGL_NONE};
	EGLDisplay display = EGL_NO_DISPLAY;
	void * x11 = NULL;                              // our own X connection, closed below
	void (*x_close)(void *) = NULL;
	void * x11lib = NULL;
	if (get_platform_display != NULL && has_ext(client, "EGL_EXT_platform_wayland") && wayland_answers()) {
		r->platform = SG_EGL_PLATFORM_WAYLAND;
		display = get_platform_display(EGL_PLATFORM_WAYLAND_KHR, EGL_DEFAULT_DISPLAY, none);
	} else if (get_platform_display != NULL && (has_ext(client, "EGL_EXT_platform_x11") || has_ext(client, "EGL_ANGLE_platform_angle"))) {
		// wgpu-hal opens X for either extension; with the ANGLE one it
		// asks ANGLE's platform, which only ANGLE's libEGL has, and there
		// the check stops at the X connection.
		x11lib = open_first("libX11.so.6", "libX11.so");
		void * (*x_open)(char const *) = x11lib ? (void * (*)(char const *))dlsym(x11lib, "XOpenDisplay") : NULL;
		x_close = x11lib ? (void (*)(void *))dlsym(x11lib, "XCloseDisplay") : NULL;
		x11 = (x_open != NULL && x_close != NULL) ? x_open(NULL) : NULL;
		if (x11 != NULL && !has_ext(client, "EGL_EXT_platform_x11")) {
			x_close(x11);
			dlclose(x11lib);
			r->platform = SG_EGL_PLATFORM_ANGLE;
			return;
		}
		if (x11 != NULL) {
			r->platform = SG_EGL_PLATFORM_X11;
			display = get_platform_display(EGL_PLATFORM_X11_KHR, x11, none);
		}
	}
	if (r->platform == 0) {
		if (x11lib != NULL) dlclose(x11lib);
		x11lib = NULL;
		if (has_ext(client, "EGL_MESA_platform_surfaceless")) {
			r->platform = SG_EGL_PLATFORM_SURFACELESS;
			if (get_platform_display == NULL) {
				// wgpu-hal: egl1_5.expect("Failed to get EGL 1.5 for surfaceless").
				set(r, SG_EGL_NO_EGL15, 0, "libEGL offers EGL_MESA_platform_surfaceless but not EGL 1.5");
				return;
			}
			display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, NULL, none);
		} else {
			r->platform = SG_EGL_PLATFORM_DEFAULT;
			display = get_display(EGL_DEFAULT_DISPLAY);
		}
	}
	if (display == EGL_NO_DISPLAY) {
		set(r, SG_EGL_NO_DISPLAY, get_error(), "");
	} else {
		EGLint major = 0, minor = 0;
		if (!initialize(display, &major, &minor)) {
			set(r, SG_EGL_INIT_FAILED, get_error(), "");
		} else {
			r->major = major;
			r->minor = minor;
			char const * vendor = query_string(display, EGL_VENDOR);
			char const * exts = query_string(display, EGL_EXTENSIONS);
			if (vendor == NULL || exts == NULL) {
				set(r, SG_EGL_NO_VENDOR, get_error(), "");
			} else {
				snprintf(r->vendor, sizeof r->vendor, "%s", vendor);
			}
			if (x11 != NULL) terminate(display);
		}
	}
	if (x11 != NULL) x_close(x11);
	if (x11lib != NULL) dlclose(x11lib);
}
