// softmax: y[r][c] = exp(x[r][c] - max(x[r])) / sum_j exp(x[r][j] - max(x[r]))
// over rows×cols row-major f32. Subtracting the row max keeps exp from
// overflowing. One 256-invocation workgroup per row: each invocation strides
// over the row, then the workgroup reduces the max and the sum in workgroup
// memory. Dispatch RowGroups(rows).

struct Params {
	rows: u32,
	cols: u32,
	_pad0: u32,
	_pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> partial: array<f32, 256>;

@compute @workgroup_size(256)
fn softmax(
	@builtin(workgroup_id) wid: vec3<u32>,
	@builtin(num_workgroups) nwg: vec3<u32>,
	@builtin(local_invocation_index) lid: u32,
) {
	let row = wid.y * nwg.x + wid.x;
	// A workgroup past the last row sees an empty row, so every invocation
	// still reaches every barrier.
	let cols = select(0u, p.cols, row < p.rows);
	let base = row * p.cols;

	var m = -3.40282347e38;
	for (var c = lid; c < cols; c = c + 256u) {
		m = max(m, x[base + c]);
	}
	partial[lid] = m;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s = s >> 1u) {
		if (lid < s) {
			partial[lid] = max(partial[lid], partial[lid + s]);
		}
		workgroupBarrier();
	}
	let row_max = partial[0];
	workgroupBarrier();

	var total = 0.0;
	for (var c = lid; c < cols; c = c + 256u) {
		total = total + exp(x[base + c] - row_max);
	}
	partial[lid] = total;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s = s >> 1u) {
		if (lid < s) {
			partial[lid] = partial[lid] + partial[lid + s];
		}
		workgroupBarrier();
	}
	let inv = 1.0 / partial[0];

	for (var c = lid; c < cols; c = c + 256u) {
		y[base + c] = exp(x[base + c] - row_max) * inv;
	}
}
