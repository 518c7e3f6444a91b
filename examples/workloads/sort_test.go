package workloads_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/softgraph/softgraph/examples/workloads"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// sortKeys is n reproducible keys: random, with many duplicates, and both
// extremes, 0 and MaxUint32, present.
func sortKeys(n int, seed uint64) []uint32 {
	r := rand.New(rand.NewPCG(seed, 3))
	k := make([]uint32, n)
	for i := range k {
		switch r.IntN(8) {
		case 0:
			k[i] = uint32(r.IntN(16)) // duplicates
		default:
			k[i] = r.Uint32()
		}
	}
	k[r.IntN(n)] = 0
	k[r.IntN(n)] = math.MaxUint32
	return k
}

// TestSortGraphReplayedOnFreshKeysEqualsSortSliceAndEager: the whole
// bitonic sort (the counter reset, every step's dispatch and its copy
// back) captured as one graph sorts whatever keys s.Write put in the keys
// buffer before each replay, equal to sort.Slice's order and bit-identical
// to an eager run on the same keys, with the swap counter equal to the
// host network's count. A replay that reused the captured keys, skipped
// a copy or the reset would sort the wrong data, leave a step unmerged or
// count the previous sort's swaps too.
//
// It runs with pre-encoding off and on: on, the 157-command graph's next
// replay is encoded ahead on another goroutine, and must still read the
// keys written after that encoding.
func TestSortGraphReplayedOnFreshKeysEqualsSortSliceAndEager(t *testing.T) {
	for _, pre := range []bool{false, true} {
		t.Run(fmt.Sprintf("preencode=%v", pre), func(t *testing.T) { checkSortGraph(t, pre) })
	}
}

func checkSortGraph(t *testing.T, preEncode bool) {
	s := openStream(t, recorder.WithPreEncode(preEncode))
	const n = 1 << 12
	q, err := workloads.NewSort(s, n)
	if err != nil {
		t.Fatalf("NewSort: %v", err)
	}
	t.Cleanup(q.Release)
	if q.Steps() != 12*13/2 {
		t.Fatalf("2^12 keys take 12·13/2 = 78 steps; got %d", q.Steps())
	}
	sortAndCheck := func(what string, keys []uint32, run func() error) []uint32 {
		t.Helper()
		if err := q.Write(keys); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if err := run(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got, err := q.Read()
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		wantIdentical(t, what+" must sort the keys written before it as sort.Slice does", workloads.SortReference(keys), got)
		swaps, err := q.Swaps()
		if err != nil {
			t.Fatalf("Swaps: %v", err)
		}
		if want := workloads.BitonicSwaps(keys); swaps != want {
			t.Fatalf("%s: the counter, reset before the sort, must count the network's %d swaps; got %d", what, want, swaps)
		}
		return got
	}

	sortAndCheck("an eager Run", sortKeys(n, 1), q.Run)

	if err := q.Write(sortKeys(n, 2)); err != nil {
		t.Fatalf("Write: %v", err)
	}
	g, err := s.Capture(q.Run)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	t.Cleanup(g.Release)
	if st := g.Stats(); st.Dispatches != 1+q.Steps() || st.Transfers != q.Steps() || st.Kernels != 2 {
		t.Fatalf("the sort graph is one reset and %d step dispatches of 2 kernels, with a copy per step; got %s", q.Steps(), g)
	}
	for round := range 3 {
		keys := sortKeys(n, uint64(10+round))
		replayed := sortAndCheck(fmt.Sprintf("replay %d", round), keys, g.Replay)
		eager := sortAndCheck(fmt.Sprintf("eager Run %d", round), keys, q.Run)
		wantIdentical(t, "replay must be bit-identical to eager on the same keys", eager, replayed)
	}

	// Writes and replays enqueued back to back, with no read between: each
	// write is ordered after the replay before it, so the last replay sorts
	// the last keys.
	var last []uint32
	for round := range 3 {
		last = sortKeys(n, uint64(20+round))
		if err := q.Write(last); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay: %v", err)
		}
	}
	got, err := q.Read()
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	wantIdentical(t, "after write, replay, write, replay, ... the keys are the last written keys, sorted", workloads.SortReference(last), got)
	if swaps, err := q.Swaps(); err != nil || swaps != workloads.BitonicSwaps(last) {
		t.Fatalf("the counter must hold the last sort's %d swaps; got %d, %v", workloads.BitonicSwaps(last), swaps, err)
	}
}

// TestSortOfEveryPowerOfTwoSize: sizes from 2 (one partial workgroup) to
// 2^11 (eight full ones) all sort, each as sort.Slice does.
func TestSortOfEveryPowerOfTwoSize(t *testing.T) {
	s := openStream(t)
	for k := 1; k <= 11; k++ {
		n := 1 << k
		q, err := workloads.NewSort(s, n)
		if err != nil {
			t.Fatalf("NewSort(%d): %v", n, err)
		}
		keys := sortKeys(n, uint64(k))
		if err := q.Write(keys); err != nil {
			t.Fatal(err)
		}
		if err := q.Run(); err != nil {
			t.Fatal(err)
		}
		got, err := q.Read()
		if err != nil {
			t.Fatal(err)
		}
		q.Release()
		wantIdentical(t, fmt.Sprintf("%d keys must sort as sort.Slice does", n), workloads.SortReference(keys), got)
	}
}

// TestSortCounterResetKernelBindsOnlyItsDeclaredBinding3: the reset kernel
// declares only @group(0) @binding(3), the number the sort kernel gives
// the counter, and its launch takes exactly that one argument; a reflection
// that renumbered from 0, or padded the layout with bindings 0–2, would
// make the reset take other arguments or fail to bind.
func TestSortCounterResetKernelBindsOnlyItsDeclaredBinding3(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, workloads.SortResetWGSL())
	b := k.Bindings()
	if len(b) != 1 || b[0].Group != 0 || b[0].Binding != 3 || b[0].Name != "counter" || b[0].Kind != wgpu.BindStorage {
		t.Fatalf("the reset kernel binds exactly @group(0) @binding(3) counter (storage); got %v", b)
	}
	sk := gputest.Kernel(t, d, workloads.SortWGSL())
	if sb := sk.Bindings(); len(sb) != 4 || sb[3].Binding != 3 || sb[3].Name != "counter" {
		t.Fatalf("the sort kernel binds the counter at @binding(3) too; got %v", sb)
	}
}

// TestSortRefusesSizesThatAreNotPowersOfTwo: the network needs 2^k keys;
// anything else, and a Write of the wrong length, is refused with
// wgpu.ErrInvalidArgument.
func TestSortRefusesSizesThatAreNotPowersOfTwo(t *testing.T) {
	s := openStream(t)
	for _, n := range []int{-4, 0, 1, 3, 6, 1000} {
		if _, err := workloads.NewSort(s, n); !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Errorf("NewSort(%d) must fail with ErrInvalidArgument; got %v", n, err)
		}
	}
	q, err := workloads.NewSort(s, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Release)
	if err := q.Write(make([]uint32, 7)); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("Write of 7 keys to a sort of 8 must fail with ErrInvalidArgument; got %v", err)
	}
}

// TestBitonicSwapsCountsOnlyOutOfOrderPairs: the host network counts a
// compare-exchange only when its pair is out of order for its block's
// direction: none for equal keys, one for two keys reversed. (Sorted input
// still swaps: the network first builds descending halves.)
func TestBitonicSwapsCountsOnlyOutOfOrderPairs(t *testing.T) {
	for _, c := range []struct {
		keys []uint32
		want uint32
	}{
		{[]uint32{1, 2}, 0},
		{[]uint32{2, 1}, 1},
		{make([]uint32, 256), 0},
		{[]uint32{1, 2, 3, 4}, 2}, // stage 2 turns {3, 4} down to make {1, 2, 4, 3} bitonic; the last step turns it back up
	} {
		if got := workloads.BitonicSwaps(c.keys); got != c.want {
			t.Errorf("BitonicSwaps(%v) = %d, want %d", c.keys, got, c.want)
		}
	}
}
