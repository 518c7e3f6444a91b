// Package recorder is softgraph's command stream and its software graphs.
//
// A Stream wraps wgpu command encoding for one ordered queue of compute
// work: Launch (a kernel over workgroups with buffer, params, texture and
// sampler arguments), Copy and Clear, Write, Read and ReadTexture, Sync,
// profiles, If and While, and pooled memory (Empty, Upload, NewTexture,
// NewSampler). Work joins the stream's open batch and is submitted in
// chunks (16 dispatches after an idle point, growing by half to 256), after a
// short delay (WithFlushDelay), or at the next Sync, Read or Flush, so the
// GPU starts while the host is still encoding and no command buffer grows
// without bound.
//
// The capture rule is lifecycle's: every operation asks State.Admit what it
// may do in the stream's state, and the transitions are lifecycle's
// Prepare, Begin, End and Cancel:
//
//	s.GraphPrepare()   // NoCapture → Prepare: pools prime, params cache in capture mode
//	step()             // the warmup runs eagerly
//	s.BeginCapture()   // Prepare → Capture: warmup submitted and checked
//	step()             // launches, copies, clears, replays, If and While are recorded
//	g, err := s.EndCapture() // Capture → NoCapture: lowered, validated, sealed
//	g.Replay()         // joins the batch: re-encodes the prebuilt program
//
// s.Capture(step) does all of it (WithoutWarmup records step without the
// warmup run); s.AbortCapture abandons a capture. While recording, writes
// are rejected lazily (EndCapture fails), reads, syncs, profiles and SetVar
// are refused on the spot, and any refused call makes EndCapture fail with
// a *CaptureError naming it.
//
// Between replays a graph is changed through memory it reads when it
// replays: Vars (NewVar, SetVar: params bound by reference, IndirectVar
// counts, CopyIndirect offsets), rewritten buffers, or a Rebind (see
// docs/graph-updates.md).
//
// Graphs are immutable: Rebind returns a new graph and leaves the old one
// valid. A graph keeps alive everything it uses; its program (the native
// command list) holds its own references on pipelines, bind groups and
// buffers. Graph.WriteTo and Save write a graph file, Stream.LoadGraph
// builds one on any device (see docs/graph-format.md).
//
// Ownership. A Buffer's page is reference-counted: the caller's Buffer,
// each recording and graph that pins it, each open batch of any stream that
// used it, and each call using it now. A page returns to its pool at zero,
// or to the device once its stream is closed — so a closed stream never
// frees memory another stream's batch or graph still uses. Textures and
// samplers are counted the same way. A Release racing a launch either
// happens before the launch takes its reference (the launch fails with
// ErrReleased) or after (the launch completes with the memory intact).
//
// Ordering. Within a stream everything is in call order: a Write (a queue
// write, which overtakes unsubmitted work) submits the open batch first
// when it uses the written buffer. Across streams GPU work is ordered by
// submission; a Read submits every other stream's enqueued work first, so
// it sees all work enqueued before it on the device.
//
// What it never does: call wgpu-native (package wgpu does, behind
// internal/driver), decide the capture rule itself (lifecycle does), or
// wait for the GPU in Launch. Launch and Replay hand full batches to the
// stream's submitter goroutine; when it still has 3 batches to submit after
// 2 ms (the GPU, or OpenGL's submit, which runs the work, is behind) they
// keep adding to the open batch instead, and wait for a submission only
// once that batch holds 512 dispatches, which bounds the memory unsubmitted
// work holds. A Replay that joins a pre-encoded command buffer after
// launches waits for room among those 3 batches.
//
// Errors are returned on the spot when the host can see them (bad
// arguments, released or foreign resources, lifecycle refusals, a buffer
// smaller than its WGSL type) and nothing is enqueued. Errors only the
// device sees are queued and returned by the next Sync, Read, EndProfile or
// EndCapture, as *DeferredError with the number of dispatches lost.
//
// Costs. An eager Launch validates its arguments, looks up its params and
// bind groups in caches and encodes one dispatch; it allocates nothing per
// argument. A Replay skips all of that but still encodes every dispatch
// through wgpu-core (a WebGPU command buffer cannot be submitted twice):
// replay saves per-launch resolution, not encoding — except for graphs of
// 64 dispatches or more replayed again, whose next replay is encoded ahead
// on a background goroutine. Where the GPU, not the launch path, is the
// bottleneck, replay cannot help.
package recorder
