override BLOCK: u32 = 128;
var<workgroup> partial: array<u32, BLOCK>;
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;
@compute @workgroup_size(BLOCK, 1, 1)
fn reduce(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u) {
  partial[lid.x] = input[wid.x * BLOCK + lid.x];
  workgroupBarrier();
  var stride = BLOCK / 2;
  loop {
    if stride == 0 { break; }
    if lid.x < stride { partial[lid.x] += partial[lid.x + stride]; }
    workgroupBarrier();
    stride >>= 1;
  }
  if lid.x == 0 { sums[wid.x] = partial[0]; }
}