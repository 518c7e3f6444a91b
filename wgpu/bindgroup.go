package wgpu

// #include "native.h"
import "C"

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/driver"
)

// bindGroup is one native bind group (driver.BindGroup). It is immutable.
type bindGroup struct {
	life
	dev   *Device
	bg    *wgpu.BindGroup // owned
	raw   C.WGPUBindGroup
	k     *Kernel // the kernel and group whose layout it was made for
	group uint32
	// uses are the buffers it binds and how, in C memory, for OpenGL's
	// barrier rule (glbarrier.go); nil elsewhere.
	uses *C.sg_uses
}

func (g *bindGroup) Release() {
	if g != nil {
		g.dev.releaseGated(&g.life, g)
	}
}

func (g *bindGroup) releaseOwner() { g.release(g) }

func (g *bindGroup) freeNative() {
	g.dev.objs.remove(g)
	g.dev.lockGL()
	g.bg.Release()
	g.dev.unlockGL()
	freeUses(g.uses)
	g.uses = nil
	g.dev.live.bindGroups.Add(-1)
}

// newBindGroup makes group number group of k's layout from entries, which
// must match the kernel's resources of that group one for one, in binding
// order. The recorder checks kinds, sizes and formats first with better
// messages; this is the last line, so that nothing malformed reaches
// wgpu-native.
func (d *Device) newBindGroup(kx driver.Kernel, group uint32, entries []driver.Entry) (driver.BindGroup, error) {
	const op = "NewBindGroup"
	if err := d.enter(op); err != nil {
		return nil, err
	}
	defer d.leave()
	k, err := d.ownKernel(op, kx)
	if err != nil {
		return nil, err
	}
	defer k.drop(k)
	if int(group) >= k.groups {
		return nil, opError(op, ErrInvalidArgument, "group %d of kernel %q, which has %d", group, k.entry, k.groups)
	}
	var want []driver.Resource
	for _, r := range k.resources {
		if r.Group == group {
			want = append(want, r)
		}
	}
	if len(entries) != len(want) {
		return nil, opError(op, ErrInvalidArgument, "%d entries for group %d of kernel %q, which has %d bindings", len(entries), group, k.entry, len(want))
	}
	var stack [8]wgpu.BindGroupEntry
	native := stack[:0]
	var useStack [8]C.sg_use
	uses := useStack[:0]
	var held []interface{ dropIt() }
	defer func() {
		for _, h := range held {
			h.dropIt()
		}
	}()
	for i, e := range entries {
		r := want[i]
		if e.Binding != r.Binding {
			return nil, opError(op, ErrInvalidArgument, "entry %d is @binding(%d), want @binding(%d)", i, e.Binding, r.Binding)
		}
		ne := wgpu.BindGroupEntry{Binding: r.Binding}
		what := fmt.Sprintf("@group(%d) @binding(%d) %s", group, r.Binding, r.Name)
		switch r.Kind {
		case driver.ResourceStorage, driver.ResourceReadOnlyStorage, driver.ResourceUniform:
			b, err := d.ownBuffer(op, what, e.Buffer)
			if err != nil {
				return nil, err
			}
			held = append(held, dropper{b})
			need := driver.UsageStorage
			if r.Kind == driver.ResourceUniform && !k.storageOnGL[[2]uint32{r.Group, r.Binding}] {
				need = driver.UsageUniform
			}
			if b.usage&need == 0 {
				return nil, opError(op, ErrInvalidArgument, "%s: the buffer lacks %s usage", what, map[bool]string{true: "uniform", false: "storage"}[need == driver.UsageUniform])
			}
			if e.Size == 0 || e.Offset > b.size || e.Size > b.size-e.Offset {
				return nil, opError(op, ErrInvalidArgument, "%s: range offset=%d size=%d of a %d-byte buffer", what, e.Offset, e.Size, b.size)
			}
			ne.Buffer, ne.Offset, ne.Size = b.buf, e.Offset, e.Size
			if d.glBarrier != nil {
				use := C.uint32_t(C.SG_USE_READ)
				if r.Kind == driver.ResourceStorage {
					use = C.SG_USE_WRITE
				}
				uses = append(uses, C.sg_use{buf: b.raw, use: use})
			}
		case driver.ResourceTexture, driver.ResourceStorageTexture:
			t, err := d.ownTexture(op, what, e.Texture)
			if err != nil {
				return nil, err
			}
			held = append(held, dropper{t})
			if err := textureFits(r, t); err != nil {
				return nil, opError(op, ErrInvalidArgument, "%s: %v", what, err)
			}
			ne.TextureView = t.view
		case driver.ResourceSampler, driver.ResourceComparisonSampler:
			s, err := d.ownSampler(op, what, e.Sampler)
			if err != nil {
				return nil, err
			}
			held = append(held, dropper{s})
			if s.desc.Compare != (r.Kind == driver.ResourceComparisonSampler) {
				return nil, opError(op, ErrInvalidArgument, "%s: a comparison sampler and a sampler are not interchangeable", what)
			}
			ne.Sampler = s.s
		}
		native = append(native, ne)
	}
	var cuses *C.sg_uses
	if len(uses) > 0 {
		if cuses = newUses(uses); cuses == nil {
			return nil, opError(op, ErrInternal, "out of host memory")
		}
	}
	var bg *wgpu.BindGroup
	if err := d.scoped(op, func() (err error) {
		bg, err = d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Layout: k.layouts[group], Entries: native})
		return err
	}); err != nil {
		if bg != nil {
			bg.Release()
		}
		freeUses(cuses)
		return nil, err
	}
	d.live.bindGroups.Add(1)
	g := &bindGroup{dev: d, bg: bg, raw: rawBindGroup(bg), k: k, group: group, uses: cuses}
	g.init()
	d.objs.add(g)
	return g, nil
}

// textureFits checks a texture against the binding it is bound to.
func textureFits(r driver.Resource, t *texture) error {
	dim := "2d"
	if t.desc.Dim == driver.Texture3D {
		dim = "3d"
	}
	if r.Dim != dim {
		return fmt.Errorf("a %s texture bound to a texture_%s binding", dim, r.Dim)
	}
	if r.Kind == driver.ResourceStorageTexture {
		if !t.fmt.storage {
			return fmt.Errorf("format %s cannot be a storage texture", t.desc.Format)
		}
		if r.Format != t.desc.Format {
			return fmt.Errorf("a %s texture bound to a texture_storage_%s<%s, ...> binding", t.desc.Format, r.Dim, r.Format)
		}
		return nil
	}
	switch r.SampleType {
	case "float":
		if t.fmt.sample != "float" || !t.fmt.filterable {
			return fmt.Errorf("format %s cannot be sampled with filtering, which the kernel does (textureSample*); use a filterable format or textureLoad", t.desc.Format)
		}
	case "unfilterable-float":
		if t.fmt.sample != "float" {
			return fmt.Errorf("a %s texture bound to a texture of f32", t.desc.Format)
		}
	case "sint", "uint":
		if t.fmt.sample != r.SampleType {
			return fmt.Errorf("a %s texture bound to a texture of %s", t.desc.Format, map[string]string{"sint": "i32", "uint": "u32"}[r.SampleType])
		}
	default:
		return fmt.Errorf("a %s texture bound to a %s texture binding", t.desc.Format, r.SampleType)
	}
	return nil
}

type dropper struct{ o interface{ dropSelf() } }

func (d dropper) dropIt() { d.o.dropSelf() }

func (b *buffer) dropSelf()    { b.drop(b) }
func (t *texture) dropSelf()   { t.drop(t) }
func (s *sampler) dropSelf()   { s.drop(s) }
func (g *bindGroup) dropSelf() { g.drop(g) }
func (k *Kernel) dropSelf()    { k.drop(k) }
func (q *querySet) dropSelf()  { q.drop(q) }

func (d *Device) ownGroup(op string, x driver.BindGroup) (*bindGroup, error) {
	g, ok := x.(*bindGroup)
	if !ok || g == nil {
		return nil, opError(op, ErrInvalidArgument, "bind group is nil or not a bind group of this package")
	}
	if g.dev != d {
		return nil, opError(op, ErrForeignDevice, "bind group")
	}
	if !g.acquire() {
		return nil, opError(op, ErrReleased, "bind group")
	}
	return g, nil
}
