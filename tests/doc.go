// Package tests is softgraph's end-to-end reliability suite: test files
// only, run on a real adapter (Mesa lavapipe on CI), never a mock. Failures
// real hardware cannot produce on cue (a command buffer or submission the
// device refuses, an allocation it cannot satisfy) are injected with
// internal/driver/faulty between the real device and the stream; the
// behaviour that follows still runs on the adapter.
//
// What each file proves:
//
//   - badinput_test.go: every public entry point, given nil, zero, huge,
//     misaligned, out-of-range, released, closed or foreign arguments in
//     every lifecycle state, returns a specific error naming the argument,
//     changes nothing, and the stream then computes a known result.
//   - faults_test.go: device errors inside the capture window fail
//     EndCapture, during the warmup fail BeginCapture, and the stream stays
//     usable and re-capturable.
//   - adversarial_test.go: one test per failure that adversarial use found
//     (issue 12): memory a closed stream shares stays alive, concurrent
//     closes finish before they return, Release racing Launch or
//     ProfileReplay, kernels over the workgroup storage limit, writes
//     overtaking launches, Rebind's identity rule, leaks of kernels,
//     params pages and primed memory, Capture's failures, lost-dispatch
//     counts, buffers near maxBufferSize.
//   - probe4_test.go: the fourth adversarial round: documented guarantees
//     checked one by one (graphs without dispatches through every Graph
//     call, pre-encoded replays against a model of stream order, Rebind
//     chains, saved textures and samplers, error types, profile tokens,
//     MemoryStats), resource churn, Close orderings and hostile callbacks,
//     numeric extremes and ParamsFrom's WGSL layout.
//   - waits_test.go: waits behind long GPU work (issue 12, items 6 and 7):
//     Sync, SyncContext and Close never return before the GPU is done, and
//     deadlines hold on every backend. The work's length is measured, not
//     assumed.
//   - fuzz_test.go: the chaos suite. FuzzStreamOps drives random sequences
//     of every stream operation over two streams sharing buffers and
//     graphs against a plain-Go model of the lifecycles and buffer
//     contents, then races the same input from several goroutines (workers
//     checked against models of their own buffers; chaos goroutines
//     replaying, rebinding, releasing, capturing, copying, clearing and
//     closing a stream under them), where every error must be typed and
//     wrap a sentinel and nothing may crash, hang, race or leak.
//   - concurrency_test.go: many goroutines on many streams of one device,
//     and Close of a stream or of the device while they run.
//   - leak_test.go: long replay and capture/release runs keep pools, live
//     native objects and the Go heap flat.
//   - device_test.go: a closed or lost device fails every call at once;
//     contexts bound Sync and Read.
//
// The default run takes a minute or two on lavapipe (the waits tests make
// about 35 s of GPU work; -short skips the longest):
//
//	go test -race ./tests/
//
// The same on OpenGL (Mesa llvmpipe through EGL):
//
//	SOFTGRAPH_BACKEND=gl go test -race ./tests/
//
// The long leak runs (100,000 replays, 10,000 capture cycles):
//
//	SOFTGRAPH_LONG=1 go test -run Leak -timeout 30m ./tests/
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
