// layer_norm: one 256-invocation workgroup per row of a rows×cols
// row-major f32 matrix. With flag 1 the residual is added first, in place:
// x[r] = x[r] + res[r], written back to x (the residual stream), then
// y[r] = (x[r] − mean) / sqrt(var + eps) · gamma + beta — or, with flag 2,
// the RMS norm y[r] = x[r] / sqrt(mean(x²) + eps) · gamma (beta unread).
// Two passes over the row (the mean, then the centred variance), each
// reduced across the whole workgroup. Every invocation reads back only
// the elements it wrote. Dispatch RowGroups(rows).

struct Params {
	rows: u32,
	cols: u32,
	eps: f32,
	flags: u32,
}

@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<storage, read> res: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> beta: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

var<workgroup> red: array<f32, 256>;

fn reduce(lid: u32, v: f32) -> f32 {
	red[lid] = v;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s = s >> 1u) {
		if (lid < s) {
			red[lid] = red[lid] + red[lid + s];
		}
		workgroupBarrier();
	}
	let r = red[0];
	workgroupBarrier();
	return r;
}

@compute @workgroup_size(256)
fn layer_norm(
	@builtin(workgroup_id) wid: vec3<u32>,
	@builtin(num_workgroups) nwg: vec3<u32>,
	@builtin(local_invocation_index) lid: u32,
) {
	let row = wid.y * nwg.x + wid.x;
	// A workgroup past the last row sees an empty row.
	let cols = select(0u, p.cols, row < p.rows);
	let base = row * p.cols;
	let n = f32(max(cols, 1u));
	let rms = (p.flags & 2u) != 0u;
	var s = 0.0f;
	for (var c = lid; c < cols; c = c + 256u) {
		var v = x[base + c];
		if ((p.flags & 1u) != 0u) {
			v = v + res[base + c];
			x[base + c] = v;
		}
		s = s + v;
	}
	let mean = select(reduce(lid, s) / n, 0.0f, rms);
	var q = 0.0f;
	for (var c = lid; c < cols; c = c + 256u) {
		let v = x[base + c] - mean;
		q = q + v * v;
	}
	let inv = inverseSqrt(reduce(lid, q) / n + p.eps);
	for (var c = lid; c < cols; c = c + 256u) {
		var v = (x[base + c] - mean) * inv * gamma[c];
		if (!rms) {
			v = v + beta[c];
		}
		y[base + c] = v;
	}
}
