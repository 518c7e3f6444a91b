
@group(0) @binding(0) var<storage, read_write> p5_out : array<u32, 4>;

@compute @workgroup_size(1)
fn p5_harness(@builtin(local_invocation_index) i : u32) {
  local_invocation_index_1 = i;
  compute_main_1();
  p5_out[0] = atomicLoad(&arg_0);
  let r = atomicCompareExchangeWeak(&arg_0, 0u, 5u);
  p5_out[1] = r.old_value;
  p5_out[2] = u32(r.exchanged);
  p5_out[3] = atomicLoad(&arg_0);
}
