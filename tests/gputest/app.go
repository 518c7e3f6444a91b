package gputest

import (
	"encoding/binary"
	"math"
	"os"
	"runtime/debug"
	"sync"
	"testing"

	webgpu "github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/wgpu"
)

// App is an application's own WebGPU device, made the way a Cogent Core
// app makes one (cogentcore's instance → adapter → device, no softgraph),
// for tests of wgpu.Adopt.
type App struct {
	Instance *webgpu.Instance
	Adapter  *webgpu.Adapter
	Device   *webgpu.Device
	Queue    *webgpu.Queue
}

// appInstance is the application's instance: one per process, never
// released, as Cogent Core's gpu.Instance is. Releasing an instance that
// brought up the OpenGL backend terminates the process's EGL display under
// every other instance (seen: softgraph's next OpenGL enumeration panicked
// in wgpu-hal with BadDisplay and aborted the test binary).
//
// It enables OpenGL only where wgpu.Unavailable finds nothing missing for
// it: wgpu-hal's EGL start-up, run inside CreateInstance, aborts the
// process on an EGL with no vendor library (the check Open makes before
// its own GL instance, wgpu/eglcheck_unix.go).
var appInstance = sync.OnceValues(func() (*webgpu.Instance, []string) {
	if missing := wgpu.Unavailable(wgpu.BackendGL); len(missing) > 0 {
		return webgpu.CreateInstance(&webgpu.InstanceDescriptor{Backends: webgpu.InstanceBackendPrimary}), missing
	}
	return webgpu.CreateInstance(nil), nil
})

// AppDevice makes an App on the backend SOFTGRAPH_BACKEND names (default:
// the best non-OpenGL adapter, hardware before software), released when the
// test ends. It skips when no adapter exists, unless GPUs are required.
func AppDevice(t testing.TB) *App {
	t.Helper()
	want, err := wgpu.ParseBackend(os.Getenv("SOFTGRAPH_BACKEND"))
	if err != nil {
		t.Fatal(err)
	}
	inst, glMissing := appInstance()
	if want == wgpu.BackendGL && len(glMissing) > 0 {
		if Required() {
			t.Fatalf("no OpenGL for the application's device: %v", glMissing)
		}
		t.Skipf("no OpenGL for the application's device: %v", glMissing)
	}
	var best *webgpu.Adapter
	bestScore := -1
	for _, a := range inst.EnumerateAdapters(nil) {
		info := a.GetInfo()
		gl := info.BackendType == webgpu.BackendTypeOpenGL || info.BackendType == webgpu.BackendTypeOpenGLES
		ok := false
		switch want {
		case wgpu.BackendAuto:
			ok = info.BackendType != webgpu.BackendTypeUndefined && info.BackendType != webgpu.BackendTypeNull
		case wgpu.BackendGL:
			ok = gl
		case wgpu.BackendVulkan:
			ok = info.BackendType == webgpu.BackendTypeVulkan
		case wgpu.BackendMetal:
			ok = info.BackendType == webgpu.BackendTypeMetal
		case wgpu.BackendDX12:
			ok = info.BackendType == webgpu.BackendTypeD3D12
		}
		score := 0
		if !gl {
			score += 2
		}
		if info.AdapterType != webgpu.AdapterTypeCPU {
			score++
		}
		if ok && score > bestScore {
			if best != nil {
				best.Release()
			}
			best, bestScore = a, score
		} else {
			a.Release()
		}
	}
	if best == nil {
		if Required() {
			t.Fatalf("no %v adapter for the application's device", want)
		}
		t.Skipf("no %v adapter", want)
	}
	t.Cleanup(best.Release)
	dev, err := best.RequestDevice(nil)
	if err != nil {
		t.Fatalf("application's RequestDevice: %v", err)
	}
	app := &App{Instance: inst, Adapter: best, Device: dev, Queue: dev.GetQueue()}
	// A test that released the handles itself sets them to nil.
	t.Cleanup(func() {
		if app.Queue != nil {
			app.Queue.Release()
		}
		if app.Device != nil {
			app.Device.Release()
		}
	})
	return app
}

// Buffer makes an application buffer of size bytes with usage, released
// when the test ends.
func (a *App) Buffer(t testing.TB, size uint64, usage webgpu.BufferUsage) *webgpu.Buffer {
	t.Helper()
	b, err := a.Device.CreateBuffer(&webgpu.BufferDescriptor{Label: "app", Size: size, Usage: usage})
	if err != nil {
		t.Fatalf("application's CreateBuffer(%d): %v", size, err)
	}
	t.Cleanup(b.Release)
	return b
}

// StorageUsage is a Cogent Core storage value's usage (gpu.Storage role).
const StorageUsage = webgpu.BufferUsageStorage | webgpu.BufferUsageCopySrc | webgpu.BufferUsageCopyDst

// WriteF32 writes v into b through the application's queue.
func (a *App) WriteF32(t testing.TB, b *webgpu.Buffer, v []float32) {
	t.Helper()
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	if err := a.Queue.WriteBuffer(b, 0, raw); err != nil {
		t.Fatalf("application's WriteBuffer: %v", err)
	}
}

// ReadF32 reads n floats from the start of b the application's way: a copy
// into a MapRead buffer on its own encoder and queue, a map and a blocking
// poll.
func (a *App) ReadF32(t testing.TB, b *webgpu.Buffer, n int) []float32 {
	t.Helper()
	size := uint64(4 * n)
	staging := a.Buffer(t, size, webgpu.BufferUsageMapRead|webgpu.BufferUsageCopyDst)
	enc, err := a.Device.CreateCommandEncoder(nil)
	if err != nil {
		t.Fatalf("application's CreateCommandEncoder: %v", err)
	}
	defer enc.Release()
	if err := enc.CopyBufferToBuffer(b, 0, staging, 0, size); err != nil {
		t.Fatalf("application's CopyBufferToBuffer: %v", err)
	}
	cb, err := enc.Finish(nil)
	if err != nil {
		t.Fatalf("application's Finish: %v", err)
	}
	a.Queue.Submit(cb)
	cb.Release()
	// cogentcore's MapAsync passes its callback's handle as a pointer into
	// Go memory; no collection may run before the poll calls it back.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	status := webgpu.BufferMapAsyncStatus(math.MaxUint32)
	if err := staging.MapAsync(webgpu.MapModeRead, 0, size, func(s webgpu.BufferMapAsyncStatus) { status = s }); err != nil {
		t.Fatalf("application's MapAsync: %v", err)
	}
	a.Device.Poll(true, nil)
	if status != webgpu.BufferMapAsyncStatusSuccess {
		t.Fatalf("application's map: status %v", status)
	}
	raw := staging.GetMappedRange(0, uint(size))
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	if err := staging.Unmap(); err != nil {
		t.Fatalf("application's Unmap: %v", err)
	}
	return out
}

// Adopt adopts the application's device for the test; softgraph's Device
// is closed when the test ends (before the application's device goes).
func (a *App) Adopt(t testing.TB) *wgpu.Device {
	t.Helper()
	d, err := wgpu.Adopt(a.Device, wgpu.Options{NativeAdapter: a.Adapter})
	if err != nil {
		t.Fatalf("wgpu.Adopt: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// appScaleWGSL doubles x in place (the application's own kernel).
const appScaleWGSL = `
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] * 2.0; }
}
`

// Double runs the application's own pipeline, x *= 2, over the first size
// bytes of b (bound as exactly that range), and submits it on the
// application's queue.
func (a *App) Double(t testing.TB, b *webgpu.Buffer, size uint64) {
	t.Helper()
	mod, err := a.Device.CreateShaderModule(&webgpu.ShaderModuleDescriptor{WGSLDescriptor: &webgpu.ShaderModuleWGSLDescriptor{Code: appScaleWGSL}})
	if err != nil {
		t.Fatalf("application's CreateShaderModule: %v", err)
	}
	defer mod.Release()
	// An explicit layout, as Cogent Core's pipelines have: with wgpu-native
	// v22 an implicit-layout pipeline leaves the next device made in the
	// process broken (its first submission aborts: "a resource with a
	// different device").
	bgl, err := a.Device.CreateBindGroupLayout(&webgpu.BindGroupLayoutDescriptor{Entries: []webgpu.BindGroupLayoutEntry{{
		Binding: 0, Visibility: webgpu.ShaderStageCompute, Buffer: webgpu.BufferBindingLayout{Type: webgpu.BufferBindingTypeStorage},
	}}})
	if err != nil {
		t.Fatalf("application's CreateBindGroupLayout: %v", err)
	}
	defer bgl.Release()
	layout, err := a.Device.CreatePipelineLayout(&webgpu.PipelineLayoutDescriptor{BindGroupLayouts: []*webgpu.BindGroupLayout{bgl}})
	if err != nil {
		t.Fatalf("application's CreatePipelineLayout: %v", err)
	}
	defer layout.Release()
	pl, err := a.Device.CreateComputePipeline(&webgpu.ComputePipelineDescriptor{Layout: layout, Compute: webgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: "main"}})
	if err != nil {
		t.Fatalf("application's CreateComputePipeline: %v", err)
	}
	defer pl.Release()
	bg, err := a.Device.CreateBindGroup(&webgpu.BindGroupDescriptor{Layout: bgl, Entries: []webgpu.BindGroupEntry{{Binding: 0, Buffer: b, Size: size}}})
	if err != nil {
		t.Fatalf("application's CreateBindGroup: %v", err)
	}
	defer bg.Release()
	enc, err := a.Device.CreateCommandEncoder(nil)
	if err != nil {
		t.Fatalf("application's CreateCommandEncoder: %v", err)
	}
	defer enc.Release()
	pass := enc.BeginComputePass(nil)
	pass.SetPipeline(pl)
	pass.SetBindGroup(0, bg, nil)
	pass.DispatchWorkgroups(uint32((size/4+63)/64), 1, 1)
	if err := pass.End(); err != nil {
		t.Fatalf("application's pass End: %v", err)
	}
	pass.Release()
	cb, err := enc.Finish(nil)
	if err != nil {
		t.Fatalf("application's Finish: %v", err)
	}
	a.Queue.Submit(cb)
	cb.Release()
}
