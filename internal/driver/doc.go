// Package driver is the narrow interface softgraph's recorder encodes
// through: buffers, textures, samplers, bind groups, command encoders,
// prebuilt programs, queries, submission and waiting. Package wgpu
// implements it on wgpu-native and registers itself with [Register]; package
// [github.com/softgraph/softgraph/internal/driver/faulty] wraps a real
// [Device] to inject the faults real hardware cannot produce on cue; package
// [github.com/softgraph/softgraph/internal/driver/fake] implements it in
// memory, so the recorder's ordering, admission and failure paths are
// tested without a GPU. The recorder reaches a wgpu.Device's implementation
// through [Of].
//
// # Typed seams
//
// Nothing crosses the interface untyped. A public device handle reaches its
// driver view through a [Bridge] registered for that handle's type (Of is
// generic: driver.Of(dev) with dev a *wgpu.Device finds the bridge package
// wgpu registered for *wgpu.Device), rather than through an exported method
// on wgpu.Device: such a method would be callable from outside the module
// even though its result's type could not be named there. A public kernel
// handle is a [KernelHandle], which each driver resolves to its own
// [Kernel] and refuses when it is another implementation's. What the
// recorder keeps per device is a typed [Local] value in the device's
// [Locals], one per [Key]. Calls only some drivers offer are optional
// interfaces found by type assertion, as in database/sql/driver: [Guarder]
// (guarded kernel variants) and [Checker] (checked variants, for a stream
// WithChecks) here, and the cogentcore buffer exchange in
// [github.com/softgraph/softgraph/internal/driver/interop], which is apart
// because its types need cgo.
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
// wrapping one of this package's sentinels ([ErrClosed], [ErrReleased], ...),
// which package wgpu re-exports under the same names. Release is idempotent
// on every [Object]; an object that was released answers every later use
// with an error wrapping [ErrReleased].
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
// graphs, [Guarder], is an optional compilation service (a kernel's
// predicated variant for the bodies of If and While), cached per kernel; a
// driver without it makes the recorder gate those dispatches indirectly.
//
// # Costs
//
// The interface adds one dynamic call per method. Encoder and Program
// methods sit on the launch and replay path, so wgpu's implementation of
// them allocates nothing in Go.
package driver
