package wgpu

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels. Every error this package returns wraps exactly one of them, so
// callers branch with errors.Is; the typed errors below carry the details.
var (
	// ErrClosed is returned by any operation on a Device (or an object made
	// from it) after Device.Close, and by package recorder after
	// Stream.Close; the error's argument says which was closed.
	ErrClosed = errors.New("closed")
	// ErrDeviceLost is returned by every operation after the device was lost
	// (driver reset, GPU removed). The Device cannot recover; open a new one.
	ErrDeviceLost = errors.New("device lost")
	// ErrReleased is returned by any operation on an object after its Release.
	ErrReleased = errors.New("object released")
	// ErrNoAdapter: no adapter matched the requested backend, name or
	// fallback setting. The *AdapterError lists the adapters that were found.
	ErrNoAdapter = errors.New("no matching adapter")
	// ErrCompile: a WGSL kernel failed to compile or has no such entry point.
	// The *CompileError holds the compiler's diagnostic.
	ErrCompile = errors.New("kernel compile error")
	// ErrInvalidArgument: an argument was refused on the host before anything
	// reached the device (nil, zero, out of range, misaligned, over a limit).
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrForeignDevice: an object made by one Device was passed to another.
	ErrForeignDevice = errors.New("object belongs to another device")
	// ErrValidation: the device rejected a command (WebGPU validation error).
	ErrValidation = errors.New("device validation error")
	// ErrOutOfMemory: the device could not allocate.
	ErrOutOfMemory = errors.New("device out of memory")
	// ErrInternal: the implementation failed internally.
	ErrInternal = errors.New("device internal error")
)

// Error is a host-side failure of one operation, modelled on io/fs.PathError:
// what was attempted, on which argument, and why (a wrapped sentinel).
type Error struct {
	Op  string // the operation, e.g. "Kernel", "NewBuffer", "Write"
	Arg string // the offending argument and its value, e.g. "size=0"; may be empty
	Err error  // wraps a sentinel of this package
}

func (e *Error) Error() string {
	if e.Arg == "" {
		return e.Op + ": " + e.Err.Error()
	}
	return e.Op + ": " + e.Arg + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// opError builds an *Error; format and args describe the argument.
func opError(op string, sentinel error, format string, args ...any) error {
	return &Error{Op: op, Arg: fmt.Sprintf(format, args...), Err: sentinel}
}

// ErrorType classifies an error the device reported (WebGPU's GPUError kinds).
type ErrorType uint32

const (
	ErrorNone        ErrorType = 0
	ErrorValidation  ErrorType = 1
	ErrorOutOfMemory ErrorType = 2
	ErrorInternal    ErrorType = 3
	ErrorUnknown     ErrorType = 4
	ErrorDeviceLost  ErrorType = 5
)

func (t ErrorType) String() string {
	switch t {
	case ErrorNone:
		return "none"
	case ErrorValidation:
		return "validation"
	case ErrorOutOfMemory:
		return "out-of-memory"
	case ErrorInternal:
		return "internal"
	case ErrorDeviceLost:
		return "device-lost"
	}
	return "unknown"
}

func (t ErrorType) sentinel() error {
	switch t {
	case ErrorValidation:
		return ErrValidation
	case ErrorOutOfMemory:
		return ErrOutOfMemory
	case ErrorDeviceLost:
		return ErrDeviceLost
	}
	return ErrInternal
}

// DeviceError is an error reported by the device (wgpu-native) for one
// operation: a validation failure, an allocation failure, an internal error.
// It matches ErrValidation, ErrOutOfMemory, ErrInternal or ErrDeviceLost with
// errors.Is, according to Type.
type DeviceError struct {
	Op      string    // the operation that reported it, e.g. "Pass.End", "Finish"
	Type    ErrorType // what kind of error
	Message string    // wgpu-native's diagnostic
}

func (e *DeviceError) Error() string {
	return fmt.Sprintf("%s: %s error: %s", e.Op, e.Type, strings.TrimSpace(e.Message))
}

func (e *DeviceError) Unwrap() error { return e.Type.sentinel() }

// cogentcore reports every scoped error as "wgpu.(*X).Method(): message"
// with its type dropped; inside its validation scopes the type is validation.
func validationError(op string, err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "(): "); i >= 0 {
		msg = msg[i+4:]
	}
	return &DeviceError{Op: op, Type: ErrorValidation, Message: msg}
}

// CompileError is a WGSL kernel that did not compile, or an entry point the
// source does not define. It wraps ErrCompile.
type CompileError struct {
	Entry      string // the requested entry point
	Diagnostic string // the compiler's (naga's) message, or ours for a missing entry
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("Kernel: entry %q: %s", e.Entry, strings.TrimSpace(e.Diagnostic))
}

func (e *CompileError) Unwrap() error { return ErrCompile }

// AdapterError is returned by Open when no adapter matches what was asked
// for. It wraps ErrNoAdapter and lists what was found, so the message answers
// "what do I have instead?".
type AdapterError struct {
	Want  string        // what was asked for, e.g. `backend=metal adapter="H200"`
	Found []AdapterInfo // every adapter enumerated, on every backend tried
}

func (e *AdapterError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Open: no adapter matches %s; found ", e.Want)
	if len(e.Found) == 0 {
		b.WriteString("none (is a Vulkan, Metal, DX12 or OpenGL driver installed? on headless Linux: apt-get install mesa-vulkan-drivers libvulkan1)")
	}
	for i, a := range e.Found {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(a.String())
	}
	return b.String()
}

func (e *AdapterError) Unwrap() error { return ErrNoAdapter }
