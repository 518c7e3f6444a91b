struct Settings {
  textureSize: f32,
}

@group(0) @binding(0) var <uniform> settings: Settings;
@group(0) @binding(1) var input: texture_storage_2d<rg32float, read>;
@group(0) @binding(2) var output: texture_storage_2d<rgba32float, write>;

@compute
@workgroup_size(1, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let permutation: f32 = f32((id.x + id.y) % 2) * -2 + 1;
  let value: f32 = textureLoad(input, id.xy).r;
  // +0.2 just for debugging, to allow me to see the height map better
  let transformed: f32 = 0.2 + permutation * value / (settings.textureSize * settings.textureSize);

  textureStore(output, id.xy, vec4f(transformed, transformed, transformed, 1.0));
}
