package wgpu

import (
	"errors"
	"slices"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/wgpu/internal/wgsl"
)

var _ driver.Checker = (*driverView)(nil)

// The state words of the WGSL front end and of the driver seam are one
// list: a mismatch fails to compile.
var _ = [1]struct{}{}[wgsl.CheckZ-driver.CheckZ]
var _ = [1]struct{}{}[driver.CheckZ-wgsl.CheckZ]

// Checked compiles k's checked variant (wgsl.Check) on k's device: like a
// guarded variant it goes with k (k's Release releases it) and the
// device's kernel cache makes a second call for the same kernel cheap.
func (v *driverView) Checked(k driver.Kernel) (driver.Kernel, driver.CheckLayout, []driver.CheckSite, error) {
	kv, ok := k.(*kernelView)
	if !ok || kv.k.dev != v.d {
		return nil, driver.CheckLayout{}, nil, opError("Kernel", ErrInvalidArgument, "not a kernel of this device")
	}
	c, err := wgsl.Check(kv.k.source, kv.k.entry, kv.k.constants)
	if errors.Is(err, wgsl.ErrNotCheckable) {
		return nil, driver.CheckLayout{}, nil, opError("Kernel", ErrInvalidArgument, "kernel %q: %v", kv.k.entry, err)
	}
	if err != nil {
		return nil, driver.CheckLayout{}, nil, &CompileError{Entry: kv.k.entry, Label: kv.k.label, Diagnostic: "checked variant: " + err.Error()}
	}
	if len(c.Sites) == 0 {
		return k, driver.CheckLayout{}, nil, nil
	}
	ck, err := v.d.Kernel(c.Source, kv.k.entry, WithConstants(kv.k.constants), WithLabel(kv.k.label))
	if err != nil {
		return nil, driver.CheckLayout{}, nil, err
	}
	v.d.kernelsMu.Lock()
	released := kv.k.Released()
	if !released && !slices.Contains(kv.k.variants, ck) {
		kv.k.variants = append(kv.k.variants, ck)
	}
	v.d.kernelsMu.Unlock()
	if released {
		ck.Release()
		return nil, driver.CheckLayout{}, nil, opError("Kernel", ErrReleased, "kernel %q", kv.k.entry)
	}
	sites := make([]driver.CheckSite, len(c.Sites))
	for i, s := range c.Sites {
		sites[i] = driver.CheckSite(s)
	}
	l := driver.CheckLayout{Group: c.Layout.Group, State: c.Layout.State, At: c.Layout.At,
		StateSize: wgsl.CheckStateSize, AtSize: wgsl.CheckAtSize}
	return ck.view, l, sites, nil
}
