// Clears inside an If or While body (see control_copy.wgsl).

struct Words {
	src: u32,
	dst: u32,
	words: u32,
	pad: u32,
}

@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@group(0) @binding(1) var<uniform> c: Words;

@compute @workgroup_size(64)
fn softgraph_clear(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x + id.y * 65535u * 64u;
	if (i < c.words) {
		dst[c.dst + i] = 0u;
	}
}
