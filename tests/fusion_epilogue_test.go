package tests

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// epilogueMatmul is a tiled matrix multiply written as such kernels are:
// 16×16 workgroups, tiles in workgroup memory, barriers, a loop over K
// (not a multiple of the tile), row and column from the global id, and one
// guarded store at row * N + col.
const epilogueMatmul = `
const M = 64u;
const N = 48u;
const K = 40u;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
var<workgroup> ta: array<f32, 256>;
var<workgroup> tb: array<f32, 256>;
@compute @workgroup_size(16, 16)
fn matmul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
	let row = gid.y;
	let col = gid.x;
	var acc = 0.0;
	for (var t = 0u; t < K; t = t + 16u) {
		let ka = t + lid.x;
		let kb = t + lid.y;
		ta[lid.y * 16u + lid.x] = select(0.0, a[min(row, M - 1u) * K + min(ka, K - 1u)], ka < K);
		tb[lid.y * 16u + lid.x] = select(0.0, b[min(kb, K - 1u) * N + min(col, N - 1u)], kb < K);
		workgroupBarrier();
		for (var k = 0u; k < 16u; k = k + 1u) {
			acc = acc + ta[lid.y * 16u + k] * tb[k * 16u + lid.x];
		}
		workgroupBarrier();
	}
	if (row < M && col < N) {
		c[row * N + col] = acc;
	}
}
`

// The epilogue kernels: 8×8 workgroups over the same ids, each its own
// dispatch as a model written kernel by kernel has them.
const (
	epilogueBias = `
@group(0) @binding(0) var<storage, read> bias: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(8, 8)
fn add_bias(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= 48u || gid.y >= 64u) { return; }
	let i = gid.y * 48u + gid.x;
	y[i] = y[i] + bias[gid.x];
}
`
	epilogueGELU = `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(8, 8)
fn gelu(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= 48u || gid.y >= 64u) { return; }
	let i = gid.x + gid.y * 48u;
	let v = x[i];
	y[i] = 0.5 * v * (1.0 + tanh(0.7978846 * (v + 0.044715 * v * v * v)));
}
`
	epilogueResidual = `
@group(0) @binding(0) var<storage, read> r: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(8, 8)
fn residual(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= 48u || gid.y >= 64u) { return; }
	let i = gid.y * 48u + gid.x;
	y[i] = y[i] + r[i];
}
`
	// epilogueShifted reads the product one element over: not at the
	// producer's index.
	epilogueShifted = `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(8, 8)
fn shifted(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x >= 48u || gid.y >= 64u) { return; }
	let i = gid.y * 48u + gid.x;
	y[i] = x[(i + 1u) % 3072u] * 2.0;
}
`
)

func f32Words(rng *rand.Rand, n int) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = math.Float32bits(float32(rng.NormFloat64()))
	}
	return v
}

// TestEpilogueFusionFoldsBiasGELUAndResidualIntoTheMatmul: a tiled matmul
// followed by a bias add, a GELU and a residual add (8×8 workgroups, other
// spellings of the index) fuses into one dispatch that leaves every word
// as the four dispatches do; a kernel reading the product at another index
// stays a dispatch of its own, and still computes the plain values.
func TestEpilogueFusionFoldsBiasGELUAndResidualIntoTheMatmul(t *testing.T) {
	const m, n, k = 64, 48, 40
	d := gputest.Open(t, wgpu.Options{})
	gputest.RequireChainedFloatFusion(t, d)
	compile := func(src, entry string) *wgpu.Kernel {
		k, err := d.Kernel(src, entry)
		if err != nil {
			t.Fatalf("Kernel %s: %v", entry, err)
		}
		return k
	}
	mm := compile(epilogueMatmul, "matmul")
	bias := compile(epilogueBias, "add_bias")
	gelu := compile(epilogueGELU, "gelu")
	res := compile(epilogueResidual, "residual")
	shifted := compile(epilogueShifted, "shifted")
	rng := rand.New(rand.NewSource(3))
	init := [][]uint32{f32Words(rng, m*k), f32Words(rng, k*n), f32Words(rng, n), f32Words(rng, m*n), make([]uint32, m*n), make([]uint32, m*n), make([]uint32, m*n)}
	mk := func(s *recorder.Stream) []*recorder.Buffer {
		var bs []*recorder.Buffer
		for _, v := range init {
			bs = append(bs, gputest.UploadU32(t, s, v...))
		}
		return bs
	}
	grid := recorder.Groups(n/16, m/16, 1)
	fine := recorder.Groups(n/8, m/8, 1)
	g, _ := formsRun(t, d, mk, func(s *recorder.Stream, bs []*recorder.Buffer) error {
		a, b, bv, r, c, h := bs[0], bs[1], bs[2], bs[3], bs[4], bs[5]
		for _, l := range []struct {
			k    *wgpu.Kernel
			d    recorder.Dispatch
			args []recorder.Arg
		}{
			{mm, grid, []recorder.Arg{a, b, c}},
			{bias, fine, []recorder.Arg{bv, c}},
			{gelu, fine, []recorder.Arg{c, h}},
			{res, fine, []recorder.Arg{r, h}},
		} {
			if err := s.Launch(l.k, l.d, l.args...); err != nil {
				return err
			}
		}
		return nil
	})
	if got := g.Stats().Dispatches; got != 1 {
		t.Errorf("matmul + bias + gelu + residual fused to %d dispatches, want 1: %v", got, g)
	}
	g2, _ := formsRun(t, d, mk, func(s *recorder.Stream, bs []*recorder.Buffer) error {
		if err := s.Launch(mm, grid, bs[0], bs[1], bs[4]); err != nil {
			return err
		}
		return s.Launch(shifted, fine, bs[4], bs[6])
	})
	if got := g2.Stats().Dispatches; got != 2 || !strings.Contains(g2.String(), "reads c at other indices") && !strings.Contains(g2.String(), "other indices than its own") {
		t.Errorf("a read of the product at another index must stay unfused, with the reason: %d dispatches, %v", got, g2)
	}
}
