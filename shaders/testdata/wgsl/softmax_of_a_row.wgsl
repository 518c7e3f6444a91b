override WG: u32 = 64;
var<workgroup> red: array<f32, WG>;
@group(0) @binding(0) var<storage, read_write> row: array<f32>;
fn reduce(i: u32, op: u32) -> f32 {
  for (var s = WG / 2; s > 0; s >>= 1) {
    if i < s {
      switch op { case 0u: { red[i] = max(red[i], red[i + s]); } default: { red[i] += red[i + s]; } }
    }
    workgroupBarrier();
  }
  return red[0];
}
@compute @workgroup_size(WG)
fn softmax(@builtin(local_invocation_index) i: u32) {
  red[i] = row[i];
  workgroupBarrier();
  let m = reduce(i, 0);
  workgroupBarrier();
  let e = exp(row[i] - m);
  red[i] = e;
  workgroupBarrier();
  let total = reduce(i, 1);
  row[i] = e / total;
}