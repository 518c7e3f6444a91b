package shaders

import "github.com/softgraph/softgraph/recorder"

const (
	// groupSize is the workgroup size of the element-wise kernels, Sum and
	// the row kernels; it must match their @workgroup_size.
	groupSize = 256
	// tileSize is MatMul's tile edge; it must match its @workgroup_size.
	tileSize = 16
	// maxGroupsPerDim is WebGPU's default maxComputeWorkgroupsPerDimension,
	// which every adapter supports.
	maxGroupsPerDim = 65535
)

// ElementwiseGroups is the dispatch for n elements of an element-wise kernel
// (AddOne, Scale, Axpy, Add, Mul, BiasReLU, BiasGELU) or of Sum: one
// 256-invocation workgroup per 256 elements. Past 65535 workgroups (more than
// 16776960 elements), the per-dimension limit, it folds them into x and y;
// the kernels linearise the workgroup index from num_workgroups and guard the
// few extra invocations. n = 0 dispatches one workgroup, which writes nothing
// (Sum writes out[0] = 0).
func ElementwiseGroups(n uint32) recorder.Dispatch {
	return fold(ceilDiv(n, groupSize))
}

// RowGroups is the dispatch for the row kernels (Softmax, RMSNorm): one
// workgroup per row, folded into x and y past 65535 rows like
// ElementwiseGroups.
func RowGroups(rows uint32) recorder.Dispatch {
	return fold(rows)
}

// MatMulGroups is the dispatch for MatMul with C of m rows and n columns:
// one 16×16 workgroup per 16×16 tile of C, x over columns and y over rows.
// It covers m and n up to 65535*16 = 1048560.
func MatMulGroups(m, n uint32) recorder.Dispatch {
	return recorder.Groups(max(ceilDiv(n, tileSize), 1), max(ceilDiv(m, tileSize), 1), 1)
}

// SumGroups is how many workgroups a Sum over n elements runs, and so how
// many partial sums it writes: ceil(n/256), and 1 for n = 0. It is the n of
// the next level of the reduction.
func SumGroups(n uint32) uint32 {
	return max(ceilDiv(n, groupSize), 1)
}

// fold spreads g workgroups (at least one) over x and y with neither past
// maxGroupsPerDim, wasting fewer than y of them.
func fold(g uint32) recorder.Dispatch {
	c := foldCounts(g)
	return recorder.Groups(c[0], c[1], c[2])
}

// foldCounts is fold's counts (x, y, 1).
func foldCounts(g uint32) [3]uint32 {
	g = max(g, 1)
	y := ceilDiv(g, maxGroupsPerDim)
	return [3]uint32{ceilDiv(g, y), y, 1}
}

// ceilDiv is ⌈a/b⌉ without overflowing for a near 2³².
func ceilDiv(a, b uint32) uint32 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}
