struct Buf { header: vec4<i32>, data: array<i32> }
struct Acc { n: i32, v: vec2<i32> }
@group(0) @binding(0) var<storage, read_write> b: Buf;
var<private> acc: Acc;
fn total(arr: ptr<function, array<i32, 4>>) -> i32 { var s = 0; for (var i = 0; i < 4; i++) { s += arr[i]; } return s; }
fn bump(a: ptr<private, Acc>, by: i32) { a.n += by; a.v[1] = a.n / by; }
@compute @workgroup_size(1)
fn main() {
  let p = &b;
  let n = arrayLength(&p.data);
  var arr = array<i32, 4>(p.data[0], p.data[1], p.data[2], p.data[3]);
  let q = &arr;
  q[3] = 100;
  bump(&acc, p.data[4]);
  p.header = vec4<i32>(i32(n), total(&arr), p.data[5] / p.data[6], acc.v.y + p.data[5] % p.data[6]);
}