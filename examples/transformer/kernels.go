package main

import (
	"fmt"

	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/wgpu"
)

// The decoder's own WGSL is the embedding gather; every other kernel is a
// shipped one from package shaders. Every module is written so that the
// compiler bundled with wgpu-native (naga v22) accepts it as written,
// because the hand-written path compiles the same text through cogentcore
// without softgraph's front end: no `override`, every integer literal
// suffixed, no integer division by a value known only at run time, and no
// early return before a barrier.
//
// Every per-token value lives in one uniform, Step (the position the token
// is at and the attention length, pos+1); every size lives in a per-kernel
// uniform fixed for the whole run. Kernels are labelled after the step of
// the model they compute, which is what ProfileReplay reports.

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

// kernel is one compiled entry point under the name the profile reports
// (its label), and the text it was compiled from (the hand-written path
// compiles the same text itself). The projections are one shipped kernel,
// shaders.MatVec, compiled for each role's shape (MatVecShader.For; on
// OpenGL the shared source, compileKernels says why), each with its own
// label; attn_proj is shaders.AttnProj, MatVec with attention's combine
// pass fused in as its input. The LM head is compiled per vocabulary
// shard.
type kernel struct {
	name, entry, src string
	k                *wgpu.Kernel
}

// kernels is every entry point of the decoder.
type kernels struct {
	embed, qkv, attnSplit, attnProj, mlpFC, mlpProj, argmaxPartial, argmaxFinal *kernel
	lmHeads                                                                     []*kernel // one per vocabulary shard
}

func (ks *kernels) all() []*kernel {
	return append([]*kernel{ks.embed, ks.qkv, ks.attnSplit, ks.attnProj, ks.mlpFC, ks.mlpProj, ks.argmaxPartial, ks.argmaxFinal}, ks.lmHeads...)
}

// compileKernels compiles the decoder's kernels for c on dev, the LM head
// once per shard of shards; c.F16 picks the projections over float16
// weights (shaders.MatVecF16).
func compileKernels(dev *wgpu.Device, c config, shards []vocabShard) (*kernels, error) {
	mv, ap := shaders.MatVec, shaders.AttnProj
	if c.F16 {
		mv, ap = shaders.MatVecF16, shaders.AttnProjF16
	}
	// Each projection is compiled for its op, except on OpenGL: from a cold
	// shader cache, llvmpipe's GL took 145 s for the quick model's test
	// with the five compiled per op, 110 s with the shared source compiled
	// once (lavapipe's Vulkan: 2 s either way).
	forOp := dev.Info().Backend != wgpu.BackendGL
	var err error
	proj := func(name string, op shaders.MatVecOp) *kernel {
		sh := mv.Shader
		if forOp && err == nil {
			sh, err = mv.For(op)
		}
		return &kernel{name: name, entry: sh.Entry, src: sh.Source}
	}
	shipped := func(sh shaders.Shader) *kernel { return &kernel{name: sh.Entry, entry: sh.Entry, src: sh.Source} }
	apSh := ap.Shader
	if forOp {
		if apSh, err = ap.For(c.attnProjOp()); err != nil {
			return nil, err
		}
	}
	ks := &kernels{
		embed:         &kernel{name: "embed", entry: "embed", src: embedWGSL},
		qkv:           proj("qkv", c.qkvOp()),
		attnSplit:     shipped(shaders.AttnSplit.Shader),
		attnProj:      &kernel{name: "attn_proj", entry: apSh.Entry, src: apSh.Source},
		mlpFC:         proj("mlp_fc_gelu", c.mlpFCOp()),
		mlpProj:       proj("mlp_proj", c.mlpProjOp()),
		argmaxPartial: shipped(shaders.ArgmaxPartial.Shader),
		argmaxFinal:   shipped(shaders.ArgmaxFinal.Shader),
	}
	for _, sh := range shards {
		ks.lmHeads = append(ks.lmHeads, proj("lm_head", c.lmHeadOp(sh)))
	}
	if err != nil {
		return nil, err
	}
	for _, k := range ks.all() {
		if k.k, err = dev.Kernel(k.src, k.entry, wgpu.WithLabel(k.name)); err != nil {
			return nil, fmt.Errorf("compile %s: %w", k.name, err)
		}
	}
	return ks, nil
}
