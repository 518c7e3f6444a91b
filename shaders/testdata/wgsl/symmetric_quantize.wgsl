@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> q: array<i32>;
@group(0) @binding(2) var<uniform> cfg: vec2<f32>; // scale, bits

fn quantize(v: f32, scale: f32, bits: u32) -> i32 {
    let lo = -(1 << (bits - 1u));
    let hi = (1 << (bits - 1u)) - 1;
    return clamp(i32(round(v / scale)), lo, hi);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= arrayLength(&x)) {
        return;
    }
    q[i] = quantize(x[i], cfg.x, u32(cfg.y));
}
