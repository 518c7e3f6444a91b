@group(0) @binding(0) var smp: sampler;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(1) @binding(0) var<storage, read_write> out: array<vec4f>;
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let uv = (vec2f(g.xy) + 0.5) / vec2f(textureDimensions(tex, 0));
  out[g.y * 4 + g.x] = textureSampleLevel(tex, smp, uv, 0);
}