@group(0) @binding(0) var<storage, read_write> T_out : array<f32>;
@group(0) @binding(1) var<storage, read> A : array<f32>;
@group(0) @binding(2) var<storage, read> B : array<i32>;

struct PODArgs {
  n: i32,
  shift: i32,
  scale: f32,
  packGridDimX: u32
}
@group(0) @binding(3) var<uniform> podArgs : PODArgs;

var<workgroup> red_buf0 : array<f32, 64>;

@compute @workgroup_size(64, 1, 1)
fn default_function_kernel(
  @builtin(workgroup_id) blockIdx : vec3<u32>,
  @builtin(num_workgroups) gridDim : vec3<u32>,
  @builtin(local_invocation_id) threadIdx : vec3<u32>
) {
  if (blockIdx.z * gridDim.x + blockIdx.x >= podArgs.packGridDimX) { return; }
  var in_thread_red : array<f32, 1>;
  var fl : array<i32, 1>;
  let v__1 : i32 = i32(blockIdx.z * gridDim.x + blockIdx.x);
  let t_1 : i32 = (i32(threadIdx.x) - 32i);
  let rmod : i32 = (t_1 % podArgs.n);
  let rdiv : i32 = (t_1 / podArgs.n);
  fl[0i] = select((rdiv - 1i), rdiv, (((podArgs.n >= 0i) && (rmod >= 0i)) || ((podArgs.n < 0i) && (rmod <= 0i))));
  in_thread_red[0i] = 0.000000e+00f;
  for (var k_0 : i32 = 0; k_0 < 4i; k_0++) {
    in_thread_red[0i] = (in_thread_red[0i] + A[(((v__1 * 256i) + (i32(threadIdx.x) * 4i)) + k_0)]);
  }
  red_buf0[threadIdx.x] = in_thread_red[0i];
  workgroupBarrier();
  for (var s_1 : u32 = 32u; s_1 > 0u; s_1 = (s_1 >> 1u)) {
    if (threadIdx.x < s_1) {
      red_buf0[threadIdx.x] = (red_buf0[threadIdx.x] + red_buf0[(threadIdx.x + s_1)]);
    }
    workgroupBarrier();
  }
  let sh : i32 = ((2i << u32(podArgs.shift)) >> 1u);
  T_out[((v__1 * 64i) + i32(threadIdx.x))] = (((red_buf0[0i] * podArgs.scale) + bitcast<f32>(B[((v__1 * 64i) + i32(threadIdx.x))])) + f32((fl[0i] * sh)));
}