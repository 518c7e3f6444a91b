diagnostic(off, derivative_uniformity);

@group(0) @binding(0) var inputTex: texture_2d<f32>;
@group(0) @binding(1) var outputTex: texture_storage_2d<r32float, write>;

const sobelX = mat3x3f(-1, 0, 1, -2, 0, 2, -1, 0, 1);
const sobelY = mat3x3f(-1, -2, -1, 0, 0, 0, 1, 2, 1);

fn luminance(c: vec3<f32>) -> f32 {
    return dot(c, vec3(0.2126, 0.7152, 0.0722));
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let dims = vec2<i32>(textureDimensions(inputTex));
    let coord = vec2<i32>(gid.xy);
    if (coord.x >= dims.x || coord.y >= dims.y) {
        return;
    }
    var gx = 0.0;
    var gy = 0.0;
    for (var j = 0; j < 3; j++) {
        for (var i = 0; i < 3; i++) {
            let p = clamp(coord + vec2(i - 1, j - 1), vec2(0), dims - 1);
            let l = luminance(textureLoad(inputTex, p, 0).rgb);
            gx += sobelX[i][j] * l;
            gy += sobelY[i][j] * l;
        }
    }
    textureStore(outputTex, coord, vec4(length(vec2(gx, gy)), 0.0, 0.0, 1.0));
}
