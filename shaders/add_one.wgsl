// add_one: dst[i] = src[i] + 1 for i < n.
// Dispatch ElementwiseGroups(n): 256 invocations per workgroup, workgroups
// folded into x and y past the per-dimension limit.

struct Params {
	n: u32,
	_pad0: u32,
	_pad1: u32,
	_pad2: u32,
}

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256)
fn add_one(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.y * nwg.x * 256u + gid.x;
	if (i < p.n) {
		dst[i] = src[i] + 1.0;
	}
}
