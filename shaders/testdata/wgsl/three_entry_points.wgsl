@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@group(1) @binding(0) var<uniform> k: vec4<u32>;
@compute @workgroup_size(16) fn fillA(@builtin(global_invocation_id) g: vec3u) { a[g.x] = g.x; }
@compute @workgroup_size(16) fn scaleB(@builtin(global_invocation_id) g: vec3u) { b[g.x] *= k.x; }
@compute @workgroup_size(16) fn addAB(@builtin(global_invocation_id) g: vec3u) { a[g.x] += b[g.x] + k.y; }