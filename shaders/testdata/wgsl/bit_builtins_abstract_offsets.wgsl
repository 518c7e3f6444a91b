@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main() {
  let x = v[0];
  v[1] = countOneBits(x);
  v[2] = reverseBits(x);
  v[3] = extractBits(x, 4, 8);
  v[4] = insertBits(x, 0xAB, 8, 8);
  v[5] = firstLeadingBit(x) + countTrailingZeros(x) * 100;
  v[6] = countLeadingZeros(x >> 3);
}