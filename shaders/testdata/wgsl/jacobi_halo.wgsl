struct Params {
    width: u32,
    height: u32,
}

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> rhs: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

const TILE = 8u;
const HALO = 1u;
const SIZE = TILE + 2u * HALO;

var<workgroup> tile: array<array<f32, SIZE>, SIZE>;

fn load(x: i32, y: i32) -> f32 {
    // Dirichlet boundary: zero outside the grid
    if (x < 0 || y < 0 || x >= i32(params.width) || y >= i32(params.height)) {
        return 0.0;
    }
    return src[u32(y) * params.width + u32(x)];
}

@compute @workgroup_size(TILE, TILE)
fn jacobi(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(local_invocation_id) lid: vec3u,
    @builtin(local_invocation_index) li: u32,
) {
    let origin = vec2<i32>(wid.xy * TILE) - vec2(i32(HALO));
    for (var i = li; i < SIZE * SIZE; i += TILE * TILE) {
        let ty = i / SIZE;
        let tx = i % SIZE;
        tile[ty][tx] = load(origin.x + i32(tx), origin.y + i32(ty));
    }
    workgroupBarrier();

    let g = wid.xy * TILE + lid.xy;
    if (g.x >= params.width || g.y >= params.height) {
        return;
    }
    let c = lid.xy + vec2(HALO);
    let sum = tile[c.y][c.x - 1u] + tile[c.y][c.x + 1u] + tile[c.y - 1u][c.x] + tile[c.y + 1u][c.x];
    dst[g.y * params.width + g.x] = 0.25 * (sum + rhs[g.y * params.width + g.x]);
}
