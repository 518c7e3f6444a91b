const chunkWidth = 4;
const chunkHeight = 4;
const chunkSize = chunkWidth * chunkHeight;
var<workgroup> bins: array<atomic<u32>, chunkSize>;
@group(0) @binding(0) var<storage, read_write> chunks: array<array<u32, chunkSize>>;
@group(0) @binding(1) var ourTexture: texture_2d<f32>;

@compute @workgroup_size(chunkWidth, chunkHeight, 1)
fn cs(
  @builtin(global_invocation_id) global_invocation_id: vec3u,
  @builtin(workgroup_id) workgroup_id: vec3u,
  @builtin(local_invocation_id) local_invocation_id: vec3u,
  @builtin(num_workgroups) num_workgroups: vec3u,
  @builtin(local_invocation_index) local_invocation_index: u32,
) {
  atomicStore(&bins[local_invocation_index], 0u);
  workgroupBarrier();
  let size = textureDimensions(ourTexture, 0);
  let position = global_invocation_id.xy;
  if (all(position < size)) {
    let numBins = f32(chunkSize);
    let lastBinIndex = u32(numBins - 1);
    let color = textureLoad(ourTexture, position, 0);
    let bin = min(u32(color.r * numBins), lastBinIndex);
    atomicAdd(&bins[bin], 1u);
  }
  workgroupBarrier();
  let chunk = workgroup_id.y * num_workgroups.x + workgroup_id.x;
  let bin = local_invocation_index;
  chunks[chunk][bin] = atomicLoad(&bins[bin]);
}

@group(0) @binding(0) var<storage, read_write> sums: array<array<vec4u, chunkSize / 4>>;
struct Uniforms { stride: u32, };
@group(0) @binding(2) var<uniform> uni: Uniforms;

@compute @workgroup_size(chunkSize / 4, 1, 1) fn reduce(
  @builtin(local_invocation_id) local_invocation_id: vec3u,
  @builtin(workgroup_id) workgroup_id: vec3u,
) {
  let chunk0 = workgroup_id.x * uni.stride * 2;
  let chunk1 = chunk0 + uni.stride;
  let sum = sums[chunk0][local_invocation_id.x] + sums[chunk1][local_invocation_id.x];
  sums[chunk0][local_invocation_id.x] = sum;
}