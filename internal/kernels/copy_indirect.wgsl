// CopyIndirect's kernel: copies c.size bytes from src at byte c.src to dst
// at byte c.dst (multiples of 4; lower bits are ignored), reading the three
// from a Var when it runs. A grid-stride loop, so a fixed dispatch covers
// any size; words outside either buffer are skipped (the GPU cannot report
// them).

struct Range {
	src: u32,
	dst: u32,
	size: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> c: Range;

@compute @workgroup_size(64)
fn softgraph_copy_indirect(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
	let ns = arrayLength(&src);
	let nd = arrayLength(&dst);
	let s = c.src / 4u;
	let d = c.dst / 4u;
	if (s > ns || d > nd) {
		return;
	}
	let n = min(c.size / 4u, min(ns - s, nd - d));
	let stride = nw.x * 64u;
	for (var i = id.x; i < n; i += stride) {
		dst[d + i] = src[s + i];
	}
}
