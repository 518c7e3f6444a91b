//go:build !unix || darwin

package wgpu

// ensureRuntimeDir does nothing here: Mesa, whose drivers want an
// XDG_RUNTIME_DIR (see runtimedir_unix.go), is not the driver on Windows
// or Apple platforms.
func ensureRuntimeDir() {}
