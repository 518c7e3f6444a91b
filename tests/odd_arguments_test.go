package tests

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestHostileKernelSourcesAndConstantsFailWithCompileErrors: NUL bytes,
// invalid UTF-8, a NUL in the entry name, and constants that are NaN,
// infinite, negative for a u32 or out of range never abort the process:
// each is a compile error or an invalid argument, and the device still
// computes.
func TestHostileKernelSourcesAndConstantsFailWithCompileErrors(t *testing.T) {
	skipIfShort(t)
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
	skipIfShort(t)
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

// TestForeignDeviceResourcesAreRefused: every call given a buffer, texture,
// sampler, kernel, Var or graph of another device fails with
// ErrForeignDevice (or ErrInvalidArgument), and nothing aborts; SetVar's
// refusal names the var (it said "buffer").
func TestForeignDeviceResourcesAreRefused(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		dA, sA := gputest.OpenStream(t)
		dB, sB := gputest.OpenStream(t)
		kA := gputest.Kernel(t, dA, gputest.AddConstWGSL)
		kB := gputest.Kernel(t, dB, gputest.AddConstWGSL)
		cpA := gputest.Kernel(t, dA, gputest.CopyWGSL)
		xA := gputest.Upload(t, sA, gputest.Fill(64, 1))
		xB := gputest.Upload(t, sB, gputest.Fill(64, 1))
		texA, err := sA.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "r32float"})
		if err != nil {
			t.Fatal(err)
		}
		gB, err := sB.Capture(func() error { return sB.Launch(kB, recorder.Groups(1, 1, 1), xB, gputest.F32(1)) })
		if err != nil {
			t.Fatal(err)
		}
		defer gB.Release()
		vA, err := sA.NewVar(recorder.ParamsOf[uint32](1, 2, 3, 4))
		if err != nil {
			t.Fatal(err)
		}
		defer vA.Release()
		gputest.WantErr(t, "SetVar of another device's Var", sB.SetVar(vA, recorder.ParamsOf[uint32](5, 6, 7, 8)),
			[]error{wgpu.ErrForeignDevice}, "SetVar", "var (16 bytes) belongs to another device")
		cases := map[string]func() error{
			"Launch foreign kernel":   func() error { return sB.Launch(kA, recorder.Groups(1, 1, 1), xB, gputest.F32(1)) },
			"Launch foreign buffer":   func() error { return sB.Launch(kB, recorder.Groups(1, 1, 1), xA, gputest.F32(1)) },
			"Launch foreign indirect": func() error { return sB.Launch(kB, recorder.Indirect(xA, 0), xB, gputest.F32(1)) },
			"Launch mixed":            func() error { return sA.Launch(cpA, recorder.Groups(1, 1, 1), xB, xA) },
			"Write":                   func() error { return sB.Write(xA, 0, make([]byte, 4)) },
			"Read":                    func() error { _, err := sB.Read(xA); return err },
			"ReadTexture":             func() error { _, err := sB.ReadTexture(texA); return err },
			"Copy":                    func() error { return sB.Copy(xB, 0, xA, 0, 4) },
			"Copy dst":                func() error { return sB.Copy(xA, 0, xB, 0, 4) },
			"Clear":                   func() error { return sB.Clear(xA, 0, 4) },
			"If":                      func() error { return sB.If(xA, 0, func() error { return nil }) },
			"While":                   func() error { return sB.While(xA, 0, 2, func() error { return nil }) },
			"Rebind":                  func() error { _, err := gB.Rebind(xB, xA); return err },
			"ProfileReplay":           func() error { _, err := sA.ProfileReplay(gB); return err },
		}
		for name, f := range cases {
			var err error
			if p := noPanic(func() { err = f() }); p != "" {
				t.Errorf("%s panicked: %s", name, p)
				continue
			}
			if !errors.Is(err, wgpu.ErrForeignDevice) && !errors.Is(err, wgpu.ErrInvalidArgument) {
				t.Errorf("%s with another device's resource: want ErrForeignDevice, got %v", name, err)
			}
		}
		gputest.WantEqual(t, "stream A computes", gputest.Fill(64, 1), gputest.Read(t, sA, xA))
		if err := gB.Replay(); err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, "stream B computes", gputest.Fill(64, 3), gputest.Read(t, sB, xB))
	})
}

// TestNumericExtremesAreRefusedWithNamedErrors: offsets and sizes near
// 2^64 (where offset+size overflows), workgroup counts of 0 and 2^31,
// While counts that are negative or past MaxWhileIterations, and buffer
// sizes near 2^64 are refused with ErrInvalidArgument (or, for memory,
// the device's out-of-memory or validation error), and nothing aborts.
func TestNumericExtremesAreRefusedWithNamedErrors(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		k := gputest.Kernel(t, d, gputest.AddOneWGSL)
		a := gputest.Upload(t, s, gputest.Fill(64, 1))
		b := gputest.Empty(t, s, a.Size())
		ind := gputest.Empty(t, s, 16)
		const top = math.MaxUint64 &^ 3 // a multiple of 4: only the range check can refuse it
		inv := []error{recorder.ErrInvalidArgument}
		cases := map[string]func() error{
			"Write at 2^64-4":            func() error { return s.Write(a, top, make([]byte, 8)) },
			"WriteSlice at 2^64-4":       func() error { return recorder.WriteSlice(s, a, top, []uint32{1, 2}) },
			"Clear at 2^64-4":            func() error { return s.Clear(a, top, 8) },
			"Clear of 2^64-4 bytes at 4": func() error { return s.Clear(a, 4, top) },
			"Copy to 2^64-4":             func() error { return s.Copy(b, top, a, 0, 8) },
			"Copy from 2^64-4":           func() error { return s.Copy(b, 0, a, top, 8) },
			"Copy of 2^64-4 bytes":       func() error { return s.Copy(b, 4, a, 4, top) },
			"Indirect at 2^64-4":         func() error { return s.Launch(k, recorder.Indirect(ind, top), a, b, gputest.U32(64)) },
			"Indirect at 2^64-12":        func() error { return s.Launch(k, recorder.Indirect(ind, math.MaxUint64-11), a, b, gputest.U32(64)) },
			"If at 2^64-4":               func() error { return s.If(ind, top, func() error { return nil }) },
			"While at 2^64-4":            func() error { return s.While(ind, top, 1, func() error { return nil }) },
			"While -1 iterations":        func() error { return s.While(ind, 0, -1, func() error { return nil }) },
			"While MinInt iterations":    func() error { return s.While(ind, 0, math.MinInt, func() error { return nil }) },
			"While MaxInt iterations":    func() error { return s.While(ind, 0, math.MaxInt, func() error { return nil }) },
			"While 0 iterations":         func() error { return s.While(ind, 0, 0, func() error { return nil }) },
			"Groups(0,0,0)":              func() error { return s.Launch(k, recorder.Groups(0, 0, 0), a, b, gputest.U32(64)) },
			"Groups(1,0,1)":              func() error { return s.Launch(k, recorder.Groups(1, 0, 1), a, b, gputest.U32(64)) },
			"Groups(2^31,1,1)":           func() error { return s.Launch(k, recorder.Groups(1<<31, 1, 1), a, b, gputest.U32(64)) },
			"Groups(1,1,2^32-1)":         func() error { return s.Launch(k, recorder.Groups(1, 1, math.MaxUint32), a, b, gputest.U32(64)) },
			"Params of 2^16+4 bytes":     func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, b, make(recorder.Params, 1<<16+4)) },
			"Empty(2^64-4)":              func() error { _, err := s.Alloc(top); return err },
			"Empty(2^63)":                func() error { _, err := s.Alloc(1 << 63); return err },
			"Empty(0)":                   func() error { _, err := s.Alloc(0); return err },
			"Empty(2^64-1)":              func() error { _, err := s.Alloc(math.MaxUint64); return err },
			"NewTexture 2^32-1 wide": func() error {
				_, err := s.NewTexture(recorder.TextureDesc{Width: math.MaxUint32, Height: math.MaxUint32, Depth: math.MaxUint32, Format: "rgba32float"})
				return err
			},
			"UploadTexture 2^31 wide": func() error {
				_, err := s.UploadTexture(recorder.TextureDesc{Width: 1 << 31, Height: 1 << 31, Format: "r32float"}, make([]byte, 16))
				return err
			},
			"UploadTexture of 0×0":        func() error { _, err := s.UploadTexture(recorder.TextureDesc{Format: "r32float"}, nil); return err },
			"ReadSlice of a 3-byte type":  func() error { _, err := recorder.ReadSlice[uint16](s, gputest.Empty(t, s, 4)); return err },
			"WriteSlice past the end":     func() error { return recorder.WriteSlice(s, a, a.Size()-4, []uint64{1}) },
			"WithFloor(-1) ProfileReplay": nil,
		}
		delete(cases, "ReadSlice of a 3-byte type") // uint16 of 4 bytes is fine; kept out
		delete(cases, "WithFloor(-1) ProfileReplay")
		for name, f := range cases {
			var err error
			if msg := noPanic(func() { err = f() }); msg != "" {
				t.Errorf("%s panicked: %s", name, msg)
				continue
			}
			if err == nil {
				t.Errorf("%s: want an error, got nil", name)
				continue
			}
			if strings.HasPrefix(name, "Empty(2^") || strings.Contains(name, "Texture") {
				if !errors.Is(err, recorder.ErrInvalidArgument) && !errors.Is(err, wgpu.ErrOutOfMemory) && !errors.Is(err, wgpu.ErrValidation) {
					t.Errorf("%s: want ErrInvalidArgument or a device error, got %v", name, err)
				}
				continue
			}
			if problem := gputest.CheckErr(err, inv, nil); problem != "" {
				t.Errorf("%s: %s", name, problem)
			}
		}
		if err := s.Sync(); err != nil {
			t.Fatalf("nothing refused may queue an error: %v", err)
		}
		gputest.MustChain(t, s, k, a, b, 2, 64)
		gputest.WantEqual(t, "the stream computes after the refusals", gputest.Fill(64, 3), gputest.Read(t, s, a))
	})
}
