struct Particle {
    pos: vec3<f32>,
    radius: f32,
}

struct GridParams {
    cell_size: f32,
    table_size: u32,
    count: u32,
}

@group(0) @binding(0) var<storage, read> particles: array<Particle>;
@group(0) @binding(1) var<storage, read_write> cell_count: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> cell_start: array<u32>;
@group(0) @binding(3) var<storage, read_write> sorted_ids: array<u32>;
@group(0) @binding(4) var<storage, read_write> particle_cell: array<u32>;
@group(0) @binding(5) var<uniform> grid: GridParams;

fn cell_coord(p: vec3<f32>) -> vec3<i32> {
    return vec3<i32>(floor(p / grid.cell_size));
}

// Teschner et al. 2003, "Optimized Spatial Hashing for Collision Detection
// of Deformable Objects"
fn hash_cell(c: vec3<i32>) -> u32 {
    let h = (c.x * 73856093) ^ (c.y * 19349663) ^ (c.z * 83492791);
    return u32(abs(h)) % grid.table_size;
}

@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= grid.count) {
        return;
    }
    let cell = hash_cell(cell_coord(particles[i].pos));
    particle_cell[i] = cell;
    atomicAdd(&cell_count[cell], 1u);
}

var<workgroup> scan: array<u32, 64>;

@compute @workgroup_size(64)
fn prefix(@builtin(local_invocation_index) li: u32) {
    let v = select(0u, atomicLoad(&cell_count[li]), li < grid.table_size);
    scan[li] = v;
    workgroupBarrier();
    for (var off = 1u; off < 64u; off <<= 1u) {
        let add = select(0u, scan[li - off], li >= off);
        workgroupBarrier();
        scan[li] += add;
        workgroupBarrier();
    }
    if (li < grid.table_size) {
        cell_start[li] = scan[li] - v; // exclusive
        atomicStore(&cell_count[li], 0u); // now the scatter cursor
    }
}

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= grid.count) {
        return;
    }
    let cell = particle_cell[i];
    let slot = atomicAdd(&cell_count[cell], 1u);
    sorted_ids[cell_start[cell] + slot] = i;
}
