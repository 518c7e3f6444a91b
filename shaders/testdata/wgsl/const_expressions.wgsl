const LOG = 3;
const N = 1 << LOG;
const MASK = (1 << 4) - 1;
const HALF = N / 2;
const BIG = max(N, 4) * 2 + min(1, 2);
alias Row = array<u32, N * 2>;
@group(0) @binding(0) var<storage, read_write> out: array<u32, BIG>;
@compute @workgroup_size(HALF * 2)
fn main(@builtin(local_invocation_index) i: u32) {
  var r: Row;
  r[i] = (i * 37) & MASK;
  r[i + N] = i << 2;
  out[i] = r[i] + r[i + N];
  if i == 0 { out[BIG - 1] = u32(BIG); }
}