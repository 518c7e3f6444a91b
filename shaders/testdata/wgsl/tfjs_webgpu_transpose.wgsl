struct Uniforms { NAN : f32, xShape : vec4<i32>, outShape : vec4<i32>, outShapeStrides : vec3<i32>, size : i32, };
@group(0) @binding(0) var<storage, read_write> result : array<f32>;
@group(0) @binding(1) var<storage, read> x : array<f32>;
@group(0) @binding(2) var<uniform> uniforms : Uniforms;

fn isnan(val: f32) -> bool {
  let floatToUint: u32 = bitcast<u32>(val);
  return (floatToUint & 0x7fffffffu) > 0x7f800000u;
}
fn getCoordsFromIndex(index : i32) -> vec4<i32> {
  var index2 = index;
  let d0 = index2 / uniforms.outShapeStrides.x; index2 = index2 - d0 * uniforms.outShapeStrides.x;
  let d1 = index2 / uniforms.outShapeStrides.y; index2 = index2 - d1 * uniforms.outShapeStrides.y;
  let d2 = index2 / uniforms.outShapeStrides.z; let d3 = index2 - d2 * uniforms.outShapeStrides.z;
  return vec4<i32>(d0,d1,d2,d3);
}
fn getIndexFromCoords4D(coords : vec4<i32>, shape : vec4<i32>) -> i32 {
  return dot(coords, vec4<i32>(shape.y * shape.z * shape.w, shape.z * shape.w, shape.w, 1));
}
fn getX(d0 : i32, d1 : i32, d2 : i32, d3 : i32) -> f32 {
  return f32(x[getIndexFromCoords4D(vec4<i32>(d0,d1,d2,d3), uniforms.xShape)]);
}
fn setOutputAtIndex(flatIndex : i32, value : f32) {
  result[flatIndex] = f32(value);
}
@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>,
          @builtin(global_invocation_id) GlobalId : vec3<u32>,
          @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  let index = i32(GlobalId.x);
  if (index < uniforms.size) {
    let resRC = getCoordsFromIndex(index);
    let v = getX(resRC.x, resRC.z, resRC.w, resRC.y);
    setOutputAtIndex(index, select(v, uniforms.NAN, isnan(v)));
  }
}