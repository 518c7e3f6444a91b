// Package recorder is softgraph's command stream and its software graphs.
//
// A Stream wraps wgpu command encoding for one ordered queue of compute
// work: Launch (a kernel over workgroups with buffer and params arguments),
// Write, Read, Sync, profiles, and pooled memory (Upload, Empty, Buffer).
// Launches are batched into compute passes and submitted in chunks, so the
// GPU starts while the host is still encoding and no command buffer grows
// without bound.
//
// The capture lifecycle is owned by lifecycle.State:
//
//	s.GraphPrepare()   // NoCapture → Prepare: persistent pools armed, params cache in capture mode
//	step()             // the warmup runs eagerly
//	s.BeginCapture()   // Prepare → Capture: warmup submitted and checked
//	step()             // launches are resolved once and recorded, not executed
//	g, err := s.EndCapture() // Capture → NoCapture: the recording is validated and sealed
//	g.Replay()         // re-encode the prebuilt dispatches, as often as needed
//
// What each operation does in each state:
//
//	state      Launch    Write               Read/Sync/Profile  Replay
//	NoCapture  executes  applies (ordered)   wait for the GPU   enqueues the graph
//	Prepare    executes  applies (ordered)   wait for the GPU   enqueues the graph
//	Capture    recorded  rejected lazily:    refused now        appends the graph
//	                     EndCapture fails    (ErrGraphState)    (child graph)
//
// What it owns: pools of GPU memory (whole wgpu buffers by size class, plus
// an exact-fit persistent pool for capture), the params (metadata) cache,
// a bind group cache, the deferred-error queue, recordings and Graphs.
// What it never does: call wgpu-native directly (package wgpu does), decide
// the capture order itself (lifecycle does), or block in Launch.
//
// Errors are returned on the spot when the host can see them (bad arguments,
// released or foreign buffers, lifecycle refusals) and nothing is enqueued.
// Errors only the device sees are queued and returned by the next Sync,
// Read, EndProfile or EndCapture, as *DeferredError.
//
// Costs. An eager Launch validates its arguments, looks up its params and
// bind group in caches and encodes one dispatch. A Replay saves all of that
// but still encodes every dispatch through wgpu-core (a WebGPU command
// buffer cannot be submitted twice): replay saves per-launch resolution, not
// encoding. Where the GPU, not the launch path, is the bottleneck, replay
// cannot help.
package recorder
