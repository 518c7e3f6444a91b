struct Particle { pos: vec4f, vel: vec4f }
struct Particles { particles: array<Particle> }
struct SimParams { delta: f32, softening: f32 }
@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<storage, read> particlesA: Particles;
@group(0) @binding(2) var<storage, read_write> particlesB: Particles;
const kWorkgroupSize = 64;
var<workgroup> tile: array<vec4<f32>, kWorkgroupSize>;
override kNumBodies: u32;
@compute @workgroup_size(kWorkgroupSize)
fn cs_main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let idx = gid.x;
  var pos = particlesA.particles[idx].pos;
  var vel = particlesA.particles[idx].vel;
  var force = vec3(0.0);
  let numTiles = kNumBodies / u32(kWorkgroupSize);
  for (var t = 0u; t < numTiles; t++) {
    tile[lid] = particlesA.particles[t * u32(kWorkgroupSize) + lid].pos;
    workgroupBarrier();
    for (var j = 0; j < kWorkgroupSize; j++) {
      let d = tile[j].xyz - pos.xyz;
      let distSq = max(dot(d, d), params.softening * params.softening);
      let invDist = inverseSqrt(distSq);
      force += d * (tile[j].w * invDist * invDist * invDist);
    }
    workgroupBarrier();
  }
  vel += vec4(force * params.delta, 0.0);
  pos += vel * params.delta;
  particlesB.particles[idx] = Particle(pos, vel);
}