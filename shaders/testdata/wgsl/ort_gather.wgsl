struct Uniforms { outputSize:u32, axisDimLimit:i32, axis:u32, data_shape:vec2<u32>, data_strides:vec2<u32>, inputIndices_shape:u32, inputIndices_strides:u32, output_shape:vec2<u32>, output_strides:vec2<u32> };
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

  @group(0) @binding(0) var<storage, read> data: array<f32>;
  @group(0) @binding(1) var<storage, read> inputIndices: array<vec2<u32>>;
  @group(0) @binding(2) var<storage, read_write> output: array<f32>;

  fn o2i_output(offset: u32) -> vec2<u32> {
    var indices: vec2<u32>;
    var current = offset;

    let dim1 = current / uniforms.output_strides[0];
    let rest1 = current % uniforms.output_strides[0];
    indices[0] = dim1;
    current = rest1;

    indices[1] = current;
    return indices;
  }

  fn i2o_data(indices: vec2<u32>) -> u32 {
    return uniforms.data_strides[1] * (indices[1])+uniforms.data_strides[0] * (indices[0]);
  }

  fn i2o_inputIndices(indices: u32) -> u32 {
    return indices;
  }

  @compute @workgroup_size(64, 1, 1)
  fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
    @builtin(workgroup_id) workgroup_id : vec3<u32>,
    @builtin(local_invocation_index) local_idx : u32,
    @builtin(local_invocation_id) local_id : vec3<u32>,
    @builtin(num_workgroups) num_workgroups : vec3<u32>) {
    let workgroup_index = workgroup_id.z * num_workgroups[0] * num_workgroups[1] +
          workgroup_id.y * num_workgroups[0] + workgroup_id.x;
    let global_idx = workgroup_index * 64u + local_idx;

    if (global_idx >= uniforms.outputSize) { return; }
    let outputIndices = o2i_output(global_idx);
    var indicesIndices  = u32(0);
    indicesIndices = outputIndices[0];
    var idx = i32(inputIndices[i2o_inputIndices(indicesIndices)].x);
    if (idx < 0) {
      idx = idx + uniforms.axisDimLimit;
    }
    var dataIndices : vec2<u32>;
    dataIndices[0] = u32(idx);
    dataIndices[1] = outputIndices[1];
    let value = data[i2o_data(dataIndices)];
    output[global_idx] = value;
  }
