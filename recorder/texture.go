package recorder

import (
	"fmt"
	"github.com/softgraph/softgraph/internal/lockrank"
	"sync/atomic"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/lifecycle"
)

// TextureDesc describes a texture: Width×Height texels, Depth layers of
// them for a 3D texture (0 or 1 makes a 2D texture), in Format, the WGSL
// texel format name. 24 formats are taken: r8 and rgba8 (unorm, snorm,
// uint, sint), rg8unorm, r16float, rg16float, rgba16float, rgba16uint,
// rgba16sint, r32, rg32 and rgba32 (float, uint, sint) and bgra8unorm
// (refused on the OpenGL
// backend, whose upload and read-back of it disagree on some drivers);
// NewTexture's refusal of any other name lists them, and
// wgpu.TexelSize says whether one is taken. Packed and sRGB formats
// (rgb10a2unorm, rg11b10ufloat, rgba8unorm-srgb, ...) and 16-bit integer
// r and rg are not.
type TextureDesc struct {
	Width, Height, Depth uint32
	Format               string
}

// is3D reports whether the description is of a 3D texture.
func (d TextureDesc) is3D() bool { return d.Depth > 1 }

func (d TextureDesc) String() string {
	if d.is3D() {
		return fmt.Sprintf("%d×%d×%d %s", d.Width, d.Height, d.Depth, d.Format)
	}
	return fmt.Sprintf("%d×%d %s", d.Width, d.Height, d.Format)
}

// texHandle is a native texture shared by whoever references it: the
// caller's Texture (1), every recording and graph pin set that binds it,
// and calls using it right now. The native texture is released at zero;
// work already encoded keeps it alive itself.
type texHandle struct {
	t     driver.Texture
	refs  atomic.Int32
	owner *Stream // the stream that made it: its MemoryStats counts it while alive
}

func (h *texHandle) ref() { h.refs.Add(1) }
func (h *texHandle) unref() {
	if h.refs.Add(-1) == 0 {
		h.t.Release()
		h.owner.liveTextures.Add(-1)
	}
}

// Texture is a 2D or 3D image on the GPU, made by Stream.NewTexture or
// Stream.UploadTexture and read back by Stream.ReadTexture. softgraph gives
// it every usage its format allows, so one texture can be sampled
// (texture_2d<f32>), stored to (texture_storage_2d<format, write>) and
// copied. It takes part in everything buffers do: stream order, capture
// pinning (a graph keeps the textures it binds alive), Rebind-free
// liveness, MemoryStats and host-side checks of every launch.
type Texture struct {
	s    *Stream
	h    *texHandle
	desc TextureDesc

	mu       lockrank.Mutex // lockrank.Handle: orders Release against acquire (see Buffer.mu)
	released bool
}

// Desc describes the texture (zero for a nil Texture).
func (t *Texture) Desc() TextureDesc {
	if t == nil {
		return TextureDesc{}
	}
	return t.desc
}

// Size is the texture's bytes, tightly packed (what ReadTexture returns; 0
// for a nil Texture).
func (t *Texture) Size() uint64 {
	if t == nil {
		return 0
	}
	return uint64(t.desc.Width) * uint64(t.desc.Height) * uint64(max(t.desc.Depth, 1)) * uint64(t.h.t.TexelSize())
}

// Release drops the caller's reference; graphs binding the texture keep it
// alive. Idempotent; every later use returns an error wrapping ErrReleased.
func (t *Texture) Release() {
	if t == nil {
		return
	}
	t.mu.Lock()
	if t.released {
		t.mu.Unlock()
		return
	}
	t.released = true
	t.mu.Unlock()
	t.s.disown(t)
	t.h.unref()
	// Bind groups cached by any stream that bound it would keep the native
	// texture alive. Its own stream's Close releases it holding that
	// stream's lock, and sweeps the others itself once it lets go.
	t.s.shared.groupsGone()
	if !t.s.closing.Load() {
		t.s.shared.sweepGroups(nil, false)
	}
}

func (t *Texture) String() string {
	if t == nil {
		return "<nil texture>"
	}
	return "texture(" + t.desc.String() + ")"
}

// acquire takes a reference on the texture for an operation of stream s.
func (t *Texture) acquire(op lifecycle.Op, name string, s *Stream) error {
	if why, sentinel := t.take(s); sentinel != nil {
		return argError(op, sentinel, "%s %s", name, why)
	}
	return nil
}

// take is acquire without the message (see Buffer.take).
func (t *Texture) take(s *Stream) (string, error) {
	if t == nil {
		return "is nil", ErrInvalidArgument
	}
	if t.s.dev != s.dev {
		return fmt.Sprintf("(%s) belongs to another device", t), ErrForeignDevice
	}
	if t.s != s && t.s.closing.Load() {
		return fmt.Sprintf("(%s) belongs to a closed stream", t), ErrClosed
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.released {
		return fmt.Sprintf("(%s) was released", t), ErrReleased
	}
	t.h.ref()
	return "", nil
}

// NewTexture makes a texture with unspecified contents. Allocation is
// admitted in every lifecycle state (lifecycle.Alloc); a graph that binds
// the texture keeps it alive.
func (s *Stream) NewTexture(desc TextureDesc) (*Texture, error) {
	const op = lifecycle.Alloc
	// The verdict is Execute in every state; nothing below reads the state.
	if _, err := s.admission(op); err != nil {
		return nil, err
	}
	dim, depth := driver.Texture2D, uint32(1)
	if desc.is3D() {
		dim, depth = driver.Texture3D, desc.Depth
	}
	t, err := s.drv.NewTexture(driver.TextureDesc{Width: desc.Width, Height: desc.Height, Depth: depth, Dim: dim, Format: desc.Format, Label: "softgraph texture"})
	if err != nil {
		return nil, &Error{Op: op.String(), Arg: "texture " + desc.String(), Err: err}
	}
	h := &texHandle{t: t, owner: s}
	h.refs.Store(1)
	s.liveTextures.Add(1)
	out := &Texture{s: s, h: h, desc: desc, mu: lockrank.Mutex{Rank: lockrank.Handle}}
	s.own(out)
	return out, nil
}

// UploadTexture makes a texture holding data: tightly packed rows of
// Width texels (Width × texel size bytes each), Height rows per layer,
// Depth layers. Like Upload it is NewTexture then a write in stream order,
// and inside a capture window the write is rejected lazily (EndCapture
// fails): upload images before PrepareCapture.
func (s *Stream) UploadTexture(desc TextureDesc, data []byte) (*Texture, error) {
	t, err := s.NewTexture(desc)
	if err != nil {
		return nil, err
	}
	if uint64(len(data)) != t.Size() {
		t.Release()
		return nil, argError(lifecycle.Write, ErrInvalidArgument, "%d bytes for a %s texture (want %d, tightly packed rows)", len(data), desc, t.Size())
	}
	const op = lifecycle.Write
	if err := s.check(op); err != nil {
		t.Release()
		return nil, err
	}
	// Inside a capture window the write's refusal is deferred: Do returns
	// nil without running it, and the texture is returned as it is.
	err = s.eng.Do(op, func(*engine.Tx) error {
		// A new texture cannot be in the open batch: no flush is needed.
		if err := s.eng.WriteTexture(t.h.t, data); err != nil {
			return &Error{Op: op.String(), Arg: t.String(), Err: err}
		}
		return nil
	})
	if err != nil {
		t.Release() // without the stream's lock: a release takes the texture's own
		return nil, err
	}
	return t, nil
}

// textureFits checks a texture against the binding it is bound to, with
// the messages a caller needs (package wgpu checks again).
func textureFits(r driver.Resource, t *Texture) error {
	dim := "2d"
	if t.desc.is3D() {
		dim = "3d"
	}
	switch {
	case r.Multisampled:
		return fmt.Errorf("a texture bound to a multisampled texture binding: softgraph's textures have one sample")
	case r.SampleType == "depth":
		return fmt.Errorf("a texture bound to a depth texture binding (texture_depth_*): softgraph's textures have color formats; load depth values from an r32float texture_2d<f32> instead")
	case r.Dim != dim:
		return fmt.Errorf("a %s texture bound to a texture_%s binding: softgraph makes 2D and 3D textures only (no arrays, cube maps or 1D textures)", dim, r.Dim)
	}
	nt := t.h.t
	if r.Kind == driver.ResourceStorageTexture {
		if !nt.Storage() {
			return fmt.Errorf("format %s cannot be a storage texture", t.desc.Format)
		}
		if r.Format != t.desc.Format {
			return fmt.Errorf("a %s texture bound to a storage texture of format %s", t.desc.Format, r.Format)
		}
		return nil
	}
	if r.SampleType == "float" && !nt.Filterable() {
		return fmt.Errorf("format %s cannot be sampled with filtering, which the kernel does (textureSample*); use a filterable format, or textureLoad", t.desc.Format)
	}
	return nil
}

// samplerHandle is a native sampler shared like texHandle.
type samplerHandle struct {
	s    driver.Sampler
	refs atomic.Int32
}

func (h *samplerHandle) ref() { h.refs.Add(1) }
func (h *samplerHandle) unref() {
	if h.refs.Add(-1) == 0 {
		h.s.Release()
	}
}

// SamplerDesc describes a sampler. The zero value samples the nearest
// texel and clamps coordinates to the edge; Linear filters bilinearly (or
// trilinearly in 3D), Repeat wraps coordinates around.
type SamplerDesc struct {
	Linear, Repeat bool
	// Compare makes a comparison sampler (sampler_comparison, less-equal).
	Compare bool
}

// Sampler is a texture sampler, bound to a `sampler` (or
// `sampler_comparison`) binding.
type Sampler struct {
	s    *Stream
	h    *samplerHandle
	desc SamplerDesc

	mu       lockrank.Mutex // lockrank.Handle
	released bool
}

// Desc describes the sampler (zero for a nil Sampler).
func (sm *Sampler) Desc() SamplerDesc {
	if sm == nil {
		return SamplerDesc{}
	}
	return sm.desc
}

// Release drops the caller's reference (graphs keep theirs). Idempotent.
func (sm *Sampler) Release() {
	if sm == nil {
		return
	}
	sm.mu.Lock()
	if sm.released {
		sm.mu.Unlock()
		return
	}
	sm.released = true
	sm.mu.Unlock()
	sm.s.disown(sm)
	sm.h.unref()
	sm.s.shared.groupsGone() // as Texture.Release
	if !sm.s.closing.Load() {
		sm.s.shared.sweepGroups(nil, false)
	}
}

func (sm *Sampler) take(s *Stream) (string, error) {
	if sm == nil {
		return "is nil", ErrInvalidArgument
	}
	if sm.s.dev != s.dev {
		return "belongs to another device", ErrForeignDevice
	}
	if sm.s != s && sm.s.closing.Load() {
		return "belongs to a closed stream", ErrClosed
	}
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if sm.released {
		return "was released", ErrReleased
	}
	sm.h.ref()
	return "", nil
}

// NewSampler makes a sampler.
func (s *Stream) NewSampler(desc SamplerDesc) (*Sampler, error) {
	const op = lifecycle.Alloc
	// The verdict is Execute in every state; nothing below reads the state.
	if _, err := s.admission(op); err != nil {
		return nil, err
	}
	ns, err := s.drv.NewSampler(driver.SamplerDesc{Linear: desc.Linear, Repeat: desc.Repeat, Compare: desc.Compare})
	if err != nil {
		return nil, &Error{Op: op.String(), Arg: "sampler", Err: err}
	}
	h := &samplerHandle{s: ns}
	h.refs.Store(1)
	out := &Sampler{s: s, h: h, desc: desc, mu: lockrank.Mutex{Rank: lockrank.Handle}}
	s.own(out)
	return out, nil
}
