// Package wgpu is softgraph's device layer: the only package that calls
// wgpu-native (through github.com/cogentcore/webgpu v0.23.0 and a small cgo
// file for what that binding does not wrap).
//
// Its public surface is small on purpose: Open (with Options) picks and
// opens an adapter, a Device compiles Kernels (Device.Kernel, with
// pipeline-overridable constants through WithConstants) and reports its
// adapter and limits (Info), and the errors say what went wrong. Everything
// else — buffers, textures, bind groups, encoders, prebuilt programs,
// queries, submission — is reached by package recorder through
// internal/driver, a narrow interface this package implements; no public
// path reaches an unchecked native call.
//
// Kernels. Device.Kernel reads the WGSL with softgraph's own front-end
// (wgpu/internal/wgsl: comments, attributes in any order, overrides,
// every bind group, textures and samplers, the resources the entry point
// actually uses through its call graph), checks the entry point against
// the device's limits, rewrites what the bundled compiler (naga of
// wgpu-native v22) cannot read — `override` declarations become typed
// consts, trailing commas in attribute lists go — and compiles the result
// with explicit bind group layouts, so launch argument i always meets the
// i-th binding Kernel.Bindings lists.
//
// An application's own device. Adopt makes a Device on a device the
// application requested itself (a Cogent Core app's, say), so softgraph
// and the application share one queue and their buffers
// (recorder.Buffer.Native, recorder.Stream.WrapBuffer). The application
// keeps the device, its queue and its error callbacks; Adopt's doc states
// the rules for error scopes, submission order, limits and features.
//
// What it never does: know about streams, graphs or capture (package
// recorder does), pool memory, or order work between streams.
//
// Ownership. A Device owns every native object made from it; each object
// counts its users (its owner's handle and calls using it now), so a
// Release during a call frees nothing under it, and a call after Release
// fails with ErrReleased. Command encoders and programs take native
// references on what their commands use, so work already encoded survives
// the release of its handles. Close waits for the calls in progress, waits
// for the GPU, releases every object still alive, then the device (on an
// adopted device, only softgraph's own reference on it).
//
// Errors. Every error wraps one sentinel (ErrClosed, ErrDeviceLost,
// ErrReleased, ErrNoAdapter, ErrCompile, ErrInvalidArgument,
// ErrForeignDevice, ErrValidation, ErrOutOfMemory, ErrInternal) inside a
// typed error: *Error (operation and argument), *DeviceError (what the
// device reported, with its type), *CompileError (the compiler's or the
// front-end's diagnostic, with a hint for the bundled compiler's known
// gaps) or *AdapterError (the adapters that were found, and a hint for the
// operating system when none was). Device errors are caught at the call
// that caused them with WebGPU error scopes; whatever escapes every scope
// is kept by the uncaptured-error callback instead of aborting the process,
// which is wgpu-native's default (on an adopted device the callback is the
// application's, and nothing of softgraph's reaches it).
//
// Hazards it designs around (wgpu-native v22): automatic layouts drop
// unused bindings, and an implicit-layout pipeline leaves the next device
// of the process broken (so layouts are explicit); submitting work that
// uses a destroyed buffer, a command buffer twice, or a buffer being mapped
// aborts the process (so buffers are released, never destroyed, and
// submission and mapping are checked); the blocking device poll gives up
// after five seconds and treats unfinished work as finished (so every wait
// polls without blocking); error scopes are one stack per device (so
// scoped calls are serialised); and a device requested without limits gets
// the WebGPU defaults (so Open asks for the adapter's own).
//
// Costs: Open takes tens of milliseconds (more on OpenGL) and compiles one
// probe kernel; Kernel compiles once per (source, entry, constants) and is
// a map lookup after. The encoding path makes one cgo call per dispatch, or
// per run of a program's dispatches, and allocates nothing in Go.
package wgpu
