package recorder

// CaptureOption configures Stream.Capture.
type CaptureOption func(*captureConfig)

type captureConfig struct {
	noWarmup bool
}

// WithoutWarmup makes Capture record step without running it first: no
// warmup executes, so a stateful step (one that accumulates, advances a
// position, consumes indirect counts it has not yet written) runs exactly
// as many times as the graph is replayed, and nothing runs on data the
// caller has not prepared.
//
// What the warmup buys, and this option gives up: memory the step
// allocates is taken from the pool in capture mode instead of being primed
// by a first run, and device errors of the step surface at EndCapture
// (whose validation encodes the recording) rather than at BeginCapture.
func WithoutWarmup() CaptureOption {
	return func(c *captureConfig) { c.noWarmup = true }
}
