const N = 256;
var<workgroup> buf: array<array<u32, N>, 2>;
@group(0) @binding(0) var<storage, read_write> data: array<u32, N>;
@compute @workgroup_size(N)
fn scan(@builtin(local_invocation_index) i: u32) {
  var src = 0;
  buf[0][i] = data[i];
  workgroupBarrier();
  for (var off = 1u; off < N; off <<= 1u) {
    let dst = 1 - src;
    if i >= off { buf[dst][i] = buf[src][i] + buf[src][i - off]; } else { buf[dst][i] = buf[src][i]; }
    src = dst;
    workgroupBarrier();
  }
  data[i] = buf[src][i];
}