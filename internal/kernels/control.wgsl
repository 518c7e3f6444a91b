// softgraph's control-flow kernels: what If and While lower to inside a
// graph. The enable buffer holds one enable word per gate instance (1: its
// body runs); the gate buffer three words of indirect dispatch counts per
// gated dispatch; the table, per gated dispatch, the word of its counts in
// the gate buffer and the counts it runs with when enabled. Enable words
// have a buffer of their own so that on OpenGL every read of one follows a
// shader-storage barrier (design.md, hazard 23).

struct Gate {
	cond_word: u32, // the condition: cond[cond_word] != 0
	parent: u32,    // enable word of the enclosing gate (or the previous iteration's), or 0xffffffff at top level
	enable_word: u32,    // this gate's enable word
	first: u32,     // its first entry in the table
	count: u32,     // how many gated dispatches it drives
	pad0: u32,
	pad1: u32,
	pad2: u32,
}

@group(0) @binding(0) var<storage, read> cond: array<u32>;
@group(0) @binding(1) var<storage, read_write> gate: array<u32>;
@group(0) @binding(2) var<storage, read> table: array<u32>;
@group(0) @binding(3) var<uniform> g: Gate;
@group(0) @binding(4) var<storage, read_write> enables: array<u32>;

@compute @workgroup_size(64)
fn softgraph_gate(@builtin(local_invocation_id) lid: vec3<u32>) {
	var on = cond[g.cond_word] != 0u;
	if (g.parent != 0xffffffffu) {
		on = on && enables[g.parent] != 0u;
	}
	if (lid.x == 0u) {
		enables[g.enable_word] = select(0u, 1u, on);
	}
	for (var i = lid.x; i < g.count; i = i + 64u) {
		let e = (g.first + i) * 4u;
		let w = table[e];
		if (on) {
			gate[w] = table[e + 1u];
			gate[w + 1u] = table[e + 2u];
			gate[w + 2u] = table[e + 3u];
		} else {
			gate[w] = 0u;
			gate[w + 1u] = 0u;
			gate[w + 2u] = 0u;
		}
	}
}
