// Package wgpu is softgraph's device layer: the only package that calls
// wgpu-native (through github.com/cogentcore/webgpu v0.23.0 and a small cgo
// file for what that binding does not wrap).
//
// Its public surface is small on purpose: [Open] (with [Options]) picks and
// opens an adapter, [OpenAll] and [OpenN] open one independent Device per
// GPU (or n of them) for work spread over several; a [Device] compiles a [Kernel] ([Device.Kernel], with
// pipeline-overridable constants set through [WithConstants]) and reports its
// adapter ([Device.Info]); and the errors say what went wrong. Everything else
// (buffers, textures, bind groups, encoders, prebuilt programs, queries,
// submission) is reached by package recorder through internal/driver, a
// narrow interface this package implements, so no public path reaches an
// unchecked native call.
//
// # What it owns
//
// A [Device] owns every native object made from it. Each object counts its
// users (its owner's handle and the calls using it now), so a Release during a
// call frees nothing under it, and a call after Release fails with
// [ErrReleased]. Command encoders and programs take native references on what
// their commands use, so work already encoded survives the release of its
// handles. [Device.Close] waits for the calls in progress, waits for the GPU,
// releases every object still alive, then the device.
//
// [Device.Kernel] reads the WGSL with softgraph's own front end
// (wgpu/internal/wgsl): comments, attributes in any order, overrides, every
// bind group, textures and samplers, and the resources the entry point uses
// through its call graph. It checks the entry point against the device's
// limits, rewrites what the bundled compiler (naga of wgpu-native v22) cannot
// read or computes wrongly, keeping every line where it was, and compiles the
// result with explicit bind group layouts, so launch argument i always meets
// the i-th binding [Kernel.Bindings] lists. docs/wgsl.md lists every rewrite
// and refusal.
//
// An application's own device. [Adopt] makes a Device on a device the
// application requested itself (a Cogent Core app's, say), so softgraph and
// the application share one queue and their buffers. The application keeps
// the device, its queue and its error callbacks; on an adopted device Close
// releases only softgraph's own reference on it. Adopt's doc states the
// rules for error scopes, submission order, limits and features.
//
// # What it never does
//
// It never knows about streams, graphs or capture (package recorder does),
// never pools memory, and never orders work between streams.
//
// # Errors
//
// Every error wraps one sentinel ([ErrClosed], [ErrDeviceLost],
// [ErrReleased], [ErrNoAdapter], [ErrCompile], [ErrInvalidArgument],
// [ErrForeignDevice], [ErrValidation], [ErrOutOfMemory], [ErrInternal]) inside
// a typed error: [*Error] (operation and argument), [*DeviceError] (what the
// device reported, with its type), [*CompileError] (the compiler's or the
// front end's diagnostic, with a hint for the bundled compiler's known gaps)
// or [*AdapterError] (the adapters that were found, and a hint for the
// operating system when none was). Device errors are caught at the call that
// caused them with WebGPU error scopes; whatever escapes every scope is kept
// by the uncaptured-error callback instead of aborting the process, which is
// wgpu-native's default.
//
// # Hazards it designs around
//
// wgpu-native v22 aborts the process, or corrupts the next device, on misuse
// that WebGPU leaves to validation. So layouts are explicit (automatic ones
// drop unused bindings, and an implicit-layout pipeline breaks the next
// device); buffers are released, never destroyed, and submission and mapping
// are checked (submitting a destroyed buffer, a command buffer twice, or a
// mapped buffer aborts); every wait polls without blocking (the blocking poll
// gives up after five seconds and treats unfinished work as finished); scoped
// calls are serialised (error scopes are one stack per device); and Open asks
// for the adapter's own limits (a device requested without limits gets the
// WebGPU defaults). docs/design.md numbers every hazard with its workaround.
//
// # Costs
//
// Open takes tens of milliseconds (more on OpenGL) and compiles one probe
// kernel. Kernel compiles once per (source, entry, constants) and is a map
// lookup after that. The encoding path makes one cgo call per dispatch, or
// per run of a program's dispatches, and allocates nothing in Go.
package wgpu
