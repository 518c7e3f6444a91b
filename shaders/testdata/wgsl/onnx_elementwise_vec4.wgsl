struct Uniforms { size: u32, bias: i32, stride: u32, _pad: u32, };
@group(0) @binding(0) var<storage, read> a: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<i32>>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
@compute @workgroup_size(16, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  for (var i = global_id.x; i < uniforms.size; i += uniforms.stride) {
    let v = a[i];
    out[i] = max(v * 2 + uniforms.bias, vec4(0)) - select(vec4(0), vec4(1), v < vec4(0));
  }
}