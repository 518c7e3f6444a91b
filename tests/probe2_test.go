package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// This file holds the second adversarial review's findings: one test per
// way a hostile caller still broke the public API (a panic, a wedged
// stream, a lost error, wrong data). Each test fails without its fix;
// those that could abort the process run in a fresh one.

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
		"Stream.Empty":   func() error { _, err := s.Empty(4); return err },
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
		"Stream.GraphPrepare": func() error { return s.GraphPrepare() },
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

// TestAPanickingCaptureStepLeavesTheStreamInNoCapture: Capture promises
// that any failure leaves the stream in NoCapture; a step that panics is a
// failure too. The panic reaches the caller unchanged, and the stream is
// back in NoCapture, re-capturable. Without the fix the stream stayed in
// Prepare or Capture and every later GraphPrepare was refused.
func TestAPanickingCaptureStepLeavesTheStreamInNoCapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())
	for _, run := range []int{1, 2} {
		calls := 0
		p := noPanic(func() {
			_, _ = s.Capture(func() error {
				calls++
				if err := gputest.Chain(s, k, a, b, 2, 64); err != nil {
					return err
				}
				if calls == run {
					panic("step panics")
				}
				return nil
			})
		})
		if p != "step panics" {
			t.Fatalf("run %d: the step's panic must reach the caller unchanged, got %q", run, p)
		}
		if st := s.State(); st != lifecycle.NoCapture {
			t.Fatalf("run %d: after a step panicked the stream must be in NoCapture, is in %v", run, st)
		}
	}
	// The warmups ran twice (2 each); a fresh capture works.
	g, err := s.Capture(func() error { return gputest.Chain(s, k, a, b, 2, 64) })
	if err != nil {
		t.Fatalf("a capture after a panicking step must work: %v", err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	// 1 + 2 (warmup of run 1) + 2 (warmup of run 2) + 2 (warmup) + 2 (replay)
	gputest.WantEqual(t, "the stream computes after a panicking step", gputest.Fill(64, 9), gputest.Read(t, s, a))
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

// twoParamsWGSL: out = p.a + q.b, two uniforms in one launch.
const twoParamsWGSL = `
struct P { a: f32 }
struct Q { b: f32 }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@group(0) @binding(2) var<uniform> q: Q;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&out)) { out[id.x] = out[id.x] + p.a + q.b; }
}
`

// TestATinyParamsCacheNeverServesOneSlotToTwoParamsOfALaunch: with the
// params cache bounded to one entry, a launch with two different Params
// evicts the first while resolving the second; the first slot must not be
// reused for the second, or both bindings read the same value.
func TestATinyParamsCacheNeverServesOneSlotToTwoParamsOfALaunch(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithMetadataCache(1))
	k := gputest.Kernel(t, d, twoParamsWGSL)
	out := gputest.Upload(t, s, gputest.Fill(64, 0))
	want := float32(0)
	for i := 1; i <= 20; i++ {
		p, q := gputest.F32(float32(i)), gputest.F32(float32(1000*i))
		if err := s.Launch(k, recorder.Groups(1, 1, 1), out, p, q); err != nil {
			t.Fatal(err)
		}
		want += float32(i) + float32(1000*i)
		if i%7 == 0 {
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	gputest.WantEqual(t, "every launch reads both its params", gputest.Fill(64, want), gputest.Read(t, s, out))
}

// TestABodyThatClosesTheStreamEndsTheBranchWithErrClosed: Close called
// from inside an If or While body (eager or recorded) does not deadlock
// or panic; the branch returns an error and later calls ErrClosed.
func TestABodyThatClosesTheStreamEndsTheBranchWithErrClosed(t *testing.T) {
	for _, capture := range []bool{false, true} {
		t.Run(fmt.Sprintf("capture=%v", capture), func(t *testing.T) {
			d := gputest.Open(t, wgpu.Options{})
			s := gputest.Stream(t, d)
			k := gputest.Kernel(t, d, gputest.AddConstWGSL)
			cond, err := s.Upload(gputest.U32(1, 0, 0, 0))
			if err != nil {
				t.Fatal(err)
			}
			x := gputest.Upload(t, s, gputest.Fill(64, 0))
			body := func() error {
				if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
					return err
				}
				return s.Close()
			}
			done := make(chan error, 1)
			go func() {
				if capture {
					if err := s.GraphPrepare(); err != nil {
						done <- err
						return
					}
					if err := s.BeginCapture(); err != nil {
						done <- err
						return
					}
				}
				done <- s.While(cond, 0, 3, body)
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Fatalf("a While whose body closed the stream must return an error")
				}
			case <-time.After(20 * time.Second):
				t.Fatal("a While whose body closed the stream hung")
			}
			if err := s.Sync(); !errors.Is(err, wgpu.ErrClosed) {
				t.Fatalf("after Close, Sync must fail with ErrClosed, got %v", err)
			}
		})
	}
}

// TestABodyThatPanicsWhileRecordingCannotSealAGraph: an If or While body
// that panics while recording never returns to close its region. A caller
// who recovers and goes on must not get a graph whose later commands were
// silently recorded into that body (gated by its condition): EndCapture
// fails with a *CaptureError (lifecycle.ErrGraphState), the stream is back
// in NoCapture, and a new capture works. Without the fix the next launch
// was recorded inside the abandoned body and the graph sealed.
func TestABodyThatPanicsWhileRecordingCannotSealAGraph(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		for _, kind := range []string{"If", "While"} {
			d, s := gputest.OpenStream(t)
			k := gputest.Kernel(t, d, gputest.AddConstWGSL)
			cond, err := s.Upload(gputest.U32(0, 0, 0, 0)) // false: a body never runs
			if err != nil {
				t.Fatal(err)
			}
			x := gputest.Upload(t, s, gputest.Fill(64, 0))
			add := func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)) }
			if err := s.GraphPrepare(); err != nil {
				t.Fatal(err)
			}
			if err := add(); err != nil {
				t.Fatal(err)
			}
			if err := s.BeginCapture(); err != nil {
				t.Fatal(err)
			}
			p := noPanic(func() {
				body := func() error { _ = add(); panic("body panics") }
				if kind == "If" {
					_ = s.If(cond, 0, body)
				} else {
					_ = s.While(cond, 0, 2, body)
				}
			})
			if p != "body panics" {
				t.Fatalf("%s: the body's panic must reach the caller, got %q", kind, p)
			}
			if err := add(); err != nil { // at top level, after the recovered panic
				t.Fatal(err)
			}
			g, err := s.EndCapture()
			if err == nil {
				// What the graph would compute: the top-level launch adds 1.
				_ = g.Replay()
				got := gputest.Read(t, s, x)
				g.Release()
				t.Fatalf("%s: EndCapture after a body panicked must fail, not seal a graph (a replay added %v, want 1)", kind, got[0]-1)
			}
			gputest.WantErr(t, kind+": EndCapture after a body panicked fails with a CaptureError", err, []error{lifecycle.ErrGraphState}, "did not return")
			if st := s.State(); st != lifecycle.NoCapture {
				t.Fatalf("%s: after the failed EndCapture the stream must be in NoCapture, is in %v", kind, st)
			}
			g, err = s.Capture(add)
			if err != nil {
				t.Fatalf("%s: a capture after the failed one must work: %v", kind, err)
			}
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			g.Release()
			// warmups 1 + 1, replay 1
			gputest.WantEqual(t, kind+": the stream computes after the failed capture", gputest.Fill(64, 3), gputest.Read(t, s, x))
		}
	})
}

// TestHostileKernelSourcesAndConstantsFailWithCompileErrors: NUL bytes,
// invalid UTF-8, a NUL in the entry name, and constants that are NaN,
// infinite, negative for a u32 or out of range never abort the process:
// each is a compile error or an invalid argument, and the device still
// computes.
func TestHostileKernelSourcesAndConstantsFailWithCompileErrors(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		over := `
override n: u32 = 4u;
override c: f32 = 1.0;
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(n)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] + c; }
}
`
		inf := math.Inf(1)
		cases := []struct {
			name, src, entry string
			c                map[string]float64
		}{
			{"NUL in source", "\x00" + gputest.AddOneWGSL, "main", nil},
			{"NUL mid-source", gputest.AddOneWGSL[:40] + "\x00" + gputest.AddOneWGSL[40:], "main", nil},
			{"invalid UTF-8", "// \xff\xfe\n" + gputest.AddOneWGSL, "main", nil},
			{"invalid UTF-8 in code", gputest.AddOneWGSL + "\nfn \xff() {}\n", "main", nil},
			{"NUL in entry", gputest.AddOneWGSL, "ma\x00in", nil},
			{"entry with spaces", gputest.AddOneWGSL, "main ", nil},
			{"NaN constant", over, "main", map[string]float64{"c": inf - inf}},
			{"Inf constant", over, "main", map[string]float64{"c": inf}},
			{"negative u32", over, "main", map[string]float64{"n": -1}},
			{"huge u32", over, "main", map[string]float64{"n": 1e20}},
			{"fractional u32", over, "main", map[string]float64{"n": 1.5}},
			{"zero workgroup size", over, "main", map[string]float64{"n": 0}},
			{"workgroup size over the limit", over, "main", map[string]float64{"n": 1 << 20}},
			{"huge f32", over, "main", map[string]float64{"c": 1e300}},
		}
		for _, c := range cases {
			var err error
			var k *wgpu.Kernel
			if p := noPanic(func() { k, err = d.Kernel(c.src, c.entry, wgpu.WithConstants(c.c)) }); p != "" {
				t.Errorf("%s: Kernel panicked: %s", c.name, p)
				continue
			}
			if err == nil {
				// Accepted: it must then compute (a launch must not lose the
				// device).
				x := gputest.Upload(t, s, gputest.Fill(64, 0))
				var args []recorder.Arg
				args = append(args, x)
				if len(k.Bindings()) == 3 {
					args = []recorder.Arg{x, gputest.Empty(t, s, 256), gputest.U32(64)}
				}
				if lerr := s.Launch(k, recorder.Groups(1, 1, 1), args...); lerr != nil {
					t.Logf("%s: accepted, launch refused: %v", c.name, lerr)
				}
				if serr := s.Sync(); serr != nil {
					t.Errorf("%s: a kernel Kernel accepted must run without device errors: %v", c.name, serr)
				}
				continue
			}
			if !errors.Is(err, wgpu.ErrCompile) && !errors.Is(err, wgpu.ErrInvalidArgument) {
				t.Errorf("%s: want ErrCompile or ErrInvalidArgument, got %v", c.name, err)
			}
		}
		k := gputest.Kernel(t, d, gputest.AddOneWGSL)
		a := gputest.Upload(t, s, gputest.Fill(64, 1))
		b := gputest.Empty(t, s, a.Size())
		gputest.WantEqual(t, "the device computes after hostile kernels", gputest.Fill(64, 3), gputest.Read(t, s, gputest.MustChain(t, s, k, a, b, 2, 64)))
	})
}

// TestOpenWithOddOptionsFailsOrOpensAWorkingDevice: an out-of-range
// Backend or NativeLog, or an adapter filter with NUL or invalid UTF-8,
// either fails with an error (ErrInvalidArgument or ErrNoAdapter) or opens
// a device that computes; nothing aborts.
func TestOpenWithOddOptionsFailsOrOpensAWorkingDevice(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		for _, o := range []wgpu.Options{
			{Backend: wgpu.Backend(200), IgnoreEnv: true},
			{Adapter: "\xff\x00", IgnoreEnv: true},
			{NativeLog: wgpu.NativeLogLevel(200)},
		} {
			var d *wgpu.Device
			var err error
			if p := noPanic(func() { d, err = wgpu.Open(o) }); p != "" {
				t.Errorf("Open(%+v) panicked: %s", o, p)
				continue
			}
			if err != nil {
				if !errors.Is(err, wgpu.ErrInvalidArgument) && !errors.Is(err, wgpu.ErrNoAdapter) {
					t.Errorf("Open(%+v): want ErrInvalidArgument or ErrNoAdapter, got %v", o, err)
				}
				continue
			}
			s, err := recorder.New(d)
			if err != nil {
				t.Fatal(err)
			}
			k := gputest.Kernel(t, d, gputest.AddOneWGSL)
			a := gputest.Upload(t, s, gputest.Fill(64, 1))
			b := gputest.Empty(t, s, a.Size())
			gputest.WantEqual(t, fmt.Sprintf("a device Open(%+v) accepted computes", o), gputest.Fill(64, 3), gputest.Read(t, s, gputest.MustChain(t, s, k, a, b, 2, 64)))
			_ = s.Close()
			_ = d.Close()
		}
	})
}

// TestHundredsOfStreamsOpenAndCloseWithoutLeakingGoroutines: 300 streams
// on one device, each computing, then closed (a third of them while
// another goroutine replays a graph on them), leave no goroutine behind.
func TestHundredsOfStreamsOpenAndCloseWithoutLeakingGoroutines(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	// Warm up once so lazily started goroutines of the device exist.
	{
		s := gputest.Stream(t, d)
		a := gputest.Upload(t, s, gputest.Fill(64, 1))
		b := gputest.Empty(t, s, a.Size())
		gputest.MustChain(t, s, k, a, b, 2, 64)
		_ = gputest.Read(t, s, a)
		_ = s.Close()
	}
	time.Sleep(50 * time.Millisecond)
	before := runtime.NumGoroutine()
	const n = 300
	streams := make([]*recorder.Stream, n)
	bufs := make([]*recorder.Buffer, n)
	graphs := make([]*recorder.Graph, n)
	for i := range streams {
		s, err := recorder.New(d)
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		streams[i] = s
		a := gputest.Upload(t, s, gputest.Fill(64, float32(i)))
		b := gputest.Empty(t, s, a.Size())
		g, err := s.Capture(func() error { return gputest.Chain(s, k, a, b, 2, 64) })
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		bufs[i], graphs[i] = a, g
	}
	for i, s := range streams {
		if err := graphs[i].Replay(); err != nil {
			t.Fatal(err)
		}
		// start i, warmup +2, replay +2
		gputest.WantEqual(t, fmt.Sprintf("stream %d computes", i), gputest.Fill(64, float32(i+4)), gputest.Read(t, s, bufs[i]))
	}
	var wg sync.WaitGroup
	for i := range streams {
		if i%3 != 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; ; r++ {
				err := graphs[i].Replay()
				if err == nil && r%8 == 7 {
					err = streams[i].Sync()
				}
				if err != nil {
					if !errors.Is(err, wgpu.ErrClosed) && !errors.Is(err, wgpu.ErrReleased) {
						t.Errorf("stream %d: Replay racing Close: %v", i, err)
					}
					return
				}
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	for _, s := range streams {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("closing %d streams must leave no goroutine behind: %d before, %d after\n%s", n, before, after, buf[:runtime.Stack(buf, true)])
	}
}

// TestOddTexturesAreRefusedOrWork: zero, huge and over-limit sizes, depth
// and unknown formats, and formats with odd texel sizes are refused with
// ErrInvalidArgument (or the device's error) or make a texture that
// uploads and reads back what was written; nothing aborts.
func TestOddTexturesAreRefusedOrWork(t *testing.T) {
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

// TestGraphCallsRacingReleaseAndReplayKeepTheirContracts: goroutines
// replay, profile, rebind, save, describe and release graphs of one stream
// at once, while another stream loads truncated and garbled graph files.
// Every error wraps a sentinel, nothing panics or races (run with -race),
// and afterwards the stream computes.
func TestGraphCallsRacingReleaseAndReplayKeepTheirContracts(t *testing.T) {
	d, s := gputest.OpenStream(t)
	s2 := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 1))
	b := gputest.Empty(t, s, a.Size())
	spare := gputest.Empty(t, s, a.Size())
	var file bytes.Buffer
	{
		g := gputest.Capture(t, s, func() {
			if err := gputest.Chain(s, k, a, b, 2, 64); err != nil {
				t.Fatal(err)
			}
		})
		if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
			t.Fatal(err)
		}
	}
	sentinels := []error{wgpu.ErrClosed, wgpu.ErrReleased, wgpu.ErrInvalidArgument, lifecycle.ErrGraphState, recorder.ErrGraphFile}
	typed := func(what string, err error) {
		if err == nil {
			return
		}
		for _, s := range sentinels {
			if errors.Is(err, s) {
				return
			}
		}
		t.Errorf("%s: an error wrapping no sentinel: %v", what, err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for round := 0; time.Now().Before(deadline); round++ {
		g, err := s.Capture(func() error { return gputest.Chain(s, k, a, b, 2, 64) })
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		run := func(f func()) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if p := noPanic(f); p != "" {
					t.Errorf("round %d: panicked: %s", round, p)
				}
			}()
		}
		run(func() {
			for range 4 {
				typed("Replay", g.Replay())
			}
		})
		run(func() { _, err := s.ProfileReplay(g); typed("ProfileReplay", err) })
		run(func() {
			g2, err := g.Rebind(a, spare)
			typed("Rebind", err)
			if err == nil {
				typed("Replay of a rebound graph", g2.Replay())
				g2.Release()
			}
		})
		run(func() { _, err := g.Save(io.Discard, recorder.SaveOptions{Contents: true}); typed("Save", err) })
		run(func() { _ = g.String(); typed("WriteDOT", g.WriteDOT(io.Discard)); _ = g.Buffers() })
		run(func() { time.Sleep(time.Duration(round%5) * time.Millisecond); g.Release() })
		run(func() {
			data := file.Bytes()
			cut := data[:(round*37)%len(data)]
			if g3, err := s2.LoadGraph(bytes.NewReader(cut)); err == nil {
				g3.Release()
			} else {
				typed("LoadGraph of a truncated file", err)
			}
			bad := bytes.Clone(data)
			bad[(round*53)%len(bad)] ^= 0x5a
			if g3, err := s2.LoadGraph(bytes.NewReader(bad)); err == nil {
				g3.Release()
			} else {
				typed("LoadGraph of a garbled file", err)
			}
		})
		wg.Wait()
		if err := s.Sync(); err != nil {
			t.Fatalf("round %d: Sync after the race: %v", round, err)
		}
	}
	if err := recorder.WriteSlice(s, a, 0, gputest.Fill(64, 1)); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the stream computes after the races", gputest.Fill(64, 3), gputest.Read(t, s, gputest.MustChain(t, s, k, a, b, 2, 64)))
}

// TestClosingFromInsideACaptureStepFailsTheCaptureCleanly: a step that
// closes its stream, or the device, during the warmup or the recorded run
// makes Capture return an error wrapping ErrClosed; nothing hangs or
// aborts, and a new device computes afterwards.
func TestClosingFromInsideACaptureStepFailsTheCaptureCleanly(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		for _, what := range []string{"stream", "device"} {
			for _, run := range []int{1, 2} {
				d, err := wgpu.Open(wgpu.Options{})
				gputest.SkipIfNoAdapter(t, err)
				if err != nil {
					t.Fatal(err)
				}
				s, err := recorder.New(d)
				if err != nil {
					t.Fatal(err)
				}
				k := gputest.Kernel(t, d, gputest.AddOneWGSL)
				a := gputest.Upload(t, s, gputest.Fill(64, 1))
				b := gputest.Empty(t, s, a.Size())
				calls := 0
				done := make(chan error, 1)
				go func() {
					_, err := s.Capture(func() error {
						calls++
						if err := gputest.Chain(s, k, a, b, 2, 64); err != nil {
							return err
						}
						if calls == run {
							if what == "stream" {
								return s.Close()
							}
							return d.Close()
						}
						return nil
					})
					done <- err
				}()
				select {
				case err := <-done:
					gputest.WantErr(t, fmt.Sprintf("a capture whose %s closed in run %d fails with ErrClosed", what, run), err, []error{wgpu.ErrClosed})
				case <-time.After(30 * time.Second):
					t.Fatalf("a capture whose %s closed in run %d hung", what, run)
				}
				if err := s.Sync(); !errors.Is(err, wgpu.ErrClosed) {
					t.Fatalf("after closing the %s, Sync must fail with ErrClosed, got %v", what, err)
				}
				_ = s.Close()
				_ = d.Close()
			}
		}
	})
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

// TestRebindingAnIfConditionCarriesIntoTheSavedGraph: Rebind of the
// buffer an If reads its condition from rebinds the region too, so the
// rebound graph saved and loaded elsewhere has the same buffers and reads
// the new condition; the old buffer (released, its graph released) is not
// read or written into the file. Without the fix the saved file carried the
// old condition buffer as an extra buffer and named it the If's condition.
func TestRebindingAnIfConditionCarriesIntoTheSavedGraph(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	cond, err := s.Upload(gputest.U32(0, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	cond2, err := s.Upload(gputest.U32(1, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	g, err := s.Capture(func() error {
		return s.If(cond, 0, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)) })
	})
	if err != nil {
		t.Fatal(err)
	}
	g2, err := g.Rebind(cond, cond2)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Release()
	g.Release()
	cond.Release()
	var file bytes.Buffer
	if _, err := g2.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.LoadGraph(&file)
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Release()
	gputest.WantEqual(t, "the loaded graph has the rebound graph's buffers", len(g2.Buffers()), len(loaded.Buffers()))
	gputest.WantEqual(t, "the loaded graph describes itself as the rebound one", g2.String(), loaded.String())
	var dot2, dotL bytes.Buffer
	if err := g2.WriteDOT(&dot2); err != nil {
		t.Fatal(err)
	}
	if err := loaded.WriteDOT(&dotL); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the loaded graph draws as the rebound one", dot2.String(), dotL.String())
}

// TestSaveRacingReleaseWritesOnlyTheGraphsContents: Save with Contents
// reads the graph's buffers one by one; a Release of the graph and its
// buffers meanwhile must not let another buffer take their memory before
// Save has read it. The file then holds what the graph's buffers held, or
// Save fails with ErrReleased; never another buffer's data. Without the
// fix Save held no reference and read memory the pool had handed out again.
func TestSaveRacingReleaseWritesOnlyTheGraphsContents(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	const n = 24
	deadline := time.Now().Add(3 * time.Second)
	for round := 0; time.Now().Before(deadline); round++ {
		bufs := make([]*recorder.Buffer, n)
		for i := range bufs {
			bufs[i] = gputest.Upload(t, s, gputest.Fill(64, 7))
		}
		g, err := s.Capture(func() error {
			for _, b := range bufs {
				if err := s.Launch(k, recorder.Groups(1, 1, 1), b, gputest.F32(0)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var file bytes.Buffer
		saved := make(chan error, 1)
		go func() { _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); saved <- err }()
		time.Sleep(time.Duration(round%4) * time.Millisecond)
		g.Release()
		var others []*recorder.Buffer
		for _, b := range bufs {
			b.Release()
			o := gputest.Upload(t, s, gputest.Fill(64, 99))
			others = append(others, o)
		}
		err = <-saved
		for _, o := range others {
			o.Release()
		}
		if err != nil {
			if !errors.Is(err, wgpu.ErrReleased) {
				t.Fatalf("round %d: Save racing Release: want nil or ErrReleased, got %v", round, err)
			}
			continue
		}
		loaded, err := s.LoadGraph(&file)
		if err != nil {
			t.Fatalf("round %d: loading what Save wrote: %v", round, err)
		}
		for i, b := range loaded.Buffers() {
			v, err := recorder.ReadSlice[float32](s, b)
			if err != nil {
				t.Fatal(err)
			}
			if v[0] != 7 {
				loaded.Release()
				t.Fatalf("round %d: buffer %d of the saved graph holds %v, another buffer's data (want 7)", round, i, v[0])
			}
		}
		loaded.Release()
		for _, b := range loaded.Buffers() {
			b.Release()
		}
	}
}

// TestEndCaptureInsideAnIfBodyDoesNotSealAnOpenBody: EndCapture called
// from inside a recorded If body would seal a graph whose If never
// closed; it fails with a *CaptureError instead, the If returns an error,
// and the stream is back in NoCapture and computes.
func TestEndCaptureInsideAnIfBodyDoesNotSealAnOpenBody(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		k := gputest.Kernel(t, d, gputest.AddConstWGSL)
		cond, err := s.Upload(gputest.U32(1, 0, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		x := gputest.Upload(t, s, gputest.Fill(64, 0))
		if err := s.GraphPrepare(); err != nil {
			t.Fatal(err)
		}
		if err := s.BeginCapture(); err != nil {
			t.Fatal(err)
		}
		var inner error
		ifErr := s.If(cond, 0, func() error {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
				return err
			}
			g, err := s.EndCapture()
			if err == nil {
				g.Release()
			}
			inner = err
			return nil
		})
		gputest.WantErr(t, "EndCapture inside an If body fails", inner, []error{lifecycle.ErrGraphState}, "did not return")
		if ifErr == nil {
			t.Fatal("an If whose body ended the capture must return an error")
		}
		if st := s.State(); st != lifecycle.NoCapture {
			t.Fatalf("the stream must be in NoCapture, is in %v", st)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, "the stream computes after the refused EndCapture", gputest.Fill(64, 2), gputest.Read(t, s, x))
	})
}

// TestExtremeStreamOptionsStillComputeInOrder: one-dispatch batches, a
// 1 ns flush delay, a one-entry params cache and no background submitter
// (and the same with it) keep every launch, replay and While in stream
// order.
func TestExtremeStreamOptionsStillComputeInOrder(t *testing.T) {
	for _, async := range []bool{true, false} {
		t.Run(fmt.Sprintf("background=%v", async), func(t *testing.T) {
			d, s := gputest.OpenStream(t, recorder.WithSubmitChunks(1, 1), recorder.WithFlushDelay(time.Nanosecond),
				recorder.WithMetadataCache(1), recorder.WithBackgroundSubmit(async), recorder.WithPreEncode(true))
			k := gputest.Kernel(t, d, gputest.AddConstWGSL)
			dec := gputest.Kernel(t, d, `
@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(1)
fn main() { c[0] = c[0] - 1u; }
`)
			x := gputest.Upload(t, s, gputest.Fill(64, 0))
			cond, err := s.Upload(gputest.U32(5, 0, 0, 0))
			if err != nil {
				t.Fatal(err)
			}
			step := func() error {
				for i := 1; i <= 70; i++ {
					if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(float32(i%3))); err != nil {
						return err
					}
				}
				return s.While(cond, 0, 8, func() error {
					if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(100)); err != nil {
						return err
					}
					return s.Launch(dec, recorder.Groups(1, 1, 1), cond)
				})
			}
			// One step adds sum(i%3 for i in 1..70) = 70 and 5 iterations × 100.
			const per = 70 + 500
			g, err := s.Capture(step)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			for r := 0; r < 4; r++ {
				if err := recorder.WriteSlice(s, cond, 0, []uint32{5}); err != nil {
					t.Fatal(err)
				}
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
			}
			// warmup (eager) + 4 replays
			gputest.WantEqual(t, "every launch and iteration ran once, in order", gputest.Fill(64, 5*per), gputest.Read(t, s, x))
		})
	}
}
