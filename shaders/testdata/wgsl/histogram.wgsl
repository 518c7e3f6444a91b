override BINS: u32 = 16;
@id(7) override WG: u32;
@group(0) @binding(0) var<storage> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>>;
var<workgroup> local: array<atomic<u32>, BINS>;
@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) g: vec3u) {
  for (var b = li; b < BINS; b += WG) { atomicStore(&local[b], 0); }
  workgroupBarrier();
  if g.x < arrayLength(&values) { atomicAdd(&local[values[g.x] % BINS], 1); }
  workgroupBarrier();
  for (var b = li; b < BINS; b += WG) {
    let c = atomicLoad(&local[b]);
    if c > 0 { atomicAdd(&hist[b], c); }
  }
}