override HAS_ZERO_POINTS: bool = true;
struct Uniforms { M:u32, N:u32, K:u32, blocks_per_col:u32 };
@group(0) @binding(5) var<uniform> uniforms: Uniforms;
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read> zero_points: array<u32>;
@group(0) @binding(4) var<storage, read_write> output: array<f32>;

fn get_zero_point(n: u32, block: u32) -> f32 {
  let zero_point_index = n * uniforms.blocks_per_col + block;
  let zero_point_word = zero_points[zero_point_index / 8u];
  // The default zero point is 8 for unsigned 4-bit quantization.
  return select(8.0, f32(extractBits(zero_point_word, (zero_point_index % 8u) * 4u, 4u)), HAS_ZERO_POINTS);
}

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let col = global_id.x;
  let row = global_id.y;
  if (col >= uniforms.N || row >= uniforms.M) {
    return;
  }
  var inter_result = 0.0;
  for (var block: u32 = 0; block < uniforms.blocks_per_col; block++) {
    let scale = scales[col * uniforms.blocks_per_col + block];
    let zero_point = get_zero_point(col, block);
    let b_data = b[col * uniforms.blocks_per_col + block];
    var a_offset = (row * uniforms.K + block * 32u) / 4u;
    for (var i: u32 = 0; i < 4; i++) {
      let b_value = b_data[i];
      let b_value_lower = unpack4xU8(b_value & 0x0F0F0F0Fu);
      let b_value_upper = unpack4xU8((b_value >> 4) & 0x0F0F0F0Fu);
      let b_quantized_values = mat2x4<f32>(f32(b_value_lower[0]), f32(b_value_upper[0]), f32(b_value_lower[1]), f32(b_value_upper[1]), f32(b_value_lower[2]), f32(b_value_upper[2]), f32(b_value_lower[3]), f32(b_value_upper[3]));
      let b_dequantized_values = (b_quantized_values - mat2x4<f32>(zero_point, zero_point, zero_point, zero_point, zero_point, zero_point, zero_point, zero_point)) * scale;
      let a_data0 = a[a_offset];
      let a_data1 = a[a_offset + 1];
      inter_result += dot(a_data0, b_dequantized_values[0]) + dot(a_data1, b_dequantized_values[1]);
      a_offset += 2;
    }
  }
  output[row * uniforms.N + col] = inter_result;
}
