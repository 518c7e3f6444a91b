struct Buf { header: vec4<u32>, data: array<f32> }
@group(0) @binding(0) var<storage, read_write> b: Buf;
@compute @workgroup_size(1)
fn main() {
  let p = &b;
  let n = arrayLength(&(*p).data);
  let m = arrayLength(&b.data);
  (*p).header = vec4u(n, m, u32((*p).data[n - 1u]), 0u);
}