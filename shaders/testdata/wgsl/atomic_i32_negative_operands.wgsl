struct Stats { hi: atomic<i32>, lo: atomic<i32>, count: atomic<i32>, bits: atomic<u32>, own: atomic<u32>, ex: atomic<u32> }
@group(0) @binding(0) var<storage> xs: array<i32>;
@group(0) @binding(1) var<storage, read_write> st: Stats;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let v = xs[g.x];
  atomicMax(&st.hi, v);
  atomicMin(&st.lo, v);
  atomicSub(&st.count, 1);
  let bit = 1u << (g.x % 32);
  atomicOr(&st.bits, bit);
  if ((atomicLoad(&st.bits) & bit) != 0) { atomicAdd(&st.own, 1); }
  _ = atomicExchange(&st.ex, 0x50 | 5);
}