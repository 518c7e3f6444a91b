var<workgroup> total: u32;
var<workgroup> temp: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) thid: u32) {
  const n = 64u;
  var offset = 1u;
  temp[2u * thid] = data[2u * thid];
  temp[2u * thid + 1u] = data[2u * thid + 1u];
  for (var d = n >> 1u; d > 0u; d >>= 1u) { // up-sweep
    workgroupBarrier();
    if (thid < d) {
      let ai = offset * (2u * thid + 1u) - 1u;
      let bi = offset * (2u * thid + 2u) - 1u;
      temp[bi] += temp[ai];
    }
    offset *= 2u;
  }
  if (thid == 0u) { total = temp[n - 1u]; temp[n - 1u] = 0u; }
  let sum = workgroupUniformLoad(&total);
  for (var d = 1u; d < n; d *= 2u) { // down-sweep
    offset >>= 1u;
    workgroupBarrier();
    if (thid < d) {
      let ai = offset * (2u * thid + 1u) - 1u;
      let bi = offset * (2u * thid + 2u) - 1u;
      let t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  workgroupBarrier();
  data[2u * thid] = temp[2u * thid];
  data[2u * thid + 1u] = temp[2u * thid + 1u];
  if (thid == 31u) { data[n] = sum; }
}