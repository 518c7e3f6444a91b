struct Uniforms { NAN : f32, INFINITY : f32, xShape : vec4<i32>, xShapeStrides: vec3<i32>, WShape : vec4<i32>, WShapeStrides: vec3<i32>, biasShape : i32, outShape : vec4<i32>, outShapeStrides: vec3<i32>, size : i32, filterDims : vec2<i32>, pads : vec2<i32>, strides : vec2<i32>, dilations : vec2<i32>, alpha : f32, };
@group(0) @binding(0) var<storage, read_write> result: array<f32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> W: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<uniform> uniforms: Uniforms;

var<private> localId: vec3<u32>;
var<private> workgroupId: vec3<u32>;
var<private> numWorkgroups: vec3<u32>;

fn getGlobalIndex() -> i32 {
  return i32((workgroupId.z * numWorkgroups.x * numWorkgroups.y +
    workgroupId.y * numWorkgroups.x + workgroupId.x) * 64u + localId.x);
}

fn getCoordsFromIndex(index : i32) -> vec4<i32> {
  var index2 = index;let d0 = index2 / uniforms.outShapeStrides.x; index2 = index2 - d0 * uniforms.outShapeStrides.x;let d1 = index2 / uniforms.outShapeStrides.y; index2 = index2 - d1 * uniforms.outShapeStrides.y;let d2 = index2 / uniforms.outShapeStrides.z; let d3 = index2 - d2 * uniforms.outShapeStrides.z;
  return vec4<i32>(d0,d1,d2,d3);
}

fn getOutputCoords() -> vec4<i32> {
  let globalIndex = getGlobalIndex();
  return getCoordsFromIndex(globalIndex);
}

fn getIndexFromCoords4D(coords : vec4<i32>, shape : vec4<i32>) -> i32 {
  return dot(coords, vec4<i32>(
      shape.y * shape.z * shape.w, shape.z * shape.w, shape.w, 1));
}

fn getOutputIndexFromCoords(coords : vec4<i32>) -> i32 {
  return dot(coords, vec4<i32>(
    uniforms.outShapeStrides.x, uniforms.outShapeStrides.y, uniforms.outShapeStrides.z, 1));
}

fn setOutputAtIndex(flatIndex : i32, value : f32) {
  result[flatIndex] = f32(value);
}

fn setOutputAtCoords(d0 : i32, d1 : i32, d2 : i32, d3 : i32, value : f32) {
  let flatIndex = getOutputIndexFromCoords(vec4<i32>(d0, d1, d2, d3));
  setOutputAtIndex(flatIndex, value);
}

fn getX(d0 : i32, d1 : i32, d2 : i32, d3 : i32) -> f32 {
  return f32(x[getIndexFromCoords4D(vec4<i32>(d0,d1,d2,d3),
    uniforms.xShape)]);
}

fn getW(d0 : i32, d1 : i32, d2 : i32, d3 : i32) -> f32 {
  return f32(W[getIndexFromCoords4D(vec4<i32>(d0,d1,d2,d3),
    uniforms.WShape)]);
}

fn coordsInBounds4D(coord : vec4<i32>, shape : vec4<i32>) -> bool {
  return all(coord >= vec4<i32>(0)) &&
      all(coord < shape);
}

fn activation(a : f32, outCoord : vec4<i32>) -> f32 {
  let b = a * uniforms.alpha;
  return select(b, a, a >= 0.0);
}

fn readInp(batch : i32, row : i32, col : i32, chan : i32) -> f32 {
  let coords = vec4<i32>(batch, row, col, chan);
  if (coordsInBounds4D(coords, uniforms.xShape)) {
    return  getX(batch, row, col, chan);
  } else {
   return 0.0;
  }
}

fn readFilt(row : i32, col : i32, xChannel : i32, outChannel : i32) -> f32{
  let coords = vec4<i32>(row, col, xChannel, outChannel);
  if(coordsInBounds4D(coords, uniforms.WShape)) {
    return getW(row, col, xChannel, outChannel);
   } else {
    return 0.0;
   }
}

fn writeResult(batch : i32, row : i32, col : i32, chan : i32, valueIn : f32) {
  let coords = vec4<i32>(batch, row, col, chan);
  if (coordsInBounds4D(coords, uniforms.outShape)) {
    var value = valueIn;
    value = value + bias[chan];
    value = activation(value, coords);
    setOutputAtCoords(coords[0], coords[1], coords[2], coords[3], value);
  }
}

@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>,
          @builtin(workgroup_id) WorkgroupId : vec3<u32>,
          @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  localId = LocalId;
  workgroupId = WorkgroupId;
  numWorkgroups = NumWorkgroups;
  main(getGlobalIndex());
}

fn main(index : i32) {
  let coords = getOutputCoords();
  let batch = coords[0];
  let outChannel = coords[3];
  var acc = 0.0;
  for (var row = 0; row < uniforms.filterDims[0]; row = row + 1) {
    for (var col = 0; col < uniforms.filterDims[1]; col = col + 1) {
      let xRow = coords[1] * uniforms.strides[0] + uniforms.dilations[0] * row - uniforms.pads[0];
      let xCol = coords[2] * uniforms.strides[1] + uniforms.dilations[1] * col - uniforms.pads[1];
      for (var xChannel = 0; xChannel < uniforms.xShape[3]; xChannel = xChannel + 1) {
        let v = readInp(batch, xRow, xCol, xChannel);
        let f = readFilt(row, col, xChannel, outChannel);
        acc = acc + v * f;
      }
    }
  }
  writeResult(batch, coords[1], coords[2], outChannel, acc);
}
