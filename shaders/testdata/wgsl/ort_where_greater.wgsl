@group(0) @binding(0) var<storage, read> c_data: array<u32>;
@group(0) @binding(1) var<storage, read> a_data: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b_data: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> bool_output: array<u32>;
struct Uniforms { vec_size:u32, c_cols:u32 };
@group(0) @binding(5) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64, 1, 1)
fn where_main(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.vec_size) { return; }
  output[global_idx] = select(b_data[global_idx], a_data[global_idx], vec4<bool>(bool(c_data[global_idx] & 0xFFu), bool(c_data[global_idx] & 0xFF00u), bool(c_data[global_idx] & 0xFF0000u), bool(c_data[global_idx] & 0xFF000000u)));
}

@compute @workgroup_size(64, 1, 1)
fn where_broadcast(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.vec_size) { return; }
  let offset_c0 = (global_idx * 4u + 0u) % uniforms.c_cols;
  let index_c0 = offset_c0 / 4u;
  let component_c0 = offset_c0 % 4u;
  let offset_c1 = (global_idx * 4u + 1u) % uniforms.c_cols;
  let index_c1 = offset_c1 / 4u;
  let component_c1 = offset_c1 % 4u;
  let offset_c2 = (global_idx * 4u + 2u) % uniforms.c_cols;
  let index_c2 = offset_c2 / 4u;
  let component_c2 = offset_c2 % 4u;
  let offset_c3 = (global_idx * 4u + 3u) % uniforms.c_cols;
  let index_c3 = offset_c3 / 4u;
  let component_c3 = offset_c3 % 4u;
  output[global_idx][0] = select(b_data[0][0], a_data[global_idx][0], bool(c_data[index_c0] & (0xffu << (component_c0 * 8))));
  output[global_idx][1] = select(b_data[0][0], a_data[global_idx][1], bool(c_data[index_c1] & (0xffu << (component_c1 * 8))));
  output[global_idx][2] = select(b_data[0][0], a_data[global_idx][2], bool(c_data[index_c2] & (0xffu << (component_c2 * 8))));
  output[global_idx][3] = select(b_data[0][0], a_data[global_idx][3], bool(c_data[index_c3] & (0xffu << (component_c3 * 8))));
}

@compute @workgroup_size(64, 1, 1)
fn greater_main(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.vec_size) { return; }
  bool_output[global_idx] = dot(vec4<u32>(0x1, 0x100, 0x10000, 0x1000000), vec4<u32>(a_data[global_idx] > b_data[global_idx]));
}
