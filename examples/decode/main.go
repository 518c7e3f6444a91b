// Command decode steps a small transformer-style block token by token, the
// way a language model decodes, once with eager launches and once by
// replaying a captured graph, and checks that both produce the same
// probabilities bit for bit.
//
// Each token runs six kernels from package shaders on a 1×hidden input:
//
//	x · W1 (hidden×4·hidden) → bias + GELU → · W2 (4·hidden×hidden)
//	→ RMSNorm → · Wout (hidden×vocab) → softmax → next-token probabilities
//
// The next token is sampled from those probabilities (inverse CDF at a
// seeded random draw) and its embedding row becomes the next input, so every
// step depends on the one before, and a wrong step would derail the rest.
// Weights are random but deterministic for a given -seed, and uploaded once,
// before the capture.
//
// The eager path writes the input, launches the six kernels and reads the
// probabilities, step after step. The replay path calls GraphPrepare, runs
// one step eagerly as the warmup, captures the next between BeginCapture and
// EndCapture, then for every token writes the input into the same buffer,
// replays the graph and reads. Both start from the same token and draws.
//
//	go run ./examples/decode                              # 64 steps, hidden 256, vocab 1024
//	go run ./examples/decode -quick                       # 64 steps, hidden 64, vocab 256: seconds on lavapipe
//	go run ./examples/decode -steps 256 -hidden 512 -vocab 4096 -seed 7
//
// It prints the adapter, the model's shape, the graph's stats (dispatches,
// retained bytes, capture time), tokens/s for eager and replay side by side,
// and how many steps it verified; on stderr, while a path decodes, a
// progress line every few seconds. It exits with status 1, naming the first
// step and element that differ, unless every replayed step equals the eager
// one exactly: same kernels, same order, same inputs must give the same bits.
//
// What to expect: a token is six launches plus a write and a read that
// waits for the GPU, so replay, which saves the per-launch host work of
// resolving arguments, params and bind groups, wins little here. At the
// default sizes a software rasteriser such as lavapipe is busy with the
// matrix products and both rates are the same; shrink the model (-hidden 16
// -vocab 16) to see the host's share. On such an adapter (type CPU) it says
// so after the adapter line: the CPU is the GPU there.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/softgraph/softgraph/examples/internal/cli"
	"github.com/softgraph/softgraph/examples/internal/clock"
	"github.com/softgraph/softgraph/examples/internal/progress"
	"github.com/softgraph/softgraph/examples/internal/softadapter"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

func main() {
	cli.Exit("decode", run(os.Args[1:], os.Stdout, os.Stderr))
}

// trace is what one path produced: each step's probabilities and the token
// sampled from them.
type trace struct {
	probs   [][]float32
	tokens  []int
	elapsed time.Duration
}

// progressEvery is how often a path that is still decoding says so.
const progressEvery = 3 * time.Second

// run decodes as the command line args say, writing the report to stdout
// and progress lines to stderr.
func run(args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("decode", flag.ContinueOnError)
	steps := fs.Int("steps", 64, "tokens to decode on each path")
	hidden := fs.Uint("hidden", 256, "model width (the MLP's inner width is 4× this)")
	vocab := fs.Uint("vocab", 1024, "vocabulary size (softmax width)")
	seed := fs.Uint64("seed", 1, "seed for the weights, embeddings and sampling draws")
	quick := fs.Bool("quick", false, "a small model, a few seconds on lavapipe: -hidden 64 -vocab 256 unless given")
	if err := cli.Parse(fs, args, false); err != nil {
		return err
	}
	if *quick {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if !given["hidden"] {
			*hidden = 64
		}
		if !given["vocab"] {
			*vocab = 256
		}
	}
	if *steps < 1 || *hidden < 1 || *vocab < 1 || *hidden > 1<<16 || *vocab > 1<<20 {
		return fmt.Errorf("want -steps ≥ 1, 1 ≤ -hidden ≤ 65536, 1 ≤ -vocab ≤ 1048576")
	}

	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		return err
	}
	defer func() {
		// Close reports device errors still queued: a run that printed
		// "verified" must not hide one.
		if cerr := s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close stream: %w", cerr)
		}
	}()

	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	b, err := newBlock(dev, s, uint32(*hidden), uint32(*vocab), rng)
	if err != nil {
		return err
	}
	defer b.release()
	// The sampling draws are fixed up front, so both paths see the same ones.
	draws := make([]float64, *steps)
	for i := range draws {
		draws[i] = rng.Float64()
	}
	fmt.Fprintf(stdout, "adapter:  %s\n", dev.Info())
	if note := softadapter.Note(dev.Info()); note != "" {
		fmt.Fprintln(stdout, note)
	}
	fmt.Fprintf(stdout, "model:    hidden %d, ffn %d, vocab %d; %d launches per token; seed %d\n",
		b.hidden, b.ffn, b.vocab, len(b.launches), *seed)

	// One untimed eager step first: the eager path's bind groups and params
	// uniforms are then cached, as the replay path's are after its capture.
	if err := b.feed(s, 0); err != nil {
		return err
	}
	if err := b.step(s); err != nil {
		return err
	}
	if err := s.Sync(); err != nil {
		return fmt.Errorf("eager warm-up: %w", err)
	}
	eager, err := decode(s, b, draws, func() error { return b.step(s) }, progress.New(stderr, progressEvery), "eager")
	if err != nil {
		return fmt.Errorf("eager: %w", err)
	}

	g, err := capture(s, b)
	if err != nil {
		return err
	}
	defer g.Release()
	st := g.Stats()
	fmt.Fprintf(stdout, "graph:    %d dispatches, %d kernels, %d buffers, %.2f MiB retained, captured in %v\n",
		st.Dispatches, st.Kernels, st.Buffers, float64(st.RetainedBytes)/(1<<20), st.CaptureTime.Round(time.Microsecond))
	replay, err := decode(s, b, draws, g.Replay, progress.New(stderr, progressEvery), "replay")
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}

	eagerRate := float64(*steps) / eager.elapsed.Seconds()
	replayRate := float64(*steps) / replay.elapsed.Seconds()
	fmt.Fprintf(stdout, "eager:    %6.1f tokens/s (%d tokens in %v)\n", eagerRate, *steps, eager.elapsed.Round(time.Millisecond))
	fmt.Fprintf(stdout, "replay:   %6.1f tokens/s (%d tokens in %v), %.2f× eager\n", replayRate, *steps, replay.elapsed.Round(time.Millisecond), replayRate/eagerRate)
	fmt.Fprintf(stdout, "tokens:   %v\n", head(eager.tokens, 16))

	if err := verify(eager, replay); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "verified: %d/%d steps, replay bit-identical to eager\n", *steps, *steps)
	return nil
}

// capture records one step into a graph: GraphPrepare, a warmup step run
// eagerly, then the same step between BeginCapture and EndCapture. The input
// buffer is written before the window: writes inside it are rejected.
func capture(s *recorder.Stream, b *block) (*recorder.Graph, error) {
	if err := s.PrepareCapture(); err != nil {
		return nil, fmt.Errorf("graph prepare: %w", err)
	}
	if err := b.feed(s, 0); err != nil {
		return nil, err
	}
	if err := b.step(s); err != nil {
		return nil, fmt.Errorf("warmup: %w", err)
	}
	if err := s.BeginCapture(); err != nil {
		return nil, fmt.Errorf("begin capture: %w", err)
	}
	if err := b.step(s); err != nil {
		// End the window so the stream is usable again; the step's error is
		// the one worth reporting.
		if g, endErr := s.EndCapture(); endErr == nil {
			g.Release()
		}
		return nil, fmt.Errorf("recorded step: %w", err)
	}
	g, err := s.EndCapture()
	if err != nil {
		return nil, fmt.Errorf("end capture: %w", err)
	}
	return g, nil
}

// decode runs len(draws) steps from token 0: feed the token, run the block
// (eager launches or a replay), read the probabilities, sample the next
// token from them. It reports on m how far the path named path has got.
func decode(s *recorder.Stream, b *block, draws []float64, runStep func() error, m *progress.Meter, path string) (trace, error) {
	t := trace{probs: make([][]float32, 0, len(draws)), tokens: make([]int, 0, len(draws))}
	token := 0
	start := clock.Now()
	for i, u := range draws {
		if err := b.feed(s, token); err != nil {
			return t, err
		}
		if err := runStep(); err != nil {
			return t, fmt.Errorf("step %d: %w", i, err)
		}
		p, err := recorder.ReadSlice[float32](s, b.probs)
		if err != nil {
			return t, fmt.Errorf("step %d: read probabilities: %w", i, err)
		}
		token = sample(p, u)
		t.probs = append(t.probs, p)
		t.tokens = append(t.tokens, token)
		m.Printf("decode: %s path, %d/%d tokens", path, i+1, len(draws))
	}
	t.elapsed = clock.Since(start)
	return t, nil
}

// verify checks that the eager output is a probability distribution at
// every step (else matching it would prove little) and that the replay
// equals it exactly.
func verify(eager, replay trace) error {
	for i, p := range eager.probs {
		var sum float64
		for _, v := range p {
			if math.IsNaN(float64(v)) || v < 0 {
				return fmt.Errorf("step %d: eager probabilities are not a distribution: %v", i, v)
			}
			sum += float64(v)
		}
		if math.Abs(sum-1) > 1e-3 {
			return fmt.Errorf("step %d: eager probabilities sum to %v, want 1", i, sum)
		}
		for j, v := range p {
			if r := replay.probs[i][j]; r != v {
				return fmt.Errorf("step %d: replay differs from eager at probs[%d]: %v (0x%08x) != %v (0x%08x)",
					i, j, r, math.Float32bits(r), v, math.Float32bits(v))
			}
		}
	}
	return nil
}

func head(v []int, n int) string {
	if len(v) <= n {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%v …", v[:n])
}
