// argmax_final: the second pass of the parallel argmax. One workgroup
// reduces the groups partials argmax_partial wrote and writes the winning
// index to out[out_offset]: the largest value, the lowest index on a tie
// (an empty partial, -Inf and index 0xffffffff, loses every tie).

struct Params {
	groups: u32,
	out_offset: u32,
	_pad0: u32,
	_pad1: u32,
}

@group(0) @binding(0) var<storage, read> part: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> bv: array<f32, 256>;
var<workgroup> bi: array<u32, 256>;

@compute @workgroup_size(256)
fn argmax_final(@builtin(local_invocation_index) lid: u32) {
	var m = bitcast<f32>(0xff800000u);
	var idx = 4294967295u;
	for (var g = lid; g < p.groups; g = g + 256u) {
		let v = bitcast<f32>(part[2u * g]);
		let i = part[2u * g + 1u];
		if (v > m || (v == m && i < idx)) {
			m = v;
			idx = i;
		}
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
		out[p.out_offset] = bi[0];
	}
}
