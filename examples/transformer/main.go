// Command transformer decodes with a GPT-2-style transformer, token by
// token over a KV cache, three ways side by side, and checks all three
// against a float64 reference.
//
// The model is written for this example; its kernels are the decode
// kernels package shaders ships (shaders/decode.go), plus the embedding
// gather (kernels.go): per layer the QKV projection with the first layer
// norm fused in (shaders.MatVec), flash-decoding attention over the KV
// cache under the causal mask in two passes, the first appending the
// token's key and value to the cache (shaders.AttnSplit), the second
// fused into the output projection into the residual stream
// (shaders.AttnProj), the MLP with the second
// layer norm and GPT-2's tanh GELU fused in and its projection into the
// residual stream; then the LM head (untied, see tensors) with the final
// layer norm fused in, and greedy argmax on the GPU in two passes
// (shaders.ArgmaxPartial, ArgmaxFinal), whose token the next step's
// embedding reads without leaving the GPU. Weights are random, drawn from
// -seed (every matrix at unit gain, see initKind); nothing is downloaded.
// A token is 5 dispatches per layer and 4 more. -f16 stores the matrices
// as float16 (shaders.MatVecF16), the reference reading the same rounded
// weights.
//
// The three paths, each with its own activations and KV cache over the same
// weights, decode the same sequence:
//
//	eager   softgraph's Launch, kernel by kernel; the position and the
//	        attention length go in by value (Params) every token
//	replay  one token captured once (Stream.Capture) and replayed per token;
//	        the graph reads the position and length from a Var
//	        (Stream.NewVar), bound by reference, that the host sets before
//	        each replay (one SetVar), and the KV-cache append is part of the
//	        recorded attn_split kernel
//	raw     a careful hand-written loop on github.com/cogentcore/webgpu on
//	        the same device: explicit layouts, pipelines, bind groups and
//	        uniforms made once; per token one queue write, one command
//	        buffer of one compute pass, one submit, a mapped readback
//
// A token is timed from its first call to its token read back on the host
// (the sync a decode loop that streams its output makes). The first round
// is the check: every path decodes -tokens tokens from the prompt token,
// reading its logits after each of the first -check, and the float64 Go
// reference, fed the same tokens, checks every path's logits
// (|Δ| ≤ 1e-4·max(1, max|logit|)) and their greedy choice; the three token
// sequences must be identical. Then -rounds timed rounds decode the same
// sequence again, the paths interleaved token by token (the order rotated
// each token), and every token is compared with the checked sequence. The
// report gives per path the median ms per token and its 10–90% spread,
// the mean ms per token, tokens/s at the median (1000 / median ms, so the
// two columns agree), the median host enqueue time per token (until the
// last call before the read returns) and the ratios of medians. Each round then also decodes the sequence pipelined, path after
// path: every token enqueued back to back and one read at the end (the
// token feeds back on the GPU, so a loop that does not stream its output
// need not wait), reported as the median over rounds of time per token.
// Any difference or failed check exits 1.
//
// -devices N (or all) runs the replay path instead on N devices at once
// (wgpu.OpenN, or wgpu.OpenAll), each with its own stream, weights and
// capture, in goroutines started together, and reports each device's
// tokens/s, the aggregate, and its scaling over device 0 decoding alone
// (devices.go); every device must decode device 0's tokens.
//
// -profile adds ProfileReplay of one replayed token at the last position:
// GPU time per kernel, which kernels dominate, each projection's effective
// bandwidth, the submit-and-wait floor, and the weights' read time at
// -bw GB/s. -profile-svg FILE also draws the per-kernel GPU time as a bar
// chart (examples/internal/barchart, as graphbench's -svg), where the
// adapter's timestamps give per-dispatch times.
//
//	go run ./examples/transformer                  # small default model
//	go run ./examples/transformer -quick           # seconds on lavapipe
//	go run ./examples/transformer -gpt2 -profile   # GPT-2 small's shape
//	go run ./examples/transformer -profile-svg profile.svg
//	go run ./examples/transformer -devices all     # one decode per GPU
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/softgraph/softgraph/examples/internal/barchart"
	"github.com/softgraph/softgraph/examples/internal/cli"
	"github.com/softgraph/softgraph/examples/internal/clock"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

func main() {
	cli.Exit("transformer", run(os.Args[1:], os.Stdout))
}

// options are the command line.
type options struct {
	cfg                   config
	tokens, rounds, check int
	prompt                int
	seed                  uint64
	profile               bool
	profileSVG            string // -profile-svg: write the per-kernel profile as a chart here (implies profile)
	bandwidthGBs          float64
	shardBytes            uint64 // the vocabulary tables' shards are at most this (0: the adapter's binding limit)
	quiet                 bool   // no progress lines
	devices               int    // -devices: 1, or allDevices for all
}

// floorRounds is how many pre-encoded tokens -profile's floor is the best of.
const floorRounds = 10

var (
	smallModel = config{Layers: 8, Width: 256, Heads: 4, Vocab: 4096, Ctx: 256}
	quickModel = config{Layers: 2, Width: 64, Heads: 2, Vocab: 512, Ctx: 32}
	gpt2Model  = config{Layers: 12, Width: 768, Heads: 12, Vocab: 50257, Ctx: 1024}
)

func parse(args []string) (options, error) {
	fs := flag.NewFlagSet("transformer", flag.ContinueOnError)
	var o options
	fs.IntVar(&o.cfg.Layers, "layers", smallModel.Layers, "transformer blocks")
	fs.IntVar(&o.cfg.Width, "width", smallModel.Width, "model width (d_model)")
	fs.IntVar(&o.cfg.Heads, "heads", smallModel.Heads, "attention heads (width/heads must be a multiple of 4)")
	fs.IntVar(&o.cfg.Vocab, "vocab", smallModel.Vocab, "vocabulary size")
	fs.IntVar(&o.cfg.Ctx, "ctx", smallModel.Ctx, "context length (KV cache rows)")
	fs.IntVar(&o.tokens, "tokens", 64, "tokens decoded per round (at most -ctx)")
	fs.IntVar(&o.rounds, "rounds", 3, "timed rounds")
	fs.IntVar(&o.check, "check", -1, "tokens whose logits are checked against the float64 reference (-1: all, or 8 for models over 50M parameters)")
	fs.IntVar(&o.prompt, "prompt", 0, "the first token")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the random weights")
	fs.BoolVar(&o.quiet, "q", false, "no progress lines")
	fs.BoolVar(&o.profile, "profile", false, "profile one replayed token: GPU time per kernel and the floor")
	fs.StringVar(&o.profileSVG, "profile-svg", "", "also write the per-kernel profile as an SVG chart to this file (implies -profile)")
	fs.Float64Var(&o.bandwidthGBs, "bw", 4800, "memory bandwidth in GB/s for the profile's weight-read time (H200: 4800)")
	fs.Uint64Var(&o.shardBytes, "shard-bytes", 0, "split the vocabulary tables into buffers of at most this many bytes (0: as few as the adapter's maxStorageBufferBindingSize allows)")
	fs.BoolVar(&o.cfg.F16, "f16", false, "store the matrices (projections and LM head) as float16, accumulate in float32 (shaders.MatVecF16)")
	gpt2 := fs.Bool("gpt2", false, "GPT-2 small's shape: 12 layers, width 768, 12 heads, vocab 50257, context 1024")
	devices := fs.String("devices", "1", "decode on this many devices at once, one goroutine each, or `all` (the adapters wgpu.OpenAll opens): per-device and aggregate tokens/s of the replay path")
	quick := fs.Bool("quick", false, "a tiny model, 8 tokens, 2 rounds: seconds on a software adapter")
	if err := cli.Parse(fs, args, false); err != nil {
		return o, err
	}
	if *gpt2 && *quick {
		return o, errors.New("-gpt2 and -quick are exclusive")
	}
	// A preset fills in the flags the command line did not set.
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	preset := func(p config, tokens, rounds int) {
		for _, f := range []struct {
			name   string
			dst    *int
			preset int
		}{
			{"layers", &o.cfg.Layers, p.Layers}, {"width", &o.cfg.Width, p.Width}, {"heads", &o.cfg.Heads, p.Heads},
			{"vocab", &o.cfg.Vocab, p.Vocab}, {"ctx", &o.cfg.Ctx, p.Ctx}, {"tokens", &o.tokens, tokens}, {"rounds", &o.rounds, rounds},
		} {
			if !set[f.name] {
				*f.dst = f.preset
			}
		}
	}
	switch {
	case *gpt2:
		preset(gpt2Model, 64, 3)
	case *quick:
		preset(quickModel, 8, 2)
	}
	if *devices == "all" {
		o.devices = allDevices
	} else if n, err := strconv.Atoi(*devices); err != nil || n < 1 {
		return o, fmt.Errorf("-devices %q: want a count of at least 1 or all", *devices)
	} else {
		o.devices = n
	}
	if o.profileSVG != "" {
		o.profile = true
	}
	if o.devices != 1 && o.profile {
		return o, errors.New("-profile profiles one device: leave out -devices")
	}
	if o.check < 0 {
		o.check = o.tokens
		if o.cfg.params() > 50e6 {
			o.check = min(o.tokens, 8)
		}
	}
	switch {
	case o.tokens < 1 || o.tokens > o.cfg.Ctx:
		return o, fmt.Errorf("-tokens %d: want 1 to -ctx (%d)", o.tokens, o.cfg.Ctx)
	case o.rounds < 1:
		return o, fmt.Errorf("-rounds %d: want at least 1", o.rounds)
	case o.check > o.tokens:
		return o, fmt.Errorf("-check %d: want at most -tokens (%d)", o.check, o.tokens)
	case o.prompt < 0 || o.prompt >= o.cfg.Vocab:
		return o, fmt.Errorf("-prompt %d: want a token below -vocab (%d)", o.prompt, o.cfg.Vocab)
	case o.bandwidthGBs <= 0:
		return o, fmt.Errorf("-bw %v: want a positive bandwidth", o.bandwidthGBs)
	}
	return o, nil
}

func run(args []string, stdout io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	if o.devices != 1 {
		return multiDecode(o, stdout)
	}
	return decode(o, stdout)
}

// sample is one token of one path: its host enqueue time and its time
// until the token was read back.
type sample struct{ enqueue, total time.Duration }

func decode(o options, stdout io.Writer) (err error) {
	progress := func(format string, a ...any) {
		if !o.quiet {
			fmt.Fprintf(stdout, "· "+format+"\n", a...)
		}
	}
	c := o.cfg
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()
	fmt.Fprintf(stdout, "adapter: %s\n", dev.Info())
	if err := c.validate(dev.Info().Limits); err != nil {
		return err
	}
	s, err := recorder.New(dev)
	if err != nil {
		return err
	}
	defer func() {
		// Close reports device errors still queued: a run that printed
		// its checks must not hide one.
		if cerr := s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close stream: %w", cerr)
		}
	}()

	progress("drawing %.1fM random weights (seed %d)", float64(c.params())/1e6, o.seed)
	host := randomWeights(c, o.seed)
	progress("uploading %.1f MB of weights", float64(4*c.params())/1e6)
	shardBytes := maxBinding(dev.Info().Limits)
	if o.shardBytes > 0 {
		shardBytes = min(shardBytes, o.shardBytes)
	}
	w, err := upload(s, c, host, shardBytes)
	if err != nil {
		return err
	}
	defer w.release(c)
	fmt.Fprintf(stdout, "model:   %v; %d dispatches per token (vocabulary tables in %d shard(s)); seed %d\n", c, c.dispatches(len(w.shards)), len(w.shards), o.seed)
	progress("compiling %d kernels", len((&kernels{lmHeads: make([]*kernel, len(w.shards))}).all()))
	ks, err := compileKernels(dev, c, w.shards)
	if err != nil {
		return err
	}
	eager, err := newEagerPath(s, c, ks, w)
	if err != nil {
		return err
	}
	defer eager.st.release()
	progress("capturing one token")
	replay, err := newReplayPath(s, c, ks, w)
	if err != nil {
		return err
	}
	defer replay.release()
	st := replay.g.Stats()
	fmt.Fprintf(stdout, "graph:   %d dispatches, %d kernels, %d bind groups, %.2f MiB retained, captured in %v\n",
		st.Dispatches, st.Kernels, st.BindGroups, float64(st.RetainedBytes)/(1<<20), st.CaptureTime.Round(time.Microsecond))
	progress("building the hand-written path")
	raw, err := newRawPath(dev, s, c, ks, w)
	if err != nil {
		return err
	}
	defer raw.close()
	paths := []path{eager, replay, raw}

	seq, err := check(o, host, paths, progress, stdout)
	if err != nil {
		return err
	}

	samples := make([][]sample, len(paths))
	piped := make([][]time.Duration, len(paths)) // per round: pipelined time per token
	for r := range o.rounds {
		for _, p := range paths {
			if err := p.reset(uint32(o.prompt)); err != nil {
				return fmt.Errorf("%s: reset: %w", p.name(), err)
			}
		}
		roundStart := len(samples[0])
		for pos := range o.tokens {
			for i := range paths {
				pi := (i + pos + r) % len(paths) // rotate who goes first
				p := paths[pi]
				t0 := clock.Now()
				if err := p.step(pos); err != nil {
					return fmt.Errorf("%s: token %d: %w", p.name(), pos, err)
				}
				enq := clock.Since(t0)
				tok, err := p.token()
				if err != nil {
					return fmt.Errorf("%s: token %d: %w", p.name(), pos, err)
				}
				samples[pi] = append(samples[pi], sample{enq, clock.Since(t0)})
				if tok != seq[pos] {
					return fmt.Errorf("round %d: %s decoded token %d at position %d, the checked sequence has %d", r+1, p.name(), tok, pos, seq[pos])
				}
			}
		}
		// The same sequence again, every token enqueued back to back and
		// one read at the end, path after path (rotated each round).
		for i := range paths {
			pi := (i + r) % len(paths)
			d, err := pipelined(paths[pi], o, seq)
			if err != nil {
				return fmt.Errorf("round %d: pipelined: %w", r+1, err)
			}
			piped[pi] = append(piped[pi], d/time.Duration(o.tokens))
		}
		line := fmt.Sprintf("round %d/%d: ms/token", r+1, o.rounds)
		for i, p := range paths {
			line += fmt.Sprintf(" %s %.3f", p.name(), ms(median(totals(samples[i][roundStart:]))))
		}
		line += "; pipelined"
		for i, p := range paths {
			line += fmt.Sprintf(" %s %.3f", p.name(), ms(piped[i][r]))
		}
		progress("%s", line)
	}
	report(stdout, paths, samples, piped, o.tokens*o.rounds)

	if o.profile {
		// The replay path's pipelined time per token is the GPU's own
		// time for a token (GPU-bound), without the profile's
		// per-dispatch timestamps.
		return profile(stdout, o, s, replay, median(piped[slices.Index(paths, path(replay))]))
	}
	return nil
}

// pipelined decodes the sequence on p with every token enqueued back to
// back and one read at the end (the token feeds back on the GPU, so the
// host need not wait), and returns the time from the first call to the
// last token read.
func pipelined(p path, o options, seq []uint32) (time.Duration, error) {
	if err := p.reset(uint32(o.prompt)); err != nil {
		return 0, fmt.Errorf("%s: reset: %w", p.name(), err)
	}
	t0 := clock.Now()
	for pos := range o.tokens {
		if err := p.step(pos); err != nil {
			return 0, fmt.Errorf("%s: token %d: %w", p.name(), pos, err)
		}
	}
	tok, err := p.token()
	d := clock.Since(t0)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", p.name(), err)
	}
	if last := seq[len(seq)-1]; tok != last {
		return 0, fmt.Errorf("%s decoded %d last, the checked sequence ends with %d", p.name(), tok, last)
	}
	return d, nil
}

// check decodes the sequence once on every path, untimed (it also warms
// the caches), and checks the three token sequences are identical and
// every path's logits for the first o.check tokens against the float64
// reference fed the same tokens. It returns the sequence.
func check(o options, host *tensors[[]float32], paths []path, progress func(string, ...any), stdout io.Writer) ([]uint32, error) {
	c := o.cfg
	seqs := make([][]uint32, len(paths))
	logits := make([][][]float32, len(paths))
	for i, p := range paths {
		progress("checking %s: %d tokens", p.name(), o.tokens)
		if err := p.reset(uint32(o.prompt)); err != nil {
			return nil, fmt.Errorf("%s: reset: %w", p.name(), err)
		}
		for pos := range o.tokens {
			if err := p.step(pos); err != nil {
				return nil, fmt.Errorf("%s: token %d: %w", p.name(), pos, err)
			}
			tok, err := p.token()
			if err != nil {
				return nil, fmt.Errorf("%s: token %d: %w", p.name(), pos, err)
			}
			seqs[i] = append(seqs[i], tok)
			if pos < o.check {
				l, err := p.logits()
				if err != nil {
					return nil, fmt.Errorf("%s: token %d: logits: %w", p.name(), pos, err)
				}
				if slices.ContainsFunc(l, func(v float32) bool { return v != v }) {
					return nil, fmt.Errorf("%s: position %d: the logits hold NaN (the KV cache starts as NaN: did a kernel read past the position?)", p.name(), pos)
				}
				if int(tok) != argmax(l) {
					return nil, fmt.Errorf("%s: position %d: the GPU's argmax chose %d, the largest of its logits is at %d", p.name(), pos, tok, argmax(l))
				}
				logits[i] = append(logits[i], l)
			}
		}
	}
	for i := 1; i < len(paths); i++ {
		if j := slices.Compare(seqs[0], seqs[i]); j != 0 {
			for pos := range seqs[0] {
				if seqs[0][pos] != seqs[i][pos] {
					return nil, fmt.Errorf("token sequences differ: at position %d %s decoded %d, %s decoded %d", pos, paths[0].name(), seqs[0][pos], paths[i].name(), seqs[i][pos])
				}
			}
		}
	}
	fmt.Fprintf(stdout, "tokens:  %s (identical on every path)\n", head(seqs[0], 16))

	progress("float64 reference: %d tokens", o.check)
	ref := newReference(c, host)
	worst := make([]float64, len(paths))
	identical := true
	in := o.prompt
	for pos := range o.check {
		want := ref.forward(in, pos)
		scale := 1.0
		for _, v := range want {
			scale = math.Max(scale, math.Abs(v))
		}
		tol := refTolerance * scale
		for i, p := range paths {
			got := logits[i][pos]
			for v := range got {
				diff := math.Abs(float64(got[v]) - want[v])
				if !(diff <= tol) { // NaN fails too
					return nil, fmt.Errorf("%s: position %d: logit %d is %v, the float64 reference %v (|Δ| %.3g > tolerance %.3g)", p.name(), pos, v, got[v], want[v], diff, tol)
				}
				worst[i] = math.Max(worst[i], diff/scale)
				if got[v] != logits[0][pos][v] {
					identical = false
				}
			}
			// The greedy choice must be the reference's, unless the two
			// top logits are closer than the tolerance.
			tok, best := int(seqs[i][pos]), argmax(want)
			if tok != best && want[best]-want[tok] > 2*tol {
				return nil, fmt.Errorf("%s: position %d: chose token %d (reference logit %v), the reference's largest is %d (%v)", p.name(), pos, tok, want[tok], best, want[best])
			}
		}
		in = int(seqs[0][pos])
	}
	line := fmt.Sprintf("check:   %d of %d tokens' logits within %.0e·max(1, max|logit|) of the float64 reference; worst |Δ|/scale", o.check, o.tokens, refTolerance)
	for i, p := range paths {
		line += fmt.Sprintf(" %s %.1e", p.name(), worst[i])
	}
	if identical {
		line += "; logits bit-identical across paths"
	} else {
		line += "; logits differ in the last bits across paths"
	}
	fmt.Fprintln(stdout, line)
	return seqs[0], nil
}

// refTolerance bounds |GPU logit − float64 logit| relative to the larger of
// 1 and the largest |logit| at that position. float32 sums of up to
// 4·width products per projection, through every layer, stayed near 3e-7
// of that scale on lavapipe at the -quick, default and -gpt2 shapes, so
// 1e-4 leaves a margin of 300 for other adapters' rounding (fused
// multiply-adds, exp and tanh approximations) while a wrong kernel (a
// dropped bias, a misplaced cache row, a missing head) is off by far more.
// The report prints the worst error seen.
const refTolerance = 1e-4

// report prints the comparison tables. Every column says its statistic,
// and tokens/s is 1000 / the median ms/token beside it, so the two agree;
// the mean is a column of its own (the whole run's throughput is its
// inverse).
func report(stdout io.Writer, paths []path, samples [][]sample, piped [][]time.Duration, perPath int) {
	fmt.Fprintf(stdout, "\n%d tokens per path, interleaved; per token: first call until the token is read back on the host\n", perPath)
	fmt.Fprintf(stdout, "%-7s %10s %17s %9s %10s %13s %9s %9s\n", "path", "median ms", "p10–p90 ms", "mean ms", "tokens/s", "enqueue µs", "vs eager", "vs raw")
	meds := make([]time.Duration, len(paths))
	for i := range paths {
		meds[i] = median(totals(samples[i]))
	}
	for i, p := range paths {
		ts := totals(samples[i])
		var sum time.Duration
		for _, t := range ts {
			sum += t
		}
		enq := make([]time.Duration, len(samples[i]))
		for j, s := range samples[i] {
			enq[j] = s.enqueue
		}
		fmt.Fprintf(stdout, "%-7s %10.3f %8.3f–%-8.3f %9.3f %10.1f %13.1f %8.2f× %8.2f×\n", p.name(), ms(meds[i]),
			ms(percentile(ts, 0.1)), ms(percentile(ts, 0.9)), ms(sum)/float64(len(ts)), perSecond(meds[i]),
			float64(median(enq).Nanoseconds())/1e3, ratio(meds[0], meds[i]), ratio(meds[len(paths)-1], meds[i]))
	}
	fmt.Fprintln(stdout, "(tokens/s: 1000 / median ms; enqueue µs: the median; vs eager, vs raw: that path's median over this one's, above 1 this one is faster)")

	fmt.Fprintf(stdout, "\npipelined: %d tokens enqueued back to back, one read at the end; median of %d rounds\n", perPath/len(piped[0]), len(piped[0]))
	fmt.Fprintf(stdout, "%-7s %10s %17s %10s %9s %9s\n", "path", "median ms", "min–max ms", "tokens/s", "vs eager", "vs raw")
	pm := make([]time.Duration, len(paths))
	for i := range paths {
		pm[i] = median(piped[i])
	}
	for i, p := range paths {
		fmt.Fprintf(stdout, "%-7s %10.3f %8.3f–%-8.3f %10.1f %8.2f× %8.2f×\n", p.name(), ms(pm[i]), ms(slices.Min(piped[i])), ms(slices.Max(piped[i])),
			perSecond(pm[i]), ratio(pm[0], pm[i]), ratio(pm[len(paths)-1], pm[i]))
	}
	fmt.Fprintln(stdout, "(median ms per token over the rounds; tokens/s: 1000 / median ms)")
}

// perSecond is how many tokens of d each fit in a second.
func perSecond(d time.Duration) float64 {
	if d <= 0 {
		return math.NaN()
	}
	return float64(time.Second) / float64(d)
}

// profile replays one token at the last position with ProfileReplay and
// reports GPU time per kernel. piped is the replay path's pipelined time
// per token, set beside the weights' read time with the profile's GPU
// time and floor.
func profile(stdout io.Writer, o options, s *recorder.Stream, p *replayPath, piped time.Duration) error {
	if err := p.setStep(o.tokens - 1); err != nil {
		return err
	}
	pr, err := s.ProfileReplay(p.g, recorder.WithFloor(floorRounds))
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	span := "-"
	if pr.Span > 0 {
		span = pr.Span.Round(time.Microsecond).String()
	}
	fmt.Fprintf(stdout, "\nprofile: one replayed token at position %d (%v): GPU %v, span %v, submit-and-wait floor %v (best of %d), floor %v\n",
		o.tokens-1, pr.Method, pr.Total.Round(time.Microsecond), span, pr.SubmitWait.Round(time.Microsecond), floorRounds, pr.Floor().Round(time.Microsecond))
	weights := time.Duration(float64(o.cfg.weightBytesPerToken()) / (o.bandwidthGBs * 1e9) * float64(time.Second))
	spanRatio := "-"
	if pr.Span > 0 {
		spanRatio = fmt.Sprintf("%.1f×", ratio(pr.Span, weights))
	}
	fmt.Fprintf(stdout, "weights: %.1f MB read per token, %v at %.0f GB/s (-bw): the span is %s that, the GPU time %.1f×, the floor %.1f×, a pipelined replayed token %.1f×\n",
		float64(o.cfg.weightBytesPerToken())/1e6, weights.Round(100*time.Nanosecond), o.bandwidthGBs, spanRatio, ratio(pr.Total, weights), ratio(pr.Floor(), weights), ratio(piped, weights))
	fmt.Fprintln(stdout, "(GPU time: each dispatch timed in a pass of its own, the times summed; span: the token in one command buffer, first command's start to last one's end on the GPU's clock, best of the floor's rounds; a pipelined token: the pipelined replay's median time per token, tokens back to back, GPU-bound, the gaps between dispatches included)")
	if len(pr.Dispatches) == 0 {
		if o.profileSVG != "" {
			fmt.Fprintf(stdout, "profile-svg: not written: a %v profile has no time per dispatch to draw\n", pr.Method)
		}
		return nil
	}
	if len(pr.Dispatches) != len(p.launches) {
		return fmt.Errorf("profile: %d dispatches timed, the token has %d", len(pr.Dispatches), len(p.launches))
	}
	type row struct {
		name     string
		n        int
		gpu      time.Duration
		bytes    int64
		min, max time.Duration
	}
	rows := map[string]*row{}
	for i, d := range pr.Dispatches {
		r := rows[d.Kernel]
		if r == nil {
			r = &row{name: d.Kernel, min: d.GPU}
			rows[d.Kernel] = r
		}
		r.n++
		r.gpu += d.GPU
		r.bytes += p.launches[i].weightBytes + p.launches[i].kvBytesPerPos*int64(o.tokens)
		r.min, r.max = min(r.min, d.GPU), max(r.max, d.GPU)
	}
	sorted := make([]*row, 0, len(rows))
	for _, r := range rows {
		sorted = append(sorted, r)
	}
	slices.SortFunc(sorted, func(a, b *row) int { return cmp.Compare(b.gpu, a.gpu) })
	fmt.Fprintf(stdout, "%-14s %5s %11s %7s %10s %10s %10s %9s %8s\n", "kernel", "n", "GPU µs", "share", "min µs", "max µs", "MB read", "GB/s", "of -bw")
	for _, r := range sorted {
		mb, bw, of := "-", "-", "-"
		if r.bytes > 0 && r.gpu > 0 {
			gbs := float64(r.bytes) / r.gpu.Seconds() / 1e9
			mb, bw, of = fmt.Sprintf("%.3f", float64(r.bytes)/1e6), fmt.Sprintf("%.1f", gbs), fmt.Sprintf("%.1f%%", 100*gbs/o.bandwidthGBs)
		}
		fmt.Fprintf(stdout, "%-14s %5d %11.1f %6.1f%% %10.1f %10.1f %10s %9s %8s\n", r.name, r.n, us(r.gpu), 100*float64(r.gpu)/float64(pr.Total),
			us(r.min), us(r.max), mb, bw, of)
	}
	fmt.Fprintln(stdout, "(MB read: the weights the kernel's dispatches read, and for attn_split the KV cache rows they attend to; GB/s: that over the GPU time; of -bw: its share of the bandwidth limit)")
	// The kernels that hold most of the time, until they make up half.
	var top []string
	var acc time.Duration
	for _, r := range sorted {
		top = append(top, fmt.Sprintf("%s %.0f%%", r.name, 100*float64(r.gpu)/float64(pr.Total)))
		if acc += r.gpu; 2*acc >= pr.Total {
			break
		}
	}
	fmt.Fprintf(stdout, "dominant: %s of the GPU time; %d dispatches, %.1f µs each on average\n", strings.Join(top, ", "), len(pr.Dispatches), us(pr.Total)/float64(len(pr.Dispatches)))
	if o.profileSVG == "" {
		return nil
	}
	// The chart: one bar per kernel, in the table's order (most GPU time
	// first), its share and dispatch count under it.
	c := barchart.Chart{
		Title: fmt.Sprintf("softgraph transformer: GPU µs per kernel in one replayed token at position %d (all its dispatches; %v)", o.tokens-1, pr.Method),
		Subtitle: fmt.Sprintf("%s; %d layers, width %d, vocab %d; GPU %.1f µs, floor %.1f µs",
			s.Device().Info(), o.cfg.Layers, o.cfg.Width, o.cfg.Vocab, us(pr.Total), us(pr.Floor())),
		Series:   []barchart.Series{{Name: "GPU µs per token", Color: "#1f77b4"}},
		Footnote: "under each kernel: its share of the token's GPU time · its dispatches per token",
	}
	for _, r := range sorted {
		share := 100 * float64(r.gpu) / float64(pr.Total)
		c.Groups = append(c.Groups, barchart.Group{
			Label: r.name,
			Note:  fmt.Sprintf("%.1f%% · %d×", share, r.n),
			Bars: []*barchart.Bar{{Value: us(r.gpu),
				Tooltip: fmt.Sprintf("%s: %.1f µs, %.1f%% (%d× %.1f–%.1f µs)", r.name, us(r.gpu), share, r.n, us(r.min), us(r.max))}},
		})
	}
	if err := c.WriteFile(o.profileSVG); err != nil {
		return fmt.Errorf("-profile-svg: %w", err)
	}
	fmt.Fprintf(stdout, "profile-svg: %s\n", o.profileSVG)
	return nil
}

func totals(ss []sample) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = s.total
	}
	return out
}

func median(ds []time.Duration) time.Duration { return percentile(ds, 0.5) }

// percentile is the q-quantile of ds (nearest rank; the median of an even
// count is the mean of the middle two).
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if q == 0.5 && len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func head(v []uint32, n int) string {
	if len(v) <= n {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%v …", v[:n])
}
