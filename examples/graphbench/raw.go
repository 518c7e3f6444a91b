package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	webgpu "github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/examples/internal/clock"
	"github.com/softgraph/softgraph/internal/driver/interop"
	"github.com/softgraph/softgraph/wgpu"
)

// The hand-written paths, each on buffers of its own.
const (
	pathRaw = iota
	pathChunked
	pathGPU
	rawPathCount
)

// rawBuffers is one hand-written path's buffers and bind groups (made once:
// A→B and B→A, or the one in-place group, or one per sort step), and how
// many dispatches ran.
type rawBuffers struct {
	bufs    [2]*webgpu.Buffer
	counter *webgpu.Buffer // roleCounter's word, when the kernel has one
	// groups[i % len(groups)] is dispatch i's bind group.
	groups []*webgpu.BindGroup
	steps  int
}

// rawPaths is what a careful user writes on github.com/cogentcore/webgpu
// without softgraph: the same WGSL, an explicit layout, pipeline and bind
// groups created once, SetPipeline once per pass, then SetBindGroup +
// Dispatch per kernel:
//
//	raw          the whole pass in one compute pass, one submit, wait
//	raw_chunked  a compute pass and a submit every chunk dispatches, then
//	             wait; the chunk is the fastest of sweepChunks' candidates
//	gpu          the floor: the whole pass encoded into one command buffer
//	             before the clock starts, then submit and wait
//
// Everything here is owned by rawPaths and released by close; the device
// and queue are the softgraph device's (the caller's).
type rawPaths struct {
	dev      *webgpu.Device
	queue    *webgpu.Queue
	pipeline *webgpu.ComputePipeline
	w        *workload
	kernels  int
	params   []*webgpu.Buffer // w.params, or one per w.stepParams
	paths    [rawPathCount]rawBuffers
	staging  *webgpu.Buffer
	chunk    int // raw_chunked's submission chunk (dispatches), set by sweepChunks
}

func newRawPaths(d *wgpu.Device, w *workload, kernels int) (*rawPaths, error) {
	// The hand-written baseline runs on the same native device, through
	// cogentcore directly: no softgraph code in its loop.
	dev, queue, err := interop.Native(d)
	if err != nil {
		return nil, err
	}
	r := &rawPaths{dev: dev, queue: queue, w: w, kernels: kernels, chunk: kernels}
	fail := func(err error) (*rawPaths, error) {
		r.close()
		return nil, err
	}
	mod, err := dev.CreateShaderModule(&webgpu.ShaderModuleDescriptor{WGSLDescriptor: &webgpu.ShaderModuleWGSLDescriptor{Code: w.wgsl}})
	if err != nil {
		return fail(err)
	}
	defer mod.Release()
	// An explicit layout, as a careful user writes it: a pipeline made with
	// an implicit (auto) layout leaves wgpu-native v22 broken for the next
	// device of the process once this one is closed (its first submit
	// aborts: "a resource with a different device").
	var entries []webgpu.BindGroupLayoutEntry
	for b, rl := range w.bindings {
		t := webgpu.BufferBindingTypeStorage
		switch rl {
		case roleParams:
			t = webgpu.BufferBindingTypeUniform
		case roleSrc:
			t = webgpu.BufferBindingTypeReadOnlyStorage
		}
		entries = append(entries, webgpu.BindGroupLayoutEntry{Binding: uint32(b), Visibility: webgpu.ShaderStageCompute, Buffer: webgpu.BufferBindingLayout{Type: t}})
	}
	layout, err := dev.CreateBindGroupLayout(&webgpu.BindGroupLayoutDescriptor{Entries: entries})
	if err != nil {
		return fail(err)
	}
	defer layout.Release()
	pl, err := dev.CreatePipelineLayout(&webgpu.PipelineLayoutDescriptor{BindGroupLayouts: []*webgpu.BindGroupLayout{layout}})
	if err != nil {
		return fail(err)
	}
	defer pl.Release()
	if r.pipeline, err = dev.CreateComputePipeline(&webgpu.ComputePipelineDescriptor{
		Layout:  pl,
		Compute: webgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: "main"},
	}); err != nil {
		return fail(err)
	}
	// Contents go in with queue writes: cogentcore's CreateBufferInit left
	// the next device of the process broken (its first submit aborted).
	psize := uint64(len(w.params))
	steps := w.stepParams
	if len(steps) == 0 {
		steps = [][]byte{w.params}
	}
	for _, p := range steps {
		b, err := dev.CreateBuffer(&webgpu.BufferDescriptor{Size: psize, Usage: webgpu.BufferUsageUniform | webgpu.BufferUsageCopyDst})
		if err != nil {
			return fail(err)
		}
		r.params = append(r.params, b)
		if err := queue.WriteBuffer(b, 0, p); err != nil {
			return fail(err)
		}
	}
	size := uint64(w.words) * 4
	nbufs := 1
	if w.pingPong() {
		nbufs = 2
	}
	for p := range r.paths {
		rp := &r.paths[p]
		for i := range nbufs {
			if rp.bufs[i], err = dev.CreateBuffer(&webgpu.BufferDescriptor{Size: size, Usage: webgpu.BufferUsageStorage | webgpu.BufferUsageCopySrc | webgpu.BufferUsageCopyDst}); err != nil {
				return fail(err)
			}
		}
		if err := queue.WriteBuffer(rp.bufs[0], 0, wordsToBytes(w.init)); err != nil {
			return fail(err)
		}
		if slices.Contains(w.bindings, roleCounter) {
			if rp.counter, err = dev.CreateBuffer(&webgpu.BufferDescriptor{Size: 4, Usage: webgpu.BufferUsageStorage}); err != nil {
				return fail(err)
			}
		}
		// One bind group per parity (one in place), or per step of the
		// sort (an even number of steps): group i reads bufs[i%2] and
		// writes bufs[1-i%2] with step i's params, in binding order by role.
		rp.groups = make([]*webgpu.BindGroup, max(nbufs, len(w.stepParams)))
		for i := range rp.groups {
			var ents []webgpu.BindGroupEntry
			for b, rl := range w.bindings {
				e := webgpu.BindGroupEntry{Binding: uint32(b), Buffer: rp.bufs[0], Size: size}
				switch rl {
				case roleParams:
					e.Buffer, e.Size = r.params[i%len(r.params)], psize
				case roleSrc:
					e.Buffer = rp.bufs[i%2]
				case roleDst:
					e.Buffer = rp.bufs[1-i%2]
				case roleCounter:
					e.Buffer, e.Size = rp.counter, 4
				}
				ents = append(ents, e)
			}
			if rp.groups[i], err = dev.CreateBindGroup(&webgpu.BindGroupDescriptor{Layout: layout, Entries: ents}); err != nil {
				return fail(err)
			}
		}
	}
	if r.staging, err = dev.CreateBuffer(&webgpu.BufferDescriptor{Size: size, Usage: webgpu.BufferUsageMapRead | webgpu.BufferUsageCopyDst}); err != nil {
		return fail(err)
	}
	return r, nil
}

// encode encodes dispatches [from, from+n) of a pass of path p into one
// compute pass of one command buffer.
func (r *rawPaths) encode(p, from, n int) (*webgpu.CommandBuffer, error) {
	enc, err := r.dev.CreateCommandEncoder(nil)
	if err != nil {
		return nil, err
	}
	defer enc.Release()
	pass := enc.BeginComputePass(nil)
	pass.SetPipeline(r.pipeline)
	gs := r.paths[p].groups
	for i := from; i < from+n; i++ {
		// Dispatch i of a pass reads A when i is even (one group in place).
		pass.SetBindGroup(0, gs[i%len(gs)], nil)
		pass.DispatchWorkgroups(r.w.gx, r.w.gy, 1)
	}
	if err := pass.End(); err != nil {
		pass.Release()
		return nil, err
	}
	pass.Release()
	return enc.Finish(nil)
}

// raw: encode the whole pass, submit once, wait; all on the clock.
func (r *rawPaths) raw() (time.Duration, error) {
	t0 := clock.Now()
	cb, err := r.encode(pathRaw, 0, r.kernels)
	if err != nil {
		return 0, err
	}
	r.queue.Submit(cb)
	cb.Release()
	r.dev.Poll(true, nil)
	r.paths[pathRaw].steps += r.kernels
	return clock.Since(t0), nil
}

// chunked: encode and submit every chunk dispatches, then wait; all on the
// clock. The GPU starts on the first chunk while the host encodes the next.
func (r *rawPaths) chunked(chunk int) (time.Duration, error) {
	t0 := clock.Now()
	for from := 0; from < r.kernels; from += chunk {
		cb, err := r.encode(pathChunked, from, min(chunk, r.kernels-from))
		if err != nil {
			return 0, err
		}
		r.queue.Submit(cb)
		cb.Release()
	}
	r.dev.Poll(true, nil)
	r.paths[pathChunked].steps += r.kernels
	return clock.Since(t0), nil
}

// rawChunked runs chunked with the chunk sweepChunks chose.
func (r *rawPaths) rawChunked() (time.Duration, error) { return r.chunked(r.chunk) }

// chunkCandidates are the fixed chunk sizes raw_chunked tries: those below
// the pass's length, and one submit of the whole pass.
func chunkCandidates(kernels int) []int {
	var cs []int
	for _, c := range []int{16, 32, 64, 128, 256} {
		if c < kernels {
			cs = append(cs, c)
		}
	}
	return append(cs, kernels)
}

// sweepChunks is part of raw_chunked's warm-up: it runs every candidate
// chunk reps times, interleaved, and keeps the one with the lowest median
// pass time, as a careful user tuning the loop for this config would. It
// returns each candidate's median in µs per kernel.
func (r *rawPaths) sweepChunks(reps int) (map[int]float64, error) {
	cands := chunkCandidates(r.kernels)
	times := make(map[int][]time.Duration, len(cands))
	for range reps {
		for _, c := range cands {
			d, err := r.chunked(c)
			if err != nil {
				return nil, fmt.Errorf("chunk %d: %w", c, err)
			}
			times[c] = append(times[c], d)
		}
	}
	out := make(map[int]float64, len(cands))
	var best time.Duration
	for _, c := range cands {
		med, _, _ := stats(times[c])
		out[c] = float64(med.Nanoseconds()) / 1000 / float64(r.kernels)
		if best == 0 || med < best {
			best, r.chunk = med, c
		}
	}
	return out, nil
}

// gpu: the whole pass encoded before the clock; submit and wait on it.
func (r *rawPaths) gpu() (time.Duration, error) {
	cb, err := r.encode(pathGPU, 0, r.kernels)
	if err != nil {
		return 0, err
	}
	t0 := clock.Now()
	r.queue.Submit(cb)
	r.dev.Poll(true, nil)
	d := clock.Since(t0)
	cb.Release()
	r.paths[pathGPU].steps += r.kernels
	return d, nil
}

// read copies path p's result buffer to the staging buffer and maps it.
func (r *rawPaths) read(name string, p int) pathResult {
	rp := &r.paths[p]
	res := pathResult{path: name, steps: rp.steps}
	out := rp.bufs[0] // passes are even: the state is back in A
	size := uint64(r.w.words) * 4
	enc, err := r.dev.CreateCommandEncoder(nil)
	if err != nil {
		res.err = err
		return res
	}
	if err := enc.CopyBufferToBuffer(out, 0, r.staging, 0, size); err != nil {
		enc.Release()
		res.err = err
		return res
	}
	cb, err := enc.Finish(nil)
	enc.Release()
	if err != nil {
		res.err = err
		return res
	}
	r.queue.Submit(cb)
	cb.Release()
	var status webgpu.BufferMapAsyncStatus = math.MaxUint32
	if err := r.staging.MapAsync(webgpu.MapModeRead, 0, size, func(s webgpu.BufferMapAsyncStatus) { status = s }); err != nil {
		res.err = err
		return res
	}
	for status == math.MaxUint32 {
		r.dev.Poll(true, nil)
	}
	if status != webgpu.BufferMapAsyncStatusSuccess {
		res.err = fmt.Errorf("map: %v", status)
		return res
	}
	mapped := r.staging.GetMappedRange(0, uint(size))
	res.words = make([]uint32, r.w.words)
	for i := range res.words {
		res.words[i] = binary.LittleEndian.Uint32(mapped[4*i:])
	}
	_ = r.staging.Unmap()
	return res
}

// reset writes the workload's initial contents back into path p's A
// (a queue write, ordered after the work already submitted).
func (r *rawPaths) reset(p int) error {
	if err := r.queue.WriteBuffer(r.paths[p].bufs[0], 0, wordsToBytes(r.w.init)); err != nil {
		return err
	}
	r.paths[p].steps = 0
	return nil
}

func (r *rawPaths) close() {
	for p := range r.paths {
		rp := &r.paths[p]
		for _, g := range rp.groups {
			if g != nil {
				g.Release()
			}
		}
		for _, b := range append(rp.bufs[:], rp.counter) {
			if b != nil {
				b.Release()
			}
		}
	}
	for _, b := range append(r.params, r.staging) {
		if b != nil {
			b.Release()
		}
	}
	if r.pipeline != nil {
		r.pipeline.Release()
	}
}

func wordsToBytes(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}
