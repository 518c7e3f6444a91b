package main

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/softgraph/softgraph/examples/workloads"
	"github.com/softgraph/softgraph/recorder"
)

// The sort workload is a bitonic sort of n = 2^k u32 keys with
// examples/workloads' compare-exchange kernel (workloads.SortWGSL) on
// every path: k(k+1)/2 dispatches, one per step of the network, each with
// its own (stage, step) params, ping-ponging between the keys' two
// buffers (A→B, B→A) instead of workloads.Sort's copy back after every
// step, so the hand-written paths run exactly the same dispatches. Its
// kernel reads a partner key (input[i ^ step]) from the buffer the step
// before wrote and counts swaps with an atomic, so recorder.WithFusion
// fuses nothing: the fused path's graph keeps every dispatch, and its
// summary (the row's fusion field, from Graph.String) says why. It is the
// control for fusion: fused/replay must sit near 1.
//
// A pass is one sort, checked against workloads.SortReference (sort.Slice
// of the same keys). Sorting sorted keys gives them back, so a whole run
// of several passes is checked against the same sorted keys, and the
// fresh pass (from the random keys written back) checks a real sort.

// sortSteps is the number of compare-exchange steps of a bitonic sort of
// n = 2^k keys, k(k+1)/2, or 0 when n is not a power of two of at least 2.
func sortSteps(n uint32) int {
	if n < 2 || n&(n-1) != 0 {
		return 0
	}
	k := bits.TrailingZeros32(n)
	return k * (k + 1) / 2
}

// sortGroup is sort.wgsl's @workgroup_size.
const sortGroup = 256

// newSortWorkload builds the sort workload of c.Elems random keys (drawn
// from [0, n), so about a third of them repeat).
func newSortWorkload(c config) *workload {
	n := c.Elems
	rng := rand.New(rand.NewPCG(3, 0x5eed))
	keys := make([]uint32, n)
	for i := range keys {
		keys[i] = rng.Uint32N(n)
	}
	sorted := workloads.SortReference(keys)
	w := &workload{
		name: "sort", wgsl: workloads.SortWGSL(), bindings: []role{roleSrc, roleDst, roleParams, roleCounter},
		words: n, gx: (n + sortGroup - 1) / sortGroup, gy: 1, init: keys,
	}
	// The steps in the order of the network: for each stage (the size of
	// the bitonic blocks merged, 2 … n), steps stage/2 … 1.
	for stage := uint32(2); stage <= n && stage != 0; stage <<= 1 {
		for step := stage >> 1; step > 0; step >>= 1 {
			w.stepParams = append(w.stepParams, recorder.ParamsOf[uint32](stage, step, n, 0))
		}
	}
	w.params = w.stepParams[0]
	steps := len(w.stepParams)
	w.check = func(out []uint32, dispatches int) error {
		if dispatches%steps != 0 {
			return fmt.Errorf("%d dispatches is not a whole number of sorts of %d steps", dispatches, steps)
		}
		want := sorted
		if dispatches == 0 {
			want = keys
		}
		if len(out) != len(want) {
			return fmt.Errorf("%d keys read, want %d", len(out), len(want))
		}
		for i := range want {
			if out[i] != want[i] {
				return fmt.Errorf("key %d is %d after %d sorts, want %d (sort.Slice of the same keys)", i, out[i], dispatches/steps, want[i])
			}
		}
		return nil
	}
	w.target = func(s *recorder.Stream) (sgTarget, error) { return newBufTarget(s, w) }
	return w
}
