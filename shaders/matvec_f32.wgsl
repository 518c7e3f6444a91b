// matvec's float32 weights: row r's unit u (8 columns) is the vec4s
// 2(r·cols/8 + u) and the one after it.
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;

fn wdot(ui: u32, a: vec4<f32>, b: vec4<f32>) -> f32 {
	let i = 2u * ui;
	return dot(w[i], a) + dot(w[i + 1u], b);
}
