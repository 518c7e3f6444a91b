package fake

import (
	"maps"

	"github.com/softgraph/softgraph/internal/driver"
)

// KernelSpec describes a fake kernel: what it binds, and the Go function
// that stands for its dispatches.
type KernelSpec struct {
	Entry string
	// Source, if set, is the WGSL text Compile must be given for this
	// kernel; empty matches any source with this entry point.
	Source    string
	Constants map[string]float64
	// Label is the kernel's name in graphs and profiles ("" for none).
	Label string
	// Resources are the bindings in launch-argument order (by group, then
	// binding). Groups defaults to the highest group used plus one.
	Resources []driver.Resource
	// Declared, if set, are every binding the kernel's module declares
	// (driver.Kernel.Declared): Resources plus unused ones, by group, then
	// binding. Nil means Resources.
	Declared      []driver.Resource
	Groups        int
	WorkgroupSize [3]uint32
	// Run executes one dispatch of (x, y, z) workgroups. Bufs[i] is the
	// bound range of resource i's buffer (nil for textures and samplers),
	// aliasing the buffer's memory: writes land in the buffer. It runs on
	// the queue goroutine, under the device's lock.
	Run func(c Call)
}

// Call is one dispatch as Run sees it.
type Call struct {
	X, Y, Z uint32
	Bufs    [][]byte
}

// Kernel is a registered fake kernel: both the handle a test passes where
// the public API takes a *wgpu.Kernel (driver.KernelHandle) and its driver
// view (driver.Kernel).
type Kernel struct {
	life
	dev  *Device
	spec KernelSpec
}

var (
	_ driver.Kernel       = (*Kernel)(nil)
	_ driver.KernelHandle = (*Kernel)(nil)
)

func (k *Kernel) Entry() string                 { return k.spec.Entry }
func (k *Kernel) Label() string                 { return k.spec.Label }
func (k *Kernel) Source() string                { return k.spec.Source }
func (k *Kernel) Constants() map[string]float64 { return maps.Clone(k.spec.Constants) }
func (k *Kernel) Resources() []driver.Resource  { return k.spec.Resources }
func (k *Kernel) Groups() int                   { return k.spec.Groups }
func (k *Kernel) Declared() []driver.Resource {
	if k.spec.Declared == nil {
		return k.spec.Resources
	}
	return k.spec.Declared
}
func (k *Kernel) WorkgroupSize() [3]uint32 { return k.spec.WorkgroupSize }
func (k *Kernel) Guarded() bool            { return false }

// Register adds a kernel to the device, for Compile and as a handle to
// launch. A later Register of the same entry point replaces it for Compile.
func (d *Device) Register(spec KernelSpec) *Kernel {
	if spec.Groups == 0 {
		for _, r := range spec.Resources {
			spec.Groups = max(spec.Groups, int(r.Group)+1)
		}
	}
	if spec.WorkgroupSize == ([3]uint32{}) {
		spec.WorkgroupSize = [3]uint32{1, 1, 1}
	}
	k := &Kernel{life: d.newLife(&d.live.kernels), dev: d, spec: spec}
	d.kernelsMu.Lock()
	d.kernels[spec.Entry] = k
	d.kernelsMu.Unlock()
	return k
}

func (d *Device) kernel(op string, k driver.Kernel) (*Kernel, error) {
	fk, ok := k.(*Kernel)
	if !ok || fk == nil {
		return nil, opError(op, driver.ErrInvalidArgument, "kernel is nil or not a fake kernel (%T)", k)
	}
	if fk.dev != d {
		return nil, opError(op, driver.ErrForeignDevice, "kernel %q", fk.spec.Entry)
	}
	if fk.Released() {
		return nil, opError(op, driver.ErrReleased, "kernel %q", fk.spec.Entry)
	}
	return fk, nil
}

func (d *Device) Kernel(h driver.KernelHandle) (driver.Kernel, error) {
	const op = "Kernel"
	if err := d.Err(); err != nil {
		return nil, err
	}
	fk, ok := h.(*Kernel)
	if !ok || fk == nil {
		return nil, opError(op, driver.ErrInvalidArgument, "kernel is nil or not a fake kernel (%T)", h)
	}
	return d.kernel(op, fk)
}

// CompileOwned is Compile for the caller alone: a new kernel of the
// registered spec, under label, which the caller's Release frees (the
// registered one stays).
func (d *Device) CompileOwned(source, entry string, constants map[string]float64, label string) (driver.Kernel, error) {
	k, err := d.Compile(source, entry, constants)
	if err != nil {
		return nil, err
	}
	spec := k.(*Kernel).spec
	spec.Label = label
	if spec.Source == "" {
		spec.Source = source
	}
	if constants != nil {
		spec.Constants = maps.Clone(constants)
	}
	return &Kernel{life: d.newLife(&d.live.kernels), dev: d, spec: spec}, nil
}

// Compile finds the registered kernel of entry (and source, where its spec
// names one); it fails with an error wrapping driver.ErrCompile otherwise.
func (d *Device) Compile(source, entry string, _ map[string]float64) (driver.Kernel, error) {
	if err := d.Err(); err != nil {
		return nil, err
	}
	d.kernelsMu.Lock()
	k := d.kernels[entry]
	d.kernelsMu.Unlock()
	if k == nil || k.Released() || k.spec.Source != "" && k.spec.Source != source {
		return nil, opError("Compile", driver.ErrCompile, "no fake kernel registered for entry point %q and this source", entry)
	}
	return k, nil
}
