// One compare-exchange step of a bitonic sort of u32 keys: each invocation
// writes output[i] from input[i] and its partner input[i ^ step], keeping
// the smaller or the larger key as the block of size `stage` that i falls
// in is sorted up or down. Writing a second buffer, not swapping in place,
// keeps every invocation's reads independent of the others' writes; the
// host copies output back to input before the next step.
//
// The lower index of each pair counts the pairs it found out of order in
// `counter`, so after a sort it holds the number of swaps the network made.

struct SortStep {
	stage: u32,  // size of the bitonic blocks being merged: 2, 4, ..., count
	step: u32,   // distance between compared keys: stage/2, ..., 1
	count: u32,  // number of keys, a power of two
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<uniform> params: SortStep;
@group(0) @binding(3) var<storage, read_write> counter: atomic<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3u) {
	let i = id.x;
	if (i >= params.count) {
		return;
	}
	let partner = i ^ params.step;
	let ascending = (i & params.stage) == 0u;
	let a = input[i];
	let b = input[partner];
	let lower = i < partner;
	// In an ascending block the lower index keeps the smaller key; in a
	// descending one, the larger.
	if (lower == ascending) {
		output[i] = min(a, b);
	} else {
		output[i] = max(a, b);
	}
	if (lower && ((ascending && a > b) || (!ascending && a < b))) {
		atomicAdd(&counter, 1u);
	}
}
