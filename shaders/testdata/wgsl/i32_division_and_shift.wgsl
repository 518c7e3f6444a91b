@group(0) @binding(0) var<storage, read_write> v: array<i32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let x = v[g.x];
  v[g.x] = (x / 3) * 1000 + (x % 3) * 100 + (x >> 1);
}