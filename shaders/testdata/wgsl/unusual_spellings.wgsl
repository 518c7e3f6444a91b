/* outer /* nested */ still a comment */
@group(0) @binding(0) var<storage, read_write> outf: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> outu: array<vec4u>;
const K = array(10, 20, 30);
const M = mat2x2f(1.0, 2.0, 3.0, 4.0);
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  let max = 3u;         // shadows the builtin max
  let min = i + max;    // and min
  let dot = vec3f(1.0, 2.0, 3.0);
  var données = 0x1p4f; // 16
  let h = 0x1.8p1;      // 3
  _ = i;
  _ = outf[0];
  let a = array(1.5, 2.5, 3.5, 4.5);
  var j = 0u;
  loop {
    j++;
    continuing { break if j >= 3u; }
  }
  var sw = 0u;
  switch i {
    default { sw = 9u; }
    case 1u { sw = 1u; }
  }
  switch (i) {
    case 2, default: { sw = sw + 100u; }
    case 3u: { sw = sw + 200u; }
  }
  let m4 = mat4x4f(vec4f(1), vec4f(2), vec4f(3), vec4f(4));
  données += dot.z;
  outf[i] = vec4f(données + h, a[i], M[1][0], m4[2].x);
  outu[i] = vec4u(min, j, sw, u32(K[i % 3u]));
}