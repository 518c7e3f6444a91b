requires readonly_and_readwrite_storage_textures;

@group(0) @binding(0) var labels: texture_storage_2d<r32uint, read_write>;
@group(0) @binding(1) var<storage, read_write> changed: atomic<u32>;

const BACKGROUND = 0xffffffffu;
const NEIGHBOURS = array(vec2(1, 0), vec2(-1, 0), vec2(0, 1), vec2(0, -1));

@compute @workgroup_size(8, 8)
fn propagate(@builtin(global_invocation_id) gid: vec3u) {
    let dims = vec2<i32>(textureDimensions(labels));
    let p = vec2<i32>(gid.xy);
    if (any(p >= dims)) {
        return;
    }
    let own = textureLoad(labels, p).x;
    if (own == BACKGROUND) {
        return;
    }
    var best = own;
    for (var i = 0u; i < 4u; i++) {
        let q = p + NEIGHBOURS[i];
        if (any(q < vec2(0)) || any(q >= dims)) {
            continue;
        }
        best = min(best, textureLoad(labels, q).x); // the background never wins
    }
    if (best < own) {
        textureStore(labels, p, vec4(best, 0u, 0u, 0u));
        atomicMax(&changed, 1u);
    }
}
