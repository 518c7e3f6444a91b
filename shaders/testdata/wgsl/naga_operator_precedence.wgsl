@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let a = v[g.x * 8u];
  let o = g.x * 8u;
  v[o + 1u] = a & 3u | 16u;
  v[o + 2u] = a ^ a >> 4u;
  v[o + 3u] = a + 1u << 2u;
  v[o + 4u] = select(0u, 1u, a < 2u == a < 4u);
  v[o + 5u] = a >> 1u >> 2u;
  v[o + 6u] = select(0u, 1u, a > 0u && a < 9u || a == 0u);
  v[o + 7u] = a % 5u * 3u ^ a / 3u | 1u;
}