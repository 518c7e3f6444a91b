struct Inner { a: u32, @size(16) b: u32, @align(16) c: vec2u }
struct Outer { x: u32, @align(32) inner: Inner, tail: u32, }
@group(0) @binding(0) var<storage, read_write> o: array<Outer>;
@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
  o[i].tail = o[i].x + o[i].inner.a + o[i].inner.b + o[i].inner.c.y;
  o[i].inner.c.x = 7u * i;
}