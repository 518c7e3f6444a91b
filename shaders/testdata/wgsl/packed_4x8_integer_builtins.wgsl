@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main() {
  let a = v[0];
  let b = v[1];
  v[2] = dot4U8Packed(a, b);
  v[3] = bitcast<u32>(dot4I8Packed(a, b));
  v[4] = dot4U8Packed(a, 0x01010101);
  let ui = unpack4xI8(a);
  let uu = unpack4xU8(b);
  v[5] = pack4xI8(ui * vec4(2i)) ;
  v[6] = pack4xU8(uu + vec4(1u));
  v[7] = pack4xI8Clamp(ui * vec4(2i));
  v[8] = pack4xU8Clamp(uu * vec4(2u));
  v[9] = bitcast<u32>(ui.w) ^ uu.x;
}