package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// The model's WGSL, written as a WebGPU program is written kernel by
// kernel: one kernel per operation, sizes as overrides the host sets
// (WithConstants), 8×8 workgroups for elementwise work and a 16×16 tiled
// matrix multiply. Nothing in it is shaped for softgraph's fusion.

const matmulWGSL = `
override M: u32;
override N: u32;
override K: u32;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
var<workgroup> ta: array<f32, 256>;
var<workgroup> tw: array<f32, 256>;
@compute @workgroup_size(16, 16)
fn matmul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
	let row = gid.y;
	let col = gid.x;
	var acc = 0.0;
	for (var t = 0u; t < K; t = t + 16u) {
		let ka = t + lid.x;
		let kw = t + lid.y;
		ta[lid.y * 16u + lid.x] = select(0.0, a[min(row, M - 1u) * K + min(ka, K - 1u)], ka < K);
		tw[lid.y * 16u + lid.x] = select(0.0, w[min(kw, K - 1u) * N + min(col, N - 1u)], kw < K);
		workgroupBarrier();
		for (var k = 0u; k < 16u; k = k + 1u) {
			acc = acc + ta[lid.y * 16u + k] * tw[k * 16u + lid.x];
		}
		workgroupBarrier();
	}
	if (row < M && col < N) {
		c[row * N + col] = acc;
	}
}
`

const biasWGSL = `
override M: u32;
override N: u32;
@group(0) @binding(0) var<storage, read> bias: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(8, 8)
fn add_bias(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= N || gid.y >= M) { return; }
	let i = gid.y * N + gid.x;
	y[i] = y[i] + bias[gid.x];
}
`

const geluWGSL = `
override M: u32;
override N: u32;
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(8, 8)
fn gelu(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= N || gid.y >= M) { return; }
	let i = gid.y * N + gid.x;
	let v = y[i];
	y[i] = 0.5 * v * (1.0 + tanh(0.7978846 * (v + 0.044715 * v * v * v)));
}
`

const residualWGSL = `
override M: u32;
override N: u32;
@group(0) @binding(0) var<storage, read> r: array<f32>;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(8, 8)
fn residual(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= N || gid.y >= M) { return; }
	let i = gid.y * N + gid.x;
	x[i] = x[i] + r[i];
}
`

const embedWGSL = `
override T: u32;
override D: u32;
@group(0) @binding(0) var<storage, read> tok: array<u32>;
@group(0) @binding(1) var<storage, read> wte: array<f32>;
@group(0) @binding(2) var<storage, read> wpe: array<f32>;
@group(0) @binding(3) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(8, 8)
fn embed(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= D || gid.y >= T) { return; }
	let i = gid.y * D + gid.x;
	x[i] = wte[tok[gid.y] * D + gid.x] + wpe[i];
}
`

// layerNormWGSL: one workgroup of 64 per row, the sums reduced in
// workgroup memory.
const layerNormWGSL = `
override D: u32;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> g: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
var<workgroup> part: array<f32, 64>;
@compute @workgroup_size(64)
fn layer_norm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
	let row = wid.x;
	var s = 0.0;
	for (var c = lid.x; c < D; c = c + 64u) {
		s = s + x[row * D + c];
	}
	part[lid.x] = s;
	workgroupBarrier();
	for (var w = 32u; w > 0u; w = w / 2u) {
		if (lid.x < w) {
			part[lid.x] = part[lid.x] + part[lid.x + w];
		}
		workgroupBarrier();
	}
	let mean = part[0] / f32(D);
	workgroupBarrier();
	var v = 0.0;
	for (var c = lid.x; c < D; c = c + 64u) {
		let d = x[row * D + c] - mean;
		v = v + d * d;
	}
	part[lid.x] = v;
	workgroupBarrier();
	for (var w = 32u; w > 0u; w = w / 2u) {
		if (lid.x < w) {
			part[lid.x] = part[lid.x] + part[lid.x + w];
		}
		workgroupBarrier();
	}
	let inv = inverseSqrt(part[0] / f32(D) + 1e-5);
	for (var c = lid.x; c < D; c = c + 64u) {
		y[row * D + c] = (x[row * D + c] - mean) * inv * g[c] + b[c];
	}
}
`

// attentionWGSL: causal self-attention, one invocation per (token, head),
// q, k and v side by side in each row of qkv.
const attentionWGSL = `
override T: u32;
override D: u32;
override H: u32;
@group(0) @binding(0) var<storage, read> qkv: array<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
fn score(t: u32, s: u32, h: u32) -> f32 {
	let hd = D / H;
	var dot = 0.0;
	for (var d = 0u; d < hd; d = d + 1u) {
		dot = dot + qkv[t * 3u * D + h * hd + d] * qkv[s * 3u * D + D + h * hd + d];
	}
	return dot / sqrt(f32(hd));
}
@compute @workgroup_size(64)
fn attention(@builtin(global_invocation_id) gid: vec3<u32>) {
	let t = gid.x / H;
	let h = gid.x % H;
	if (t >= T) { return; }
	let hd = D / H;
	var m = -1e30;
	for (var s = 0u; s <= t; s = s + 1u) {
		m = max(m, score(t, s, h));
	}
	var sum = 0.0;
	for (var s = 0u; s <= t; s = s + 1u) {
		sum = sum + exp(score(t, s, h) - m);
	}
	for (var d = 0u; d < hd; d = d + 1u) {
		var acc = 0.0;
		for (var s = 0u; s <= t; s = s + 1u) {
			acc = acc + exp(score(t, s, h) - m) / sum * qkv[s * 3u * D + 2u * D + h * hd + d];
		}
		o[t * D + h * hd + d] = acc;
	}
}
`

// shape is the model's size: T tokens of D channels, H heads, L layers,
// a vocabulary of V. D, 3D, 4D, V and T must be multiples of 16 (the
// matmul tile) and D at most 64 (the layer norm's one element per
// invocation is not required, but its reduction is one workgroup of 64).
type shape struct{ T, D, H, L, V int }

func (sh shape) validate() error {
	for _, v := range []int{sh.T, sh.D, sh.V} {
		if v <= 0 || v%16 != 0 {
			return fmt.Errorf("gpt2fwd: T, D and V must be positive multiples of 16: %+v", sh)
		}
	}
	if sh.H <= 0 || sh.D%sh.H != 0 || sh.L <= 0 || sh.T*sh.H > 64*65535 {
		return fmt.Errorf("gpt2fwd: D must divide into H heads, and L be positive: %+v", sh)
	}
	return nil
}

// kernels compiles the model's kernels for sh; each shape of matmul and
// elementwise kernel is its own compile (WithConstants).
type kernels struct {
	dev   *wgpu.Device
	cache map[string]*wgpu.Kernel
}

func (ks *kernels) get(src, entry string, c map[string]float64) (*wgpu.Kernel, error) {
	key := fmt.Sprint(entry, c)
	if k := ks.cache[key]; k != nil {
		return k, nil
	}
	k, err := ks.dev.Kernel(src, entry, wgpu.WithConstants(c))
	if err != nil {
		return nil, fmt.Errorf("gpt2fwd: kernel %s %v: %w", entry, c, err)
	}
	ks.cache[key] = k
	return k, nil
}

func (ks *kernels) release() {
	for _, k := range ks.cache {
		k.Release()
	}
}

// layer is one transformer block's weights.
type layer struct {
	ln1g, ln1b, wqkv, bqkv, wproj, bproj, ln2g, ln2b, wfc, bfc, wout, bout *recorder.Buffer
}

// model is the weights and activations on one stream.
type model struct {
	sh                        shape
	s                         *recorder.Stream
	ks                        *kernels
	tok, wte, wpe, lnfg, lnfb *recorder.Buffer
	wlm                       *recorder.Buffer // the LM head, D×V
	layers                    []layer
	x, xn, qkv, att, y, h     *recorder.Buffer
	logits                    *recorder.Buffer
}

// newModel uploads weights drawn from seed (the same on every stream).
func newModel(s *recorder.Stream, ks *kernels, sh shape, seed uint64) (*model, error) {
	if err := sh.validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	m := &model{sh: sh, s: s, ks: ks}
	var err error
	up := func(n int, scale, base float64) *recorder.Buffer {
		if err != nil {
			return nil
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(base + scale*rng.NormFloat64())
		}
		var b *recorder.Buffer
		b, err = recorder.UploadSlice(s, v)
		return b
	}
	tok := make([]uint32, sh.T)
	for i := range tok {
		tok[i] = uint32(rng.IntN(sh.V))
	}
	if m.tok, err = recorder.UploadSlice(s, tok); err != nil {
		return nil, err
	}
	D := sh.D
	m.wte, m.wpe = up(sh.V*D, 0.1, 0), up(sh.T*D, 0.02, 0)
	for range sh.L {
		m.layers = append(m.layers, layer{
			ln1g: up(D, 0.1, 1), ln1b: up(D, 0.02, 0),
			wqkv: up(D*3*D, 0.08, 0), bqkv: up(3*D, 0.02, 0),
			wproj: up(D*D, 0.08, 0), bproj: up(D, 0.02, 0),
			ln2g: up(D, 0.1, 1), ln2b: up(D, 0.02, 0),
			wfc: up(D*4*D, 0.08, 0), bfc: up(4*D, 0.02, 0),
			wout: up(4*D*D, 0.04, 0), bout: up(D, 0.02, 0),
		})
	}
	m.lnfg, m.lnfb = up(D, 0.1, 1), up(D, 0.02, 0)
	m.wlm = up(D*sh.V, 0.1, 0)
	if err != nil {
		return nil, err
	}
	for _, b := range []struct {
		p *(*recorder.Buffer)
		n int
	}{{&m.x, sh.T * D}, {&m.xn, sh.T * D}, {&m.qkv, sh.T * 3 * D}, {&m.att, sh.T * D}, {&m.y, sh.T * D}, {&m.h, sh.T * 4 * D}, {&m.logits, sh.T * sh.V}} {
		if *b.p, err = s.Alloc(uint64(b.n) * 4); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// forward launches one forward pass over the T tokens: the logits of
// every position.
func (m *model) forward() error {
	sh, s := m.sh, m.s
	T, D := float64(sh.T), float64(sh.D)
	launch := func(src, entry string, c map[string]float64, d recorder.Dispatch, args ...recorder.Arg) error {
		k, err := m.ks.get(src, entry, c)
		if err != nil {
			return err
		}
		return s.Launch(k, d, args...)
	}
	mn := func(mm, n float64) map[string]float64 { return map[string]float64{"M": mm, "N": n} }
	matmul := func(a, w, c *recorder.Buffer, n, k float64) error {
		return launch(matmulWGSL, "matmul", map[string]float64{"M": T, "N": n, "K": k}, recorder.Groups(uint32(n)/16, uint32(T)/16, 1), a, w, c)
	}
	elementwise := func(src, entry string, n float64, args ...recorder.Arg) error {
		return launch(src, entry, mn(T, n), recorder.Groups((uint32(n)+7)/8, (uint32(T)+7)/8, 1), args...)
	}
	norm := func(x, g, b, y *recorder.Buffer) error {
		return launch(layerNormWGSL, "layer_norm", map[string]float64{"D": D}, recorder.Groups(uint32(sh.T), 1, 1), x, g, b, y)
	}
	steps := []func() error{func() error {
		return launch(embedWGSL, "embed", map[string]float64{"T": T, "D": D}, recorder.Groups((uint32(D)+7)/8, (uint32(T)+7)/8, 1), m.tok, m.wte, m.wpe, m.x)
	}}
	for _, l := range m.layers {
		steps = append(steps,
			func() error { return norm(m.x, l.ln1g, l.ln1b, m.xn) },
			func() error { return matmul(m.xn, l.wqkv, m.qkv, 3*D, D) },
			func() error { return elementwise(biasWGSL, "add_bias", 3*D, l.bqkv, m.qkv) },
			func() error {
				c := map[string]float64{"T": T, "D": D, "H": float64(sh.H)}
				return launch(attentionWGSL, "attention", c, recorder.Groups(uint32(sh.T*sh.H+63)/64, 1, 1), m.qkv, m.att)
			},
			func() error { return matmul(m.att, l.wproj, m.y, D, D) },
			func() error { return elementwise(biasWGSL, "add_bias", D, l.bproj, m.y) },
			func() error { return elementwise(residualWGSL, "residual", D, m.y, m.x) },
			func() error { return norm(m.x, l.ln2g, l.ln2b, m.xn) },
			func() error { return matmul(m.xn, l.wfc, m.h, 4*D, D) },
			func() error { return elementwise(biasWGSL, "add_bias", 4*D, l.bfc, m.h) },
			func() error { return elementwise(geluWGSL, "gelu", 4*D, m.h) },
			func() error { return matmul(m.h, l.wout, m.y, D, 4*D) },
			func() error { return elementwise(biasWGSL, "add_bias", D, l.bout, m.y) },
			func() error { return elementwise(residualWGSL, "residual", D, m.y, m.x) },
		)
	}
	steps = append(steps,
		func() error { return norm(m.x, m.lnfg, m.lnfb, m.xn) },
		func() error { return matmul(m.xn, m.wlm, m.logits, float64(sh.V), D) },
	)
	for _, st := range steps {
		if err := st(); err != nil {
			return err
		}
	}
	return nil
}

// logitBits reads the logits as words.
func (m *model) logitBits() ([]uint32, error) { return recorder.ReadSlice[uint32](m.s, m.logits) }

// finite reports whether every word is a finite float (the model's values
// stay in range, so a NaN or an infinity is a bug, not data).
func finite(words []uint32) bool {
	for _, w := range words {
		f := math.Float32frombits(w)
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
	}
	return true
}
