struct R { vals: array<i32, 4>, n: i32 }
@group(0) @binding(0) var<storage, read_write> o: array<i32>;
var<workgroup> pts: array<vec3<f32>, 4>;
fn make(x: i32) -> R { var r: R; for (var i = 0; i < 4; i++) { r.vals[i] = x * i; } r.n = 4; return r; }
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) li: u32) {
  pts[li] = vec3(f32(li), 1.0, 2.0);
  workgroupBarrier();
  if li != 0u { return; }
  let r = make(o[0]);
  let arr = r.vals;
  let j = o[1];
  o[2] = arr[j] + r.n + arr[0] + r.vals[j - 1];
  o[3] = abs(o[4]);
  o[5] = i32(pts[u32(j)].x + pts[3].z);
  let mv = max(vec2(o[0], o[1]), vec2(2, 9));
  o[6] = mv.x * 10 + mv.y;
}