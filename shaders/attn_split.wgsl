// attn_split: one chunk of 32 cached positions of one head of decode
// attention (flash-decoding's first pass). Workgroup (c, h) takes positions
// j in [32c, min(32c + 32, len)) of head h and writes to part, at
// ((h·chunks + c)·(hd4 + 1)), the vec4 (m, l, 0, 0) — the chunk's largest
// scaled score and the sum of exp(score − m) — then the hd4 vec4s of
// Σ exp(score_j − m)·v_j. attn_combine merges the chunks.
//
// q, k and v of the token come in qkv (q at vec4 0, k at d4, v at 2·d4).
// The token's own position st.pos is read from qkv, not the cache, and the
// workgroup whose chunk holds it appends k and v to the caches there, so
// the append needs no dispatch of its own and no other workgroup reads
// that row. len = pos + 1 is the causal mask: rows past it are never read.

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

@group(0) @binding(0) var<storage, read> qkv: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> kc: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> vc: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> part: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> dims: Dims;
@group(0) @binding(5) var<uniform> st: Step;

var<workgroup> dots: array<f32, 256>;
var<workgroup> pw: array<f32, 32>;
var<workgroup> acc: array<vec4<f32>, 256>;

@compute @workgroup_size(256)
fn attn_split(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
	let c = wid.x;
	let h = wid.y;
	let d4 = dims.d4;
	let hd4 = dims.hd4;
	let ho = h * hd4;
	let len = min(st.len, dims.ctx);
	let j0 = c * 32u;
	let cnt = select(0u, min(32u, len - j0), j0 < len);

	// Scores: 8 invocations per position over the head's vec4s.
	let jj = lid >> 3u;
	let lane = lid & 7u;
	var s = 0.0f;
	if (jj < cnt) {
		let j = j0 + jj;
		for (var e = lane; e < hd4; e = e + 8u) {
			var k: vec4<f32>;
			if (j == st.pos) {
				k = qkv[d4 + ho + e];
				kc[j * d4 + ho + e] = k;
			} else {
				k = kc[j * d4 + ho + e];
			}
			s = s + dot(qkv[ho + e], k);
		}
	}
	dots[lid] = s;
	workgroupBarrier();
	for (var o = 4u; o > 0u; o = o >> 1u) {
		if (lane < o) {
			dots[lid] = dots[lid] + dots[lid + o];
		}
		workgroupBarrier();
	}
	// Every invocation reads the chunk's scores in the same order, so all
	// hold the same max and sum.
	var m = -3.4e38f;
	for (var t = 0u; t < cnt; t = t + 1u) {
		m = max(m, dots[8u * t] * dims.scale);
	}
	if (lid < cnt) {
		pw[lid] = exp(dots[8u * lid] * dims.scale - m);
	}
	workgroupBarrier();
	var l = 0.0f;
	for (var t = 0u; t < cnt; t = t + 1u) {
		l = l + pw[t];
	}

	let chunks = (dims.ctx + 31u) >> 5u;
	let pb = (h * chunks + c) * (hd4 + 1u);
	if (lid == 0u) {
		part[pb] = vec4<f32>(m, l, 0.0f, 0.0f);
	}
	// Values: 16 lanes over the head's vec4s, 16 slices over positions,
	// the slices summed in order.
	let col16 = lid & 15u;
	let slice = lid >> 4u;
	for (var cb = 0u; cb < hd4; cb = cb + 16u) {
		let col = cb + col16;
		var a = vec4<f32>(0.0f);
		if (col < hd4) {
			for (var t = slice; t < cnt; t = t + 16u) {
				let j = j0 + t;
				var v: vec4<f32>;
				if (j == st.pos) {
					v = qkv[2u * d4 + ho + col];
					vc[j * d4 + ho + col] = v;
				} else {
					v = vc[j * d4 + ho + col];
				}
				a = a + pw[t] * v;
			}
		}
		acc[lid] = a;
		workgroupBarrier();
		if (slice == 0u && col < hd4) {
			var sum = vec4<f32>(0.0f);
			for (var t = 0u; t < 16u; t = t + 1u) {
				sum = sum + acc[16u * t + col16];
			}
			part[pb + 1u + col] = sum;
		}
		workgroupBarrier();
	}
}
