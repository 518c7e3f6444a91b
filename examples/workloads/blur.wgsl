// One pass of a separable blur of an rgba8unorm image: each invocation
// writes one texel of `dst`, the weighted sum of 2·radius + 1 texels of
// `src` along `dir`, sampled at texel centres through `samp` (nearest,
// clamp-to-edge, so the image's border repeats outwards). The weights are
// the binomial coefficients C(2·radius, k), a Gaussian of variance
// radius/2 whose sum, 4^radius, is a power of two.
//
// Every value is kept an integer: a sample is turned back into its 8-bit
// code, codes are weighed by integer weights (sums below 2^24 for
// radius ≤ 8, so exact in f32 whatever the order), and the result is
// rounded to the nearest code (halves up) before it is stored as code/255.

struct BlurParams {
	size: vec2u,   // image width and height in texels
	dir: vec2f,    // (1, 0) for the horizontal pass, (0, 1) for the vertical
	radius: u32,   // taps on each side of the centre
	norm: f32,     // 1 / 4^radius, the reciprocal of the weights' sum
}

@group(0) @binding(0) var samp: sampler;
@group(0) @binding(1) var src: texture_2d<f32>;
@group(0) @binding(2) var dst: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(0) var<uniform> params: BlurParams;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3u) {
	if (id.x >= params.size.x || id.y >= params.size.y) {
		return;
	}
	let size = vec2f(params.size);
	let centre = vec2f(id.xy) + vec2f(0.5, 0.5);
	let taps = 2u * params.radius;
	var weight = 1u; // C(taps, k), starting at k = 0
	var sum = vec4f(0.0);
	for (var k = 0u; k <= taps; k++) {
		let offset = f32(k) - f32(params.radius);
		let uv = (centre + params.dir * offset) / size;
		let code = round(textureSampleLevel(src, samp, uv, 0.0) * 255.0);
		sum += f32(weight) * code;
		weight = weight * (taps - k) / (k + 1u);
	}
	let rounded = floor(sum * params.norm + vec4f(0.5));
	textureStore(dst, vec2i(id.xy), rounded / 255.0);
}
