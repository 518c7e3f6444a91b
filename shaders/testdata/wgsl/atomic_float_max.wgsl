@group(0) @binding(0) var<storage, read> xs: array<f32>;
@group(0) @binding(1) var<storage, read_write> best: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u) {
  if g.x >= arrayLength(&xs) { return; }
  let mine = bitcast<u32>(xs[g.x]); // non-negative floats order like their bits
  var old = atomicLoad(&best);
  loop {
    if bitcast<f32>(old) >= xs[g.x] { break; }
    let r = atomicCompareExchangeWeak(&best, old, mine);
    if r.exchanged { break; }
    old = r.old_value;
  }
}