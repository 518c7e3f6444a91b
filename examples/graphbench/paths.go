package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	webgpu "github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// addOneWGSL is the kernel every path runs: dst = src + 1 over p.n floats.
const addOneWGSL = `
struct P { n: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: P;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x + id.y * 65535u * 64u;
	if (i < p.n) {
		dst[i] = src[i] + 1.0;
	}
}
`

// groups covers n elements with 64-wide workgroups, folding into y past the
// 65535 per-dimension limit (1M floats need 16384 groups: no fold needed,
// but the kernel supports it).
func groups(n uint32) (uint32, uint32) {
	g := (n + 63) / 64
	if g <= 65535 {
		return g, 1
	}
	return 65535, (g + 65534) / 65535
}

// softgraphPaths runs the eager and replay paths on a recorder stream. Each
// path has its own ping-pong pair, so each verifies its own arithmetic.
type softgraphPaths struct {
	s       *recorder.Stream
	k       *wgpu.Kernel
	elems   uint32
	kernels int
	params  recorder.Params

	eagerA, eagerB   *recorder.Buffer
	replayA, replayB *recorder.Buffer
	graph            *recorder.Graph
	captureTime      time.Duration
	eagerPasses      int
	replayPasses     int
}

func newSoftgraphPaths(dev *wgpu.Device, opts []recorder.Option, elems uint32, kernels int) (*softgraphPaths, error) {
	s, err := recorder.New(dev, opts...)
	if err != nil {
		return nil, err
	}
	k, err := dev.Kernel(addOneWGSL, "main")
	if err != nil {
		return nil, err
	}
	p := &softgraphPaths{s: s, k: k, elems: elems, kernels: kernels}
	p.params = make(recorder.Params, 4)
	binary.LittleEndian.PutUint32(p.params, elems)
	size := uint64(elems) * 4
	for _, b := range []**recorder.Buffer{&p.eagerA, &p.eagerB, &p.replayA, &p.replayB} {
		if *b, err = s.Upload(make([]byte, size)); err != nil {
			return nil, err
		}
	}
	// Capture: warmup (one pass, counted in replayPasses), record, seal.
	start := time.Now()
	if err := s.GraphPrepare(); err != nil {
		return nil, err
	}
	if err := p.launchChain(p.replayA, p.replayB); err != nil {
		return nil, err
	}
	if err := s.BeginCapture(); err != nil {
		return nil, err
	}
	if err := p.launchChain(p.replayA, p.replayB); err != nil {
		return nil, err
	}
	if p.graph, err = s.EndCapture(); err != nil {
		return nil, err
	}
	p.captureTime = time.Since(start)
	p.replayPasses = 1
	return p, s.Sync()
}

func (p *softgraphPaths) launchChain(a, b *recorder.Buffer) error {
	gx, gy := groups(p.elems)
	src, dst := a, b
	for range p.kernels {
		if err := p.s.Launch(p.k, recorder.Groups(gx, gy, 1), src, dst, p.params); err != nil {
			return err
		}
		src, dst = dst, src
	}
	return nil
}

// eager: the recorder's normal launch path, then Sync.
func (p *softgraphPaths) eager() (enqueue, e2e time.Duration, err error) {
	t0 := time.Now()
	if err := p.launchChain(p.eagerA, p.eagerB); err != nil {
		return 0, 0, err
	}
	t1 := time.Now()
	err = p.s.Sync()
	p.eagerPasses++
	return t1.Sub(t0), time.Since(t0), err
}

// replay: the captured graph, Replay then Sync.
func (p *softgraphPaths) replay() (enqueue, e2e time.Duration, err error) {
	t0 := time.Now()
	if err := p.graph.Replay(); err != nil {
		return 0, 0, err
	}
	t1 := time.Now()
	err = p.s.Sync()
	p.replayPasses++
	return t1.Sub(t0), time.Since(t0), err
}

// verify reads both paths' results: after n passes of an even-length chain
// (odd chains end in b) every element is n*kernels.
func (p *softgraphPaths) verify() (eager, replay error) {
	check := func(a, b *recorder.Buffer, passes int) error {
		out := a
		if p.kernels%2 == 1 && passes%2 == 1 {
			out = b
		}
		v, err := recorder.ReadSlice[float32](p.s, out)
		if err != nil {
			return err
		}
		return expectAll(v, float32(passes*p.kernels))
	}
	return check(p.eagerA, p.eagerB, p.eagerPasses), check(p.replayA, p.replayB, p.replayPasses)
}

func (p *softgraphPaths) close() {
	p.graph.Release()
	_ = p.s.Close()
}

func expectAll(v []float32, want float32) error {
	for i, x := range v {
		if x != want {
			return fmt.Errorf("element %d is %v, want %v", i, x, want)
		}
	}
	return nil
}

// rawPaths is what a careful user writes on github.com/cogentcore/webgpu
// without softgraph: the same WGSL, pipeline and bind groups created once,
// SetPipeline once, then SetBindGroup + Dispatch per kernel in one pass,
// one submit, wait. gpu is the floor: the same command buffer encoded
// before the clock starts, then submit and wait.
type rawPaths struct {
	dev      *webgpu.Device
	queue    *webgpu.Queue
	pipeline *webgpu.ComputePipeline
	elems    uint32
	kernels  int
	params   *webgpu.Buffer
	bufs     [2][2]*webgpu.Buffer    // [path raw/gpu][a/b]
	groups   [2][2]*webgpu.BindGroup // [path][a→b, b→a]
	staging  *webgpu.Buffer
	passes   [2]int
}

func newRawPaths(d *wgpu.Device, elems uint32, kernels int) (*rawPaths, error) {
	// The hand-written baseline runs on the same native device, through
	// cogentcore directly: no softgraph code in its loop.
	nd, nq := driver.Native(d)
	dev, queue := nd.(*webgpu.Device), nq.(*webgpu.Queue)
	r := &rawPaths{dev: dev, queue: queue, elems: elems, kernels: kernels}
	mod, err := dev.CreateShaderModule(&webgpu.ShaderModuleDescriptor{WGSLDescriptor: &webgpu.ShaderModuleWGSLDescriptor{Code: addOneWGSL}})
	if err != nil {
		return nil, err
	}
	defer mod.Release()
	// An explicit layout, as a careful user writes it: a pipeline made with
	// an implicit (auto) layout leaves wgpu-native v22 broken for the next
	// device of the process once this one is closed (its first submit
	// aborts: "a resource with a different device").
	layout, err := dev.CreateBindGroupLayout(&webgpu.BindGroupLayoutDescriptor{Entries: []webgpu.BindGroupLayoutEntry{
		{Binding: 0, Visibility: webgpu.ShaderStageCompute, Buffer: webgpu.BufferBindingLayout{Type: webgpu.BufferBindingTypeReadOnlyStorage}},
		{Binding: 1, Visibility: webgpu.ShaderStageCompute, Buffer: webgpu.BufferBindingLayout{Type: webgpu.BufferBindingTypeStorage}},
		{Binding: 2, Visibility: webgpu.ShaderStageCompute, Buffer: webgpu.BufferBindingLayout{Type: webgpu.BufferBindingTypeUniform}},
	}})
	if err != nil {
		return nil, err
	}
	defer layout.Release()
	pl, err := dev.CreatePipelineLayout(&webgpu.PipelineLayoutDescriptor{BindGroupLayouts: []*webgpu.BindGroupLayout{layout}})
	if err != nil {
		return nil, err
	}
	defer pl.Release()
	if r.pipeline, err = dev.CreateComputePipeline(&webgpu.ComputePipelineDescriptor{
		Layout:  pl,
		Compute: webgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: "main"},
	}); err != nil {
		return nil, err
	}
	pb := make([]byte, 16)
	binary.LittleEndian.PutUint32(pb, elems)
	if r.params, err = dev.CreateBufferInit(&webgpu.BufferInitDescriptor{Contents: pb, Usage: webgpu.BufferUsageUniform}); err != nil {
		return nil, err
	}
	size := uint64(elems) * 4
	for p := range 2 {
		for i := range 2 {
			if r.bufs[p][i], err = dev.CreateBuffer(&webgpu.BufferDescriptor{Size: size, Usage: webgpu.BufferUsageStorage | webgpu.BufferUsageCopySrc}); err != nil {
				return nil, err
			}
		}
		for i := range 2 {
			src, dst := r.bufs[p][i], r.bufs[p][1-i]
			if r.groups[p][i], err = dev.CreateBindGroup(&webgpu.BindGroupDescriptor{Layout: layout, Entries: []webgpu.BindGroupEntry{
				{Binding: 0, Buffer: src, Size: size},
				{Binding: 1, Buffer: dst, Size: size},
				{Binding: 2, Buffer: r.params, Size: 16},
			}}); err != nil {
				return nil, err
			}
		}
	}
	if r.staging, err = dev.CreateBuffer(&webgpu.BufferDescriptor{Size: size, Usage: webgpu.BufferUsageMapRead | webgpu.BufferUsageCopyDst}); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rawPaths) encode(path int) (*webgpu.CommandBuffer, error) {
	enc, err := r.dev.CreateCommandEncoder(nil)
	if err != nil {
		return nil, err
	}
	defer enc.Release()
	pass := enc.BeginComputePass(nil)
	pass.SetPipeline(r.pipeline)
	gx, gy := groups(r.elems)
	for i := range r.kernels {
		pass.SetBindGroup(0, r.groups[path][i%2], nil)
		pass.DispatchWorkgroups(gx, gy, 1)
	}
	if err := pass.End(); err != nil {
		pass.Release()
		return nil, err
	}
	pass.Release()
	return enc.Finish(nil)
}

// raw: encode, submit, wait, all on the clock.
func (r *rawPaths) raw() (time.Duration, error) {
	t0 := time.Now()
	cb, err := r.encode(0)
	if err != nil {
		return 0, err
	}
	r.queue.Submit(cb)
	cb.Release()
	r.dev.Poll(true, nil)
	r.passes[0]++
	return time.Since(t0), nil
}

// gpu: encoded before the clock; submit and wait on it.
func (r *rawPaths) gpu() (time.Duration, error) {
	cb, err := r.encode(1)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	r.queue.Submit(cb)
	r.dev.Poll(true, nil)
	d := time.Since(t0)
	cb.Release()
	r.passes[1]++
	return d, nil
}

func (r *rawPaths) verify(path int) error {
	out := r.bufs[path][r.kernels%2*(r.passes[path]%2)]
	size := uint64(r.elems) * 4
	enc, err := r.dev.CreateCommandEncoder(nil)
	if err != nil {
		return err
	}
	if err := enc.CopyBufferToBuffer(out, 0, r.staging, 0, size); err != nil {
		enc.Release()
		return err
	}
	cb, err := enc.Finish(nil)
	enc.Release()
	if err != nil {
		return err
	}
	r.queue.Submit(cb)
	cb.Release()
	var status webgpu.BufferMapAsyncStatus = math.MaxUint32
	if err := r.staging.MapAsync(webgpu.MapModeRead, 0, size, func(s webgpu.BufferMapAsyncStatus) { status = s }); err != nil {
		return err
	}
	for status == math.MaxUint32 {
		r.dev.Poll(true, nil)
	}
	if status != webgpu.BufferMapAsyncStatusSuccess {
		return fmt.Errorf("map: %v", status)
	}
	raw := r.staging.GetMappedRange(0, uint(size))
	v := make([]float32, r.elems)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	_ = r.staging.Unmap()
	return expectAll(v, float32(r.passes[path]*r.kernels))
}

func (r *rawPaths) close() {
	for p := range 2 {
		for i := range 2 {
			r.groups[p][i].Release()
			r.bufs[p][i].Release()
		}
	}
	r.params.Release()
	r.staging.Release()
	r.pipeline.Release()
}
