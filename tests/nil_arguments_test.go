package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// noPanic runs f and returns the panic it raised, as text ("" if none).
func noPanic(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// TestEveryMethodOnANilReceiverReturnsWithoutPanicking: the API never
// panics, so a nil *Buffer, *Graph, *Stream, *Texture, *Sampler, *Device or
// *Kernel answers every method with an error wrapping ErrInvalidArgument
// (or a zero value for getters). Without the fix the getters dereferenced
// the nil receiver.
func TestEveryMethodOnANilReceiverReturnsWithoutPanicking(t *testing.T) {
	var (
		b   *recorder.Buffer
		g   *recorder.Graph
		s   *recorder.Stream
		tex *recorder.Texture
		smp *recorder.Sampler
		d   *wgpu.Device
		k   *wgpu.Kernel
	)
	errs := map[string]func() error{
		"Graph.Replay":   func() error { return g.Replay() },
		"Graph.Rebind":   func() error { _, err := g.Rebind(nil, nil); return err },
		"Graph.Save":     func() error { _, err := g.Save(&bytes.Buffer{}, recorder.SaveOptions{}); return err },
		"Graph.WriteTo":  func() error { _, err := g.WriteTo(&bytes.Buffer{}); return err },
		"Graph.WriteDOT": func() error { return g.WriteDOT(&bytes.Buffer{}) },
		"Stream.Flush":   func() error { return s.Flush() },
		"Stream.Sync":    func() error { return s.Sync() },
		"Stream.Read":    func() error { _, err := s.Read(nil); return err },
		"Stream.ReadTex": func() error { _, err := s.ReadTexture(nil); return err },
		"Stream.Write":   func() error { return s.Write(nil, 0, nil) },
		"Stream.Copy":    func() error { return s.Copy(nil, 0, nil, 0, 4) },
		"Stream.Clear":   func() error { return s.Clear(nil, 0, 4) },
		"Stream.Launch":  func() error { return s.Launch(nil, recorder.Groups(1, 1, 1)) },
		"Stream.Empty":   func() error { _, err := s.Alloc(4); return err },
		"Stream.Upload":  func() error { _, err := s.Upload(make([]byte, 4)); return err },
		"Stream.NewTexture": func() error {
			_, err := s.NewTexture(recorder.TextureDesc{Width: 1, Height: 1, Format: "r32float"})
			return err
		},
		"Stream.UploadTex": func() error {
			_, err := s.UploadTexture(recorder.TextureDesc{Width: 1, Height: 1, Format: "r32float"}, make([]byte, 4))
			return err
		},
		"Stream.NewSampler":   func() error { _, err := s.NewSampler(recorder.SamplerDesc{}); return err },
		"Stream.GraphPrepare": func() error { return s.PrepareCapture() },
		"Stream.BeginCapture": func() error { return s.BeginCapture() },
		"Stream.EndCapture":   func() error { _, err := s.EndCapture(); return err },
		"Stream.AbortCapture": func() error { return s.AbortCapture() },
		"Stream.Capture":      func() error { _, err := s.Capture(func() error { return nil }); return err },
		"Stream.If":           func() error { return s.If(nil, 0, func() error { return nil }) },
		"Stream.While":        func() error { return s.While(nil, 0, 1, func() error { return nil }) },
		"Stream.LoadGraph":    func() error { _, err := s.LoadGraph(strings.NewReader("x")); return err },
		"Stream.StartProfile": func() error { _, err := s.StartProfile(); return err },
		"Stream.EndProfile":   func() error { _, err := s.EndProfile(recorder.ProfileToken{}); return err },
		"Stream.ProfileReplay": func() error {
			_, err := s.ProfileReplay(nil)
			return err
		},
		"Stream.Trim":   func() error { _, err := s.Trim(); return err },
		"Device.Kernel": func() error { _, err := d.Kernel(gputest.AddOneWGSL, "main"); return err },
	}
	for name, f := range errs {
		var err error
		if p := noPanic(func() { err = f() }); p != "" {
			t.Errorf("%s on a nil receiver panicked (the API never panics): %s", name, p)
			continue
		}
		if !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Errorf("%s on a nil receiver: want an error wrapping ErrInvalidArgument, got %v", name, err)
		}
	}
	plain := map[string]func(){
		"Buffer.Size":      func() { _ = b.Size() },
		"Buffer.Stream":    func() { _ = b.Stream() },
		"Buffer.Label":     func() { _ = b.Label() },
		"Buffer.SetLabel":  func() { b.SetLabel("x") },
		"Buffer.Released":  func() { _ = b.Released() },
		"Buffer.String":    func() { _ = b.String() },
		"Buffer.Release":   func() { b.Release() },
		"Graph.Len":        func() { _ = g.Len() },
		"Graph.Stats":      func() { _ = g.Stats() },
		"Graph.Stream":     func() { _ = g.Stream() },
		"Graph.Buffers":    func() { _ = g.Buffers() },
		"Graph.String":     func() { _ = g.String() },
		"Graph.Release":    func() { g.Release() },
		"Stream.State":     func() { _ = s.State() },
		"Stream.Device":    func() { _ = s.Device() },
		"Stream.Close":     func() { _ = s.Close() },
		"Stream.Memory":    func() { _ = s.MemoryStats() },
		"Texture.Desc":     func() { _ = tex.Desc() },
		"Texture.Size":     func() { _ = tex.Size() },
		"Texture.String":   func() { _ = tex.String() },
		"Texture.Release":  func() { tex.Release() },
		"Sampler.Desc":     func() { _ = smp.Desc() },
		"Sampler.Release":  func() { smp.Release() },
		"Device.Info":      func() { _ = d.Info() },
		"Device.Err":       func() { _ = d.Err() },
		"Device.Close":     func() { _ = d.Close() },
		"Kernel.Entry":     func() { _ = k.Entry() },
		"Kernel.Device":    func() { _ = k.Device() },
		"Kernel.Source":    func() { _ = k.Source() },
		"Kernel.Constants": func() { _ = k.Constants() },
		"Kernel.Bindings":  func() { _ = k.Bindings() },
		"Kernel.WGSize":    func() { _ = k.WorkgroupSize() },
		"Kernel.Release":   func() { k.Release() },
		"Kernel.Released":  func() { _ = k.Released() },
	}
	for name, f := range plain {
		if p := noPanic(f); p != "" {
			t.Errorf("%s on a nil receiver panicked (the API never panics): %s", name, p)
		}
	}
	if err := d.Err(); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("Device.Err on a nil device must say the device is unusable (ErrInvalidArgument), got %v", err)
	}
}

// TestNilReadersAndWritersAreRefusedWithAnError: LoadGraph(nil), Save(nil),
// WriteTo(nil) and WriteDOT(nil) return ErrInvalidArgument instead of
// panicking inside io.ReadAll or Write, and the stream still computes.
func TestNilReadersAndWritersAreRefusedWithAnError(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())
	g := gputest.Capture(t, s, func() {
		if err := gputest.Chain(s, k, a, b, 2, 64); err != nil {
			t.Fatal(err)
		}
	})
	cases := map[string]func() error{
		"LoadGraph(nil)": func() error { _, err := s.LoadGraph(nil); return err },
		"Save(nil)":      func() error { _, err := g.Save(nil, recorder.SaveOptions{Contents: true}); return err },
		"WriteTo(nil)":   func() error { _, err := g.WriteTo(nil); return err },
		"WriteDOT(nil)":  func() error { return g.WriteDOT(nil) },
	}
	for name, f := range cases {
		var err error
		if p := noPanic(func() { err = f() }); p != "" {
			t.Errorf("%s panicked (the API never panics): %s", name, p)
			continue
		}
		if !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Errorf("%s: want an error wrapping ErrInvalidArgument, got %v", name, err)
		}
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the stream computes after the refused calls", gputest.Fill(64, 5), gputest.Read(t, s, a))
}

// TestNilOptionsAreIgnored: a nil Option, KernelOption or ProfileOption in
// a variadic list is skipped, not called (a nil func call panicked inside
// New, Device.Kernel and ProfileReplay).
func TestNilOptionsAreIgnored(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	var s *recorder.Stream
	if p := noPanic(func() {
		var err error
		s, err = recorder.New(d, nil, recorder.WithFlushDelay(0), nil)
		if err != nil {
			t.Errorf("New with nil options: %v", err)
		}
	}); p != "" {
		t.Fatalf("New with a nil Option panicked (the API never panics): %s", p)
	}
	if s == nil {
		t.Fatal("New returned no stream")
	}
	defer s.Close()
	var k *wgpu.Kernel
	if p := noPanic(func() {
		var err error
		k, err = d.Kernel(gputest.AddOneWGSL, "main", nil)
		if err != nil {
			t.Errorf("Kernel with a nil option: %v", err)
		}
	}); p != "" {
		t.Fatalf("Device.Kernel with a nil KernelOption panicked (the API never panics): %s", p)
	}
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())
	g, err := s.Capture(func() error { return gputest.Chain(s, k, a, b, 2, 64) })
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if p := noPanic(func() {
		if _, err := s.ProfileReplay(g, nil); err != nil {
			t.Errorf("ProfileReplay with a nil option: %v", err)
		}
	}); p != "" {
		t.Fatalf("ProfileReplay with a nil ProfileOption panicked (the API never panics): %s", p)
	}
	// 1 + 2 (warmup) + 2 (profiled replay)
	gputest.WantEqual(t, "the stream computes after nil options", gputest.Fill(64, 5), gputest.Read(t, s, a))
}

// TestANilContextIsRefusedWithAnError: SyncContext(nil) and
// ReadContext(nil, b) return ErrInvalidArgument instead of panicking on
// ctx.Err(), and the stream then computes.
func TestANilContextIsRefusedWithAnError(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())
	gputest.MustChain(t, s, k, a, b, 2, 64)
	var nilCtx context.Context
	cases := map[string]func() error{
		"SyncContext(nil)": func() error { return s.SyncContext(nilCtx) },
		"ReadContext(nil)": func() error { _, err := s.ReadContext(nilCtx, a); return err },
	}
	for name, f := range cases {
		var err error
		if p := noPanic(func() { err = f() }); p != "" {
			t.Errorf("%s panicked (the API never panics): %s", name, p)
			continue
		}
		gputest.WantErr(t, name+" is refused", err, []error{wgpu.ErrInvalidArgument}, "context")
	}
	gputest.WantEqual(t, "the stream computes after a nil context", gputest.Fill(64, 3), gputest.Read(t, s, a))
}
