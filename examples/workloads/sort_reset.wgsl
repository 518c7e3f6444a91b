// Zeroes the bitonic sort's swap counter before a sort. It declares only
// the counter, at the binding number the sort kernel gives it, so the two
// kernels share one numbering of the sort's resources.

@group(0) @binding(3) var<storage, read_write> counter: atomic<u32>;

@compute @workgroup_size(1)
fn main() {
	atomicStore(&counter, 0u);
}
