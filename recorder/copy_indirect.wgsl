// CopyIndirect's kernel: copies c.words 32-bit words from src at word c.src
// to dst at word c.dst, reading the three from a Var when it runs. A
// grid-stride loop, so a fixed dispatch covers any count; words outside
// either buffer are skipped (the GPU cannot report them).

struct Words {
	src: u32,
	dst: u32,
	words: u32,
	pad: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> c: Words;

@compute @workgroup_size(64)
fn softgraph_copy_indirect(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
	let ns = arrayLength(&src);
	let nd = arrayLength(&dst);
	if (c.src > ns || c.dst > nd) {
		return;
	}
	let n = min(c.words, min(ns - c.src, nd - c.dst));
	let stride = nw.x * 64u;
	for (var i = id.x; i < n; i += stride) {
		dst[c.dst + i] = src[c.src + i];
	}
}
