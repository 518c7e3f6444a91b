struct Array {
	data: array<f32>
};

struct ArrayVector {
	data: array<vec4<f32>>
};

@group(0) @binding(0)
var<storage, read> input_0: ArrayVector;

@group(0) @binding(1)
var<storage, read_write> output_0: ArrayVector;

@group(0) @binding(2)
var<storage, read_write> output_1: Array;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
	let gidx = global_id.x;
	if (gidx < 10u) {
		let vec_in = input_0.data[gidx];
		output_0.data[gidx] = max(vec_in, vec4<f32>(0.0, 0.0, 0.0, 0.0)) + min(vec_in, vec4<f32>(0.0)) * vec4<f32>(0.01);
		output_1.data[gidx] = dot(vec_in, vec4<f32>(1.0));
	}
}