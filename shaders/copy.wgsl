// copy: dst[dst_offset + i] = src[src_offset + i] for i < n, as 32-bit
// words, bit for bit (f32, u32, i32 alike). A buffer-to-buffer copy that a
// graph can record: a row of an embedding table into an input, say.
// Dispatch ElementwiseGroups(n): 256 invocations per workgroup, workgroups
// folded into x and y past the per-dimension limit.

struct Params {
	n: u32,
	src_offset: u32,
	dst_offset: u32,
	_pad0: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.y * nwg.x * 256u + gid.x;
	if (i < p.n) {
		dst[p.dst_offset + i] = src[p.src_offset + i];
	}
}
