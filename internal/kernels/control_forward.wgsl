// Forwards an indirect dispatch's own counts (read from its buffer when the
// dispatch is reached) to its slot in the gate buffer when its body runs,
// and zeros otherwise.

struct Forward {
	src_word: u32, // the counts: counts[src_word .. src_word+3]
	enable_word: u32,   // the enable word of the body holding the dispatch (in enables)
	slot: u32,     // the dispatch's counts in the gate buffer
	pad: u32,
}

@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<storage, read_write> gate: array<u32>;
@group(0) @binding(2) var<uniform> f: Forward;
@group(0) @binding(3) var<storage, read> enables: array<u32>;

@compute @workgroup_size(1)
fn softgraph_forward() {
	let on = enables[f.enable_word] != 0u;
	gate[f.slot] = select(0u, counts[f.src_word], on);
	gate[f.slot + 1u] = select(0u, counts[f.src_word + 1u], on);
	gate[f.slot + 2u] = select(0u, counts[f.src_word + 2u], on);
}
