// Package driver is the narrow interface softgraph's recorder encodes
// through: buffers, textures, samplers, bind groups, command encoders,
// prebuilt programs, queries, submission and waiting. Package wgpu
// implements it on wgpu-native and registers itself with [Register]; package
// [github.com/softgraph/softgraph/internal/driver/faulty] wraps a real
// [Device] to inject the faults real hardware cannot produce on cue. The
// recorder reaches a wgpu.Device's implementation through [Of].
//
// # Why an interface, and why here
//
// What only softgraph's own packages may call (encoders, raw handles, fault
// injection) must not be reachable from the public API, like Gio's
// gpu/internal/driver. Go lets a package import an internal package only
// from below the internal directory's parent, so an interface under
// wgpu/internal could not be used by recorder; it lives at the module root
// instead. It is pure Go: package wgpu stays the only package that calls
// wgpu-native.
//
// # What an implementation must provide
//
// Every method is checked: it never aborts the process, whatever the
// arguments or the order of calls. A released object, an object of another
// device, a closed or lost device, an index out of range: each is an error
// wrapping one of package wgpu's sentinels. Release is idempotent on every
// [Object]; an object that was released answers every later use with an
// error wrapping [github.com/softgraph/softgraph/wgpu.ErrReleased].
//
// What it owns is native lifetimes: a command that was encoded keeps what it
// references alive until its command buffer is finished, and a [Program]
// keeps what it references alive until the Program is released, whoever
// releases their handles meanwhile. An [Encoder] and a Program are not safe
// for concurrent use; everything else is.
//
// # What it never does
//
// It never orders work between streams, pools memory, or keeps any state of
// a graph or a capture: those are the recorder's. Its one call made for
// graphs, Device.Guarded, is a compilation service (a kernel's predicated
// variant for the bodies of If and While), cached per kernel.
//
// # Costs
//
// The interface adds one dynamic call per method. Encoder and Program
// methods sit on the launch and replay path, so wgpu's implementation of
// them allocates nothing in Go.
package driver
