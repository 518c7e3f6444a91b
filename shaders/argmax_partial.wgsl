// argmax_partial: the first pass of a parallel argmax. Workgroup g takes
// elements [1024g, 1024g + 1024) of x's first n and writes to part[2g] the
// bits of the largest and to part[2g + 1] its index: the lowest index on a
// tie, and NaN never wins (a comparison with NaN is false). A workgroup
// with no element (or only NaN) writes -Inf and index 0xffffffff, which
// any element beats: the first non-NaN element is taken whatever its
// value (a row of -Inf, a masked one, still has an argmax). argmax_final
// reduces the partials.

struct Params {
	n: u32,
	_pad0: u32,
	_pad1: u32,
	_pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> part: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> bv: array<f32, 256>;
var<workgroup> bi: array<u32, 256>;

@compute @workgroup_size(256)
fn argmax_partial(
	@builtin(workgroup_id) wid: vec3<u32>,
	@builtin(num_workgroups) nwg: vec3<u32>,
	@builtin(local_invocation_index) lid: u32,
) {
	let g = wid.y * nwg.x + wid.x;
	let neg_inf = bitcast<f32>(0xff800000u);
	var m = neg_inf;
	var idx = 4294967295u;
	// Four loads in flight, compared in increasing index order.
	let i0 = g * 1024u + lid;
	var v: array<f32, 4>;
	for (var t = 0u; t < 4u; t = t + 1u) {
		let i = i0 + 256u * t;
		v[t] = select(neg_inf, x[min(i, max(p.n, 1u) - 1u)], i < p.n);
	}
	for (var t = 0u; t < 4u; t = t + 1u) {
		let i = i0 + 256u * t;
		if (i < p.n && (v[t] > m || (idx == 4294967295u && v[t] == v[t]))) {
			m = v[t];
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
		part[2u * g] = bitcast<u32>(bv[0]);
		part[2u * g + 1u] = bi[0];
	}
}
