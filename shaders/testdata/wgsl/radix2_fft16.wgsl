const N = 16u;
const PI = 3.14159265358979;
@group(0) @binding(0) var<storage, read_write> sig: array<vec2<f32>, N>;
fn cmul(a: vec2f, b: vec2f) -> vec2f { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
fn bitrev(x: u32) -> u32 { return reverseBits(x) >> (32 - 4); }
fn fft(buf: ptr<function, array<vec2f, N>>) {
  for (var len = 2u; len <= N; len <<= 1) {
    let ang = -2 * PI / f32(len);
    for (var i = 0u; i < N; i += len) {
      for (var j = 0u; j < len / 2; j++) {
        let w = vec2(cos(ang * f32(j)), sin(ang * f32(j)));
        let u = (*buf)[i + j];
        let v = cmul((*buf)[i + j + len / 2], w);
        (*buf)[i + j] = u + v;
        (*buf)[i + j + len / 2] = u - v;
      }
    }
  }
}
@compute @workgroup_size(1)
fn main() {
  var a: array<vec2f, N>;
  for (var i = 0u; i < N; i++) { a[bitrev(i)] = sig[i]; }
  fft(&a);
  sig = a;
}