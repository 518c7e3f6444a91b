// matvec's float16 weights, packed two to a u32 (the even column in the low
// half, as pack2x16float packs them) and read with unpack2x16float, which
// is core WGSL: no shader-f16 feature. Row r's unit u (8 columns) is the
// vec4<u32> r·cols/8 + u. Accumulation stays float32.
@group(0) @binding(1) var<storage, read> w: array<vec4<u32>>;

fn wload(ui: u32) -> mat2x4<f32> {
	let q = w[ui];
	return mat2x4<f32>(
		vec4<f32>(unpack2x16float(q.x), unpack2x16float(q.y)),
		vec4<f32>(unpack2x16float(q.z), unpack2x16float(q.w)),
	);
}
