// Command solver solves Laplace's equation on a grid by Jacobi iteration
// until the residual (the largest change of a sweep, reduced on the GPU)
// falls below a tolerance — three ways, compared side by side:
//
//	host    each iteration launched eagerly, then the residual flag Read
//	        back to decide whether to go on (a GPU round trip per iteration)
//	fixed   a graph of exactly the iterations the solve needs (known from a
//	        first host solve), replayed once
//	while   a graph with the iterations inside Stream.While: the GPU stops
//	        the loop itself when the residual is small, no host round trip
//
// Every way starts from the same grid (fixed seed) and must end with the
// same grid bit for bit after the same number of iterations; each run is
// checked. An iteration is `sweeps` Jacobi sweeps and one residual
// reduction. Solves are interleaved, and the median of each way is
// reported, with the ratios host/while and while/fixed.
//
// The ratios depend on how much work an iteration does: the host loop pays
// one GPU round trip per iteration, While a little GPU time per iteration
// (its skipped iterations, and a gate dispatch per iteration when its
// first sweep cannot latch the condition), so more sweeps per iteration
// bring host/while down and while/fixed closer to 1. The default, 4 sweeps
// to a tolerance of 4e-3, needs about 200 iterations on 64×64;
// docs/benchmarks/solver-h200*.json also has 2 and 8 sweeps.
//
//	go run ./examples/solver                   # 64×64, about 200 iterations
//	go run ./examples/solver -quick            # 32×32, 3 rounds: seconds on lavapipe
//	go run ./examples/solver -sweeps 8 -tol 1.1e-3 -json out.json
//	go run ./examples/solver -predication=false   # body dispatches gated indirectly
//
// While the solves run, it prints a progress line to stderr every few
// seconds. On a software adapter (type CPU, such as lavapipe) it says so
// after the adapter line: the CPU is the GPU there, so replay saves less
// than on a hardware GPU.
package main

import (
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/softgraph/softgraph/examples/internal/cli"
	"github.com/softgraph/softgraph/examples/internal/clock"
	"github.com/softgraph/softgraph/examples/internal/progress"
	"github.com/softgraph/softgraph/examples/internal/softadapter"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

var (
	//go:embed jacobi.wgsl
	jacobiWGSL string
	//go:embed residual.wgsl
	residualWGSL string
)

func main() {
	cli.Exit("solver", run(os.Args[1:], os.Stdout, os.Stderr))
}

// Result is what -json writes.
type Result struct {
	Adapter       string             `json:"adapter"`
	N             int                `json:"n"`
	Sweeps        int                `json:"sweeps_per_iteration"`
	Predication   bool               `json:"predication"`
	Tolerance     float32            `json:"tolerance"`
	Iterations    int                `json:"iterations"`
	MaxIterations int                `json:"max_iterations"`
	Rounds        int                `json:"rounds"`
	MedianUS      map[string]float64 `json:"solve_us_median"`
	MinUS         map[string]float64 `json:"solve_us_min"`
	MaxUS         map[string]float64 `json:"solve_us_max"`
	Ratios        map[string]float64 `json:"ratios"`
	// SkippedUS is the median time of the while graph with the condition
	// false at entry (every iteration skipped), per skipped iteration;
	// EmptyDispatchUS the median time per dispatch of a graph of as many
	// do-nothing dispatches: the floor a skipped dispatch is compared with.
	SkippedUS       float64 `json:"skipped_iteration_us"`
	EmptyDispatchUS float64 `json:"empty_dispatch_us"`
	Identical       bool    `json:"identical"`
}

// Solver holds the grid, the kernels and the three ways.
type Solver struct {
	s        *recorder.Stream
	n        int
	sweeps   int
	tol      float32
	init     []float32
	u, v     *recorder.Buffer
	diff     *recorder.Buffer
	state    *recorder.Buffer // [0] go on, [1] iterations, [2] residual bits
	jacobi   *wgpu.Kernel
	residual *wgpu.Kernel
}

// NewSolver makes an n×n grid: zero boundary, interior random in [0, 1)
// from seed.
func NewSolver(dev *wgpu.Device, s *recorder.Stream, n, sweeps int, tol float32, seed uint64) (*Solver, error) {
	if n < 3 || sweeps < 2 || sweeps%2 != 0 {
		return nil, fmt.Errorf("n=%d sweeps=%d (n ≥ 3, sweeps even and ≥ 2)", n, sweeps)
	}
	sv := &Solver{s: s, n: n, sweeps: sweeps, tol: tol, init: make([]float32, n*n)}
	rng := rand.New(rand.NewPCG(seed, 1))
	for y := 1; y < n-1; y++ {
		for x := 1; x < n-1; x++ {
			sv.init[y*n+x] = rng.Float32()
		}
	}
	var err error
	if sv.jacobi, err = dev.Kernel(jacobiWGSL, "main"); err != nil {
		return nil, err
	}
	if sv.residual, err = dev.Kernel(residualWGSL, "main"); err != nil {
		return nil, err
	}
	size := uint64(4 * n * n)
	for _, b := range []**recorder.Buffer{&sv.u, &sv.v, &sv.diff} {
		if *b, err = s.Alloc(size); err != nil {
			return nil, err
		}
	}
	if sv.state, err = s.Alloc(16); err != nil {
		return nil, err
	}
	return sv, sv.Reset()
}

// Reset puts the initial grid back and sets the state to "go on".
func (sv *Solver) Reset() error {
	if err := recorder.WriteSlice(sv.s, sv.u, 0, sv.init); err != nil {
		return err
	}
	return recorder.WriteSlice(sv.s, sv.state, 0, []uint32{1, 0, 0, 0})
}

// Iteration launches one iteration: the sweeps, ping-ponging u→v→u, and
// the residual of the last one.
func (sv *Solver) Iteration() error {
	g := uint32((sv.n + 7) / 8)
	p := recorder.ParamsOf(uint32(sv.n))
	for i := 0; i < sv.sweeps; i++ {
		src, dst := sv.u, sv.v
		if i%2 == 1 {
			src, dst = sv.v, sv.u
		}
		if err := sv.s.Launch(sv.jacobi, recorder.Groups(g, g, 1), src, dst, sv.diff, p); err != nil {
			return err
		}
	}
	rp, err := recorder.ParamsFrom(struct {
		Count uint32
		Tol   float32
	}{uint32(sv.n * sv.n), sv.tol})
	if err != nil {
		return err
	}
	return sv.s.Launch(sv.residual, recorder.Groups(1, 1, 1), sv.diff, sv.state, rp)
}

// State reads the state: go on, iterations, residual.
func (sv *Solver) State() (bool, int, float32, error) {
	st, err := recorder.ReadSlice[uint32](sv.s, sv.state)
	if err != nil {
		return false, 0, 0, err
	}
	return st[0] != 0, int(st[1]), math.Float32frombits(st[2]), nil
}

// Host solves with a Read after every iteration.
func (sv *Solver) Host(max int) error {
	for range max {
		if err := sv.Iteration(); err != nil {
			return err
		}
		more, _, _, err := sv.State()
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
	}
	return nil
}

// Fixed captures a graph of exactly iters iterations.
func (sv *Solver) Fixed(iters int) (*recorder.Graph, error) {
	return sv.s.Capture(func() error {
		for range iters {
			if err := sv.Iteration(); err != nil {
				return err
			}
		}
		return nil
	})
}

// While captures a graph looping on the state's flag, at most max times.
func (sv *Solver) While(max int) (*recorder.Graph, error) {
	return sv.s.Capture(func() error {
		return sv.s.While(sv.state, 0, max, sv.Iteration)
	})
}

// Grid reads the solution.
func (sv *Solver) Grid() ([]float32, error) { return recorder.ReadSlice[float32](sv.s, sv.u) }

// progressEvery is how often a run that is still timing says so.
const progressEvery = 3 * time.Second

// run solves as the command line args say, writing the report to stdout and
// progress lines to stderr.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("solver", flag.ContinueOnError)
	n := fs.Int("n", 64, "grid side")
	sweeps := fs.Int("sweeps", 4, "Jacobi sweeps per iteration (even)")
	tol := fs.Float64("tol", 4e-3, "stop when the largest change of a sweep is at most this")
	maxIter := fs.Int("max", 0, "While's maxIterations (0: the iterations needed, plus 10%)")
	rounds := fs.Int("rounds", 15, "timed solves per way")
	seed := fs.Uint64("seed", 1, "seed of the initial grid")
	jsonPath := fs.String("json", "", "write the result as JSON to this file")
	predication := fs.Bool("predication", true, "skip While's body dispatches through guarded kernel variants (recorder.WithPredication); false: indirect dispatches")
	quick := fs.Bool("quick", false, "a small grid and few rounds, a few seconds on lavapipe: -n 32 -rounds 3 unless given")
	if err := cli.Parse(fs, args, false); err != nil {
		return err
	}
	if *quick {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if !given["n"] {
			*n = 32
		}
		if !given["rounds"] {
			*rounds = 3
		}
	}
	if *rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", *rounds)
	}
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()
	s, err := recorder.New(dev, recorder.WithPredication(*predication))
	if err != nil {
		return err
	}
	defer s.Close()
	sv, err := NewSolver(dev, s, *n, *sweeps, float32(*tol), *seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "adapter: %s\n", dev.Info())
	if note := softadapter.Note(dev.Info()); note != "" {
		fmt.Fprintln(stdout, note)
	}
	fmt.Fprintf(stdout, "grid %d×%d, %d sweeps per iteration, tolerance %g, predication %v\n", *n, *n, *sweeps, *tol, *predication)

	// A first host solve says how many iterations the solve needs.
	const cap = recorder.MaxWhileIterations
	if err := sv.Host(cap); err != nil {
		return err
	}
	more, iters, res, err := sv.State()
	if err != nil {
		return err
	}
	if more {
		return fmt.Errorf("the solve did not converge in %d iterations (residual %g); raise -tol", cap, res)
	}
	want, err := sv.Grid()
	if err != nil {
		return err
	}
	max := *maxIter
	if max == 0 {
		max = min(cap, iters+(iters+9)/10)
	}
	fmt.Fprintf(stdout, "the solve needs %d iterations (final residual %g); While runs at most %d\n", iters, res, max)

	// Capture both graphs (each capture runs its step once as the warmup).
	if err := sv.Reset(); err != nil {
		return err
	}
	fixed, err := sv.Fixed(iters)
	if err != nil {
		return err
	}
	defer fixed.Release()
	if err := sv.Reset(); err != nil {
		return err
	}
	loop, err := sv.While(max)
	if err != nil {
		return err
	}
	defer loop.Release()

	ways := map[string]func() error{
		"host":  func() error { return sv.Host(max) },
		"fixed": func() error { return fixed.Replay() },
		"while": func() error { return loop.Replay() },
	}
	order := []string{"host", "fixed", "while"}
	times := map[string][]time.Duration{}
	r := Result{Adapter: dev.Info().String(), N: *n, Sweeps: *sweeps, Predication: *predication, Tolerance: float32(*tol), Iterations: iters,
		MaxIterations: max, Identical: true, MedianUS: map[string]float64{}, MinUS: map[string]float64{}, MaxUS: map[string]float64{}, Ratios: map[string]float64{}}
	m := progress.New(stderr, progressEvery)
	for round := -1; round < *rounds; round++ {
		if round >= 0 {
			m.Printf("solver: round %d of %d of the three ways", round+1, *rounds)
		}
		for _, w := range order {
			if err := sv.Reset(); err != nil {
				return err
			}
			if err := s.Sync(); err != nil {
				return err
			}
			start := clock.Now()
			if err := ways[w](); err != nil {
				return fmt.Errorf("%s: %w", w, err)
			}
			if err := s.Sync(); err != nil {
				return fmt.Errorf("%s: %w", w, err)
			}
			d := clock.Since(start)
			got, err := sv.Grid()
			if err != nil {
				return err
			}
			_, gotIters, _, err := sv.State()
			if err != nil {
				return err
			}
			if gotIters != iters || !slices.Equal(math32bits(got), math32bits(want)) {
				r.Identical = false
				return fmt.Errorf("%s: %d iterations and a grid that differs from the host solve's (%d iterations): the ways must agree bit for bit", w, gotIters, iters)
			}
			if round >= 0 {
				times[w] = append(times[w], d)
			}
		}
	}
	r.Rounds = *rounds
	for _, w := range order {
		t := times[w]
		slices.Sort(t)
		r.MedianUS[w], r.MinUS[w], r.MaxUS[w] = us(t[len(t)/2]), us(t[0]), us(t[len(t)-1])
	}
	r.Ratios["host/while"] = r.MedianUS["host"] / r.MedianUS["while"]
	r.Ratios["while/fixed"] = r.MedianUS["while"] / r.MedianUS["fixed"]

	// The cost of skipped iterations: the while graph with the condition
	// false at entry, against a graph of as many empty dispatches.
	fmt.Fprintln(stderr, "solver: timing skipped iterations against empty dispatches")
	if r.SkippedUS, r.EmptyDispatchUS, err = skipCost(dev, s, sv, loop, max, *rounds); err != nil {
		return err
	}
	// Dispatches per iteration: the sweeps and the residual, and a gate
	// unless the first sweep latches the condition (predication).
	perIteration := float64(loop.Stats().Dispatches) / float64(max)
	r.Ratios["skipped_dispatch/empty_dispatch"] = r.SkippedUS / perIteration / r.EmptyDispatchUS

	fmt.Fprintf(stdout, "\nsolve, median µs [min–max] over %d rounds, all bit-identical (%d iterations):\n", r.Rounds, iters)
	for _, w := range order {
		fmt.Fprintf(stdout, "  %-6s %10.1f [%.1f–%.1f]\n", w, r.MedianUS[w], r.MinUS[w], r.MaxUS[w])
	}
	fmt.Fprintf(stdout, "host/while %.2f, while/fixed %.2f\n", r.Ratios["host/while"], r.Ratios["while/fixed"])
	fmt.Fprintf(stdout, "a skipped iteration (%g dispatches: %d empty sweeps, empty residual%s): %.2f µs; an empty dispatch: %.2f µs; per skipped dispatch %.2f× an empty one\n",
		perIteration, *sweeps, map[bool]string{true: ", gate", false: ""}[perIteration > float64(*sweeps+1)], r.SkippedUS, r.EmptyDispatchUS, r.Ratios["skipped_dispatch/empty_dispatch"])
	if *jsonPath != "" {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*jsonPath, append(b, '\n'), 0o644)
	}
	return nil
}

// emptyWGSL does nothing: the floor of a dispatch.
const emptyWGSL = `
@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@compute @workgroup_size(1)
fn main() { if (x[0] == 0xffffffffu) { x[0] = 0u; } }
`

// skipCost times the while graph with every iteration skipped, per
// iteration, and a graph of max×(sweeps+2) empty dispatches, per dispatch.
func skipCost(dev *wgpu.Device, s *recorder.Stream, sv *Solver, loop *recorder.Graph, max, rounds int) (float64, float64, error) {
	k, err := dev.Kernel(emptyWGSL, "main")
	if err != nil {
		return 0, 0, err
	}
	x, err := s.Alloc(16)
	if err != nil {
		return 0, 0, err
	}
	defer x.Release()
	count := max * (sv.sweeps + 2)
	empty, err := s.Capture(func() error {
		for range count {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	defer empty.Release()
	var skipped, floor []time.Duration
	for round := -1; round < rounds; round++ {
		if err := recorder.WriteSlice(s, sv.state, 0, []uint32{0, 0, 0, 0}); err != nil {
			return 0, 0, err
		}
		if err := s.Sync(); err != nil {
			return 0, 0, err
		}
		start := clock.Now()
		if err := loop.Replay(); err != nil {
			return 0, 0, err
		}
		if err := s.Sync(); err != nil {
			return 0, 0, err
		}
		d := clock.Since(start)
		start = clock.Now()
		if err := empty.Replay(); err != nil {
			return 0, 0, err
		}
		if err := s.Sync(); err != nil {
			return 0, 0, err
		}
		if round >= 0 {
			skipped, floor = append(skipped, d), append(floor, clock.Since(start))
		}
	}
	slices.Sort(skipped)
	slices.Sort(floor)
	return us(skipped[len(skipped)/2]) / float64(max), us(floor[len(floor)/2]) / float64(count), nil
}

func math32bits(v []float32) []uint32 {
	out := make([]uint32, len(v))
	for i, f := range v {
		out[i] = math.Float32bits(f)
	}
	return out
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
