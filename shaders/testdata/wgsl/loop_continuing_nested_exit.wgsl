@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(16)
fn collatz(@builtin(global_invocation_id) g: vec3u) {
  var n = v[g.x];
  var steps = 0u;
  loop {
    if n <= 1 { break; }
    if n % 2 == 0 { n /= 2; } else { n = 3 * n + 1; }
    continuing {
      steps++;
      break if steps >= 1000;
    }
  }
  var k = 0u;
  while (k < 3) { k += 1; }
  v[g.x] = steps + k;
}