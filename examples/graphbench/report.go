package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"
)

type report struct {
	Adapter string `json:"adapter"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	CPUs    int    `json:"cpus"`
	Date    string `json:"date"`
	Method  string `json:"method"`
	Rows    []row  `json:"rows"`
	// DeviceList and Scaling are a -devices run's: every device's adapter
	// (Adapter is device 0's) and one row per config.
	DeviceList []string     `json:"devices,omitempty"`
	Scaling    []scalingRow `json:"scaling,omitempty"`
}

type row struct {
	Config   string             `json:"config"`
	Workload string             `json:"workload,omitempty"` // add_one, add_one_inplace, life, mlp, sort; empty in old runs (add_one)
	Elems    uint32             `json:"elems"`
	Kernels  int                `json:"kernels"`                    // dispatches per pass
	GraphLen int                `json:"graph_dispatches,omitempty"` // dispatches per graph (old runs: Kernels)
	Replays  int                `json:"replays_per_pass,omitempty"` // Replay calls per pass: Kernels / GraphLen
	Rounds   int                `json:"rounds"`
	E2E      map[string]float64 `json:"e2e_us_per_kernel"`
	E2EMin   map[string]float64 `json:"e2e_us_per_kernel_min"`
	E2EMax   map[string]float64 `json:"e2e_us_per_kernel_max"`
	// Enqueue is the median time to enqueue one pass (eager, replay,
	// replay_inline), EnqueuePerReplay the same for replay and replay_inline
	// divided by their Replay calls per pass: the host cost of one Replay.
	Enqueue          map[string]float64 `json:"enqueue_us_per_pass"`
	EnqueuePerReplay map[string]float64 `json:"enqueue_us_per_replay,omitempty"`
	Share            float64            `json:"share"`
	CaptureMS        float64            `json:"capture_ms"`
	// RawChunk is raw_chunked's chunk (dispatches per submit), the fastest
	// in ChunkSweep (µs/kernel median per candidate, from the warm-up).
	RawChunk   int             `json:"raw_chunked_chunk,omitempty"`
	ChunkSweep map[int]float64 `json:"raw_chunk_sweep_us_per_kernel,omitempty"`
	// RawBestPath is the hand-written path with the lower median, raw or
	// raw_chunked, that replay/raw_best compares against, and RawBestChunk
	// its dispatches per submit (Kernels for raw).
	RawBestPath  string `json:"raw_best_path,omitempty"`
	RawBestChunk int    `json:"raw_best_chunk,omitempty"`
	// Ratios: eager/replay, replay/raw_best, replay/floor (old runs:
	// replay/raw against raw alone, and replay/gpu, the same as replay/floor).
	// RampLag is the median time the replay path's ramp worker kept
	// encoding after a pass's Sync returned (µs; waited for outside the
	// timing, before the next path runs), RampLagMax the longest.
	RampLag    float64            `json:"ramp_lag_us,omitempty"`
	RampLagMax float64            `json:"ramp_lag_us_max,omitempty"`
	Ratios     map[string]float64 `json:"ratios"`
	LibProfile *libProfile        `json:"lib_profile,omitempty"`
	// FusedDispatches is how many dispatches the fused path's graph
	// (recorder.WithFusion) has, of GraphLen; FusedCaptureMS its capture
	// time, fusion and compilation included. FloorUnfused is the GPU's own
	// time per kernel for the unfused command buffer (the gpu path, or for
	// a recorder-only workload the library's floor of the replay graph):
	// fused/floor_unfused compares the fused replay with it.
	FusedDispatches int `json:"fused_graph_dispatches,omitempty"`
	// Fusion is the fused graph's own account of its fusion (Graph.String's
	// part on it): the fused chains, and for adjacent dispatches that were
	// not fused, how many and why the first pair was not.
	Fusion         string            `json:"fusion,omitempty"`
	FusedCaptureMS float64           `json:"fused_capture_ms,omitempty"`
	FloorUnfused   float64           `json:"floor_unfused_us_per_kernel,omitempty"`
	Verified       map[string]bool   `json:"verified"`
	VerifyError    map[string]string `json:"verify_error,omitempty"`
}

// libProfile is the library's own view of one replay of the replay path's
// graph (Stream.ProfileReplay with WithFloor), in µs per kernel of the graph.
type libProfile struct {
	Method     string  `json:"method,omitempty"`
	GPU        float64 `json:"gpu_us_per_kernel"`         // ReplayProfile.Total / graph dispatches
	SubmitWait float64 `json:"submit_wait_us_per_kernel"` // ReplayProfile.SubmitWait / graph dispatches
	Floor      float64 `json:"floor_us_per_kernel"`       // ReplayProfile.Floor() / graph dispatches
	Error      string  `json:"error,omitempty"`
}

var paths = []string{"eager", "replay", "replay_inline", "fused", "raw", "raw_chunked", "gpu"}

// upgrade fills what an older run's row lacks but its own measurements
// determine: its graph was the whole pass, replayed once, so the per-Replay
// enqueue is the per-pass one; its replay/gpu is replay/floor. Its
// replay/raw (against one-submit raw only) is left as it is: raw_chunked was
// not measured, so replay/raw_best stays absent.
func (x *row) upgrade() {
	if x.Workload == "" {
		x.Workload = "add_one"
	}
	if x.GraphLen == 0 {
		x.GraphLen, x.Replays = x.Kernels, 1
	}
	if x.EnqueuePerReplay == nil && x.Replays > 0 {
		x.EnqueuePerReplay = map[string]float64{}
		for _, p := range []string{"replay", "replay_inline"} {
			if v, ok := x.Enqueue[p]; ok {
				x.EnqueuePerReplay[p] = v / float64(x.Replays)
			}
		}
	}
	if _, ok := x.Ratios["replay/floor"]; !ok {
		if v, ok := x.Ratios["replay/gpu"]; ok {
			if x.Ratios == nil {
				x.Ratios = map[string]float64{}
			}
			x.Ratios["replay/floor"] = v
		}
	}
}

func (r report) writeTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\trounds\tgraph×replays\teager µs/k\treplay µs/k\tinline µs/k\tfused µs/k\traw µs/k\tchunked µs/k\tgpu µs/k\tfloor_unfused µs/k\teager enq µs\treplay enq µs\tµs/Replay\tshare\tcapture ms\teager/replay\treplay/raw\traw best\treplay/floor\tfused graph\tfused/floor_unfused\tverified\t")
	for _, x := range r.Rows {
		cell := func(p string) string {
			v, ok := x.E2E[p]
			if !ok {
				return "–"
			}
			s := fmt.Sprintf("%.2f [%.2f–%.2f]", v, x.E2EMin[p], x.E2EMax[p])
			if p == "raw_chunked" && x.RawChunk > 0 {
				s += fmt.Sprintf(" @%d", x.RawChunk)
			}
			return s
		}
		num := func(m map[string]float64, k, format string) string {
			if v, ok := m[k]; ok {
				return fmt.Sprintf(format, v)
			}
			return "–"
		}
		var wrong []string
		for _, p := range paths {
			if _, ran := x.E2E[p]; ran && !x.Verified[p] {
				wrong = append(wrong, p)
			}
		}
		ok := "yes"
		if wrong != nil {
			ok = "NO: " + strings.Join(wrong, ",")
		}
		rawRatio, best := num(x.Ratios, "replay/raw_best", "%.2f"), "–"
		switch {
		case x.RawBestPath == "raw":
			best = "raw"
		case x.RawBestPath != "":
			best = fmt.Sprintf("chunk %d", x.RawBestChunk)
		case x.Ratios["replay/raw"] > 0:
			rawRatio, best = fmt.Sprintf("%.2f", x.Ratios["replay/raw"]), "raw only" // an old run
		}
		floor, fusedGraph := "–", "–"
		if x.FloorUnfused > 0 {
			floor = fmt.Sprintf("%.2f", x.FloorUnfused)
		}
		if x.FusedDispatches > 0 {
			fusedGraph = fmt.Sprintf("%d of %d", x.FusedDispatches, x.GraphLen)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d×%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			x.Config, x.Rounds, x.GraphLen, x.Replays,
			cell("eager"), cell("replay"), cell("replay_inline"), cell("fused"), cell("raw"), cell("raw_chunked"), cell("gpu"), floor,
			num(x.Enqueue, "eager", "%.0f"), num(x.Enqueue, "replay", "%.0f"), num(x.EnqueuePerReplay, "replay", "%.2f"),
			x.Share, x.CaptureMS,
			num(x.Ratios, "eager/replay", "%.2f"), rawRatio, best, num(x.Ratios, "replay/floor", "%.2f"),
			fusedGraph, num(x.Ratios, "fused/floor_unfused", "%.2f"), ok)
	}
	tw.Flush()
	for _, x := range r.Rows {
		if x.Fusion != "" {
			fmt.Fprintf(w, "%s: the fused graph keeps %d of %d dispatches; %s\n", x.Config, x.FusedDispatches, x.GraphLen, x.Fusion)
		}
	}
	for _, x := range r.Rows {
		if x.RampLagMax > 0 {
			fmt.Fprintf(w, "%s: the replay path's ramp worker ran %.0f µs past Sync (median; longest %.0f), waited for outside the timing\n", x.Config, x.RampLag, x.RampLagMax)
		}
	}
}

// write prints the table and writes the JSON and SVG files o asks for.
func (r report) write(stdout io.Writer, o options) error {
	if len(r.Scaling) > 0 {
		r.writeScaling(stdout)
	} else {
		r.writeTable(stdout)
	}
	if o.jsonPath != "" {
		if err := r.writeJSON(o.jsonPath); err != nil {
			return err
		}
	}
	if o.svgPath != "" {
		return r.writeSVG(o.svgPath)
	}
	return nil
}

// mergeReports joins runs made config by config (one process each, say)
// into one report. They must come from the same adapter.
func mergeReports(paths []string) (report, error) {
	var out report
	for i, p := range paths {
		raw, err := os.ReadFile(strings.TrimSpace(p))
		if err != nil {
			return report{}, err
		}
		var r report
		if err := json.Unmarshal(raw, &r); err != nil {
			return report{}, fmt.Errorf("%s: %w", p, err)
		}
		for i := range r.Rows {
			r.Rows[i].upgrade()
		}
		if i == 0 {
			out = r
			out.Rows = nil
			out.Method += "; merged from separate runs"
		} else if r.Adapter != out.Adapter {
			return report{}, fmt.Errorf("%s was measured on %q, not %q", p, r.Adapter, out.Adapter)
		} else if !strings.Contains(out.Method, r.Method) {
			out.Method += "; and " + r.Method // a run of another version of graphbench
		}
		out.Rows = append(out.Rows, r.Rows...)
	}
	return out, nil
}

func (r report) writeJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// writeSVG draws grouped bars: one group per config, one bar per path it
// measured, µs/kernel on a log scale, with min–max whiskers; under each group
// eager/replay and replay/raw_best (replay/raw for an old run).
func (r report) writeSVG(path string) error {
	colors := map[string]string{"eager": "#d62728", "replay": "#1f77b4", "replay_inline": "#9ecae1", "fused": "#9467bd", "raw": "#ff7f0e", "raw_chunked": "#ffbb78", "gpu": "#2ca02c"}
	const (
		left, right, top, bottom = 70.0, 20.0, 60.0, 90.0
		barW, gap                = 16.0, 28.0
		height                   = 360.0
		legendStep               = 110.0
	)
	groupW := barW*float64(len(paths)) + gap
	width := max(left+right+groupW*float64(len(r.Rows)), left+right+legendStep*float64(len(paths)))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range r.Rows {
		for _, p := range paths {
			if _, ok := x.E2E[p]; ok {
				lo = math.Min(lo, x.E2EMin[p])
				hi = math.Max(hi, x.E2EMax[p])
			}
		}
	}
	if !(lo > 0) || math.IsInf(lo, 1) {
		lo = 0.01
	}
	if !(hi > lo) {
		hi = lo * 10
	}
	lmin, lmax := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if lmax <= lmin {
		lmax = lmin + 1
	}
	y := func(v float64) float64 {
		v = math.Max(v, math.Pow(10, lmin))
		return top + height - (math.Log10(v)-lmin)/(lmax-lmin)*height
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", width, top+height+bottom)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="20" font-size="14">softgraph graphbench: end-to-end µs per kernel (log scale, median, min–max whiskers)</text>`+"\n", left)
	fmt.Fprintf(&b, `<text x="%.0f" y="38" fill="#555">%s</text>`+"\n", left, escape(r.Adapter))
	for e := lmin; e <= lmax; e++ {
		yy := y(math.Pow(10, e))
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, width-right, yy, yy)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%g</text>`+"\n", left-6, yy+4, math.Pow(10, e))
	}
	for i, x := range r.Rows {
		gx := left + gap/2 + float64(i)*groupW
		for j, p := range paths {
			v, ok := x.E2E[p]
			if !ok {
				continue // an old run without this path
			}
			bx := gx + float64(j)*barW
			label := p
			if p == "raw_chunked" && x.RawChunk > 0 {
				label = fmt.Sprintf("%s (chunk %d)", p, x.RawChunk)
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %.2f µs/kernel</title></rect>`+"\n",
				bx, y(v), barW-2, top+height-y(v), colors[p], x.Config, label, v)
			cx := bx + (barW-2)/2
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black"/>`+"\n", cx, cx, y(x.E2EMin[p]), y(x.E2EMax[p]))
		}
		mid := gx + barW*float64(len(paths))/2
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", mid, top+height+18, x.Config)
		rawRatio, ok := x.Ratios["replay/raw_best"]
		if !ok {
			rawRatio = x.Ratios["replay/raw"]
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">×%.2f · ×%.2f</text>`+"\n", mid, top+height+34, x.Ratios["eager/replay"], rawRatio)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="#555">under each config: ×eager/replay · ×replay/raw_best (medians of one run)</text>`+"\n", left, top+height+54)
	for j, p := range paths {
		lx := left + float64(j)*legendStep
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n", lx, top+height+64, colors[p], lx+16, top+height+74, p)
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
