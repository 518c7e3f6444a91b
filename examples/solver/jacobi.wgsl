// One Jacobi sweep of Laplace's equation on an n×n grid with fixed
// boundary: v = the mean of u's four neighbours inside, u on the edge;
// diff = |v - u| per cell, for the residual.
struct P {
	n: u32,
}

@group(0) @binding(0) var<storage, read> u: array<f32>;
@group(0) @binding(1) var<storage, read_write> v: array<f32>;
@group(0) @binding(2) var<storage, read_write> diff: array<f32>;
@group(0) @binding(3) var<uniform> p: P;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let n = p.n;
	let x = id.x;
	let y = id.y;
	if (x >= n || y >= n) {
		return;
	}
	let i = y * n + x;
	if (x == 0u || y == 0u || x == n - 1u || y == n - 1u) {
		v[i] = u[i];
		diff[i] = 0.0;
		return;
	}
	let s = (u[i - 1u] + u[i + 1u]) + (u[i - n] + u[i + n]);
	let r = s * 0.25;
	v[i] = r;
	diff[i] = abs(r - u[i]);
}
