var<workgroup> tile: array<array<f32, 8 + 1>, 8>; // padded
@group(0) @binding(0) var<storage> inp: array<f32>;
@group(0) @binding(1) var<storage, read_write> outp: array<f32>;
const W = 24u; const H = 16u;
@compute @workgroup_size(8, 8, 1)
fn transpose(@builtin(local_invocation_id) l: vec3u, @builtin(workgroup_id) wg: vec3u) {
  tile[l.y][l.x] = inp[(wg.y * 8 + l.y) * W + wg.x * 8 + l.x];
  workgroupBarrier();
  outp[(wg.x * 8 + l.y) * H + wg.y * 8 + l.x] = tile[l.x][l.y];
}