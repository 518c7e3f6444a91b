@group(0) @binding(5) var<storage> x: array<u32>;
@group(0) @binding(9) var<storage, read_write> unused: array<u32>;
@group(2) @binding(1) var<uniform> add: u32;
@group(2) @binding(0) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) { y[g.x] = x[g.x] + add; }