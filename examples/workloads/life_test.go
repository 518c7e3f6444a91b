package workloads_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/softgraph/softgraph/examples/workloads"
	"github.com/softgraph/softgraph/wgpu"
)

// TestLifeWithBlockSize16FromConstantsMatchesReferenceEagerAndReplayed: the
// override `blockSize` set to 16 by wgpu.WithConstants sizes the
// workgroup, and the kernel then computes the same generations as the
// host, eagerly, as a replayed one-step graph and as replayed ping-pong
// graphs of 4 and 5 steps. Without it an override that did not reach
// @workgroup_size would leave cells unvisited or the dispatch miscounted.
func TestLifeWithBlockSize16FromConstantsMatchesReferenceEagerAndReplayed(t *testing.T) {
	checkLife(t, 16, workloads.WithBlockSize(16))
}

// TestLifeWithDefaultBlockSize8MatchesReferenceEagerAndReplayed: the same
// contract with the override left at its default, 8.
func TestLifeWithDefaultBlockSize8MatchesReferenceEagerAndReplayed(t *testing.T) {
	checkLife(t, 8)
}

// checkLife runs gens generations eagerly, then from graphs of 1, 4 and 5
// steps (each capture's warmup counts as one run of the graph), and wants
// every generation read back to be LifeReference's, bit for bit.
func checkLife(t *testing.T, wantBlock int, opts ...workloads.LifeOption) {
	s := openStream(t)
	// Sides that are not multiples of the block size exercise the bounds
	// check and a partial last workgroup; the wrap-around is exercised by
	// the glider crossing the edge.
	const w, h, gens = 67, 45, 20
	l, err := workloads.NewLife(s, w, h, opts...)
	if err != nil {
		t.Fatalf("NewLife: %v", err)
	}
	t.Cleanup(l.Release)
	if got := l.BlockSize(); got != wantBlock {
		t.Fatalf("the workgroup is blockSize×blockSize with blockSize = %d; got %d", wantBlock, got)
	}

	initial := lifeSoup(w, h)
	ref := make([][]uint32, gens+1) // ref[g]: generation g
	ref[0] = initial
	for g := 1; g <= gens; g++ {
		ref[g] = workloads.LifeReference(ref[g-1], w, h, 1)
	}
	if slices.Equal(ref[gens], initial) {
		t.Fatal("test setup: the soup must still change by the last generation")
	}

	if err := l.Write(initial); err != nil {
		t.Fatalf("Write: %v", err)
	}
	for g := 1; g <= gens; g++ {
		if err := l.Step(); err != nil {
			t.Fatalf("Step %d: %v", g, err)
		}
	}
	eager, err := l.Read()
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	wantIdentical(t, "eager Steps must compute LifeReference's generations", ref[gens], eager)

	for _, n := range []int{1, 4, 5} {
		if err := l.Write(initial); err != nil {
			t.Fatalf("Write: %v", err)
		}
		g, err := s.Capture(func() error { return l.Steps(n) })
		if err != nil {
			t.Fatalf("Capture(Steps(%d)): %v", n, err)
		}
		t.Cleanup(g.Release)
		// Odd step counts end in the spare buffer and copy back once.
		if st := g.Stats(); st.Dispatches != n || st.Transfers != n%2 {
			t.Fatalf("a graph of Steps(%d) is %d dispatches and %d copy; got %s", n, n, n%2, g)
		}
		for gen := n; ; gen += n {
			got, err := l.Read()
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			wantIdentical(t, fmt.Sprintf("a graph of %d steps, replayed up to generation %d, must equal LifeReference (the capture's warmup ran the first %d)", n, gen, n), ref[gen], got)
			if gen+n > gens {
				if gen == gens {
					wantIdentical(t, "replay must be bit-identical to eager", eager, got)
				}
				break
			}
			if err := g.Replay(); err != nil {
				t.Fatalf("Replay: %v", err)
			}
		}
	}
}

// TestLifeRefusesBadSizesAndStillWorks: sizes, cell counts and step counts
// out of range are refused on the host with wgpu.ErrInvalidArgument, and
// the Life refused a call still steps.
func TestLifeRefusesBadSizesAndStillWorks(t *testing.T) {
	s := openStream(t)
	for _, size := range [][2]int{{0, 4}, {4, 0}, {-1, 4}} {
		if _, err := workloads.NewLife(s, size[0], size[1]); !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Errorf("NewLife(%d×%d) must fail with ErrInvalidArgument; got %v", size[0], size[1], err)
		}
	}
	if _, err := workloads.NewLife(s, 8, 8, workloads.WithBlockSize(64)); !errors.Is(err, wgpu.ErrCompile) {
		t.Errorf("a 64×64 workgroup is over every device's invocation limit: want ErrCompile, got %v", err)
	}
	l, err := workloads.NewLife(s, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Release)
	if err := l.Write(make([]uint32, 63)); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("Write of 63 cells to an 8×8 grid must fail with ErrInvalidArgument; got %v", err)
	}
	if err := l.Steps(0); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Errorf("Steps(0) must fail with ErrInvalidArgument; got %v", err)
	}
	// A blinker in the middle of the grid.
	cells := make([]uint32, 64)
	cells[3*8+2], cells[3*8+3], cells[3*8+4] = 1, 1, 1
	if err := l.Write(cells); err != nil {
		t.Fatal(err)
	}
	if err := l.Step(); err != nil {
		t.Fatal(err)
	}
	got, err := l.Read()
	if err != nil {
		t.Fatal(err)
	}
	wantIdentical(t, "after refused calls the Life still steps (a blinker turns vertical)", workloads.LifeReference(cells, 8, 8, 1), got)
}

// TestLifeReferenceMovesAGliderAcrossTheWrap: the host reference itself
// follows the rules: a glider moves one cell diagonally every four
// generations, also across the torus' edges.
func TestLifeReferenceMovesAGliderAcrossTheWrap(t *testing.T) {
	const w, h = 6, 5
	at := func(dx, dy int) []uint32 {
		c := make([]uint32, w*h)
		for _, p := range [][2]int{{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}} {
			c[((p[1]+dy)%h)*w+(p[0]+dx)%w] = 1
		}
		return c
	}
	for k := 1; k <= 10; k++ {
		wantIdentical(t, "a glider moves by (+1, +1) every 4 generations", at(k, k), workloads.LifeReference(at(0, 0), w, h, 4*k))
	}
}

// lifeSoup is a reproducible random grid (about a third alive) with a
// glider placed to cross the bottom-right corner within the first
// generations.
func lifeSoup(w, h int) []uint32 {
	r := rand.New(rand.NewPCG(1, 2))
	c := make([]uint32, w*h)
	for i := range c {
		if r.IntN(3) == 0 {
			c[i] = 1
		}
	}
	for y := h - 6; y < h; y++ {
		for x := w - 6; x < w; x++ {
			c[y*w+x] = 0
		}
	}
	for _, p := range [][2]int{{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}} {
		c[(h-3+p[1])*w+w-3+p[0]] = 1
	}
	return c
}
