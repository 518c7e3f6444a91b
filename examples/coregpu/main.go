// Command coregpu runs softgraph inside a Cogent Core app: the app's
// gpu.ComputeSystem owns the device, runs its own WGSL compute pipelines on
// its own storage values every frame, and softgraph, adopted onto that very
// device (wgpu.Adopt), captures the same per-frame compute once as a graph
// and replays it. Both paths start from the same state; after the frames
// their results are compared bit for bit, and the median time per frame of
// each is printed. It exits non-zero on a mismatch or an error.
//
// The per-frame compute is a damped chain of springs on a ring of n
// points, from three kernels: -substeps rounds of forces (velocities from
// the neighbours' positions) and integrate (positions from velocities),
// then energy (per point, from both); every dispatch depends on the one
// before. The app's initial positions are its own WebGPU buffer,
// written through its own queue and wrapped for softgraph
// (recorder.Stream.WrapBuffer): no copy through the host.
//
// Method. Each path runs its frames back to back, one frame at a time:
// encode and submit the frame, then wait until the GPU has finished it
// (the app: ComputeSystem's BeginComputePass … EndComputePass, then the
// device's blocking poll; softgraph: Graph.Replay, then Stream.Sync). The
// two paths alternate in rounds so drift on a shared host hits both; the
// medians are over every frame of every round.
//
// Build headless with the offscreen tag (no windowing libraries needed):
//
//	cd examples/coregpu && go run -tags offscreen . -quick
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"time"

	"cogentcore.org/core/gpu"
	webgpu "github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

func init() {
	// Cogent Core's gpu package wants the main thread.
	runtime.LockOSThread()
}

func main() {
	quick := flag.Bool("quick", false, "a small, short run (CI)")
	n := flag.Int("n", 1<<20, "points on the ring")
	substeps := flag.Int("substeps", 8, "forces+integrate substeps per frame (then one energy pass)")
	frames := flag.Int("frames", 100, "frames per path per round")
	rounds := flag.Int("rounds", 3, "rounds of alternating paths")
	flag.Parse()
	if *quick {
		*n, *substeps, *frames, *rounds = 1<<14, 2, 10, 2
	}
	if err := run(*n, *substeps, *frames, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "coregpu:", err)
		os.Exit(1)
	}
}

// threads is every kernel's workgroup size.
const threads = 64

// The kernels. Each declares only the bindings it uses, at the binding
// numbers of the app's variables (Pos 0, Vel 1, Energy 2); the ring size
// is a constant, so both paths run the same text whatever their buffers'
// sizes. Both paths compile exactly these sources.
const forcesWGSL = `
const N: u32 = %du;
@group(0) @binding(0) var<storage, read_write> pos: array<f32>;
@group(0) @binding(1) var<storage, read_write> vel: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x;
	if (i >= N) { return; }
	let l = pos[(i + N - 1u) %% N];
	let r = pos[(i + 1u) %% N];
	vel[i] = vel[i] * 0.999 + (l + r - 2.0 * pos[i]) * 0.25;
}
`

const integrateWGSL = `
const N: u32 = %du;
@group(0) @binding(0) var<storage, read_write> pos: array<f32>;
@group(0) @binding(1) var<storage, read_write> vel: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x;
	if (i >= N) { return; }
	pos[i] = pos[i] + vel[i] * 0.5;
}
`

const energyWGSL = `
const N: u32 = %du;
@group(0) @binding(0) var<storage, read_write> pos: array<f32>;
@group(0) @binding(1) var<storage, read_write> vel: array<f32>;
@group(0) @binding(2) var<storage, read_write> energy: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x;
	if (i >= N) { return; }
	let d = pos[(i + 1u) %% N] - pos[i];
	energy[i] = 0.5 * vel[i] * vel[i] + 0.125 * d * d;
}
`

func sources(n int) [3]string {
	return [3]string{fmt.Sprintf(forcesWGSL, n), fmt.Sprintf(integrateWGSL, n), fmt.Sprintf(energyWGSL, n)}
}

// initial is the ring's starting state: a smooth wave plus a kick.
func initial(n int) (pos, vel []float32) {
	pos, vel = make([]float32, n), make([]float32, n)
	for i := range pos {
		pos[i] = float32(math.Sin(2 * math.Pi * 8 * float64(i) / float64(n)))
	}
	vel[n/2] = 1
	return pos, vel
}

func run(n, substeps, frames, rounds int) error {
	if n <= 0 || n > 65535*threads {
		return fmt.Errorf("-n=%d: want 1..%d (one dispatch dimension)", n, 65535*threads)
	}
	if substeps < 1 || frames < 1 || rounds < 1 {
		return fmt.Errorf("-substeps=%d -frames=%d -rounds=%d: each must be at least 1", substeps, frames, rounds)
	}
	gp := gpu.NewComputeGPU()
	if gp == nil {
		return errors.New("no WebGPU adapter (Cogent Core's gpu.NewComputeGPU found none)")
	}
	defer gp.Release()
	fmt.Printf("adapter: %s (%s, %s)\n", gp.DeviceName, gp.Properties.BackendType, gp.Properties.AdapterType)
	fmt.Printf("ring of %d points; per frame %d substeps of forces+integrate, then energy (%d dependent dispatches); %d frames per path per round, %d rounds\n\n",
		n, substeps, 2*substeps+1, frames, rounds)

	app, err := newApp(gp, n, substeps)
	if err != nil {
		return err
	}
	defer app.release()
	sg, err := newSoftgraph(app, gp, n, substeps)
	if err != nil {
		return err
	}
	defer sg.close()

	var appFrame, appHost, sgFrame, sgHost []time.Duration
	for range rounds {
		for range frames {
			t0 := time.Now()
			host, err := app.frame()
			if err != nil {
				return err
			}
			appFrame, appHost = append(appFrame, time.Since(t0)), append(appHost, host)
		}
		for range frames {
			t0 := time.Now()
			host, err := sg.frame()
			if err != nil {
				return err
			}
			sgFrame, sgHost = append(sgFrame, time.Since(t0)), append(sgHost, host)
		}
	}

	mismatches := 0
	for _, v := range []struct {
		name     string
		app, sg  func() ([]float32, error)
		compared int
	}{
		{name: "Pos", app: app.read(app.pos), sg: sg.read(sg.pos)},
		{name: "Vel", app: app.read(app.vel), sg: sg.read(sg.vel)},
		{name: "Energy", app: app.read(app.energy), sg: sg.read(sg.energy)},
	} {
		a, err := v.app()
		if err != nil {
			return fmt.Errorf("reading the app's %s: %w", v.name, err)
		}
		s, err := v.sg()
		if err != nil {
			return fmt.Errorf("reading softgraph's %s: %w", v.name, err)
		}
		if i := firstDiff(a, s); i >= 0 {
			mismatches++
			fmt.Printf("MISMATCH %s[%d]: app %g (%#08x), softgraph %g (%#08x)\n", v.name, i, a[i], math.Float32bits(a[i]), s[i], math.Float32bits(s[i]))
		} else {
			fmt.Printf("%-6s: %d values identical bit for bit (after %d frames of each path)\n", v.name, len(a), frames*rounds)
		}
	}

	fmt.Printf("\n%-36s %15s %17s %15s %17s\n", "path, per frame", "frame median µs", "frame p10–p90 µs", "host median µs", "host p10–p90 µs")
	row := func(name string, frame, host []time.Duration) (fm, hm time.Duration) {
		f, h := quantiles(frame), quantiles(host)
		fmt.Printf("%-36s %15.1f %17s %15.1f %17s\n", name, us(f.median), f.spread(), us(h.median), h.spread())
		return f.median, h.median
	}
	am, ah := row("Cogent Core ComputeSystem, own loop", appFrame, appHost)
	sm, sh := row("softgraph graph replay, same device", sgFrame, sgHost)
	fmt.Printf("softgraph / app: frame %.2fx, host %.2fx (medians)\n", float64(sm)/float64(am), float64(sh)/float64(ah))
	fmt.Println("(frame: encode, submit and wait for the GPU; host: encode and submit only; p10–p90: the 10th and 90th percentiles)")
	if mismatches > 0 {
		return fmt.Errorf("%d of 3 variables differ between the app's path and softgraph's", mismatches)
	}
	return nil
}

// app is the Cogent Core side: a ComputeSystem with its own device,
// pipelines and storage values, as a Cogent Core app would build it.
type app struct {
	sy               *gpu.ComputeSystem
	pls              [3]*gpu.ComputePipeline
	pos, vel, energy *gpu.Value
	n, nx, ny        int
	substeps         int
	initialPositions *webgpu.Buffer // the app's own buffer, wrapped by softgraph
}

func newApp(gp *gpu.GPU, n, substeps int) (*app, error) {
	sy := gpu.NewComputeSystem(gp, "coregpu")
	if sy.Device() == nil {
		return nil, errors.New("Cogent Core could not make a compute device")
	}
	vars := sy.Vars()
	sgp := vars.AddGroup(gpu.Storage)
	pv := sgp.Add("Pos", gpu.Float32, n, gpu.ComputeShader)
	vv := sgp.Add("Vel", gpu.Float32, n, gpu.ComputeShader)
	ev := sgp.Add("Energy", gpu.Float32, n, gpu.ComputeShader)
	sgp.SetNValues(1)
	a := &app{sy: sy, n: n, substeps: substeps}
	a.nx, a.ny = gpu.NumWorkgroups1D(n, threads)
	src := sources(n)
	used := [3][]string{{"Pos", "Vel"}, {"Pos", "Vel"}, {"Pos", "Vel", "Energy"}}
	for i, name := range []string{"forces", "integrate", "energy"} {
		pl := sy.AddComputePipeline(name)
		sh := pl.AddShader(name)
		if err := sh.OpenCode(src[i]); err != nil {
			return nil, fmt.Errorf("app shader %s: %w", name, err)
		}
		pl.AddEntry(sh, gpu.ComputeShader, "main")
		for _, v := range used[i] {
			pl.AddVarUsed(0, v)
		}
		a.pls[i] = pl
	}
	sy.Config()
	a.pos, a.vel, a.energy = pv.Values.Values[0], vv.Values.Values[0], ev.Values.Values[0]
	pos, vel := initial(n)
	if err := gpu.SetValueFrom(a.pos, pos); err != nil {
		return nil, err
	}
	if err := gpu.SetValueFrom(a.vel, vel); err != nil {
		return nil, err
	}
	if err := gpu.SetValueFrom(a.energy, make([]float32, n)); err != nil {
		return nil, err
	}
	// The app also keeps the initial positions in a WebGPU buffer of its
	// own (Cogent Core's storage usage), filled through its own queue:
	// softgraph wraps it rather than receiving a copy.
	dev := sy.Device()
	size := uint64(4 * n)
	buf, err := dev.Device.CreateBuffer(&webgpu.BufferDescriptor{Label: "initial positions", Size: size,
		Usage: webgpu.BufferUsageStorage | webgpu.BufferUsageCopySrc | webgpu.BufferUsageCopyDst})
	if err != nil {
		return nil, err
	}
	if err := dev.Queue.WriteBuffer(buf, 0, f32Bytes(pos)); err != nil {
		buf.Release()
		return nil, err
	}
	a.initialPositions = buf
	return a, nil
}

// frame is one frame the Cogent Core way: one compute pass with every
// dispatch, submitted, then waited for. It returns the host time of the
// encode and submit.
func (a *app) frame() (time.Duration, error) {
	t0 := time.Now()
	ce, err := a.sy.BeginComputePass()
	if err != nil {
		return 0, err
	}
	for _, pl := range a.plan() {
		if err := pl.Dispatch(ce, a.nx, a.ny, 1); err != nil {
			return 0, err
		}
	}
	ce.End()
	if err := a.sy.EndComputePass(); err != nil {
		return 0, err
	}
	host := time.Since(t0)
	a.sy.Device().WaitDone()
	return host, nil
}

// plan is a frame's pipelines in order.
func (a *app) plan() []*gpu.ComputePipeline {
	var out []*gpu.ComputePipeline
	for range a.substeps {
		out = append(out, a.pls[0], a.pls[1])
	}
	return append(out, a.pls[2])
}

func (a *app) read(v *gpu.Value) func() ([]float32, error) {
	return func() ([]float32, error) {
		if err := v.CreateReadBuffer(); err != nil {
			return nil, err
		}
		cmd, err := a.sy.NewCommandEncoder()
		if err != nil {
			return nil, err
		}
		if err := v.GPUToRead(cmd); err != nil {
			return nil, err
		}
		cb, err := cmd.Finish(nil)
		if err != nil {
			return nil, err
		}
		a.sy.Device().Queue.Submit(cb)
		cb.Release()
		cmd.Release()
		if err := v.ReadSync(); err != nil {
			return nil, err
		}
		out := make([]float32, a.n)
		if err := gpu.ReadToBytes(v, out); err != nil {
			return nil, err
		}
		return out, nil
	}
}

func (a *app) release() {
	if a.initialPositions != nil {
		a.initialPositions.Release()
	}
	a.sy.Release()
}

// softgraphPath is the same compute, captured once by softgraph on the
// app's device and replayed every frame.
type softgraphPath struct {
	dev              *wgpu.Device
	s                *recorder.Stream
	g                *recorder.Graph
	pos, vel, energy *recorder.Buffer
}

func newSoftgraph(a *app, gp *gpu.GPU, n, substeps int) (_ *softgraphPath, err error) {
	dev, err := wgpu.Adopt(a.sy.Device().Device, wgpu.Options{NativeAdapter: gp.GPU})
	if err != nil {
		return nil, fmt.Errorf("wgpu.Adopt of the ComputeSystem's device: %w", err)
	}
	p := &softgraphPath{dev: dev}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if p.s, err = recorder.New(dev); err != nil {
		return nil, err
	}
	var ks [3]*wgpu.Kernel
	for i, src := range sources(n) {
		if ks[i], err = dev.Kernel(src, "main"); err != nil {
			return nil, fmt.Errorf("softgraph kernel %d: %w", i, err)
		}
	}
	size := uint64(4 * n)
	for _, b := range []**recorder.Buffer{&p.pos, &p.vel, &p.energy} {
		if *b, err = p.s.Alloc(size); err != nil {
			return nil, err
		}
	}
	groups := recorder.Groups(uint32(a.nx), uint32(a.ny), 1)
	p.g, err = p.s.Capture(func() error {
		for range substeps {
			if err := p.s.Launch(ks[0], groups, p.pos, p.vel); err != nil {
				return err
			}
			if err := p.s.Launch(ks[1], groups, p.pos, p.vel); err != nil {
				return err
			}
		}
		return p.s.Launch(ks[2], groups, p.pos, p.vel, p.energy)
	})
	if err != nil {
		return nil, fmt.Errorf("capturing the frame: %w", err)
	}
	// Capture ran the frame once as its warmup: set the starting state
	// now. Positions are copied on the GPU from the app's own buffer
	// (wrapped, not uploaded); velocities are uploaded, energy cleared.
	init, err := p.s.WrapBuffer(a.initialPositions, size)
	if err != nil {
		return nil, fmt.Errorf("WrapBuffer of the app's initial positions: %w", err)
	}
	defer init.Release()
	if err = p.s.Copy(p.pos, 0, init, 0, size); err != nil {
		return nil, err
	}
	_, vel := initial(n)
	if err = recorder.WriteSlice(p.s, p.vel, 0, vel); err != nil {
		return nil, err
	}
	if err = p.s.Clear(p.energy, 0, size); err != nil {
		return nil, err
	}
	return p, p.s.Sync()
}

// frame replays the graph, submits it (Flush), then waits (Sync). It
// returns the host time of the replay and the submit.
func (p *softgraphPath) frame() (time.Duration, error) {
	t0 := time.Now()
	if err := p.g.Replay(); err != nil {
		return 0, err
	}
	if err := p.s.Flush(); err != nil {
		return 0, err
	}
	host := time.Since(t0)
	return host, p.s.Sync()
}

func (p *softgraphPath) read(b *recorder.Buffer) func() ([]float32, error) {
	return func() ([]float32, error) { return recorder.ReadSlice[float32](p.s, b) }
}

func (p *softgraphPath) close() {
	if p.g != nil {
		p.g.Release()
	}
	if p.s != nil {
		p.s.Close()
	}
	p.dev.Close() // softgraph's objects only; the ComputeSystem keeps its device
}

func firstDiff(a, b []float32) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

// frameTimes are the quantiles of one path's per-frame times.
type frameTimes struct{ p10, median, p90 time.Duration }

// quantiles returns the 10th, 50th and 90th percentiles of d (nearest rank
// over the sorted times).
func quantiles(d []time.Duration) frameTimes {
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[int(q*float64(len(s)-1))] }
	return frameTimes{at(0.1), at(0.5), at(0.9)}
}

// spread is the p10–p90 range, both ends, in µs.
func (f frameTimes) spread() string { return fmt.Sprintf("%.1f–%.1f", us(f.p10), us(f.p90)) }

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func f32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}
