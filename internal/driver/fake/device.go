package fake

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/lockrank"
)

// Error is an operation the fake refused on the host (the analogue of
// wgpu.Error): the operation, the offending argument, and a driver sentinel.
type Error struct {
	Op, Arg string
	Err     error
}

func (e *Error) Error() string {
	if e.Arg == "" {
		return "fake: " + e.Op + ": " + e.Err.Error()
	}
	return "fake: " + e.Op + ": " + e.Arg + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

func opError(op string, sentinel error, format string, args ...any) error {
	return &Error{Op: op, Arg: fmt.Sprintf(format, args...), Err: sentinel}
}

// DeviceError is a failure the device reported (injected by Fail): it wraps
// driver.ErrValidation or driver.ErrOutOfMemory.
type DeviceError struct {
	Op  string
	Err error
}

func (e *DeviceError) Error() string { return "fake: " + e.Op + ": injected: " + e.Err.Error() }
func (e *DeviceError) Unwrap() error { return e.Err }

// Op names an operation Fail can make fail.
type Op string

const (
	OpNewBuffer   Op = "NewBuffer"      // fails out of memory
	OpSubmit      Op = "Submit"         // fails validation; the command buffers are dropped
	OpFinish      Op = "Finish"         // fails validation; the encoded commands are dropped
	OpWriteBuffer Op = "WriteBuffer"    // fails validation; nothing is written
	OpReadBuffer  Op = "ReadBuffer"     // fails validation after the wait; nothing is read
	OpNewEncoder  Op = "NewEncoder"     // fails out of memory
	OpResolve     Op = "ResolveQueries" // fails validation at encoding; the command is not recorded
)

// Options configure a Device; the zero value is a hardware-like adapter
// with generous limits.
type Options struct {
	Info   driver.Info // zero Limits are replaced by Defaults' limits
	Logger zerolog.Logger
}

// DefaultLimits are the limits of a Device opened with zero Options.Limits.
var DefaultLimits = driver.Limits{
	MaxBufferSize:                    1 << 30,
	MaxStorageBufferBindingSize:      1 << 30,
	MaxUniformBufferBindingSize:      64 << 10,
	MaxComputeWorkgroupsPerDimension: 65535,
	MinUniformBufferOffsetAlignment:  256,
	MinStorageBufferOffsetAlignment:  256,
	// WebGPU's defaults, which bound what a fused kernel may bind.
	MaxStorageBuffersPerShaderStage: 8,
	MaxUniformBuffersPerShaderStage: 12,
	MaxBindingsPerBindGroup:         1000,
}

// Device is the fake driver.Device. Its methods are safe for concurrent
// use, as driver.Device's must be.
type Device struct {
	info   driver.Info
	log    zerolog.Logger
	locals driver.Locals

	// kernels are the registered kernels, by entry point (Register).
	kernelsMu lockrank.Mutex // lockrank.Driver; never held with mu
	kernels   map[string]*Kernel

	// mu guards everything below it and the contents of every buffer and
	// texture (the queue goroutine executes under it).
	mu        lockrank.Mutex // lockrank.Driver
	changed   chan struct{}  // closed and replaced whenever completed, held or the device state changes
	queue     []item         // enqueued, not yet executed; item.seq ascending
	seq       uint64         // the last sequence number handed out
	completed uint64         // every item with seq <= completed has executed
	lastSub   uint64         // the sequence number of the last Submit
	held      int            // Hold calls not yet released
	delay     time.Duration
	closed    bool
	lost      string
	fail      map[Op]int
	errs      []error
	log2      []string // what the queue executed (Log)
	cbs       map[uintptr][]cmd
	nextCB    uintptr

	live struct {
		buffers, textures, samplers, bindGroups, encoders, commandBuffers, querySets, kernels, programs atomic.Int64
	}
	stop chan struct{}
}

var _ driver.Device = (*Device)(nil)

// New opens a fake device. Close stops its queue goroutine.
func New(o Options) *Device {
	d := &Device{info: o.Info, log: o.Logger, kernels: map[string]*Kernel{},
		kernelsMu: lockrank.Mutex{Rank: lockrank.Driver}, mu: lockrank.Mutex{Rank: lockrank.Driver},
		changed: make(chan struct{}), fail: map[Op]int{}, cbs: map[uintptr][]cmd{}, stop: make(chan struct{})}
	if d.info.Limits == (driver.Limits{}) {
		d.info.Limits = DefaultLimits
	}
	go d.run()
	return d
}

// item is one queue entry: a write or a submission's commands.
type item struct {
	seq  uint64
	what string // for Log
	run  func() // executed under d.mu
}

// notify wakes every waiter. The caller holds d.mu.
func (d *Device) notify() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// run is the queue goroutine: it executes items in order while the queue
// is not held.
func (d *Device) run() {
	for {
		d.mu.Lock()
		for len(d.queue) == 0 || d.held > 0 || d.closed || d.lost != "" {
			if d.closed || d.lost != "" {
				d.mu.Unlock()
				return
			}
			ch := d.changed
			d.mu.Unlock()
			select {
			case <-ch:
			case <-d.stop:
				return
			}
			d.mu.Lock()
		}
		it := d.queue[0]
		delay := d.delay
		d.mu.Unlock()
		if delay > 0 {
			time.Sleep(delay)
		}
		d.mu.Lock()
		d.queue = d.queue[1:]
		d.log2 = append(d.log2, it.what) // before its commands, which run logs
		it.run()
		d.completed = it.seq
		d.notify()
		d.mu.Unlock()
	}
}

// enqueue appends an item and returns its sequence number. The caller
// holds d.mu.
func (d *Device) enqueue(what string, run func()) uint64 {
	d.seq++
	d.queue = append(d.queue, item{seq: d.seq, what: what, run: run})
	d.notify()
	return d.seq
}

// Hold stops the queue: nothing enqueued, before or after, executes until
// the returned function is called (once; later calls do nothing). Holds
// nest.
func (d *Device) Hold() (release func()) {
	d.mu.Lock()
	d.held++
	d.notify()
	d.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			d.mu.Lock()
			d.held--
			d.notify()
			d.mu.Unlock()
		})
	}
}

// Delay makes every queue item take at least dt to execute.
func (d *Device) Delay(dt time.Duration) {
	d.mu.Lock()
	d.delay = dt
	d.mu.Unlock()
}

// Pending is the number of queue items not yet executed.
func (d *Device) Pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.queue)
}

// Fail makes the next n calls of op fail as the device would refuse them.
func (d *Device) Fail(op Op, n int) {
	d.mu.Lock()
	d.fail[op] = n
	d.mu.Unlock()
}

// take reports whether an injected failure of op is due, and counts it.
// The caller holds d.mu.
func (d *Device) take(op Op) bool {
	if d.fail[op] == 0 {
		return false
	}
	d.fail[op]--
	return true
}

func (d *Device) injected(op Op) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.take(op) {
		return nil
	}
	sentinel := driver.ErrValidation
	if op == OpNewBuffer || op == OpNewEncoder {
		sentinel = driver.ErrOutOfMemory
	}
	return &DeviceError{Op: string(op), Err: sentinel}
}

// Uncaptured adds a device error no call caught, for TakeErrors.
func (d *Device) Uncaptured(err error) {
	d.mu.Lock()
	d.errs = append(d.errs, err)
	d.mu.Unlock()
}

// Log returns what the queue executed so far, oldest first: "write <label>
// @<offset>+<n>", "texture <label>", or "submit" followed by one line per
// command of the submission ("dispatch <entry> (x,y,z)", "copy <src>@<off>
// -> <dst>@<off> +<n>", "clear <label>@<off> +<n>", ...), buffers named by
// their labels.
func (d *Device) Log() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.log2...)
}

// Lose marks the device lost: every wait returns ErrDeviceLost, and what
// was not executed never is.
func (d *Device) Lose(reason string) {
	d.mu.Lock()
	if d.lost == "" && !d.closed {
		d.lost = reason
	}
	d.notify()
	d.mu.Unlock()
}

// Close closes the device: every later call fails with ErrClosed, and what
// was not executed never is. Idempotent.
func (d *Device) Close() {
	d.mu.Lock()
	if !d.closed {
		d.closed = true
		close(d.stop)
	}
	d.notify()
	d.mu.Unlock()
}

// errLocked is Err; the caller holds d.mu.
func (d *Device) errLocked(op string) error {
	switch {
	case d.closed:
		return &Error{Op: op, Arg: "device", Err: driver.ErrClosed}
	case d.lost != "":
		return &Error{Op: op, Arg: "device: " + d.lost, Err: driver.ErrDeviceLost}
	}
	return nil
}

func (d *Device) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.errLocked("Err")
}

func (d *Device) Logger() zerolog.Logger            { return d.log }
func (d *Device) Info() driver.Info                 { return d.info }
func (d *Device) Locals() *driver.Locals            { return &d.locals }
func (d *Device) TimestampPeriod() (float64, error) { return 1, nil }

func (d *Device) TakeErrors() []error {
	d.mu.Lock()
	defer d.mu.Unlock()
	e := d.errs
	d.errs = nil
	return e
}

func (d *Device) Live() driver.Live {
	l := &d.live
	return driver.Live{
		Buffers: l.buffers.Load(), Textures: l.textures.Load(), Samplers: l.samplers.Load(),
		BindGroups: l.bindGroups.Load(), Encoders: l.encoders.Load(), CommandBuffers: l.commandBuffers.Load(),
		QuerySets: l.querySets.Load(), Kernels: l.kernels.Load(), Programs: l.programs.Load(),
	}
}

// waitSeq returns when every item up to seq has executed, when ctx is done,
// or when the device is closed or lost.
func (d *Device) waitSeq(ctx context.Context, op string, seq uint64) error {
	d.mu.Lock()
	for {
		if d.completed >= seq {
			d.mu.Unlock()
			return nil
		}
		if err := d.errLocked(op); err != nil {
			d.mu.Unlock()
			return err
		}
		ch := d.changed
		d.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return &Error{Op: op, Err: fmt.Errorf("%w", ctx.Err())}
		}
		d.mu.Lock()
	}
}

func (d *Device) Wait(ctx context.Context, s driver.Submission) error {
	return d.waitSeq(ctx, "Wait", uint64(s))
}

func (d *Device) WriteBuffer(b driver.Buffer, offset uint64, data []byte) error {
	const op = "WriteBuffer"
	fb, err := d.buffer(op, b)
	if err != nil {
		return err
	}
	if offset%4 != 0 || uint64(len(data))%4 != 0 || offset+uint64(len(data)) > fb.size {
		return opError(op, driver.ErrInvalidArgument, "offset=%d len=%d of a %d-byte buffer", offset, len(data), fb.size)
	}
	if err := d.injected(OpWriteBuffer); err != nil {
		return err
	}
	cp := append([]byte(nil), data...) // the queue owns a copy, as wgpu's staging does
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.errLocked(op); err != nil {
		return err
	}
	d.enqueue(fmt.Sprintf("write %s @%d+%d", fb.label, offset, len(cp)), func() { copy(fb.data[offset:], cp) })
	return nil
}

func (d *Device) WriteTexture(t driver.Texture, data []byte) error {
	const op = "WriteTexture"
	ft, ok := t.(*texture)
	if !ok || ft == nil || ft.dev != d {
		return opError(op, driver.ErrForeignDevice, "not a texture of this device")
	}
	if ft.Released() {
		return opError(op, driver.ErrReleased, "texture")
	}
	if len(data) != len(ft.data) {
		return opError(op, driver.ErrInvalidArgument, "%d bytes for a %d-byte texture", len(data), len(ft.data))
	}
	cp := append([]byte(nil), data...)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.errLocked(op); err != nil {
		return err
	}
	d.enqueue("texture "+ft.desc.Label, func() { copy(ft.data, cp) })
	return nil
}

// FlushWrites is an empty submission: the fake's writes already run in
// queue order, so it only returns the last submission.
func (d *Device) FlushWrites() (driver.Submission, error) {
	const op = "FlushWrites"
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.errLocked(op); err != nil {
		return 0, err
	}
	return driver.Submission(d.lastSub), nil
}

// Submit enqueues the command buffers' commands as one submission.
func (d *Device) Submit(cbs []driver.CommandBuffer) (driver.Submission, error) {
	const op = "Submit"
	d.mu.Lock()
	defer d.mu.Unlock()
	var cmds []cmd
	var bad error
	for _, cb := range cbs {
		if cb.Empty() {
			continue
		}
		c, ok := d.cbs[cb.Native]
		if !ok || cb.Owner != driver.Device(d) {
			bad = opError(op, driver.ErrInvalidArgument, "command buffer %d is not a pending command buffer of this device", cb.Native)
			continue
		}
		delete(d.cbs, cb.Native)
		d.live.commandBuffers.Add(-1)
		cmds = append(cmds, c...)
	}
	if bad != nil {
		return 0, bad
	}
	if err := d.errLocked(op); err != nil {
		return 0, err
	}
	if d.take(OpSubmit) {
		return 0, &DeviceError{Op: op, Err: driver.ErrValidation}
	}
	if len(cmds) == 0 {
		return driver.Submission(d.lastSub), nil
	}
	d.lastSub = d.enqueue("", nil)
	it := &d.queue[len(d.queue)-1]
	it.what = "submit"
	it.run = func() {
		for _, c := range cmds {
			d.log2 = append(d.log2, c.String())
			c.exec()
		}
	}
	return driver.Submission(d.lastSub), nil
}

func (d *Device) Drop(cb driver.CommandBuffer) {
	if cb.Empty() {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.cbs[cb.Native]; ok {
		delete(d.cbs, cb.Native)
		d.live.commandBuffers.Add(-1)
	}
}

// ReadBuffer waits for everything enqueued before it (the fake does not
// track which submissions use b), then copies.
func (d *Device) ReadBuffer(ctx context.Context, b driver.Buffer, offset uint64, dst []byte) error {
	const op = "ReadBuffer"
	fb, err := d.buffer(op, b)
	if err != nil {
		return err
	}
	if fb.usage&driver.UsageMapRead == 0 {
		return opError(op, driver.ErrInvalidArgument, "buffer %q has no MapRead usage", fb.label)
	}
	if offset+uint64(len(dst)) > fb.size {
		return opError(op, driver.ErrInvalidArgument, "offset=%d len=%d of a %d-byte buffer", offset, len(dst), fb.size)
	}
	d.mu.Lock()
	seq := d.seq
	d.mu.Unlock()
	if err := d.waitSeq(ctx, op, seq); err != nil {
		return err
	}
	if err := d.injected(OpReadBuffer); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	copy(dst, fb.data[offset:])
	return nil
}
