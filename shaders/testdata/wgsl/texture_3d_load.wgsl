@group(0) @binding(0) var vol: texture_3d<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(2, 2, 2)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let d = textureDimensions(vol);
  out[(g.z * d.y + g.y) * d.x + g.x] = textureLoad(vol, g, 0).x + 1;
}