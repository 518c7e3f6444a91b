package recorder_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// axpbWGSL maps x to x*p.a + p.b (u32) element by element.
const axpbWGSL = `
struct P { a: u32, b: u32 }
@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@group(0) @binding(1) var<uniform> p: P;

@compute @workgroup_size(64)
fn axpb(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) {
		x[id.x] = x[id.x] * p.a + p.b;
	}
}`

// Capture records a step into a graph in one call. By default the step runs
// once for real first (the warmup), then is recorded; WithoutWarmup records
// it without running it, so a stateful step runs exactly once per replay.
func ExampleStream_Capture() {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	k, err := dev.Kernel(axpbWGSL, "axpb")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, opts := range [][]recorder.CaptureOption{nil, {recorder.WithoutWarmup()}} {
		counter, err := recorder.UploadSlice(s, []uint32{0})
		if err != nil {
			fmt.Println(err)
			return
		}
		add1 := recorder.ParamsOf[uint32](1, 1) // x*1 + 1
		g, err := s.Capture(func() error { return s.Launch(k, recorder.Groups(1, 1, 1), counter, add1) }, opts...)
		if err != nil {
			fmt.Println(err)
			return
		}
		for range 3 {
			if err := g.Replay(); err != nil {
				fmt.Println(err)
				return
			}
		}
		v, err := recorder.ReadSlice[uint32](s, counter)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("warmup=%v: 3 replays, the step ran %d times\n", len(opts) == 0, v[0])
		g.Release()
		counter.Release()
	}
	// Output:
	// warmup=true: 3 replays, the step ran 4 times
	// warmup=false: 3 replays, the step ran 3 times
}

// A Var is a params slot bound by reference: a graph captured with it reads
// its value at each replay, so per-step values (a position, a length) need
// no recapture and no caller-made uniform buffer. SetVar is ordered like a
// Write: each replay sees the value set last before it.
func ExampleStream_NewVar() {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	k, err := dev.Kernel(axpbWGSL, "axpb")
	if err != nil {
		fmt.Println(err)
		return
	}
	x, err := recorder.UploadSlice(s, []uint32{1, 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Release()
	p, err := s.NewVar(recorder.ParamsOf[uint32](1, 0)) // make Vars before capturing
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Release()
	g, err := s.Capture(func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, p) }, recorder.WithoutWarmup())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Release()
	for step := uint32(1); step <= 3; step++ {
		// x = x*2 + step, with step changing every replay.
		if err := s.SetVar(p, recorder.ParamsOf(2, step)); err != nil {
			fmt.Println(err)
			return
		}
		if err := g.Replay(); err != nil {
			fmt.Println(err)
			return
		}
	}
	v, err := recorder.ReadSlice[uint32](s, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v)
	// Output: [19 27]
}

// If and While record control flow that the GPU decides at replay: here a
// While body counts a condition word down, and an If around it runs only
// when the word starts non-zero. Outside a capture both run eagerly.
func ExampleStream_While() {
	const countdownWGSL = `
@group(0) @binding(0) var<storage, read_write> c: array<u32>; // c[0]: the condition, c[1]: iterations
@compute @workgroup_size(1)
fn step() { c[0] = c[0] - 1u; c[1] = c[1] + 1u; }`
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	k, err := dev.Kernel(countdownWGSL, "step")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := recorder.UploadSlice(s, []uint32{0, 0})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Release()
	g, err := s.Capture(func() error {
		return s.If(c, 0, func() error {
			return s.While(c, 0, 10, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), c) })
		})
	}, recorder.WithoutWarmup())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Release()
	for _, start := range []uint32{3, 0, 7} {
		if err := recorder.WriteSlice(s, c, 0, []uint32{start, 0}); err != nil {
			fmt.Println(err)
			return
		}
		if err := g.Replay(); err != nil {
			fmt.Println(err)
			return
		}
		v, err := recorder.ReadSlice[uint32](s, c)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("start %d: %d iterations\n", start, v[1])
	}
	// Output:
	// start 3: 3 iterations
	// start 0: 0 iterations
	// start 7: 7 iterations
}

// Rebind makes a graph that binds another buffer in place of one it was
// captured with: one captured step serves two inputs without recapture.
func ExampleGraph_Rebind() {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	k, err := dev.Kernel(axpbWGSL, "axpb")
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := recorder.UploadSlice(s, []uint32{1, 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Release()
	b, err := recorder.UploadSlice(s, []uint32{10, 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Release()
	double := recorder.ParamsOf[uint32](2, 0)
	ga, err := s.Capture(func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, double) }, recorder.WithoutWarmup())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ga.Release()
	gb, err := ga.Rebind(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gb.Release()
	for _, g := range []*recorder.Graph{ga, gb, gb} {
		if err := g.Replay(); err != nil {
			fmt.Println(err)
			return
		}
	}
	va, _ := recorder.ReadSlice[uint32](s, a)
	vb, _ := recorder.ReadSlice[uint32](s, b)
	fmt.Println(va, vb)
	// Output: [2 4] [40 80]
}

// Save writes a graph, with the current contents of its buffers, as a
// graph file; LoadGraph builds it again, on this stream or in another
// process. The loaded graph's buffers and Vars are its own, with their
// labels.
func ExampleGraph_Save() {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	k, err := dev.Kernel(axpbWGSL, "axpb", wgpu.WithLabel("axpb"))
	if err != nil {
		fmt.Println(err)
		return
	}
	x, err := recorder.UploadSlice(s, []uint32{1, 2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Release()
	x.SetLabel("x")
	p, err := s.NewVar(recorder.ParamsOf[uint32](10, 1))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Release()
	p.SetLabel("p")
	g, err := s.Capture(func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, p) }, recorder.WithoutWarmup())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Release()

	var file bytes.Buffer
	if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		fmt.Println(err)
		return
	}
	lg, err := s.LoadGraph(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lg.Release()
	lx, lp := lg.Buffers()[0], lg.Vars()[0]
	defer lx.Release()
	defer lp.Release()
	if err := lg.Replay(); err != nil {
		fmt.Println(err)
		return
	}
	v, err := recorder.ReadSlice[uint32](s, lx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(lx.Label(), lp.Label(), v)
	// Output: x p [11 21 31]
}

// A texture is bound like a buffer: here a kernel reads a 2×2 r32uint
// texture and writes its texels, doubled, to a buffer.
func ExampleStream_NewTexture() {
	const readWGSL = `
@group(0) @binding(0) var t: texture_2d<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(2, 2)
fn read(@builtin(local_invocation_id) id: vec3<u32>) {
	out[id.y * 2u + id.x] = 2u * textureLoad(t, vec2<i32>(id.xy), 0).x;
}`
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	k, err := dev.Kernel(readWGSL, "read")
	if err != nil {
		fmt.Println(err)
		return
	}
	texels := []uint32{1, 2, 3, 4}
	data := make([]byte, 16)
	for i, v := range texels {
		data[4*i] = byte(v)
	}
	t, err := s.UploadTexture(recorder.TextureDesc{Width: 2, Height: 2, Format: "r32uint"}, data)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Release()
	out, err := s.Alloc(16)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer out.Release()
	if err := s.Launch(k, recorder.Groups(1, 1, 1), t, out); err != nil {
		fmt.Println(err)
		return
	}
	v, err := recorder.ReadSlice[uint32](s, out)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Desc(), v)
	// Output: 2×2 r32uint [2 4 6 8]
}

// ProfileReplay times one replay of a graph, per dispatch where the adapter
// has GPU timestamps (named by their kernels' labels), as a whole
// otherwise.
func ExampleStream_ProfileReplay() {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	k, err := dev.Kernel(axpbWGSL, "axpb", wgpu.WithLabel("scale-and-shift"))
	if err != nil {
		fmt.Println(err)
		return
	}
	x, err := recorder.UploadSlice(s, make([]uint32, 1024))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Release()
	g, err := s.Capture(func() error {
		return s.Launch(k, recorder.Groups(16, 1, 1), x, recorder.ParamsOf[uint32](3, 1))
	}, recorder.WithoutWarmup())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Release()
	prof, err := s.ProfileReplay(g)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("GPU time measured:", prof.Total > 0)
	for _, d := range prof.Dispatches {
		if d.Kernel != "scale-and-shift" {
			fmt.Println("unexpected kernel name", d.Kernel)
		}
	}
	summary, _, _ := strings.Cut(g.String(), "; buffers")
	fmt.Println(summary)
	// Output:
	// GPU time measured: true
	// graph: 1 dispatch; kernels: scale-and-shift ×1
}
