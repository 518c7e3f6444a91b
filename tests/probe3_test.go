package tests

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// This file holds the third adversarial review's findings: each test but
// TestForeignDeviceResourcesAreRefused (a contract that held, kept as a
// guard) fails without its fix. FuzzLoadGraphResealed mutates real graph
// files past their checksum; it found the fifth-bind-group panic, kept as a
// table case in TestAKernelInAFifthBindGroupIsRefusedAtKernel. Tests that
// could abort the process run in a fresh one.

// countdownP3WGSL: st[0] is a loop condition; each run takes one from it
// (down to 0) and counts itself in st[1].
const countdownP3WGSL = `
@group(0) @binding(0) var<storage, read_write> st: array<u32>;
@compute @workgroup_size(1)
fn main() {
	if (st[0] > 0u) { st[0] = st[0] - 1u; }
	st[1] = st[1] + 1u;
}
`

func setU32P3(t testing.TB, s *recorder.Stream, b *recorder.Buffer, v ...uint32) {
	t.Helper()
	if err := recorder.WriteSlice(s, b, 0, v); err != nil {
		t.Fatal(err)
	}
}

// TestAChildGraphWithControlFlowReplaysInsideAnIfBody: a graph holding a
// While, replayed inside an If body of another capture, runs only when the
// If's condition holds, and then loops as it does alone.
func TestAChildGraphWithControlFlowReplaysInsideAnIfBody(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		k := gputest.Kernel(t, d, countdownP3WGSL)
		st := gputest.UploadU32(t, s, 0, 0)
		cond := gputest.UploadU32(t, s, 0)
		child, err := s.Capture(func() error {
			return s.While(st, 0, 8, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) })
		})
		if err != nil {
			t.Fatal(err)
		}
		defer child.Release()
		var parent *recorder.Graph
		p := noPanic(func() {
			parent, err = s.Capture(func() error {
				return s.If(cond, 0, func() error { return child.Replay() })
			})
		})
		if p != "" {
			t.Fatalf("capturing an If whose body replays a graph with control flow panicked: %s", p)
		}
		if err != nil {
			t.Fatalf("capturing an If whose body replays a graph with a While: %v", err)
		}
		defer parent.Release()
		for _, c := range []struct {
			cond, n uint32
			want    []uint32
		}{
			{0, 3, []uint32{3, 0}}, {1, 3, []uint32{0, 3}}, {1, 20, []uint32{12, 8}},
		} {
			setU32P3(t, s, st, c.n, 0)
			setU32P3(t, s, cond, c.cond)
			if err := parent.Replay(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, fmt.Sprintf("cond=%d n=%d", c.cond, c.n), c.want, gputest.ReadU32(t, s, st))
		}
	})
}

// TestASavedGraphThatIncludesAChildWithControlFlowLoadsAndComputesTheSame:
// a graph that replays a child graph holding an If at its top level, saved
// without contents and loaded, computes what the original computes.
func TestASavedGraphThatIncludesAChildWithControlFlowLoadsAndComputesTheSame(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownP3WGSL)
	st := gputest.UploadU32(t, s, 0, 0)
	child, err := s.Capture(func() error {
		return s.While(st, 0, 8, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) })
	})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Release()
	parent, err := s.Capture(func() error { return child.Replay() })
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Release()
	setU32P3(t, s, st, 3, 0)
	if err := parent.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the parent loops like the child", []uint32{0, 3}, gputest.ReadU32(t, s, st))
	var file bytes.Buffer
	if _, err := parent.Save(&file, recorder.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.LoadGraph(&file)
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Release()
	bufs := loaded.Buffers()
	if len(bufs) != 1 {
		t.Fatalf("the loaded graph lists %d buffers, want 1 (st): %v", len(bufs), bufs)
	}
	setU32P3(t, s, bufs[0], 3, 0)
	if err := loaded.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the loaded graph loops like the original", []uint32{0, 3}, gputest.ReadU32(t, s, bufs[0]))
}

// TestForeignDeviceResourcesAreRefused: every call given a buffer, texture,
// sampler, kernel or graph of another device fails with ErrForeignDevice
// (or ErrInvalidArgument), and nothing aborts.
func TestForeignDeviceResourcesAreRefused(t *testing.T) {
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

// resealGraphFile recomputes a graph file's CRC-32C trailer, so a mutated
// file reaches the decoder's structure checks instead of the checksum.
func resealGraphFile(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	b = append([]byte(nil), b[:len(b)-4]...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// textureGraphWGSL samples a texture into a storage texture and a buffer.
const textureGraphWGSL = `
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var dst: texture_storage_2d<r32float, write>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let v = textureSampleLevel(src, smp, vec2<f32>(f32(id.x) / 4.0, f32(id.y) / 4.0), 0.0);
	textureStore(dst, vec2<i32>(id.xy), v);
	out[id.y * 4u + id.x] = v.x;
}
`

// graphFileSeeds are real graph files of every feature: launches with
// params, copies, clears, If, While, textures and samplers, with and
// without contents.
func graphFileSeeds(t testing.TB, d *wgpu.Device, s *recorder.Stream) [][]byte {
	t.Helper()
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	cd := gputest.Kernel(t, d, countdownP3WGSL)
	tk := gputest.Kernel(t, d, textureGraphWGSL)
	x := gputest.Upload(t, s, gputest.Ramp(16, 0))
	y := gputest.Empty(t, s, x.Size())
	st := gputest.UploadU32(t, s, 2, 0, 1, 0)
	src, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8unorm"}, bytes.Repeat([]byte{9}, 64))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "r32float"})
	if err != nil {
		t.Fatal(err)
	}
	smp, err := s.NewSampler(recorder.SamplerDesc{Linear: true})
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Capture(func() error {
		if err := s.Launch(add, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
			return err
		}
		if err := s.Copy(y, 0, x, 0, 32); err != nil {
			return err
		}
		if err := s.Clear(y, 32, 16); err != nil {
			return err
		}
		if err := s.If(st, 8, func() error { return s.Copy(x, 0, y, 0, 16) }); err != nil {
			return err
		}
		if err := s.While(st, 0, 4, func() error { return s.Launch(cd, recorder.Groups(1, 1, 1), st) }); err != nil {
			return err
		}
		return s.Launch(tk, recorder.Groups(1, 1, 1), src, smp, dst, y)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	var out [][]byte
	for _, contents := range []bool{false, true} {
		var buf bytes.Buffer
		if _, err := g.Save(&buf, recorder.SaveOptions{Contents: contents}); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// FuzzLoadGraphResealed: no graph file, however malformed but with a valid
// checksum, crashes or hangs LoadGraph, and every refusal wraps a
// sentinel; a file that loads saves again.
func FuzzLoadGraphResealed(f *testing.F) {
	d, s := gputest.OpenStream(f)
	for _, seed := range graphFileSeeds(f, d, s) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = resealGraphFile(data)
		start := time.Now()
		lg, err := s.LoadGraph(bytes.NewReader(data))
		if el := time.Since(start); el > 10*time.Second {
			t.Fatalf("LoadGraph of a %d-byte file took %v (err %v)", len(data), el, err)
		}
		if err != nil {
			if !errors.Is(err, recorder.ErrGraphFile) {
				t.Fatalf("a refusal must wrap ErrGraphFile: %v", err)
			}
			return
		}
		defer lg.Release()
		_ = lg.String()
		if err := lg.WriteDOT(io.Discard); err != nil {
			t.Fatal(err)
		}
		// Without contents: a mutated size can name gigabytes, and reading
		// them back would make each input take seconds.
		if _, err := lg.Save(io.Discard, recorder.SaveOptions{}); err != nil {
			t.Fatalf("a loaded graph must save: %v", err)
		}
		for _, b := range lg.Buffers() {
			b.Release()
		}
	})
}

// TestIfBodiesRecordedConcurrentlyOnOneStreamCannotSealAGraph: two
// goroutines record If bodies on one capturing stream at once, so the
// second body opens inside the first. When the first returns before the
// second (with an error, or not), the regions no longer nest: both Ifs
// return errors, EndCapture fails with a *CaptureError, the stream is back
// in NoCapture and a new capture works. Without the fix the second body's
// return indexed a region the first had dropped (a Go panic), or the
// interleaved regions sealed a graph that ran commands twice.
func TestIfBodiesRecordedConcurrentlyOnOneStreamCannotSealAGraph(t *testing.T) {
	for _, firstFails := range []bool{true, false} {
		t.Run(fmt.Sprintf("firstFails=%v", firstFails), func(t *testing.T) {
			d, s := gputest.OpenStream(t)
			k := gputest.Kernel(t, d, gputest.AddConstWGSL)
			cond := gputest.UploadU32(t, s, 1)
			x := gputest.Upload(t, s, gputest.Fill(64, 0))
			add := func(v float32) error { return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(v)) }
			if err := s.GraphPrepare(); err != nil {
				t.Fatal(err)
			}
			if err := s.BeginCapture(); err != nil {
				t.Fatal(err)
			}
			aOpen, bOpen, aDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
			var errA, errB error
			var panA, panB string
			go func() {
				defer close(aDone)
				panA = noPanic(func() {
					errA = s.If(cond, 0, func() error {
						close(aOpen)
						<-bOpen
						if err := add(1); err != nil {
							return err
						}
						if firstFails {
							return errors.New("first body fails")
						}
						return nil
					})
				})
			}()
			<-aOpen
			bDone := make(chan struct{})
			go func() {
				defer close(bDone)
				panB = noPanic(func() {
					errB = s.If(cond, 0, func() error {
						close(bOpen)
						<-aDone
						return add(10)
					})
				})
			}()
			<-bDone
			if panA != "" || panB != "" {
				t.Fatalf("concurrent If bodies panicked (the API never panics): %q %q", panA, panB)
			}
			if errA == nil && errB == nil {
				t.Fatal("interleaved If bodies must fail, both returned nil")
			}
			if errB == nil || !errors.Is(errB, wgpu.ErrInvalidArgument) {
				t.Errorf("the If whose region no longer nests must fail with ErrInvalidArgument, got %v", errB)
			}
			if err := add(100); err != nil { // at top level
				t.Fatal(err)
			}
			g, err := s.EndCapture()
			if err == nil {
				_ = g.Replay()
				got := gputest.Read(t, s, x)
				g.Release()
				t.Fatalf("EndCapture after interleaved bodies must fail, not seal a graph (a replay added %v)", got[0])
			}
			gputest.WantErr(t, "EndCapture after interleaved bodies", err, []error{lifecycle.ErrGraphState, wgpu.ErrInvalidArgument}, "concurrently")
			wantState(t, "after the failed EndCapture", s, lifecycle.NoCapture)
			g, err = s.Capture(func() error { return add(1) })
			if err != nil {
				t.Fatal(err)
			}
			defer g.Release()
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			// warmup 1, replay 1
			gputest.WantEqual(t, "the stream computes after the failed capture", gputest.Fill(64, 2), gputest.Read(t, s, x))
		})
	}
}

// TestAReboundGraphWithAWhileReplaysReboundInsideAnotherCapture: a graph
// holding a While, rebound to another condition buffer, replayed inside an
// If of another capture, loops on the new buffer and leaves the old one
// alone (the included commands are the rebound ones).
func TestAReboundGraphWithAWhileReplaysReboundInsideAnotherCapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownP3WGSL)
	a := gputest.UploadU32(t, s, 0, 0)
	b := gputest.UploadU32(t, s, 0, 0)
	on := gputest.UploadU32(t, s, 1)
	child, err := s.Capture(func() error {
		return s.While(a, 0, 8, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a) })
	})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Release()
	rebound, err := child.Rebind(a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer rebound.Release()
	parent, err := s.Capture(func() error { return s.If(on, 0, rebound.Replay) })
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Release()
	setU32P3(t, s, a, 5, 0)
	setU32P3(t, s, b, 4, 0)
	if err := parent.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the rebound child looped on b", []uint32{0, 4}, gputest.ReadU32(t, s, b))
	gputest.WantEqual(t, "and left a alone", []uint32{5, 0}, gputest.ReadU32(t, s, a))
}

// TestALoadedGraphWithControlFlowIsRefusedInsideACapture: a loaded graph
// keeps its If and While only in lowered form, which a capture cannot nest
// or save; replaying it while recording fails with ErrInvalidArgument
// (EndCapture then seals what else was recorded), and it still replays
// on its own.
func TestALoadedGraphWithControlFlowIsRefusedInsideACapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownP3WGSL)
	st := gputest.UploadU32(t, s, 0, 0)
	g, err := s.Capture(func() error {
		return s.While(st, 0, 8, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) })
	})
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if _, err := g.Save(&file, recorder.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	g.Release()
	loaded, err := s.LoadGraph(&file)
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Release()
	lst := loaded.Buffers()[0]
	_, err = s.Capture(func() error { return loaded.Replay() })
	gputest.WantErr(t, "a loaded graph with a While replayed inside a capture", err, []error{wgpu.ErrInvalidArgument}, "loaded graph")
	wantState(t, "after the refused capture", s, lifecycle.NoCapture)
	setU32P3(t, s, lst, 3, 0)
	if err := loaded.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the loaded graph still loops on its own", []uint32{0, 3}, gputest.ReadU32(t, s, lst))
}

// TestNestedLoopsOverTheLoweringBoundAreRefusedBeforeTheyAreBuilt: While
// loops of MaxWhileIterations nested three deep would unroll to 2^36
// commands; EndCapture refuses them with ErrInvalidArgument, counting
// instead of building (without the fix it built a million commands first,
// hundreds of megabytes, before refusing), and the stream computes after.
func TestNestedLoopsOverTheLoweringBoundAreRefusedBeforeTheyAreBuilt(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownP3WGSL)
	st := gputest.UploadU32(t, s, 0, 0, 0, 0)
	const max = recorder.MaxWhileIterations
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	loop := func(off uint64, body func() error) error { return s.While(st, off, max, body) }
	if err := loop(0, func() error {
		return loop(4, func() error {
			return loop(8, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) })
		})
	}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := s.EndCapture()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	gputest.WantErr(t, "nested loops over the bound", err, []error{lifecycle.ErrGraphState, wgpu.ErrInvalidArgument}, "unrolls to more than")
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("refusing the nested loops allocated %d MiB in %v; it must count, not build", grew>>20, took)
	}
	wantState(t, "after the refusal", s, lifecycle.NoCapture)
	setU32P3(t, s, st, 2, 0, 0, 0)
	if err := s.While(st, 0, 4, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) }); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the stream loops after the refusal", []uint32{0, 2, 0, 0}, gputest.ReadU32(t, s, st))
}

// TestAKernelInAFifthBindGroupIsRefusedAtKernel: lavapipe reports eight
// bind groups, and softgraph asks for the adapter's limits, so a kernel
// binding @group(4) compiled; its launch (or a graph file naming it) then
// indexed past the four bind-group slots every dispatch carries and
// panicked. The device now offers four, and Kernel refuses a fifth group
// with ErrCompile or ErrInvalidArgument naming it; groups 0..3 with gaps
// still work.
func TestAKernelInAFifthBindGroupIsRefusedAtKernel(t *testing.T) {
	d, s := gputest.OpenStream(t)
	if got := d.Info().Limits.MaxBindGroups; got > 4 {
		t.Errorf("the device offers %d bind groups; dispatches carry four", got)
	}
	fifth := `
@group(4) @binding(0) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) { if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] + 1.0; } }
`
	var k *wgpu.Kernel
	var err error
	if p := noPanic(func() { k, err = d.Kernel(fifth, "main") }); p != "" {
		t.Fatalf("Kernel panicked: %s", p)
	}
	if err == nil {
		x := gputest.Upload(t, s, gputest.Fill(64, 0))
		var lerr error
		p := noPanic(func() { lerr = s.Launch(k, recorder.Groups(1, 1, 1), x) })
		t.Fatalf("a kernel in @group(4) must be refused at Kernel; it compiled, and its launch panicked %q, returned %v", p, lerr)
	}
	if !errors.Is(err, wgpu.ErrCompile) && !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("a kernel in @group(4): want ErrCompile or ErrInvalidArgument, got %v", err)
	}
	gputest.WantErr(t, "the refusal names the group", err, []error{err}, "@group(4)")
	third := gputest.Kernel(t, d, `
@group(3) @binding(0) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) { if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] + 1.0; } }
`)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	g, err := s.Capture(func() error { return s.Launch(third, recorder.Groups(1, 1, 1), x) })
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "a kernel in @group(3) computes", gputest.Fill(64, 2), gputest.Read(t, s, x))
	// The same through a graph file (what the fuzzer found first): a file
	// whose kernel names @group(4) is refused, not a panic.
	var file bytes.Buffer
	if _, err := g.Save(&file, recorder.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	bad := resealGraphFile(bytes.Replace(file.Bytes(), []byte("@group(3)"), []byte("@group(4)"), 1))
	var lerr error
	if p := noPanic(func() {
		var lg *recorder.Graph
		if lg, lerr = s.LoadGraph(bytes.NewReader(bad)); lerr == nil {
			lg.Release()
		}
	}); p != "" {
		t.Fatalf("LoadGraph of a file whose kernel uses @group(4) panicked: %s", p)
	}
	gputest.WantErr(t, "a graph file whose kernel uses @group(4)", lerr, []error{recorder.ErrGraphFile}, "@group(4)")
}

// TestBuffersOverTheStorageBindingLimitAreRefusedWhereAControlFlowKernelBindsThem:
// inside an If or While body a copy runs as a kernel binding its source and
// destination whole, an indirect dispatch's counts are forwarded by a
// kernel binding the indirect buffer whole, and every gate binds its
// condition buffer whole. A buffer over maxStorageBufferBindingSize there
// is refused on the spot with ErrInvalidArgument naming the limit; without
// the fix the call succeeded and EndCapture failed at a bind group the
// caller never made. The same copy at the top level works.
func TestBuffersOverTheStorageBindingLimitAreRefusedWhereAControlFlowKernelBindsThem(t *testing.T) {
	d, s := gputest.OpenStream(t)
	max := d.Info().Limits.MaxStorageBufferBindingSize
	if max >= d.Info().Limits.MaxBufferSize || max > 512<<20 || (affordableBytes() != 0 && affordableBytes() < 4*max) {
		t.Skipf("maxStorageBufferBindingSize %d: no affordable buffer exceeds it", max)
	}
	big := gputest.Empty(t, s, max+256)
	small := gputest.Upload(t, s, gputest.Fill(16, 3))
	cond := gputest.UploadU32(t, s, 1)
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	var copyErr, indErr error
	ifErr := s.If(cond, 0, func() error {
		copyErr = s.Copy(small, 0, big, max, 64)
		indErr = s.Launch(k, recorder.Indirect(big, 0), small, gputest.F32(1))
		return nil
	})
	condErr := s.If(big, 0, func() error { return nil })
	if err := s.Copy(big, max, small, 0, 64); err != nil { // top level: a native copy
		t.Fatal(err)
	}
	// The refused calls make EndCapture fail (a caller that ignored
	// their errors would otherwise get a graph without that work); the
	// same step with the refused calls left out seals and replays.
	if g, err := s.EndCapture(); g != nil || !errors.Is(err, wgpu.ErrInvalidArgument) || !strings.Contains(err.Error(), "maxStorageBufferBindingSize") {
		t.Fatalf("EndCapture after calls refused inside the window must fail naming them, got %v, %v", g, err)
	}
	if ifErr != nil {
		t.Fatal(ifErr)
	}
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := s.If(cond, 0, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Copy(big, max, small, 0, 64); err != nil {
		t.Fatal(err)
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatalf("EndCapture must seal the accepted step: %v", err)
	}
	defer g.Release()
	gputest.WantErr(t, "a copy from a big buffer inside an If", copyErr, []error{wgpu.ErrInvalidArgument}, "maxStorageBufferBindingSize")
	gputest.WantErr(t, "an indirect dispatch from a big buffer inside an If", indErr, []error{wgpu.ErrInvalidArgument}, "maxStorageBufferBindingSize")
	gputest.WantErr(t, "an If on a big condition buffer", condErr, []error{wgpu.ErrInvalidArgument}, "maxStorageBufferBindingSize")
	if err := recorder.WriteSlice(s, small, 0, gputest.Fill(16, 7)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	if err := s.Copy(small, 0, big, max, 64); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the top-level copy ran", gputest.Fill(16, 7), gputest.Read(t, s, small))
}
