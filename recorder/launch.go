package recorder

import (
	"fmt"
	"strings"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/paramcache"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// Arg is one launch argument, bound to the kernel's bindings in the order
// wgpu.Kernel.Bindings lists them (by group, then binding number): a
// *Buffer (a storage binding, or a uniform one if it fits), Params (a small
// uniform served from the metadata cache), a *Texture or a *Sampler.
type Arg interface{ isArg() }

func (*Buffer) isArg()  {}
func (*Texture) isArg() {}
func (*Sampler) isArg() {}

// Params is a uniform argument given by value: its bytes (a positive
// multiple of 4, at most the device's maxUniformBufferBindingSize) are
// uploaded once per distinct content and cached, so a loop launching with
// the same params reuses one uniform slice. Bind it to a var<uniform>.
// ParamsOf and ParamsFrom build one.
type Params []byte

func (Params) isArg() {}

// ParamsOf packs values as a Params uniform, little-endian, in order: the
// layout of a WGSL struct whose fields are all 4-byte scalars (u32, i32,
// f32) — ParamsOf[uint32](n, 0, 0, 0) for struct { n: u32, ... }. Structs
// mixing types, arrays and vectors go through ParamsFrom.
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

// label is the dispatch as introspection shows it: "groups 4×1×1" or
// "indirect @0".
func (d Dispatch) label() string {
	if d.isIndirect {
		return fmt.Sprintf("indirect @%d", d.offset)
	}
	return fmt.Sprintf("groups %d×%d×%d", d.x, d.y, d.z)
}

// accessKind is what an access binds.
type accessKind uint8

const (
	accessBuffer accessKind = iota
	accessParams
	accessTexture
	accessSampler
)

// access is one binding of a dispatch, resolved: the resource and its
// range, whether the dispatch may write it, and where it binds. A resolved
// access holds one reference on its page, texture or sampler (or a pin on
// its params entry once recorded).
type access struct {
	kind           accessKind
	buf            *Buffer // the Buffer argument: Rebind matches on it
	params         Params  // the Params argument, until the cache resolves it
	pg             *pool.Page
	meta           *paramcache.Entry
	tex            *Texture
	smp            *Sampler
	size           uint64
	write          bool
	group, binding uint32
}

// entry is the bind group entry of a resolved access.
func (a *access) entry() driver.Entry {
	e := driver.Entry{Binding: a.binding}
	switch a.kind {
	case accessBuffer:
		e.Buffer, e.Size = a.pg.Buffer(), a.size
	case accessParams:
		e.Buffer, e.Offset, e.Size = a.meta.Page.Buf, a.meta.Off, a.meta.Size
	case accessTexture:
		e.Texture = a.tex.h.t
	case accessSampler:
		e.Sampler = a.smp.h.s
	}
	return e
}

// drop releases the reference a resolved (not recorded) access holds.
func (a *access) drop() {
	switch a.kind {
	case accessBuffer:
		if a.pg != nil {
			a.pg.Unref()
		}
	case accessTexture:
		if a.tex != nil {
			a.tex.h.unref()
		}
	case accessSampler:
		if a.smp != nil {
			a.smp.h.unref()
		}
	}
}

// maxInline is how many arguments a launch resolves without allocating.
const maxInline = 8

// launch is one launch after host validation and resolution.
type launch struct {
	k      driver.Kernel
	res    []driver.Resource
	inline [maxInline]access
	acc    []access
	d      Dispatch
	ind    *pool.Page // the indirect counts' page, referenced
	groups [4]*bindGroup
}

// release drops what a launch that did not go through still holds.
func (l *launch) release() {
	for i := range l.acc {
		l.acc[i].drop()
	}
	if l.ind != nil {
		l.ind.Unref()
	}
	for _, g := range l.groups {
		if g != nil {
			g.unref()
		}
	}
}

// Launch runs kernel k over d workgroups with args bound in the order
// k.Bindings() lists them. It is asynchronous: the launch is enqueued in
// stream order and runs when its batch is submitted (when the batch is
// full, after the flush delay, or at the next Sync, Read or Flush).
//
// Host-side errors are returned on the spot and nothing is enqueued: a nil
// or released kernel, buffer, texture or sampler, one of another device, the
// wrong number or kind of arguments for the kernel, a buffer smaller than
// its binding needs, a texture of the wrong dimension or format, a resource
// bound both writable and read-only in one launch (or as the indirect
// buffer too), zero or over-limit workgroup counts, a misaligned or
// out-of-range indirect offset. Errors only the device can see are queued
// and returned by the next Sync, Read, EndProfile or EndCapture.
//
// While recording (State() == lifecycle.Capture) the launch is resolved
// (bindings, params uniform, bind groups) and appended to the recording
// instead of executing.
func (s *Stream) Launch(k *wgpu.Kernel, d Dispatch, args ...Arg) error {
	var h driver.KernelHandle
	if k != nil { // a nil *wgpu.Kernel stays a nil handle
		h = k
	}
	return s.launch(h, d, args)
}

// launch is Launch of any driver's kernel handle (tests pass the fake's).
func (s *Stream) launch(k driver.KernelHandle, d Dispatch, args []Arg) (err error) {
	const op = lifecycle.Launch
	if err := s.check(op); err != nil {
		return err
	}
	defer s.noteRefusal(&err) // runs after the deferred unlock below
	if err := s.lock(op); err != nil {
		return err
	}
	v, err := s.admitLocked(op)
	if err != nil || v == lifecycle.DeferError {
		return err
	}
	defer s.mu.Unlock()
	l := &s.scratch.launch
	defer l.reset()
	if err := s.resolve(op, k, d, args, l); err != nil {
		l.release()
		return err
	}
	if err := s.bind(op, l); err != nil {
		l.release()
		return err
	}
	if v == lifecycle.Record {
		if l.ind != nil {
			if err := s.bodyBinds(op, d.indirect, "indirect buffer", false); err != nil {
				l.release()
				return err
			}
		}
		s.capturing().addLaunch(s, l)
		return nil
	}
	return s.encodeLaunch(op, l)
}

// reset clears a scratch launch for the next one, dropping pointers so
// nothing is kept alive by the scratch.
func (l *launch) reset() {
	clear(l.inline[:])
	*l = launch{}
}

// encodeLaunch encodes a bound launch into the open batch, which takes over
// its page references. The caller holds s.mu.
func (s *Stream) encodeLaunch(op lifecycle.Op, l *launch) error {
	groups := s.scratch.groups[:l.k.Groups()]
	clear(groups)
	for i := range groups {
		if l.groups[i] != nil {
			groups[i] = l.groups[i].bg
		}
	}
	var err error
	if s.profiling() != nil && !s.enc.PassOpen() {
		err = s.beginProfiledPass()
	}
	if err != nil {
	} else if l.d.isIndirect {
		err = s.enc.DispatchIndirect(l.k, groups, l.ind.Buffer(), l.d.offset)
	} else {
		err = s.enc.Dispatch(l.k, groups, l.d.x, l.d.y, l.d.z)
	}
	if err != nil {
		l.release()
		return &Error{Op: op.String(), Arg: "kernel " + l.k.Entry(), Err: err}
	}
	for i := range l.acc {
		a := &l.acc[i]
		switch a.kind {
		case accessBuffer:
			s.hold(a.pg)
		case accessParams:
			a.meta.LastGen = s.gen
		default:
			a.drop() // the bind group keeps the native object alive
		}
	}
	if l.ind != nil {
		s.hold(l.ind)
	}
	for i, g := range l.groups {
		if g != nil {
			g.unref() // the encoder keeps the native bind group alive
			l.groups[i] = nil
		}
	}
	s.batch.dispatches++
	s.enqueued(roomUnlocked)
	return nil
}

// signature lists a kernel's bindings for an argument-count message.
func signature(res []driver.Resource) string {
	if len(res) == 0 {
		return "no bindings"
	}
	var b strings.Builder
	for i, r := range res {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "@group(%d) @binding(%d) %s (%s)", r.Group, r.Binding, r.Name, wgpu.BindingKind(r.Kind))
	}
	return b.String()
}

// resolve checks everything about a launch that the host can know and
// takes references on its resources, before the stream's lock.
func (s *Stream) resolve(op lifecycle.Op, k driver.KernelHandle, d Dispatch, args []Arg, l *launch) error {
	if k == nil {
		return argError(op, ErrInvalidArgument, "kernel is nil")
	}
	kd, err := s.drv.Kernel(k)
	if err != nil {
		return &Error{Op: op.String(), Arg: "kernel " + k.Entry(), Err: err}
	}
	l.k, l.res, l.d = kd, kd.Resources(), d
	entry := kd.Entry()
	if kd.Groups() > len(l.groups) {
		// Every dispatch carries four bind-group slots (devices offer no
		// more; see wgpu's sg_request_device).
		return argError(op, ErrInvalidArgument, "kernel %q uses %d bind groups; at most %d are supported", entry, kd.Groups(), len(l.groups))
	}
	if len(args) != len(l.res) {
		return argError(op, ErrInvalidArgument, "%d argument(s) for kernel %q, which binds %d: %s", len(args), entry, len(l.res), signature(l.res))
	}
	if len(args) <= maxInline {
		l.acc = l.inline[:0]
	} else {
		l.acc = make([]access, 0, len(args))
	}
	lim := &s.limits
	for i, a := range args {
		r := l.res[i]
		where := func() string {
			return fmt.Sprintf("argument %d of kernel %q (@group(%d) @binding(%d) %s, %s)", i, entry, r.Group, r.Binding, r.Name, wgpu.BindingKind(r.Kind))
		}
		ac := access{group: r.Group, binding: r.Binding}
		switch a := a.(type) {
		case *Buffer:
			switch r.Kind {
			case driver.ResourceStorage, driver.ResourceReadOnlyStorage, driver.ResourceUniform:
			default:
				return argError(op, ErrInvalidArgument, "%s is a buffer", where())
			}
			pg, why, sentinel := a.take(s)
			if sentinel != nil {
				return argError(op, sentinel, "%s %s", where(), why)
			}
			ac.kind, ac.buf, ac.pg, ac.size, ac.write = accessBuffer, a, pg, a.size, r.Kind == driver.ResourceStorage
			l.acc = append(l.acc, ac)
			if r.Kind == driver.ResourceUniform && a.size > lim.MaxUniformBufferBindingSize {
				return argError(op, ErrInvalidArgument, "%s: a %d-byte buffer exceeds maxUniformBufferBindingSize %d", where(), a.size, lim.MaxUniformBufferBindingSize)
			}
			if r.Kind != driver.ResourceUniform && a.size > lim.MaxStorageBufferBindingSize {
				return argError(op, ErrInvalidArgument, "%s: a %d-byte buffer exceeds maxStorageBufferBindingSize %d", where(), a.size, lim.MaxStorageBufferBindingSize)
			}
			if a.size < r.MinSize {
				return argError(op, ErrInvalidArgument, "%s: a %d-byte buffer is smaller than its type %s needs (%d bytes)", where(), a.size, r.Type, r.MinSize)
			}
		case Params:
			if r.Kind != driver.ResourceUniform {
				return argError(op, ErrInvalidArgument, "%s is Params; pass Params to a var<uniform> only", where())
			}
			if len(a) == 0 || len(a)%4 != 0 || uint64(len(a)) > lim.MaxUniformBufferBindingSize {
				return argError(op, ErrInvalidArgument, "%s: Params of %d bytes (a positive multiple of 4, at most %d)", where(), len(a), lim.MaxUniformBufferBindingSize)
			}
			if padded := (uint64(len(a)) + 15) &^ 15; padded < r.MinSize {
				return argError(op, ErrInvalidArgument, "%s: Params of %d bytes; its type %s needs %d", where(), len(a), r.Type, r.MinSize)
			}
			ac.kind, ac.params = accessParams, a
			l.acc = append(l.acc, ac)
		case *Var:
			err := s.resolveVar(op, a, r.Kind == driver.ResourceUniform, r.Kind == driver.ResourceReadOnlyStorage, &ac, where)
			if ac.pg != nil {
				l.acc = append(l.acc, ac)
			}
			if err != nil {
				return err
			}
		case *Texture:
			if r.Kind != driver.ResourceTexture && r.Kind != driver.ResourceStorageTexture {
				return argError(op, ErrInvalidArgument, "%s is a texture", where())
			}
			if why, sentinel := a.take(s); sentinel != nil {
				return argError(op, sentinel, "%s %s", where(), why)
			}
			ac.kind, ac.tex = accessTexture, a
			ac.write = r.Kind == driver.ResourceStorageTexture && r.Access != "read"
			l.acc = append(l.acc, ac)
			if err := textureFits(r, a); err != nil {
				return argError(op, ErrInvalidArgument, "%s: %v", where(), err)
			}
		case *Sampler:
			if r.Kind != driver.ResourceSampler && r.Kind != driver.ResourceComparisonSampler {
				return argError(op, ErrInvalidArgument, "%s is a sampler", where())
			}
			if why, sentinel := a.take(s); sentinel != nil {
				return argError(op, sentinel, "%s %s", where(), why)
			}
			ac.kind, ac.smp = accessSampler, a
			l.acc = append(l.acc, ac)
			if a.desc.Compare != (r.Kind == driver.ResourceComparisonSampler) {
				return argError(op, ErrInvalidArgument, "%s: a comparison sampler and a sampler are not interchangeable", where())
			}
		case nil:
			return argError(op, ErrInvalidArgument, "%s is nil", where())
		default:
			return argError(op, ErrInvalidArgument, "%s has unsupported type %T", where(), a)
		}
	}
	if err := conflict(l.acc, nil); err != nil {
		return argError(op, ErrInvalidArgument, "kernel %q: %v", entry, err)
	}
	if d.isIndirect {
		b := d.indirect
		pg, err := b.acquire(op, "indirect buffer", s)
		if err != nil {
			return err
		}
		l.ind = pg
		if size := b.valueSize(); d.offset%4 != 0 || d.offset > size || size-d.offset < 12 {
			return argError(op, ErrInvalidArgument, "indirect offset=%d into a %d-byte %s (a multiple of 4 with 12 bytes after it)", d.offset, size, b.kindName())
		}
		if err := conflict(l.acc, pg); err != nil {
			return argError(op, ErrInvalidArgument, "kernel %q: %v", entry, err)
		}
		return nil
	}
	max := lim.MaxComputeWorkgroupsPerDimension
	if d.x == 0 || d.y == 0 || d.z == 0 || d.x > max || d.y > max || d.z > max {
		return argError(op, ErrInvalidArgument, "workgroups=(%d,%d,%d) for kernel %q (each 1..%d, the device's maxComputeWorkgroupsPerDimension)", d.x, d.y, d.z, entry, max)
	}
	return nil
}

// conflict reports a resource bound writable and also read-only (or as
// the indirect buffer, ind) in one dispatch: wgpu tracks usage per buffer
// and texture, and refuses that conflict for the whole command buffer.
// Refused here, the launch fails alone.
func conflict(acc []access, ind *pool.Page) error {
	for i := range acc {
		a := &acc[i]
		if a.kind != accessBuffer && a.kind != accessTexture {
			continue
		}
		if ind != nil && a.pg == ind && a.write {
			return fmt.Errorf("the indirect buffer is also @group(%d) @binding(%d), bound read-write; wgpu refuses that usage conflict", a.group, a.binding)
		}
		for j := i + 1; j < len(acc); j++ {
			b := &acc[j]
			same := (a.kind == accessBuffer && b.kind == accessBuffer && a.pg == b.pg) ||
				(a.kind == accessTexture && b.kind == accessTexture && a.tex.h == b.tex.h)
			if same && (a.write || b.write) && !(a.write && b.write && a.kind == accessBuffer) {
				return fmt.Errorf("@group(%d) @binding(%d) and @group(%d) @binding(%d) are the same resource, bound read-write and read-only in one dispatch; wgpu refuses that usage conflict", a.group, a.binding, b.group, b.binding)
			}
		}
	}
	return nil
}

// bind resolves params through the metadata cache and finds or makes the
// launch's bind groups. The caller holds s.mu (both caches are the
// stream's).
func (s *Stream) bind(op lifecycle.Op, l *launch) error {
	for i := range l.acc {
		a := &l.acc[i]
		if a.kind != accessParams {
			continue
		}
		e, err := s.meta.Lookup(a.params, s.gen, s.submittedGen, s.life.State().CacheMode(), &s.batch.slots)
		if err != nil {
			return &Error{Op: op.String(), Arg: fmt.Sprintf("params of @group(%d) @binding(%d)", a.group, a.binding), Err: err}
		}
		a.meta, a.size, a.params = e, e.Size, nil
	}
	return s.bindGroups(op, l.k, l.acc, &l.groups)
}

// bindGroups makes the bind group of every group that has accesses.
func (s *Stream) bindGroups(op lifecycle.Op, k driver.Kernel, acc []access, out *[4]*bindGroup) error {
	for g := 0; g < k.Groups(); g++ {
		group := s.scratch.accs[:0]
		for i := range acc {
			if int(acc[i].group) == g {
				group = append(group, &acc[i])
			}
		}
		if len(group) == 0 {
			continue
		}
		bg, err := s.bindGroup(k, uint32(g), group)
		clear(group)
		if err != nil {
			return &Error{Op: op.String(), Arg: fmt.Sprintf("kernel %s, @group(%d)", k.Entry(), g), Err: err}
		}
		out[g] = bg
	}
	return nil
}
