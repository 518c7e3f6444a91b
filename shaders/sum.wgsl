// sum: one level of a sum reduction. Workgroup w writes
// out[w] = in[w*256] + ... + in[min(n, (w+1)*256) - 1],
// reducing its 256 elements as a tree in workgroup memory. Workgroup 0
// always writes, so n = 0 gives out[0] = 0.
// Dispatch ElementwiseGroups(n); it writes SumGroups(n) partial sums, and
// launching it again on them (n = SumGroups(n)) until one is left finishes
// the reduction.

struct Params {
	n: u32,
	_pad0: u32,
	_pad1: u32,
	_pad2: u32,
}

@group(0) @binding(0) var<storage, read> in: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> partial: array<f32, 256>;

@compute @workgroup_size(256)
fn sum(
	@builtin(workgroup_id) wid: vec3<u32>,
	@builtin(num_workgroups) nwg: vec3<u32>,
	@builtin(local_invocation_index) lid: u32,
) {
	let w = wid.y * nwg.x + wid.x;
	let i = w * 256u + lid;
	var v = 0.0;
	if (i < p.n) {
		v = in[i];
	}
	partial[lid] = v;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s = s >> 1u) {
		if (lid < s) {
			partial[lid] = partial[lid] + partial[lid + s];
		}
		workgroupBarrier();
	}
	if (lid == 0u && (w == 0u || w * 256u < p.n)) {
		out[w] = partial[0];
	}
}
