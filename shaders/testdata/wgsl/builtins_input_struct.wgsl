struct In {
  @builtin(global_invocation_id) gid: vec3<u32>,
  @builtin(local_invocation_id) lid: vec3<u32>,
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
}
@group(0) @binding(0) var<storage, read_write> out: array<vec4<u32>>;
@compute @workgroup_size(2, 2, 1)
fn main(in: In, @builtin(local_invocation_index) li: u32) {
  let w = in.nwg.x * 2;
  out[in.gid.y * w + in.gid.x] = vec4(in.wid.x, in.wid.y, in.lid.x * 10 + in.lid.y, li + in.nwg.y * 100);
}