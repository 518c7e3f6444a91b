// Command graphbench measures what graph replay is worth, side by side with
// the eager launch path, hand-written wgpu and the GPU floor.
//
// A config is a workload, a pass of K dependent dispatches, and a graph of G
// of those dispatches (G divides K). A pass is issued, then synced, as a
// decode step is. The workloads:
//
//	add_one          dst = src + 1 on N floats, ping-pong A→B, B→A. Configs
//	                 tiny_x150 … 1m_x2000 (N × K); their graph is the whole
//	                 pass (G = K), replayed once per pass.
//	add_one_inplace  x = x + 1 on 64 floats in one buffer. Configs
//	                 tiny_g1_x1000, tiny_g2_x1000, tiny_g8_x1000: short
//	                 graphs (G = 1, 2, 8) replayed K/G times back to back to
//	                 run the same 1000 kernels per pass. In place because a
//	                 graph of one dispatch must chain with itself.
//	life             one Game of Life generation on a side×side torus of u32
//	                 cells, ping-pong: examples/workloads' kernel
//	                 (workloads.LifeWGSL; the hand-written paths turn its
//	                 blockSize override into a const, as Device.Kernel does)
//	                 on every path, its Life type (Steps) on the recorder
//	                 paths. Configs life64_g2_x200 …
//	                 life512_g200_x200: 200 generations per pass, from graphs
//	                 of 2 generations (A→B, B→A; replayed 100 times) and of
//	                 200 (replayed once).
//	mlp              an MLP tail on rows×cols f32 activations with the
//	                 shipped kernels, three dispatches per layer: h =
//	                 bias_gelu(x, bias), r = add(h, x) (the residual), x =
//	                 scale(r, 0.5). Configs mlp_4k_x999, mlp_64k_x999 and
//	                 mlp_1m_x300 (a GPU-bound control), graphs of the whole
//	                 pass. Recorder paths only (the hand-written ones run one
//	                 kernel); checked bit for bit against the same chain
//	                 launched eagerly, unfused, on a stream of its own.
//	sort             a bitonic sort of n random u32 keys with examples/workloads'
//	                 compare-exchange kernel (workloads.SortWGSL): k(k+1)/2
//	                 dispatches for n = 2^k, one per step with its own
//	                 params, ping-pong A→B, B→A. Configs sort4k_x78,
//	                 sort64k_x136 and sort1m_x210, one sort per pass and
//	                 graphs of the whole pass; checked against sort.Slice
//	                 of the same keys (workloads.SortReference). Its kernel
//	                 reads a partner key and counts swaps with an atomic:
//	                 nothing fuses, the control for the fused path.
//
// Each config runs seven paths on one device (four for mlp), with the same
// WGSL and params, each path on buffers of its own, in interleaved rounds
// (eager, replay, replay_inline, fused, raw, raw_chunked, gpu, with the
// starting path rotated by one each round), never all of one path then the
// next:
//
//	eager          the recorder's Launch, K times, then Sync
//	replay         a graph of G dispatches captured from the same launches:
//	               Replay K/G times back to back, then Sync, with the
//	               recorder's defaults (replays join the stream's open batch;
//	               a graph of ≥ 64 dispatches replayed again is pre-encoded
//	               on a background goroutine, on hardware adapters)
//	replay_inline  the same with recorder.WithPreEncode(false): every dispatch
//	               is encoded on the caller's goroutine, in submission chunks
//	fused          the replay path on a stream with recorder.WithFusion(true):
//	               the graph's chains of pointwise dispatches are fused into
//	               generated kernels at EndCapture (JSON
//	               fused_graph_dispatches: how many it keeps; fusion: the
//	               graph's own account, from Graph.String, of what fused and
//	               why the first pair that did not was not; a note under the
//	               table gives it with the fused chains counted by kernel)
//	raw            hand-written cogentcore/webgpu: explicit layout, pipeline
//	               and bind groups made once, the K dispatches in one compute
//	               pass, one submit, wait
//	raw_chunked    the same loop, with a compute pass and a submit every C
//	               dispatches, then wait. C is the fastest of 16, 32, 64, 128,
//	               256 (those below K) and K (one submit), swept per config in
//	               the warm-up (3 interleaved runs each; 1 with -quick): a
//	               careful user's tuned loop
//	gpu            the floor: the K dispatches encoded into one command
//	               buffer before the clock starts, then submit and wait
//
// After the chunk sweep, three rounds of every path are not counted. The
// default table (120 columns) gives each path's median and the ratios,
// with a legend; -wide and the JSON give, per path, the median over rounds
// of the end-to-end time per kernel and its min–max spread; the enqueue
// time per pass of eager, replay
// and replay_inline (until the last call returns, before the Sync) and per
// Replay call (pass enqueue / (K/G)); share = eager enqueue / eager e2e; the
// capture time; and three ratios, each of two medians of the same run:
//
//	eager/replay     eager / replay: what replay saves over launching (> 1:
//	                 replay is faster)
//	replay/raw_best  replay / the lower of raw's and raw_chunked's medians
//	                 (JSON raw_best_path and raw_best_chunk name the winner
//	                 and its dispatches per submit; -wide's "replay/raw"
//	                 column is this ratio, "raw best" the winner, the
//	                 default table's r/h and hand, with @C): what
//	                 replay costs over the best hand-written loop (< 1:
//	                 replay is faster)
//	replay/floor     replay / gpu: how far replay is from the floor
//
// and two for fusion: fused/replay, and fused/floor_unfused, the fused
// replay against floor_unfused, the GPU's own time for the unfused command
// buffer (the gpu path; for mlp, which has none, the library's floor of the
// unfused replay graph, ProfileReplay WithFloor). Below 1, fusion beat what
// any launching of the unfused dispatches can reach.
//
// After the rounds, the library's own view of the replay graph is taken
// with ProfileReplay(graph, WithFloor(3)) on the replay path (per-kernel GPU
// time, submit-and-wait and Floor of one graph; JSON lib_profile, not in the
// ratios). Then every path is verified twice against what its count of
// dispatches computes (every element equals the number of add-ones run; the
// Go Game of Life after as many generations; the keys sorted by
// sort.Slice): its result buffer after all
// the rounds, and one more, untimed pass from its initial contents written
// back (a Life soup settles into blinkers, hiding a pass that ran an even
// number of generations too few; a fresh one does not). The paths computed,
// they were not just timed. The 1m rows are a GPU-bound control: there
// replay cannot win and eager/replay must sit near 1. On a software adapter
// (type CPU, such as lavapipe) the report says so under the adapter line:
// the CPU is the GPU there, and its kernels compete with the launch path
// for the same cores, so replay cannot win as it does on a hardware GPU.
//
//	go run ./examples/graphbench                 # full sweep
//	go run ./examples/graphbench -quick          # 3 chains, 2 short graphs, 2 Life, mlp, sort; few rounds (under a minute on lavapipe)
//	go run ./examples/graphbench -quick -wide    # the full table: spreads, enqueue and capture times (about 400 columns)
//	go run ./examples/graphbench -configs tiny_x150,1m_x500 -json out.json -svg out.svg
//	go run ./examples/graphbench -merge a.json,b.json -json all.json -svg all.svg  # join per-config runs (older files too)
//	go run ./examples/graphbench -quick -preencode on  # force the replay path's pre-encoding (off by default on CPU adapters)
//	go run ./examples/graphbench -configs life64_g2_x200 -save graphs  # also write each config's graph file
//	go run ./examples/graphbench -configs tiny_g1_x1000 -paths replay -cpuprofile replay.pprof  # one path alone, profiled
//	go run ./examples/replay -check graphs/life64_g2_x200.expected.sgraph graphs/life64_g2_x200.sgraph
//
// -devices all|N runs the eager and replay paths on several devices at once
// instead of the six paths on one (see devices.go for the method): the graph
// is captured on device 0 and loaded from its graph file on the others, each
// device runs from a goroutine of its own, and the report gives per config
// and path one device's throughput, the aggregate and per-device throughput
// of all devices at once, and their scaling (aggregate / one device), in the
// same run; JSON "devices" and "scaling". all opens one device per adapter
// (wgpu.OpenAll); N opens N (wgpu.OpenN), several on one adapter where the
// machine has fewer, as a test stands in for a second GPU with a second
// lavapipe device:
//
//	go run ./examples/graphbench -devices all -configs tiny_x1000,1m_x2000,life512_g2_x200 -json scaling.json
//	go run ./examples/graphbench -devices 2 -quick
//
// -save DIR writes each config's replay graph before the rounds: CONFIG.sgraph
// with the workload's initial contents and CONFIG.expected.sgraph with the
// contents after one replay of it, so the graph can be timed or checked on
// any machine with the replay tool, without this program.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/softgraph/softgraph/examples/internal/cli"
	"github.com/softgraph/softgraph/examples/internal/clock"
	"github.com/softgraph/softgraph/examples/internal/softadapter"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// config is one row of the report.
type config struct {
	Name     string
	Workload string // see newWorkload
	Elems    uint32 // floats per buffer, or cells (Side²) for life
	Side     uint32 // life's grid side
	Cols     uint32 // mlp's columns (the bias length); rows = Elems / Cols
	Kernels  int    // dispatches per pass
	GraphLen int    // dispatches per graph; the pass replays it Kernels/GraphLen times
}

func chain(name string, elems uint32, kernels int) config {
	return config{Name: name, Workload: "add_one", Elems: elems, Kernels: kernels, GraphLen: kernels}
}

func short(name string, graphLen int) config {
	return config{Name: name, Workload: "add_one_inplace", Elems: 64, Kernels: 1000, GraphLen: graphLen}
}

func mlp(name string, elems, cols uint32, kernels int) config {
	return config{Name: name, Workload: "mlp", Elems: elems, Cols: cols, Kernels: kernels, GraphLen: kernels}
}

// sortCfg is one bitonic sort of n keys per pass, captured whole.
func sortCfg(name string, n uint32) config {
	k := sortSteps(n)
	return config{Name: name, Workload: "sort", Elems: n, Kernels: k, GraphLen: k}
}

func life(name string, side uint32, graphLen int) config {
	return config{Name: name, Workload: "life", Elems: side * side, Side: side, Kernels: 200, GraphLen: graphLen}
}

var sweep = []config{
	chain("tiny_x150", 64, 150),
	chain("tiny_x1000", 64, 1000),
	chain("tiny_x5000", 64, 5000),
	chain("64k_x1000", 64<<10, 1000),
	chain("256k_x1000", 256<<10, 1000),
	chain("1m_x500", 1<<20, 500),
	chain("1m_x2000", 1<<20, 2000),
	short("tiny_g1_x1000", 1),
	short("tiny_g2_x1000", 2),
	short("tiny_g8_x1000", 8),
	life("life64_g2_x200", 64, 2),
	life("life64_g200_x200", 64, 200),
	life("life512_g2_x200", 512, 2),
	life("life512_g200_x200", 512, 200),
	mlp("mlp_4k_x999", 4096, 256, 999),
	mlp("mlp_64k_x999", 64<<10, 1024, 999),
	mlp("mlp_1m_x300", 1<<20, 4096, 300),
	sortCfg("sort4k_x78", 4<<10),
	sortCfg("sort64k_x136", 64<<10),
	sortCfg("sort1m_x210", 1<<20),
}

var quick = []string{"tiny_x150", "tiny_x1000", "64k_x1000", "tiny_g1_x1000", "tiny_g8_x1000", "life64_g2_x200", "life64_g200_x200", "mlp_4k_x999", "sort4k_x78"}

// validate checks what the paths rely on: whole replays per pass, and
// ping-pong graphs and passes that end back on A.
func (c config) validate() error {
	if c.GraphLen <= 0 || c.Kernels%c.GraphLen != 0 {
		return fmt.Errorf("%s: a graph of %d dispatches does not divide a pass of %d", c.Name, c.GraphLen, c.Kernels)
	}
	if c.Workload == "sort" {
		// Dispatch i binds step i % steps: graphs and passes of whole
		// sorts, and an even number of steps, so each step's ping-pong
		// parity is the same in every sort.
		steps := sortSteps(c.Elems)
		if steps == 0 || steps%2 != 0 || c.GraphLen%steps != 0 || c.Elems < sortGroup {
			return fmt.Errorf("%s: a sort needs a power of two of at least %d keys whose %d steps are even, and graphs of whole sorts (not %d dispatches)", c.Name, sortGroup, steps, c.GraphLen)
		}
		return nil
	}
	if c.Workload == "mlp" {
		if c.GraphLen%3 != 0 || c.Cols == 0 || c.Elems%c.Cols != 0 {
			return fmt.Errorf("%s: an mlp graph needs whole layers (a multiple of 3 dispatches, not %d) and rows of %d columns", c.Name, c.GraphLen, c.Cols)
		}
		return nil
	}
	if c.Workload != "add_one_inplace" && c.GraphLen%2 != 0 {
		return fmt.Errorf("%s: a ping-pong graph needs an even length, not %d", c.Name, c.GraphLen)
	}
	return nil
}

func main() {
	cli.Exit("graphbench", run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	quick      bool
	configs    string
	jsonPath   string
	svgPath    string
	rounds     int
	budget     time.Duration
	first, max int
	preEncode  string
	background string
	merge      string
	saveDir    string
	devices    string
	wide       bool
	cpuProfile string
	tracePath  string
	paths      []string // -paths: the paths to time, nil for all
}

func run(args []string, stdout, stderr io.Writer) (err error) {
	var o options
	fs := flag.NewFlagSet("graphbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.quick, "quick", false, "a few configs and few rounds (about a minute on a 2-core CPU with lavapipe)")
	fs.StringVar(&o.configs, "configs", "", "comma-separated configs to run (default: all; -quick: "+strings.Join(quick, ",")+")")
	fs.StringVar(&o.jsonPath, "json", "", "write the results as JSON to this file")
	fs.StringVar(&o.svgPath, "svg", "", "write a chart (µs/kernel per config and path, log scale) to this file")
	fs.IntVar(&o.rounds, "rounds", 0, "measured rounds per config (default 21, -quick 5)")
	fs.DurationVar(&o.budget, "budget", 0, "stop adding rounds to a config after this long, once 3 are done (default 60s, -quick 4s)")
	fs.IntVar(&o.first, "first", 0, "recorder first submission chunk (0: the recorder's default)")
	fs.IntVar(&o.max, "chunk", 0, "recorder largest submission chunk (0: the recorder's default)")
	fs.StringVar(&o.preEncode, "preencode", "auto", "the replay path's pre-encoding: auto (the recorder's default for the adapter), on or off")
	fs.StringVar(&o.background, "background", "auto", "the recorder paths' submission: auto (the recorder's default, a background submitter), on or off (recorder.WithBackgroundSubmit)")
	fs.StringVar(&o.merge, "merge", "", "comma-separated JSON files of earlier runs on one adapter: print and write them as one report instead of measuring")
	fs.StringVar(&o.saveDir, "save", "", "write each config's replay graph to DIR/CONFIG.sgraph (with its initial contents) and DIR/CONFIG.expected.sgraph (after one replay), for go run ./examples/replay -check")
	fs.StringVar(&o.devices, "devices", "", "run eager and replay on N devices at once (all: one per adapter; a count: that many, sharing adapters where there are fewer) and report per-device and aggregate throughput and the scaling against one device")
	fs.BoolVar(&o.wide, "wide", false, "print the full table: every path's min–max spread, the enqueue and capture times, every ratio (about 400 columns; the default fits 120)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the configs' runs to this file; samples of the goroutine running a pass are labelled config and path (go tool pprof -tagfocus path=replay)")
	fs.StringVar(&o.tracePath, "trace", "", "write an execution trace of the run to this file (go tool trace); each pass is a region named config/path")
	pathList := fs.String("paths", "", "comma-separated paths to time (default: all of "+strings.Join(paths, ",")+"): one path alone, for profiling it with -cpuprofile or an outside profiler; the others are neither warmed up nor timed (the graphs are still captured, and the closing ProfileReplay and the checks still run)")
	if err := cli.Parse(fs, args, false); err != nil {
		return err
	}
	if *pathList != "" {
		for _, p := range strings.Split(*pathList, ",") {
			p = strings.TrimSpace(p)
			if !slices.Contains(paths, p) {
				return fmt.Errorf("-paths: unknown path %q (have %s)", p, strings.Join(paths, ", "))
			}
			o.paths = append(o.paths, p)
		}
	}
	if o.devices != "" {
		if _, _, err := parseDevices(o.devices); err != nil {
			return err
		}
		if o.svgPath != "" || o.saveDir != "" || o.merge != "" || o.paths != nil {
			return fmt.Errorf("-devices measures scaling only: -svg, -save, -merge and -paths are for the one-device run")
		}
	}
	if o.saveDir != "" {
		if err := os.MkdirAll(o.saveDir, 0o755); err != nil {
			return err
		}
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
			o.budget = 4 * time.Second
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
	for _, c := range cfgs {
		if err := c.validate(); err != nil {
			return err
		}
	}
	var ropts []recorder.Option
	if o.first > 0 || o.max > 0 {
		ropts = append(ropts, recorder.WithSubmitChunks(o.first, o.max))
	}
	switch o.preEncode {
	case "auto":
	case "on", "off":
		ropts = append(ropts, recorder.WithPreEncode(o.preEncode == "on"))
	default:
		return fmt.Errorf("-preencode %q: want auto, on or off", o.preEncode)
	}
	switch o.background {
	case "auto":
	case "on", "off":
		ropts = append(ropts, recorder.WithBackgroundSubmit(o.background == "on"))
	default:
		return fmt.Errorf("-background %q: want auto, on or off", o.background)
	}

	if o.devices != "" {
		return runDevices(cfgs, ropts, o, stdout, stderr)
	}
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()
	rep := report{
		Adapter: dev.Info().String(),
		Go:      runtime.Version(),
		OS:      runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:    runtime.NumCPU(),
		Date:    time.Now().UTC().Format(time.RFC3339),
		Method: "interleaved rounds eager,replay,replay_inline,fused,raw,raw_chunked,gpu (start rotated each round; mlp: the first four); raw_chunked's chunk swept first; " +
			"three uncounted warm-up rounds; median and min-max over rounds; ratios of medians of the same run; replay pre-encode " + o.preEncode,
	}
	if o.paths != nil {
		rep.Method += "; only the paths " + strings.Join(o.paths, ",")
	}
	fmt.Fprintf(stdout, "adapter: %s\n", rep.Adapter)
	if note := softadapter.Note(dev.Info()); note != "" {
		fmt.Fprintln(stdout, note)
	}
	fmt.Fprintf(stdout, "go: %s %s, %d CPUs\n\n", rep.Go, rep.OS, rep.CPUs)
	stop, err := startDiagnostics(o)
	if err != nil {
		return err
	}
	defer func() {
		if serr := stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	for _, c := range cfgs {
		fmt.Fprintf(stderr, "graphbench: %s (%s, %d elems × %d dispatches, graphs of %d)...\n", c.Name, c.Workload, c.Elems, c.Kernels, c.GraphLen)
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
		for _, path := range paths {
			if _, ran := r.E2E[path]; ran && !r.Verified[path] {
				return fmt.Errorf("%s: the %s path computed a wrong result: %s", r.Config, path, r.VerifyError[path])
			}
		}
	}
	return nil
}

// startDiagnostics starts what -cpuprofile and -trace ask for; stop ends
// them and closes their files, reporting the first error.
func startDiagnostics(o options) (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var first error
		for i := len(stops) - 1; i >= 0; i-- {
			if err := stops[i](); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	start := func(flag, path string, begin func(io.Writer) error, end func()) error {
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("-%s: %w", flag, err)
		}
		if err := begin(f); err != nil {
			f.Close()
			return fmt.Errorf("-%s: %w", flag, err)
		}
		stops = append(stops, func() error {
			end()
			if err := f.Close(); err != nil {
				return fmt.Errorf("-%s: %w", flag, err)
			}
			return nil
		})
		return nil
	}
	if err := start("cpuprofile", o.cpuProfile, pprof.StartCPUProfile, pprof.StopCPUProfile); err != nil {
		return nil, err
	}
	if err := start("trace", o.tracePath, trace.Start, trace.Stop); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// timedPath is one path: run does one pass (enqueue is negative where the
// path has no separate enqueue phase: the hand-written ones), read reads
// its result buffer, reset puts its initial contents back.
type timedPath struct {
	name  string
	run   func() (enqueue, e2e time.Duration, err error)
	read  func() pathResult
	reset func() error
}

func recorderPath(name string, p *softgraphPaths, sp *sgPath, run func() (time.Duration, time.Duration, error)) timedPath {
	return timedPath{name, run, func() pathResult { return p.read(name, sp) }, func() error { return p.reset(sp) }}
}

func handWritten(name string, r *rawPaths, path int, f func() (time.Duration, error)) timedPath {
	return timedPath{
		name: name,
		run: func() (time.Duration, time.Duration, error) {
			d, err := f()
			return -1, d, err
		},
		read:  func() pathResult { return r.read(name, path) },
		reset: func() error { return r.reset(path) },
	}
}

func measure(dev *wgpu.Device, ropts []recorder.Option, c config, o options) (row, error) {
	w, err := newWorkload(dev, c)
	if err != nil {
		return row{}, err
	}
	if w.close != nil {
		defer w.close()
	}
	sg, err := newSoftgraphPaths(dev, ropts, w, c)
	if err != nil {
		return row{}, err
	}
	defer sg.close()
	if o.saveDir != "" {
		if err := sg.save(o.saveDir, c.Name); err != nil {
			return row{}, fmt.Errorf("-save: %w", err)
		}
	}
	// The same replay with pre-encoding off: what the replay loop costs when
	// it encodes inline, chunk by chunk, on the caller's goroutine.
	inline, err := newSoftgraphPaths(dev, append(slices.Clone(ropts), recorder.WithPreEncode(false)), w, c)
	if err != nil {
		return row{}, err
	}
	defer inline.close()
	// The same replay of a graph sealed with recorder.WithFusion(true).
	fused, err := newSoftgraphPaths(dev, append(slices.Clone(ropts), recorder.WithFusion(true)), w, c)
	if err != nil {
		return row{}, err
	}
	defer fused.close()
	runs := []timedPath{
		recorderPath("eager", sg, &sg.eagerPath, sg.eager),
		recorderPath("replay", sg, &sg.replayPath, sg.replay),
		recorderPath("replay_inline", inline, &inline.replayPath, inline.replay),
		recorderPath("fused", fused, &fused.replayPath, fused.replay),
	}
	var raw *rawPaths
	var chunkSweep map[int]float64
	// With -paths, the hand-written loops are built only if one of them is
	// timed, and raw_chunked's chunk is swept only if it is: a path timed
	// alone runs alone from the warm-up on.
	timed := func(p string) bool { return o.paths == nil || slices.Contains(o.paths, p) }
	if !w.recorderOnly && (timed("raw") || timed("raw_chunked") || timed("gpu")) {
		if raw, err = newRawPaths(dev, w, c.Kernels); err != nil {
			return row{}, err
		}
		defer raw.close()
		reps := 3
		if o.quick {
			reps = 1
		}
		if timed("raw_chunked") {
			if chunkSweep, err = raw.sweepChunks(reps); err != nil {
				return row{}, fmt.Errorf("raw_chunked sweep: %w", err)
			}
		}
		runs = append(runs,
			handWritten("raw", raw, pathRaw, raw.raw),
			handWritten("raw_chunked", raw, pathChunked, raw.rawChunked),
			handWritten("gpu", raw, pathGPU, raw.gpu))
	}
	if o.paths != nil {
		runs = slices.DeleteFunc(runs, func(p timedPath) bool { return !timed(p.name) })
		if len(runs) == 0 {
			return row{}, fmt.Errorf("-paths %s: none of them runs on this config", strings.Join(o.paths, ","))
		}
	}
	e2e := map[string][]time.Duration{}
	enq := map[string][]time.Duration{}
	start := clock.Now()
	rounds := 0
	// Three uncounted warm-up rounds: the first passes on a GPU also pay for
	// clock ramp-up and first-use allocations.
	const warmup = 3
	for round := -warmup; round < o.rounds; round++ {
		if round >= 3 && clock.Since(start) > o.budget {
			break
		}
		for j := range runs {
			p := runs[(j+round+warmup)%len(runs)]
			var q, d time.Duration
			var err error
			if o.cpuProfile == "" && o.tracePath == "" {
				q, d, err = p.run()
			} else {
				pprof.Do(context.Background(), pprof.Labels("config", c.Name, "path", p.name), func(ctx context.Context) {
					trace.WithRegion(ctx, c.Name+"/"+p.name, func() { q, d, err = p.run() })
				})
			}
			if err != nil {
				return row{}, fmt.Errorf("%s: %w", p.name, err)
			}
			if round < 0 {
				continue // warm-up
			}
			e2e[p.name] = append(e2e[p.name], d)
			if q >= 0 {
				enq[p.name] = append(enq[p.name], q)
			}
		}
		if round >= 0 {
			rounds++
		}
	}
	r := row{
		Config:           c.Name,
		Workload:         c.Workload,
		Elems:            c.Elems,
		Kernels:          c.Kernels,
		GraphLen:         c.GraphLen,
		Replays:          c.Kernels / c.GraphLen,
		Rounds:           rounds,
		E2E:              map[string]float64{},
		E2EMin:           map[string]float64{},
		E2EMax:           map[string]float64{},
		Enqueue:          map[string]float64{},
		EnqueuePerReplay: map[string]float64{},
		CaptureMS:        float64(sg.captureTime.Microseconds()) / 1000,
		ChunkSweep:       chunkSweep,
		Verified:         map[string]bool{},
		FusedDispatches:  fused.graph.Stats().Dispatches,
		Fusion:           fusionSummary(fused.graph),
		FusedCaptureMS:   float64(fused.captureTime.Microseconds()) / 1000,
	}
	if raw != nil {
		r.RawChunk = raw.chunk
	}
	perKernel := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 / float64(c.Kernels) }
	for path, ds := range e2e {
		med, lo, hi := stats(ds)
		r.E2E[path], r.E2EMin[path], r.E2EMax[path] = perKernel(med), perKernel(lo), perKernel(hi)
	}
	for path, ds := range enq {
		med, _, _ := stats(ds)
		r.Enqueue[path] = float64(med.Nanoseconds()) / 1000
		if path != "eager" {
			r.EnqueuePerReplay[path] = r.Enqueue[path] / float64(r.Replays)
		}
	}
	if r.E2E["eager"] > 0 {
		r.Share = r.Enqueue["eager"] / (r.E2E["eager"] * float64(c.Kernels))
	}
	if raw != nil {
		// The better of the two hand-written loops that ran (-paths may
		// leave either out).
		for _, p := range []string{"raw", "raw_chunked"} {
			if v, ok := r.E2E[p]; ok && (r.RawBestPath == "" || v < r.E2E[r.RawBestPath]) {
				r.RawBestPath = p
			}
		}
		r.RawBestChunk = c.Kernels
		if r.RawBestPath == "raw_chunked" {
			r.RawBestChunk = raw.chunk
		}
	}
	if len(sg.rampLag) > 0 {
		med, _, hi := stats(sg.rampLag)
		r.RampLag, r.RampLagMax = float64(med.Nanoseconds())/1000, float64(hi.Nanoseconds())/1000
	}
	// Ratios of paths that ran (-paths may leave some out).
	r.Ratios = map[string]float64{}
	ratio := func(key, num, den string) {
		if a, b := r.E2E[num], r.E2E[den]; a > 0 && b > 0 {
			r.Ratios[key] = a / b
		}
	}
	ratio("eager/replay", "eager", "replay")
	ratio("fused/replay", "fused", "replay")
	if raw != nil {
		if r.RawBestPath != "" {
			ratio("replay/raw_best", "replay", r.RawBestPath)
		}
		ratio("replay/floor", "replay", "gpu")
		r.FloorUnfused = r.E2E["gpu"]
	}

	lp := &libProfile{}
	if prof, err := sg.profile(); err != nil {
		lp.Error = err.Error()
	} else {
		lp.Method = prof.Method.String()
		lp.GPU = perGraphKernel(prof.Total, c.GraphLen)
		lp.SubmitWait = perGraphKernel(prof.SubmitWait, c.GraphLen)
		lp.Floor = perGraphKernel(prof.Floor(), c.GraphLen)
	}
	r.LibProfile = lp
	// floor_unfused: the GPU's own time for the unfused command buffer,
	// per kernel: the gpu path where the hand-written paths run, the
	// library's floor of the unfused replay graph for mlp (which has none),
	// and nothing where -paths left the gpu path out.
	if w.recorderOnly && lp.Error == "" {
		r.FloorUnfused = lp.Floor
	}
	if r.FloorUnfused > 0 && r.E2E["fused"] > 0 {
		r.Ratios["fused/floor_unfused"] = r.E2E["fused"] / r.FloorUnfused
	}

	r.VerifyError = map[string]string{}
	for p, err := range verify(w, runs) {
		r.Verified[p] = err == nil
		if err != nil {
			r.VerifyError[p] = err.Error()
		}
	}
	return r, nil
}

// verify checks every path twice. The whole run: its result buffer after
// the rounds holds what all the dispatches it ran compute from the initial
// contents. One fresh pass: its initial contents written back, one more
// pass run and checked. The second matters for Life, whose soup settles
// into still lifes and blinkers within a few thousand generations, after
// which a pass that ran two generations too few would pass the first check
// (the 64×64 soup cycles with period 2 from generation 1741, the 512×512 one
// from about 4000); from a fresh soup, a pass of 200 generations is not.
func verify(w *workload, runs []timedPath) map[string]error {
	errs := map[string]error{}
	var history []pathResult
	for _, p := range runs {
		res := p.read()
		res.label = "after the rounds"
		history = append(history, res)
	}
	var fresh []pathResult
	for _, p := range runs {
		err := p.reset()
		if err == nil {
			_, _, err = p.run()
		}
		if err != nil {
			fresh = append(fresh, pathResult{path: p.name, label: "fresh pass", err: err})
			continue
		}
		res := p.read()
		res.label = "fresh pass"
		fresh = append(fresh, res)
	}
	checkFresh := w.checkFresh
	if checkFresh == nil {
		checkFresh = w.check
	}
	// The whole runs in ascending dispatch counts: the Life reference only
	// moves forward.
	sort.SliceStable(history, func(i, j int) bool { return history[i].steps < history[j].steps })
	for _, res := range append(fresh, history...) {
		err := res.err
		if err == nil && res.label == "fresh pass" {
			err = checkFresh(res.words, res.steps)
		} else if err == nil {
			err = w.check(res.words, res.steps)
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", res.label, err)
		}
		if errs[res.path] == nil { // absent, or no error yet: the first error stays
			errs[res.path] = err
		}
	}
	return errs
}

// fusionSummary is the part of g.String() on fusion: the fused chains,
// and how many adjacent dispatches were not fused and why the first pair
// was not ("fused: 0 chains of 0 dispatches; not fused: 77 adjacent pairs
// (first: ...)"); "" for a graph sealed without WithFusion.
func fusionSummary(g *recorder.Graph) string {
	s := g.String()
	i := strings.Index(s, "; fused: ")
	if i < 0 {
		return ""
	}
	s = s[i+2:]
	if j := strings.LastIndex(s, "; pinned "); j >= 0 {
		s = s[:j]
	}
	return s
}

func perGraphKernel(d time.Duration, graphLen int) float64 {
	return float64(d.Nanoseconds()) / 1000 / float64(graphLen)
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
