@group(0) @binding(0) var<storage, read> m: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read_write> v: array<vec4f>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let k = mat2x3(1, 2, 3, 4, 5, 6);
  let e = k * vec2(1.0, 1.0);
  v[g.x] = m[g.x] * v[g.x] + vec4(e, 1);
}