package recorder_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// A stream on the default device: upload a slice to GPU memory and read it
// back.
func ExampleNew() {
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

	buf, err := recorder.UploadSlice(s, []float32{1.5, 2.5, 3.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer buf.Release()
	v, err := recorder.ReadSlice[float32](s, buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v, buf.Size(), "bytes")
	// Output: [1.5 2.5 3.5] 12 bytes
}

// One kernel with two buffers and a Params uniform: y = a·x over n
// elements. Launch only enqueues; ReadSlice waits for the result.
func ExampleStream_Launch() {
	const scaleWGSL = `
struct Params { a: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < p.n) {
		y[id.x] = p.a * x[id.x];
	}
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
	k, err := dev.Kernel(scaleWGSL, "scale")
	if err != nil {
		fmt.Println(err)
		return
	}

	in := []float32{1, 2, 3, 4, 5}
	x, err := recorder.UploadSlice(s, in)
	if err != nil {
		fmt.Println(err)
		return
	}
	y, err := s.Alloc(x.Size())
	if err != nil {
		fmt.Println(err)
		return
	}
	// Params are the uniform's bytes, little-endian, laid out as the WGSL
	// struct: a (f32) then n (u32).
	n := uint32(len(in))
	p := make(recorder.Params, 8)
	binary.LittleEndian.PutUint32(p[0:], math.Float32bits(10))
	binary.LittleEndian.PutUint32(p[4:], n)
	groups := (n + 63) / 64 // one invocation per element, 64 per workgroup
	if err := s.Launch(k, recorder.Groups(groups, 1, 1), x, y, p); err != nil {
		fmt.Println(err)
		return
	}
	out, err := recorder.ReadSlice[float32](s, y)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out)
	// Output: [10 20 30 40 50]
}

// The capture cycle: a step of three launches runs once eagerly as the
// warmup, is recorded (not executed) between BeginCapture and EndCapture,
// and the resulting graph is replayed. Writing the input between replays
// feeds the next one, as a decode loop feeds each token.
func ExampleGraph() {
	const incWGSL = `
@group(0) @binding(0) var<storage, read_write> x: array<f32>;

@compute @workgroup_size(64)
fn inc(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) {
		x[id.x] = x[id.x] + 1.0;
	}
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
	k, err := dev.Kernel(incWGSL, "inc")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Upload before GraphPrepare: a write inside the capture window would
	// make EndCapture fail, since a graph replays launches only.
	x, err := recorder.UploadSlice(s, []float32{1, 2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Release()
	step := func() error {
		for range 3 {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x); err != nil {
				return err
			}
		}
		return nil
	}
	show := func(what string) {
		v, err := recorder.ReadSlice[float32](s, x)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(what, v)
	}

	if err := s.PrepareCapture(); err != nil {
		fmt.Println(err)
		return
	}
	if err := step(); err != nil { // the warmup: executes
		fmt.Println(err)
		return
	}
	if err := s.BeginCapture(); err != nil {
		fmt.Println(err)
		return
	}
	if err := step(); err != nil { // recorded, not executed
		fmt.Println(err)
		return
	}
	g, err := s.EndCapture()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Release()
	show("after the warmup and the capture:")

	for range 2 {
		if err := g.Replay(); err != nil {
			fmt.Println(err)
			return
		}
	}
	show("after 2 replays:")

	if err := recorder.WriteSlice(s, x, 0, []float32{100, 200, 300}); err != nil {
		fmt.Println(err)
		return
	}
	if err := g.Replay(); err != nil {
		fmt.Println(err)
		return
	}
	show("new input, 1 replay:")
	fmt.Println("dispatches per replay:", g.Len())
	// Output:
	// after the warmup and the capture: [4 5 6]
	// after 2 replays: [10 11 12]
	// new input, 1 replay: [103 203 303]
	// dispatches per replay: 3
}
