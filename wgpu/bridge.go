package wgpu

import (
	"context"
	"slices"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/interop"
	"github.com/softgraph/softgraph/wgpu/internal/wgsl"
)

// driverView is the driver.Device of a Device: the narrow, checked
// interface softgraph's recorder encodes through. It is handed out only
// through driver.Of (registered below, typed on *Device), so nothing outside
// the module can reach it: an exported method returning it would be callable
// from outside the module even though its type could not be named there.
type driverView struct{ d *Device }

func init() {
	driver.Register(driver.Bridge[*Device]{
		Device: func(d *Device) (driver.Device, error) {
			if d == nil {
				return nil, opError("driver", ErrInvalidArgument, "device is nil")
			}
			if o := d.override.Load(); o != nil {
				return *o, nil
			}
			return d.view, nil
		},
		Override: func(d *Device, wrap func(driver.Device) driver.Device) error {
			if d == nil {
				return opError("driver", ErrInvalidArgument, "device is nil")
			}
			if wrap == nil {
				d.override.Store(nil)
				return nil
			}
			o := wrap(d.view)
			d.override.Store(&o)
			return nil
		},
		InjectLoss: func(d *Device, reason string) {
			if d != nil {
				d.markLost("injected: " + reason)
			}
		},
	})
	interop.Register(interop.Bridge[*Device]{
		Native: func(d *Device) (*wgpu.Device, *wgpu.Queue) {
			if d == nil {
				return nil, nil
			}
			return d.dev, d.queue
		},
	})
}

// The driver view implements the optional interfaces the recorder looks for.
var (
	_ driver.Guarder = (*driverView)(nil)
	_ interop.Device = (*driverView)(nil)
)

func (v *driverView) Err() error             { return v.d.Err() }
func (v *driverView) Logger() zerolog.Logger { return v.d.log }
func (v *driverView) Locals() *driver.Locals { return &v.d.locals }
func (v *driverView) Info() driver.Info      { return v.d.driverInfo }

// driverInfoOf is what the recorder needs of info.
func driverInfoOf(info AdapterInfo) driver.Info {
	l := info.Limits
	return driver.Info{
		Software:           info.Type == AdapterCPU,
		GL:                 info.Backend == BackendGL,
		Timestamps:         info.Timestamps,
		Name:               info.Name,
		Backend:            info.Backend.String(),
		FusesChainedFloats: fusesChainedFloats(info),
		Limits: driver.Limits{
			MaxBufferSize:                    l.MaxBufferSize,
			MaxStorageBufferBindingSize:      l.MaxStorageBufferBindingSize,
			MaxUniformBufferBindingSize:      l.MaxUniformBufferBindingSize,
			MaxComputeWorkgroupsPerDimension: l.MaxComputeWorkgroupsPerDimension,
			MinUniformBufferOffsetAlignment:  l.MinUniformBufferOffsetAlignment,
			MinStorageBufferOffsetAlignment:  l.MinStorageBufferOffsetAlignment,
			MaxStorageBuffersPerShaderStage:  l.MaxStorageBuffersPerShaderStage,
			MaxUniformBuffersPerShaderStage:  l.MaxUniformBuffersPerShaderStage,
			MaxBindingsPerBindGroup:          l.MaxBindingsPerBindGroup,
		},
	}
}

func (v *driverView) Compile(source, entry string, constants map[string]float64) (driver.Kernel, error) {
	k, err := v.d.Kernel(source, entry, WithConstants(constants))
	if err != nil {
		return nil, err
	}
	return k.view, nil
}

func (v *driverView) CompileOwned(source, entry string, constants map[string]float64, label string) (driver.Kernel, error) {
	k, err := v.d.Kernel(source, entry, WithConstants(constants), WithLabel(label), Private())
	if err != nil {
		return nil, err
	}
	return k.view, nil
}

func (v *driverView) Kernel(k driver.KernelHandle) (driver.Kernel, error) {
	kk, ok := k.(*Kernel)
	if !ok || kk == nil {
		return nil, opError("Kernel", ErrInvalidArgument, "kernel is nil or not a *wgpu.Kernel (%T)", k)
	}
	if kk.dev != v.d {
		return nil, opError("Kernel", ErrForeignDevice, "kernel %q was compiled on another device", kk.entry)
	}
	// A closed device releases its kernels: report the device, not the kernel.
	if err := v.d.enter("Kernel"); err != nil {
		return nil, err
	}
	defer v.d.leave()
	if kk.Released() {
		return nil, opError("Kernel", ErrReleased, "kernel %q", kk.entry)
	}
	return kk.view, nil
}

func (v *driverView) Guarded(k driver.Kernel, latch bool) (driver.Kernel, driver.GuardLayout, error) {
	kv, ok := k.(*kernelView)
	if !ok || kv.k.dev != v.d {
		return nil, driver.GuardLayout{}, opError("Kernel", ErrInvalidArgument, "not a kernel of this device")
	}
	g, err := wgsl.Guard(kv.k.source, kv.k.entry, kv.k.constants, latch)
	if err != nil {
		return nil, driver.GuardLayout{}, &CompileError{Entry: kv.k.entry, Label: kv.k.label, Diagnostic: "guarded variant: " + err.Error()}
	}
	gk, err := v.d.Kernel(g.Source, kv.k.entry, WithConstants(kv.k.constants), WithLabel(kv.k.label))
	if err != nil {
		return nil, driver.GuardLayout{}, err
	}
	// The variant goes with the kernel: Release releases it (after marking
	// the kernel released, so one of the two sees the other).
	v.d.kernelsMu.Lock()
	released := kv.k.Released()
	if !released && !slices.Contains(kv.k.variants, gk) {
		kv.k.variants = append(kv.k.variants, gk)
	}
	v.d.kernelsMu.Unlock()
	if released {
		gk.Release()
		return nil, driver.GuardLayout{}, opError("Kernel", ErrReleased, "kernel %q", kv.k.entry)
	}
	return gk.view, driver.GuardLayout(g.Layout), nil
}

func (v *driverView) NewBuffer(size uint64, usage driver.Usage, label string) (driver.Buffer, error) {
	return v.d.newBuffer(size, usage, label)
}
func (v *driverView) WrapBuffer(native *wgpu.Buffer, size uint64, label string) (driver.Buffer, error) {
	return v.d.wrapBuffer(native, size, label)
}
func (v *driverView) NativeBuffer(b driver.Buffer) (*wgpu.Buffer, error) { return v.d.nativeBuffer(b) }
func (v *driverView) NewTexture(d driver.TextureDesc) (driver.Texture, error) {
	return v.d.newTexture(d)
}
func (v *driverView) NewSampler(d driver.SamplerDesc) (driver.Sampler, error) {
	return v.d.newSampler(d)
}
func (v *driverView) NewBindGroup(k driver.Kernel, group uint32, entries []driver.Entry) (driver.BindGroup, error) {
	return v.d.newBindGroup(k, group, entries)
}
func (v *driverView) NewEncoder() (driver.Encoder, error)          { return v.d.newEncoder() }
func (v *driverView) NewProgram() (driver.Program, error)          { return v.d.newProgram() }
func (v *driverView) NewQueries(n uint32) (driver.QuerySet, error) { return v.d.newQueries(n) }
func (v *driverView) WriteBuffer(b driver.Buffer, off uint64, data []byte) error {
	return v.d.writeBuffer(b, off, data)
}
func (v *driverView) WriteTexture(t driver.Texture, data []byte) error {
	return v.d.writeTexture(t, data)
}
func (v *driverView) Submit(cbs []driver.CommandBuffer) (driver.Submission, error) {
	return v.d.submit(cbs)
}
func (v *driverView) FlushWrites() (driver.Submission, error) { return v.d.flushWrites() }
func (v *driverView) Drop(cb driver.CommandBuffer)            { v.d.drop(cb) }

func (v *driverView) Wait(ctx context.Context, s driver.Submission) error {
	const op = "Wait"
	if err := v.d.enter(op); err != nil {
		return err
	}
	defer v.d.leave()
	err := v.d.waitFor(ctx, uint64(s), false)
	switch err {
	case nil:
		return nil
	case errWaitGaveWay:
		return &Error{Op: op, Arg: "device", Err: ErrClosed}
	}
	return &Error{Op: op, Err: err}
}

func (v *driverView) ReadBuffer(ctx context.Context, b driver.Buffer, off uint64, dst []byte) error {
	return v.d.readBuffer(ctx, b, off, dst)
}
func (v *driverView) TimestampPeriod() (float64, error) { return v.d.timestampPeriod() }
func (v *driverView) TakeErrors() []error               { return v.d.takeErrors() }

func (v *driverView) Live() driver.Live {
	l := &v.d.live
	return driver.Live{
		Buffers: l.buffers.Load(), Textures: l.textures.Load(), Samplers: l.samplers.Load(),
		BindGroups: l.bindGroups.Load(), Encoders: l.encoders.Load(), CommandBuffers: l.commandBuffers.Load(),
		QuerySets: l.querySets.Load(), Kernels: l.kernels.Load(), Programs: l.programs.Load(),
	}
}
