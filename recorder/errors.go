package recorder

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// The recorder's errors wrap the device layer's sentinels, so one
// errors.Is test works whichever layer refused:
//
//   - wgpu.ErrInvalidArgument: a bad argument, refused before anything was enqueued
//   - wgpu.ErrReleased: a released Buffer or Graph
//   - wgpu.ErrClosed: a closed Stream (or its Device)
//   - wgpu.ErrForeignDevice: a Buffer or Kernel of another device
//   - wgpu.ErrDeviceLost, wgpu.ErrValidation, wgpu.ErrOutOfMemory: from the device
//   - lifecycle.ErrGraphState: refused because of the capture lifecycle
var (
	ErrInvalidArgument = wgpu.ErrInvalidArgument
	ErrReleased        = wgpu.ErrReleased
	ErrClosed          = wgpu.ErrClosed
	ErrForeignDevice   = wgpu.ErrForeignDevice
)

// Error is a refused stream operation: what was attempted, on which argument
// and why (a wrapped sentinel). It is returned on the spot; nothing was
// enqueued.
//
// Its message is one scheme for every operation: "recorder: " then the
// operation, then (for a launch) the kernel, then the argument, then the
// cause, each after ": " —
//
//	recorder: Launch: kernel "blur" (entry point main): argument 1 (@group(0) @binding(1) dst, storage) was released: released
type Error struct {
	Op string // the operation, as lifecycle.Op names it: "Launch", "Write", "Read", ...
	// Kernel names the kernel of a launch (or of a graph file's dispatch):
	// `"label" (entry point main)`, or `"main"` for a kernel without a
	// label (wgpu.WithLabel). Empty for other operations and for a launch
	// of a nil kernel.
	Kernel string
	Arg    string // the offending argument and its value; may be empty
	Err    error  // wraps a sentinel
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("recorder: ")
	b.WriteString(e.Op)
	if e.Kernel != "" {
		b.WriteString(": kernel ")
		b.WriteString(e.Kernel)
	}
	if e.Arg != "" {
		b.WriteString(": ")
		b.WriteString(e.Arg)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// errKernelName is how an Error names a kernel: `"label" (entry point
// main)`, or `"main"` when it has no label (or the label is its entry
// point).
func errKernelName(label, entry string) string {
	if label == "" || label == entry {
		return strconv.Quote(entry)
	}
	return strconv.Quote(label) + " (entry point " + entry + ")"
}

// launchError names kernel k in err, an error about a launch of k: an
// *Error gets k in a copy (its Kernel field, if empty), any other error is
// wrapped in an *Error of op naming k. A nil k, or an err that names it
// already, is returned as it is.
func launchError(op lifecycle.Op, k driver.KernelHandle, err error) error {
	if err == nil || k == nil {
		return err
	}
	name := errKernelName(k.Label(), k.Entry())
	if e, ok := err.(*Error); ok {
		if e.Kernel != "" {
			return err
		}
		c := *e
		c.Kernel = name
		return &c
	}
	return &Error{Op: op.String(), Kernel: name, Err: err}
}

func (e *Error) Unwrap() error { return e.Err }

func argError(op lifecycle.Op, sentinel error, format string, args ...any) error {
	return &Error{Op: op.String(), Arg: fmt.Sprintf(format, args...), Err: sentinel}
}

// DeferredError is a device error that surfaced after the call that caused
// it returned: at a flush, when the device validated a batch. It is queued
// on the stream and returned by the next Sync, Read, EndProfile or
// EndCapture. Lost says how many dispatches of the failed batch were
// dropped with it (launches and replayed graphs' dispatches alike): a
// command the device refuses invalidates its whole command buffer.
type DeferredError struct {
	Op   string // where it surfaced: "Flush", "EndCapture"
	Lost int    // dispatches dropped with the failed batch
	Err  error  // the device's error (a *wgpu.DeviceError)
}

func (e *DeferredError) Error() string {
	if e.Lost > 0 {
		return fmt.Sprintf("recorder: %s: %d dispatch(es) lost: %v", e.Op, e.Lost, e.Err)
	}
	return fmt.Sprintf("recorder: %s: %v", e.Op, e.Err)
}

func (e *DeferredError) Unwrap() error { return e.Err }

// CaptureError is a capture that failed to open (BeginCapture: the warmup
// reported errors) or to seal (EndCapture: an error was queued inside the
// window, such as a write rejected while recording, or the recorded launches
// failed device validation). The stream is back in NoCapture and usable.
// It matches lifecycle.ErrGraphState and each of its causes with errors.Is.
type CaptureError struct {
	Op     string  // "BeginCapture", "EndCapture", or "Capture" (its step ended its window and began another)
	Causes []error // what was queued, oldest first
}

func (e *CaptureError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "recorder: %s: capture failed; stream is back in %s: ", e.Op, lifecycle.NoCapture)
	for i, c := range e.Causes {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.Error())
	}
	return b.String()
}

// Unwrap returns lifecycle.ErrGraphState followed by the causes.
func (e *CaptureError) Unwrap() []error {
	return append([]error{lifecycle.ErrGraphState}, e.Causes...)
}

// StepError is the error a Capture step returned, with the run it failed
// in. The stream is back in NoCapture when Capture returns it.
type StepError struct {
	Run string // "warmup" (executed) or "recorded"
	Err error  // what the step returned
}

func (e *StepError) Error() string {
	return fmt.Sprintf("recorder: Capture: %s step: %v", e.Run, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// joinErrors returns nil, the only error, or errors.Join of them (oldest
// first), so a single deferred error reaches the caller unwrapped.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}
