// Package lockrank gives the recorder's and the wgpu package's mutexes a
// rank, so that the lock order written in docs/design.md ("Lock order") is
// checked, not only stated.
//
// The rule: a goroutine may take a lock only while every lock it already
// holds has a lower rank. Two locks of one rank are never held together
// (two streams' locks, say): work that spans streams takes their locks one
// at a time. wgpu-core's lock/rank.rs is the model.
//
// In ordinary builds a [Mutex] is a sync.Mutex with a rank beside it and
// costs nothing more. Built with the lockrank tag (`go test -tags lockrank`,
// which CI runs), every Lock checks the rule against the locks the calling
// goroutine holds and panics with both ranks' names when it is broken, so a
// test that exercises an out-of-order path fails where it happens.
package lockrank

// Rank orders locks: lower ranks are taken first.
type Rank uint8

// The ranks, outermost first: the rows of docs/design.md's lock table.
const (
	// Stream is a stream's lock (Stream.mu).
	Stream Rank = iota + 1
	// Streams is the device's list of streams (deviceStreams.mu).
	Streams
	// Handle is a Buffer's, Texture's or Sampler's release flag, and a
	// stream's set of caller handles.
	Handle
	// Pool is a stream's memory pool (internal/pool's Pool.mu).
	Pool
	// Submitter is a stream's submitter queue (internal/submitq's Queue.mu).
	Submitter
	// Ramp is a stream's ramp worker (internal/engine's RampWorker.mu): the
	// steps it encodes. Command buffers it drops are released after it is
	// let go, since a release is a driver call.
	Ramp
	// Kernels is a wgpu.Device's kernel cache (kernelsMu), held while a
	// kernel compiles.
	Kernels
	// Scope is a wgpu.Device's error-scope lock (scopeMu; exclusive for a
	// scoped call, shared for calls in shared mode).
	Scope
	// Submission is a wgpu.Device's submission scratch (submitMu), held
	// while it submits and drops the command buffers' records.
	Submission
	// GL is the process's lock on wgpu-hal's GL context (wgpu's
	// glContext, a Device's glMu on OpenGL), held around native calls that
	// take the context.
	GL
	// Driver is a driver implementation's own state: internal/driver/fake's
	// device and kernel locks, a driver.Locals. A call into the driver may
	// take it, so it ranks below every lock held across such a call.
	Driver
	// Native is a wgpu lock around a few fields, taken inside native calls'
	// callbacks too: a Device's command-buffer records (cbMu), uncaptured
	// errors (errMu), poll in progress, orphaned map words and live
	// objects, and the process's device registry, log sinks, buffer owners
	// and instances.
	Native
)

// leaf marks the ranks held while taking no other ranked lock (the table's
// "held while taking: nothing"): a lock of a leaf rank guards a few fields
// and calls out to nothing that locks.
var leaf = [...]bool{Handle: true, Submitter: true, Ramp: true, Native: true}

// Leaf reports whether r is held while taking nothing.
func (r Rank) Leaf() bool { return int(r) < len(leaf) && leaf[r] }

var rankNames = [...]string{Stream: "Stream", Streams: "Streams", Handle: "Handle", Pool: "Pool", Submitter: "Submitter", Ramp: "Ramp", Kernels: "Kernels", Scope: "Scope", Submission: "Submission", GL: "GL", Driver: "Driver", Native: "Native"}

func (r Rank) String() string {
	if int(r) < len(rankNames) && rankNames[r] != "" {
		return rankNames[r]
	}
	return "Rank(?)"
}
