package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/wgpu"
)

// rmsEps is RMSNorm's epsilon, as in LLaMA.
const rmsEps = 1e-5

// block is one transformer-style MLP block with an output head, on the GPU:
//
//	x (1×hidden) · W1 (hidden×ffn) → +b1, GELU → · W2 (ffn×hidden)
//	→ RMSNorm(·, norm) → · Wout (hidden×vocab) → softmax → probs (1×vocab)
//
// Every buffer, weights and activations alike, is allocated and uploaded
// once, before any capture: a graph records launches only, and a step then
// is nothing but six launches over the same buffers, which is what lets it
// be captured once and replayed every token.
type block struct {
	hidden, ffn, vocab uint32

	matmul, biasGELU, rmsNorm, softmax *wgpu.Kernel

	// Weights, written once.
	w1, b1, w2, norm, wout *recorder.Buffer
	// Activations, overwritten by every step. x is the input the host writes
	// before each step; probs is the output it reads after.
	x, h, act, y, normed, logits, probs *recorder.Buffer

	// embed is the token embedding table (vocab×hidden), kept on the host:
	// feeding a token is one write of its row into x.
	embed []float32

	// launches is one step, built once: the same kernels, buffers and
	// params every token.
	launches []launch
}

// launch is one kernel launch of a step, named for error messages.
type launch struct {
	name string
	k    *wgpu.Kernel
	d    recorder.Dispatch
	args []recorder.Arg
}

// newBlock compiles the kernels and uploads random weights drawn from rng,
// scaled by 1/√fan-in so activations stay near unit size at every layer.
func newBlock(dev *wgpu.Device, s *recorder.Stream, hidden, vocab uint32, rng *rand.Rand) (*block, error) {
	b := &block{hidden: hidden, ffn: 4 * hidden, vocab: vocab}
	var err error
	for _, c := range []struct {
		k  **wgpu.Kernel
		sh shaders.Shader
	}{{&b.matmul, shaders.MatMul.Shader}, {&b.biasGELU, shaders.BiasGELU.Shader}, {&b.rmsNorm, shaders.RMSNorm.Shader}, {&b.softmax, shaders.Softmax.Shader}} {
		if *c.k, err = c.sh.Compile(dev); err != nil {
			return nil, err
		}
	}

	random := func(n uint32, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * scale)
		}
		return v
	}
	normW := make([]float32, hidden)
	for i := range normW {
		normW[i] = 1 + float32(rng.NormFloat64()*0.1)
	}
	weights := []struct {
		dst  **recorder.Buffer
		data []float32
	}{
		{&b.w1, random(hidden*b.ffn, 1/math.Sqrt(float64(hidden)))},
		{&b.b1, random(b.ffn, 0.1)},
		{&b.w2, random(b.ffn*hidden, 1/math.Sqrt(float64(b.ffn)))},
		{&b.norm, normW},
		{&b.wout, random(hidden*vocab, 1/math.Sqrt(float64(hidden)))},
	}
	for _, w := range weights {
		if *w.dst, err = recorder.UploadSlice(s, w.data); err != nil {
			b.release()
			return nil, fmt.Errorf("upload weights: %w", err)
		}
	}
	b.embed = random(vocab*hidden, 1)

	activations := []struct {
		dst *(*recorder.Buffer)
		n   uint32
	}{
		{&b.x, hidden}, {&b.h, b.ffn}, {&b.act, b.ffn}, {&b.y, hidden},
		{&b.normed, hidden}, {&b.logits, vocab}, {&b.probs, vocab},
	}
	for _, a := range activations {
		if *a.dst, err = s.Alloc(4 * uint64(a.n)); err != nil {
			b.release()
			return nil, fmt.Errorf("allocate activations: %w", err)
		}
	}

	hid, ffn, voc := b.hidden, b.ffn, b.vocab
	b.launches = []launch{
		{"x·W1", b.matmul, shaders.MatMulGroups(1, ffn), []recorder.Arg{b.x, b.w1, b.h, shaders.MatMulParams(1, ffn, hid)}},
		{"bias+GELU", b.biasGELU, shaders.ElementwiseGroups(ffn), []recorder.Arg{b.h, b.b1, b.act, shaders.BiasGELUParams(1, ffn)}},
		{"·W2", b.matmul, shaders.MatMulGroups(1, hid), []recorder.Arg{b.act, b.w2, b.y, shaders.MatMulParams(1, hid, ffn)}},
		{"RMSNorm", b.rmsNorm, shaders.RowGroups(1), []recorder.Arg{b.y, b.norm, b.normed, shaders.RMSNormParams(1, hid, rmsEps)}},
		{"·Wout", b.matmul, shaders.MatMulGroups(1, voc), []recorder.Arg{b.normed, b.wout, b.logits, shaders.MatMulParams(1, voc, hid)}},
		{"softmax", b.softmax, shaders.RowGroups(1), []recorder.Arg{b.logits, b.probs, shaders.SoftmaxParams(1, voc)}},
	}
	return b, nil
}

// feed writes token's embedding into the input buffer, in stream order: the
// next step (launched or replayed) reads it.
func (b *block) feed(s *recorder.Stream, token int) error {
	row := b.embed[token*int(b.hidden) : (token+1)*int(b.hidden)]
	if err := recorder.WriteSlice(s, b.x, 0, row); err != nil {
		return fmt.Errorf("feed token %d: %w", token, err)
	}
	return nil
}

// step enqueues one token's forward pass: six launches, no host work in
// between. Eagerly it runs; inside a capture window it is recorded.
func (b *block) step(s *recorder.Stream) error {
	for _, l := range b.launches {
		if err := s.Launch(l.k, l.d, l.args...); err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
	}
	return nil
}

// release gives every buffer back to the stream's pool. A graph that binds
// them keeps them alive until it is released too.
func (b *block) release() {
	for _, buf := range []*recorder.Buffer{b.w1, b.b1, b.w2, b.norm, b.wout, b.x, b.h, b.act, b.y, b.normed, b.logits, b.probs} {
		buf.Release() // nil-safe, for a block that failed half way
	}
}

// sample picks the next token from probs by inverse CDF at u in [0, 1): the
// seeded sampling of a real decoder, deterministic given probs and u, so
// both paths follow the same token sequence exactly when their outputs match.
func sample(probs []float32, u float64) int {
	var total float64
	for _, p := range probs {
		total += float64(p)
	}
	target, acc := u*total, 0.0
	for i, p := range probs {
		acc += float64(p)
		if acc > target {
			return i
		}
	}
	return len(probs) - 1
}
