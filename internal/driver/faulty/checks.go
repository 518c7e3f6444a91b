package faulty

import (
	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/wgpu"
)

// Checked forwards to the wrapped device's checked variants, so that a
// fault injector changes nothing about a stream WithChecks; it fails with
// driver.ErrInvalidArgument when the wrapped device has none.
func (d *Device) Checked(k driver.Kernel) (driver.Kernel, driver.CheckLayout, []driver.CheckSite, error) {
	c, ok := d.Device.(driver.Checker)
	if !ok {
		return nil, driver.CheckLayout{}, nil, &wgpu.Error{Op: "Checked", Arg: "device", Err: wgpu.ErrInvalidArgument}
	}
	return c.Checked(k)
}
