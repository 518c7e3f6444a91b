// Package recorder is softgraph's command stream and its software graphs.
//
// A [Stream] is one ordered queue of compute work on a [wgpu.Device]:
// [Stream.Launch] (a kernel over workgroups with buffer, params, texture and
// sampler arguments), [Stream.Copy] and [Stream.Clear], [Stream.Write],
// [Stream.Read] and [Stream.ReadTexture], [Stream.Sync], profiles,
// [Stream.If] and [Stream.While], and pooled memory ([Stream.Empty],
// [Stream.Upload], [Stream.NewTexture], [Stream.NewSampler]). Work joins the
// stream's open batch and is submitted in chunks (16 dispatches after an idle
// point, growing by half to 256; [WithSubmitChunks]), after a short delay
// ([WithFlushDelay]), or at the next Sync, Read or [Stream.Flush], so the GPU
// starts while the host is still encoding and no command buffer grows without
// bound.
//
// # Capture and replay
//
// The capture rule is package lifecycle's: every operation asks
// [lifecycle.State.Admit] what it may do in the stream's state, and the
// transitions are lifecycle's Prepare, Begin, End and Cancel:
//
//	s.PrepareCapture()       // NoCapture → Prepare: pools prime, params cache in capture mode
//	step()                   // the warmup runs eagerly
//	s.BeginCapture()         // Prepare → Capture: warmup submitted and checked
//	step()                   // launches, copies, clears, replays, If and While are recorded
//	g, err := s.EndCapture() // Capture → NoCapture: lowered, validated, sealed
//	g.Replay()               // joins the batch: re-encodes the prebuilt program
//
// [Stream.Capture] does all of it, so its step runs once for real before it
// is recorded ([WithoutWarmup] records step without that run);
// [Stream.AbortCapture] abandons a capture. While recording, writes are
// rejected lazily ([Stream.EndCapture] fails), reads, syncs, profiles and
// [Stream.SetVar] are refused on the spot, and any refused call makes
// EndCapture fail with a [*CaptureError] naming it.
//
// Between replays a graph is changed through memory it reads when it
// replays: Vars ([Stream.NewVar], [Stream.SetVar]: params bound by
// reference, [IndirectVar] counts, [Stream.CopyIndirect] offsets),
// rewritten buffers, or a Rebind (see docs/graph-updates.md).
//
// A [Graph] is immutable: [Graph.Rebind] returns a new graph and leaves the
// old one valid. A graph keeps alive everything it uses; its program (the
// native command list) holds its own references on pipelines, bind groups and
// buffers. [Graph.WriteTo] and [Graph.Save] write a graph file, and
// [Stream.LoadGraph] builds one on any device (docs/graph-format.md).
//
// # What it owns
//
// Streams, their memory pools, the params and bind group caches, recordings,
// graphs and their programs, GPU-side control flow, and turning graphs into
// graph files and back. The file's bytes (layout, checksum, the checks on an
// untrusted file) belong to internal/graphfile; this package translates a
// Graph into its File and builds a graph from one.
//
// An application's buffers. On a device adopted from an application
// ([wgpu.Adopt]), [Buffer.Native] hands a stream's buffer to the
// application's own pipelines and [Stream.WrapBuffer] hands the
// application's buffer to a stream; both submit to the one queue, in
// submission order (Flush before the application uses what a stream
// enqueued). A wrapped buffer's page is never pooled: its last holder drops
// softgraph's reference on it.
//
// A [Buffer]'s page is reference-counted: the caller's Buffer, each recording
// and graph that pins it, each open batch of any stream that used it, and each
// call using it now. A page returns to its pool at zero, or to the device
// once its stream is closed, so a closed stream never frees memory another
// stream's batch or graph still uses. A [Texture] and a [Sampler] are counted
// the same way. A Release racing a launch either happens before the launch
// takes its reference (the launch fails with [ErrReleased]) or after (the
// launch completes with the memory intact).
//
// Within a stream everything is in call order: a Write (a queue write, which
// overtakes unsubmitted work) submits the open batch first when it uses the
// written buffer. Across streams GPU work is ordered by submission; a Read
// submits every other stream's enqueued work first, so it sees all work
// enqueued before it on the device.
//
// # What it never does
//
// It never calls wgpu-native (package wgpu does, behind internal/driver),
// never decides the capture rule itself (package lifecycle does), and never
// waits for the GPU in Launch. Launch and Replay hand full batches to the
// stream's submitter goroutine; when 3 batches still wait for it after 2 ms
// (the GPU, or OpenGL's submit, which runs the work, is behind) they keep
// adding to the open batch instead, and wait for a submission only once that
// batch holds 512 dispatches, which bounds the memory unsubmitted work holds.
//
// # Errors
//
// Errors the host can see (bad arguments, released or foreign resources,
// lifecycle refusals, a buffer smaller than its WGSL type) are returned on
// the spot, and nothing is enqueued. Errors only the device sees are queued
// and returned by the next Sync, Read, [Stream.EndProfile] or EndCapture, as
// a [*DeferredError] with the number of dispatches lost. Every error wraps a
// sentinel ([ErrInvalidArgument], [ErrReleased], [ErrClosed],
// [ErrForeignDevice], [lifecycle.ErrGraphState], or the device's). A stream
// [WithChecks] also returns, at the same sync points, a [*CheckError]
// wrapping [ErrOutOfRange] for the first index a kernel used past a
// binding's end (docs/checks.md).
//
// # Costs
//
// An eager Launch validates its arguments, looks up its params and bind
// groups in caches and encodes one dispatch; it allocates nothing per
// argument. [Graph.Replay] skips all of that but still encodes every dispatch
// through wgpu-core, because a WebGPU command buffer cannot be submitted
// twice: replay saves per-launch resolution, not encoding. With
// [WithPreEncode] (on by default on hardware adapters) that encoding moves
// off the caller's path: a graph of 64 dispatches or more replayed again has
// its next replay encoded ahead on a background goroutine, and a shorter one
// has the first replays of its next run encoded ahead at each sync point (a
// ramp). Where the GPU, not the launch path, is the bottleneck, replay
// cannot help. What replay cannot remove, the GPU's own time per dispatch,
// [WithFusion] can: it fuses chains of pointwise dispatches into one
// generated kernel each at EndCapture (compiling them there), with results
// equal bit for bit.
package recorder
