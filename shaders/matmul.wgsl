// matmul: C[m×n] = A[m×k] · B[k×n], all row-major f32.
// Each 16×16 workgroup computes one 16×16 tile of C, one element per
// invocation, walking k in 16-wide steps through tiles of A and B staged in
// workgroup memory. Tile loads past the edges of A or B read as zero and
// invocations past the edges of C write nothing, so any m, n, k work
// (m = 1 included). Dispatch MatMulGroups(m, n).

struct Params {
	m: u32,
	n: u32,
	k: u32,
	_pad0: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> tile_a: array<array<f32, 16>, 16>;
var<workgroup> tile_b: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16)
fn matmul(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
	let row = wid.y * 16u + lid.y;
	let col = wid.x * 16u + lid.x;
	let steps = (p.k + 15u) / 16u;
	var acc = 0.0;
	for (var t = 0u; t < steps; t = t + 1u) {
		let ka = t * 16u + lid.x;
		var va = 0.0;
		if (row < p.m && ka < p.k) {
			va = a[row * p.k + ka];
		}
		tile_a[lid.y][lid.x] = va;
		let kb = t * 16u + lid.y;
		var vb = 0.0;
		if (kb < p.k && col < p.n) {
			vb = b[kb * p.n + col];
		}
		tile_b[lid.y][lid.x] = vb;
		workgroupBarrier();
		for (var j = 0u; j < 16u; j = j + 1u) {
			acc = acc + tile_a[lid.y][j] * tile_b[j][lid.x];
		}
		workgroupBarrier();
	}
	if (row < p.m && col < p.n) {
		c[row * p.n + col] = acc;
	}
}
