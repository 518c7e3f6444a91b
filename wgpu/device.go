package wgpu

// #include <stdlib.h>
// #include "native.h"
import "C"

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/softgraph/softgraph/internal/envswitch"
	"github.com/softgraph/softgraph/internal/lockrank"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/internal/driver"
)

// Options configures Open (and Adopt, which reads only Logger, NativeLog,
// NativeAdapter and Backend). The zero value opens a sensible device: the best
// hardware adapter on the platform's primary backend, falling back to the
// others and then to software adapters, with the adapter's own limits,
// timestamp queries where offered, and logging off.
type Options struct {
	// Backend forces a native API. BackendAuto (zero) ranks the adapters of
	// every backend (see Open). SOFTGRAPH_BACKEND sets it when left zero.
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
	// NativeAdapter is, for Adopt only, the adapter the adopted device was
	// requested from (Cogent Core: gpu.GPU.GPU). Adopt reads the device's
	// name, backend and type from it, because wgpu-native cannot ask a
	// device for its adapter; it never releases it. Open ignores it.
	NativeAdapter *wgpu.Adapter
}

// Device is one WebGPU device on one adapter: its queue, its kernels, and
// every native object made from it. Everything in softgraph that touches
// the GPU goes through a Device.
//
// A Device is safe for concurrent use. Close waits for the calls in
// progress, then makes every later call on the device, or on anything made
// from it, return an error wrapping ErrClosed. After a device loss every
// call returns an error wrapping ErrDeviceLost.
type Device struct {
	id   uintptr
	info AdapterInfo
	log  zerolog.Logger

	// use admits every call that touches native handles; Close waits for
	// the calls inside before releasing anything.
	use    gate
	closed chan struct{} // closed once Close has finished
	lost   atomic.Pointer[error]

	// adopted says the device is the application's (Adopt): Close then
	// releases softgraph's own reference on it (taken by Adopt) instead of
	// dev, and there is no adapter.
	adopted bool
	adapter *wgpu.Adapter // owned; released by Close; nil when adopted
	dev     *wgpu.Device  // owned and released by Close, unless adopted (the application's handle)
	queue   *wgpu.Queue   // owned (a reference of its own, also when adopted); released by Close
	raw     C.WGPUDevice
	rawQ    C.WGPUQueue
	done    *C.sg_done // completion record; C memory, freed by Close

	// glBarrier is the barrier kernel of an OpenGL device (glbarrier.go);
	// nil elsewhere.
	glBarrier *glBarrier

	// freedSincePoll counts buffers and textures released since triage
	// last polled (triage).
	freedSincePoll atomic.Int32

	// polling is the OpenGL poll in progress on a goroutine (poll).
	polling struct {
		lockrank.Mutex // lockrank.Native
		ch             chan struct{}
	}

	// orphans are map status words of released buffers whose abandoned
	// read may still complete: freed by Close once the device is gone.
	orphans struct {
		lockrank.Mutex // lockrank.Native
		status         []*C.uint32_t
	}

	kernelsMu lockrank.Mutex        // lockrank.Kernels
	kernels   map[kernelKey]*Kernel // the cache; each entry owned by the cache until Kernel.Release
	// private are the live kernels made with Private, outside the cache,
	// so that Close releases them too: one left alive past its device
	// (LoadGraph's, a fused graph's, on a stream the caller never closed)
	// made the next device's first submission abort (objects).
	private map[*Kernel]struct{}

	// scopeMu serialises WebGPU error scopes. wgpu-native keeps one scope
	// stack per device, not per thread: a push…pop on two goroutines at
	// once would swap their errors, and a Finish whose error landed in
	// another goroutine's scope would hand out an invalid command buffer,
	// whose submission aborts the process. Every scoped call holds it
	// exclusively. Calls in shared mode (sharedScopes) hold it shared: they
	// push no scope, so they may run at once with each other, never with a
	// scoped call, whose scope would catch their errors.
	scopeMu lockrank.RWMutex // lockrank.Scope

	// sharedScopes: Finish and Prepare run in shared mode (native.c,
	// sg_shared): a device softgraph requested, whose uncaptured-error
	// callback is softgraph's own, on a backend other than OpenGL (whose
	// calls wait for one context anyway). Not on an adopted device: its
	// uncaptured-error callback is the application's, and the application
	// may push scopes of its own. SOFTGRAPH_SHARED_FINISH=0 turns it off.
	// Set by Open; cleared for good once a native object goes to the
	// application (leaveSharedMode), whose calls on it push scopes without
	// the scope lock. Read under scopeMu held shared (sharedCall).
	sharedScopes atomic.Bool

	// glMu is, on OpenGL only, the device's own lock on wgpu-hal's GL
	// context: every native call that takes that context holds it —
	// submits and polls (the driver runs or finishes work there), making
	// buffers, textures, samplers, query sets and pipelines, queue writes,
	// maps and unmaps (d.scoped), and releasing any object whose last
	// reference may free a GL object (buffers, textures, samplers, query
	// sets, bind groups, kernels, programs, encoders, command buffers).
	// Recording commands into an encoder does not take the context and
	// does not hold it. Why: wgpu-hal waits for the GL context at most one
	// second and then aborts the process ("Could not lock adapter context.
	// This is most-likely a deadlock."), which a buffer made while another
	// goroutine's submit ran seconds of GPU work did; and it makes a
	// pipeline under a try_lock of its program cache and panics if that is
	// taken ("Couldn't acquire program_cache lock"). Waiting here instead
	// waits as long as the work, never aborts. It points to the
	// process-wide glContext, not a lock of the device's own: every GL
	// adapter of the process shares one EGL context (see OpenAll), so two
	// GL Devices taking it at once would collide just as two goroutines of
	// one would. Order: scopeMu, then glMu; nothing else is taken while it
	// is held. Set once by Open or Adopt; nil on the other backends.
	glMu *lockrank.Mutex // lockrank.GL

	// pollGap is the least time between two polls of a wait while it
	// spins (glPollGap on a hardware OpenGL adapter, none elsewhere).
	pollGap time.Duration

	errMu      lockrank.Mutex // lockrank.Native
	uncaptured []error        // device errors no scope caught, oldest first; drained by TakeErrors

	tsPeriod struct {
		once sync.Once
		ns   float64 // nanoseconds per timestamp tick; 0 until calibrated
		err  error
	}

	// cbMu guards cbs: every finished command buffer not yet submitted or
	// dropped. Submit takes only what is in it, so a command buffer can
	// never be submitted twice or after its device went (both abort inside
	// wgpu-native).
	cbMu   lockrank.Mutex // lockrank.Native
	cbs    map[uintptr]*cbRecord
	cbFree []*cbRecord // records to reuse

	// submitMu guards the submission scratch: Go-side lists and the C array
	// the handles are passed in (grown, never shrunk; freed by Close).
	submitMu   lockrank.Mutex // lockrank.Submission
	submitRaws []C.WGPUCommandBuffer
	submitRecs []*cbRecord
	submitC    *C.WGPUCommandBuffer
	submitCap  int

	objs       objects
	live       liveCounters
	lastSubmit atomic.Uint64 // the highest submission index handed out

	locals     driver.Locals                 // what the recorder keeps per device; dropped with the Device
	driverInfo driver.Info                   // Info() as the driver reports it; set at open
	view       *driverView                   // the driver.Device of this device
	override   atomic.Pointer[driver.Device] // a wrapper of view installed by a test (driver.Override)
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
var registry = struct {
	lockrank.Mutex
	next    uintptr
	devices map[uintptr]*Device
}{Mutex: lockrank.Mutex{Rank: lockrank.Native}}

func lookupDevice(id uintptr) *Device {
	registry.Lock()
	defer registry.Unlock()
	return registry.devices[id]
}

// Open opens a device as o describes. With no adapter named, it ranks the
// adapters found (see Adapters) and opens the first one that works: an
// adapter whose backend cannot compile a compute kernel (DX12 under wine,
// say) is skipped with a logged warning, and the next one is tried.
//
// A broken driver install never aborts the process. Before wgpu-native
// starts OpenGL, softgraph checks in its own C that EGL can give and
// initialise the display wgpu-hal will ask for (wgpu-hal panics, aborting
// the process, when EGL has no vendor library); when it cannot, OpenGL is
// left out and offers no adapter, so a machine with lavapipe still opens
// it. A backend that offers no adapter (no Vulkan driver, an ICD that does
// not load, EGL with no vendor) is named in the error's Unavailable with
// what is missing and what to install or set.
//
// It fails with an *AdapterError (wrapping ErrNoAdapter) listing the
// adapters it did find and the backends that could not start when none
// matches or none works, and with an *Error wrapping ErrInvalidArgument
// for a bad SOFTGRAPH_BACKEND.
func Open(o Options) (*Device, error) {
	if handleLayoutErr != nil {
		return nil, handleLayoutErr
	}
	o, err := resolveOptions(o)
	if err != nil {
		return nil, err
	}
	log := o.Logger.With().Str("component", "softgraph/wgpu").Logger()
	ranked, all, err := chooseAdapters(o)
	if err != nil {
		return nil, err
	}
	var failures []string
	for i, c := range ranked {
		d, err := openOn(c, log, o.NativeLog)
		if err == nil {
			err = d.probe()
			if err != nil {
				d.Close()
			}
		}
		if err == nil {
			for _, rest := range ranked[i+1:] {
				rest.release()
			}
			return d, nil
		}
		log.Warn().Str("adapter", c.info.String()).Err(err).Msg("adapter cannot run compute kernels; trying the next one")
		failures = append(failures, fmt.Sprintf("%s: %v", c.info, err))
	}
	return nil, &AdapterError{Want: wantString(o), Found: all, Failed: failures}
}

// openOn opens a device on the chosen candidate; the adapter's ownership
// passes to the Device (or is released on failure).
func openOn(c candidate, log zerolog.Logger, level NativeLogLevel) (*Device, error) {
	registry.Lock()
	registry.next++
	id := registry.next
	registry.Unlock()

	var features []wgpu.FeatureName
	if c.info.Timestamps {
		features = append(features, wgpu.FeatureNameTimestampQuery)
	}
	if c.adapter.HasFeature(wgpu.NativeFeatureTextureAdapterSpecificFormatFeatures) {
		// Without it wgpu refuses read-only and read-write storage
		// textures (texture_storage_2d<r32float, read_write>, as Bevy's
		// Game of Life declares) when the layout is made.
		features = append(features, wgpu.NativeFeatureTextureAdapterSpecificFormatFeatures)
	}
	var dev *wgpu.Device
	var err error
	onGLContext(c.info.Backend, func() { dev, err = requestDevice(c.adapter, features, id) })
	if err != nil {
		c.release()
		return nil, &Error{Op: "Open", Arg: "adapter=" + c.info.Name, Err: fmt.Errorf("%w: %v", ErrInternal, err)}
	}
	d := &Device{
		id:      id,
		info:    c.info,
		log:     log,
		use:     newGate(),
		closed:  make(chan struct{}),
		adapter: c.adapter,
		dev:     dev,
		queue:   dev.GetQueue(),
		done:    C.sg_done_new(),
		kernels: map[kernelKey]*Kernel{},
		cbs:     map[uintptr]*cbRecord{},
		glMu:    glLock(c.info.Backend),
	}
	d.rankLocks()
	d.raw = rawDevice(dev)
	d.rawQ = rawQueue(d.queue)
	d.view = &driverView{d: d}
	// The device's limits are what was granted, not what the adapter
	// offered, with the buffer sizes lowered to what one allocation can
	// hold (allocationCap).
	d.info.Limits = capLimits(deviceLimits(dev), allocationCap(c.adapter.GetInfo()))
	d.pollGap = pollGapFor(c.info)
	on, set := envswitch.Read("SOFTGRAPH_SHARED_FINISH")
	d.sharedScopes.Store(c.info.Backend != BackendGL && (on || !set))
	d.driverInfo = driverInfoOf(d.info)
	d.driverInfo.ConcurrentFinish = d.sharedScopes.Load()
	registry.Lock()
	if registry.devices == nil {
		registry.devices = map[uintptr]*Device{}
	}
	registry.devices[id] = d
	registry.Unlock()
	pushNativeSink(id, d.log, level)
	if err := d.initGLBarrier("Open"); err != nil {
		d.Close()
		return nil, err
	}
	d.log.Debug().Str("adapter", d.info.String()).Msg("device opened")
	return d, nil
}

// probeWGSL is the smallest kernel that exercises a backend's compute
// shader compiler.
const probeWGSL = `@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@compute @workgroup_size(1) fn main() { x[0] = x[0] + 1u; }`

// probe compiles a kernel: a backend that opens devices but cannot build
// compute pipelines (DX12 under wine lacks a shader compiler) fails here,
// before the caller's first kernel.
func (d *Device) probe() error {
	k, err := d.Kernel(probeWGSL, "main")
	if err != nil {
		return err
	}
	k.Release()
	return nil
}

// Info describes the adapter the device was opened on, with the device's
// limits and whether timestamp queries are available.
func (d *Device) Info() AdapterInfo {
	if d == nil {
		return AdapterInfo{}
	}
	return d.info
}

// Close waits for the calls in progress and for the GPU to finish what was
// submitted, then releases every native object made from the device
// (buffers, textures, bind groups, encoders, command buffers, programs,
// kernels), the queue and the device. Work encoded but never submitted (a
// recorder stream's open batch) is dropped with it: Sync first if it
// matters. Every later call on the Device, or on an object made from it,
// returns an error wrapping ErrClosed; later Release calls are no-ops.
//
// Close is idempotent and nil-safe, and returns nil. A Close racing another
// returns once the first has finished.
func (d *Device) Close() error {
	if d == nil {
		return nil
	}
	if !d.use.shut() {
		<-d.closed
		return nil
	}
	defer close(d.closed)
	registry.Lock()
	delete(registry.devices, d.id)
	registry.Unlock()
	popNativeSink(d.id)
	if d.lost.Load() == nil {
		// Submit the queue's pending writes before dropping the device:
		// wgpu-native v22 dropping a device with queue writes never
		// submitted corrupts the next device created in the process (its
		// first submission fails "a resource with a different device" and
		// aborts). An empty submission flushes them; then wait for the GPU.
		d.submitMu.Lock()
		sub := d.submitNative(nil)
		d.submitMu.Unlock()
		d.waitIdle(sub)
	}
	d.objs.releaseAll(func(r releaser) bool {
		switch r.(type) {
		case *program, *encoder, *cbRecord:
			return true
		}
		return false
	})
	d.kernelsMu.Lock()
	kernels := slices.Collect(maps.Values(d.kernels))
	kernels = append(kernels, slices.Collect(maps.Keys(d.private))...)
	d.kernels, d.private = nil, nil
	d.kernelsMu.Unlock()
	for _, k := range kernels {
		k.release(k)
	}
	// Dropping the queue, the device and the adapter takes wgpu-hal's GL
	// context (the GL device's teardown makes it current): without glMu,
	// another GL Device's call holding the process's one EGL context found
	// it current on this thread, or this one found it current there, and
	// eglMakeCurrent's EGL_BAD_ACCESS aborted the process ("egl.rs:295
	// ... BadAccess"; the issue saw it on the H200's GL, reproduced on
	// llvmpipe by closing one of two or three GL devices while the others
	// work).
	d.lockGL()
	d.glBarrier.release()
	d.glBarrier = nil
	d.queue.Release()
	if d.adopted {
		C.sg_device_release(d.raw) // Adopt's reference; the application's stays
	} else {
		d.dev.Release()
		d.adapter.Release()
	}
	d.unlockGL()
	// The device is gone, and with it every pending work-done callback.
	C.free(unsafe.Pointer(d.done))
	d.done = nil
	C.free(unsafe.Pointer(d.submitC))
	d.submitC, d.submitCap = nil, 0
	d.orphans.Lock()
	for _, st := range d.orphans.status {
		C.free(unsafe.Pointer(st))
	}
	d.orphans.status = nil
	d.orphans.Unlock()
	d.log.Debug().Msg("device closed")
	return nil
}

// enter is how every call starts: it admits the call past Close and fails
// with ErrClosed or ErrDeviceLost. On success the caller must call
// d.use.leave() when done with native handles.
func (d *Device) enter(op string) error {
	if d == nil {
		return opError(op, ErrInvalidArgument, "device is nil")
	}
	if !d.use.enter() {
		return &Error{Op: op, Arg: "device", Err: ErrClosed}
	}
	if lost := d.lost.Load(); lost != nil {
		d.use.leave()
		return &Error{Op: op, Err: *lost}
	}
	return nil
}

func (d *Device) leave() { d.use.leave() }

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

func (d *Device) addUncaptured(t ErrorType, msg string) {
	err := deviceError("uncaptured", t, msg)
	d.errMu.Lock()
	d.uncaptured = append(d.uncaptured, err)
	d.errMu.Unlock()
}

func (d *Device) takeErrors() []error {
	d.errMu.Lock()
	defer d.errMu.Unlock()
	errs := d.uncaptured
	d.uncaptured = nil
	return errs
}

// completed is the highest submission the GPU has finished, as far as the
// work-done callbacks have told.
func (d *Device) completed() uint64 { return uint64(C.sg_done_get(d.done)) }

// pollOnce triages finished work without blocking; when the queue is empty
// everything submitted so far is complete.
func (d *Device) pollOnce() {
	last := d.lastSubmit.Load()
	d.lockGL()
	idle := C.sg_poll(d.raw) != 0
	d.unlockGL()
	if idle {
		C.sg_done_set(d.done, C.uint64_t(last))
	}
}

// sharedCall runs f holding the scope lock shared and reports true if the
// device is in shared mode; otherwise it runs nothing and reports false
// (the caller makes the scoped call instead). The flag is read under the
// lock, so a call either ran before leaveSharedMode returned or sees the
// mode left.
func (d *Device) sharedCall(f func()) bool {
	d.scopeMu.RLock()
	defer d.scopeMu.RUnlock()
	if !d.sharedScopes.Load() {
		return false
	}
	f()
	return true
}

// leaveSharedMode ends shared mode for good and waits for the calls still
// in it: from then on every Finish and Prepare is scoped. Called before a
// native object goes to the application, whose own calls on the device
// (cogentcore's push error scopes without softgraph's lock) would
// otherwise catch a shared call's error, leaving that call an invalid
// command buffer whose submission aborts the process.
func (d *Device) leaveSharedMode() {
	if !d.sharedScopes.Load() {
		return
	}
	// Exclusively: the calls holding the lock shared finish first, and
	// every later one reads the flag cleared.
	d.scopeMu.Lock()
	d.sharedScopes.Store(false)
	d.scopeMu.Unlock()
}

// lockGL and unlockGL hold glMu on OpenGL (see glMu).
func (d *Device) lockGL() {
	if d.glMu != nil {
		d.glMu.Lock()
	}
}

func (d *Device) unlockGL() {
	if d.glMu != nil {
		d.glMu.Unlock()
	}
}

// rankLocks gives the device's locks their ranks (docs/design.md, "Lock
// order"), checked in the lockrank build. Called by Open and Adopt before
// the device is shared.
func (d *Device) rankLocks() {
	d.kernelsMu.Rank = lockrank.Kernels
	d.scopeMu.Rank = lockrank.Scope
	d.submitMu.Rank = lockrank.Submission
	d.polling.Rank, d.orphans.Rank, d.errMu.Rank, d.cbMu.Rank, d.objs.mu.Rank = lockrank.Native, lockrank.Native, lockrank.Native, lockrank.Native, lockrank.Native
}

// glLock is the lock a Device on backend b holds around GL context use
// (glMu): the process's glContext on OpenGL, none elsewhere.
func glLock(b Backend) *lockrank.Mutex {
	if b == BackendGL {
		return &glContext
	}
	return nil
}

// poll polls once for a wait bounded by ctx (nil: unbounded). On OpenGL a
// poll needs the context, which a submit holds while the driver runs (or
// queues) the work, so one non-blocking poll can take as long as another
// goroutine's submit; there the poll runs on a goroutine of its own and
// the wait returns when ctx ends, even with the poll still inside
// wgpu-native (which then finishes it under the device's gate). Elsewhere a
// poll returns at once and runs here.
func (d *Device) poll(ctx context.Context) error {
	if ctx == nil || d.info.Backend != BackendGL {
		d.pollOnce()
		return nil
	}
	select {
	case <-d.pollAsync():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pollAsync starts a poll on its own goroutine unless one is running, and
// returns a channel closed when that poll has returned (at once if Close
// has begun: the waiter then gives way).
func (d *Device) pollAsync() <-chan struct{} {
	d.polling.Lock()
	defer d.polling.Unlock()
	if d.polling.ch != nil {
		return d.polling.ch
	}
	ch := make(chan struct{})
	if !d.use.enter() {
		close(ch)
		return ch
	}
	d.polling.ch = ch
	go func() {
		defer d.use.leave()
		d.pollOnce()
		d.polling.Lock()
		d.polling.ch = nil
		d.polling.Unlock()
		close(ch)
	}()
	return ch
}

// errWaitGaveWay is returned by waitFor when Close began while it waited.
var errWaitGaveWay = errors.New("device closing")

// waitFor returns when submission s is complete, ctx is done, the device is
// lost or Close begins (unless closing is ours). It polls without blocking
// and backs off from spinning to sleeping, because wgpu-native's blocking
// poll gives up after five seconds and then treats unfinished work as
// finished (Sync returned early, and Mesa's lavapipe crashed in its queue
// thread on buffers freed under running work).
func (d *Device) waitFor(ctx context.Context, s uint64, closingIsOurs bool) error {
	if ctx != nil && ctx.Done() == nil {
		// A context that can never end (Background, TODO) bounds nothing:
		// poll inline rather than on a goroutine per poll (poll), which
		// allocated on every wait of the submitter on OpenGL.
		ctx = nil
	}
	b := d.backoff()
	for {
		if d.completed() >= s {
			return nil
		}
		if lost := d.lost.Load(); lost != nil {
			return *lost
		}
		if !closingIsOurs && d.use.closing() {
			return errWaitGaveWay
		}
		if ctx != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := d.poll(ctx); err != nil {
			return err
		}
		if d.completed() >= s {
			return nil
		}
		b.nap()
	}
}

// waitIdle waits for submission s during Close (which owns the closing),
// unbounded: waitFor polls inline under a context that never ends.
func (d *Device) waitIdle(s uint64) { _ = d.waitFor(context.Background(), s, true) }

// backoff paces a polling wait: it polls back to back (yielding the
// processor between polls) for a spin budget — most waits on a fast GPU end
// within it, and a sleep overshoots by up to a scheduler tick, which on a
// GPU running microsecond kernels is most of the wait — then sleeps,
// doubling from 50µs up to a millisecond, so a long wait costs no core and
// overshoots by at most a few percent. The budget is 20ms on hardware
// adapters (a core spinning while the GPU works, as CUDA's default sync
// does) and 50µs on software ones, whose "GPU" is the very cores a
// spinning wait would take.
type backoff struct {
	start time.Time
	spin  time.Duration
	sleep time.Duration
	gap   time.Duration
	n     int
}

// glPollGap is how long a spinning wait on a hardware OpenGL adapter lets
// pass between two polls. Back to back, a poll every 11 µs (each taking
// the GL context) slowed the GPU's own work: on an H100's GL, a replay of 500 dispatches on 1M floats
// took 16.8-21.3 µs per dispatch against 13.1 for the same work waited for
// with one blocking poll, and every replay row trailed eager launches. With
// 50 µs between polls the same rows ran at 13.98 µs, ahead of eager on every
// row measured; 200 µs measured the same, so the shorter gap costs less
// latency. SOFTGRAPH_GL_POLL_GAP_US sets it in microseconds (0: back to
// back), for measuring.
const glPollGap = 50 * time.Microsecond

// pollGapFor is the poll gap of a device on adapter a: glPollGap on a
// hardware OpenGL adapter (software GL spins only 50 µs in all), unless
// SOFTGRAPH_GL_POLL_GAP_US sets it; none elsewhere.
func pollGapFor(a AdapterInfo) time.Duration {
	if a.Backend != BackendGL {
		return 0
	}
	if us, err := strconv.Atoi(os.Getenv("SOFTGRAPH_GL_POLL_GAP_US")); err == nil && us >= 0 {
		return time.Duration(us) * time.Microsecond
	}
	if a.Type == AdapterCPU {
		return 0
	}
	return glPollGap
}

func (d *Device) backoff() backoff {
	spin := 20 * time.Millisecond
	if d.info.Type == AdapterCPU {
		spin = 50 * time.Microsecond
	}
	return backoff{start: time.Now(), spin: spin, gap: d.pollGap}
}

func (b *backoff) nap() {
	b.n++
	if b.n < 8 || time.Since(b.start) < b.spin {
		if b.gap == 0 {
			runtime.Gosched()
			return
		}
		for t := time.Now(); time.Since(t) < b.gap; {
			runtime.Gosched()
		}
		return
	}
	b.sleep = min(max(2*b.sleep, 50*time.Microsecond), time.Millisecond)
	time.Sleep(b.sleep)
}

// liveCounters count the native objects made through a Device and not yet
// released (driver.Device.Live reports them).
type liveCounters struct {
	buffers, textures, samplers, bindGroups, encoders, commandBuffers, querySets, kernels, programs atomic.Int64
}
