@group(1) @binding(3) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8) fn main(@builtin(global_invocation_id) g: vec3u) { v[g.x] = v[g.x] * v[g.x]; }