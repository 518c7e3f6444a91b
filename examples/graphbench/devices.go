package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/softgraph/softgraph/examples/internal/clock"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// The -devices mode: the same workloads on N devices at once, from one
// process, one goroutine per device.
//
// Method, per config. Device 0 builds the paths as the one-device run does
// and captures the replay graph; the graph is saved as a graph file with
// its initial contents (Graph.Save) and every other device loads it from
// that file (Stream.LoadGraph: kernels compiled there, buffers made and
// filled there), as a job on another machine would. Each device's eager
// path launches the workload natively on that device. Then, in interleaved
// rounds (the order rotated each round; three uncounted warm-up rounds),
// four measurements of one pass (K dispatches, then Sync, as in the
// one-device run):
//
//	eager ×1, replay ×1   device 0 alone
//	eager ×N, replay ×N   every device at once: each device's goroutine
//	                      waits at a start line, all are released together,
//	                      each times its own pass; the wall time runs from
//	                      the release to the last device's Sync
//
// Throughput is dispatches per second: one device K / its pass; aggregate
// N·K / the wall time; per device K / that device's own pass. Scaling is
// aggregate / one device, both medians of the same run: N is perfect, 1 is
// no gain. Every device's eager and replay results are verified as in the
// one-device run (whole run and one fresh pass).

// parseDevices reads -devices: "all", or a count of at least 1.
func parseDevices(s string) (n int, all bool, err error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") {
		return 0, true, nil
	}
	n, err = strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, false, fmt.Errorf("-devices %q: want all or a count of at least 1", s)
	}
	return n, false, nil
}

// openDevices opens what -devices asks for: every adapter (wgpu.OpenAll),
// or n devices (wgpu.OpenN: on a machine with fewer adapters, several
// devices share one, which measures nothing about scaling but exercises the
// method).
func openDevices(spec string) ([]*wgpu.Device, error) {
	n, all, err := parseDevices(spec)
	if err != nil {
		return nil, err
	}
	if all {
		return wgpu.OpenAll(wgpu.Options{})
	}
	return wgpu.OpenN(wgpu.Options{}, n)
}

// scalingPaths are the two paths measured across devices.
var scalingPaths = []string{"eager", "replay"}

// scalingRow is one config of a -devices run.
type scalingRow struct {
	Config   string `json:"config"`
	Workload string `json:"workload"`
	Elems    uint32 `json:"elems"`
	Kernels  int    `json:"kernels"`          // dispatches per pass
	GraphLen int    `json:"graph_dispatches"` // dispatches per graph
	Devices  int    `json:"devices"`
	Rounds   int    `json:"rounds"`
	// FileBytes is the size of the graph file device 0 wrote and the others
	// loaded (with the initial contents).
	FileBytes int                    `json:"graph_file_bytes"`
	Paths     map[string]scalingPath `json:"paths"` // eager, replay
}

// scalingPath is one path's figures in a -devices run: pass times in µs
// (median over rounds, with min and max), throughputs in dispatches per
// second from the medians.
type scalingPath struct {
	OneUS        float64   `json:"one_device_us_per_pass"` // device 0 alone
	OneMinUS     float64   `json:"one_device_us_per_pass_min"`
	OneMaxUS     float64   `json:"one_device_us_per_pass_max"`
	WallUS       float64   `json:"all_devices_wall_us_per_pass"` // release to the last Sync, all devices at once
	WallMinUS    float64   `json:"all_devices_wall_us_per_pass_min"`
	WallMaxUS    float64   `json:"all_devices_wall_us_per_pass_max"`
	PerDeviceUS  []float64 `json:"per_device_us_per_pass"` // each device's own pass, all at once
	OneKps       float64   `json:"one_device_kernels_per_s"`
	AggregateKps float64   `json:"aggregate_kernels_per_s"`
	PerDeviceKps []float64 `json:"per_device_kernels_per_s"`
	Scaling      float64   `json:"scaling"`                // aggregate / one device
	Verified     []bool    `json:"verified"`               // per device
	VerifyError  []string  `json:"verify_error,omitempty"` // per device, "" where verified
}

// measureDevices runs config c on every device of devs at once; see the
// method above.
func measureDevices(devs []*wgpu.Device, ropts []recorder.Option, c config, o options) (scalingRow, error) {
	w, err := newWorkload(devs[0], c)
	if err != nil {
		return scalingRow{}, err
	}
	sgs := make([]*softgraphPaths, 0, len(devs))
	defer func() {
		for _, sg := range sgs {
			sg.close()
		}
	}()
	first, err := newSoftgraphPaths(devs[0], ropts, w, c)
	if err != nil {
		return scalingRow{}, fmt.Errorf("device 0: %w", err)
	}
	sgs = append(sgs, first)
	// The file carries the initial contents: every device's replay path
	// starts from them, device 0's too.
	if err := first.reset(&first.replayPath); err != nil {
		return scalingRow{}, err
	}
	var file bytes.Buffer
	if _, err := first.graph.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		return scalingRow{}, fmt.Errorf("device 0: saving the graph: %w", err)
	}
	state := slices.Index(first.graph.Buffers(), first.replayPath.t.state())
	if state < 0 {
		return scalingRow{}, fmt.Errorf("the replay path's state buffer is not among its graph's buffers")
	}
	for i, d := range devs[1:] {
		sg, err := loadSoftgraphPaths(d, ropts, w, c, file.Bytes(), state)
		if err != nil {
			return scalingRow{}, fmt.Errorf("device %d: %w", i+1, err)
		}
		sgs = append(sgs, sg)
	}

	pass := func(sg *softgraphPaths, path string) (time.Duration, error) {
		var d time.Duration
		var err error
		if path == "eager" {
			_, d, err = sg.eager()
		} else {
			_, d, err = sg.replay()
		}
		return d, err
	}
	// all runs one pass of path on every device at once and returns the
	// wall time and each device's own.
	all := func(path string) (time.Duration, []time.Duration, error) {
		own := make([]time.Duration, len(sgs))
		ends := make([]time.Duration, len(sgs))
		errs := make([]error, len(sgs))
		start := make(chan struct{})
		var release clock.Stamp // written before start is closed, read after
		var ready, done sync.WaitGroup
		for i, sg := range sgs {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				ready.Done()
				<-start
				t0 := clock.Now()
				own[i], errs[i] = pass(sg, path)
				// From the release to the end of the timed pass, not to
				// now: replay waits for its ramp worker after the timed
				// pass (awaitRamps), outside the timing.
				ends[i] = t0.Sub(release) + own[i]
			}()
		}
		ready.Wait()
		release = clock.Now()
		close(start)
		done.Wait()
		for i, err := range errs {
			if err != nil {
				return 0, nil, fmt.Errorf("device %d: %w", i, err)
			}
		}
		return slices.Max(ends), own, nil
	}

	type key struct {
		path string
		all  bool
	}
	order := []key{{"replay", false}, {"replay", true}, {"eager", false}, {"eager", true}}
	one := map[string][]time.Duration{}
	wall := map[string][]time.Duration{}
	own := map[string][][]time.Duration{} // path → device → passes
	for _, p := range scalingPaths {
		own[p] = make([][]time.Duration, len(sgs))
	}
	const warmup = 3
	begin := clock.Now()
	rounds := 0
	for round := -warmup; round < o.rounds; round++ {
		if round >= 3 && clock.Since(begin) > o.budget {
			break
		}
		for j := range order {
			k := order[(j+round+warmup)%len(order)]
			if !k.all {
				d, err := pass(sgs[0], k.path)
				if err != nil {
					return scalingRow{}, fmt.Errorf("%s on device 0: %w", k.path, err)
				}
				if round >= 0 {
					one[k.path] = append(one[k.path], d)
				}
				continue
			}
			wl, ds, err := all(k.path)
			if err != nil {
				return scalingRow{}, fmt.Errorf("%s on %d devices: %w", k.path, len(sgs), err)
			}
			if round >= 0 {
				wall[k.path] = append(wall[k.path], wl)
				for i, d := range ds {
					own[k.path][i] = append(own[k.path][i], d)
				}
			}
		}
		if round >= 0 {
			rounds++
		}
	}

	r := scalingRow{
		Config: c.Name, Workload: c.Workload, Elems: c.Elems, Kernels: c.Kernels, GraphLen: c.GraphLen,
		Devices: len(sgs), Rounds: rounds, FileBytes: file.Len(), Paths: map[string]scalingPath{},
	}
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	kps := func(kernels int, d time.Duration) float64 {
		if d <= 0 {
			return 0
		}
		return float64(kernels) / d.Seconds()
	}
	for _, p := range scalingPaths {
		var sp scalingPath
		med, lo, hi := stats(one[p])
		sp.OneUS, sp.OneMinUS, sp.OneMaxUS, sp.OneKps = us(med), us(lo), us(hi), kps(c.Kernels, med)
		wmed, wlo, whi := stats(wall[p])
		sp.WallUS, sp.WallMinUS, sp.WallMaxUS = us(wmed), us(wlo), us(whi)
		sp.AggregateKps = kps(c.Kernels*len(sgs), wmed)
		for i := range sgs {
			m, _, _ := stats(own[p][i])
			sp.PerDeviceUS = append(sp.PerDeviceUS, us(m))
			sp.PerDeviceKps = append(sp.PerDeviceKps, kps(c.Kernels, m))
		}
		if sp.OneKps > 0 {
			sp.Scaling = sp.AggregateKps / sp.OneKps
		}
		r.Paths[p] = sp
	}

	// Verify every device's two paths, as the one-device run does.
	var runs []timedPath
	for i, sg := range sgs {
		runs = append(runs,
			recorderPath(fmt.Sprintf("eager@%d", i), sg, &sg.eagerPath, sg.eager),
			recorderPath(fmt.Sprintf("replay@%d", i), sg, &sg.replayPath, sg.replay))
	}
	errs := verify(w, runs)
	for _, p := range scalingPaths {
		sp := r.Paths[p]
		for i := range sgs {
			err := errs[fmt.Sprintf("%s@%d", p, i)]
			sp.Verified = append(sp.Verified, err == nil)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			sp.VerifyError = append(sp.VerifyError, msg)
		}
		if !slices.ContainsFunc(sp.VerifyError, func(s string) bool { return s != "" }) {
			sp.VerifyError = nil
		}
		r.Paths[p] = sp
	}
	return r, nil
}

// loadedTarget is a replay path's memory on a device that loaded the graph
// from its file: the loaded graph's state buffer (its buffers belong to the
// stream, and go with its Close).
type loadedTarget struct {
	s    *recorder.Stream
	buf  *recorder.Buffer
	init []uint32
}

func (t *loadedTarget) launch(int) error {
	return fmt.Errorf("a loaded graph's path has no launches of its own")
}
func (t *loadedTarget) read() ([]uint32, error) { return recorder.ReadSlice[uint32](t.s, t.buf) }
func (t *loadedTarget) reset() error            { return recorder.WriteSlice(t.s, t.buf, 0, t.init) }
func (t *loadedTarget) state() *recorder.Buffer { return t.buf }

// loadSoftgraphPaths builds the eager and replay paths on dev from a graph
// file: the eager path launches the workload natively on dev; the replay
// path replays the graph loaded from file, whose Buffers()[state] holds its
// state (file carries the initial contents).
func loadSoftgraphPaths(dev *wgpu.Device, opts []recorder.Option, w *workload, c config, file []byte, state int) (*softgraphPaths, error) {
	s, err := recorder.New(dev, opts...)
	if err != nil {
		return nil, err
	}
	p := &softgraphPaths{s: s, kernels: c.Kernels, graphLen: c.GraphLen, replays: c.Kernels / c.GraphLen}
	fail := func(err error) (*softgraphPaths, error) {
		p.close()
		return nil, err
	}
	if p.eagerPath.t, err = w.target(s); err != nil {
		return fail(err)
	}
	start := clock.Now()
	if p.graph, err = s.LoadGraph(bytes.NewReader(file)); err != nil {
		return fail(fmt.Errorf("loading the graph file: %w", err))
	}
	p.captureTime = clock.Since(start)
	bufs := p.graph.Buffers()
	if state >= len(bufs) {
		return fail(fmt.Errorf("the loaded graph has %d buffers, not the %d of the captured one", len(bufs), state+1))
	}
	p.replayPath.t = &loadedTarget{s: s, buf: bufs[state], init: w.init}
	if err := s.Sync(); err != nil {
		return fail(err)
	}
	return p, nil
}

// runDevices is the -devices run: it opens the devices, measures every
// config on all of them and writes the report.
func runDevices(cfgs []config, ropts []recorder.Option, o options, stdout, stderr io.Writer) error {
	devs, err := openDevices(o.devices)
	if err != nil {
		return err
	}
	defer func() {
		for _, d := range devs {
			d.Close()
		}
	}()
	rep := report{
		Adapter: devs[0].Info().String(),
		Go:      runtime.Version(),
		OS:      runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:    runtime.NumCPU(),
		Date:    time.Now().UTC().Format(time.RFC3339),
		Method: fmt.Sprintf("-devices %s: graph captured on device 0, saved with contents, loaded from the file on the others; "+
			"interleaved rounds eager/replay on device 0 alone and on all %d devices at once (one goroutine each, released together; wall = release to last Sync), "+
			"start rotated each round; three uncounted warm-up rounds; medians; scaling = aggregate / one-device throughput of the same run; replay pre-encode %s",
			o.devices, len(devs), o.preEncode),
	}
	fmt.Fprintf(stdout, "adapter: %s\ngo: %s %s, %d CPUs\n", rep.Adapter, rep.Go, rep.OS, rep.CPUs)
	for i, d := range devs {
		rep.DeviceList = append(rep.DeviceList, d.Info().String())
		fmt.Fprintf(stdout, "device %d: %s\n", i, d.Info())
	}
	fmt.Fprintln(stdout)
	for _, c := range cfgs {
		fmt.Fprintf(stderr, "graphbench: %s on %d devices (%s, %d elems × %d dispatches, graphs of %d)...\n", c.Name, len(devs), c.Workload, c.Elems, c.Kernels, c.GraphLen)
		row, err := measureDevices(devs, ropts, c, o)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		rep.Scaling = append(rep.Scaling, row)
	}
	if err := rep.write(stdout, o); err != nil {
		return err
	}
	for _, r := range rep.Scaling {
		for _, p := range scalingPaths {
			for i, ok := range r.Paths[p].Verified {
				if !ok {
					return fmt.Errorf("%s: the %s path on device %d computed a wrong result: %s", r.Config, p, i, r.Paths[p].VerifyError[i])
				}
			}
		}
	}
	return nil
}

// writeScaling prints a -devices run in lineWidth columns: per config and
// path, one device's median pass and throughput, all devices' wall time
// and aggregate throughput, the slowest and fastest device's throughput
// in the joint run, and the scaling, with a legend.
func (r report) writeScaling(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\tpath\tdevices\trounds\t1-dev µs\t1-dev k/s\tall µs\tall k/s\tper dev k/s\tscaling\tverified\t")
	for _, x := range r.Scaling {
		for _, p := range scalingPaths {
			sp, ok := x.Paths[p]
			if !ok {
				continue
			}
			per := "–"
			if len(sp.PerDeviceKps) > 0 {
				per = fmt.Sprintf("%.0f–%.0f", slices.Min(sp.PerDeviceKps), slices.Max(sp.PerDeviceKps))
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%.2f\t%s\t\n",
				x.Config, p, x.Devices, x.Rounds, sp.OneUS, sp.OneKps, sp.WallUS, sp.AggregateKps, per, sp.Scaling, sp.verified())
		}
	}
	tw.Flush()
	fmt.Fprint(w, wrap("µs per pass, the median of the rounds; k/s: kernels per second. 1-dev: device 0 alone; all: every device at once "+
		"(the wall time from their release to the last Sync, and all kernels over it); per dev: the slowest and the fastest device's "+
		"rate in the joint run; scaling: all k/s / 1-dev k/s (-wide adds the spreads and each device's rate).", lineWidth, ""))
}

// verified is "yes" when every device's result was right, else the first
// device whose was not.
func (sp scalingPath) verified() string {
	for i, ok := range sp.Verified {
		if !ok {
			return fmt.Sprintf("NO: device %d", i)
		}
	}
	return "yes"
}

// writeWideScaling prints a -devices run with every column (-wide): the
// min–max spreads of the one-device pass and of the joint wall time, and
// each device's throughput.
func (r report) writeWideScaling(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\tpath\tdevices\trounds\t1 dev µs/pass\t1 dev kernels/s\tall µs/pass (wall)\taggregate kernels/s\tper device kernels/s\tscaling\tverified\t")
	for _, x := range r.Scaling {
		for _, p := range scalingPaths {
			sp, ok := x.Paths[p]
			if !ok {
				continue
			}
			var per []string
			for _, v := range sp.PerDeviceKps {
				per = append(per, fmt.Sprintf("%.0f", v))
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f [%.0f–%.0f]\t%.0f\t%.0f [%.0f–%.0f]\t%.0f\t%s\t%.2f\t%s\t\n",
				x.Config, p, x.Devices, x.Rounds, sp.OneUS, sp.OneMinUS, sp.OneMaxUS, sp.OneKps,
				sp.WallUS, sp.WallMinUS, sp.WallMaxUS, sp.AggregateKps, strings.Join(per, " / "), sp.Scaling, sp.verified())
		}
	}
	tw.Flush()
}
