package wgpu

// #include "native.h"
import "C"

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/driver"
)

// texelFormat is what softgraph knows of a WGSL texel format.
type texelFormat struct {
	format     wgpu.TextureFormat
	size       uint32 // bytes per texel
	sample     string // the sample type a texture_* binding of it needs: "float", "sint", "uint"
	filterable bool   // may be sampled with a filtering sampler
	storage    bool   // may be a storage texture (WebGPU's core storage formats)
}

// texelFormats are the formats a Texture may have, by WGSL name. The
// storage column is WebGPU's list of storage-texture formats; 32-bit float
// formats are not filterable without an optional feature.
var texelFormats = map[string]texelFormat{
	"r8unorm":     {wgpu.TextureFormatR8Unorm, 1, "float", true, false},
	"r8snorm":     {wgpu.TextureFormatR8Snorm, 1, "float", true, false},
	"r8uint":      {wgpu.TextureFormatR8Uint, 1, "uint", false, false},
	"r8sint":      {wgpu.TextureFormatR8Sint, 1, "sint", false, false},
	"rg8unorm":    {wgpu.TextureFormatRG8Unorm, 2, "float", true, false},
	"r16float":    {wgpu.TextureFormatR16Float, 2, "float", true, false},
	"r32float":    {wgpu.TextureFormatR32Float, 4, "float", false, true},
	"r32uint":     {wgpu.TextureFormatR32Uint, 4, "uint", false, true},
	"r32sint":     {wgpu.TextureFormatR32Sint, 4, "sint", false, true},
	"rg16float":   {wgpu.TextureFormatRG16Float, 4, "float", true, false},
	"rgba8unorm":  {wgpu.TextureFormatRGBA8Unorm, 4, "float", true, true},
	"rgba8snorm":  {wgpu.TextureFormatRGBA8Snorm, 4, "float", true, true},
	"rgba8uint":   {wgpu.TextureFormatRGBA8Uint, 4, "uint", false, true},
	"rgba8sint":   {wgpu.TextureFormatRGBA8Sint, 4, "sint", false, true},
	"bgra8unorm":  {wgpu.TextureFormatBGRA8Unorm, 4, "float", true, false},
	"rg32float":   {wgpu.TextureFormatRG32Float, 8, "float", false, true},
	"rg32uint":    {wgpu.TextureFormatRG32Uint, 8, "uint", false, true},
	"rg32sint":    {wgpu.TextureFormatRG32Sint, 8, "sint", false, true},
	"rgba16uint":  {wgpu.TextureFormatRGBA16Uint, 8, "uint", false, true},
	"rgba16sint":  {wgpu.TextureFormatRGBA16Sint, 8, "sint", false, true},
	"rgba16float": {wgpu.TextureFormatRGBA16Float, 8, "float", true, true},
	"rgba32float": {wgpu.TextureFormatRGBA32Float, 16, "float", false, true},
	"rgba32uint":  {wgpu.TextureFormatRGBA32Uint, 16, "uint", false, true},
	"rgba32sint":  {wgpu.TextureFormatRGBA32Sint, 16, "sint", false, true},
}

// glNoStorage are the storage formats the OpenGL backend cannot store to:
// GLSL ES has no rg32f, rg32ui or rg32i image format (naga v22 writes the
// layout and the driver rejects it: "unrecognized layout identifier
// `rg32f'"), and creating such a texture with storage usage is a
// validation error there.
var glNoStorage = map[string]bool{"rg32float": true, "rg32uint": true, "rg32sint": true}

// glStorageRefusal says why the OpenGL backend cannot bind a storage
// texture of format, dimension dim and access ("" when it can).
func glStorageRefusal(format, dim, access string) string {
	if access == "read_write" && format != "r32float" && format != "r32uint" && format != "r32sint" {
		// GLSL ES allows only r32f, r32i and r32ui images to be both read
		// and written (the driver: "image variables of format other than
		// r32f, r32i or r32ui must be qualified `readonly' or
		// `writeonly'"), as core WebGPU does.
		return fmt.Sprintf("texture_storage_%s<%s, read_write> on the OpenGL backend: only r32float, r32uint and r32sint storage textures can be read and written there (bind the texture twice, read and write, to different textures, or use an r32 format)", dim, format)
	}
	if glNoStorage[format] {
		return fmt.Sprintf("texture_storage_%s<%s, ...> on the OpenGL backend: GLSL ES has no image format for %s (use rgba32float, rgba32uint or rgba32sint)", dim, format, format)
	}
	if dim == "3d" {
		// wgpu's GL backend binds the image unlayered: only slice z = 0
		// is reachable (llvmpipe dropped every store to z > 0).
		return "texture_storage_3d on the OpenGL backend: wgpu binds only its first slice (stores to z > 0 were lost); use a texture_storage_2d with the slices side by side, or a storage buffer"
	}
	return ""
}

// TexelSize is the bytes of one texel of the texel format named format
// (the WGSL name TextureDesc takes: "rgba8unorm", "r32float", ...); false
// for a name textures do not take. It lets a caller size a texture before
// asking for it, as LoadGraph does to bound what a file may declare.
func TexelSize(format string) (uint32, bool) {
	f, ok := texelFormats[format]
	return f.size, ok
}

// TexelFormats lists the texel format names textures may have, for error
// messages and docs.
func texelFormatNames() []string {
	out := make([]string, 0, len(texelFormats))
	for n := range texelFormats {
		out = append(out, n)
	}
	sortStrings(out)
	return out
}

// texture is one native texture and its default view (driver.Texture).
type texture struct {
	life
	dev  *Device
	tex  *wgpu.Texture     // owned
	view *wgpu.TextureView // owned
	raw  C.WGPUTexture
	desc driver.TextureDesc
	fmt  texelFormat
}

func (t *texture) Desc() driver.TextureDesc { return t.desc }
func (t *texture) TexelSize() uint32        { return t.fmt.size }
func (t *texture) Storage() bool            { return t.fmt.storage }
func (t *texture) Filterable() bool         { return t.fmt.filterable }
func (t *texture) Release() {
	if t != nil {
		t.dev.releaseGated(&t.life, t)
	}
}

func (t *texture) releaseOwner() { t.release(t) }

func (t *texture) freeNative() {
	t.dev.objs.remove(t)
	t.dev.lockGL()
	t.view.Release()
	t.tex.Release()
	t.dev.unlockGL()
	t.dev.live.textures.Add(-1)
	t.dev.triage(false)
}

func (d *Device) newTexture(desc driver.TextureDesc) (driver.Texture, error) {
	const op = "NewTexture"
	if err := d.enter(op); err != nil {
		return nil, err
	}
	defer d.leave()
	f, ok := texelFormats[desc.Format]
	if !ok {
		return nil, opError(op, ErrInvalidArgument, "format %q (want one of %v)", desc.Format, texelFormatNames())
	}
	if desc.Format == "bgra8unorm" && d.info.Backend == BackendGL {
		// wgpu's GL backend uploads and reads back BGRA texels through
		// paths that disagree on NVIDIA's GL: a texture read back other
		// bytes than were written to it (seen on the H200; Mesa's GL
		// agreed). Refused rather than silently reordered.
		return nil, opError(op, ErrInvalidArgument, "format %q on the OpenGL backend (its upload and read-back disagree on some drivers; use rgba8unorm)", desc.Format)
	}
	if d.info.Backend == BackendGL && glNoStorage[desc.Format] {
		f.storage = false // sampled and copied only; Kernel refuses the storage form
	}
	lim := d.info.Limits
	dim, viewDim, max := wgpu.TextureDimension2D, wgpu.TextureViewDimension2D, lim.MaxTextureDimension2D
	switch desc.Dim {
	case driver.Texture2D:
		if desc.Depth != 1 {
			return nil, opError(op, ErrInvalidArgument, "depth=%d for a 2D texture", desc.Depth)
		}
	case driver.Texture3D:
		dim, viewDim, max = wgpu.TextureDimension3D, wgpu.TextureViewDimension3D, lim.MaxTextureDimension3D
	default:
		return nil, opError(op, ErrInvalidArgument, "dimension %d", desc.Dim)
	}
	if desc.Width == 0 || desc.Height == 0 || desc.Depth == 0 || desc.Width > max || desc.Height > max || desc.Depth > max {
		return nil, opError(op, ErrInvalidArgument, "size %d×%d×%d (each 1..%d on this device)", desc.Width, desc.Height, desc.Depth, max)
	}
	usage := wgpu.TextureUsageTextureBinding | wgpu.TextureUsageCopySrc | wgpu.TextureUsageCopyDst
	if f.storage {
		usage |= wgpu.TextureUsageStorageBinding
	}
	var tex *wgpu.Texture
	var view *wgpu.TextureView
	err := d.scoped(op, func() (err error) {
		tex, err = d.dev.CreateTexture(&wgpu.TextureDescriptor{
			Label: desc.Label, Usage: usage, Dimension: dim, Format: f.format, MipLevelCount: 1, SampleCount: 1,
			Size: wgpu.Extent3D{Width: desc.Width, Height: desc.Height, DepthOrArrayLayers: desc.Depth},
		})
		if err != nil {
			return err
		}
		view, err = tex.CreateView(&wgpu.TextureViewDescriptor{
			Format: f.format, Dimension: viewDim, MipLevelCount: 1, ArrayLayerCount: 1, Aspect: wgpu.TextureAspectAll,
		})
		return err
	})
	if err != nil {
		if view != nil {
			view.Release()
		}
		if tex != nil {
			tex.Release()
		}
		return nil, err
	}
	d.live.textures.Add(1)
	t := &texture{dev: d, tex: tex, view: view, raw: rawTexture(tex), desc: desc, fmt: f}
	t.init()
	d.objs.add(t)
	return t, nil
}

func (d *Device) ownTexture(op, what string, x driver.Texture) (*texture, error) {
	t, ok := x.(*texture)
	if !ok || t == nil {
		return nil, opError(op, ErrInvalidArgument, "%s is nil or not a texture of this package", what)
	}
	if t.dev != d {
		return nil, opError(op, ErrForeignDevice, "%s", what)
	}
	if !t.acquire() {
		return nil, opError(op, ErrReleased, "%s", what)
	}
	return t, nil
}

// writeTexture fills the whole texture from tightly packed rows.
func (d *Device) writeTexture(x driver.Texture, data []byte) error {
	const op = "WriteTexture"
	if err := d.enter(op); err != nil {
		return err
	}
	defer d.leave()
	t, err := d.ownTexture(op, "texture", x)
	if err != nil {
		return err
	}
	defer t.drop(t)
	row := t.desc.Width * t.fmt.size
	want := uint64(row) * uint64(t.desc.Height) * uint64(t.desc.Depth)
	if uint64(len(data)) != want {
		return opError(op, ErrInvalidArgument, "%d bytes for a %d×%d×%d %s texture (want %d, tightly packed rows)", len(data), t.desc.Width, t.desc.Height, t.desc.Depth, t.desc.Format, want)
	}
	return d.scoped(op, func() error {
		return d.queue.WriteTexture(&wgpu.ImageCopyTexture{Texture: t.tex, Aspect: wgpu.TextureAspectAll}, data,
			&wgpu.TextureDataLayout{BytesPerRow: row, RowsPerImage: t.desc.Height},
			&wgpu.Extent3D{Width: t.desc.Width, Height: t.desc.Height, DepthOrArrayLayers: t.desc.Depth})
	})
}

// sampler is one native sampler (driver.Sampler).
type sampler struct {
	life
	dev  *Device
	s    *wgpu.Sampler // owned
	desc driver.SamplerDesc
}

func (s *sampler) Desc() driver.SamplerDesc { return s.desc }
func (s *sampler) Release() {
	if s != nil {
		s.dev.releaseGated(&s.life, s)
	}
}

func (s *sampler) releaseOwner() { s.release(s) }

func (s *sampler) freeNative() {
	s.dev.objs.remove(s)
	s.dev.lockGL()
	s.s.Release()
	s.dev.unlockGL()
	s.dev.live.samplers.Add(-1)
}

func (d *Device) newSampler(desc driver.SamplerDesc) (driver.Sampler, error) {
	const op = "NewSampler"
	if err := d.enter(op); err != nil {
		return nil, err
	}
	defer d.leave()
	addr, filter, mip := wgpu.AddressModeClampToEdge, wgpu.FilterModeNearest, wgpu.MipmapFilterModeNearest
	if desc.Repeat {
		addr = wgpu.AddressModeRepeat
	}
	if desc.Linear {
		filter, mip = wgpu.FilterModeLinear, wgpu.MipmapFilterModeLinear
	}
	cmp := wgpu.CompareFunctionUndefined
	if desc.Compare {
		cmp = wgpu.CompareFunctionLessEqual
	}
	var s *wgpu.Sampler
	if err := d.scoped(op, func() (err error) {
		s, err = d.dev.CreateSampler(&wgpu.SamplerDescriptor{
			AddressModeU: addr, AddressModeV: addr, AddressModeW: addr,
			MagFilter: filter, MinFilter: filter, MipmapFilter: mip,
			LodMinClamp: 0, LodMaxClamp: 32, Compare: cmp, MaxAnisotropy: 1,
		})
		return err
	}); err != nil {
		if s != nil {
			s.Release()
		}
		return nil, err
	}
	d.live.samplers.Add(1)
	out := &sampler{dev: d, s: s, desc: desc}
	out.init()
	d.objs.add(out)
	return out, nil
}

func (d *Device) ownSampler(op, what string, x driver.Sampler) (*sampler, error) {
	s, ok := x.(*sampler)
	if !ok || s == nil {
		return nil, opError(op, ErrInvalidArgument, "%s is nil or not a sampler of this package", what)
	}
	if s.dev != d {
		return nil, opError(op, ErrForeignDevice, "%s", what)
	}
	if !s.acquire() {
		return nil, opError(op, ErrReleased, "%s", what)
	}
	return s, nil
}
