alias F = f32;
struct Params { a: F, n: u32, }
override WG = 32;
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage> x: array<F>;
@group(0) @binding(2) var<storage, read_write> y: array<F>;
@compute @workgroup_size(WG)
fn saxpy(@builtin(global_invocation_id) id: vec3<u32>) {
  if id.x < p.n { y[id.x] = p.a * x[id.x] + y[id.x]; }
}