var<workgroup> pivot: u32;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) w: vec3u) {
  if i == 0 { pivot = data[w.x * 32] * 2; }
  let p = workgroupUniformLoad(&pivot);
  data[w.x * 32 + i] += p;
}