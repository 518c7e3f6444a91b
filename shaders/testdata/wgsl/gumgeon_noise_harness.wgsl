
@group(0) @binding(0) var<storage, read> pts: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> res: array<u32>;

@compute @workgroup_size(64)
fn harness(@builtin(global_invocation_id) id: vec3u) {
    let f = pts[id.x];
    let o = 16u * id.x;
    res[o] = hash11(bitcast<u32>(f.x));
    let h2 = hash22(bitcast<vec2u>(f.xy));
    res[o + 1u] = h2.x; res[o + 2u] = h2.y;
    let h3 = hash33(bitcast<vec3u>(f.xyz));
    res[o + 3u] = h3.x; res[o + 4u] = h3.y; res[o + 5u] = h3.z;
    let h4 = hash44(bitcast<vec4u>(f));
    res[o + 6u] = h4.x; res[o + 7u] = h4.y; res[o + 8u] = h4.z; res[o + 9u] = h4.w;
    res[o + 10u] = bitcast<u32>(rand11(f.x));
    let r2 = bitcast<vec2u>(rand22(f.xy));
    res[o + 11u] = r2.x; res[o + 12u] = r2.y;
    res[o + 13u] = bitcast<u32>(Noise2(f.xy));
    res[o + 14u] = bitcast<u32>(Noise3(f.xyz));
    res[o + 15u] = 7u;
}
