// Command gpt2fwd runs a GPT-2-style forward pass written as WebGPU
// programs are written, one kernel per operation (separate bias, GELU and
// residual kernels on 8×8 workgroups after a 16×16 tiled matrix
// multiply), as a replayed graph, fused (recorder.WithFusion: the bias,
// GELU and residual kernels run inside the matrix multiply that produced
// their input, docs/fusion.md "Epilogues") and not, and compares them:
// logits bit for bit, dispatches, and milliseconds per forward, measured in
// interleaved rounds on one device.
//
//	go run ./examples/gpt2fwd            # T=64 D=256 H=4 L=4 V=2048
//	go run ./examples/gpt2fwd -quick     # a small model, few rounds (CI)
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/examples/internal/cli"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

func main() {
	cli.Exit("gpt2fwd", run(os.Args[1:], os.Stdout))
}

// result is one run's comparison.
type result struct {
	Plain, Fused       int // dispatches per forward
	FusedChains        string
	PlainMs, FusedMs   float64 // median ms per replayed forward, logits read back
	Tokens             int
	LogitsBitIdentical bool
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("gpt2fwd", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "a small model and few rounds")
	rounds := fs.Int("rounds", 50, "timed rounds (each: one fused and one plain replay)")
	if err := cli.Parse(fs, args, false); err != nil {
		return err
	}
	sh := shape{T: 64, D: 256, H: 4, L: 4, V: 2048}
	if *quick {
		sh, *rounds = shape{T: 16, D: 64, H: 4, L: 2, V: 256}, 5
	}
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()
	r, err := compare(dev, sh, *rounds)
	if err != nil {
		return err
	}
	info := dev.Info()
	fmt.Fprintf(out, "adapter: %s (%s)\nmodel: T=%d D=%d H=%d L=%d V=%d\n", info.Name, info.Backend, sh.T, sh.D, sh.H, sh.L, sh.V)
	fmt.Fprintf(out, "dispatches per forward: %d plain, %d fused (%.0f%% fewer)\n", r.Plain, r.Fused, 100*(1-float64(r.Fused)/float64(r.Plain)))
	fmt.Fprintf(out, "%s\n", r.FusedChains)
	fmt.Fprintf(out, "replayed forward, logits read back (median of %d interleaved rounds): plain %.3f ms, fused %.3f ms (%.2fx); per token %.4f and %.4f ms\n",
		*rounds, r.PlainMs, r.FusedMs, r.PlainMs/r.FusedMs, r.PlainMs/float64(r.Tokens), r.FusedMs/float64(r.Tokens))
	fmt.Fprintf(out, "logits bit-identical fused and plain: %v\n", r.LogitsBitIdentical)
	if !r.LogitsBitIdentical {
		return errors.New("the fused graph's logits differ from the plain graph's")
	}
	return nil
}

// compare captures the forward on a plain and a fusing stream of dev and
// measures both.
func compare(dev *wgpu.Device, sh shape, rounds int) (result, error) {
	ks := &kernels{dev: dev, cache: map[string]*wgpu.Kernel{}}
	defer ks.release()
	var graphs [2]*recorder.Graph
	var models [2]*model
	for i, opts := range [][]recorder.Option{nil, {recorder.WithFusion(true)}} {
		s, err := recorder.New(dev, opts...)
		if err != nil {
			return result{}, err
		}
		defer s.Close()
		m, err := newModel(s, ks, sh, 1)
		if err != nil {
			return result{}, err
		}
		g, err := s.Capture(m.forward)
		if err != nil {
			return result{}, fmt.Errorf("capture (fusion %v): %w", i == 1, err)
		}
		defer g.Release()
		graphs[i], models[i] = g, m
	}
	var logits [2][]uint32
	for i, g := range graphs {
		if err := g.Replay(); err != nil {
			return result{}, err
		}
		var err error
		if logits[i], err = models[i].logitBits(); err != nil {
			return result{}, err
		}
	}
	summary := graphs[1].String()
	if i := strings.Index(summary, "; fused: "); i >= 0 {
		summary = summary[i+2:]
	}
	r := result{Plain: graphs[0].Stats().Dispatches, Fused: graphs[1].Stats().Dispatches, FusedChains: summary, Tokens: sh.T}
	r.LogitsBitIdentical = cmp.Equal(logits[0], logits[1]) && finite(logits[0])
	var times [2][]time.Duration
	for round := range rounds {
		for j := range 2 {
			i := (round + j) % 2 // alternate which goes first
			start := time.Now()
			if err := graphs[i].Replay(); err != nil {
				return result{}, err
			}
			if _, err := models[i].logitBits(); err != nil {
				return result{}, err
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		if len(d) == 0 {
			return 0
		}
		return float64(d[len(d)/2].Nanoseconds()) / 1e6
	}
	r.PlainMs, r.FusedMs = med(times[0]), med(times[1])
	return r, nil
}
