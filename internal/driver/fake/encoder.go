package fake

import (
	"encoding/binary"
	"fmt"

	"github.com/softgraph/softgraph/internal/driver"
)

type cmdKind uint8

const (
	cmdDispatch cmdKind = iota
	cmdIndirect
	cmdCopy
	cmdClear
	cmdBufferToTexture
	cmdTextureToBuffer
	cmdResolve
)

// cmd is one encoded command. It holds Go pointers to what it uses, which
// keeps them alive however their handles are released, as a native
// command's references do.
type cmd struct {
	kind     cmdKind
	k        *Kernel
	groups   []*bindGroup
	x, y, z  uint32
	a, b     *buffer // indirect counts / copy source / cleared; copy destination
	aoff     uint64
	boff     uint64
	size     uint64
	tex      *texture
	bpr      uint32
	resolveN uint32
}

func (c *cmd) String() string {
	switch c.kind {
	case cmdDispatch:
		return fmt.Sprintf("dispatch %s (%d,%d,%d)", c.k.spec.Entry, c.x, c.y, c.z)
	case cmdIndirect:
		return fmt.Sprintf("dispatch %s indirect %s@%d", c.k.spec.Entry, c.a.label, c.aoff)
	case cmdCopy:
		return fmt.Sprintf("copy %s@%d -> %s@%d +%d", c.a.label, c.aoff, c.b.label, c.boff, c.size)
	case cmdClear:
		return fmt.Sprintf("clear %s@%d +%d", c.a.label, c.aoff, c.size)
	case cmdBufferToTexture:
		return fmt.Sprintf("copy %s -> texture %s", c.a.label, c.tex.desc.Label)
	case cmdTextureToBuffer:
		return fmt.Sprintf("copy texture %s -> %s", c.tex.desc.Label, c.a.label)
	default:
		return fmt.Sprintf("resolve %d queries -> %s@%d", c.resolveN, c.a.label, c.aoff)
	}
}

// exec runs c on the queue goroutine, under the device's lock.
func (c *cmd) exec() {
	switch c.kind {
	case cmdDispatch, cmdIndirect:
		x, y, z := c.x, c.y, c.z
		if c.kind == cmdIndirect {
			w := c.a.data[c.aoff:]
			x, y, z = binary.LittleEndian.Uint32(w), binary.LittleEndian.Uint32(w[4:]), binary.LittleEndian.Uint32(w[8:])
		}
		if x == 0 || y == 0 || z == 0 || c.k.spec.Run == nil {
			return
		}
		bufs := make([][]byte, len(c.k.spec.Resources))
		for i, r := range c.k.spec.Resources {
			for _, g := range c.groups {
				if g == nil || g.group != r.Group {
					continue
				}
				for _, e := range g.entries {
					if e.Binding == r.Binding && e.Buffer != nil {
						fb := e.Buffer.(*buffer)
						size := e.Size
						if size == 0 {
							size = fb.size - e.Offset
						}
						bufs[i] = fb.data[e.Offset : e.Offset+size]
					}
				}
			}
		}
		c.k.spec.Run(Call{X: x, Y: y, Z: z, Bufs: bufs})
	case cmdCopy:
		copy(c.b.data[c.boff:c.boff+c.size], c.a.data[c.aoff:c.aoff+c.size])
	case cmdClear:
		clear(c.a.data[c.aoff : c.aoff+c.size])
	case cmdBufferToTexture, cmdTextureToBuffer:
		t := c.tex
		row := uint64(t.desc.Width) * uint64(t.texel)
		rows := uint64(t.desc.Height) * uint64(max(t.desc.Depth, 1))
		for r := uint64(0); r < rows; r++ {
			bo := c.aoff + r*uint64(c.bpr)
			if c.kind == cmdBufferToTexture {
				copy(t.data[r*row:(r+1)*row], c.a.data[bo:bo+row])
			} else {
				copy(c.a.data[bo:bo+row], t.data[r*row:(r+1)*row])
			}
		}
	case cmdResolve:
		clear(c.a.data[c.aoff : c.aoff+8*uint64(c.resolveN)])
	}
}

// recorder is what Encoder and Program share: checked command building.
type recorder struct {
	dev        *Device
	cmds       []cmd
	dispatches int
}

func (r *recorder) dispatch(op string, k driver.Kernel, groups []driver.BindGroup, ind driver.Buffer, off uint64, x, y, z uint32) error {
	d := r.dev
	fk, err := d.kernel(op, k)
	if err != nil {
		return err
	}
	if len(groups) < fk.spec.Groups {
		return opError(op, driver.ErrInvalidArgument, "%d bind groups for kernel %q, which has %d", len(groups), fk.spec.Entry, fk.spec.Groups)
	}
	c := cmd{kind: cmdDispatch, k: fk, x: x, y: y, z: z}
	for i, g := range groups {
		if g == nil {
			continue
		}
		fg, ok := g.(*bindGroup)
		if !ok || fg.dev != d {
			return opError(op, driver.ErrForeignDevice, "bind group %d", i)
		}
		if fg.Released() {
			return opError(op, driver.ErrReleased, "bind group %d", i)
		}
		c.groups = append(c.groups, fg)
	}
	if ind != nil {
		fb, err := d.buffer(op, ind)
		if err != nil {
			return err
		}
		if off%4 != 0 || off+12 > fb.size {
			return opError(op, driver.ErrInvalidArgument, "indirect offset=%d of a %d-byte buffer", off, fb.size)
		}
		c.kind, c.a, c.aoff = cmdIndirect, fb, off
	}
	r.cmds = append(r.cmds, c)
	r.dispatches++
	return nil
}

func (r *recorder) copyBuffer(src driver.Buffer, so uint64, dst driver.Buffer, do, size uint64) error {
	const op = "CopyBuffer"
	a, err := r.dev.buffer(op, src)
	if err != nil {
		return err
	}
	b, err := r.dev.buffer(op, dst)
	if err != nil {
		return err
	}
	if so%4 != 0 || do%4 != 0 || size%4 != 0 || so+size > a.size || do+size > b.size {
		return opError(op, driver.ErrInvalidArgument, "%d bytes from %s@%d (%d) to %s@%d (%d)", size, a.label, so, a.size, b.label, do, b.size)
	}
	r.cmds = append(r.cmds, cmd{kind: cmdCopy, a: a, aoff: so, b: b, boff: do, size: size})
	return nil
}

func (r *recorder) clearBuffer(buf driver.Buffer, off, size uint64) error {
	const op = "ClearBuffer"
	a, err := r.dev.buffer(op, buf)
	if err != nil {
		return err
	}
	if off%4 != 0 || size%4 != 0 || off+size > a.size {
		return opError(op, driver.ErrInvalidArgument, "%d bytes at %d of %s (%d)", size, off, a.label, a.size)
	}
	r.cmds = append(r.cmds, cmd{kind: cmdClear, a: a, aoff: off, size: size})
	return nil
}

// Encoder is the fake driver.Encoder.
type Encoder struct {
	recorder
	life
	pass     bool // a pass is open
	explicit bool // it was begun by BeginPass
	holds    bool // it holds commands
}

func (d *Device) NewEncoder() (driver.Encoder, error) {
	if err := d.Err(); err != nil {
		return nil, err
	}
	if err := d.injected(OpNewEncoder); err != nil {
		return nil, err
	}
	return &Encoder{recorder: recorder{dev: d}, life: d.newLife(&d.live.encoders)}, nil
}

func (e *Encoder) BeginPass(*driver.Timestamps) error {
	e.pass, e.explicit, e.holds = true, true, false
	return nil
}

func (e *Encoder) EndPass() error {
	e.pass, e.explicit, e.holds = false, false, false
	return nil
}

func (e *Encoder) PassOpen() bool { return e.pass && (e.explicit || e.holds) }

func (e *Encoder) Prepare() {
	if !e.pass {
		e.pass = true
	}
}

func (e *Encoder) inPass() { e.pass, e.holds = true, true }

func (e *Encoder) Dispatch(k driver.Kernel, groups []driver.BindGroup, x, y, z uint32) error {
	if err := e.dispatch("Dispatch", k, groups, nil, 0, x, y, z); err != nil {
		return err
	}
	e.inPass()
	return nil
}

func (e *Encoder) DispatchIndirect(k driver.Kernel, groups []driver.BindGroup, counts driver.Buffer, off uint64) error {
	if counts == nil {
		return opError("DispatchIndirect", driver.ErrInvalidArgument, "counts buffer is nil")
	}
	if err := e.dispatch("DispatchIndirect", k, groups, counts, off, 0, 0, 0); err != nil {
		return err
	}
	e.inPass()
	return nil
}

func (e *Encoder) Encode(p driver.Program, from, to int) error {
	fp, ok := p.(*Program)
	if !ok || fp == nil || fp.dev != e.dev {
		return opError("Encode", driver.ErrForeignDevice, "not a program of this device")
	}
	if fp.Released() {
		return opError("Encode", driver.ErrReleased, "program")
	}
	if from < 0 || to > len(fp.cmds) || from > to {
		return opError("Encode", driver.ErrInvalidArgument, "commands [%d, %d) of %d", from, to, len(fp.cmds))
	}
	for _, c := range fp.cmds[from:to] {
		e.cmds = append(e.cmds, c)
		if c.kind == cmdDispatch || c.kind == cmdIndirect {
			e.dispatches++
			e.inPass()
		} else {
			e.EndPass()
		}
	}
	return nil
}

func (e *Encoder) CopyBuffer(src driver.Buffer, so uint64, dst driver.Buffer, do, size uint64) error {
	e.EndPass()
	return e.copyBuffer(src, so, dst, do, size)
}

func (e *Encoder) ClearBuffer(b driver.Buffer, off, size uint64) error {
	e.EndPass()
	return e.clearBuffer(b, off, size)
}

func (e *Encoder) textureCopy(op string, kind cmdKind, buf driver.Buffer, off uint64, bpr uint32, t driver.Texture) error {
	e.EndPass()
	a, err := e.dev.buffer(op, buf)
	if err != nil {
		return err
	}
	ft, ok := t.(*texture)
	if !ok || ft == nil || ft.dev != e.dev {
		return opError(op, driver.ErrForeignDevice, "not a texture of this device")
	}
	if ft.Released() {
		return opError(op, driver.ErrReleased, "texture")
	}
	rows := uint64(ft.desc.Height) * uint64(max(ft.desc.Depth, 1))
	row := uint64(ft.desc.Width) * uint64(ft.texel)
	if bpr%256 != 0 || uint64(bpr) < row || off+(rows-1)*uint64(bpr)+row > a.size {
		return opError(op, driver.ErrInvalidArgument, "bytesPerRow=%d offset=%d for a %dx%d texture and a %d-byte buffer", bpr, off, ft.desc.Width, rows, a.size)
	}
	e.cmds = append(e.cmds, cmd{kind: kind, a: a, aoff: off, bpr: bpr, tex: ft})
	return nil
}

func (e *Encoder) CopyBufferToTexture(src driver.Buffer, off uint64, bpr uint32, dst driver.Texture) error {
	return e.textureCopy("CopyBufferToTexture", cmdBufferToTexture, src, off, bpr, dst)
}

func (e *Encoder) CopyTextureToBuffer(src driver.Texture, dst driver.Buffer, off uint64, bpr uint32) error {
	return e.textureCopy("CopyTextureToBuffer", cmdTextureToBuffer, dst, off, bpr, src)
}

func (e *Encoder) ResolveQueries(q driver.QuerySet, first, count uint32, dst driver.Buffer, off uint64) error {
	const op = "ResolveQueries"
	if err := e.dev.injected(OpResolve); err != nil {
		return err
	}
	e.EndPass()
	a, err := e.dev.buffer(op, dst)
	if err != nil {
		return err
	}
	if q == nil || q.Released() || first+count > q.Count() || off+8*uint64(count) > a.size {
		return opError(op, driver.ErrInvalidArgument, "queries [%d, %d) into %d bytes at %d", first, first+count, a.size, off)
	}
	e.cmds = append(e.cmds, cmd{kind: cmdResolve, a: a, aoff: off, resolveN: count})
	return nil
}

func (e *Encoder) Dispatches() int { return e.dispatches }
func (e *Encoder) Empty() bool     { return len(e.cmds) == 0 }

func (e *Encoder) Finish() (driver.CommandBuffer, error) {
	d := e.dev
	cmds, n := e.cmds, e.dispatches
	e.cmds, e.dispatches = nil, 0
	e.EndPass()
	if len(cmds) == 0 {
		return driver.CommandBuffer{}, nil
	}
	if err := d.injected(OpFinish); err != nil {
		return driver.CommandBuffer{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.errLocked("Finish"); err != nil {
		return driver.CommandBuffer{}, err
	}
	d.nextCB++
	d.cbs[d.nextCB] = cmds
	d.live.commandBuffers.Add(1)
	return driver.CommandBuffer{Native: d.nextCB, Owner: d, Dispatches: n}, nil
}

func (e *Encoder) Discard() {
	e.cmds, e.dispatches = nil, 0
	e.EndPass()
}

// Program is the fake driver.Program: a list of commands Encode appends.
type Program struct {
	recorder
	life
}

func (d *Device) NewProgram() (driver.Program, error) {
	if err := d.Err(); err != nil {
		return nil, err
	}
	return &Program{recorder: recorder{dev: d}, life: d.newLife(&d.live.programs)}, nil
}

func (p *Program) Dispatch(k driver.Kernel, groups []driver.BindGroup, x, y, z uint32) error {
	return p.dispatch("Dispatch", k, groups, nil, 0, x, y, z)
}

func (p *Program) DispatchIndirect(k driver.Kernel, groups []driver.BindGroup, counts driver.Buffer, off uint64) error {
	if counts == nil {
		return opError("DispatchIndirect", driver.ErrInvalidArgument, "counts buffer is nil")
	}
	return p.dispatch("DispatchIndirect", k, groups, counts, off, 0, 0, 0)
}

func (p *Program) CopyBuffer(src driver.Buffer, so uint64, dst driver.Buffer, do, size uint64) error {
	return p.copyBuffer(src, so, dst, do, size)
}

func (p *Program) ClearBuffer(b driver.Buffer, off, size uint64) error {
	return p.clearBuffer(b, off, size)
}

func (p *Program) Len() int        { return len(p.cmds) }
func (p *Program) Dispatches() int { return p.dispatches }
