var<private> counter: u32 = 0;
var<workgroup> shared_: array<u32, 4>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn bump(p: ptr<private, u32>, by: u32) { *p += by; }
fn fill(a: ptr<function, array<u32, 4>>, base: u32) { for (var i = 0; i < 4; i++) { (*a)[i] = base + u32(i); } }
fn sum4(w: ptr<function, array<u32, 4>>) -> u32 { return (*w)[0] + (*w)[1] + (*w)[2] + (*w)[3]; }
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
  var arr: array<u32, 4>;
  fill(&arr, 10);
  bump(&counter, 3);
  bump(&counter, arr[i]);
  shared_[i] = counter;
  workgroupBarrier();
  var copy = shared_;
  out[i] = sum4(&copy);
}