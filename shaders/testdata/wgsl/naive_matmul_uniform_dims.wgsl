struct Dims { M: u32, N: u32, K: u32, }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage> A: array<f32>;
@group(0) @binding(2) var<storage> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;
@compute @workgroup_size(8, 8)
fn matmul(@builtin(global_invocation_id) g: vec3u) {
  let row = g.y; let col = g.x;
  if row >= dims.M || col >= dims.N { return; }
  var acc = 0.0;
  for (var k = 0u; k < dims.K; k++) { acc += A[row * dims.K + k] * B[k * dims.N + col]; }
  C[row * dims.N + col] = acc;
}