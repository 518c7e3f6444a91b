// matvec: y[o + r] = epilogue(W[r] · prologue(x)) for r < rows, W row-major
// (rows×cols, output-major). The weight declaration and wload, which reads
// one 8-column unit of a row as two vec4<f32>, come first (matvec_f32.wgsl
// or matvec_f16.wgsl), then attn_fill (matvec_noattn.wgsl, or
// matvec_attn.wgsl: the attention combine as the input); this is the body
// they share.
//
// Layout: 256 invocations; 2^tshift of them per row, 256 >> tshift rows per
// workgroup. A row's invocations read consecutive 8-column units (32 bytes
// of f32, 16 of f16), so a row is read in full, contiguous spans, and meet
// in one tree in workgroup memory. Every loop bound and branch depends on
// the uniform or the workgroup only, so every invocation reaches every
// barrier.
//
// flags: 1 bias, 2 GELU (tanh form, argument clamped to ±15), 4 residual
// (y[o + r] += result), 8 layer norm prologue (x normalised by the mean and
// variance of its cols elements, times gamma plus beta), 16 RMS norm
// prologue (x / rms(x) times gamma), 32 the input is attention's
// partials merged per head (attn_fill, as attn_combine merges them). 8, 16
// and 32 exclude each other, and a
// norm takes at most 2048 cols: the normalised x is kept in workgroup
// memory (hs), so each weight load pairs with one workgroup-memory load
// instead of three loads of x, gamma and beta.

struct Params {
	rows: u32,
	cols: u32,
	flags: u32,
	eps: f32,
	out_offset: u32,
	tshift: u32,
	_pad0: u32,
	_pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read> gamma: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> beta: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;

// The launch's shape, flags and layout: SPEC and the SPEC_ constants
// come first in the source (MatVecShader.For writes them for one launch's
// op, the shipped source has SPEC 0). With SPEC 1 every address and loop
// bound is known when the kernel starts and the compiler folds the
// branches on the flags away; with SPEC 0 they are read from the params
// uniform, which carries them in either case. A short matrix-vector
// product is a few memory round trips long, and the uniform's read was one
// more before the first weight's could be issued.
fn mv_rows() -> u32 {
	return select(p.rows, SPEC_ROWS, SPEC != 0u);
}

fn mv_cols() -> u32 {
	return select(p.cols, SPEC_COLS, SPEC != 0u);
}

fn mv_flags() -> u32 {
	return select(p.flags, SPEC_FLAGS, SPEC != 0u);
}

fn mv_tshift() -> u32 {
	return select(p.tshift, SPEC_TSHIFT, SPEC != 0u);
}

var<workgroup> red: array<f32, 256>;
var<workgroup> stats: array<vec2<f32>, 256>;
var<workgroup> hs: array<vec4<f32>, 512>;

// xin is the prologue's output at vec4 index i: x itself, or its norm
// from hs.
fn xin(i: u32) -> vec4<f32> {
	if ((mv_flags() & 56u) != 0u) {
		return hs[i];
	}
	return x[i];
}

fn wdot(ui: u32, a: vec4<f32>, b: vec4<f32>) -> f32 {
	let q = wload(ui);
	return dot(q[0], a) + dot(q[1], b);
}

fn gelu(v: f32) -> f32 {
	let u = clamp(0.7978845608f * (v + 0.044715f * v * v * v), -15.0f, 15.0f);
	return 0.5f * v * (1.0f + tanh(u));
}

@compute @workgroup_size(256)
fn matvec(
	@builtin(workgroup_id) wid: vec3<u32>,
	@builtin(num_workgroups) nwg: vec3<u32>,
	@builtin(local_invocation_index) lid: u32,
) {
	let k8 = mv_cols() >> 3u;
	let k4 = mv_cols() >> 2u;
	let tpr = 1u << mv_tshift();
	let lane = lid & (tpr - 1u);
	let row = (wid.y * nwg.x + wid.x) * (256u >> mv_tshift()) + (lid >> mv_tshift());
	let kend = select(0u, k8, row < mv_rows());
	let base = row * k8;
	// The first unit's weights are loaded before the norm's reductions, so
	// their memory latency overlaps them.
	var w0 = mat2x4<f32>(vec4<f32>(0.0f), vec4<f32>(0.0f));
	if (lane < kend) {
		w0 = wload(base + lane);
	}
	// The epilogue's operands too, by the invocation that writes the row:
	// read at the end they were one more memory round trip after the
	// reduction.
	var ebias = 0.0f;
	var eres = 0.0f;
	if (lane == 0u && row < mv_rows()) {
		if ((mv_flags() & 1u) != 0u) {
			ebias = bias[row];
		}
		if ((mv_flags() & 4u) != 0u) {
			eres = y[p.out_offset + row];
		}
	}
	if ((mv_flags() & 24u) != 0u) {
		// One pass of sums and sums of squares, shifted by x[0] for the
		// layer norm (so the variance is not the difference of two large
		// numbers), the whole workgroup over the row.
		let rms = (mv_flags() & 16u) != 0u;
		let x0 = select(x[0].x, 0.0f, rms);
		var s = vec2<f32>(0.0f);
		for (var i = lid; i < k4; i = i + 256u) {
			let v = x[i] - vec4<f32>(x0);
			s = s + vec2<f32>(v.x + v.y + v.z + v.w, dot(v, v));
		}
		stats[lid] = s;
		workgroupBarrier();
		for (var h = 128u; h > 0u; h = h >> 1u) {
			if (lid < h) {
				stats[lid] = stats[lid] + stats[lid + h];
			}
			workgroupBarrier();
		}
		let t = stats[0] / f32(mv_cols());
		var mean = 0.0f;
		var inv = 0.0f;
		if (rms) {
			inv = inverseSqrt(t.y + p.eps);
		} else {
			mean = x0 + t.x;
			inv = inverseSqrt(max(t.y - t.x * t.x, 0.0f) + p.eps);
		}
		for (var i = lid; i < min(k4, 512u); i = i + 256u) {
			var v = (x[i] - vec4<f32>(mean)) * inv * gamma[i];
			if (!rms) {
				v = v + beta[i];
			}
			hs[i] = v;
		}
		workgroupBarrier();
	}
	if ((mv_flags() & 32u) != 0u) {
		attn_fill(lid, k4);
		workgroupBarrier();
	}

	// The first three units (all of a row's share at the shapes the
	// layout picks, which leave at most four) are loaded before any is
	// used, so their latencies overlap; then two units in flight per
	// iteration. Units 0, 1, 3, 5, ... add into a0 and 2, 4, ... into
	// a1, in that order, whatever the layout.
	let u1 = lane + tpr;
	let u2 = u1 + tpr;
	var w1 = mat2x4<f32>(vec4<f32>(0.0f), vec4<f32>(0.0f));
	var w2 = w1;
	var x0a = vec4<f32>(0.0f);
	var x0b = x0a;
	var x1a = x0a;
	var x1b = x0a;
	var x2a = x0a;
	var x2b = x0a;
	if (u1 < kend) {
		w1 = wload(base + u1);
	}
	if (u2 < kend) {
		w2 = wload(base + u2);
	}
	if (lane < kend) {
		x0a = xin(2u * lane);
		x0b = xin(2u * lane + 1u);
	}
	if (u1 < kend) {
		x1a = xin(2u * u1);
		x1b = xin(2u * u1 + 1u);
	}
	if (u2 < kend) {
		x2a = xin(2u * u2);
		x2b = xin(2u * u2 + 1u);
	}
	var a0 = 0.0f;
	var a1 = 0.0f;
	if (lane < kend) {
		a0 = dot(w0[0], x0a) + dot(w0[1], x0b);
	}
	if (u1 < kend) {
		a0 = a0 + (dot(w1[0], x1a) + dot(w1[1], x1b));
	}
	if (u2 < kend) {
		a1 = a1 + (dot(w2[0], x2a) + dot(w2[1], x2b));
	}
	var u = u2 + tpr;
	loop {
		if (u + tpr >= kend) {
			break;
		}
		let v = u + tpr;
		a0 = a0 + wdot(base + u, xin(2u * u), xin(2u * u + 1u));
		a1 = a1 + wdot(base + v, xin(2u * v), xin(2u * v + 1u));
		u = u + 2u * tpr;
	}
	if (u < kend) {
		a0 = a0 + wdot(base + u, xin(2u * u), xin(2u * u + 1u));
	}
	red[lid] = a0 + a1;
	workgroupBarrier();
	for (var h = tpr >> 1u; h > 0u; h = h >> 1u) {
		if (lane < h) {
			red[lid] = red[lid] + red[lid + h];
		}
		workgroupBarrier();
	}
	if (lane == 0u && row < mv_rows()) {
		var v = red[lid];
		if ((mv_flags() & 1u) != 0u) {
			v = v + ebias;
		}
		if ((mv_flags() & 2u) != 0u) {
			v = gelu(v);
		}
		if ((mv_flags() & 4u) != 0u) {
			v = eres + v;
		}
		y[p.out_offset + row] = v;
	}
}
