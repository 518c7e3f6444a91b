struct Uniforms { norm_count:u32, norm_size_vectorized:u32, norm_size:f32, epsilon:f32 };
@group(0) @binding(6) var<uniform> uniforms: Uniforms;

  @group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
  @group(0) @binding(1) var<storage, read> scale: array<vec4<f32>>;
  @group(0) @binding(2) var<storage, read> bias: array<vec4<f32>>;
  @group(0) @binding(3) var<storage, read_write> output: array<vec4<f32>>;
  @group(0) @binding(4) var<storage, read_write> mean_data_output: array<f32>;
  @group(0) @binding(5) var<storage, read_write> inv_std_output: array<f32>;

  @compute @workgroup_size(64, 1, 1)
  fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
    @builtin(workgroup_id) workgroup_id : vec3<u32>,
    @builtin(local_invocation_index) local_idx : u32,
    @builtin(local_invocation_id) local_id : vec3<u32>,
    @builtin(num_workgroups) num_workgroups : vec3<u32>) {
    let workgroup_index = workgroup_id.z * num_workgroups[0] * num_workgroups[1] +
          workgroup_id.y * num_workgroups[0] + workgroup_id.x;
    let global_idx = workgroup_index * 64u + local_idx;

    if (global_idx >= uniforms.norm_count) { return; }
    let offset = global_idx * uniforms.norm_size_vectorized;
    var mean_vector = vec4<f32>(0);
    var mean_square_vector = vec4<f32>(0);

    for (var h: u32 = 0u; h < uniforms.norm_size_vectorized; h++) {
      let value = vec4<f32>(x[h + offset]);
      mean_vector += value;
      mean_square_vector += value * value;
    }
    let mean = (mean_vector.x + mean_vector.y + mean_vector.z + mean_vector.w) / uniforms.norm_size;
    let inv_std_dev = inverseSqrt((mean_square_vector.x + mean_square_vector.y + mean_square_vector.z + mean_square_vector.w) / uniforms.norm_size - mean * mean + uniforms.epsilon);

    for (var j: u32 = 0; j < uniforms.norm_size_vectorized; j++) {
      let f32input = vec4<f32>(x[j + offset]);
      let f32scale = vec4<f32>(scale[j]);
      output[j + offset] =  vec4<f32>((f32input - mean) * inv_std_dev * f32scale + vec4<f32>(bias[j]));
    }
    mean_data_output[global_idx] = mean;
    inv_std_output[global_idx] = inv_std_dev;
  }
