struct Light {
  position: vec3<f32>,
  _pad0: f32,
  color: vec3<f32>,
  intensity: f32,
}
struct Inner { v: vec2<u32>, k: array<vec4<u32>, 2> }
struct Mid { inner: array<Inner, 2>, tag: u32 }
struct Scene {
  view: mat4x4f,
  lights: array<Light, 3>,
  count: u32,
  _pad1: u32,
  _pad2: u32,
  _pad3: u32,
  mid: Mid,
}
@group(0) @binding(0) var<uniform> scene: Scene;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(3)
fn main(@builtin(local_invocation_index) i: u32) {
  let l = scene.lights[i];
  let p = scene.view * vec4f(l.position, 1.0);
  let j = i % 2u;
  let inner = scene.mid.inner[j];
  o[i * 4u] = p.x + p.y + p.z + p.w;
  o[i * 4u + 1u] = dot(l.color, vec3f(1.0)) * l.intensity;
  o[i * 4u + 2u] = f32(scene.count + scene.mid.tag);
  o[i * 4u + 3u] = f32(inner.v.y + inner.k[j].w + inner.k[1u - j][i]);
}