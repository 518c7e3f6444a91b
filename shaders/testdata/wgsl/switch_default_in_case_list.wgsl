@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@group(0) @binding(1) var<storage, read_write> w: array<i32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  switch v[g.x] {
    case 0u, 1u: { v[g.x] = 10u; }
    case 2u, default, 7u: { v[g.x] = 20u; }
    case 3u { v[g.x] = 30u; }
  }
  switch (w[g.x]) {
    default { w[g.x] = 0; }
    case -1, -2 { w[g.x] = -10; }
    case 4: { w[g.x] = 40; fallthroughIsNotWGSL(); }
  }
}
fn fallthroughIsNotWGSL() {}