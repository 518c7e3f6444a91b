package tests

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestRandomCheckedKernelsEqualUncheckedBitForBit: random chains of
// random kernels (the fusion test's generator: f32 and u32 arithmetic,
// NaNs, infinities, subnormals, let pointers, helper functions, private
// variables, 1-D and 2-D) give the same words, bit for bit, on a stream
// WithChecks as on a plain one, run eagerly and replayed, and report
// nothing (every access is in range). A NaN is compared as NaN: which NaN
// an operation returns is the compiler's choice in each program (lavapipe
// returned 0xffc00000 unchecked and 0x7fc00000 checked for an fma and a
// division of NaNs; docs/fusion.md). What breaks without it: a check that
// changed the index, evaluated it twice, or let the compiler compute the
// kernel differently. SOFTGRAPH_CHECKS_SEED and SOFTGRAPH_CHECKS_CHAINS
// repeat or widen a run; a failure prints its seed and chain.
func TestRandomCheckedKernelsEqualUncheckedBitForBit(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	cs, ps := gputest.Stream(t, d, recorder.WithChecks(true)), gputest.Stream(t, d)
	seed, chains := int64(1), 12
	if testing.Short() {
		chains = 4
	}
	if v := os.Getenv("SOFTGRAPH_CHECKS_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	if v := os.Getenv("SOFTGRAPH_CHECKS_CHAINS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SOFTGRAPH_CHECKS_CHAINS=%q: want a positive count", v)
		}
		chains = n
	}
	rng := rand.New(rand.NewSource(seed))
	pool := map[[2]string][]*randKernel{}
	for _, typ := range []string{"f32", "u32"} {
		for _, dim := range []string{"1d", "2d"} {
			for range 8 {
				k := newRandKernel(rng, typ, dim == "2d")
				k.k = gputest.Kernel(t, d, k.src)
				pool[[2]string{typ, dim}] = append(pool[[2]string{typ, dim}], k)
			}
		}
	}
	var failures []string
	for c := range chains {
		typ := []string{"f32", "u32"}[rng.Intn(2)]
		init := map[string][][]uint32{}
		for _, ty := range []string{"f32", "u32"} {
			for range randBufs {
				v := make([]uint32, randN)
				for i := range v {
					v[i] = randWord(rng, ty)
				}
				init[ty] = append(init[ty], v)
			}
		}
		var steps []randStep
		for range 1 + rng.Intn(6) {
			ks := pool[[2]string{typ, []string{"1d", "2d"}[rng.Intn(2)]}]
			k := ks[rng.Intn(len(ks))]
			st := randStep{k: k, out: rng.Intn(randBufs), c: randWord(rng, typ)}
			for range k.nin {
				i := rng.Intn(randBufs)
				for i == st.out {
					i = rng.Intn(randBufs)
				}
				st.in = append(st.in, i)
			}
			steps = append(steps, st)
		}
		cw, pw := newRandWorld(t, cs, init), newRandWorld(t, ps, init)
		for _, w := range []*randWorld{cw, pw} {
			if err := w.run(steps); err != nil {
				t.Fatalf("chain %d: %v", c, err)
			}
			g, err := w.s.Capture(func() error { return w.run(steps) })
			if err != nil {
				t.Fatalf("chain %d (seed %d): Capture: %v", c, seed, err)
			}
			if err := g.Replay(); err != nil {
				t.Fatalf("chain %d: Replay: %v", c, err)
			}
			g.Release()
			if err := w.s.Sync(); err != nil {
				t.Fatalf("chain %d (seed %d): in range, Sync = %v", c, seed, err)
			}
		}
		want, got := pw.words(t), cw.words(t)
		canonicalNaNs(want["f32"])
		canonicalNaNs(got["f32"])
		if diff := cmp.Diff(want, got); diff != "" {
			var b strings.Builder
			fmt.Fprintf(&b, "chain %d (%s, seed %d) differs (-plain +checked):\n%s\nkernels:\n", c, typ, seed, firstLines(diff, 12))
			for _, st := range steps {
				fmt.Fprintf(&b, "in %v out %d:\n%s\n", st.in, st.out, st.k.src)
			}
			failures = append(failures, b.String())
		}
		for _, w := range []*randWorld{cw, pw} {
			for _, bs := range w.bufs {
				for _, b := range bs {
					b.Release()
				}
			}
		}
	}
	t.Logf("%d random chains (seed %d): %d differed", chains, seed, len(failures))
	for i, f := range failures {
		if i == 3 {
			t.Errorf("... and %d more differing chains", len(failures)-3)
			break
		}
		t.Error(f)
	}
}
