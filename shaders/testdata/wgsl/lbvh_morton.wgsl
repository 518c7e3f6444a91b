struct AABB {
    min: vec3<f32>,
    max: vec3<f32>,
};

struct SceneBounds {
    min_x: atomic<u32>, min_y: atomic<u32>, min_z: atomic<u32>,
    max_x: atomic<u32>, max_y: atomic<u32>, max_z: atomic<u32>,
};

@group(0) @binding(0) var<storage, read> aabbs: array<AABB>;
@group(0) @binding(1) var<storage, read_write> bounds: SceneBounds;
@group(0) @binding(2) var<storage, read_write> morton_codes: array<u32>;
@group(0) @binding(3) var<storage, read_write> primitive_ids: array<u32>;

// Expands a 10-bit integer into 30 bits by inserting 2 zeros after each bit.
fn expandBits(v: u32) -> u32 {
    var x = v & 0x3ffu;
    x = (x | (x << 16u)) & 0x030000FFu;
    x = (x | (x <<  8u)) & 0x0300F00Fu;
    x = (x | (x <<  4u)) & 0x030C30C3u;
    x = (x | (x <<  2u)) & 0x09249249u;
    return x;
}

// Calculates a 30-bit Morton code for the given 3D point located within
// the unit cube [0,1].
fn morton3D(p: vec3<f32>) -> u32 {
    let q = vec3<u32>(clamp(p * 1024.0, vec3(0.0), vec3(1023.0)));
    return (expandBits(q.x) << 2u) | (expandBits(q.y) << 1u) | expandBits(q.z);
}

@compute @workgroup_size(64)
fn compute_bounds(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&aabbs)) {
        return;
    }
    let box = aabbs[i];
    // Non-negative floats order like their bit patterns.
    atomicMin(&bounds.min_x, bitcast<u32>(box.min.x));
    atomicMin(&bounds.min_y, bitcast<u32>(box.min.y));
    atomicMin(&bounds.min_z, bitcast<u32>(box.min.z));
    atomicMax(&bounds.max_x, bitcast<u32>(box.max.x));
    atomicMax(&bounds.max_y, bitcast<u32>(box.max.y));
    atomicMax(&bounds.max_z, bitcast<u32>(box.max.z));
}

@compute @workgroup_size(64)
fn compute_morton(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&aabbs)) {
        return;
    }
    let lo = bitcast<vec3<f32>>(vec3(atomicLoad(&bounds.min_x), atomicLoad(&bounds.min_y), atomicLoad(&bounds.min_z)));
    let hi = bitcast<vec3<f32>>(vec3(atomicLoad(&bounds.max_x), atomicLoad(&bounds.max_y), atomicLoad(&bounds.max_z)));
    let box = aabbs[i];
    let centroid = 0.5 * (box.min + box.max);
    let extent = max(hi - lo, vec3(1e-6));
    morton_codes[i] = morton3D((centroid - lo) / extent);
    primitive_ids[i] = i;
}
