@group(0) @binding(0) var<storage, read_write> u: array<u32>;
@group(0) @binding(1) var<storage, read_write> f: array<f32>;
fn twice(x: u32) -> u32 { return x * 2; }
fn zero() -> f32 { return 0; }
fn pick(c: bool) -> u32 { if c { return 1; } return 0; }
@compute @workgroup_size(1)
fn main() {
  u[0] = select(10, 20, u[0] > 5);
  u[1] = min(u[1], 3);
  u[2] = clamp(u[2], 4, 8);
  u[3] = twice(21);
  u[4] = max(vec2u(1), vec2(5, 2)).y + pick(true);
  let v: vec3<u32> = vec3(7, 8, 9);
  u[5] = v.z;
  f[0] = max(f[0], 0) + zero();
  f[1] = mix(0, 10, f[1]);
  f[2] = select(-1, 1, f[2] > 0);
  let w: f32 = 3;
  f[3] = pow(w, 2) + step(0, f[3]);
}