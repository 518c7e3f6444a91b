//go:build !unix || darwin || ios

package wgpu

// glProblem answers "" here: wgpu-hal's OpenGL backend on Windows starts
// through WGL, and on Apple platforms through ANGLE's EGL, neither of which
// eglcheck.c's steps describe.
func glProblem() string { return "" }

// vulkanProblem says why the Vulkan backend offered no adapter.
func vulkanProblem(func(string) string) string {
	return "no Vulkan driver offered an adapter: install or update the GPU vendor's driver, or set SOFTGRAPH_BACKEND to another backend"
}
