// Command graphbench measures what graph replay is worth, side by side with
// the eager launch path, hand-written wgpu and the GPU floor.
//
// One pass is a chain of dependent kernels ping-ponging between two buffers
// (dst = src + 1), issued then synced, as a decode step is. For each config
// (elements per kernel × kernels per pass) it runs four paths on the same
// device with the same WGSL, in interleaved rounds (eager, replay, replay_inline,
// raw, gpu, eager, ...), never all of one path then the next:
//
//	eager   the recorder's normal Launch path, then Sync
//	replay  a graph captured from the same pass, Replay then Sync
//	raw     hand-written cogentcore/webgpu: bind groups made once, one pass, one submit, wait
//	gpu     the floor: a command buffer encoded before the clock, then submit and wait
//
// and, to show where replay's time goes, replay_inline: the same replay with
// pre-encoding off (recorder.WithPreEncode(false)), encoding every dispatch
// on the caller's goroutine in submission chunks.
//
// Three warm-up rounds per path are not counted. It reports the median over
// rounds and the min–max spread, the enqueue time of eager and replay (until
// the call returns, before the sync), share = eager enqueue / eager e2e, the
// capture time, and the ratios eager/replay, replay/raw, replay/gpu. Every
// path's result buffer is read back and checked (n passes × k kernels) after
// the rounds: the paths computed, they were not just timed. The 1m rows are
// a GPU-bound control: there replay cannot win and the ratio must sit near 1.
//
//	go run ./examples/graphbench                 # full sweep
//	go run ./examples/graphbench -quick          # three configs, few rounds (< 1 min on lavapipe)
//	go run ./examples/graphbench -configs tiny_x150,1m_x500 -json out.json -svg out.svg
//	go run ./examples/graphbench -merge a.json,b.json -json all.json -svg all.svg  # join per-config runs
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

type config struct {
	Name    string
	Elems   uint32
	Kernels int
}

var sweep = []config{
	{"tiny_x150", 64, 150},
	{"tiny_x1000", 64, 1000},
	{"tiny_x5000", 64, 5000},
	{"64k_x1000", 64 << 10, 1000},
	{"256k_x1000", 256 << 10, 1000},
	{"1m_x500", 1 << 20, 500},
	{"1m_x2000", 1 << 20, 2000},
}

var quick = []string{"tiny_x150", "tiny_x1000", "64k_x1000"}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "graphbench:", err)
		os.Exit(1)
	}
}

type options struct {
	quick      bool
	configs    string
	jsonPath   string
	svgPath    string
	rounds     int
	budget     time.Duration
	first, max int
	merge      string
}

func run(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("graphbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.quick, "quick", false, "three configs and few rounds (under a minute on a 2-core CPU with lavapipe)")
	fs.StringVar(&o.configs, "configs", "", "comma-separated configs to run (default: all; -quick: "+strings.Join(quick, ",")+")")
	fs.StringVar(&o.jsonPath, "json", "", "write the results as JSON to this file")
	fs.StringVar(&o.svgPath, "svg", "", "write a chart (µs/kernel per config and path, log scale) to this file")
	fs.IntVar(&o.rounds, "rounds", 0, "measured rounds per config (default 21, -quick 5)")
	fs.DurationVar(&o.budget, "budget", 0, "stop adding rounds to a config after this long, once 3 are done (default 60s, -quick 8s)")
	fs.IntVar(&o.first, "first", 0, "recorder first submission chunk (0: the recorder's default)")
	fs.IntVar(&o.max, "chunk", 0, "recorder largest submission chunk (0: the recorder's default)")
	fs.StringVar(&o.merge, "merge", "", "comma-separated JSON files of earlier runs on one adapter: print and write them as one report instead of measuring")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.rounds == 0 {
		o.rounds = 21
		if o.quick {
			o.rounds = 5
		}
	}
	if o.budget == 0 {
		o.budget = 60 * time.Second
		if o.quick {
			o.budget = 8 * time.Second
		}
	}
	if o.merge != "" {
		rep, err := mergeReports(strings.Split(o.merge, ","))
		if err != nil {
			return err
		}
		return rep.write(stdout, o)
	}
	names := o.configs
	if names == "" && o.quick {
		names = strings.Join(quick, ",")
	}
	cfgs := sweep
	if names != "" {
		cfgs = nil
		for _, n := range strings.Split(names, ",") {
			i := slices.IndexFunc(sweep, func(c config) bool { return c.Name == strings.TrimSpace(n) })
			if i < 0 {
				var all []string
				for _, c := range sweep {
					all = append(all, c.Name)
				}
				return fmt.Errorf("unknown config %q (have %s)", n, strings.Join(all, ", "))
			}
			cfgs = append(cfgs, sweep[i])
		}
	}

	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()
	var ropts []recorder.Option
	if o.first > 0 || o.max > 0 {
		ropts = append(ropts, recorder.WithSubmitChunks(o.first, o.max))
	}
	rep := report{
		Adapter: dev.Info().String(),
		Go:      runtime.Version(),
		OS:      runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:    runtime.NumCPU(),
		Date:    time.Now().UTC().Format(time.RFC3339),
		Method:  "interleaved rounds eager,replay,raw,gpu; one uncounted warm-up round per path; median and min-max over rounds",
	}
	fmt.Fprintf(stdout, "adapter: %s\ngo: %s %s, %d CPUs\n\n", rep.Adapter, rep.Go, rep.OS, rep.CPUs)
	for _, c := range cfgs {
		fmt.Fprintf(stderr, "graphbench: %s (%d elems × %d kernels)...\n", c.Name, c.Elems, c.Kernels)
		row, err := measure(dev, ropts, c, o)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		rep.Rows = append(rep.Rows, row)
	}
	if err := rep.write(stdout, o); err != nil {
		return err
	}
	for _, r := range rep.Rows {
		for path, ok := range r.Verified {
			if !ok {
				return fmt.Errorf("%s: the %s path computed a wrong result: %s", r.Config, path, r.VerifyError[path])
			}
		}
	}
	return nil
}

func measure(dev *wgpu.Device, ropts []recorder.Option, c config, o options) (row, error) {
	sg, err := newSoftgraphPaths(dev, ropts, c.Elems, c.Kernels)
	if err != nil {
		return row{}, err
	}
	defer sg.close()
	// The same replay with pre-encoding off: what the replay loop costs when
	// it encodes inline, chunk by chunk, on the caller's goroutine.
	inline, err := newSoftgraphPaths(dev, append(slices.Clone(ropts), recorder.WithPreEncode(false)), c.Elems, c.Kernels)
	if err != nil {
		return row{}, err
	}
	defer inline.close()
	raw, err := newRawPaths(dev, c.Elems, c.Kernels)
	if err != nil {
		return row{}, err
	}
	defer raw.close()

	var e2e = map[string][]time.Duration{}
	var enq = map[string][]time.Duration{}
	start := time.Now()
	rounds := 0
	// Three uncounted warm-up rounds: the first passes on a GPU also pay for
	// clock ramp-up and first-use allocations.
	const warmup = 3
	for round := -warmup; round < o.rounds; round++ {
		if round >= 3 && time.Since(start) > o.budget {
			break
		}
		qe, te, err := sg.eager()
		if err != nil {
			return row{}, fmt.Errorf("eager: %w", err)
		}
		qr, tr, err := sg.replay()
		if err != nil {
			return row{}, fmt.Errorf("replay: %w", err)
		}
		qi, ti, err := inline.replay()
		if err != nil {
			return row{}, fmt.Errorf("replay_inline: %w", err)
		}
		tw, err := raw.raw()
		if err != nil {
			return row{}, fmt.Errorf("raw: %w", err)
		}
		tg, err := raw.gpu()
		if err != nil {
			return row{}, fmt.Errorf("gpu: %w", err)
		}
		if round < 0 {
			continue // warm-up
		}
		rounds++
		e2e["eager"] = append(e2e["eager"], te)
		e2e["replay"] = append(e2e["replay"], tr)
		e2e["replay_inline"] = append(e2e["replay_inline"], ti)
		e2e["raw"] = append(e2e["raw"], tw)
		e2e["gpu"] = append(e2e["gpu"], tg)
		enq["eager"] = append(enq["eager"], qe)
		enq["replay"] = append(enq["replay"], qr)
		enq["replay_inline"] = append(enq["replay_inline"], qi)
	}
	r := row{
		Config:    c.Name,
		Elems:     c.Elems,
		Kernels:   c.Kernels,
		Rounds:    rounds,
		E2E:       map[string]float64{},
		E2EMin:    map[string]float64{},
		E2EMax:    map[string]float64{},
		Enqueue:   map[string]float64{},
		CaptureMS: float64(sg.captureTime.Microseconds()) / 1000,
		Verified:  map[string]bool{},
	}
	perKernel := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 / float64(c.Kernels) }
	for path, ds := range e2e {
		med, lo, hi := stats(ds)
		r.E2E[path], r.E2EMin[path], r.E2EMax[path] = perKernel(med), perKernel(lo), perKernel(hi)
	}
	for path, ds := range enq {
		med, _, _ := stats(ds)
		r.Enqueue[path] = float64(med.Nanoseconds()) / 1000
	}
	r.Share = r.Enqueue["eager"] / (r.E2E["eager"] * float64(c.Kernels))
	r.Ratios = map[string]float64{
		"eager/replay": r.E2E["eager"] / r.E2E["replay"],
		"replay/raw":   r.E2E["replay"] / r.E2E["raw"],
		"replay/gpu":   r.E2E["replay"] / r.E2E["gpu"],
	}
	errs := map[string]error{}
	errs["eager"], errs["replay"] = sg.verify()
	_, errs["replay_inline"] = inline.verify()
	errs["raw"], errs["gpu"] = raw.verify(0), raw.verify(1)
	r.VerifyError = map[string]string{}
	for path, err := range errs {
		r.Verified[path] = err == nil
		if err != nil {
			r.VerifyError[path] = err.Error()
		}
	}
	return r, nil
}

// stats returns the median, min and max.
func stats(ds []time.Duration) (med, lo, hi time.Duration) {
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	n := len(s)
	if n == 0 {
		return 0, 0, 0
	}
	if n%2 == 1 {
		med = s[n/2]
	} else {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}
