override WG: u32 = 64;
override HALF = WG / 2u;
override SCALE: f32 = 1.5;
var<workgroup> tile: array<f32, HALF * 2u>;
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) li: u32) {
  tile[li] = v[li] * SCALE;
  workgroupBarrier();
  if li < HALF { v[li] = tile[li] + tile[li + HALF]; }
}