// Package tests is softgraph's end-to-end reliability suite: test files
// only, run on a real adapter (Mesa lavapipe on CI), never a mock. Failures
// real hardware cannot produce on cue (a command buffer or submission the
// device refuses, an allocation it cannot satisfy) are injected with
// internal/driver/faulty between the real device and the stream; the
// behaviour that follows still runs on the adapter.
//
// What each file proves (TestDocListsEveryTestFile keeps this list and the
// directory in step):
//
//   - address_space_linux_test.go: limitAddressSpace, an RLIMIT_AS for a child process, so a software adapter runs out of memory on cue without touching the machine's memory (no tests).
//   - address_space_other_test.go: limitAddressSpace where the address space cannot be limited (no tests).
//   - app_device_test.go: an application's own device (AppDevice) opens on an EGL with no vendor, leaving OpenGL out, in a fresh process, instead of aborting.
//   - badinput_test.go: every public entry point, given nil, zero, huge, misaligned, out-of-range, released, closed or foreign arguments in every lifecycle state, returns a specific error naming the argument, changes nothing, and the stream then computes a known result; every launch error names the kernel's label and entry point.
//   - capture_window_test.go: every way a capture can fail (a panicking or hostile step, a Close from inside it, heavy traffic around each transition) ends in NoCapture with a typed error, and sealed graphs record exactly the window.
//   - checks_random_test.go: random chains of random kernels (the fusion test's generator) compute the same words on a checked stream as on a plain one, NaN payloads included.
//   - checks_test.go: WithChecks names an out-of-range write and read (kernel label, binding, index, length, invocation) in eager, captured and replayed launches, counts every violation and reports the first, per stream, in If bodies and after Rebind; a kernel with no group left is refused.
//   - close_races_test.go: Stream.Close and Device.Close racing heavy launch, replay, profile, load and save traffic, stalled streams and long GPU work return nil or ErrClosed, never early, never aborting.
//   - close_test.go: a closed stream frees nothing another stream or graph still uses, concurrent and repeated Closes finish before they return, and idle streams, hundreds of streams and a device closed inside bodies release every native object and goroutine.
//   - concurrency_test.go: many goroutines on many streams of one device, and Close of a stream or of the device while they run.
//   - control_flow_test.go: If and While bodies that close, panic, end the capture or record concurrently cannot seal a broken graph; child graphs with control flow, rebound loops, loaded control flow inside a capture and loops over the lowering bound.
//   - device_test.go: a closed or lost device fails every call at once; contexts bound Sync and Read.
//   - doc_test.go: this list names every test file of the package and no other (no GPU needed).
//   - errors_test.go: every documented error type is reachable with errors.As and wraps its sentinels; a DeferredError counts every dispatch lost with its batch.
//   - faults_test.go: device errors inside the capture window fail EndCapture, during the warmup fail BeginCapture, and the stream stays usable and re-capturable.
//   - finish_ahead_test.go: batches finished ahead (several Finishes at once, in shared mode) stay exact while a neighbour's scoped calls fail and native buffers handed out end shared mode mid-run.
//   - forged_graph_files_test.go: graph files with one field forged are refused with a GraphFileError or replay exactly, and tiny files declaring huge buffers or textures commit no gigabytes (each case in a guarded process).
//   - fusion_context_test.go: kernels a compiler computed differently fused (a float division before an add, a constant held in a var) stay unfused with their reason and leave the plain words, between two fused parts, over random data; String names each kernel's reason.
//   - fusion_epilogue_test.go: a tiled matmul followed by bias, GELU and residual kernels of 8x8 workgroups fuses into one dispatch (an epilogue) with the plain values; a read of the product at another index stays unfused.
//   - fusion_forms_test.go: the forms real code is written in fuse and compute the plain values (8x8 workgroups, typed pointers, unused declarations, kernels compiled with constants); two wraps of one native buffer are one buffer; a fused kernel compiles once per source while a graph holds it; a local or parameter named like a prefixed name never captures its uses.
//   - fusion_indirect_test.go: indirect dispatches reading the same counts fuse, follow the counts SetVar gives, update each element once where the counts repeat an index (against a Go reference), and stay unfused with their reason over other counts.
//   - fusion_random_test.go: random pointwise kernels and epilogue producers in random chains (f32 and u32, 1-D and 2-D, by counts and indirect, aliased and in-place buffers, infinities, NaNs and signed zeros) leave every word on a fusing stream as on a plain one, against a control plain stream (SOFTGRAPH_FUSION_CHAINS sets how many); loops of 100 fused graphs in a fresh process never abort it.
//   - fusion_test.go: a graph captured with WithFusion replays bit for bit like the unfused one (random chains of the shipped kernels, Rebind, graph files, control flow left unfused), and String/DOT say what fused and why not.
//   - fuzz_test.go: the chaos suite: random sequences of every stream operation over two streams against a plain-Go model, then the same input raced from several goroutines; every error typed, nothing crashes, hangs, races or leaks.
//   - gl_long_dispatch_test.go: Close behind one dispatch longer than NVIDIA's GL driver runs one (SOFTGRAPH_LONG=1, hardware GL only) reports what the dispatch's own buffer holds afterwards.
//   - gosl_test.go: a program written as Cogent Core's gosl generates it (kernels sharing a header that declares every variable, every declared variable passed, parameters in read-only storage) runs eagerly and replayed bit for bit as its Go reference; arguments for unused bindings are checked, WithStrictBindings refuses them, Params in read-only storage are exactly their bytes and StructParams lays out by the binding's address space.
//   - graph_calls_test.go: graphs without dispatches work through every Graph call, and Rebind keeps its identity rules, chains and the conditions a saved graph reads.
//   - graph_files_test.go: Save and LoadGraph keep child graphs with control flow, textures and samplers; a hand-built file replays; a loaded graph saves a file it can load; resealed garbage never crashes LoadGraph (FuzzLoadGraphResealed).
//   - graph_on_several_devices_test.go: a graph captured on one device and loaded from its file on another replays on both at once, with the same results.
//   - harness_test.go: shared helpers (no tests): waits with time limits, error collection, live-object counts, memory and the SOFTGRAPH_LONG and -short switches.
//   - latched_graphs_test.go: graphs whose loops are latched keep their results through replay, ProfileReplay, Save and LoadGraph, Rebind and use as a child, and back-to-back replays read no stale enable word.
//   - latching_races_test.go: latched loops captured and replayed on concurrent streams, with kernels released and the device closed under them, fail cleanly or match the model.
//   - latching_test.go: every form of body kernel, dispatch shape, condition and nesting that While and If lower to latches or gates replays bit for bit as the eager step, up to MaxWhileIterations.
//   - leak_test.go: long replay and capture/release runs, churn of every resource, uncached bind groups, kernel release and Trim keep pools, live native objects, goroutines and the Go heap flat.
//   - limits_test.go: kernels and buffers at and over the device's limits (workgroup storage, bind groups, storage bindings, maxBufferSize) are refused at once with a typed error or work, and a buffer of maxBufferSize on every adapter is made or runs out of memory, never fails validation.
//   - native_memory_test.go: refused LoadGraph calls, Rebind cycles and stream open/close cycles leave softgraph's and wgpu-native's live objects at their baseline and grow RSS no more than a control loop of the same native calls without softgraph.
//   - nesting_test.go: the deepest nesting the WGSL front-end lets through compiles, one past it is refused, and a 10000-long else-if chain is refused instead of crashing.
//   - nil_arguments_test.go: nil receivers, readers, writers, options and contexts are refused with an error, never a panic.
//   - norace_test.go: raceEnabled is false in a binary built without the race detector (no tests).
//   - odd_arguments_test.go: hostile kernel sources and constants, odd Open options, numeric extremes and another device's resources are refused with named errors.
//   - params_test.go: ParamsFrom lays out values as WGSL does and refuses what has no WGSL form; a tiny params cache never gives one slot to two params, and a refused launch never frees params an earlier batch uses.
//   - profiles_test.go: EndProfile refuses every token but the running one, ProfileReplay racing EndProfile errs but never panics, ProfileReplay racing captures on its stream runs whole or not at all and leaves every graph exact, and profiles interleaved with replays on two streams match the model, and WithFloor's Span is the graph's GPU time in one command buffer.
//   - race_test.go: raceEnabled is true in a binary built with the race detector (no tests).
//   - ramp_races_test.go: replays deferred against ramp steps keep each goroutine's order, are seen by other streams' reads, are submitted by the flush timer and run exactly once whatever Release, Close or a deadline races them.
//   - ramps_test.go: the ramp schedule follows its model; short graphs of every kind replay from ramps with the model's results, allocate nothing, count RampPending right and keep stream order behind long GPU work.
//   - release_races_test.go: Release of graphs, buffers and kernels racing replays, launches, profiles and Save returns nil or ErrReleased, runs nothing twice and hands no memory to two owners.
//   - stream_order_test.go: writes, reads, launches and replays take effect in call order at every batch boundary, under every submission schedule and flush delay, across streams and goroutines.
//   - textures_test.go: odd textures are refused or work, TexelSize sizes them first, MemoryStats counts every live one, a refused ReadTexture drops no other launch, and a texture bound writable twice in one dispatch runs.
//   - vars_test.go: SetVar and Replay alternating on many streams, with values queued behind unsubmitted replays under every submission schedule, give each replay the value set just before it; a Var another stream binds, a Var released with a value queued and Close racing SetVar keep that rule or fail cleanly.
//   - waits_test.go: waits behind long GPU work: Sync, SyncContext and Close never return before the GPU is done (Close on every backend the machine has, GL included), and deadlines hold on every backend and while the submitter is busy. The work's length is measured, not assumed.
//   - window_races_test.go: Write, Read, Sync and SetVar racing captures on their stream end as lifecycle's table says (nil or their own refusal), and every capture seals its own launches or fails only for those refusals.
//
// The default run takes a few minutes on lavapipe under the race detector
// (the waits tests make about 35 s of GPU work); -short skips every test
// slower than about 2 s:
//
//	go test -race ./tests/
//
// The same on OpenGL (Mesa llvmpipe through EGL):
//
//	SOFTGRAPH_BACKEND=gl go test -race ./tests/
//
// Exhaustive sweeps, long chaos and close-race runs, nesting bisections of
// every construct, the leak runs at full length (100,000 replays, 10,000
// capture cycles) and the read-back near maxBufferSize run only with
// SOFTGRAPH_LONG=1; the default run keeps a shorter form of each:
//
//	SOFTGRAPH_LONG=1 go test -race -timeout 60m ./tests/
//
// The chaos suite runs its seeds and 3 s of random inputs by default. For
// longer, give TestChaosRandomOperationsKeepEveryContract a budget (it logs
// its random seed; SOFTGRAPH_CHAOS_SEED replays one, and a failing input is
// printed ready to add to fuzzSeeds):
//
//	SOFTGRAPH_CHAOS=10m go test -race -run Chaos -timeout 15m ./tests/
//
// or let Go's fuzzer mutate the inputs (each worker process opens its own
// device; -parallel bounds them):
//
//	go test -run XXX -fuzz=FuzzStreamOps -fuzztime=10m -parallel=2 ./tests/
//
// Without an adapter the tests skip, unless SOFTGRAPH_REQUIRE_GPU=1, where
// they fail. Tests that could abort the process, or that close a device
// before the objects made from it, run in a fresh process of the test
// binary (gputest.InFreshProcess), which then opens a new device and
// computes, so a crash or damage to wgpu-native's process-wide state shows
// as that test's failure.
package tests
