const FACE_FORWARD = array(
    vec3(1.0, 0.0, 0.0), vec3(-1.0, 0.0, 0.0),
    vec3(0.0, 1.0, 0.0), vec3(0.0, -1.0, 0.0),
    vec3(0.0, 0.0, 1.0), vec3(0.0, 0.0, -1.0),
);

@group(0) @binding(0) var<storage, read_write> dirs: array<vec4<f32>>;

fn face_direction(basis: array<vec3f, 6>, face: u32, uv: vec2f) -> vec3f {
    let f = basis[face];
    // the two axes across the face: any pair orthogonal to f
    let up = select(vec3(0.0, 1.0, 0.0), vec3(0.0, 0.0, 1.0), abs(f.y) > 0.5);
    let right = cross(up, f);
    return normalize(f + uv.x * right + uv.y * cross(f, right));
}

@compute @workgroup_size(6)
fn main(@builtin(local_invocation_index) face: u32) {
    dirs[face] = vec4(face_direction(FACE_FORWARD, face, vec2(0.0)), 0.0);
}
