// matvec's float32 weights: row r's unit u (8 columns) is the vec4s
// 2(r·cols/8 + u) and the one after it.
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;

fn wload(ui: u32) -> mat2x4<f32> {
	return mat2x4<f32>(w[2u * ui], w[2u * ui + 1u]);
}
