package recorder

import (
	"fmt"

	"github.com/softgraph/softgraph/wgpu"
)

// Arg is one launch argument, bound to @group(0) @binding(i) for the i-th
// argument: a *Buffer (a storage binding, or a uniform one if it fits) or
// Params (a small uniform served from the metadata cache).
type Arg interface{ isArg() }

func (*Buffer) isArg() {}

// Params is a uniform argument given by value: its bytes (a positive
// multiple of 4, at most the device's maxUniformBufferBindingSize) are
// uploaded once per distinct content and cached, so a loop launching with
// the same params reuses one uniform slice. Bind it to a var<uniform>.
type Params []byte

func (Params) isArg() {}

// ParamsOf packs values as a Params uniform, little-endian, in order: the
// layout of a WGSL struct whose fields are all 4-byte scalars (u32, i32,
// f32) — ParamsOf[uint32](n, 0, 0, 0) for struct { n: u32, ... }. Mixed
// types go through the byte form: Params(b).
func ParamsOf[T ~int32 | ~uint32 | ~float32](v ...T) Params {
	return append(Params(nil), asBytes(v)...)
}

// Dispatch is how many workgroups a launch runs: Groups(x, y, z) counts
// fixed now, or Indirect(buf, offset) counts the GPU reads from a buffer
// when the dispatch executes (also when a graph replays it).
type Dispatch struct {
	x, y, z    uint32
	isIndirect bool
	indirect   *Buffer
	offset     uint64
}

// Groups dispatches x×y×z workgroups; each must be between 1 and the
// device's maxComputeWorkgroupsPerDimension.
func Groups(x, y, z uint32) Dispatch { return Dispatch{x: x, y: y, z: z} }

// Indirect dispatches the three little-endian u32 counts stored in buf at
// offset (a multiple of 4). The counts are read by the GPU when the
// dispatch runs; WebGPU does not check them against the device's limits,
// so keeping them within maxComputeWorkgroupsPerDimension is the caller's
// job.
func Indirect(buf *Buffer, offset uint64) Dispatch {
	return Dispatch{isIndirect: true, indirect: buf, offset: offset}
}

func (d Dispatch) String() string {
	if d.isIndirect {
		return fmt.Sprintf("indirect(%v @%d)", d.indirect, d.offset)
	}
	return fmt.Sprintf("groups(%d,%d,%d)", d.x, d.y, d.z)
}

// resolved is a launch after host validation and resolution: its bindings,
// the pages and params entries they came from, and the dispatch.
type resolved struct {
	k        *wgpu.Kernel
	bindings [maxCachedBindings]wgpu.Binding
	more     []wgpu.Binding // bindings past the eighth
	pages    [maxCachedBindings]*page
	morePg   []*page
	writable [maxCachedBindings]bool
	moreW    []bool
	metas    [maxCachedBindings]*metaEntry
	moreMeta []*metaEntry
	n        int
	d        Dispatch
	ind      *page
}

func (r *resolved) binding(i int) *wgpu.Binding {
	if i < maxCachedBindings {
		return &r.bindings[i]
	}
	return &r.more[i-maxCachedBindings]
}

func (r *resolved) list() []wgpu.Binding {
	if r.n <= maxCachedBindings {
		return r.bindings[:r.n]
	}
	return append(r.bindings[:maxCachedBindings:maxCachedBindings], r.more...)
}

func (r *resolved) setPage(i int, pg *page, w bool) {
	if i < maxCachedBindings {
		r.pages[i], r.writable[i] = pg, w
		return
	}
	r.morePg = append(r.morePg, pg)
	r.moreW = append(r.moreW, w)
}

func (r *resolved) page(i int) (*page, bool) {
	if i < maxCachedBindings {
		return r.pages[i], r.writable[i]
	}
	return r.morePg[i-maxCachedBindings], r.moreW[i-maxCachedBindings]
}

func (r *resolved) setMeta(i int, e *metaEntry) {
	if i < maxCachedBindings {
		r.metas[i] = e
		return
	}
	for len(r.moreMeta) <= i-maxCachedBindings {
		r.moreMeta = append(r.moreMeta, nil)
	}
	r.moreMeta[i-maxCachedBindings] = e
}

func (r *resolved) meta(i int) *metaEntry {
	if i < maxCachedBindings {
		return r.metas[i]
	}
	if j := i - maxCachedBindings; j < len(r.moreMeta) {
		return r.moreMeta[j]
	}
	return nil
}

// Launch runs kernel k over d workgroups with args bound to @group(0)
// @binding(0..n-1) in order. It is asynchronous: the launch is enqueued in
// stream order and runs when its batch is submitted.
//
// Host-side errors are returned on the spot and nothing is enqueued: a nil
// kernel or buffer, a released buffer, a buffer or kernel of another
// device, the wrong number or kind of arguments for the kernel, a buffer
// bound both read-write and read-only (or as the indirect buffer) in one
// launch, zero or over-limit workgroup counts, a misaligned or out-of-range
// indirect offset. Errors only the device can see are queued and returned
// by the next Sync, Read, EndProfile or EndCapture.
//
// While recording (State() == lifecycle.Capture) the launch is resolved
// (bindings, params uniform, bind group) and appended to the recording
// instead of executing.
func (s *Stream) Launch(k *wgpu.Kernel, d Dispatch, args ...Arg) error {
	if err := s.check("Launch"); err != nil {
		return err
	}
	var r resolved
	if err := s.validate(k, d, args, &r); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return closedError("Launch")
	}
	if err := s.resolveParams(args, &r); err != nil {
		return err
	}
	g, err := s.bindGroup(k, r.list())
	if err != nil {
		return &Error{Op: "Launch", Arg: "kernel " + k.Entry(), Err: err}
	}
	if s.state.IsRecording() {
		s.rec.add(s, &r, g)
		return nil
	}
	if !s.enc.PassOpen() {
		if err := s.beginPass(); err != nil {
			g.unref()
			return &Error{Op: "Launch", Err: err}
		}
	}
	s.enc.SetKernel(k)
	s.enc.SetBindGroup(g.bg)
	if r.d.indirect != nil {
		s.enc.DispatchIndirect(r.ind.buf, r.d.offset)
		s.touch(r.ind)
	} else {
		s.enc.Dispatch(r.d.x, r.d.y, r.d.z)
	}
	s.batch.groups = append(s.batch.groups, g)
	for i := 0; i < r.n; i++ {
		if pg, _ := r.page(i); pg != nil {
			s.touch(pg)
		} else if e := r.meta(i); e != nil {
			e.lastGen = s.gen
		}
	}
	s.batch.launches++
	if s.enc.Commands >= s.nextSubmit {
		s.flushLocked()
	}
	return nil
}

// validate checks everything about a launch that the host can know, before
// taking the stream's lock, and fills r's storage bindings.
func (s *Stream) validate(k *wgpu.Kernel, d Dispatch, args []Arg, r *resolved) error {
	if k == nil {
		return argError("Launch", ErrInvalidArgument, "kernel is nil")
	}
	if k.Device() != s.dev {
		return argError("Launch", ErrForeignDevice, "kernel %q was compiled on another device", k.Entry())
	}
	if len(args) != k.NumBindings() {
		return argError("Launch", ErrInvalidArgument, "%d argument(s) for kernel %q, which declares %d binding(s)", len(args), k.Entry(), k.NumBindings())
	}
	lim := s.dev.Info().Limits
	r.k, r.n, r.d = k, len(args), d
	if r.n > maxCachedBindings {
		r.more = make([]wgpu.Binding, r.n-maxCachedBindings)
	}
	for i, a := range args {
		kind := k.Binding(i)
		switch a := a.(type) {
		case *Buffer:
			if why, sentinel := a.problem(s); sentinel != nil {
				return argError("Launch", sentinel, "argument %d of kernel %q %s", i, k.Entry(), why)
			}
			if kind == wgpu.BindUniform && a.size > lim.MaxUniformBufferBindingSize {
				return argError("Launch", ErrInvalidArgument, "argument %d of kernel %q: a %d-byte buffer exceeds maxUniformBufferBindingSize %d for uniform @binding(%d)", i, k.Entry(), a.size, lim.MaxUniformBufferBindingSize, i)
			}
			if kind != wgpu.BindUniform && a.size > lim.MaxStorageBufferBindingSize {
				return argError("Launch", ErrInvalidArgument, "argument %d of kernel %q: a %d-byte buffer exceeds maxStorageBufferBindingSize %d", i, k.Entry(), a.size, lim.MaxStorageBufferBindingSize)
			}
			*r.binding(i) = wgpu.Binding{Buffer: a.pg.buf, Size: a.size}
			r.setPage(i, a.pg, kind == wgpu.BindStorage)
		case Params:
			if kind != wgpu.BindUniform {
				return argError("Launch", ErrInvalidArgument, "argument %d of kernel %q is Params, but @binding(%d) is %s (pass a *Buffer)", i, k.Entry(), i, kind)
			}
			if len(a) == 0 || len(a)%4 != 0 || uint64(len(a)) > lim.MaxUniformBufferBindingSize {
				return argError("Launch", ErrInvalidArgument, "argument %d of kernel %q: Params of %d bytes (a positive multiple of 4, at most %d)", i, k.Entry(), len(a), lim.MaxUniformBufferBindingSize)
			}
			r.setPage(i, nil, false)
		case nil:
			return argError("Launch", ErrInvalidArgument, "argument %d of kernel %q is nil", i, k.Entry())
		default:
			return argError("Launch", ErrInvalidArgument, "argument %d of kernel %q has unsupported type %T", i, k.Entry(), a)
		}
	}
	// wgpu tracks usage per buffer: within one dispatch a buffer bound
	// read-write may not also be bound read-only, as a uniform, or be the
	// indirect buffer. Refused here, the launch fails alone instead of
	// invalidating every launch in its batch.
	for i := 0; i < r.n; i++ {
		pi, wi := r.page(i)
		if pi == nil {
			continue
		}
		for j := i + 1; j < r.n; j++ {
			pj, wj := r.page(j)
			if pj == pi && wi != wj {
				return argError("Launch", ErrInvalidArgument, "arguments %d and %d of kernel %q are the same buffer, bound once read-write and once read-only; wgpu refuses that usage conflict", i, j, k.Entry())
			}
		}
	}
	if d.isIndirect {
		b := d.indirect
		if err := b.usable("Launch", "indirect buffer", s); err != nil {
			return err
		}
		if d.offset%4 != 0 || d.offset > b.size || b.size-d.offset < 12 {
			return argError("Launch", ErrInvalidArgument, "indirect offset=%d into a %d-byte buffer (a multiple of 4 with 12 bytes after it)", d.offset, b.size)
		}
		for i := 0; i < r.n; i++ {
			if pg, w := r.page(i); pg == b.pg && w {
				return argError("Launch", ErrInvalidArgument, "the indirect buffer is also argument %d of kernel %q, bound read-write; wgpu refuses that usage conflict", i, k.Entry())
			}
		}
		r.ind = b.pg
		return nil
	}
	max := lim.MaxComputeWorkgroupsPerDimension
	if d.x == 0 || d.y == 0 || d.z == 0 || d.x > max || d.y > max || d.z > max {
		return argError("Launch", ErrInvalidArgument, "workgroups=(%d,%d,%d) for kernel %q (each 1..%d, the device's maxComputeWorkgroupsPerDimension)", d.x, d.y, d.z, k.Entry(), max)
	}
	return nil
}

// resolveParams serves each Params argument from the metadata cache (under
// the stream's lock: the cache belongs to the stream).
func (s *Stream) resolveParams(args []Arg, r *resolved) error {
	for i, a := range args {
		p, ok := a.(Params)
		if !ok {
			continue
		}
		e, err := s.meta.lookup(p, s.gen, s.state.CacheMode(), &s.batch.slots)
		if err != nil {
			return &Error{Op: "Launch", Arg: fmt.Sprintf("argument %d (params)", i), Err: err}
		}
		*r.binding(i) = wgpu.Binding{Buffer: e.buf, Offset: e.off, Size: e.size}
		r.setMeta(i, e)
	}
	return nil
}

// beginPass opens a compute pass, with timestamp writes while a profile
// runs.
func (s *Stream) beginPass() error {
	return s.enc.BeginPass(s.prof.nextPass())
}
