struct Params {
    N: u32,
    log2N: u32,
}

@group(0) @binding(0) var butterfly: texture_storage_2d<rgba32float, write>;
@group(0) @binding(1) var<uniform> params: Params;

const PI: f32 = 3.1415926535897932384626433832795;

@compute @workgroup_size(1, 16, 1)
fn precompute_butterfly(@builtin(global_invocation_id) id: vec3<u32>) {
    let stage = id.x;
    let y = id.y;
    let N = params.N;
    let k = f32((y * (N >> (stage + 1u))) % N);
    let twiddle = vec2<f32>(cos(2.0 * PI * k / f32(N)), sin(2.0 * PI * k / f32(N)));
    let span = 1u << stage;
    let top_wing = (y % (span << 1u)) < span;
    let shift = 32u - params.log2N;
    if (stage == 0u) {
        let a = select(y - 1u, y, top_wing);
        let b = select(y, y + 1u, top_wing);
        textureStore(butterfly, vec2<i32>(id.xy), vec4(twiddle, f32(reverseBits(a) >> shift), f32(reverseBits(b) >> shift)));
    } else {
        let a = select(y - span, y, top_wing);
        let b = select(y, y + span, top_wing);
        textureStore(butterfly, vec2<i32>(id.xy), vec4(twiddle, f32(a), f32(b)));
    }
}
