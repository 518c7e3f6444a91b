struct Light { @size(16) color: vec3f, @align(16) intensity: f32 }
struct Scene { count: u32, @align(16) lights: array<Light, 3>, @size(32) tail: vec2u, extra: u32 }
@group(2) @binding(0) var<uniform> scene: Scene;
@group(2) @binding(3) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1)
fn main() {
  for (var i = 0u; i < scene.count; i++) { o[i] = scene.lights[i].color.y * scene.lights[i].intensity; }
  o[3] = f32(scene.tail.y + scene.extra);
}