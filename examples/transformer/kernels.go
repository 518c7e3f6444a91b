package main

import (
	"fmt"

	"github.com/softgraph/softgraph/wgpu"
)

// The decoder's WGSL. Every module is written so that the compiler bundled
// with wgpu-native (naga v22) accepts it as written, because the
// hand-written path compiles the same text through cogentcore without
// softgraph's front end: no `override`, every integer literal suffixed, no
// integer division by a value known only at run time, and no early return
// before a barrier (a workgroup with nothing to do runs its loops zero
// times instead).
//
// Every per-token value lives in one uniform, Step (the position the token
// is at and the attention length, pos+1); every size lives in a per-kernel
// uniform, Dims, fixed for the whole run. Entry points are named after the
// step of the model they compute, which is what ProfileReplay reports.

// stepWGSL is the per-token uniform: the eager path passes it by value,
// the replay path binds a Var the host sets between replays, the
// hand-written path writes one native uniform buffer.
const stepWGSL = `
struct Step { pos: u32, len: u32, _pad0: u32, _pad1: u32 }
`

// embedWGSL gathers the token's embedding row and adds its position's:
// x = wte[tok] + wpe[pos]. The token is the one the previous step's argmax
// wrote on the GPU (or the prompt token the host wrote at reset). The
// table may be split into shards of rows [row0, row0+rows), one launch
// each: the launch whose shard holds the token writes x.
const embedWGSL = stepWGSL + `
struct Dims { d: u32, row0: u32, rows: u32, _pad0: u32 }
@group(0) @binding(0) var<storage, read> tok: array<u32>;
@group(0) @binding(1) var<storage, read> wte: array<f32>;
@group(0) @binding(2) var<storage, read> wpe: array<f32>;
@group(0) @binding(3) var<storage, read_write> x: array<f32>;
@group(0) @binding(4) var<uniform> dims: Dims;
@group(0) @binding(5) var<uniform> st: Step;

@compute @workgroup_size(64)
fn embed(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	let t = tok[0];
	if (i < dims.d && t >= dims.row0 && t - dims.row0 < dims.rows) {
		x[i] = wte[(t - dims.row0) * dims.d + i] + wpe[st.pos * dims.d + i];
	}
}
`

// reduceWGSL is a 256-wide tree reduction in workgroup memory, called
// from uniform control flow only.
const reduceWGSL = `
var<workgroup> red: array<f32, 256>;

fn reduce_sum(lid: u32, v: f32) -> f32 {
	red[lid] = v;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s = s >> 1u) {
		if (lid < s) {
			red[lid] = red[lid] + red[lid + s];
		}
		workgroupBarrier();
	}
	let r = red[0];
	workgroupBarrier();
	return r;
}

fn reduce_max(lid: u32, v: f32) -> f32 {
	red[lid] = v;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s = s >> 1u) {
		if (lid < s) {
			red[lid] = max(red[lid], red[lid + s]);
		}
		workgroupBarrier();
	}
	let r = red[0];
	workgroupBarrier();
	return r;
}
`

// layerNormWGSL: y = (x - mean) / sqrt(var + eps) * gamma + beta over one
// row of n, by one workgroup (two passes: the mean, then the variance).
const layerNormWGSL = reduceWGSL + `
struct Dims { n: u32, eps: f32, _pad0: u32, _pad1: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> beta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> dims: Dims;

@compute @workgroup_size(256)
fn layer_norm(@builtin(local_invocation_id) lid3: vec3<u32>) {
	let lid = lid3.x;
	var s = 0.0f;
	for (var i = lid; i < dims.n; i = i + 256u) {
		s = s + x[i];
	}
	let mean = reduce_sum(lid, s) / f32(dims.n);
	var v = 0.0f;
	for (var i = lid; i < dims.n; i = i + 256u) {
		let c = x[i] - mean;
		v = v + c * c;
	}
	let inv = inverseSqrt(reduce_sum(lid, v) / f32(dims.n) + dims.eps);
	for (var i = lid; i < dims.n; i = i + 256u) {
		y[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
	}
}
`

// rowDotWGSL is the matrix-vector core every projection shares: one
// workgroup of 64 per output row; W is stored output-major (row r is the
// r-th output's K weights, contiguous), so a workgroup reads its row as
// consecutive vec4s and the 64 partial sums meet in a tree. A row past the
// end (the grid is rounded up) reads nothing and writes nothing. Rows are
// numbered wid.x + 32768·wid.y: a grid wider than a dimension allows is
// folded into y (see matvecGroups).
const rowDotWGSL = `
var<workgroup> part: array<f32, 64>;

fn row_of(wid: vec3<u32>) -> u32 {
	return wid.x + wid.y * 32768u;
}

fn row_dot(row: u32, lid: u32) -> f32 {
	let kend = select(0u, dims.k4, row < dims.n);
	let base = row * dims.k4;
	var acc = 0.0f;
	for (var k = lid; k < kend; k = k + 64u) {
		acc = acc + dot(xin[k], w[base + k]);
	}
	part[lid] = acc;
	workgroupBarrier();
	for (var s = 32u; s > 0u; s = s >> 1u) {
		if (lid < s) {
			part[lid] = part[lid] + part[lid + s];
		}
		workgroupBarrier();
	}
	return part[0];
}
`

// matvecDims is the Dims every projection reads: n output rows of K = 4·k4
// inputs; d is the model width (qkv only).
const matvecDims = `
struct Dims { n: u32, k4: u32, d: u32, _pad0: u32 }
`

// qkvWGSL projects the normed input to q, k and v (rows [0,d), [d,2d),
// [2d,3d) of Wqkv) and appends k and v to this layer's KV cache at the
// token's position: the cache append is part of the kernel, so a captured
// token records it.
const qkvWGSL = stepWGSL + matvecDims + `
@group(0) @binding(0) var<storage, read> xin: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> q: array<f32>;
@group(0) @binding(4) var<storage, read_write> kc: array<f32>;
@group(0) @binding(5) var<storage, read_write> vc: array<f32>;
@group(0) @binding(6) var<uniform> dims: Dims;
@group(0) @binding(7) var<uniform> st: Step;
` + rowDotWGSL + `
@compute @workgroup_size(64)
fn qkv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
	let row = row_of(wid);
	let v = row_dot(row, lid3.x);
	if (lid3.x == 0u && row < dims.n) {
		let d = dims.d;
		let y = v + bias[row];
		if (row < d) {
			q[row] = y;
		} else if (row < 2u * d) {
			kc[st.pos * d + row - d] = y;
		} else {
			vc[st.pos * d + row - 2u * d] = y;
		}
	}
}
`

// residualWGSL adds a projection to the residual stream in place:
// x[r] += W[r]·xin + b[r]. Each row of x is read and written by its own
// workgroup only. Two entry points, so a profile tells the attention's
// output projection from the MLP's.
const residualWGSL = matvecDims + `
@group(0) @binding(0) var<storage, read> xin: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> x: array<f32>;
@group(0) @binding(4) var<uniform> dims: Dims;
` + rowDotWGSL + `
fn residual(wid: vec3<u32>, lid: u32) {
	let row = row_of(wid);
	let v = row_dot(row, lid);
	if (lid == 0u && row < dims.n) {
		x[row] = x[row] + v + bias[row];
	}
}

@compute @workgroup_size(64)
fn attn_proj(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
	residual(wid, lid3.x);
}

@compute @workgroup_size(64)
fn mlp_proj(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
	residual(wid, lid3.x);
}
`

// mlpFCWGSL is the MLP's first layer with GPT-2's tanh GELU fused in. The
// tanh argument is clamped to ±15, where tanh is already ±1 in f32, so no
// backend's tanh (some compute it from exp) overflows.
const mlpFCWGSL = matvecDims + `
@group(0) @binding(0) var<storage, read> xin: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> dims: Dims;
` + rowDotWGSL + `
fn gelu(x: f32) -> f32 {
	let u = clamp(0.7978845608f * (x + 0.044715f * x * x * x), -15.0f, 15.0f);
	return 0.5f * x * (1.0f + tanh(u));
}

@compute @workgroup_size(64)
fn mlp_fc_gelu(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
	let row = row_of(wid);
	let v = row_dot(row, lid3.x);
	if (lid3.x == 0u && row < dims.n) {
		y[row] = gelu(v + bias[row]);
	}
}
`

// lmHeadWGSL is the final projection onto the vocabulary:
// logits[v] = head[v]·x, one launch per shard of the head, each writing
// its rows' logits. (GPT-2 ties the head to the token embeddings; with
// random weights a tied head makes the greedy sequence repeat the input
// token, so here it is a matrix of its own; a token reads as much either
// way.)
const lmHeadWGSL = `
struct Dims { n: u32, k4: u32, row0: u32, _pad0: u32 }
@group(0) @binding(0) var<storage, read> xin: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> logits: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;
` + rowDotWGSL + `
@compute @workgroup_size(64)
fn lm_head(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
	let row = row_of(wid);
	let v = row_dot(row, lid3.x);
	if (lid3.x == 0u && row < dims.n) {
		logits[dims.row0 + row] = v;
	}
}
`

// attnDims is the Dims the attention kernels read: the width and head
// width in vec4s, the cache's row capacity (the context), and 1/√head_dim.
const attnDims = `
struct Dims { d4: u32, hd4: u32, ctx: u32, scale: f32 }
`

// attnScoresWGSL: scores[h][j] = q_h·k_j/√hd for every cached position j
// the token attends to. The causal mask is j < len = pos+1: the query at
// pos sees the cache rows written at positions 0..pos and never the rows
// after it, which hold a previous sequence's keys. One invocation per
// (position, head); the grid covers the whole context.
const attnScoresWGSL = stepWGSL + attnDims + `
@group(0) @binding(0) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> kc: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> scores: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;
@group(0) @binding(4) var<uniform> st: Step;

@compute @workgroup_size(64)
fn attn_scores(@builtin(global_invocation_id) gid: vec3<u32>) {
	let j = gid.x;
	let h = gid.y;
	if (j < st.len) {
		let qo = h * dims.hd4;
		let ko = j * dims.d4 + qo;
		var s = 0.0f;
		for (var c = 0u; c < dims.hd4; c = c + 1u) {
			s = s + dot(q[qo + c], kc[ko + c]);
		}
		scores[h * dims.ctx + j] = s * dims.scale;
	}
}
`

// attnSoftmaxWGSL turns one head's len scores into probabilities in
// place, one workgroup per head: the max, then exp and the sum, then the
// division (each invocation rereads only what it wrote).
const attnSoftmaxWGSL = stepWGSL + attnDims + reduceWGSL + `
@group(0) @binding(0) var<storage, read_write> scores: array<f32>;
@group(0) @binding(1) var<uniform> dims: Dims;
@group(0) @binding(2) var<uniform> st: Step;

@compute @workgroup_size(256)
fn attn_softmax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
	let lid = lid3.x;
	let base = wid.x * dims.ctx;
	var m = -3.4e38f;
	for (var j = lid; j < st.len; j = j + 256u) {
		m = max(m, scores[base + j]);
	}
	m = reduce_max(lid, m);
	var s = 0.0f;
	for (var j = lid; j < st.len; j = j + 256u) {
		let e = exp(scores[base + j] - m);
		scores[base + j] = e;
		s = s + e;
	}
	let inv = 1.0f / reduce_sum(lid, s);
	for (var j = lid; j < st.len; j = j + 256u) {
		scores[base + j] = scores[base + j] * inv;
	}
}
`

// attnValuesWGSL: out_h = Σ_j p[h][j]·v_j over j < len, one workgroup per
// head: 16 lanes over the head's vec4 columns times 16 slices over the
// positions, the slices summed in workgroup memory in a fixed order.
const attnValuesWGSL = stepWGSL + attnDims + `
@group(0) @binding(0) var<storage, read> probs: array<f32>;
@group(0) @binding(1) var<storage, read> vc: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> att_out: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> dims: Dims;
@group(0) @binding(4) var<uniform> st: Step;

var<workgroup> acc16: array<vec4<f32>, 256>;

@compute @workgroup_size(256)
fn attn_values(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
	let lid = lid3.x;
	let lane = lid & 15u;
	let slice = lid >> 4u;
	let h = wid.x;
	for (var base = 0u; base < dims.hd4; base = base + 16u) {
		let c = base + lane;
		var a = vec4<f32>(0.0f);
		if (c < dims.hd4) {
			for (var j = slice; j < st.len; j = j + 16u) {
				a = a + probs[h * dims.ctx + j] * vc[j * dims.d4 + h * dims.hd4 + c];
			}
		}
		acc16[lid] = a;
		workgroupBarrier();
		if (slice == 0u && c < dims.hd4) {
			var sum = vec4<f32>(0.0f);
			for (var t = 0u; t < 16u; t = t + 1u) {
				sum = sum + acc16[t * 16u + lane];
			}
			att_out[h * dims.hd4 + c] = sum;
		}
		workgroupBarrier();
	}
}
`

// argmaxWGSL is greedy decoding on the GPU: the index of the largest logit
// (the lowest such index on a tie; NaNs never win), written where the next
// token's embed reads it, so the token never leaves the GPU to be fed back.
const argmaxWGSL = `
struct Dims { n: u32, _pad0: u32, _pad1: u32, _pad2: u32 }
@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read_write> tok: array<u32>;
@group(0) @binding(2) var<uniform> dims: Dims;

var<workgroup> bv: array<f32, 256>;
var<workgroup> bi: array<u32, 256>;

@compute @workgroup_size(256)
fn argmax(@builtin(local_invocation_id) lid3: vec3<u32>) {
	let lid = lid3.x;
	var m = -3.4e38f;
	var idx = 4294967295u;
	// Four loads in flight per pass (a vocabulary of 50257 is 196 loads
	// per invocation), compared in increasing index order so the first
	// largest wins.
	var i = lid;
	while (i + 768u < dims.n) {
		let v0 = logits[i];
		let v1 = logits[i + 256u];
		let v2 = logits[i + 512u];
		let v3 = logits[i + 768u];
		if (v0 > m) { m = v0; idx = i; }
		if (v1 > m) { m = v1; idx = i + 256u; }
		if (v2 > m) { m = v2; idx = i + 512u; }
		if (v3 > m) { m = v3; idx = i + 768u; }
		i = i + 1024u;
	}
	while (i < dims.n) {
		let v = logits[i];
		if (v > m) { m = v; idx = i; }
		i = i + 256u;
	}
	bv[lid] = m;
	bi[lid] = idx;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s = s >> 1u) {
		if (lid < s) {
			let ov = bv[lid + s];
			let oi = bi[lid + s];
			if (ov > bv[lid] || (ov == bv[lid] && oi < bi[lid])) {
				bv[lid] = ov;
				bi[lid] = oi;
			}
		}
		workgroupBarrier();
	}
	if (lid == 0u) {
		tok[0] = bi[0];
	}
}
`

// kernel is one compiled entry point and the text it was compiled from
// (the hand-written path compiles the same text itself).
type kernel struct {
	name, src string
	k         *wgpu.Kernel
}

// kernels is every entry point of the decoder.
type kernels struct {
	embed, layerNorm, qkv, attnScores, attnSoftmax, attnValues, attnProj, mlpFC, mlpProj, lmHead, argmax *kernel
}

func (ks *kernels) all() []*kernel {
	return []*kernel{ks.embed, ks.layerNorm, ks.qkv, ks.attnScores, ks.attnSoftmax, ks.attnValues, ks.attnProj, ks.mlpFC, ks.mlpProj, ks.lmHead, ks.argmax}
}

func compileKernels(dev *wgpu.Device) (*kernels, error) {
	ks := &kernels{
		embed:       &kernel{name: "embed", src: embedWGSL},
		layerNorm:   &kernel{name: "layer_norm", src: layerNormWGSL},
		qkv:         &kernel{name: "qkv", src: qkvWGSL},
		attnScores:  &kernel{name: "attn_scores", src: attnScoresWGSL},
		attnSoftmax: &kernel{name: "attn_softmax", src: attnSoftmaxWGSL},
		attnValues:  &kernel{name: "attn_values", src: attnValuesWGSL},
		attnProj:    &kernel{name: "attn_proj", src: residualWGSL},
		mlpFC:       &kernel{name: "mlp_fc_gelu", src: mlpFCWGSL},
		mlpProj:     &kernel{name: "mlp_proj", src: residualWGSL},
		lmHead:      &kernel{name: "lm_head", src: lmHeadWGSL},
		argmax:      &kernel{name: "argmax", src: argmaxWGSL},
	}
	for _, k := range ks.all() {
		var err error
		if k.k, err = dev.Kernel(k.src, k.name); err != nil {
			return nil, fmt.Errorf("compile %s: %w", k.name, err)
		}
	}
	return ks, nil
}

// matvecGroups is the grid of a projection of n rows: one workgroup per
// row, folded into y past 32768 rows (row_of undoes it), which keeps every
// dimension under WebGPU's default maxComputeWorkgroupsPerDimension, 65535.
func matvecGroups(n uint32) [3]uint32 {
	if n <= 32768 {
		return [3]uint32{n, 1, 1}
	}
	return [3]uint32{32768, (n + 32767) / 32768, 1}
}
