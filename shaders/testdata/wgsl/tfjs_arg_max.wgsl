struct Uniforms { NAN : f32, INFINITY : f32, xShape : vec2<i32>, xShapeStrides: i32, outShape : i32, size : i32, infinityValue : f32, };
@group(0) @binding(0) var<storage, read_write> result: array<i32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

var<private> localId: vec3<u32>;
var<private> localIndex: u32;
var<private> globalId: vec3<u32>;
var<private> numWorkgroups: vec3<u32>;
var<private> workgroupId: vec3<u32>;

fn isnan(val: f32) -> bool {
  let floatToUint: u32 = bitcast<u32>(val);
  return (floatToUint & 0x7fffffffu) > 0x7f800000u;
}

fn getGlobalIndex() -> i32 {
  let localInvocationIndex = localId.z * 64u + localId.y * 64u + localId.x;
  return i32((workgroupId.z * numWorkgroups.x * numWorkgroups.y +
    workgroupId.y * numWorkgroups.x + workgroupId.x) * 64u + localInvocationIndex);
}

fn getIndexFromCoords2D(coords : vec2<i32>, shape : vec2<i32>) -> i32 {
  return dot(coords, vec2<i32>(shape.y, 1));
}

fn getX(d0 : i32, d1 : i32) -> f32 {
  return f32(x[getIndexFromCoords2D(vec2<i32>(d0,d1),
    uniforms.xShape)]);
}

fn setOutputAtIndexI32(flatIndex : i32, value : i32) {
  result[flatIndex] = i32(value);
}

fn DIV_CEIL(a : u32, b : u32) -> u32 {
  return ((a - 1u) / b + 1u);
}

@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>,
          @builtin(global_invocation_id) GlobalId : vec3<u32>,
          @builtin(local_invocation_index) LocalIndex: u32,
          @builtin(workgroup_id) WorkgroupId : vec3<u32>,
          @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  localId = LocalId;
  localIndex = LocalIndex;
  globalId = GlobalId;
  numWorkgroups = NumWorkgroups;
  workgroupId = WorkgroupId;
  main(getGlobalIndex());
}

var<workgroup> xBestIndices : array<i32, 64>;
var<workgroup> xBestValues : array<f32, 64>;

fn main(index : i32) {
  let outputIndex = index / 64;
  let reduceLength = uniforms.xShape[1];

  var bestIndex = i32(localId.x);
  var bestValue = uniforms.infinityValue;
  let outputCoords = outputIndex;
  for (var k = i32(localId.x); k < reduceLength && outputIndex < uniforms.size;
      k = k + 64) {
    let candidate = getX(outputCoords, k);
    if (!isnan(candidate) && candidate > bestValue) {
      bestValue = candidate;
      bestIndex = k;
    }
  }
  xBestValues[localId.x] = bestValue;
  xBestIndices[localId.x] = bestIndex;
  workgroupBarrier();

  var reduceSize = min(u32(reduceLength), 64u);
  for (var currentSize = reduceSize / 2u; reduceSize > 1u;
      currentSize = reduceSize / 2u) {
    let interval = DIV_CEIL(reduceSize, 2u);
    if (localId.x < currentSize) {
      let candidate = xBestValues[localId.x + interval];
      if (candidate > bestValue || (candidate == bestValue && xBestIndices[localId.x + interval] < bestIndex)) {
        bestValue = candidate;
        bestIndex = xBestIndices[localId.x + interval];
        xBestValues[localId.x] = bestValue;
        xBestIndices[localId.x] = bestIndex;
      }
    }
    reduceSize = interval;
    workgroupBarrier();
  }

  if (localId.x == 0u && outputIndex < uniforms.size) {
    setOutputAtIndexI32(outputIndex, xBestIndices[localId.x]);
  }
}
