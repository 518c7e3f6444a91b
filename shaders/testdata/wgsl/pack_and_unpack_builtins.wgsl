@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main() {
  let c = unpack4x8unorm(v[0]);
  v[1] = pack4x8unorm(c.wzyx);
  let h = unpack2x16float(v[2]);
  v[3] = pack2x16float(h * 2);
}