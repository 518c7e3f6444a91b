alias float4 = vec4<f32>;

struct Info {
    op: u32,
    n: u32,
    alpha: f32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> info: Info;

fn ipow(x: f32, n: i32) -> f32 {
    var r = 1.0;
    var i = 0;
    loop {
        if i >= n { break; }
        r *= x;
        continuing {
            i++;
        }
    }
    return r;
}

fn apply(op: u32, x: f32, y: f32) -> f32 {
    switch op {
        case 0u, 1u: {
            return select(x + y, x - y, op == 1u);
        }
        case 2u: {
            return x * y;
        }
        default: {
            return x;
        }
        case 3u, 4u, {
            return select(max(x, y), min(x, y), op == 4u);
        }
        case 5u: {
            return ipow(x, i32(y));
        }
        case 6u: {
            return f32(countOneBits(bitcast<u32>(x)));
        }
        case 7u: {
            return select(info.alpha * x, x, x >= 0.0);
        }
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= info.n) {
        return;
    }
    out[i] = apply(info.op, a[i], b[i]);
}

@compute @workgroup_size(16)
fn main_vec4(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x * 4u;
    if (i >= info.n) {
        return;
    }
    var r: float4;
    for (var c = 0u; c < 4u; c++) {
        r[c] = apply(info.op, a[i + c], b[i + c]);
    }
    out[i] = r.x; out[i + 1u] = r.y; out[i + 2u] = r.z; out[i + 3u] = r.w;
}
