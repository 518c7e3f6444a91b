// Package faulty injects device failures that real hardware cannot produce
// on cue — a submission or a command buffer the device refuses, an
// allocation it cannot satisfy — between a real wgpu device and the streams
// opened on it. Everything else goes to the real device: behaviour is still
// tested on a real adapter; only the failure is made up.
package faulty

import (
	"sync"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/wgpu"
)

// Device wraps a real driver.Device and fails the calls it is told to.
type Device struct {
	driver.Device

	mu      sync.Mutex
	submits int // the next n Submits fail
	finishs int // the next n Finishes fail
	allocs  int // the next n NewBuffers fail
	Counts  Counts
}

// Counts says how many failures were injected so far.
type Counts struct{ Submits, Finishes, Allocs int }

// Install puts a fault injector between dev and every stream opened on it
// afterwards, and removes it when the returned function is called.
func Install(dev *wgpu.Device) (*Device, func(), error) {
	var f *Device
	err := driver.Override(dev, func(real driver.Device) driver.Device {
		f = &Device{Device: real}
		return f
	})
	if err != nil {
		return nil, nil, err
	}
	return f, func() { _ = driver.Override(dev, nil) }, nil
}

// FailSubmits makes the next n submissions fail (their command buffers are
// dropped, as a refused submission's are).
func (d *Device) FailSubmits(n int) { d.mu.Lock(); d.submits = n; d.mu.Unlock() }

// FailFinishes makes the next n Encoder.Finish calls fail, as when the
// device refused a command inside the command buffer.
func (d *Device) FailFinishes(n int) { d.mu.Lock(); d.finishs = n; d.mu.Unlock() }

// FailAllocs makes the next n buffer allocations fail out of memory.
func (d *Device) FailAllocs(n int) { d.mu.Lock(); d.allocs = n; d.mu.Unlock() }

// Injected returns the counts of injected failures.
func (d *Device) Injected() Counts { d.mu.Lock(); defer d.mu.Unlock(); return d.Counts }

func (d *Device) take(n *int, count *int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if *n == 0 {
		return false
	}
	*n--
	*count++
	return true
}

func (d *Device) Submit(cbs []driver.CommandBuffer) (driver.Submission, error) {
	if d.take(&d.submits, &d.Counts.Submits) {
		for _, cb := range cbs {
			cb.Release()
		}
		return 0, &wgpu.DeviceError{Op: "Submit", Type: wgpu.ErrorValidation, Message: "injected: the device refused the submission"}
	}
	return d.Device.Submit(cbs)
}

func (d *Device) NewBuffer(size uint64, usage driver.Usage, label string) (driver.Buffer, error) {
	if d.take(&d.allocs, &d.Counts.Allocs) {
		return nil, &wgpu.DeviceError{Op: "NewBuffer", Type: wgpu.ErrorOutOfMemory, Message: "injected: out of memory"}
	}
	return d.Device.NewBuffer(size, usage, label)
}

func (d *Device) NewEncoder() (driver.Encoder, error) {
	e, err := d.Device.NewEncoder()
	if err != nil {
		return nil, err
	}
	return &encoder{Encoder: e, dev: d}, nil
}

// encoder fails Finish on demand.
type encoder struct {
	driver.Encoder
	dev *Device
}

func (e *encoder) Finish() (driver.CommandBuffer, error) {
	if e.Encoder.Empty() {
		return e.Encoder.Finish()
	}
	if e.dev.take(&e.dev.finishs, &e.dev.Counts.Finishes) {
		e.Encoder.Discard()
		return driver.CommandBuffer{}, &wgpu.DeviceError{Op: "Finish", Type: wgpu.ErrorValidation, Message: "injected: the device refused a command in the command buffer"}
	}
	return e.Encoder.Finish()
}

// Guarded forwards to the wrapped device's guarded variants, so that a
// fault injector changes nothing about how If and While are lowered; it
// fails with driver.ErrInvalidArgument when the wrapped device has none.
func (d *Device) Guarded(k driver.Kernel, latch bool) (driver.Kernel, driver.GuardLayout, error) {
	g, ok := d.Device.(driver.Guarder)
	if !ok {
		return nil, driver.GuardLayout{}, &wgpu.Error{Op: "Guarded", Arg: "device", Err: wgpu.ErrInvalidArgument}
	}
	return g.Guarded(k, latch)
}

// Unwrap is the wrapped device, where interop.Of finds the buffer exchange
// a fault injector does not change.
func (d *Device) Unwrap() driver.Device { return d.Device }
