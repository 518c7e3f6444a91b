package wgpu

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/softgraph/softgraph/internal/driver"
)

// Sentinels. Every error this package returns wraps exactly one of them, so
// callers branch with errors.Is; the typed errors below carry the details.
var (
	// ErrClosed is returned by any operation on a Device (or an object made
	// from it) after Device.Close, and by package recorder after
	// Stream.Close; the error's argument says which was closed.
	ErrClosed = driver.ErrClosed
	// ErrDeviceLost is returned by every operation after the device was lost
	// (driver reset, GPU removed). The Device cannot recover; open a new one.
	ErrDeviceLost = driver.ErrDeviceLost
	// ErrReleased is returned by any operation on an object after its Release.
	ErrReleased = driver.ErrReleased
	// ErrNoAdapter: no adapter matched the requested backend, name or
	// fallback setting. The *AdapterError lists the adapters that were found.
	ErrNoAdapter = errors.New("no matching adapter")
	// ErrCompile: a WGSL kernel failed to compile or has no such entry point.
	// The *CompileError holds the compiler's diagnostic.
	ErrCompile = driver.ErrCompile
	// ErrInvalidArgument: an argument was refused on the host before anything
	// reached the device (nil, zero, out of range, misaligned, over a limit).
	ErrInvalidArgument = driver.ErrInvalidArgument
	// ErrForeignDevice: an object made by one Device was passed to another.
	ErrForeignDevice = driver.ErrForeignDevice
	// ErrValidation: the device rejected a command (WebGPU validation error).
	ErrValidation = driver.ErrValidation
	// ErrOutOfMemory: the device could not allocate.
	ErrOutOfMemory = driver.ErrOutOfMemory
	// ErrInternal: the implementation failed internally.
	ErrInternal = driver.ErrInternal
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
		return "wgpu: " + e.Op + ": " + e.Err.Error()
	}
	return "wgpu: " + e.Op + ": " + e.Arg + ": " + e.Err.Error()
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
	return fmt.Sprintf("wgpu: %s: %s error: %s", e.Op, e.Type, strings.TrimSpace(e.Message))
}

func (e *DeviceError) Unwrap() error { return e.Type.sentinel() }

// cogentcore reports every scoped error as "wgpu.(*X).Method(): message"
// with its type dropped; inside its validation scopes the type is
// validation, unless the message is an allocation failure (deviceError).
func validationError(op string, err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "(): "); i >= 0 {
		msg = msg[i+4:]
	}
	return deviceError(op, ErrorValidation, msg)
}

// outOfMemoryMessage is the text of wgpu-core's allocation failures:
// DeviceError::OutOfMemory ("Not enough memory left.", what wgpu-hal's
// allocator's "out of device memory" and Vulkan's
// VK_ERROR_OUT_OF_DEVICE_MEMORY become) and the create-device,
// request-device, texture-view and render-pass variants ("Not enough memory
// left to ...", "... for render pass").
const outOfMemoryMessage = "Not enough memory left"

// deviceError is the one constructor of errors the device reported: a
// *DeviceError of type t, except that a validation error whose message is
// an allocation failure is an out-of-memory error. Why: wgpu-native v22
// classifies an error as out-of-memory only when a DeviceError::OutOfMemory
// is among its sources, and wgpu-core wraps it transparently
// (CreateBufferError::Device is #[error(transparent)]), which hides it from
// that search; so a buffer too large for the device's memory came back as
// ErrValidation "Not enough memory left." (measured on the H200's Vulkan
// for every Empty from 4 GiB up).
func deviceError(op string, t ErrorType, msg string) *DeviceError {
	if t == ErrorValidation && strings.Contains(msg, outOfMemoryMessage) {
		t = ErrorOutOfMemory
	}
	return &DeviceError{Op: op, Type: t, Message: msg}
}

// CompileError is a WGSL kernel that did not compile, an entry point the
// source does not define, or a kernel over the device's limits. It wraps
// ErrCompile.
type CompileError struct {
	Entry      string // the requested entry point
	Label      string // the kernel's label (WithLabel), "" without one
	Diagnostic string // the compiler's (naga's) message, or softgraph's front-end's
	// Hint, when set, says what to change for the bundled compiler's known
	// gaps (it predates WGSL's abstract-integer conversions).
	Hint string
}

func (e *CompileError) Error() string {
	// The label first: generated code (gosl) names every entry point
	// main, and only the label tells its kernels apart.
	kernel := "Kernel"
	if e.Label != "" {
		kernel = fmt.Sprintf("Kernel %q", e.Label)
	}
	msg := fmt.Sprintf("wgpu: %s: entry %q: %s", kernel, e.Entry, strings.TrimSpace(e.Diagnostic))
	if e.Hint != "" {
		msg += "\nhint: " + e.Hint
	}
	return msg
}

func (e *CompileError) Unwrap() error { return ErrCompile }

// abstractIntSymptoms are fragments of the bundled compiler's diagnostics
// when it cannot convert an unsuffixed integer literal to the type the
// context needs (measured on its naga: `atomicAdd(&c, 1)` "has invalid
// type", `case 1:` over a u32 "expected unsigned integer", `const N = 2;`
// compared with a u32 "can't work with", `const A = array(1, 2)` passed as
// an array<u32, 2> "doesn't match the type").
var abstractIntSymptoms = []string{
	"has invalid type",
	"doesn't match the type",
	"expected unsigned integer",
	"expected signed integer",
	"can't work with",
	"suffix the integer",
	"automatic conversion",
	"type mismatch",
}

var (
	diagSpan       = regexp.MustCompile(`┌─ [^:\n]*:(\d+):(\d+)[\s\S]*?\n[^\n]*│[^\n^]*(\^+)`)
	unsuffixedInts = regexp.MustCompile(`(^|[^\w.@])\d+([^\w.]|$)`)
	floatLiterals  = regexp.MustCompile(`\d\.|\.\d|\d[eE][+-]?\d|(^|\W)\d+[fh]\b|0[xX][0-9a-fA-F]*[pP]`)
	indexes        = regexp.MustCompile(`\[[^\]]*\]`)
	templateLists  = regexp.MustCompile(`\b\w+<[^<>()]*>`)
	untypedConsts  = regexp.MustCompile(`const\s+(\w+)\s*=([^;]*)`)
	identifiers    = regexp.MustCompile(`[A-Za-z_]\w*`)
)

// abstractIntHint explains the bundled WGSL compiler's most common refusal
// of valid modern WGSL: it predates WGSL's conversion of abstract integers,
// so an unsuffixed literal where the spec converts it to u32 or i32 (`case
// 1:` over a u32, `atomicAdd(&c, 1)`, `const N = 2;` compared with a u32)
// fails to compile. The hint is given only when the diagnostic has one of
// those symptoms and the code it points at has an unsuffixed integer
// literal or an untyped const of abstract integers. The symptoms are
// generic ("Argument 0 value [3] doesn't match the type [5]" is also what
// naga v22 says for an f32 array of the wrong length, or an abstract float
// const passed as a u32), so what cannot be an abstract integer does not
// count: element counts in template lists (array<f32, 3>), indices, and a
// const whose initializer has a float literal (const X = 1.5, an array of
// vec3(1.0, 0.0, 0.0)) or no unsuffixed integer.
func abstractIntHint(diag, source string) string {
	d := strings.ToLower(diag)
	symptom := false
	for _, f := range abstractIntSymptoms {
		if strings.Contains(d, f) {
			symptom = true
			break
		}
	}
	m := diagSpan.FindStringSubmatch(diag)
	if !symptom || source == "" || m == nil {
		return ""
	}
	lines := strings.Split(source, "\n")
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	if line < 1 || line > len(lines) || col < 1 || col > len(lines[line-1])+1 {
		return ""
	}
	span := lines[line-1][col-1:]
	if n := len(m[3]); n < len(span) {
		span = span[:n]
	}
	abstract := abstractInts(span)
	// An untyped const holds abstract integers when its initializer has
	// no float literal and has an unsuffixed integer or names such a
	// const (const M = N), declared before or after it.
	inits := map[string]string{}
	for _, c := range untypedConsts.FindAllStringSubmatch(source, -1) {
		inits[c[1]] = c[2]
	}
	ints := map[string]bool{}
	var holdsInts func(name string) bool
	holdsInts = func(name string) bool {
		v, done := ints[name]
		init, ok := inits[name]
		if done || !ok {
			return v
		}
		ints[name] = false // a cycle, not valid WGSL, ends here
		if floatLiterals.MatchString(init) {
			return false
		}
		v = abstractInts(init)
		for _, id := range identifiers.FindAllString(init, -1) {
			v = v || holdsInts(id)
		}
		ints[name] = v
		return v
	}
	for _, id := range identifiers.FindAllString(span, -1) {
		abstract = abstract || holdsInts(id)
	}
	if !abstract {
		return ""
	}
	return "this WGSL compiler needs explicit u/i suffixes on integer literals where the type is u32 or i32 (write 1u, not 1; `const N: u32 = 2u;`): it predates WGSL's automatic conversion of abstract integers"
}

// abstractInts reports whether code has an unsuffixed integer literal
// outside indices and template lists.
func abstractInts(code string) bool {
	code = indexes.ReplaceAllString(code, "")
	for {
		// Innermost lists first: array<vec3<f32>, 2> is two.
		stripped := templateLists.ReplaceAllString(code, "")
		if stripped == code {
			break
		}
		code = stripped
	}
	return unsuffixedInts.MatchString(code)
}

// AdapterError is returned by Open when no adapter matches what was asked
// for, or none of those that match works. It wraps ErrNoAdapter and lists
// what was found, so the message answers "what do I have instead?"; each
// backend that could not start says what is missing and what to install or
// set, and with nothing found and no such reason it gives a hint for this
// operating system.
type AdapterError struct {
	Want   string        // what was asked for, e.g. `backend=metal adapter="H200"`
	Found  []AdapterInfo // every adapter enumerated, on every backend tried
	Failed []string      // adapters that matched but could not run a kernel, with why
	// Unavailable lists the backends tried that offered no adapter, each
	// as "backend: why", naming what is missing and what to install or
	// set, e.g. "gl: EGL gave no default display ...: install
	// libegl-mesa0 ...". OpenGL is listed when softgraph did not start it
	// because wgpu-native would have aborted the process (see Open).
	Unavailable []string
}

func (e *AdapterError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "wgpu: Open: no adapter matches %s; found ", e.Want)
	switch {
	case len(e.Found) == 0 && len(e.Unavailable) > 0:
		b.WriteString("none")
	case len(e.Found) == 0:
		fmt.Fprintf(&b, "none (%s)", noAdapterHint(runtime.GOOS))
	}
	for i, a := range e.Found {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(a.String())
	}
	if len(e.Failed) > 0 {
		b.WriteString("; none of the matching adapters could run a compute kernel: ")
		b.WriteString(strings.Join(e.Failed, "; "))
	}
	for _, u := range e.Unavailable {
		b.WriteString("; unavailable: ")
		b.WriteString(u)
	}
	return b.String()
}

func (e *AdapterError) Unwrap() error { return ErrNoAdapter }

// noAdapterHint tells a user on goos how to get an adapter.
func noAdapterHint(goos string) string {
	switch goos {
	case "linux":
		return "is a Vulkan or OpenGL driver installed? on Debian or Ubuntu: apt-get install mesa-vulkan-drivers libvulkan1 (GPU drivers or Mesa's lavapipe), and libegl1 libegl-mesa0 libgl1-mesa-dri for the OpenGL fallback"
	case "windows":
		return "install or update your GPU vendor's driver (NVIDIA, AMD or Intel), which brings Vulkan and DX12; without a GPU, SOFTGRAPH_FALLBACK=1 picks a software adapter such as WARP"
	case "darwin", "ios":
		return "Metal is built into macOS and iOS; this usually means the process has no access to the GPU (a sandbox or a virtual machine without Metal)"
	case "android":
		return "the device offers no Vulkan or OpenGL ES driver to this process"
	}
	return "is a Vulkan, Metal, DX12 or OpenGL driver installed?"
}
