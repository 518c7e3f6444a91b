@group(0) @binding(0) var dst: texture_storage_2d<r32uint, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let dims = textureDimensions(dst);
  if g.x >= dims.x || g.y >= dims.y { return; }
  textureStore(dst, g.xy, vec4(g.x * 100 + g.y, 0, 0, 1));
}