// attn_combine: out_h = Σ_c e^(m_c − M)·o_c / Σ_c e^(m_c − M)·l_c over the
// ceil(len/32) chunks attn_split wrote for head h (M the largest m_c): the
// exact softmax-weighted sum of values, merged in chunk order. One
// workgroup per head; every invocation computes M and the denominator
// itself, in the same order.

struct Dims {
	d4: u32,
	hd4: u32,
	ctx: u32,
	scale: f32,
}

struct Step {
	pos: u32,
	len: u32,
	_pad0: u32,
	_pad1: u32,
}

@group(0) @binding(0) var<storage, read> part: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> att: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> dims: Dims;
@group(0) @binding(3) var<uniform> st: Step;

@compute @workgroup_size(64)
fn attn_combine(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
	let h = wid.x;
	let hd4 = dims.hd4;
	let stride = hd4 + 1u;
	let chunks = (dims.ctx + 31u) >> 5u;
	let live = (min(st.len, dims.ctx) + 31u) >> 5u;
	let base = h * chunks * stride;
	var mx = -3.4e38f;
	for (var c = 0u; c < live; c = c + 1u) {
		mx = max(mx, part[base + c * stride].x);
	}
	var den = 0.0f;
	for (var c = 0u; c < live; c = c + 1u) {
		let ml = part[base + c * stride];
		den = den + exp(ml.x - mx) * ml.y;
	}
	for (var col = lid; col < hd4; col = col + 64u) {
		var a = vec4<f32>(0.0f);
		for (var c = 0u; c < live; c = c + 1u) {
			let o = base + c * stride;
			a = a + exp(part[o].x - mx) * part[o + 1u + col];
		}
		att[h * hd4 + col] = a / den;
	}
}
