// axpy: y[i] = a * x[i] + y[i] for i < n (y is updated in place).
// Dispatch ElementwiseGroups(n).

struct Params {
	n: u32,
	a: f32,
	_pad0: u32,
	_pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256)
fn axpy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.y * nwg.x * 256u + gid.x;
	if (i < p.n) {
		y[i] = p.a * x[i] + y[i];
	}
}
