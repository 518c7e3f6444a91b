@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main() {
  var i = 0u;
  var acc = 0u;
  loop {
    let sq = i * i;
    if (sq % 2u == 1u) { acc += 1000u; continue; }
    acc += sq;
    continuing {
      i++;
      break if sq > v[0];
    }
  }
  v[1] = acc;
  v[2] = i;
}