// matvec's attention input (flag 32): hs[i], for the k4 vec4s of the
// width, is head h's attention output merged from the ceil(len/32) chunks
// attn_split wrote, exactly as attn_combine merges them (the same
// operations in the same order), so the output projection needs no
// combine dispatch before it. x, gamma and beta are unread.

struct AttnDims {
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

@group(0) @binding(7) var<storage, read> part: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> adims: AttnDims;
@group(0) @binding(9) var<uniform> st: Step;

fn attn_fill(lid: u32, k4: u32) {
	let hd4 = adims.hd4;
	let stride = hd4 + 1u;
	let chunks = (adims.ctx + 31u) >> 5u;
	let live = (min(st.len, adims.ctx) + 31u) >> 5u;
	for (var i = lid; i < min(k4, 512u); i = i + 256u) {
		// i = h·hd4 + col, without a division by a run-time value.
		var h = 0u;
		var col = i;
		loop {
			if (col < hd4) {
				break;
			}
			col = col - hd4;
			h = h + 1u;
		}
		let base = h * chunks * stride;
		var mx = -3.4e38f;
		for (var c = 0u; c < live; c = c + 1u) {
			mx = max(mx, part[base + c * stride].x);
		}
		// The denominator and the weighted values in one pass (each sum in
		// chunk order, as attn_combine's two): one more round of reads
		// after the maximum's, not two.
		var den = 0.0f;
		var a = vec4<f32>(0.0f);
		for (var c = 0u; c < live; c = c + 1u) {
			let o = base + c * stride;
			let ml = part[o];
			let e = exp(ml.x - mx);
			den = den + e * ml.y;
			a = a + e * part[o + 1u + col];
		}
		hs[i] = a / den;
	}
}
