struct Uniforms { dimAOuter : i32, dimInner : i32, dimBOuter : i32, };
@group(0) @binding(0) var<storage, read> A : array<f32>;
@group(0) @binding(1) var<storage, read> B : array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> result : array<vec4<f32>>;
@group(0) @binding(3) var<uniform> uniforms : Uniforms;
const TileInner = 4;
var<workgroup> mm_Asub : array<vec4<f32>, 16>;
var<workgroup> mm_Bsub : array<vec4<f32>, TileInner * 4>;

fn mm_readA(row : i32, col : i32) -> f32 {
  let inBounds = row < uniforms.dimAOuter && col < uniforms.dimInner;
  return select(0.0, A[u32(select(0, row * uniforms.dimInner + col, inBounds))], inBounds);
}
fn mm_readB(row : i32, col4 : i32) -> vec4<f32> {
  if (row < uniforms.dimInner && col4 * 4 < uniforms.dimBOuter) {
    return B[row * uniforms.dimBOuter / 4 + col4];
  }
  return vec4<f32>(0.0);
}
fn mm_write(row : i32, col4 : i32, value : ptr<function, vec4<f32>>) {
  if (row < uniforms.dimAOuter && col4 * 4 < uniforms.dimBOuter) {
    result[row * uniforms.dimBOuter / 4 + col4] = *value;
  }
}

@compute @workgroup_size(4, 16, 1)
fn main(@builtin(local_invocation_id) localId : vec3<u32>,
        @builtin(local_invocation_index) localIndex : u32,
        @builtin(workgroup_id) workgroupId : vec3<u32>) {
  let tileRow = i32(localId.y);
  let tileCol = i32(localId.x);
  let globalRow = i32(workgroupId.y) * 16 + tileRow;
  let globalCol4 = i32(workgroupId.x) * 4 + tileCol;
  var acc = vec4<f32>(0.0);
  let numTiles = (uniforms.dimInner - 1) / TileInner + 1;
  for (var t = 0; t < numTiles; t++) {
    let li = i32(localIndex);
    if (li < 16) {
      let r = i32(workgroupId.y) * 16 + li;
      mm_Asub[li] = vec4<f32>(mm_readA(r, t * TileInner), mm_readA(r, t * TileInner + 1),
                              mm_readA(r, t * TileInner + 2), mm_readA(r, t * TileInner + 3));
    } else if (li < 32) {
      let k = (li - 16) / 4;
      mm_Bsub[li - 16] = mm_readB(t * TileInner + k, i32(workgroupId.x) * 4 + (li - 16) % 4);
    }
    workgroupBarrier();
    let a = mm_Asub[tileRow];
    for (var k = 0; k < TileInner; k++) {
      acc += a[k] * mm_Bsub[k * 4 + tileCol];
    }
    workgroupBarrier();
  }
  mm_write(globalRow, globalCol4, &acc);
}