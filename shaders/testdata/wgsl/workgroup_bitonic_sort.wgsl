const SIZE: u32 = 128;
var<workgroup> keys: array<u32, SIZE>;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
fn swapIf(a: u32, b: u32, up: bool) {
  let x = keys[a];
  let y = keys[b];
  if (x > y) == up { keys[a] = y; keys[b] = x; }
}
@compute @workgroup_size(64)
fn sort(@builtin(local_invocation_id) lid: vec3<u32>) {
  let t = lid.x;
  keys[t] = data[t];
  keys[t + 64] = data[t + 64];
  workgroupBarrier();
  for (var k = 2u; k <= SIZE; k *= 2) {
    for (var j = k / 2; j > 0; j /= 2) {
      // each thread handles one compare-exchange pair
      let i = 2 * j * (t / j) + t % j;
      let l = i + j;
      swapIf(i, l, (i & k) == 0);
      workgroupBarrier();
    }
  }
  data[t] = keys[t];
  data[t + 64] = keys[t + 64];
}