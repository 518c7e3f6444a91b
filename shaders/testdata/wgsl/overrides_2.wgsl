@id(0) override useSquare: bool = false;
override scale: f32 = 2.0;
@id(12) override offset: i32;
override total = offset * 2 + 1;
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  var x = v[g.x];
  if useSquare { x = x * x; }
  v[g.x] = x * scale + f32(total);
}