package fake

import (
	"sync/atomic"

	"github.com/softgraph/softgraph/internal/driver"
)

// life is the released flag every object shares.
type life struct {
	released atomic.Bool
	counter  *atomic.Int64 // the device's live count of this kind
}

func (l *life) Release() {
	if l.released.CompareAndSwap(false, true) && l.counter != nil {
		l.counter.Add(-1)
	}
}
func (l *life) Released() bool { return l.released.Load() }

func (d *Device) newLife(c *atomic.Int64) life {
	c.Add(1)
	return life{counter: c}
}

// buffer is a byte slice. Its contents are read and written under the
// device's mu (by the queue goroutine, WriteBuffer's item and ReadBuffer);
// a released buffer's bytes stay reachable from what was encoded with it,
// as a native buffer stays alive for its encoded commands.
type buffer struct {
	life
	dev   *Device
	size  uint64
	usage driver.Usage
	label string
	data  []byte
}

func (b *buffer) Size() uint64        { return b.size }
func (b *buffer) Usage() driver.Usage { return b.usage }
func (b *buffer) Memory() any         { return b }

// Bytes returns a copy of b's contents as the queue left them, for tests
// that look at memory without going through a read (b must be a buffer of
// this package).
func (d *Device) Bytes(b driver.Buffer) []byte {
	fb, ok := b.(*buffer)
	if !ok {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]byte(nil), fb.data...)
}

func (d *Device) buffer(op string, b driver.Buffer) (*buffer, error) {
	fb, ok := b.(*buffer)
	if !ok || fb == nil {
		return nil, opError(op, driver.ErrInvalidArgument, "buffer is nil or not a fake buffer (%T)", b)
	}
	if fb.dev != d {
		return nil, opError(op, driver.ErrForeignDevice, "buffer %q", fb.label)
	}
	if fb.Released() {
		return nil, opError(op, driver.ErrReleased, "buffer %q", fb.label)
	}
	return fb, nil
}

func (d *Device) NewBuffer(size uint64, usage driver.Usage, label string) (driver.Buffer, error) {
	const op = "NewBuffer"
	if err := d.Err(); err != nil {
		return nil, err
	}
	if size == 0 || size%4 != 0 || size > d.info.Limits.MaxBufferSize {
		return nil, opError(op, driver.ErrInvalidArgument, "size=%d", size)
	}
	if err := d.injected(OpNewBuffer); err != nil {
		return nil, err
	}
	return &buffer{life: d.newLife(&d.live.buffers), dev: d, size: size, usage: usage, label: label, data: make([]byte, size)}, nil
}

// texture is a byte slice of tightly packed texels.
type texture struct {
	life
	dev   *Device
	desc  driver.TextureDesc
	texel uint32
	data  []byte
}

func (t *texture) Desc() driver.TextureDesc { return t.desc }
func (t *texture) TexelSize() uint32        { return t.texel }
func (t *texture) Storage() bool            { return true }
func (t *texture) Filterable() bool         { return true }

// texelSizes are the formats the fake knows; others are 4 bytes a texel.
var texelSizes = map[string]uint32{
	"r32float": 4, "r32uint": 4, "r32sint": 4, "rgba8unorm": 4, "rgba8uint": 4,
	"rg32float": 8, "rgba16float": 8, "rgba32float": 16, "rgba32uint": 16,
}

func (d *Device) NewTexture(desc driver.TextureDesc) (driver.Texture, error) {
	const op = "NewTexture"
	if err := d.Err(); err != nil {
		return nil, err
	}
	if desc.Width == 0 || desc.Height == 0 {
		return nil, opError(op, driver.ErrInvalidArgument, "%dx%d", desc.Width, desc.Height)
	}
	texel, ok := texelSizes[desc.Format]
	if !ok {
		texel = 4
	}
	n := uint64(desc.Width) * uint64(desc.Height) * uint64(max(desc.Depth, 1)) * uint64(texel)
	return &texture{life: d.newLife(&d.live.textures), dev: d, desc: desc, texel: texel, data: make([]byte, n)}, nil
}

type sampler struct {
	life
	desc driver.SamplerDesc
}

func (s *sampler) Desc() driver.SamplerDesc { return s.desc }

func (d *Device) NewSampler(desc driver.SamplerDesc) (driver.Sampler, error) {
	if err := d.Err(); err != nil {
		return nil, err
	}
	return &sampler{life: d.newLife(&d.live.samplers), desc: desc}, nil
}

type querySet struct {
	life
	count uint32
}

func (q *querySet) Count() uint32 { return q.count }

func (d *Device) NewQueries(n uint32) (driver.QuerySet, error) {
	if err := d.Err(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, opError("NewQueries", driver.ErrInvalidArgument, "count=0")
	}
	return &querySet{life: d.newLife(&d.live.querySets), count: n}, nil
}

// bindGroup holds its entries; a dispatch reads the buffers they name.
type bindGroup struct {
	life
	dev     *Device
	k       *Kernel
	group   uint32
	entries []driver.Entry
}

func (d *Device) NewBindGroup(k driver.Kernel, group uint32, entries []driver.Entry) (driver.BindGroup, error) {
	const op = "NewBindGroup"
	if err := d.Err(); err != nil {
		return nil, err
	}
	fk, err := d.kernel(op, k)
	if err != nil {
		return nil, err
	}
	want := 0
	for _, r := range fk.spec.Resources {
		if r.Group == group {
			want++
		}
	}
	if len(entries) != want {
		return nil, opError(op, driver.ErrValidation, "%d entries for group %d of kernel %q, which has %d bindings", len(entries), group, fk.spec.Entry, want)
	}
	for _, e := range entries {
		if e.Buffer != nil {
			if _, err := d.buffer(op, e.Buffer); err != nil {
				return nil, err
			}
			if e.Offset+e.Size > e.Buffer.Size() {
				return nil, opError(op, driver.ErrValidation, "binding %d: %d bytes at %d of a %d-byte buffer", e.Binding, e.Size, e.Offset, e.Buffer.Size())
			}
		}
		if e.Texture != nil && e.Texture.Released() || e.Sampler != nil && e.Sampler.Released() {
			return nil, opError(op, driver.ErrReleased, "binding %d", e.Binding)
		}
	}
	return &bindGroup{life: d.newLife(&d.live.bindGroups), dev: d, k: fk, group: group, entries: append([]driver.Entry(nil), entries...)}, nil
}
