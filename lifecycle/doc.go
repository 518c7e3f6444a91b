// Package lifecycle owns the ordering rule of graph capture on a stream:
// NoCapture → Prepare → Capture → NoCapture, and nothing else.
//
// It is a Go rendering of cubecl-runtime's StreamCaptureState. The rule lives
// here, in one small value type, because it is the same for every stream: the
// recorder supplies only the work a transition brackets (arming pools,
// submitting the warmup, sealing a graph) and asks State whether each step is
// allowed. Nothing else in softgraph re-checks the order.
//
// What it never does: touch a GPU, allocate, lock, or log. A State is a
// single byte; the zero value is NoCapture. It is not safe for concurrent use:
// the stream that owns it guards it with its own mutex.
//
// Costs: every method is a switch on one byte.
package lifecycle
