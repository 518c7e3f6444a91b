package recorder

import (
	"fmt"
	"strings"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/paramcache"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// Arg is one launch argument, bound to the kernel's bindings in the order
// wgpu.Kernel.Bindings lists them (by group, then binding number), or in
// the order wgpu.Kernel.DeclaredBindings lists them (see Stream.Launch): a
// *Buffer (a storage binding, or a uniform one if it fits), Params (a small
// read-only value served from the metadata cache), StructParams, a *Var, a
// *Texture or a *Sampler.
type Arg interface{ isArg() }

func (*Buffer) isArg()  {}
func (*Texture) isArg() {}
func (*Sampler) isArg() {}

// Params is a read-only argument given by value: its bytes (a positive
// multiple of 4) are uploaded once per distinct content and cached, so a
// loop launching with the same params reuses one slice of the stream's
// params buffers. Bind it to a var<uniform> (at most the device's
// maxUniformBufferBindingSize; the binding is the bytes zero-padded to a
// multiple of 16) or to a var<storage, read> (at most
// maxStorageBufferBindingSize; the binding is exactly the bytes, so
// arrayLength of a runtime-sized array counts the elements given), as
// Cogent Core's gosl declares parameter structs. Both come from the same
// cache: its buffers have uniform and storage usage, and its slices are
// aligned to both minUniformBufferOffsetAlignment and
// minStorageBufferOffsetAlignment. ParamsOf, ParamsFrom and StructParams
// build one.
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
	size           uint64 // the binding's size (params: the cached slice's, or for storage the bytes given)
	write          bool
	storage        bool // params bound to a var<storage, read>: size is the bytes given
	group, binding uint32
}

// entry is the bind group entry of a resolved access.
func (a *access) entry() driver.Entry {
	e := driver.Entry{Binding: a.binding}
	switch a.kind {
	case accessBuffer:
		e.Buffer, e.Size = a.pg.Buffer(), a.size
	case accessParams:
		e.Buffer, e.Offset, e.Size = a.meta.Page.Buf, a.meta.Off, a.size
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
// k.Bindings() lists them, or, when the kernel's module declares bindings
// its entry point does not use, in the order k.DeclaredBindings() lists
// them, one argument for each (as code generated by Cogent Core's gosl
// passes them). An argument for an unused binding is checked like the
// others and then not bound: the kernel's pipeline layout holds only the
// bindings its entry point uses. WithStrictBindings(true) refuses that
// second list. It is asynchronous: the launch is enqueued in
// stream order and runs when its batch is submitted (when the batch is
// full, after the flush delay, or at the next Sync, Read or Flush).
//
// Host-side errors are returned on the spot and nothing is enqueued: a nil
// or released kernel, buffer, texture or sampler, one of another device, the
// wrong number or kind of arguments for the kernel, a buffer smaller than
// its binding needs, a texture of the wrong dimension or format, a resource
// bound both writable and read-only in one launch (or as the indirect
// buffer too), zero or over-limit workgroup counts, a misaligned or
// out-of-range indirect offset. Each is an *Error whose Kernel names k by
// its label and entry point (`recorder: Launch: kernel "blur" (entry point
// main): argument 1 (...): ...`). Errors only the device can see are queued
// and returned by the next Sync, Read, EndProfile or EndCapture; the
// kernel's native objects (module, layouts, pipeline) carry its label
// ("blur (main)"), so a message of wgpu-native's that names one of them
// names the kernel.
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

// ownKernel is a kernel the stream compiled through its driver (a loaded
// graph's, the CopyIndirect kernel), launched as a handle: the caller
// cannot make one, so only the recorder's own kernels skip the driver's
// handle lookup.
type ownKernel struct{ driver.Kernel }

// kernelOf is the driver view of a launched handle: an ownKernel's own, or
// what the driver resolves a public handle to (refusing other devices' and
// released kernels).
func (s *Stream) kernelOf(k driver.KernelHandle) (driver.Kernel, error) {
	if own, ok := k.(ownKernel); ok {
		if own.Released() {
			return nil, fmt.Errorf("recorder: kernel %q: %w", own.Entry(), ErrReleased)
		}
		return own.Kernel, nil
	}
	return s.drv.Kernel(k)
}

// launch is Launch of any driver's kernel handle (tests pass the fake's).
func (s *Stream) launch(k driver.KernelHandle, d Dispatch, args []Arg) (err error) {
	const op = lifecycle.Launch
	if err := s.check(op); err != nil {
		return launchError(op, k, err)
	}
	// One transaction (it allocates nothing: the engine keeps the last
	// one for the next). A Launch records inside the window: never
	// refused there.
	err = s.eng.Do(op, func(tx *engine.Tx) (err error) {
		// Every error names the kernel before it is queued, so a failed
		// EndCapture names it too; both run in the admitting hold.
		defer s.failsOnReturn(op, &err)
		defer func() { err = launchError(op, k, err) }()
		return s.launchTx(tx, k, d, args)
	})
	return launchError(op, k, err) // a refusal by the gate; idempotent on the rest
}

// launchTx is a Launch in its transaction.
func (s *Stream) launchTx(tx *engine.Tx, k driver.KernelHandle, d Dispatch, args []Arg) error {
	const op = lifecycle.Launch
	v := tx.Verdict()
	l := &s.scratch.launch
	defer l.reset()
	if err := s.resolve(op, k, d, args, l); err != nil {
		l.release()
		return err
	}
	if s.cfg.checks {
		if err := s.checkLaunch(op, l, v != lifecycle.Record); err != nil {
			l.release()
			return err
		}
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
	return s.encodeLaunch(tx, op, l)
}

// reset clears a scratch launch for the next one, dropping pointers so
// nothing is kept alive by the scratch. Only the inline accesses this
// launch filled are cleared (the rest are zero already): the whole array
// is most of the struct, and clearing it on every launch cost a tenth of
// the launch path (BenchmarkLaunchPathOnTheFake).
func (l *launch) reset() {
	switch {
	case cap(l.acc) == maxInline && len(l.acc) > 0 && &l.acc[0] == &l.inline[0]:
		clear(l.inline[:len(l.acc)])
	case cap(l.acc) == maxInline || l.acc == nil:
		// inline[:0] with nothing appended, or no accesses: nothing written.
	default:
		// The accesses outgrew inline (more arguments than fit, or the
		// checks' two added to a full one): some may have been written
		// there before they moved.
		clear(l.inline[:])
	}
	l.k, l.res, l.acc, l.d, l.ind, l.groups = nil, nil, nil, Dispatch{}, nil, [4]*bindGroup{}
}

// encodeLaunch encodes a bound launch into the open batch, which takes over
// its page references. The caller holds s.mu.
func (s *Stream) encodeLaunch(tx *engine.Tx, op lifecycle.Op, l *launch) error {
	groups := s.scratch.groups[:l.k.Groups()]
	clear(groups)
	for i := range groups {
		if l.groups[i] != nil {
			groups[i] = l.groups[i].bg
		}
	}
	var err error
	if s.profiling() != nil && !s.eng.Enc().PassOpen() {
		err = s.beginProfiledPass()
	}
	if err != nil {
	} else if l.d.isIndirect {
		err = s.eng.Enc().DispatchIndirect(l.k, groups, l.ind.Buffer(), l.d.offset)
	} else {
		err = s.eng.Enc().Dispatch(l.k, groups, l.d.x, l.d.y, l.d.z)
	}
	if err != nil {
		l.release()
		return &Error{Op: op.String(), Kernel: errKernelName(l.k.Label(), l.k.Entry()), Err: err}
	}
	for i := range l.acc {
		a := &l.acc[i]
		switch a.kind {
		case accessBuffer:
			s.hold(a.pg)
		case accessParams:
			a.meta.LastGen = s.eng.Gen()
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
	s.eng.AddDispatches(1)
	s.enqueuedBy(tx)
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
// takes references on its resources. The caller holds s.mu.
//
// args follow the kernel's Resources, or its Declared list when the module
// declares bindings the entry point does not use and args has one for each
// (unless the stream is WithStrictBindings). An argument for an unused
// binding is checked as if it were bound, then dropped: the pipeline
// layout holds only Resources, so a bind group cannot carry it, and l.acc
// stays one access per resource, in Resources' order, whichever list the
// caller passed (fusion, graph files and rebinding rely on that).
func (s *Stream) resolve(op lifecycle.Op, k driver.KernelHandle, d Dispatch, args []Arg, l *launch) error {
	if k == nil {
		return argError(op, ErrInvalidArgument, "kernel is nil")
	}
	kd, err := s.kernelOf(k)
	if err != nil {
		return &Error{Op: op.String(), Kernel: errKernelName(k.Label(), k.Entry()), Err: err}
	}
	l.k, l.res, l.d = kd, kd.Resources(), d
	if kd.Groups() > len(l.groups) {
		// Every dispatch carries four bind-group slots (devices offer no
		// more; see wgpu's sg_request_device).
		return argError(op, ErrInvalidArgument, "the kernel uses %d bind groups; at most %d are supported", kd.Groups(), len(l.groups))
	}
	decl := kd.Declared()
	byDecl := false
	switch {
	case len(args) == len(l.res):
	case len(decl) > len(l.res) && len(args) == len(decl) && s.cfg.strictBindings:
		return argError(op, ErrInvalidArgument, "%d argument(s), one for each binding the module declares (%s); the entry point binds %d (%s), and the stream is WithStrictBindings(true)",
			len(args), signature(decl), len(l.res), signature(l.res))
	case len(decl) > len(l.res) && len(args) == len(decl):
		byDecl = true
	case len(decl) > len(l.res):
		return argError(op, ErrInvalidArgument, "%d argument(s) for a kernel which binds %d (%s) and whose module declares %d (%s)",
			len(args), len(l.res), signature(l.res), len(decl), signature(decl))
	default:
		return argError(op, ErrInvalidArgument, "%d argument(s) for a kernel which binds %d: %s", len(args), len(l.res), signature(l.res))
	}
	if len(l.res) <= maxInline {
		l.acc = l.inline[:0]
	} else {
		l.acc = make([]access, 0, len(l.res))
	}
	next := 0 // the next of l.res that args[i] may be, by declared order
	for i, a := range args {
		var r driver.Resource
		used := true
		if byDecl {
			// decl holds l.res and both are sorted by (group, binding).
			r = decl[i]
			used = next < len(l.res) && l.res[next].Group == r.Group && l.res[next].Binding == r.Binding
			if used {
				next++
			}
		} else {
			r = l.res[i]
		}
		ac := access{group: r.Group, binding: r.Binding}
		if err := s.resolveArg(op, i, r, used, a, &ac); err != nil {
			ac.drop()
			return err
		}
		if used {
			l.acc = append(l.acc, ac)
		} else {
			ac.drop() // checked; the kernel does not read it
		}
	}
	if err := conflict(l.acc, nil); err != nil {
		return argError(op, ErrInvalidArgument, "%v", err)
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
			return argError(op, ErrInvalidArgument, "%v", err)
		}
		return nil
	}
	lim := &s.limits
	max := lim.MaxComputeWorkgroupsPerDimension
	if d.x == 0 || d.y == 0 || d.z == 0 || d.x > max || d.y > max || d.z > max {
		return argError(op, ErrInvalidArgument, "workgroups=(%d,%d,%d) (each 1..%d, the device's maxComputeWorkgroupsPerDimension)", d.x, d.y, d.z, max)
	}
	return nil
}

// resolveArg checks argument i, a, against binding r and fills ac with
// it, taking a reference on its resource. used says whether the entry
// point uses r (messages say so when it does not). On error ac holds
// whatever reference was taken, for the caller to drop.
func (s *Stream) resolveArg(op lifecycle.Op, i int, r driver.Resource, used bool, a Arg, ac *access) error {
	lim := &s.limits
	where := func() string {
		unused := ""
		if !used {
			unused = ", declared and not used by the entry point"
		}
		return fmt.Sprintf("argument %d (@group(%d) @binding(%d) %s, %s%s)", i, r.Group, r.Binding, r.Name, wgpu.BindingKind(r.Kind), unused)
	}
	if sp, ok := a.(structParams); ok {
		// Laid out now, by the address space of the binding it meets.
		p, err := paramsFrom(sp.v, r.Kind != driver.ResourceUniform)
		if err != nil {
			return argError(op, ErrInvalidArgument, "%s: StructParams: %v", where(), err)
		}
		a = p
	}
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
		limit, limitName := lim.MaxUniformBufferBindingSize, "maxUniformBufferBindingSize"
		switch r.Kind {
		case driver.ResourceUniform:
		case driver.ResourceReadOnlyStorage:
			limit, limitName = lim.MaxStorageBufferBindingSize, "maxStorageBufferBindingSize"
		default:
			return argError(op, ErrInvalidArgument, "%s is Params; Params are read-only: bind them to a var<uniform> or a var<storage, read>", where())
		}
		if len(a) == 0 || len(a)%4 != 0 || uint64(len(a)) > limit {
			return argError(op, ErrInvalidArgument, "%s: Params of %d bytes (a positive multiple of 4, at most %d, the device's %s)", where(), len(a), limit, limitName)
		}
		// A uniform binds the bytes padded to 16 (zeros after them); a
		// storage binding binds exactly the bytes given.
		size := (uint64(len(a)) + 15) &^ 15
		if r.Kind == driver.ResourceReadOnlyStorage {
			size = uint64(len(a))
		}
		if size < r.MinSize {
			return argError(op, ErrInvalidArgument, "%s: Params of %d bytes; its type %s needs %d", where(), len(a), r.Type, r.MinSize)
		}
		ac.kind, ac.params, ac.storage = accessParams, a, r.Kind == driver.ResourceReadOnlyStorage
	case *Var:
		return s.resolveVar(op, a, r, ac, where)
	case *Texture:
		if r.Kind != driver.ResourceTexture && r.Kind != driver.ResourceStorageTexture {
			return argError(op, ErrInvalidArgument, "%s is a texture", where())
		}
		if why, sentinel := a.take(s); sentinel != nil {
			return argError(op, sentinel, "%s %s", where(), why)
		}
		ac.kind, ac.tex = accessTexture, a
		ac.write = r.Kind == driver.ResourceStorageTexture && r.Access != "read"
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
		if a.desc.Compare != (r.Kind == driver.ResourceComparisonSampler) {
			return argError(op, ErrInvalidArgument, "%s: a comparison sampler and a sampler are not interchangeable", where())
		}
	case nil:
		return argError(op, ErrInvalidArgument, "%s is nil", where())
	default:
		return argError(op, ErrInvalidArgument, "%s has unsupported type %T", where(), a)
	}
	return nil
}

// conflict reports a resource bound writable and also read-only (or as
// the indirect buffer, ind) in one dispatch: wgpu tracks usage per buffer
// and texture, and refuses that conflict for the whole command buffer.
// Refused here, the launch fails alone. Bound writable twice is one usage
// to wgpu, buffers and storage textures alike, and is accepted.
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
			if same && (a.write || b.write) && !(a.write && b.write) {
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
		e, err := s.meta.Lookup(a.params, s.eng.Gen(), s.eng.SubmittedGen(), s.life.State().CacheMode(), &s.eng.Open().Slots)
		if err != nil {
			return &Error{Op: op.String(), Arg: fmt.Sprintf("params of @group(%d) @binding(%d)", a.group, a.binding), Err: err}
		}
		a.meta, a.size = e, e.Size
		if a.storage {
			a.size = uint64(len(a.params)) // the bytes given, not the padded slot
		}
		a.params = nil
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
			return &Error{Op: op.String(), Kernel: errKernelName(k.Label(), k.Entry()), Arg: fmt.Sprintf("@group(%d)", g), Err: err}
		}
		out[g] = bg
	}
	return nil
}
