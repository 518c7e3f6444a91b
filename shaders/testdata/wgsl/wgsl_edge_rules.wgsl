@group(0) @binding(0) var<storage, read_write> f: array<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
struct Counters { count: atomic<u32>, flags: atomic<u32>, data: array<u32> }
@group(0) @binding(2) var<storage, read_write> c: Counters;
@compute @workgroup_size(1)
fn main() {
  o[0] = u32(f[0]);
  o[1] = bitcast<u32>(i32(f[1]));
  o[2] = u32(f[2]);
  o[3] = bitcast<u32>(i32(f[3]));
  let v = vec2<i32>(vec2(f[1], f[4]));
  o[4] = bitcast<u32>(v.x);
  o[5] = bitcast<u32>(v.y);
  o[6] = vec4<u32>(vec4f(f[0], f[4], f[2], -0.0)).x + vec4<u32>(vec4f(f[0], f[4], f[2], -0.0)).y;
  let sh = o[14];
  o[7] = 1u << sh;
  o[8] = 0x80000000u >> sh;
  o[9] = bitcast<u32>(i32(-8) >> sh);
  o[10] = extractBits(0xF0000000u, 30u, o[15]);
  o[11] = insertBits(0u, 0xFu, 30u, o[15]);
  o[12] = bitcast<u32>(extractBits(vec2<i32>(-0x10000000), vec2u(28u).x, o[15]).y);
  let old = atomicAdd(&c.count, 5u);
  atomicOr(&c.flags, 6u);
  atomicXor(&c.flags, 3u);
  c.data[0] = old + atomicExchange(&c.flags, 9u);
}