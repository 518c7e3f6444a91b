override TILE: u32 = 8u;
const DIM = 32u;
var<workgroup> tileA: array<f32, TILE * TILE>;
var<workgroup> tileB: array<f32, TILE * TILE>;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(TILE, TILE)
fn main(@builtin(local_invocation_id) l: vec3u, @builtin(workgroup_id) w: vec3u) {
  let row = w.y * TILE + l.y;
  let col = w.x * TILE + l.x;
  var sum: f32 = 0;
  for (var t = 0u; t < DIM / TILE; t++) {
    tileA[l.y * TILE + l.x] = a[row * DIM + t * TILE + l.x];
    tileB[l.y * TILE + l.x] = b[(t * TILE + l.y) * DIM + col];
    workgroupBarrier();
    for (var k = 0u; k < TILE; k++) { sum = fma(tileA[l.y * TILE + k], tileB[k * TILE + l.x], sum); }
    workgroupBarrier();
  }
  c[row * DIM + col] = sum;
}