fn nan() -> f32 { let bits = 0xffffffffu; return bitcast<f32>(bits); }
fn is_nan(v:f32) -> bool { return min(v, 1.0) == 1.0 && max(v, -1.0) == -1.0; }
@group(0) @binding(0)
var<uniform> INFINITY : f32;
var<workgroup> temp0: array<f32,16>;
@group(0) @binding(1)var<storage,read_write>data0:array<f32>;
@group(0) @binding(2)var<storage,read_write>data1:array<i32>;
@group(0) @binding(3)var<storage,read_write>data2:array<atomic<u32>>;
@compute @workgroup_size(16) fn r_2_16(@builtin(workgroup_id) gindex: vec3<u32>,@builtin(local_invocation_id) lindex: vec3<u32>) {
  var gidx0 = i32(gindex.x); /* 2 */
  var lidx0 = i32(lindex.x); /* 16 */
  var alu0 = ((gidx0<<4)+lidx0);
  var val0 = data1[alu0];
  temp0[lidx0] = f32(val0);
  workgroupBarrier();
  var acc0 = 0.0f;
  for (var ridx0 = 0; ridx0 < 16; ridx0++) {
    var val1 = temp0[ridx0];
    acc0 = (acc0+val1);
  }
  data0[alu0] = select(acc0,(f32(-INFINITY)),((val0!=7)!=true));
  atomicAnd(&data2[(alu0>>2)], ~(0xFFu << (u32(alu0&3)*8u)));
  atomicOr(&data2[(alu0>>2)], ((u32(val0)&0xFFu) << (u32(alu0&3)*8u)));
  if (is_nan(f32(val0))) { data0[alu0] = nan(); }
}