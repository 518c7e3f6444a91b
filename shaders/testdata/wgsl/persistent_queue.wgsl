@group(0) @binding(0) var<storage, read_write> queue_head: atomic<u32>;
@group(0) @binding(1) var<storage, read> items: array<u32>;
@group(0) @binding(2) var<storage, read> data: array<u32>;
@group(0) @binding(3) var<storage, read_write> sums: array<u32>;

const ROW = 64u;
var<workgroup> next_item: atomic<u32>;
var<workgroup> partial: array<u32, ROW>;

@compute @workgroup_size(ROW)
fn persistent(@builtin(local_invocation_index) li: u32) {
    loop {
        if (li == 0u) {
            atomicStore(&next_item, atomicAdd(&queue_head, 1u));
        }
        let item = workgroupUniformLoad(&next_item);
        if (item >= arrayLength(&items)) {
            break;
        }
        partial[li] = data[items[item] * ROW + li];
        workgroupBarrier();
        for (var s = ROW / 2u; s > 0u; s >>= 1u) {
            if (li < s) {
                partial[li] += partial[li + s];
            }
            workgroupBarrier();
        }
        if (li == 0u) {
            sums[item] = partial[0];
        }
    }
}
