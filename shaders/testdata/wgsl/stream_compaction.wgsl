var<workgroup> n: atomic<u32>;
@group(0) @binding(0) var<storage> xs: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read_write> keep: array<u32>;
@group(0) @binding(2) var<storage, read_write> count: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
  if i == 0 { atomicStore(&n, 0); }
  workgroupBarrier();
  let x = xs[i];
  if all(x > vec4(-5)) && any(x == vec4<i32>(0)) {
    let slot = atomicAdd(&n, 1);
    keep[slot] = i;
  }
  workgroupBarrier();
  if i == 0 { count = atomicLoad(&n); }
}