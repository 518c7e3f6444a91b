const W = 16u;
const H = 16;
@group(0) @binding(0) var<storage, read> cur: array<u32>;
@group(0) @binding(1) var<storage, read_write> next: array<u32>;
fn cell(x: i32, y: i32) -> u32 {
  {
    let x = (x + i32(W)) % i32(W); // shadows the parameter in a nested block
    let y = (y + H) % H;
    return cur[u32(y) * W + u32(x)];
  }
}
@compute @workgroup_size(8, 8)
fn life(@builtin(global_invocation_id) g: vec3u) {
  let x = i32(g.x);
  let y = i32(g.y);
  var n = 0u;
  for (var dy = -1; dy <= 1; dy++) {
    for (var dx = -1; dx <= 1; dx += 1) {
      if dx == 0 && dy == 0 { continue; }
      n += cell(x + dx, y + dy);
    }
  }
  let alive = cur[g.y * W + g.x] == 1;
  next[g.y * W + g.x] = select(0, 1, n == 3 || (alive && n == 2));
}