// Copies and clears inside an If or While body run as these kernels,
// dispatched indirectly from the gate buffer, so they are skipped with the
// body (a native copy or clear command cannot be skipped on the GPU).

struct Words {
	src: u32,   // first word of the source (copy)
	dst: u32,   // first word of the destination
	words: u32, // how many words
	pad: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> c: Words;

@compute @workgroup_size(64)
fn softgraph_copy(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x + id.y * 65535u * 64u;
	if (i < c.words) {
		dst[c.dst + i] = src[c.src + i];
	}
}
