struct Particle {
  position : vec3<f32>,
  life : f32,
  velocity : vec3<f32>,
  @size(4) _pad : f32,
  @align(16) color : vec4<f32>,
}
@group(1) @binding(0) var<storage, read_write> particles : array<Particle>;
@group(1) @binding(1) var<uniform> dt : f32;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id : vec3u) {
  let i = id.x;
  if (i >= arrayLength(&particles)) { return; }
  var p = particles[i];
  p.velocity.y -= 9.5 * dt;
  p.position += p.velocity * dt;
  p.life -= dt;
  if (p.life <= 0.0) {
    p = Particle(vec3(0.0), 1.0, vec3(0.0, 1.0, 0.0), 0.0, p.color);
  }
  p.color.a = p.life;
  particles[i] = p;
}