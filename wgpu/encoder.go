package wgpu

// #include "native.h"
import "C"

import (
	"strings"
	"unsafe"

	"github.com/softgraph/softgraph/internal/driver"
)

// encoder records commands into command buffers, one at a time, reusing
// itself after every Finish (driver.Encoder). It is not safe for concurrent
// use. The native state (encoder, open pass, the references kept for
// encoded commands) lives in C memory, so the encoding path allocates
// nothing in Go.
type encoder struct {
	life
	dev     *Device
	c       *C.sg_enc // owned; freed by freeNative
	targets []*buffer // MapRead buffers copied into since the last Finish (acquired, pending counted)
}

func (d *Device) newEncoder() (driver.Encoder, error) {
	const op = "NewEncoder"
	if err := d.enter(op); err != nil {
		return nil, err
	}
	defer d.leave()
	c := C.sg_enc_new(d.raw)
	if c == nil {
		return nil, opError(op, ErrInternal, "out of host memory")
	}
	e := &encoder{dev: d, c: c}
	if b := d.glBarrier; b != nil {
		foreign := C.int(0)
		if d.adopted {
			foreign = 1
		}
		C.sg_enc_gl(c, rawPipeline(b.pipeline), rawBindGroup(b.group), foreign)
	}
	e.init()
	d.live.encoders.Add(1)
	d.objs.add(e)
	return e, nil
}

func (e *encoder) Release() {
	if e != nil {
		e.dev.releaseGated(&e.life, e)
	}
}

func (e *encoder) releaseOwner() { e.release(e) }

func (e *encoder) freeNative() {
	e.dev.objs.remove(e)
	e.dev.scopeMu.Lock()
	e.dev.lockGL()
	C.sg_enc_free(e.c)
	e.dev.unlockGL()
	e.dev.scopeMu.Unlock()
	e.c = nil
	e.untarget()
	e.dev.live.encoders.Add(-1)
}

// begin admits a call: the device must be open and the encoder live.
func (e *encoder) begin(op string) error {
	if err := e.dev.enter(op); err != nil {
		return err
	}
	if !e.acquire() {
		e.dev.leave()
		return opError(op, ErrReleased, "encoder")
	}
	return nil
}

func (e *encoder) end() {
	e.drop(e)
	e.dev.leave()
}

// scoped runs f, which calls scoped C functions, under the device's scope
// lock, and returns the error the encoder's slot caught.
func (e *encoder) scoped(op string, f func()) error {
	e.dev.scopeMu.Lock()
	f()
	e.dev.scopeMu.Unlock()
	return errFrom(op, &e.c.err)
}

// open makes the native encoder if there is none.
func (e *encoder) open(op string) error {
	if e.c.enc != nil {
		return nil
	}
	return e.scoped(op, func() { C.sg_enc_open(e.c) })
}

// ensurePass opens a pass without timestamps if none is open.
func (e *encoder) ensurePass(op string) error {
	if e.c.pass != nil {
		return nil
	}
	if err := e.open(op); err != nil {
		return err
	}
	return e.scoped(op, func() { C.sg_enc_begin_pass(e.c, nil, 0, 0) })
}

func (e *encoder) endPass(op string) error {
	if e.c.pass == nil {
		return nil
	}
	return e.scoped(op, func() { C.sg_enc_end_pass(e.c) })
}

func (e *encoder) BeginPass(ts *driver.Timestamps) error {
	const op = "BeginPass"
	if err := e.begin(op); err != nil {
		return err
	}
	defer e.end()
	var set C.WGPUQuerySet
	var b, en uint32
	if ts != nil {
		if !e.dev.info.Timestamps {
			return opError(op, ErrInvalidArgument, "timestamps requested but the adapter has no timestamp-query feature")
		}
		q, err := e.dev.ownQueries(op, ts.Set)
		if err != nil {
			return err
		}
		defer q.drop(q)
		if ts.Begin >= q.count || ts.End >= q.count {
			return opError(op, ErrInvalidArgument, "timestamp indices %d and %d of a set of %d", ts.Begin, ts.End, q.count)
		}
		set, b, en = q.raw, ts.Begin, ts.End
	}
	if err := e.open(op); err != nil {
		return err
	}
	return e.scoped(op, func() { C.sg_enc_begin_pass(e.c, set, C.uint32_t(b), C.uint32_t(en)) })
}

// Prepare makes the native encoder and begins a pass ahead of the next
// command (driver.Encoder): the stream's submitter calls it on an encoder it
// has just finished, so that the caller recording the next batch into it
// makes no scoped call and never waits behind the submitter's own scoped
// Finish (measured on the H200: about 0.8 µs per replayed dispatch). A
// failure changes nothing: the next command opens what is missing and
// reports the error there.
func (e *encoder) Prepare() {
	if e.begin("Prepare") != nil {
		return
	}
	defer e.end()
	if e.c.pass != nil {
		return
	}
	if e.dev.sharedCall(func() { C.sg_enc_prepare_shared(e.c) }) {
		return
	}
	_ = e.scoped("Prepare", func() { C.sg_enc_prepare(e.c) })
}

func (e *encoder) EndPass() error {
	const op = "Pass.End"
	if err := e.begin(op); err != nil {
		return err
	}
	defer e.end()
	return e.endPass(op)
}

// dispatchArgs are the acquired objects of one dispatch and their raw
// handles.
type dispatchArgs struct {
	k      *Kernel
	groups [4]*bindGroup
	raws   *[4]C.WGPUBindGroup // where the raw handles go (C memory)
	n      int
	counts *buffer
}

func (a *dispatchArgs) drop() {
	if a.k != nil {
		a.k.drop(a.k)
	}
	for _, g := range a.groups[:a.n] {
		if g != nil {
			g.drop(g)
		}
	}
	if a.counts != nil {
		a.counts.drop(a.counts)
	}
}

// acquireDispatch checks a dispatch completely before anything is encoded:
// a command the device would refuse inside a pass poisons the whole
// command buffer (every dispatch since the last submit would be lost), and
// some refusals abort the process instead.
func (d *Device) acquireDispatch(op string, kx driver.Kernel, groups []driver.BindGroup, counts driver.Buffer, offset uint64, xyz [3]uint32, a *dispatchArgs) error {
	k, err := d.ownKernel(op, kx)
	if err != nil {
		return err
	}
	a.k = k
	if len(groups) != k.groups {
		return opError(op, ErrInvalidArgument, "%d bind groups for kernel %q, whose layout has %d", len(groups), k.entry, k.groups)
	}
	for i, gx := range groups {
		if gx == nil {
			if k.empty[i] == nil {
				return opError(op, ErrInvalidArgument, "bind group %d of kernel %q is nil but the group has bindings", i, k.entry)
			}
			a.raws[i] = rawBindGroup(k.empty[i])
			a.n = i + 1
			continue
		}
		g, err := d.ownGroup(op, gx)
		if err != nil {
			return err
		}
		a.groups[i], a.n = g, i+1
		if g.k != k || g.group != uint32(i) {
			return opError(op, ErrInvalidArgument, "bind group %d was made for another kernel or group than kernel %q's group %d", i, k.entry, i)
		}
		a.raws[i] = g.raw
	}
	if counts != nil {
		b, err := d.ownBuffer(op, "indirect buffer", counts)
		if err != nil {
			return err
		}
		a.counts = b
		if b.usage&driver.UsageIndirect == 0 {
			return opError(op, ErrInvalidArgument, "the indirect buffer lacks Indirect usage")
		}
		if offset%4 != 0 || offset > b.size || b.size-offset < 12 {
			return opError(op, ErrInvalidArgument, "indirect offset=%d into a %d-byte buffer (a multiple of 4 with 12 bytes after it)", offset, b.size)
		}
		return nil
	}
	max := d.info.Limits.MaxComputeWorkgroupsPerDimension
	if xyz[0] > max || xyz[1] > max || xyz[2] > max {
		return opError(op, ErrInvalidArgument, "workgroups=(%d,%d,%d) for kernel %q (each at most %d, the device's maxComputeWorkgroupsPerDimension)", xyz[0], xyz[1], xyz[2], k.entry, max)
	}
	return nil
}

func (e *encoder) Dispatch(k driver.Kernel, groups []driver.BindGroup, x, y, z uint32) error {
	return e.dispatch("Dispatch", k, groups, nil, 0, [3]uint32{x, y, z})
}

func (e *encoder) DispatchIndirect(k driver.Kernel, groups []driver.BindGroup, counts driver.Buffer, offset uint64) error {
	if counts == nil {
		return opError("DispatchIndirect", ErrInvalidArgument, "indirect buffer is nil")
	}
	return e.dispatch("DispatchIndirect", k, groups, counts, offset, [3]uint32{})
}

func (e *encoder) dispatch(op string, k driver.Kernel, groups []driver.BindGroup, counts driver.Buffer, offset uint64, xyz [3]uint32) error {
	if err := e.begin(op); err != nil {
		return err
	}
	defer e.end()
	a := dispatchArgs{raws: &e.c.scratch}
	defer a.drop()
	if err := e.dev.acquireDispatch(op, k, groups, counts, offset, xyz, &a); err != nil {
		return err
	}
	if err := e.ensurePass(op); err != nil {
		return err
	}
	var ind C.WGPUBuffer
	if a.counts != nil {
		ind = a.counts.raw
	}
	if e.c.gl != 0 {
		for i := 0; i < a.n; i++ {
			if g := a.groups[i]; g != nil {
				e.c.scratch_uses[i] = g.uses
			}
		}
	}
	C.sg_enc_dispatch(e.c, a.k.raw, C.uint32_t(a.n), ind, C.uint64_t(offset), C.uint32_t(xyz[0]), C.uint32_t(xyz[1]), C.uint32_t(xyz[2]))
	return nil
}

func (e *encoder) Encode(px driver.Program, from, to int) error {
	const op = "Encode"
	if err := e.begin(op); err != nil {
		return err
	}
	defer e.end()
	p, err := e.dev.ownProgram(op, px)
	if err != nil {
		return err
	}
	defer p.drop(p)
	if from < 0 || to > p.n || from > to {
		return opError(op, ErrInvalidArgument, "commands [%d, %d) of a program of %d", from, to, p.n)
	}
	cmds := unsafe.Slice(p.c.cmds, p.n)
	for i := from; i < to; {
		if k := cmds[i].kind; k == C.SG_COPY || k == C.SG_CLEAR {
			if err := e.endPass(op); err != nil {
				return err
			}
			if err := e.open(op); err != nil {
				return err
			}
			if err := e.scoped(op, func() { C.sg_enc_program_transfer(e.c, p.c, C.size_t(i)) }); err != nil {
				return err
			}
			i++
			continue
		}
		if err := e.ensurePass(op); err != nil {
			return err
		}
		i = int(C.sg_enc_program(e.c, p.c, C.size_t(i), C.size_t(to)))
	}
	return nil
}

// transfer prepares a command outside passes: the open pass ends, an
// encoder exists.
func (e *encoder) transfer(op string) error {
	if err := e.endPass(op); err != nil {
		return err
	}
	return e.open(op)
}

// target records a MapRead copy destination: it may not be mapped until
// the command buffer is submitted or dropped.
func (e *encoder) target(b *buffer) {
	if b.usage&driver.UsageMapRead == 0 {
		return
	}
	b.acquire()
	b.pending.Add(1)
	e.targets = append(e.targets, b)
}

func (e *encoder) untarget() {
	for _, b := range e.targets {
		b.pending.Add(-1)
		b.drop(b)
	}
	e.targets = e.targets[:0]
}

// ownCopy acquires a copy's source and destination and checks the range
// and usages (copyRange); on success the caller drops both.
func (d *Device) ownCopy(op string, sx driver.Buffer, so uint64, dx driver.Buffer, do, size uint64) (src, dst *buffer, err error) {
	if src, err = d.ownBuffer(op, "source", sx); err != nil {
		return nil, nil, err
	}
	if dst, err = d.ownBuffer(op, "destination", dx); err != nil {
		src.drop(src)
		return nil, nil, err
	}
	if err = copyRange(op, src, dst, so, do, size); err != nil {
		src.drop(src)
		dst.drop(dst)
		return nil, nil, err
	}
	return src, dst, nil
}

// ownClear acquires a clear's buffer and checks the range and usage
// (clearRange); on success the caller drops it.
func (d *Device) ownClear(op string, bx driver.Buffer, offset, size uint64) (*buffer, error) {
	b, err := d.ownBuffer(op, "buffer", bx)
	if err != nil {
		return nil, err
	}
	if err := clearRange(op, b, offset, size); err != nil {
		b.drop(b)
		return nil, err
	}
	return b, nil
}

func copyRange(op string, src, dst *buffer, so, do, size uint64) error {
	if so%4 != 0 || do%4 != 0 || size%4 != 0 {
		return opError(op, ErrInvalidArgument, "srcOffset=%d dstOffset=%d size=%d (multiples of 4)", so, do, size)
	}
	if so > src.size || size > src.size-so || do > dst.size || size > dst.size-do {
		return opError(op, ErrInvalidArgument, "size=%d past the end (src %d bytes at %d, dst %d bytes at %d)", size, src.size, so, dst.size, do)
	}
	if src == dst {
		return opError(op, ErrInvalidArgument, "source and destination are the same buffer (WebGPU refuses such a copy)")
	}
	if src.usage&driver.UsageCopySrc == 0 || dst.usage&driver.UsageCopyDst == 0 {
		return opError(op, ErrInvalidArgument, "the source needs CopySrc usage and the destination CopyDst")
	}
	if dst.mapping.Load() {
		return opError(op, ErrInvalidArgument, "the destination is mapped (a read of it has not finished)")
	}
	return nil
}

func (e *encoder) CopyBuffer(sx driver.Buffer, so uint64, dx driver.Buffer, do, size uint64) error {
	const op = "Copy"
	if err := e.begin(op); err != nil {
		return err
	}
	defer e.end()
	src, dst, err := e.dev.ownCopy(op, sx, so, dx, do, size)
	if err != nil {
		return err
	}
	defer src.drop(src)
	defer dst.drop(dst)
	if size == 0 {
		return nil
	}
	if err := e.transfer(op); err != nil {
		return err
	}
	e.target(dst)
	return e.scoped(op, func() {
		C.sg_enc_copy(e.c, src.raw, C.uint64_t(so), dst.raw, C.uint64_t(do), C.uint64_t(size))
	})
}

func (e *encoder) ClearBuffer(bx driver.Buffer, offset, size uint64) error {
	const op = "Clear"
	if err := e.begin(op); err != nil {
		return err
	}
	defer e.end()
	b, err := e.dev.ownClear(op, bx, offset, size)
	if err != nil {
		return err
	}
	defer b.drop(b)
	if size == 0 {
		return nil
	}
	if err := e.transfer(op); err != nil {
		return err
	}
	return e.scoped(op, func() { C.sg_enc_clear(e.c, b.raw, C.uint64_t(offset), C.uint64_t(size)) })
}

func clearRange(op string, b *buffer, offset, size uint64) error {
	if offset%4 != 0 || size%4 != 0 || offset > b.size || size > b.size-offset {
		return opError(op, ErrInvalidArgument, "offset=%d size=%d of a %d-byte buffer (multiples of 4, in range)", offset, size, b.size)
	}
	if b.usage&driver.UsageCopyDst == 0 {
		return opError(op, ErrInvalidArgument, "the buffer lacks CopyDst usage")
	}
	if b.mapping.Load() {
		return opError(op, ErrInvalidArgument, "the buffer is mapped")
	}
	return nil
}

// imageCopy checks a whole-texture copy through a buffer with rows
// bytesPerRow apart.
func imageCopy(op string, t *texture, b *buffer, offset uint64, bytesPerRow uint32) error {
	row := uint64(t.desc.Width) * uint64(t.fmt.size)
	if bytesPerRow%256 != 0 || uint64(bytesPerRow) < row {
		return opError(op, ErrInvalidArgument, "bytesPerRow=%d (a multiple of 256, at least %d)", bytesPerRow, row)
	}
	need := uint64(bytesPerRow)*uint64(t.desc.Height)*uint64(t.desc.Depth-1) + uint64(bytesPerRow)*uint64(t.desc.Height-1) + row
	if offset%uint64(t.fmt.size) != 0 || offset > b.size || need > b.size-offset {
		return opError(op, ErrInvalidArgument, "a %d×%d×%d %s texture needs %d bytes at offset %d of a %d-byte buffer", t.desc.Width, t.desc.Height, t.desc.Depth, t.desc.Format, need, offset, b.size)
	}
	return nil
}

func (e *encoder) CopyBufferToTexture(bx driver.Buffer, offset uint64, bytesPerRow uint32, tx driver.Texture) error {
	const op = "CopyBufferToTexture"
	if err := e.begin(op); err != nil {
		return err
	}
	defer e.end()
	b, err := e.dev.ownBuffer(op, "source", bx)
	if err != nil {
		return err
	}
	defer b.drop(b)
	t, err := e.dev.ownTexture(op, "destination", tx)
	if err != nil {
		return err
	}
	defer t.drop(t)
	if err := imageCopy(op, t, b, offset, bytesPerRow); err != nil {
		return err
	}
	if b.usage&driver.UsageCopySrc == 0 {
		return opError(op, ErrInvalidArgument, "the source lacks CopySrc usage")
	}
	if err := e.transfer(op); err != nil {
		return err
	}
	return e.scoped(op, func() {
		C.sg_enc_copy_b2t(e.c, b.raw, C.uint64_t(offset), C.uint32_t(bytesPerRow), C.uint32_t(t.desc.Height), t.raw,
			C.uint32_t(t.desc.Width), C.uint32_t(t.desc.Height), C.uint32_t(t.desc.Depth))
	})
}

func (e *encoder) CopyTextureToBuffer(tx driver.Texture, bx driver.Buffer, offset uint64, bytesPerRow uint32) error {
	const op = "CopyTextureToBuffer"
	if err := e.begin(op); err != nil {
		return err
	}
	defer e.end()
	t, err := e.dev.ownTexture(op, "source", tx)
	if err != nil {
		return err
	}
	defer t.drop(t)
	if e.dev.info.Backend == BackendGL && strings.HasSuffix(t.desc.Format, "snorm") {
		// wgpu's GL backend reads the texels back through a path that
		// clamps them to [0, 1]: every negative texel came back 0 on
		// Mesa's llvmpipe. Refused rather than silently wrong.
		return opError(op, ErrInvalidArgument, "copying a %s texture out on the OpenGL backend (its read-back clamps negative texels to 0; read it with textureLoad in a kernel)", t.desc.Format)
	}
	b, err := e.dev.ownBuffer(op, "destination", bx)
	if err != nil {
		return err
	}
	defer b.drop(b)
	if err := imageCopy(op, t, b, offset, bytesPerRow); err != nil {
		return err
	}
	if b.usage&driver.UsageCopyDst == 0 || b.mapping.Load() {
		return opError(op, ErrInvalidArgument, "the destination lacks CopyDst usage or is mapped")
	}
	if err := e.transfer(op); err != nil {
		return err
	}
	e.target(b)
	return e.scoped(op, func() {
		C.sg_enc_copy_t2b(e.c, t.raw, C.uint32_t(t.desc.Width), C.uint32_t(t.desc.Height), C.uint32_t(t.desc.Depth),
			b.raw, C.uint64_t(offset), C.uint32_t(bytesPerRow), C.uint32_t(t.desc.Height))
	})
}

func (e *encoder) ResolveQueries(qx driver.QuerySet, first, count uint32, dx driver.Buffer, offset uint64) error {
	const op = "ResolveQueries"
	if err := e.begin(op); err != nil {
		return err
	}
	defer e.end()
	q, err := e.dev.ownQueries(op, qx)
	if err != nil {
		return err
	}
	defer q.drop(q)
	b, err := e.dev.ownBuffer(op, "destination", dx)
	if err != nil {
		return err
	}
	defer b.drop(b)
	if count == 0 || first >= q.count || count > q.count-first {
		return opError(op, ErrInvalidArgument, "first=%d count=%d of a set of %d", first, count, q.count)
	}
	if offset%256 != 0 || offset > b.size || uint64(count)*8 > b.size-offset || b.usage&driver.UsageQueryResolve == 0 {
		return opError(op, ErrInvalidArgument, "offset=%d (a multiple of 256) and room for %d timestamps in a QueryResolve buffer of %d bytes", offset, count, b.size)
	}
	if err := e.transfer(op); err != nil {
		return err
	}
	return e.scoped(op, func() {
		C.sg_enc_resolve(e.c, q.raw, C.uint32_t(first), C.uint32_t(count), b.raw, C.uint64_t(offset))
	})
}

// PassOpen, Dispatches and Empty are read without an error to return; they
// still enter the device's gate, so Close cannot free the native state
// under them (after Close they answer as for a fresh encoder).
func (e *encoder) PassOpen() bool {
	if !e.dev.use.enter() {
		return false
	}
	defer e.dev.use.leave()
	return e.c != nil && e.c.pass != nil && e.c.idle_pass == 0
}

func (e *encoder) Dispatches() int {
	if !e.dev.use.enter() {
		return 0
	}
	defer e.dev.use.leave()
	if e.c == nil {
		return 0
	}
	return int(e.c.dispatches)
}

func (e *encoder) Empty() bool {
	if !e.dev.use.enter() {
		return true
	}
	defer e.dev.use.leave()
	return e.c == nil || e.c.enc == nil || (e.c.dispatches == 0 && e.c.others == 0)
}

func (e *encoder) Finish() (driver.CommandBuffer, error) {
	const op = "Finish"
	if err := e.begin(op); err != nil {
		return driver.CommandBuffer{}, err
	}
	defer e.end()
	if e.c.enc == nil {
		return driver.CommandBuffer{}, nil
	}
	n := int(e.c.dispatches)
	var cb C.WGPUCommandBuffer
	var err error
	// Shared mode: Finishes of several encoders run at once (the pass end
	// is most of a dispatch's host cost), and catch their errors without
	// scopes (native.c, sg_shared).
	if e.dev.sharedCall(func() { cb = C.sg_enc_finish_shared(e.c) }) {
		err = errFrom(op, &e.c.err)
	} else {
		err = e.scoped(op, func() { cb = C.sg_enc_finish(e.c) })
	}
	if cb == nil {
		e.untarget()
		if err == nil {
			err = &DeviceError{Op: op, Type: ErrorInternal, Message: "wgpu-native returned no command buffer"}
		}
		return driver.CommandBuffer{}, err
	}
	targets := e.targets
	e.targets = nil // the record now holds their acquisitions
	return e.dev.record(cb, n, targets), nil
}

func (e *encoder) Discard() {
	if e.begin("Discard") != nil {
		return
	}
	defer e.end()
	e.dev.scopeMu.Lock()
	C.sg_enc_discard(e.c)
	e.dev.scopeMu.Unlock()
	e.untarget()
}
