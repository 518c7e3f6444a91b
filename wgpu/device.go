package wgpu

// #include "native.h"
import "C"

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/rs/zerolog"
)

// Options configures Open. The zero value opens a sensible device: the best
// hardware adapter on Vulkan, Metal or DX12, falling back to OpenGL, with
// the adapter's own limits, timestamp queries where offered, and logging off.
type Options struct {
	// Backend forces a native API. BackendAuto (zero) prefers Vulkan, Metal or
	// DX12 and falls back to OpenGL. SOFTGRAPH_BACKEND sets it when left zero.
	Backend Backend
	// Adapter, when set, picks the adapter whose name, driver or vendor
	// contains it (case-insensitive). SOFTGRAPH_ADAPTER sets it when empty.
	Adapter string
	// ForceFallback picks a software adapter (Mesa lavapipe/llvmpipe, WARP).
	// SOFTGRAPH_FALLBACK=1 sets it.
	ForceFallback bool
	// IgnoreEnv stops the SOFTGRAPH_* variables from filling in the fields above.
	IgnoreEnv bool
	// Logger receives softgraph's structured logs. The zero Logger discards.
	Logger zerolog.Logger
	// NativeLog is how much of wgpu-native's own logging reaches Logger. The
	// zero value passes errors only.
	NativeLog NativeLogLevel
}

// Device is one WebGPU device on one adapter: its queue, its kernels, and
// the counters of the native objects made from it. Everything in softgraph
// that touches the GPU goes through a Device.
//
// A Device is safe for concurrent use. Close waits for calls in progress and
// makes every later call return ErrClosed. If the device is lost, every later
// call returns ErrDeviceLost.
type Device struct {
	id   uintptr
	info AdapterInfo
	log  zerolog.Logger

	// closing guards the native handles: every call holds it for reading
	// while it uses them; Close takes it for writing, so it never releases a
	// device under a call in progress.
	closing sync.RWMutex
	closed  atomic.Bool // set once by Close under closing; read anywhere
	lost    atomic.Pointer[error]

	adapter *wgpu.Adapter // owned; released by Close
	dev     *wgpu.Device  // owned; released by Close
	queue   *wgpu.Queue   // owned; released by Close

	kernelsMu sync.Mutex
	kernels   map[kernelKey]*Kernel // owned; released by Close

	// scopeMu serialises WebGPU error scopes. wgpu-native keeps one scope
	// stack per device, not per thread: a push…pop on two goroutines at
	// once would swap their errors, and a Finish whose error landed in
	// another goroutine's scope would hand out an invalid command buffer,
	// whose submission aborts the process. Every scoped call holds it.
	scopeMu sync.Mutex

	errMu      sync.Mutex
	uncaptured []error // device errors no scope caught, oldest first; drained by TakeErrors

	tsPeriod struct {
		once sync.Once
		ns   float64 // nanoseconds per timestamp tick; 0 until calibrated
		err  error
	}

	deps       dependents
	objs       objects
	live       liveCounters
	lastSubmit atomic.Uint64 // the highest submission index handed out
}

// NativeLogLevel is how verbose wgpu-native's own log is. The zero value
// passes errors only.
type NativeLogLevel uint8

const (
	NativeLogErrors NativeLogLevel = iota
	NativeLogOff
	NativeLogWarnings
	NativeLogInfo
	NativeLogDebug
	NativeLogTrace
)

func (l NativeLogLevel) native() uint32 {
	switch l {
	case NativeLogOff:
		return 0
	case NativeLogWarnings:
		return 2
	case NativeLogInfo:
		return 3
	case NativeLogDebug:
		return 4
	case NativeLogTrace:
		return 5
	}
	return 1
}

// registry maps the ids handed to wgpu-native callbacks back to Devices. A
// callback that arrives after Close (wgpu-native reports the device as lost
// when it is dropped) finds nothing and is ignored.
var registry struct {
	sync.Mutex
	next    uintptr
	devices map[uintptr]*Device
}

func lookupDevice(id uintptr) *Device {
	registry.Lock()
	defer registry.Unlock()
	return registry.devices[id]
}

// Open opens a device as o describes. It fails with an *AdapterError
// (wrapping ErrNoAdapter) listing the adapters it did find when none matches,
// and with an *Error wrapping ErrInvalidArgument for a bad SOFTGRAPH_BACKEND.
func Open(o Options) (*Device, error) {
	o, err := resolveOptions(o)
	if err != nil {
		return nil, err
	}
	c, err := chooseAdapter(o)
	if err != nil {
		return nil, err
	}
	registry.Lock()
	registry.next++
	id := registry.next
	registry.Unlock()

	var features []wgpu.FeatureName
	if c.info.Timestamps {
		features = append(features, wgpu.FeatureNameTimestampQuery)
	}
	dev, err := requestDevice(c.adapter, features, id)
	if err != nil {
		c.adapter.Release()
		return nil, &Error{Op: "Open", Arg: "adapter=" + c.info.Name, Err: fmt.Errorf("%w: %v", ErrInternal, err)}
	}
	d := &Device{
		id:      id,
		info:    c.info,
		log:     o.Logger.With().Str("component", "softgraph/wgpu").Logger(),
		adapter: c.adapter,
		dev:     dev,
		queue:   dev.GetQueue(),
		kernels: map[kernelKey]*Kernel{},
	}
	// The device's limits are what was granted, not what the adapter offered.
	d.info.Limits = deviceLimits(dev)
	registry.Lock()
	if registry.devices == nil {
		registry.devices = map[uintptr]*Device{}
	}
	registry.devices[id] = d
	registry.Unlock()
	pushNativeSink(id, d.log, o.NativeLog)
	d.log.Debug().Str("adapter", d.info.String()).Msg("device opened")
	return d, nil
}

// Info describes the adapter the device was opened on, with the device's
// limits and whether timestamp queries are available.
func (d *Device) Info() AdapterInfo { return d.info }

// Logger is the device's logger, for packages built on it.
func (d *Device) Logger() zerolog.Logger { return d.log }

// Close closes the device's dependents (its recorder streams, which submit
// what they encoded and release their memory and graphs), waits for the
// calls in progress and for the GPU, releases every buffer, bind group,
// encoder and query set still alive, then the kernels, the queue and the
// device. Every later call on the Device or an object made from it returns
// ErrClosed, and later Release calls are no-ops. Close is idempotent (and
// nil-safe) and returns nil. Command buffers finished but not submitted
// must be released before Close.
func (d *Device) Close() error {
	if d == nil || d.closed.Load() {
		return nil
	}
	// Streams first, while the device still works: they submit what they
	// encoded and release their pools, graphs and encoders.
	d.closeDependents()
	d.closing.Lock()
	defer d.closing.Unlock()
	if d.closed.Load() {
		return nil
	}
	d.closed.Store(true)
	registry.Lock()
	delete(registry.devices, d.id)
	registry.Unlock()
	popNativeSink(d.id)
	if d.lost.Load() == nil {
		// Submit the queue's pending writes before dropping the device:
		// wgpu-native v22 dropping a device with queue writes never
		// submitted corrupts the next device created in the process (its
		// first submission fails "a resource with a different device" and
		// aborts). An empty submission flushes them.
		d.queue.Submit()
		d.dev.Poll(true, nil)
	}
	d.releaseObjects()
	d.kernelsMu.Lock()
	for _, k := range d.kernels {
		k.release()
	}
	d.kernels = nil
	d.kernelsMu.Unlock()
	d.queue.Release()
	d.dev.Release()
	d.adapter.Release()
	d.log.Debug().Msg("device closed")
	return nil
}

// enter is how every call starts: it takes the read side of closing and
// fails with ErrClosed or ErrDeviceLost. On success the caller must call
// d.leave() when done with the native handles.
func (d *Device) enter(op string) error {
	if d == nil {
		return opError(op, ErrInvalidArgument, "device is nil")
	}
	d.closing.RLock()
	if err := d.usable(op); err != nil {
		d.closing.RUnlock()
		return err
	}
	return nil
}

func (d *Device) leave() { d.closing.RUnlock() }

// usable is enter's check, for callers already holding closing.
func (d *Device) usable(op string) error {
	if d.closed.Load() {
		return &Error{Op: op, Arg: "device", Err: ErrClosed}
	}
	if lost := d.lost.Load(); lost != nil {
		return &Error{Op: op, Err: *lost}
	}
	return nil
}

// Err reports whether the device is still usable: nil, or an error wrapping
// ErrClosed or ErrDeviceLost.
func (d *Device) Err() error {
	if err := d.enter("Device"); err != nil {
		return err
	}
	d.leave()
	return nil
}

func (d *Device) markLost(why string) {
	err := fmt.Errorf("%w: %s", ErrDeviceLost, why)
	if d.lost.CompareAndSwap(nil, &err) {
		d.log.Error().Str("reason", why).Msg("device lost")
	}
}

// InjectLoss runs the path wgpu-native's device-lost callback runs, with
// the given reason. A real loss cannot be provoked on demand, so tests of
// what happens after one (every call failing with ErrDeviceLost, nothing
// hanging) drive it through this. It is not needed in production code.
func (d *Device) InjectLoss(reason string) { d.markLost("injected: " + reason) }

func (d *Device) addUncaptured(t ErrorType, msg string) {
	err := &DeviceError{Op: "uncaptured", Type: t, Message: msg}
	d.log.Error().Err(err).Msg("uncaptured device error")
	d.errMu.Lock()
	d.uncaptured = append(d.uncaptured, err)
	d.errMu.Unlock()
}

// TakeErrors returns and clears the device errors that no operation's scope
// caught (wgpu-native's uncaptured-error callback), oldest first. A device has
// one queue shared by all its streams, so such an error is reported to the
// first stream that synchronises after it.
func (d *Device) TakeErrors() []error {
	d.errMu.Lock()
	defer d.errMu.Unlock()
	errs := d.uncaptured
	d.uncaptured = nil
	return errs
}

// Submission identifies one queue submission, for Wait.
type Submission uint64

// Submit submits a finished command buffer (an empty one is a no-op that
// returns the last submission index) and releases it. It refuses a closed
// or lost device, releasing the command buffer unsubmitted.
func (d *Device) Submit(cb CommandBuffer) (Submission, error) {
	if err := d.enter("Submit"); err != nil {
		cb.Release()
		return 0, err
	}
	defer d.leave()
	if cb.cb == nil {
		return Submission(d.lastSubmit.Load()), nil
	}
	if cb.dev != d {
		cb.Release()
		return 0, opError("Submit", ErrForeignDevice, "command buffer")
	}
	idx := uint64(C.sg_submit(rawQueue(d.queue), cb.cb))
	d.live.commandBuffers.Add(-1)
	for {
		old := d.lastSubmit.Load()
		if idx <= old || d.lastSubmit.CompareAndSwap(old, idx) {
			break
		}
	}
	return Submission(idx), nil
}

// Write copies data into b at offset through the queue. Queue writes take
// effect before any command buffer submitted after them, and after any
// submitted before: callers that need stream order submit first.
// offset and len(data) must be multiples of 4 and fit in b.
func (d *Device) Write(b *Buffer, offset uint64, data []byte) error {
	if err := d.enter("Write"); err != nil {
		return err
	}
	defer d.leave()
	if err := d.owns("Write", b); err != nil {
		return err
	}
	if offset%4 != 0 || len(data)%4 != 0 {
		return opError("Write", ErrInvalidArgument, "offset=%d len=%d (both must be multiples of 4)", offset, len(data))
	}
	if offset > b.size || uint64(len(data)) > b.size-offset {
		return opError("Write", ErrInvalidArgument, "offset=%d len=%d past the end of a %d-byte buffer", offset, len(data), b.size)
	}
	if len(data) == 0 {
		return nil
	}
	return d.scoped("Write", func() error { return d.queue.WriteBuffer(b.buf, offset, data) })
}

// Wait blocks until the GPU has finished submission s (and everything
// submitted before it), or ctx is done. A context without a deadline or
// cancellation waits in wgpu-native directly; otherwise the wait runs on a
// helper goroutine so a hung GPU cannot hold the caller past ctx.
func (d *Device) Wait(ctx context.Context, s Submission) error {
	if err := d.enter("Wait"); err != nil {
		return err
	}
	if ctx.Done() == nil {
		defer d.leave()
		d.dev.Poll(true, &wgpu.WrappedSubmissionIndex{Queue: d.queue, SubmissionIndex: wgpu.SubmissionIndex(s)})
		return d.usable("Wait")
	}
	if err := ctx.Err(); err != nil {
		d.leave()
		return &Error{Op: "Wait", Err: err}
	}
	done := make(chan struct{})
	go func() {
		defer d.leave()
		defer close(done)
		d.dev.Poll(true, &wgpu.WrappedSubmissionIndex{Queue: d.queue, SubmissionIndex: wgpu.SubmissionIndex(s)})
	}()
	select {
	case <-done:
		if lost := d.lost.Load(); lost != nil {
			return &Error{Op: "Wait", Err: *lost}
		}
		return nil
	case <-ctx.Done():
		return &Error{Op: "Wait", Arg: fmt.Sprintf("submission=%d", s), Err: ctx.Err()}
	}
}

// owns checks that a buffer is live and belongs to d.
func (d *Device) owns(op string, b *Buffer) error {
	if b == nil {
		return opError(op, ErrInvalidArgument, "buffer=nil")
	}
	if b.dev != d {
		return opError(op, ErrForeignDevice, "buffer of %d bytes", b.size)
	}
	if b.released.Load() {
		return opError(op, ErrReleased, "buffer of %d bytes", b.size)
	}
	return nil
}

// LiveObjects counts the native objects made through a Device and not yet
// released: what leak tests watch.
type LiveObjects struct {
	Buffers        int64
	BindGroups     int64
	Encoders       int64
	CommandBuffers int64
	QuerySets      int64
	Kernels        int64
}

type liveCounters struct {
	buffers, bindGroups, encoders, commandBuffers, querySets, kernels atomic.Int64
}

// Live returns the current counts of live native objects.
func (d *Device) Live() LiveObjects {
	return LiveObjects{
		Buffers:        d.live.buffers.Load(),
		BindGroups:     d.live.bindGroups.Load(),
		Encoders:       d.live.encoders.Load(),
		CommandBuffers: d.live.commandBuffers.Load(),
		QuerySets:      d.live.querySets.Load(),
		Kernels:        d.live.kernels.Load(),
	}
}

// Native returns the cogentcore/webgpu device and queue behind d, for
// interop and for hand-written baselines (examples/graphbench's raw path).
// They stay owned by d: do not release them, and do not use them after
// Close. softgraph's ordering and error guarantees do not cover work
// submitted through them.
func (d *Device) Native() (*wgpu.Device, *wgpu.Queue) { return d.dev, d.queue }
