// The residual of the last sweep: the largest |v - u| over the grid,
// reduced by one workgroup. It decides whether the solve goes on:
// state[0] = residual > tol, and counts itself: state[1] += 1;
// state[2] holds the residual's bits.
struct P {
	count: u32,
	tol: f32,
}

@group(0) @binding(0) var<storage, read> diff: array<f32>;
@group(0) @binding(1) var<storage, read_write> state: array<u32>;
@group(0) @binding(2) var<uniform> p: P;

var<workgroup> part: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32) {
	var m = 0.0;
	for (var i = li; i < p.count; i = i + 256u) {
		m = max(m, diff[i]);
	}
	part[li] = m;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s = s >> 1u) {
		if (li < s) {
			part[li] = max(part[li], part[li + s]);
		}
		workgroupBarrier();
	}
	if (li == 0u) {
		state[0] = select(0u, 1u, part[0] > p.tol);
		state[1] = state[1] + 1u;
		state[2] = bitcast<u32>(part[0]);
	}
}
