package tests

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestTexelSizeSizesTexturesBeforeTheyAreMade: wgpu.TexelSize, which
// LoadGraph uses to bound a file's textures before making them, gives the
// bytes per texel of the texture the device then makes (its Size and what
// ReadTexture returns), and refuses a name textures do not take.
func TestTexelSizeSizesTexturesBeforeTheyAreMade(t *testing.T) {
	_, s := gputest.OpenStream(t)
	for _, format := range []string{"r8unorm", "rg8unorm", "r16float", "r32uint", "rgba8unorm", "rg32float", "rgba16float", "rgba32float"} {
		texel, ok := wgpu.TexelSize(format)
		if !ok {
			t.Errorf("TexelSize(%q) refused a format textures take", format)
			continue
		}
		tex, err := s.NewTexture(recorder.TextureDesc{Width: 3, Height: 2, Format: format})
		if err != nil {
			t.Errorf("NewTexture(%s): %v", format, err)
			continue
		}
		data, err := s.ReadTexture(tex)
		if err != nil {
			t.Fatalf("ReadTexture(%s): %v", format, err)
		}
		if want := uint64(6 * texel); tex.Size() != want || uint64(len(data)) != want {
			t.Errorf("%s: TexelSize %d: a 3×2 texture must be %d bytes; Size %d, ReadTexture %d", format, texel, want, tex.Size(), len(data))
		}
		tex.Release()
	}
	if n, ok := wgpu.TexelSize("rgb9e5"); ok || n != 0 {
		t.Errorf("TexelSize of a format textures do not take = %d, %v; want 0, false", n, ok)
	}
}

// TestOddTexturesAreRefusedOrWork: zero, huge and over-limit sizes, depth
// and unknown formats, and formats with odd texel sizes are refused with
// ErrInvalidArgument (or the device's error) or make a texture that
// uploads and reads back what was written; nothing aborts.
func TestOddTexturesAreRefusedOrWork(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		lim := d.Info().Limits
		_ = lim
		descs := []recorder.TextureDesc{
			{Width: 0, Height: 1, Format: "r32float"},
			{Width: 1, Height: 0, Format: "r32float"},
			{Width: 1 << 20, Height: 1, Format: "r32float"},
			{Width: 1 << 16, Height: 1 << 16, Format: "rgba32float"},
			{Width: 2, Height: 2, Depth: 1 << 20, Format: "r32float"},
			{Width: 4, Height: 4, Format: ""},
			{Width: 4, Height: 4, Format: "nonsense"},
			{Width: 4, Height: 4, Format: "depth32float"},
			{Width: 4, Height: 4, Format: "depth24plus"},
			{Width: 4, Height: 4, Format: "depth24plus-stencil8"},
			{Width: 4, Height: 4, Format: "stencil8"},
			{Width: 4, Height: 4, Format: "bc1-rgba-unorm"},
			{Width: 4, Height: 4, Format: "rgb9e5ufloat"},
			{Width: 4, Height: 4, Format: "bgra8unorm"},
			{Width: 3, Height: 5, Format: "r8unorm"},
			{Width: 3, Height: 5, Depth: 3, Format: "rg8uint"},
			{Width: 4, Height: 4, Format: "RGBA8UNORM"},
			{Width: 4, Height: 4, Format: "rgba8unorm\x00"},
			{Width: 4, Height: 4, Format: "\xff"},
		}
		for _, desc := range descs {
			var tex *recorder.Texture
			var err error
			if p := noPanic(func() { tex, err = s.NewTexture(desc) }); p != "" {
				t.Errorf("NewTexture(%q %v) panicked: %s", desc.Format, desc, p)
				continue
			}
			if err != nil {
				if !errors.Is(err, wgpu.ErrInvalidArgument) && !errors.Is(err, wgpu.ErrValidation) && !errors.Is(err, wgpu.ErrOutOfMemory) {
					t.Errorf("NewTexture(%q %v): want a sentinel, got %v", desc.Format, desc, err)
				}
				continue
			}
			data := make([]byte, tex.Size())
			for i := range data {
				data[i] = byte(i*7 + 1)
			}
			tex.Release()
			var up *recorder.Texture
			if p := noPanic(func() { up, err = s.UploadTexture(desc, data) }); p != "" {
				t.Errorf("UploadTexture(%q %v) panicked: %s", desc.Format, desc, p)
				continue
			}
			if err != nil {
				t.Errorf("UploadTexture(%q %v) of a texture NewTexture made: %v", desc.Format, desc, err)
				continue
			}
			var got []byte
			if p := noPanic(func() { got, err = s.ReadTexture(up) }); p != "" {
				t.Errorf("ReadTexture(%q %v) panicked: %s", desc.Format, desc, p)
				continue
			}
			if err != nil {
				t.Errorf("ReadTexture(%q %v): %v", desc.Format, desc, err)
				continue
			}
			if !bytes.Equal(data, got) && !strings.Contains(desc.Format, "float") {
				t.Errorf("texture %q %v reads back other bytes than were uploaded", desc.Format, desc)
			}
			if err := s.Sync(); err != nil {
				t.Errorf("%q %v: queued errors: %v", desc.Format, desc, err)
			}
			up.Release()
		}
		k := gputest.Kernel(t, d, gputest.AddOneWGSL)
		a := gputest.Upload(t, s, gputest.Fill(64, 1))
		b := gputest.Empty(t, s, a.Size())
		gputest.WantEqual(t, "the stream computes after odd textures", gputest.Fill(64, 3), gputest.Read(t, s, gputest.MustChain(t, s, k, a, b, 2, 64)))
	})
}

// TestMemoryStatsCountsEveryLiveTexture: MemoryStats.Textures documents
// the live textures made on the stream and still referenced by the caller
// or a graph. It counted only those a graph pinned: a texture the caller
// holds, used or not, counted 0.
func TestMemoryStatsCountsEveryLiveTexture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	other := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, samplingWGSL)
	textures := func() int { return s.MemoryStats().Textures }
	gputest.WantEqual(t, "no texture yet", 0, textures())
	a, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 1, Format: "rgba8unorm"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 1, Format: "rgba8unorm"}, make([]byte, 16))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.NewTexture(recorder.TextureDesc{Width: 4, Height: 1, Format: "rgba8unorm"}); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "two textures the caller holds (another stream's does not count)", 2, textures())
	smp, err := s.NewSampler(recorder.SamplerDesc{})
	if err != nil {
		t.Fatal(err)
	}
	out := gputest.Empty(t, s, 32)
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), a, smp, out); err != nil {
			t.Fatal(err)
		}
	})
	a.Release()
	gputest.WantEqual(t, "a released texture a graph binds still counts", 2, textures())
	b.Release()
	gputest.WantEqual(t, "a released texture nothing binds does not", 1, textures())
	g.Release()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "once the graph is released nothing references the texture", 0, textures())
}

// TestARefusedReadTextureNeverDropsOtherLaunches: on OpenGL,
// ReadTexture of an rgba8snorm texture is refused (ErrInvalidArgument, as
// documented), while another goroutine launches on the stream. Every
// launch that returned nil must run: the counter it bumps equals their
// number. The refusal comes from the copy into the staging buffer, which
// readBack encodes after a flush that released the stream's lock while it
// waited; the other goroutine's launches went into the stream's encoder
// meanwhile, and readBack's s.enc.Discard() on the failed copy dropped them
// (the batch was then retired as empty, never submitted, with no error).
// Fixed: readBack hands off what others enqueued before encoding its copy
// (recorder/io.go).
func TestARefusedReadTextureNeverDropsOtherLaunches(t *testing.T) {
	d, s := gputest.OpenStream(t)
	if d.Info().Backend != wgpu.BackendGL {
		t.Skip("only OpenGL refuses reading an snorm texture back")
	}
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(counterElems, 0))
	tex, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8snorm"})
	if err != nil {
		t.Fatal(err)
	}
	var launched atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := bump(s, add, x, 1); err != nil {
				t.Error(err)
				return
			}
			launched.Add(1)
			if i%32 == 31 {
				time.Sleep(20 * time.Microsecond) // lets the reader in
			}
		}
	}()
	for launched.Load() < 100 {
		runtime.Gosched()
	}
	for i := 0; i < 5000 && (i < 100 || launched.Load() < 3000); i++ {
		if _, err := s.ReadTexture(tex); !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Errorf("ReadTexture %d of an snorm texture on OpenGL: want ErrInvalidArgument, got %v", i, err)
		}
	}
	close(stop)
	wg.Wait()
	got := gputest.Read(t, s, x)
	if got[0] != float32(launched.Load()) {
		t.Fatalf("%d launches returned nil, but the counter they bump is %v: %v of them never ran", launched.Load(), got[0], float32(launched.Load())-got[0])
	}
}

// TestATextureBoundWritableTwiceInOneDispatchIsAccepted: one texture
// passed to two write-only storage bindings of one dispatch runs, eager
// and replayed, both stores landing (rows 0-1 from one binding, 2-3 from
// the other), as two read_write bindings of one buffer do; bound writable
// and sampled it is still refused. The launch was refused with a message
// calling the bindings read-write and read-only, though wgpu accepts two
// writable uses of one texture.
func TestATextureBoundWritableTwiceInOneDispatchIsAccepted(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, `@group(0) @binding(0) var a: texture_storage_2d<r32float, write>;
@group(0) @binding(1) var b: texture_storage_2d<r32float, write>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	textureStore(a, g.xy, vec4<f32>(1.0 + f32(g.x)));
	textureStore(b, g.xy + vec2<u32>(0u, 2u), vec4<f32>(10.0 + f32(g.x)));
}`)
	newTex := func() *recorder.Texture {
		tex, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "r32float"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tex.Release)
		return tex
	}
	tex := newTex()
	want := make([]float32, 16)
	for y := range 4 {
		for x := range 4 {
			want[4*y+x] = float32(x) + map[bool]float32{true: 1, false: 10}[y < 2]
		}
	}
	read := func(what string, tex *recorder.Texture) {
		t.Helper()
		raw, err := s.ReadTexture(tex)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, 16)
		for i := range got {
			got[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		gputest.WantEqual(t, what, want, got)
	}
	if err := s.Launch(k, recorder.Groups(4, 2, 1), tex, tex); err != nil {
		t.Fatalf("Launch with one texture in two writable bindings: %v", err)
	}
	read("eager", tex)
	fresh := newTex() // written by the replay alone: no warmup
	g, err := s.Capture(func() error { return s.Launch(k, recorder.Groups(4, 2, 1), fresh, fresh) }, recorder.WithoutWarmup())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	read("replayed", fresh)
	sampled := gputest.Kernel(t, d, `@group(0) @binding(0) var a: texture_storage_2d<r32float, write>;
@group(0) @binding(1) var b: texture_2d<f32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	textureStore(a, g.xy, textureLoad(b, g.xy, 0));
}`)
	gputest.WantErr(t, "one texture bound writable and sampled", s.Launch(sampled, recorder.Groups(4, 4, 1), tex, tex), []error{wgpu.ErrInvalidArgument}, "same resource", "read-write and read-only")
}
