var<private> lut: array<u32, 4> = array(1u, 2u, 4u, 8u);
const weights = array<u32, 4>(10, 20, 30, 40);
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
  var w = weights;
  v[i] = lut[i] * w[3 - i];
}