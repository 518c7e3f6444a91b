override EPS: f32 = 0.01;
const G = 1.0;
struct Body { pos: vec4f, vel: vec4f }
@group(0) @binding(0) var<storage, read> bodies: array<Body>;
@group(0) @binding(1) var<storage, read_write> accel: array<vec4f>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let n = arrayLength(&bodies);
  let i = gid.x;
  if i >= n { return; }
  var a = vec3f();
  for (var j = 0u; j < n; j++) {
    if i == j { continue; }
    let r = bodies[j].pos.xyz - bodies[i].pos.xyz;
    let inv = inverseSqrt(dot(r, r) + EPS);
    a += G * bodies[j].pos.w * r * inv * inv * inv;
  }
  accel[i] = vec4(a, 0);
}