
struct Data {
    values: array<f32>,
};

// Uniform buffer to store j and k
struct Uniforms {
    j: u32,
    k: u32,
};

@binding(0) @group(0) var<storage, read_write> data: Data;
@binding(1) @group(0) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(1, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let i = global_id.x + global_id.y * ${blockSize} + global_id.z * ${blockSize} * ${blockSize};
    let j = uniforms.j;
    let k = uniforms.k;
    
    let ixj = i ^ j;
    if (ixj > i) {
        if ((i & k) == 0 && data.values[i] > data.values[ixj]) {
            let temp = data.values[i];
            data.values[i] = data.values[ixj];
            data.values[ixj] = temp;
        }
        if ((i & k) != 0 && data.values[i] < data.values[ixj]) {
            let temp = data.values[i];
            data.values[i] = data.values[ixj];
            data.values[ixj] = temp;
        }
    }
}
