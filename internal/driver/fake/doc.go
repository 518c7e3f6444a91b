// Package fake is an in-memory [driver.Device] for tests that need no GPU:
// buffers and textures are byte slices, kernels are Go functions registered
// by name, and a submission runs its commands in order on the device's
// queue goroutine. It is pure Go (it builds with CGO_ENABLED=0) and imports
// nothing of package wgpu.
//
// # What it models
//
// Queue order: WriteBuffer, WriteTexture and Submit append to one queue,
// which the device executes strictly in order; a write takes effect after
// every submission before it and before every one after it, as on wgpu.
// Wait and ReadBuffer return when the queue has executed what they wait for,
// when their context is done, or when the device is closed or lost.
//
// # What a test controls
//
// Hold stops the queue (nothing submitted from then on completes) until the
// returned function is called: how a test keeps another stream's submission
// incomplete while it checks a deadline or an admission. Delay makes every
// queue item take a while. Fail makes the next n calls of an operation fail
// as the device would refuse them (a *DeviceError wrapping
// driver.ErrValidation or driver.ErrOutOfMemory); Lose and Close end the
// device. Log records what the queue executed, for ordering assertions.
//
// # What it is not
//
// It does not validate WGSL, compile anything or check bind group layouts
// beyond the binding count of a group: a kernel is what its Go function
// does. Behaviour that depends on a real adapter is tested on one (lavapipe
// on CI); the fake exists for the ordering, admission and failure paths that
// need no shader and for faults hardware cannot produce on cue.
package fake
