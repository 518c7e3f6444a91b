@group(0)
@binding(0)
var<storage, read_write> input_0_global: array<f32>;

@group(0)
@binding(1)
var<storage, read_write> input_1_global: array<f32>;

@group(0)
@binding(2)
var<storage, read_write> output_0_global: array<f32>;

@group(0)
@binding(3)
var<storage, read_write> output_1_global: array<u32>;

@group(0)
@binding(4)
var<storage, read_write> info: array<u32>;

const WORKGROUP_SIZE_X = 16u;
const WORKGROUP_SIZE_Y = 16u;
const WORKGROUP_SIZE_Z = 1u;

@compute
@workgroup_size(16, 16, 1)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
) {
    let id = (global_id.z * num_workgroups.x * WORKGROUP_SIZE_X * num_workgroups.y * WORKGROUP_SIZE_Y) + (global_id.y * num_workgroups.x * WORKGROUP_SIZE_X) + global_id.x;
    let rank: u32 = info[0];
    var index_input_0: u32 = 0u;
    var index_input_1: u32 = 0u;

    for (var i: u32 = 1u; i <= rank; i++) {
        let stride_input_0 = info[i];
        let stride_input_1 = info[i + rank];
        let stride_output = info[i + 2u * rank];
        let shape_input_0 = info[i + 3u * rank];
        let shape_input_1 = info[i + 4u * rank];

        index_input_0 += id / stride_output % shape_input_0 * stride_input_0;
        index_input_1 += id / stride_output % shape_input_1 * stride_input_1;
    }
    var l_0_3: bool;
    l_0_3 = id < arrayLength(&output_0_global);
    if !l_0_3 {
        return;
    }
    let l_0_0 = input_0_global[index_input_0];
    let l_0_1 = input_1_global[index_input_1];
    var l_0_2: f32;
    l_0_2 = l_0_0 + l_0_1;
    var l_1_0: u32 = 0u;
    loop {
        if l_1_0 >= 3u {
            break;
        }
        l_0_2 = l_0_2 * 0.5f;
        l_1_0 = l_1_0 + 1u;
    }
    output_0_global[id] = clamp_min_scalar(l_0_2, -2.0);
    output_1_global[id] = u32(l_0_2 > 0.0) | (index_input_1 << 8u);
}

fn clamp_min_scalar(lhs: f32, rhs: f32) -> f32 {
    if lhs < rhs {
        return rhs;
    } else {
        return lhs;
    }
}