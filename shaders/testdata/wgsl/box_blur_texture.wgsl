@group(0) @binding(0) var img: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(4, 4)
fn blur(@builtin(global_invocation_id) g: vec3u) {
  let size = vec2i(textureDimensions(img));
  let p = vec2i(g.xy);
  if any(p >= size) { return; }
  var acc = vec4(0.0);
  for (var dy = -1; dy <= 1; dy++) {
    for (var dx = -1; dx <= 1; dx++) {
      let q = clamp(p + vec2(dx, dy), vec2(0), size - 1);
      acc += textureLoad(img, q, 0);
    }
  }
  out[u32(p.y * size.x + p.x)] = acc.r; // a sum of small integers: exact
}