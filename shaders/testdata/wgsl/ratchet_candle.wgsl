@group(0) @binding(0) var<storage, read> X: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> Y: array<vec4<f32>>;
struct Meta {
    numel: u32,
    alpha: f32,
}
@group(1) @binding(0) var<uniform> metadata: Meta;
const SQRT_2_OVER_PI: f32 = 0.7978845608028654;
fn safe_tanh(x: vec4<f32>) -> vec4<f32> {
    return select(tanh(x), sign(x), abs(x) >= vec4<f32>(10.0));
}
fn gelu(val: vec4<f32>) -> vec4<f32> {
    let cdf = vec4<f32>(0.5) + vec4<f32>(0.5) * safe_tanh(SQRT_2_OVER_PI * (val + 0.044715 * (val * val * val)));
    return val * cdf;
}
@compute @workgroup_size(8, 8, 1)
fn main(
        @builtin(global_invocation_id) global_id: vec3<u32>,
        @builtin(local_invocation_id) local_id: vec3<u32>,
        @builtin(workgroup_id) group_id: vec3<u32>,
        @builtin(num_workgroups) num_groups: vec3<u32>
) {
    let x_offset = group_id.x * 64u;
    let index = (group_id.y * num_groups.x * 64u) + x_offset + local_id.x + local_id.y * 8u;
    if (index >= metadata.numel / 4u) {
        return;
    }
    Y[index] = gelu(X[index]) * metadata.alpha;
}