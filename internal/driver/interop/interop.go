// Package interop is the extension of [driver.Device] that exchanges
// buffers with application code on the same cogentcore device
// (github.com/cogentcore/webgpu/wgpu): wrapping an application's buffer,
// handing out the native buffer behind a driver buffer, and the native
// device and queue behind a public device handle.
//
// It is separate from package driver because its types are cogentcore's,
// and importing cogentcore needs cgo: package driver, and the fake that
// implements it, stay pure Go. A driver that does not implement [Device]
// (the fake) makes the recorder's Native and WrapBuffer fail with
// driver.ErrInvalidArgument.
package interop

import (
	"errors"
	"sync"

	webgpu "github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/driver"
)

// Device is implemented by a driver.Device that runs on cogentcore's
// objects; the recorder finds it by type assertion.
type Device interface {
	// WrapBuffer is a Buffer of an application's native buffer of this
	// device, of size bytes from its start. The native buffer stays the
	// application's: the Buffer holds a reference of its own, which Release
	// drops, and never destroys it. It fails with driver.ErrInvalidArgument
	// (nil, size 0, not a multiple of 4 or past its end, usage without
	// Storage, CopySrc and CopyDst) or driver.ErrForeignDevice (made by
	// softgraph on another device).
	WrapBuffer(native *webgpu.Buffer, size uint64, label string) (driver.Buffer, error)
	// NativeBuffer is the native buffer behind b, owned by b: it is valid
	// until b's Release. It fails with driver.ErrReleased after that and
	// driver.ErrForeignDevice for another device's buffer.
	NativeBuffer(b driver.Buffer) (*webgpu.Buffer, error)
}

// Of finds d's interop: d itself, or the device a wrapper (a fault
// injector) wraps, found through an Unwrap() driver.Device method.
func Of(d driver.Device) (Device, bool) {
	for d != nil {
		if i, ok := d.(Device); ok {
			return i, true
		}
		w, ok := d.(interface{ Unwrap() driver.Device })
		if !ok {
			return nil, false
		}
		d = w.Unwrap()
	}
	return nil, false
}

// Bridge hands out the cogentcore device and queue behind a public device
// handle H (a *wgpu.Device), for examples/graphbench's hand-written
// baseline.
type Bridge[H comparable] struct {
	Native func(dev H) (*webgpu.Device, *webgpu.Queue)
}

var bridges sync.Map // bridgeKey[H]{} -> *Bridge[H]

type bridgeKey[H comparable] struct{}

// Register installs the bridge for handle type H (from package wgpu's init).
func Register[H comparable](b Bridge[H]) { bridges.Store(bridgeKey[H]{}, &b) }

// ErrNoBridge: no implementation registered a bridge for the handle type.
var ErrNoBridge = errors.New("interop: no device implementation registered")

// Native returns the cogentcore device and queue behind dev, which stay
// dev's: valid until its Close.
func Native[H comparable](dev H) (*webgpu.Device, *webgpu.Queue, error) {
	b, ok := bridges.Load(bridgeKey[H]{})
	if !ok {
		return nil, nil, ErrNoBridge
	}
	d, q := b.(*Bridge[H]).Native(dev) // stored under H's key by Register[H]
	return d, q, nil
}
