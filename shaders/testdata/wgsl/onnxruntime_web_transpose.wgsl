struct Uniforms { output_size:u32, output_shape:array<vec4<u32>, 2>, output_strides:array<vec4<u32>, 2>, input_strides:array<vec4<u32>, 2> };
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

fn o2i_output(offset: u32) -> array<u32, 5> {
  var indices: array<u32, 5>;
  var current = offset;
  for (var i = 0; i < 4; i++) {
    let dimStride = uniforms.output_strides[i / 4][i % 4];
    let q = current / dimStride;
    let r = current % dimStride;
    indices[i] = q;
    current = r;
  }
  indices[4] = current;
  return indices;
}
fn get_input_offset(indices: ptr<function, array<u32, 5>>) -> u32 {
  var off = 0u;
  for (var i = 0u; i < 5u; i++) {
    off += (*indices)[i] * uniforms.input_strides[i / 4u][i % 4u];
  }
  return off;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
        @builtin(workgroup_id) workgroup_id : vec3<u32>,
        @builtin(local_invocation_index) local_idx : u32,
        @builtin(local_invocation_id) local_id : vec3<u32>,
        @builtin(num_workgroups) num_workgroups : vec3<u32>) {
  let global_idx = (workgroup_id.z * num_workgroups[0] * num_workgroups[1] +
        workgroup_id.y * num_workgroups[0] + workgroup_id.x) * 64u + local_idx;
  if (global_idx >= uniforms.output_size) { return; }
  var indices = o2i_output(global_idx);
  output[global_idx] = a[get_input_offset(&indices)];
}