@group(0) @binding(0) var<storage, read_write> v: array<i32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let o = g.x * 8u;
  let x = v[o];
  v[o + 1u] = firstLeadingBit(x);
  v[o + 2u] = extractBits(x, 4u, 8u);
  v[o + 3u] = firstTrailingBit(x);
  v[o + 4u] = countOneBits(x);
  v[o + 5u] = reverseBits(x);
  v[o + 6u] = insertBits(x, -1, 28u, 4u);
  v[o + 7u] = i32(firstLeadingBit(bitcast<u32>(x))) + countLeadingZeros(x) * 100 + countTrailingZeros(x) * 10000;
}