// bias_gelu: y[r][c] = gelu(x[r][c] + bias[c]) over rows×cols row-major f32,
// bias of cols elements, with the tanh approximation
//   gelu(v) = 0.5 * v * (1 + tanh(sqrt(2/pi) * (v + 0.044715 * v^3))).
// The tanh argument is clamped to [-10, 10], where tanh is already ±1 in f32:
// some drivers compute tanh through exp and return NaN for large arguments.
// The clamp compares bits, not floats, so the kernel computes the same bits
// fused as alone (docs/fusion.md).
// One invocation per element: dispatch ElementwiseGroups(rows*cols).

struct Params {
	rows: u32,
	cols: u32,
	_pad0: u32,
	_pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> bias: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const sqrt_2_over_pi = 0.7978845608028654;

@compute @workgroup_size(256)
fn bias_gelu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.y * nwg.x * 256u + gid.x;
	if (i < p.rows * p.cols) {
		let v = x[i] + bias[i % p.cols];
		let a = sqrt_2_over_pi * (v + 0.044715 * v * v * v);
		// |a| > 10 (or NaN) by its bits: an integer compare computes the
		// same in every context, where a clamp of a NaN is undefined.
		let big = (bitcast<u32>(a) & 0x7fffffffu) > 0x41200000u;
		let t = select(a, bitcast<f32>((bitcast<u32>(a) & 0x80000000u) | 0x41200000u), big);
		y[i] = 0.5 * v * (1.0 + tanh(t));
	}
}
