@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@group(0) @binding(1) var<storage, read_write> f: array<f32>;
const OFFS = vec2(3, 5);
const SIZES = array(16, 32, 64);
var<private> seed = vec2(5u, 6u);
var<private> count = 0;
struct K { w: array<f32, 4> }
fn at(a: array<u32, 4>, i: u32) -> u32 { return a[i]; }
fn wsum(k: K, n: i32) -> f32 {
  var s = 0.0;
  for (var i = 0; i < n; i++) { s += k.w[i]; }
  return s;
}
fn ring(i: u32) -> array<u32, 3> { return array(i, i * 2u, i * 3u); }
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) li: u32) {
  const W = array(0.25, 0.5, 0.25);
  const L = vec2(5, 6);
  let lf: vec2<f32> = L;
  var blur = 0.0;
  for (var t = 0; t < 3; t++) { blur += W[t] * f32(t + 1); }
  count += 1;
  let g = vec2(li, li + 1u) + OFFS;
  let gf: vec2<f32> = OFFS;
  let r = ring(li + 1u)[li % 3u];
  let q = at(array(7u, 11u, 13u, 17u), li);
  let bits: u32 = countOneBits(7);
  let ones = vec4u(countOneBits(vec2(3, 7)), countTrailingZeros(8u), u32(count));
  o[li * 8u] = g.x;
  o[li * 8u + 1u] = g.y + OFFS.x;
  o[li * 8u + 2u] = r;
  o[li * 8u + 3u] = q + seed.y;
  o[li * 8u + 4u] = bits + L.y + SIZES[1];
  o[li * 8u + 5u] = dot(ones, vec4u(1u, 10u, 100u, 1000u));
  o[li * 8u + 6u] = u32(wsum(K(array(1.0, 2.0, 4.0, 8.0)), i32(li) + 1));
  o[li * 8u + 7u] = bitcast<u32>(quantizeToF16(f32(li) + 1.0 / 3.0));
  f[li * 4u] = blur;
  f[li * 4u + 1u] = ldexp(1.5, 3) + ldexp(f32(li), i32(li));
  f[li * 4u + 2u] = gf.y + lf.x;
  f[li * 4u + 3u] = quantizeToF16(vec3(0.1, 0.2, 0.3)).z;
}