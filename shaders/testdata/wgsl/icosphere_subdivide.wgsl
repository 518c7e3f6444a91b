const PHI = (1.0 + sqrt(5.0)) / 2.0;

// The 12 vertices and 20 faces of an icosahedron.
const ICO_VERTICES = array(
    vec3(-1.0,  PHI, 0.0), vec3( 1.0,  PHI, 0.0), vec3(-1.0, -PHI, 0.0), vec3( 1.0, -PHI, 0.0),
    vec3(0.0, -1.0,  PHI), vec3(0.0,  1.0,  PHI), vec3(0.0, -1.0, -PHI), vec3(0.0,  1.0, -PHI),
    vec3( PHI, 0.0, -1.0), vec3( PHI, 0.0,  1.0), vec3(-PHI, 0.0, -1.0), vec3(-PHI, 0.0,  1.0),
);

const ICO_FACES = array<vec3<u32>, 20>(
    vec3(0u, 11u, 5u), vec3(0u, 5u, 1u), vec3(0u, 1u, 7u), vec3(0u, 7u, 10u), vec3(0u, 10u, 11u),
    vec3(1u, 5u, 9u), vec3(5u, 11u, 4u), vec3(11u, 10u, 2u), vec3(10u, 7u, 6u), vec3(7u, 1u, 8u),
    vec3(3u, 9u, 4u), vec3(3u, 4u, 2u), vec3(3u, 2u, 6u), vec3(3u, 6u, 8u), vec3(3u, 8u, 9u),
    vec3(4u, 9u, 5u), vec3(2u, 4u, 11u), vec3(6u, 2u, 10u), vec3(8u, 6u, 7u), vec3(9u, 8u, 1u),
);

@group(0) @binding(0) var<storage, read_write> positions: array<vec3<f32>>;
@group(0) @binding(1) var<uniform> radius: f32;

fn on_sphere(p: vec3<f32>) -> vec3<f32> {
    return normalize(p) * radius;
}

@compute @workgroup_size(32)
fn subdivide(@builtin(global_invocation_id) gid: vec3u) {
    let f = gid.x;
    if (f >= 20u) {
        return;
    }
    let face = ICO_FACES[f];
    let a = ICO_VERTICES[face.x];
    let b = ICO_VERTICES[face.y];
    let c = ICO_VERTICES[face.z];
    let base = f * 6u;
    positions[base + 0u] = on_sphere(a);
    positions[base + 1u] = on_sphere(b);
    positions[base + 2u] = on_sphere(c);
    positions[base + 3u] = on_sphere(mix(a, b, 0.5));
    positions[base + 4u] = on_sphere(mix(b, c, 0.5));
    positions[base + 5u] = on_sphere(mix(c, a, 0.5));
}
