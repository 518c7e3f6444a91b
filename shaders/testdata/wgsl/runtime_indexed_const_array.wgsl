const LUT = array<u32, 4>(10u, 20u, 30u, 40u);
const WEIGHTS: array<f32, 3> = array(0.25, 0.5, 0.25);
const V = vec3(1, 2, 3);
override GATE: bool = true;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
var<workgroup> flag: u32;
fn pick(i: u32) -> u32 { return LUT[i & 3u]; }
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) li: u32) {
  if li == 0u { flag = o[0]; }
  var n = 0u;
  while n < workgroupUniformLoad(&flag) { n++; }
  if li != 0u { return; }
  let b = vec3<bool>(o[1] > 0u, false, true);
  let sv = select(vec3(1u, 2u, 3u), vec3(7u, 8u, 9u), b);
  o[2] = sv.x * 100u + sv.y * 10u + sv.z;
  o[3] = u32(true) + u32(o[1] > 5u) * 2u + u32(f32(b.x) * 4.0);
  o[4] = pick(o[1]) + LUT[o[1] % 4u] + LUT[1];
  o[5] = select(0u, 1u, GATE) + u32(V.z) + u32(dot(V, V));
  var acc = 0u;
  for (var i = 0u; i < 10u; i += 3u) { if i == 6u { continue; } acc += i; }
  o[6] = acc + n * 1000u;
  var m = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
  m[1][0] = f32(o[1]);
  o[7] = u32((m * vec2(1.0, 1.0)).x + WEIGHTS[o[0] % 3u] * 8.0);
}