// Package wgpu is softgraph's device layer: the only package that calls
// wgpu-native (through github.com/cogentcore/webgpu and a small cgo file for
// what that binding does not wrap).
//
// It owns the Device (instance, adapter, device, queue, limits, the kernel
// cache, the device-lost state and counters of live native objects), Kernels
// (WGSL compute pipelines with an explicit group-0 layout derived from the
// source), Buffers, BindGroups, Encoders with their compute Pass, queue
// submission and writes, mapped reads, and timestamp query sets.
//
// What it never does: know about streams, graphs or capture (package
// recorder does), pool memory, or order work between streams. It validates
// only what it must to keep wgpu-native from aborting the process.
//
// Errors. Every error wraps one sentinel (ErrClosed, ErrDeviceLost,
// ErrReleased, ErrNoAdapter, ErrCompile, ErrInvalidArgument,
// ErrForeignDevice, ErrValidation, ErrOutOfMemory, ErrInternal) inside a
// typed error: *Error (operation and argument), *DeviceError (what the device
// reported, with its type), *CompileError (the compiler's diagnostic) or
// *AdapterError (the adapters that were found). Device errors are caught at
// the call that caused them with WebGPU error scopes; whatever escapes every
// scope is kept by the uncaptured-error callback for TakeErrors instead of
// aborting the process, which is wgpu-native's default.
//
// Hazards it designs around (wgpu-native v22 through cogentcore/webgpu
// v0.23.0): automatic layouts drop unused bindings (so layouts are explicit);
// submitting work that uses a destroyed buffer aborts the process (so buffers
// are released, never destroyed); a failed Finish returns no command buffer
// (so Finish never hands one out after an error); the OpenGL backend cannot be
// initialised twice per process (so instances are shared); and requesting a
// device without limits gets the WebGPU defaults (so Open asks for the
// adapter's own).
//
// Costs: Open takes tens of milliseconds (more on OpenGL); Kernel compiles
// once per (source, entry) and is a map lookup after. Pass methods are single
// cgo calls with no allocation.
package wgpu
