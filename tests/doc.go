// Package tests is softgraph's end-to-end reliability suite: test files
// only, run on a real adapter (Mesa lavapipe on CI), never a mock.
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
//   - fuzz_test.go: FuzzStreamOps drives random sequences of stream
//     operations against a plain-Go model of the lifecycle and the buffers.
//   - concurrency_test.go: many goroutines on many streams of one device,
//     and Close of a stream or of the device while they run.
//   - leak_test.go: long replay and capture/release runs keep pools, live
//     native objects and the Go heap flat.
//   - device_test.go: a closed or lost device fails every call at once;
//     contexts bound Sync and Read.
//
// The default run is short (a few seconds on lavapipe):
//
//	go test -race ./tests/
//
// The long leak runs (100,000 replays, 10,000 capture cycles):
//
//	SOFTGRAPH_LONG=1 go test -run Leak -timeout 30m ./tests/
//
// Fuzzing:
//
//	go test -run XXX -fuzz=FuzzStreamOps -fuzztime=60s ./tests/
//
// Without an adapter the tests skip, unless SOFTGRAPH_REQUIRE_GPU=1, where
// they fail. Tests that close a device before the objects made from it run
// in a fresh process of the test binary, which then opens a new device and
// computes, so damage to wgpu-native's process-wide state shows as that
// test's failure.
package tests
