const TWO = 2;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  switch v[g.x] {
    case 0, 1, { v[g.x] = 100; }
    default: { v[g.x] = 999; }
    case TWO: { v[g.x] = 200; }
    case 3, 4,: { v[g.x] = 300; }
  }
  var s: i32 = i32(g.x);
  switch s { case -1 { } case 7 { v[g.x] += 1; } default { } }
}