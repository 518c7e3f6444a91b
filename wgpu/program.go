package wgpu

// #include "native.h"
import "C"

import (
	"github.com/softgraph/softgraph/internal/driver"
)

// program is a prebuilt command list in C memory (driver.Program): the
// sealed form of a graph, encoded by Encoder.Encode with one cgo call per
// run of dispatches. It holds native references on everything its commands
// use, so it stays valid whoever releases their handles, until Release.
type program struct {
	life
	dev        *Device
	c          *C.sg_prog // reference-counted in C: ours, plus one per encoder that encoded it
	n          int
	dispatches int
}

func (d *Device) newProgram() (driver.Program, error) {
	const op = "NewProgram"
	if err := d.enter(op); err != nil {
		return nil, err
	}
	defer d.leave()
	c := C.sg_prog_new()
	if c == nil {
		return nil, opError(op, ErrInternal, "out of host memory")
	}
	p := &program{dev: d, c: c}
	p.init()
	d.live.programs.Add(1)
	d.objs.add(p)
	return p, nil
}

func (p *program) Len() int        { return p.n }
func (p *program) Dispatches() int { return p.dispatches }
func (p *program) Release() {
	if p != nil {
		p.dev.releaseGated(&p.life, p)
	}
}

func (p *program) releaseOwner() { p.release(p) }

func (p *program) freeNative() {
	p.dev.objs.remove(p)
	p.dev.lockGL()
	C.sg_prog_unref(p.c)
	p.dev.unlockGL()
	p.c = nil
	p.dev.live.programs.Add(-1)
}

func (q *program) dropSelf() { q.drop(q) }

func (d *Device) ownProgram(op string, x driver.Program) (*program, error) {
	p, ok := x.(*program)
	if !ok || p == nil {
		return nil, opError(op, ErrInvalidArgument, "program is nil or not a program of this package")
	}
	if p.dev != d {
		return nil, opError(op, ErrForeignDevice, "program")
	}
	if !p.acquire() {
		return nil, opError(op, ErrReleased, "program")
	}
	return p, nil
}

// add appends a command; the caller has acquired what it references.
func (p *program) add(op string, c *C.sg_cmd) error {
	if C.sg_prog_add(p.c, c) == 0 {
		return opError(op, ErrInternal, "out of host memory")
	}
	p.n++
	if c.kind == C.SG_DISPATCH || c.kind == C.SG_INDIRECT {
		p.dispatches++
	}
	return nil
}

func (p *program) begin(op string) error {
	if err := p.dev.enter(op); err != nil {
		return err
	}
	if !p.acquire() {
		p.dev.leave()
		return opError(op, ErrReleased, "program")
	}
	return nil
}

func (p *program) end() {
	p.drop(p)
	p.dev.leave()
}

func (p *program) Dispatch(k driver.Kernel, groups []driver.BindGroup, x, y, z uint32) error {
	return p.dispatch("Program.Dispatch", k, groups, nil, 0, [3]uint32{x, y, z})
}

func (p *program) DispatchIndirect(k driver.Kernel, groups []driver.BindGroup, counts driver.Buffer, offset uint64) error {
	if counts == nil {
		return opError("Program.DispatchIndirect", ErrInvalidArgument, "indirect buffer is nil")
	}
	return p.dispatch("Program.DispatchIndirect", k, groups, counts, offset, [3]uint32{})
}

func (p *program) dispatch(op string, k driver.Kernel, groups []driver.BindGroup, counts driver.Buffer, offset uint64, xyz [3]uint32) error {
	if err := p.begin(op); err != nil {
		return err
	}
	defer p.end()
	var raws [4]C.WGPUBindGroup
	a := dispatchArgs{raws: &raws}
	defer a.drop()
	if err := p.dev.acquireDispatch(op, k, groups, counts, offset, xyz, &a); err != nil {
		return err
	}
	c := C.sg_cmd{kind: C.SG_DISPATCH, ngroups: C.uint32_t(a.n), pipeline: a.k.raw,
		x: C.uint32_t(xyz[0]), y: C.uint32_t(xyz[1]), z: C.uint32_t(xyz[2])}
	for i := 0; i < a.n; i++ {
		c.groups[i] = a.raws[i]
		if g := a.groups[i]; g != nil {
			c.uses[i] = g.uses
		}
	}
	if a.counts != nil {
		c.kind, c.a, c.aoff = C.SG_INDIRECT, a.counts.raw, C.uint64_t(offset)
	}
	return p.add(op, &c)
}

func (p *program) CopyBuffer(sx driver.Buffer, so uint64, dx driver.Buffer, do, size uint64) error {
	const op = "Program.Copy"
	if err := p.begin(op); err != nil {
		return err
	}
	defer p.end()
	src, dst, err := p.dev.ownCopy(op, sx, so, dx, do, size)
	if err != nil {
		return err
	}
	defer src.drop(src)
	defer dst.drop(dst)
	if dst.usage&driver.UsageMapRead != 0 {
		return opError(op, ErrInvalidArgument, "a program may not copy into a MapRead buffer")
	}
	if size == 0 {
		return nil
	}
	return p.add(op, &C.sg_cmd{kind: C.SG_COPY, a: src.raw, aoff: C.uint64_t(so), b: dst.raw, boff: C.uint64_t(do), size: C.uint64_t(size)})
}

func (p *program) ClearBuffer(bx driver.Buffer, offset, size uint64) error {
	const op = "Program.Clear"
	if err := p.begin(op); err != nil {
		return err
	}
	defer p.end()
	b, err := p.dev.ownClear(op, bx, offset, size)
	if err != nil {
		return err
	}
	defer b.drop(b)
	if size == 0 {
		return nil
	}
	return p.add(op, &C.sg_cmd{kind: C.SG_CLEAR, a: b.raw, aoff: C.uint64_t(offset), size: C.uint64_t(size)})
}
