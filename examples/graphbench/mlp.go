package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/wgpu"
)

// The mlp workload is an elementwise-heavy chain like a transformer
// block's MLP tail, on rows×cols f32 activations x, run with the shipped
// kernels, three dispatches per layer:
//
//	bias_gelu  h = gelu(x + bias)   (bias of cols elements, read at i % cols)
//	add        r = h + x            (the residual)
//	scale      x = mlpScale · r
//
// Every dispatch depends on the one before it, and all three are pointwise,
// so recorder.WithFusion fuses a graph of them into a few dispatches. It
// runs on the recorder paths only (eager, replay, replay_inline, fused):
// the hand-written paths run one kernel. Its floor_unfused is the
// library's floor of the unfused replay graph (ProfileReplay WithFloor: the
// GPU's own time for the unfused command buffer). Its results are checked
// bit for bit against the same chain launched eagerly, without fusion, on
// a stream of its own (the reference): fused and unfused must agree
// exactly; a Go reference could not, tanh being the driver's.

const mlpScale = 0.5 // keeps x bounded: |x'| ≤ (|gelu(x+b)| + |x|) / 2

// mlpTarget is one recorder path's activations, bias and temporaries.
type mlpTarget struct {
	s             *recorder.Stream
	k             [3]*wgpu.Kernel // the device's (cached)
	x, bias, h, r *recorder.Buffer
	init          []float32
	rows, cols    uint32
	paramsGELU    recorder.Params
	paramsAdd     recorder.Params
	paramsScale   recorder.Params
	groups        recorder.Dispatch
}

func newMLPTarget(s *recorder.Stream, w *workload) (*mlpTarget, error) {
	t := &mlpTarget{s: s, init: w.mlpInit, rows: w.mlpRows, cols: w.mlpCols}
	n := t.rows * t.cols
	for i, compile := range []func(*wgpu.Device) (*wgpu.Kernel, error){shaders.BiasGELU.Compile, shaders.Add.Compile, shaders.Scale.Compile} {
		k, err := compile(s.Device())
		if err != nil {
			return nil, err
		}
		t.k[i] = k
	}
	var err error
	if t.x, err = recorder.UploadSlice(s, t.init); err != nil {
		return nil, err
	}
	if t.bias, err = recorder.UploadSlice(s, w.mlpBias); err != nil {
		return nil, err
	}
	for _, b := range []**recorder.Buffer{&t.h, &t.r} {
		if *b, err = s.Alloc(uint64(n) * 4); err != nil {
			return nil, err
		}
	}
	t.paramsGELU = shaders.BiasGELUParams(t.rows, t.cols)
	t.paramsAdd = shaders.AddParams(n)
	t.paramsScale = shaders.ScaleParams(n, mlpScale)
	t.groups = shaders.ElementwiseGroups(n)
	return t, nil
}

// launch enqueues n dispatches (a multiple of 3: whole layers).
func (t *mlpTarget) launch(n int) error {
	for i := range n {
		var err error
		switch i % 3 {
		case 0:
			err = t.s.Launch(t.k[0], t.groups, t.x, t.bias, t.h, t.paramsGELU)
		case 1:
			err = t.s.Launch(t.k[1], t.groups, t.h, t.x, t.r, t.paramsAdd)
		case 2:
			err = t.s.Launch(t.k[2], t.groups, t.r, t.x, t.paramsScale)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *mlpTarget) read() ([]uint32, error) { return recorder.ReadSlice[uint32](t.s, t.x) }
func (t *mlpTarget) reset() error            { return recorder.WriteSlice(t.s, t.x, 0, t.init) }

// state is the buffer holding the activations between passes.
func (t *mlpTarget) state() *recorder.Buffer { return t.x }

// mlpReference is the unfused chain launched eagerly on a stream of its
// own, advanced only forward (restarting from init when asked for an
// earlier step), as lifeReference is.
type mlpReference struct {
	s     *recorder.Stream // owned; closed by close
	t     *mlpTarget
	steps int
}

func (r *mlpReference) at(steps int) ([]uint32, error) {
	if steps < r.steps {
		if err := r.t.reset(); err != nil {
			return nil, err
		}
		r.steps = 0
	}
	for r.steps < steps {
		n := min(steps-r.steps, 3000)
		if err := r.t.launch(n); err != nil {
			return nil, err
		}
		if err := r.s.Sync(); err != nil {
			return nil, err
		}
		r.steps += n
	}
	return r.t.read()
}

// newMLPWorkload builds the mlp workload: random activations and bias,
// the reference stream, and its check.
func newMLPWorkload(dev *wgpu.Device, c config) (*workload, error) {
	rows := c.Elems / c.Cols
	rng := rand.New(rand.NewPCG(2, 0x5eed))
	w := &workload{name: "mlp", recorderOnly: true, words: c.Elems, mlpRows: rows, mlpCols: c.Cols}
	w.mlpInit = make([]float32, c.Elems)
	for i := range w.mlpInit {
		w.mlpInit[i] = float32(rng.NormFloat64())
	}
	w.mlpBias = make([]float32, c.Cols)
	for i := range w.mlpBias {
		w.mlpBias[i] = float32(rng.NormFloat64() * 0.1)
	}
	w.init = make([]uint32, c.Elems)
	for i, v := range w.mlpInit {
		w.init[i] = math.Float32bits(v)
	}
	s, err := recorder.New(dev) // no fusion: the reference is the unfused chain
	if err != nil {
		return nil, err
	}
	rt, err := newMLPTarget(s, w)
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	ref := &mlpReference{s: s, t: rt}
	w.close = func() { _ = s.Close() }
	w.check = func(out []uint32, steps int) error {
		if steps%3 != 0 {
			return fmt.Errorf("%d dispatches is not a whole number of layers", steps)
		}
		want, err := ref.at(steps)
		if err != nil {
			return fmt.Errorf("reference: %w", err)
		}
		for i := range want {
			if out[i] != want[i] {
				return fmt.Errorf("element %d is %v after %d dispatches; the unfused eager chain gives %v (bits %#x, %#x)",
					i, math.Float32frombits(out[i]), steps, math.Float32frombits(want[i]), out[i], want[i])
			}
		}
		return nil
	}
	w.target = func(s *recorder.Stream) (sgTarget, error) { return newMLPTarget(s, w) }
	return w, nil
}
