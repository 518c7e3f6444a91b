@group(0) @binding(0) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> u: array<vec4<u32>>;
fn bump(p: ptr<function, vec4<f32>>, i: i32) {
  (*p)[i] += 1.0;
  (*p).w = fma((*p).x, 2.0, (*p).w);
}
fn total(arr: ptr<function, array<f32, 4>>) -> f32 {
  var s = 0.0;
  for (var i = 0; i < 4; i++) { s += (*arr)[i]; }
  return s;
}
@compute @workgroup_size(1)
fn main() {
  let a = v[0];
  v[1] = vec4(fract(a.x), floor(a.y), round(a.z), round(a.w));
  v[2] = vec4(clamp(a.x * 4.0, 0.0, 5.0), trunc(a.y), sign(a.w), saturate(-a.x));
  var x = a;
  bump(&x, i32(v[3].x));
  var arr = array<f32, 4>(x.x, x.y, x.z, x.w);
  v[3] = vec4(x.xyz, total(&arr));
  u[0] = bitcast<vec4<u32>>(a);
  u[1] = vec4(pack4x8unorm(vec4(0.25, 1.5, -1.0, 0.75)), pack4x8snorm(vec4(-0.25, 0.5, 1.0, -2.0)), pack2x16unorm(vec2(0.5, 0.125)), pack2x16snorm(vec2(-0.5, 0.25)));
}