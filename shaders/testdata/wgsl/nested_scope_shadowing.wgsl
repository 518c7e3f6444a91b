const X = 3u;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
fn f(X: u32) -> u32 { let y = X * 2u; { let X = y + 1u; return X; } }
@compute @workgroup_size(1)
fn main() {
  v[0] = X;
  let X = 5u;
  v[1] = X;
  {
    var X = X + 1u;
    X *= 2u;
    v[2] = X;
    for (var i = 0u; i < 2u; i++) { const X = 100u; v[3] += X; }
    v[5] = X;
  }
  v[4] = X;
  v[6] = f(X);
}