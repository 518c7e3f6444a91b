diagnostic(off, derivative_uniformity);
const N = 8;
const_assert N % 4 == 0;
@group(0) @binding(0) var<storage, read_write> out: array<u32, N>;
@must_use fn sq(x: u32) -> u32 { return x * x; }
@diagnostic(warning, derivative_uniformity) @compute @workgroup_size(N)
fn main(@builtin(local_invocation_index) i: u32) {
  const K: u32 = 3;
  const K2 = K * 2 + 1;
  const_assert K2 == 7;
  var<function> acc: array<u32, K2>;
  acc[i % K2] = sq(i) + K2;
  out[i] = acc[i % K2];
}