struct Counter {
    hits: atomic<u32>,
    delta: atomic<i32>,
}

@group(0) @binding(0) var<storage, read> cfg: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

var<workgroup> total: atomic<u32>;
var<workgroup> slots: array<atomic<u32>, 4>;
var<workgroup> counters: array<Counter, 2>;
var<workgroup> acc: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    atomicAdd(&total, li);
    atomicAdd(&slots[li % 4u], 1u + wg.x);
    atomicAdd(&counters[1].hits, 1u);
    atomicSub(&counters[1].delta, i32(li));
    let k = cfg[0];
    let t = workgroupUniformLoad(&total);
    let s = workgroupUniformLoad(&slots[k]);
    let h = workgroupUniformLoad(&counters[1].hits);
    let d = workgroupUniformLoad(&counters[i32(cfg[1])].delta);

    acc[li] = 0u;
    let rounds = workgroupUniformLoad(&slots[(k + 1u) % 4u]) / 16u;
    for (var r = 0u; r < rounds; r++) {
        workgroupBarrier();
        acc[li] += li + r;
        workgroupBarrier();
    }

    var n = 0u;
    while (workgroupUniformLoad(&counters[0].hits) < 5u) {
        if (li == 0u) {
            atomicAdd(&counters[0].hits, 1u);
        }
        n++;
        workgroupBarrier();
    }

    let o = (wg.x * 64u + li) * 6u;
    out[o] = t;
    out[o + 1u] = s;
    out[o + 2u] = h;
    out[o + 3u] = bitcast<u32>(d);
    out[o + 4u] = acc[li];
    out[o + 5u] = n;
}
