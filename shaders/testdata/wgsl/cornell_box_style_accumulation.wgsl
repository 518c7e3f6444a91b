@group(0) @binding(0) var accum: texture_storage_2d<rgba32float, write>;
var<private> seed: u32;
fn rand() -> f32 {
  seed = seed * 747796405u + 2891336453u;
  let word = ((seed >> ((seed >> 28) + 4)) ^ seed) * 277803737u;
  return f32((word >> 22) ^ word) / 4294967296.0;
}
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  seed = g.y * 1000 + g.x;
  var c = vec3(0.0);
  for (var i = 0; i < 4; i++) { c += vec3(rand(), rand(), rand()); }
  textureStore(accum, vec2<i32>(g.xy), vec4(floor(c * 16), 1.0));
}