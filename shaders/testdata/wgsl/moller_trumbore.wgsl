struct Ray {
    origin: vec3f,
    direction: vec3f,
}

struct Triangle {
    v0: vec3f,
    v1: vec3f,
    v2: vec3f,
}

struct Hit {
    t: f32,
    u: f32,
    v: f32,
    index: i32,
}

const EPSILON = 1e-7;

@group(0) @binding(0) var<storage, read> rays: array<Ray>;
@group(0) @binding(1) var<storage, read> triangles: array<Triangle>;
@group(0) @binding(2) var<storage, read_write> hits: array<Hit>;

fn intersect(ray: Ray, tri: Triangle, hit: ptr<function, Hit>, index: i32) {
    let e1 = tri.v1 - tri.v0;
    let e2 = tri.v2 - tri.v0;
    let p = cross(ray.direction, e2);
    let det = dot(e1, p);
    if (abs(det) < EPSILON) {
        return; // parallel
    }
    let inv_det = 1.0 / det;
    let s = ray.origin - tri.v0;
    let u = dot(s, p) * inv_det;
    if (u < 0.0 || u > 1.0) {
        return;
    }
    let q = cross(s, e1);
    let v = dot(ray.direction, q) * inv_det;
    if (v < 0.0 || u + v > 1.0) {
        return;
    }
    let t = dot(e2, q) * inv_det;
    if (t > EPSILON && t < hit.t) {
        *hit = Hit(t, u, v, index);
    }
}

@compute @workgroup_size(64)
fn trace(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= arrayLength(&rays)) {
        return;
    }
    var hit = Hit(1e30, 0.0, 0.0, -1);
    let ray = rays[i];
    for (var k = 0u; k < arrayLength(&triangles); k++) {
        intersect(ray, triangles[k], &hit, i32(k));
    }
    hits[i] = hit;
}
