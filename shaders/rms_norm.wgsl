// rms_norm: y[r][c] = x[r][c] / sqrt(mean_j(x[r][j]^2) + eps) * w[c]
// over rows×cols row-major f32, w of cols elements. One 256-invocation
// workgroup per row reduces the sum of squares in workgroup memory.
// Dispatch RowGroups(rows).

struct Params {
	rows: u32,
	cols: u32,
	eps: f32,
	_pad0: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> partial: array<f32, 256>;

@compute @workgroup_size(256)
fn rms_norm(
	@builtin(workgroup_id) wid: vec3<u32>,
	@builtin(num_workgroups) nwg: vec3<u32>,
	@builtin(local_invocation_index) lid: u32,
) {
	let row = wid.y * nwg.x + wid.x;
	// A workgroup past the last row sees an empty row, so every invocation
	// still reaches every barrier.
	let cols = select(0u, p.cols, row < p.rows);
	let base = row * p.cols;

	var sq = 0.0;
	for (var c = lid; c < cols; c = c + 256u) {
		let v = x[base + c];
		sq = sq + v * v;
	}
	partial[lid] = sq;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s = s >> 1u) {
		if (lid < s) {
			partial[lid] = partial[lid] + partial[lid + s];
		}
		workgroupBarrier();
	}
	let inv = inverseSqrt(partial[0] / f32(max(cols, 1u)) + p.eps);

	for (var c = lid; c < cols; c = c + 256u) {
		y[base + c] = x[base + c] * inv * w[c];
	}
}
