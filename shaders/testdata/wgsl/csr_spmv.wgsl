@group(0) @binding(0) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(1) var<storage, read> col_idx: array<u32>;
@group(0) @binding(2) var<storage, read> values: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn spmv_scalar(@builtin(global_invocation_id) gid: vec3u) {
    let row = gid.x;
    if (row + 1u >= arrayLength(&row_ptr)) {
        return;
    }
    var dot = 0.0;
    for (var j = row_ptr[row]; j < row_ptr[row + 1u]; j++) {
        dot += values[j] * x[col_idx[j]];
    }
    y[row] = dot;
}

const WG = 32u;
var<workgroup> row_bounds: vec2<u32>;
var<workgroup> partial: array<f32, WG>;

@compute @workgroup_size(WG)
fn spmv_vector(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lane: u32) {
    let row = wid.x;
    if (row + 1u >= arrayLength(&row_ptr)) {
        return;
    }
    if (lane == 0u) {
        row_bounds = vec2(row_ptr[row], row_ptr[row + 1u]);
    }
    let bounds = workgroupUniformLoad(&row_bounds);
    var acc = 0.0;
    for (var j = bounds.x + lane; j < bounds.y; j += WG) {
        acc += values[j] * x[col_idx[j]];
    }
    partial[lane] = acc;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
        if (lane < stride) {
            partial[lane] += partial[lane + stride];
        }
        workgroupBarrier();
    }
    if (lane == 0u) {
        y[row] = partial[0];
    }
}
