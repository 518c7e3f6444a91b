package main

import (
	"encoding/binary"
	"fmt"
	"math"

	webgpu "github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/driver/interop"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// rawPath is the decode loop a careful user writes on
// github.com/cogentcore/webgpu without softgraph, on the same native device:
// the same WGSL compiled by wgpu-native directly, an explicit bind group
// layout and a pipeline per kernel, every bind group and every dims
// uniform made once (the buffers never change), and per token: one queue
// write of the Step uniform, one command buffer with one compute pass
// (SetPipeline when the kernel changes, SetBindGroup and Dispatch per
// launch) and the copy of the token into a mappable buffer, one submit;
// then map and wait.
//
// Its state buffers and the shared weights are the stream's (Buffer.Native,
// taken once at setup): no softgraph call is in its per-token loop. reset
// and logits go through the stream, outside the timed loop; the stream's
// Write and Read are queue operations ordered after this path's submits.
//
// Ownership: the pipelines, bind groups, uniforms and staging buffer are
// this path's and released by close; the native buffers behind recorder
// Buffers are the stream's (never released here); the device and queue are
// the softgraph device's.
type rawPath struct {
	recorderState
	dev       *webgpu.Device
	queue     *webgpu.Queue
	pipelines map[*kernel]*webgpu.ComputePipeline
	uniforms  map[string]*webgpu.Buffer // dims uniforms by content
	cmds      []rawCmd
	stepBuf   *webgpu.Buffer // the Step uniform (st.step's native buffer)
	tokNative *webgpu.Buffer
	staging   *webgpu.Buffer // MapRead: the token, copied per token
	buf       [16]byte
}

// rawCmd is one launch, resolved to native objects.
type rawCmd struct {
	pipeline *webgpu.ComputePipeline
	group    *webgpu.BindGroup
	groups   [3]uint32
}

func newRawPath(dev *wgpu.Device, s *recorder.Stream, c config, ks *kernels, w *gpuWeights) (*rawPath, error) {
	st, err := newState(s, c)
	if err != nil {
		return nil, err
	}
	nd, nq, err := interop.Native(dev)
	if err != nil || nd == nil {
		st.release()
		return nil, fmt.Errorf("hand-written path: no native device behind the softgraph device: %v", err)
	}
	p := &rawPath{
		recorderState: recorderState{s, st},
		dev:           nd,
		queue:         nq,
		pipelines:     map[*kernel]*webgpu.ComputePipeline{},
		uniforms:      map[string]*webgpu.Buffer{},
		stepBuf:       st.step.Native(),
		tokNative:     st.tok.Native(),
	}
	fail := func(err error) (*rawPath, error) {
		p.close()
		return nil, fmt.Errorf("hand-written path: %w", err)
	}
	// The stream's buffers were allocated and written through the stream:
	// flush so this path's first submit comes after them.
	if err := s.Sync(); err != nil {
		return fail(err)
	}
	layouts := map[*kernel]*webgpu.BindGroupLayout{}
	defer func() {
		for _, l := range layouts {
			l.Release()
		}
	}()
	for _, k := range ks.all() {
		if p.pipelines[k], layouts[k], err = p.pipeline(k); err != nil {
			return fail(fmt.Errorf("%s: %w", k.name, err))
		}
	}
	for _, l := range forward(c, ks, w, st, st.step) {
		var ents []webgpu.BindGroupEntry
		for i, a := range l.args {
			e := webgpu.BindGroupEntry{Binding: uint32(i)}
			switch a := a.(type) {
			case *recorder.Buffer:
				// A pool page may be larger than the Buffer: bind its range.
				e.Buffer, e.Size = a.Native(), a.Size()
			case recorder.Params:
				if e.Buffer, err = p.uniform(a); err != nil {
					return fail(err)
				}
				e.Size = uint64(len(a))
			default:
				return fail(fmt.Errorf("%s: argument %d is a %T", l.k.name, i, a))
			}
			ents = append(ents, e)
		}
		g, err := p.dev.CreateBindGroup(&webgpu.BindGroupDescriptor{Layout: layouts[l.k], Entries: ents})
		if err != nil {
			return fail(fmt.Errorf("%s: bind group: %w", l.k.name, err))
		}
		p.cmds = append(p.cmds, rawCmd{pipeline: p.pipelines[l.k], group: g, groups: l.groups})
	}
	if p.staging, err = p.dev.CreateBuffer(&webgpu.BufferDescriptor{Size: 4, Usage: webgpu.BufferUsageMapRead | webgpu.BufferUsageCopyDst}); err != nil {
		return fail(err)
	}
	return p, nil
}

// pipeline compiles k's WGSL as written (no softgraph front end) with an
// explicit layout read from the kernel's reflected bindings, as a careful
// user writes it: an implicit (auto) layout leaves wgpu-native v22 broken
// for the next device of the process once this one is closed.
func (p *rawPath) pipeline(k *kernel) (*webgpu.ComputePipeline, *webgpu.BindGroupLayout, error) {
	mod, err := p.dev.CreateShaderModule(&webgpu.ShaderModuleDescriptor{WGSLDescriptor: &webgpu.ShaderModuleWGSLDescriptor{Code: k.src}})
	if err != nil {
		return nil, nil, err
	}
	defer mod.Release()
	var entries []webgpu.BindGroupLayoutEntry
	for _, b := range k.k.Bindings() {
		t := webgpu.BufferBindingTypeStorage
		switch b.Kind {
		case wgpu.BindUniform:
			t = webgpu.BufferBindingTypeUniform
		case wgpu.BindReadOnlyStorage:
			t = webgpu.BufferBindingTypeReadOnlyStorage
		case wgpu.BindStorage:
		default:
			return nil, nil, fmt.Errorf("binding %d is a %v", b.Binding, b.Kind)
		}
		entries = append(entries, webgpu.BindGroupLayoutEntry{Binding: b.Binding, Visibility: webgpu.ShaderStageCompute, Buffer: webgpu.BufferBindingLayout{Type: t}})
	}
	layout, err := p.dev.CreateBindGroupLayout(&webgpu.BindGroupLayoutDescriptor{Entries: entries})
	if err != nil {
		return nil, nil, err
	}
	pl, err := p.dev.CreatePipelineLayout(&webgpu.PipelineLayoutDescriptor{BindGroupLayouts: []*webgpu.BindGroupLayout{layout}})
	if err != nil {
		layout.Release()
		return nil, nil, err
	}
	defer pl.Release()
	cp, err := p.dev.CreateComputePipeline(&webgpu.ComputePipelineDescriptor{
		Layout:  pl,
		Compute: webgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: k.entry},
	})
	if err != nil {
		layout.Release()
		return nil, nil, err
	}
	return cp, layout, nil
}

// uniform returns the native uniform buffer holding v, made (and written
// with a queue write: cogentcore's CreateBufferInit left the next device of
// the process broken) the first time v is seen.
func (p *rawPath) uniform(v recorder.Params) (*webgpu.Buffer, error) {
	if b, ok := p.uniforms[string(v)]; ok {
		return b, nil
	}
	b, err := p.dev.CreateBuffer(&webgpu.BufferDescriptor{Size: uint64(len(v)), Usage: webgpu.BufferUsageUniform | webgpu.BufferUsageCopyDst})
	if err != nil {
		return nil, err
	}
	p.uniforms[string(v)] = b
	return b, p.queue.WriteBuffer(b, 0, v)
}

func (p *rawPath) name() string { return "raw" }

func (p *rawPath) step(pos int) error {
	binary.LittleEndian.PutUint32(p.buf[0:], uint32(pos))
	binary.LittleEndian.PutUint32(p.buf[4:], uint32(pos+1))
	if err := p.queue.WriteBuffer(p.stepBuf, 0, p.buf[:]); err != nil {
		return err
	}
	enc, err := p.dev.CreateCommandEncoder(nil)
	if err != nil {
		return err
	}
	defer enc.Release()
	pass := enc.BeginComputePass(nil)
	var cur *webgpu.ComputePipeline
	for i := range p.cmds {
		c := &p.cmds[i]
		if c.pipeline != cur {
			pass.SetPipeline(c.pipeline)
			cur = c.pipeline
		}
		pass.SetBindGroup(0, c.group, nil)
		pass.DispatchWorkgroups(c.groups[0], c.groups[1], c.groups[2])
	}
	err = pass.End()
	pass.Release()
	if err != nil {
		return err
	}
	if err := enc.CopyBufferToBuffer(p.tokNative, 0, p.staging, 0, 4); err != nil {
		return err
	}
	cb, err := enc.Finish(nil)
	if err != nil {
		return err
	}
	p.queue.Submit(cb)
	cb.Release()
	return nil
}

// token maps the staging buffer the last step copied the token into,
// polling the device until the map completes (the GPU finished the step).
func (p *rawPath) token() (uint32, error) {
	var status webgpu.BufferMapAsyncStatus = math.MaxUint32
	if err := p.staging.MapAsync(webgpu.MapModeRead, 0, 4, func(s webgpu.BufferMapAsyncStatus) { status = s }); err != nil {
		return 0, err
	}
	for status == math.MaxUint32 {
		p.dev.Poll(true, nil)
	}
	if status != webgpu.BufferMapAsyncStatusSuccess {
		return 0, fmt.Errorf("map the token: %v", status)
	}
	v := binary.LittleEndian.Uint32(p.staging.GetMappedRange(0, 4))
	return v, p.staging.Unmap()
}

func (p *rawPath) close() {
	for _, c := range p.cmds {
		c.group.Release()
	}
	for _, pl := range p.pipelines {
		if pl != nil {
			pl.Release()
		}
	}
	for _, b := range p.uniforms {
		b.Release()
	}
	if p.staging != nil {
		p.staging.Release()
	}
	p.st.release()
}
