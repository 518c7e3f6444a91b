// bias_relu: y[r][c] = max(x[r][c] + bias[c], 0) over rows×cols row-major
// f32, bias of cols elements. One invocation per element: dispatch
// ElementwiseGroups(rows*cols). The max is taken by the sign bit (negative
// values and -0 give 0, a NaN stays NaN), not by a float max, whose NaN
// result a compiler may pick differently in another context: so the kernel
// computes the same bits fused as alone (docs/fusion.md).

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

@compute @workgroup_size(256)
fn bias_relu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let i = gid.y * nwg.x * 256u + gid.x;
	if (i < p.rows * p.cols) {
		let v = x[i] + bias[i % p.cols];
		y[i] = select(v, 0.0, (bitcast<u32>(v) & 0x80000000u) != 0u && (bitcast<u32>(v) & 0x7fffffffu) <= 0x7f800000u);
	}
}
