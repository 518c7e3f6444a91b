const RADIX = 1 << 4;
const N = 64;
struct Cfg { shift: u32 }
@group(0) @binding(0) var<uniform> cfg: Cfg;
@group(0) @binding(1) var<storage, read> keysIn: array<u32>;
@group(0) @binding(2) var<storage, read_write> keysOut: array<u32>;
var<workgroup> counts: array<atomic<u32>, RADIX>;
var<workgroup> offsets: array<u32, RADIX>;
fn digit(k: u32) -> u32 { return (k >> cfg.shift) & (RADIX - 1); }
@compute @workgroup_size(N)
fn main(@builtin(local_invocation_index) i: u32) {
  if i < RADIX { atomicStore(&counts[i], 0u); }
  workgroupBarrier();
  atomicAdd(&counts[digit(keysIn[i])], 1);
  workgroupBarrier();
  if i == 0 {
    var run = 0u;
    for (var r = 0; r < RADIX; r++) { offsets[r] = run; run += atomicLoad(&counts[r]); }
  }
  workgroupBarrier();
  // stable scatter: rank among equal digits before i
  let d = digit(keysIn[i]);
  var rank = 0u;
  for (var j = 0u; j < i; j++) { if digit(keysIn[j]) == d { rank++; } }
  keysOut[offsets[d] + rank] = keysIn[i];
}