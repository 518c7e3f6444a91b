// One generation of Conway's Game of Life on a torus: each invocation
// computes one cell of `next` from its eight neighbours in `current`,
// wrapping around the edges. Cells hold 0 (dead) or 1 (alive).

override blockSize = 8;

struct Grid {
	width: u32,
	height: u32,
}

@binding(0) @group(0) var<uniform> grid: Grid;
@binding(1) @group(0) var<storage, read> current: array<u32>;
@binding(2) @group(0) var<storage, read_write> next: array<u32>;

// cellAt reads the cell at (x, y), each taken modulo the grid's size.
fn cellAt(x: u32, y: u32) -> u32 {
	return current[(y % grid.height) * grid.width + (x % grid.width)];
}

@compute @workgroup_size(blockSize, blockSize)
fn main(@builtin(global_invocation_id) id: vec3u) {
	let x = id.x;
	let y = id.y;
	if (x >= grid.width || y >= grid.height) {
		return;
	}
	// Adding width (height) before subtracting one keeps the unsigned
	// coordinates non-negative; cellAt wraps the right and bottom edges.
	let left = x + grid.width - 1u;
	let up = y + grid.height - 1u;
	let neighbours = cellAt(left, up) + cellAt(x, up) + cellAt(x + 1u, up)
		+ cellAt(left, y) + cellAt(x + 1u, y)
		+ cellAt(left, y + 1u) + cellAt(x, y + 1u) + cellAt(x + 1u, y + 1u);
	let alive = cellAt(x, y);
	var out = 0u;
	if (neighbours == 3u || (neighbours == 2u && alive == 1u)) {
		out = 1u;
	}
	next[y * grid.width + x] = out;
}
