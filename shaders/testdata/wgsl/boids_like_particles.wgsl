struct Particle { pos: vec2<f32>, vel: vec2<f32>, }
struct Particles { count: u32, items: array<Particle>, }
struct Sim { dt: f32, bound: f32 }
@group(0) @binding(0) var<uniform> sim: Sim;
@group(0) @binding(1) var<storage, read_write> ps: Particles;
@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if i >= ps.count { return; }
  var p = ps.items[i];
  p.pos += p.vel * sim.dt;
  if abs(p.pos.x) > sim.bound { p.vel.x = -p.vel.x; }
  if abs(p.pos.y) > sim.bound { p.vel.y = -p.vel.y; }
  p.pos = clamp(p.pos, vec2(-sim.bound), vec2(sim.bound));
  ps.items[i] = p;
}