package wgpu_test

import (
	"errors"
	"testing"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/interop"
	"github.com/softgraph/softgraph/wgpu"
)

// TestDriverViewOffersItsExtensionsAndRefusesOtherKernelHandles: the
// driver view of a device implements the optional interfaces the recorder
// looks for (guarded variants, cogentcore buffer exchange, also through a
// wrapper), interop.Native hands out the device's own cogentcore device and
// queue, and Kernel refuses a handle of another implementation with
// ErrInvalidArgument instead of misreading it.
func TestDriverViewOffersItsExtensionsAndRefusesOtherKernelHandles(t *testing.T) {
	d := openDevice(t, wgpu.Options{})
	v := drv(t, d)
	if _, ok := v.(driver.Guarder); !ok {
		t.Errorf("the driver view of a wgpu device does not implement driver.Guarder")
	}
	if _, ok := interop.Of(v); !ok {
		t.Errorf("the driver view of a wgpu device does not implement interop.Device")
	}
	if _, ok := interop.Of(wrapper{v}); !ok {
		t.Errorf("interop.Of does not find the interop of a wrapped driver view")
	}
	nd, nq, err := interop.Native(d)
	if err != nil || nd == nil || nq == nil {
		t.Errorf("interop.Native(device) = %p, %p, %v; want the device's own cogentcore device and queue", nd, nq, err)
	}
	if _, err := v.Kernel(otherHandle{}); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("Kernel of another implementation's handle returned %v; want ErrInvalidArgument", err)
	}
}

// wrapper is a driver.Device wrapping another, as a fault injector does.
type wrapper struct{ driver.Device }

func (w wrapper) Unwrap() driver.Device { return w.Device }

// otherHandle is a kernel handle of no implementation.
type otherHandle struct{}

func (otherHandle) Entry() string  { return "other" }
func (otherHandle) Label() string  { return "" }
func (otherHandle) Released() bool { return false }
