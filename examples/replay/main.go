// Command replay loads a softgraph graph file and replays it: the graph,
// recorded once inside an application, timed or checked anywhere, without
// the application.
//
//	go run ./examples/replay graph.sgraph                  # describe, replay, time
//	go run ./examples/replay -quick graph.sgraph           # 5 rounds after 1 warm-up
//	go run ./examples/replay -rounds 200 -json out.json graph.sgraph
//	go run ./examples/replay -check expected.sgraph graph.sgraph
//
// A graph file comes from recorder's Graph.Save (with
// SaveOptions{Contents: true} it carries the contents of the graph's
// buffers and textures; -check needs them) or Graph.WriteTo (no contents:
// they load zeroed), called in the application on a graph from EndCapture
// or Capture; docs/graph-format.md describes the format. To have files at
// hand, examples/graphbench writes one pair per config it runs:
//
//	go run ./examples/graphbench -configs life64_g2_x200 -save graphs
//	go run ./examples/replay -check graphs/life64_g2_x200.expected.sgraph graphs/life64_g2_x200.sgraph
//
// It prints the adapter and Graph.String, then replays the graph in rounds
// (each round: Replay then Sync) after uncounted warm-up rounds, and reports
// the median and min–max of a round. Where the adapter has timestamp
// queries it also profiles one replay (per-dispatch GPU time) and measures
// the floor — the submit-and-wait time of one pre-encoded command buffer of
// the whole graph — and reports replay/floor.
//
// -check replays the graph once and compares every buffer it uses with the
// same buffer of the expected file (a Save with contents made after one
// replay from the same inputs), byte for byte; it exits non-zero on the
// first difference.
//
// While the rounds run, it prints a progress line to stderr every few
// seconds. On a software adapter (type CPU, such as lavapipe) it says so
// after the adapter line: the CPU is the GPU there.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
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

func main() {
	cli.Exit("replay", run(os.Args[1:], os.Stdout, os.Stderr))
}

// Result is what -json writes.
type Result struct {
	File       string  `json:"file"`
	Adapter    string  `json:"adapter"`
	Graph      string  `json:"graph"`
	Dispatches int     `json:"dispatches"`
	Rounds     int     `json:"rounds"`
	MedianUS   float64 `json:"median_us"`
	MinUS      float64 `json:"min_us"`
	MaxUS      float64 `json:"max_us"`
	GPUUS      float64 `json:"gpu_us,omitempty"`   // sum of per-dispatch GPU time
	FloorUS    float64 `json:"floor_us,omitempty"` // submit and wait of a pre-encoded command buffer
	PerFloor   float64 `json:"replay_per_floor,omitempty"`
	Checked    bool    `json:"checked,omitempty"`
}

// usage is the command line, and where its graph file comes from.
const usage = `usage: replay [-quick] [-rounds N] [-warmup N] [-json out.json] [-check expected.sgraph] graph.sgraph

graph.sgraph is a graph file written by recorder's Graph.Save (with
SaveOptions{Contents: true}: the buffers' contents too, which -check needs)
or Graph.WriteTo (no contents), in the application that captured the graph;
docs/graph-format.md describes the format. For files to try, run
	go run ./examples/graphbench -configs life64_g2_x200 -save graphs
which writes graphs/life64_g2_x200.sgraph (the inputs) and
graphs/life64_g2_x200.expected.sgraph (after one replay, for -check).

flags:
`

// progressEvery is how often a run that is still timing says so.
const progressEvery = 3 * time.Second

// run replays the file the command line args name, writing the report to
// stdout and usage and progress lines to stderr.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	rounds := fs.Int("rounds", 50, "timed rounds (each a Replay then a Sync)")
	warmup := fs.Int("warmup", 3, "uncounted warm-up rounds")
	jsonPath := fs.String("json", "", "write the result as JSON to this file")
	check := fs.String("check", "", "compare the outputs of one replay with this expected graph file")
	quick := fs.Bool("quick", false, "few rounds, a few seconds on lavapipe: -rounds 5 -warmup 1 unless given, and one round of the floor")
	if err := cli.Parse(fs, args, true); err != nil {
		return err
	}
	if *quick {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if !given["rounds"] {
			*rounds = 5
		}
		if !given["warmup"] {
			*warmup = 1
		}
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("want one graph file, got %d arguments", fs.NArg())
	}
	path := fs.Arg(0)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
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
	defer s.Close()
	g, err := s.LoadGraph(bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer g.Release()
	res := Result{File: path, Adapter: dev.Info().String(), Graph: g.String(), Dispatches: g.Len()}
	fmt.Fprintf(stdout, "adapter: %s\n", res.Adapter)
	if note := softadapter.Note(dev.Info()); note != "" {
		fmt.Fprintln(stdout, note)
	}
	fmt.Fprintln(stdout, res.Graph)

	if *check != "" {
		if err := compare(s, g, *check); err != nil {
			return err
		}
		res.Checked = true
		fmt.Fprintf(stdout, "check: one replay matches %s byte for byte\n", *check)
		return writeJSON(*jsonPath, res)
	}

	var times []time.Duration
	m := progress.New(stderr, progressEvery)
	for r := -*warmup; r < *rounds; r++ {
		if r >= 0 {
			m.Printf("replay: round %d of %d", r+1, *rounds)
		}
		start := clock.Now()
		if err := g.Replay(); err != nil {
			return err
		}
		if err := s.Sync(); err != nil {
			return err
		}
		if r >= 0 {
			times = append(times, clock.Since(start))
		}
	}
	if len(times) > 0 {
		slices.Sort(times)
		res.Rounds = len(times)
		res.MedianUS = us(times[len(times)/2])
		res.MinUS, res.MaxUS = us(times[0]), us(times[len(times)-1])
		fmt.Fprintf(stdout, "replay: median %.1f µs per round [%.1f–%.1f] over %d rounds\n", res.MedianUS, res.MinUS, res.MaxUS, res.Rounds)
	}
	if dev.Info().Timestamps {
		floorRounds := 5
		if *quick {
			floorRounds = 1
		}
		fmt.Fprintf(stderr, "replay: profiling one replay, then the floor over %d submit-and-wait rounds\n", floorRounds)
		p, err := s.ProfileReplay(g, recorder.WithFloor(floorRounds))
		if err != nil {
			return err
		}
		res.GPUUS, res.FloorUS = us(p.Total), us(p.Floor())
		if res.FloorUS > 0 && res.MedianUS > 0 {
			res.PerFloor = res.MedianUS / res.FloorUS
		}
		fmt.Fprintf(stdout, "gpu: %.1f µs of dispatches; floor (pre-encoded submit and wait): %.1f µs; replay/floor %.2f\n", res.GPUUS, res.FloorUS, res.PerFloor)
	} else {
		fmt.Fprintln(stdout, "gpu: this adapter has no timestamp queries; no floor measured")
	}
	return writeJSON(*jsonPath, res)
}

// compare replays g once and checks every buffer against the same buffer
// of the expected file.
func compare(s *recorder.Stream, g *recorder.Graph, expectedPath string) error {
	data, err := os.ReadFile(expectedPath)
	if err != nil {
		return err
	}
	want, err := s.LoadGraph(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("expected file: %w", err)
	}
	defer want.Release()
	if err := g.Replay(); err != nil {
		return err
	}
	got, exp := g.Buffers(), want.Buffers()
	if len(got) != len(exp) {
		return fmt.Errorf("the graph uses %d buffers, the expected file %d: not the same graph", len(got), len(exp))
	}
	for i := range got {
		a, err := s.Read(got[i])
		if err != nil {
			return err
		}
		b, err := s.Read(exp[i])
		if err != nil {
			return err
		}
		if !bytes.Equal(a, b) {
			at := 0
			for at < len(a) && at < len(b) && a[at] == b[at] {
				at++
			}
			return fmt.Errorf("buffer %d (%q): differs from the expected file at byte %d of %d", i, got[i].Label(), at, len(a))
		}
	}
	return nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func writeJSON(path string, r Result) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
