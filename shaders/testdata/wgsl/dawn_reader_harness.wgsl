
@group(0) @binding(0) var<storage, read_write> p5_out : array<u32, 6>;

@compute @workgroup_size(1u, 1u, 1u)
fn p5_harness(@builtin(local_invocation_index) i : u32) {
  atomicStore(&wg[0][1][0], 9u);
  compute_main_inner(i);
  for (var j = 0u; j < 6u; j++) {
    p5_out[j] = atomicLoad(&wg[j / 2u][j % 2u][0]);
  }
}
