alias Row = array<f32, 4>;
alias Tile = array<Row, 4>;
struct Pair { a: vec2f, b: vec2f }
alias PairT = Pair;
alias Pairs = array<PairT>;
@group(0) @binding(0) var<storage, read_write> ps: Pairs;
var<workgroup> t: Tile;
fn sumRow(r: Row) -> f32 { return r[0] + r[1] + r[2] + r[3]; }
@compute @workgroup_size(4, 4)
fn main(@builtin(local_invocation_id) l: vec3u) {
  t[l.y][l.x] = f32(l.x + l.y * 4u);
  workgroupBarrier();
  if l.x == 0u { var p: PairT = ps[l.y]; p.a.x = sumRow(t[l.y]); p.b = p.b.yx; ps[l.y] = p; }
}