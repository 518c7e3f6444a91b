const x = 100u;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
  out[0] = x;
  let x = 1u;
  out[1] = x;
  {
    let x = x + 10;
    out[2] = x;
    { var x = x * 2; x += 1; out[3] = x; }
  }
  out[4] = x;
}