// leading comment
@binding(0,) /* between */ @group(0,)
var<storage, read> src /* name */ : array<f32>;
@group(0) @binding(1) var<storage,read_write>dst:array<f32>;
@workgroup_size(64,) /* wg */ @compute
fn main(@builtin(global_invocation_id,) /* id */ gid: vec3u,) {
  let i = gid.x;
  if (i >= arrayLength(&src)) { return; }
  dst[i] = src[i] + 1; // abstract int meets f32
}