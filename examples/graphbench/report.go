package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/softgraph/softgraph/examples/internal/barchart"
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

// lineWidth is what the default report fits in (a terminal of 120 columns);
// -wide prints the full table, which does not.
const lineWidth = 120

// writeTable prints the default report: per config the median µs per
// kernel of each path and the ratios, in 120 columns, then what the fused
// graphs kept (counts by kernel) and, where the replay path pre-encoded,
// how long its ramp worker ran past Sync.
func (r report) writeTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\tgraph×n\teager\treplay\tinline\tfused\thand\tfloor\te/r\tr/h\tr/f\tfu/f\tverified\t")
	for _, x := range r.Rows {
		med := func(p string) string {
			if v, ok := x.E2E[p]; ok {
				return fmt.Sprintf("%.2f", v)
			}
			return "–"
		}
		hand := "–"
		switch {
		case x.RawBestPath == "raw":
			hand = med("raw")
		case x.RawBestPath != "":
			hand = fmt.Sprintf("%s @%d", med(x.RawBestPath), x.RawBestChunk)
		case x.Ratios["replay/raw"] > 0:
			hand = med("raw") + " raw only" // an old run: no raw_chunked
		}
		rh := ratio(x.Ratios, "replay/raw_best")
		if _, ok := x.Ratios["replay/raw_best"]; !ok && x.Ratios["replay/raw"] > 0 {
			rh = ratio(x.Ratios, "replay/raw")
		}
		floor := "–"
		if x.FloorUnfused > 0 {
			floor = fmt.Sprintf("%.2f", x.FloorUnfused)
		}
		fmt.Fprintf(tw, "%s\t%d×%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			x.Config, x.GraphLen, x.Replays, med("eager"), med("replay"), med("replay_inline"), med("fused"), hand, floor,
			ratio(x.Ratios, "eager/replay"), rh, ratio(x.Ratios, "replay/floor"), ratio(x.Ratios, "fused/floor_unfused"), x.verified())
	}
	tw.Flush()
	fmt.Fprint(w, wrap("µs per kernel, the median of each config's rounds (-wide adds the min–max spreads, enqueue and capture times). "+
		"graph×n: dispatches per graph × Replay calls per pass; inline: replay without pre-encoding; "+
		"hand: the faster hand-written loop, one submit or @C (a submit every C dispatches); "+
		"floor: the same dispatches encoded in one command buffer before the clock starts (for mlp, the library's floor of the unfused graph). "+
		"Ratios of medians: e/r eager/replay (above 1: replay is faster), r/h replay/hand, r/f replay/floor, fu/f fused/floor.", lineWidth, ""))
	r.writeNotes(w)
}

// writeWideTable prints every column (-wide): each path's median with its
// min–max spread, the enqueue times, share and capture time, and every
// ratio, one line per config (about 400 columns).
func (r report) writeWideTable(w io.Writer) {
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
			fusedGraph, num(x.Ratios, "fused/floor_unfused", "%.2f"), x.verified())
	}
	tw.Flush()
	r.writeNotes(w)
}

// writeNotes prints, under either table, what each fused graph kept (the
// fused chains as counts by kernel, and why the first adjacent pair that
// did not fuse did not) and, for a replay path that pre-encoded, how long
// its ramp worker went on past Sync. Each note is wrapped to lineWidth.
func (r report) writeNotes(w io.Writer) {
	var notes []string
	for _, x := range r.Rows {
		if x.Fusion != "" {
			notes = append(notes, fmt.Sprintf("%s: the fused graph keeps %d of %d dispatches; %s", x.Config, x.FusedDispatches, x.GraphLen, summariseFusion(x.Fusion)))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nfused (recorder.WithFusion):")
		for _, n := range notes {
			fmt.Fprint(w, wrap(n, lineWidth, "    "))
		}
	}
	notes = nil
	for _, x := range r.Rows {
		if x.RampLagMax > 0 {
			notes = append(notes, fmt.Sprintf("%s: the replay path's ramp worker ran %.0f µs past Sync (median; longest %.0f), waited for outside the timing", x.Config, x.RampLag, x.RampLagMax))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\npre-encoding (recorder.WithPreEncode):")
		for _, n := range notes {
			fmt.Fprint(w, wrap(n, lineWidth, "    "))
		}
	}
}

// verified is "yes" when every path that ran computed what its dispatches
// compute, else "NO: " and the paths that did not.
func (x row) verified() string {
	var wrong []string
	for _, p := range paths {
		if _, ran := x.E2E[p]; ran && !x.Verified[p] {
			wrong = append(wrong, p)
		}
	}
	if wrong != nil {
		return "NO: " + strings.Join(wrong, ",")
	}
	return "yes"
}

func ratio(m map[string]float64, k string) string {
	if v, ok := m[k]; ok {
		return fmt.Sprintf("%.2f", v)
	}
	return "–"
}

// wrap breaks s into lines of at most width runes at spaces (a word longer
// than a line stays whole), the lines after the first indented by indent;
// every line ends in a newline.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			b.WriteString(line + "\n")
			line = indent + word
		}
	}
	if line != "" {
		b.WriteString(line + "\n")
	}
	return b.String()
}

// summariseFusion shortens the graph's own account of its fusion
// (Graph.String's part on it, kept whole in the JSON's "fusion") for a
// person: the fused chains as counts by kernel instead of each chain's
// name, which lists every dispatch it runs ("bias_gelu+add+scale+…" 64
// times over). The account reads
//
//	fused: 16 chains of 999 dispatches (NAME ×5, NAME ×1); not fused: 15 adjacent pairs (first: …)
//
// where NAME is kernel names joined by "+", a run of one kernel written
// "add_one×15". An account that does not read so, or whose kernel counts
// do not add up to its dispatches, is returned as it is.
func summariseFusion(account string) string {
	m := fusionAccount.FindStringSubmatch(account)
	if m == nil {
		return account
	}
	chains, dispatches := m[1], m[2]
	list, rest := m[3], m[4]
	counts := map[string]int{}
	var order []string
	total := 0
	if list != "" {
		for _, entry := range strings.Split(list, ", ") {
			name, times, ok := cutCount(entry, " ×")
			if !ok {
				return account
			}
			for _, k := range strings.Split(name, "+") {
				kernel, run, ok := cutCount(k, "×")
				if !ok {
					kernel, run = k, 1
				}
				if counts[kernel] == 0 {
					order = append(order, kernel)
				}
				counts[kernel] += run * times
				total += run * times
			}
		}
	}
	if strconv.Itoa(total) != dispatches {
		return account
	}
	var b strings.Builder
	if total == 0 {
		b.WriteString("nothing fused")
	} else {
		unit := "chains"
		if chains == "1" {
			unit = "chain"
		}
		fmt.Fprintf(&b, "fused %s dispatches into %s %s:", dispatches, chains, unit)
		for i, k := range order {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s ×%d", k, counts[k])
		}
	}
	if rest != "" {
		b.WriteString("; not fused: " + rest)
	}
	return b.String()
}

// fusionAccount reads Graph.String's account of fusion (see
// summariseFusion); "chain" and "dispatch" may be singular.
var fusionAccount = regexp.MustCompile(`^fused: (\d+) chains? of (\d+) dispatch(?:es)?(?: \((.*?)\))?(?:; not fused: (.*))?$`)

// cutCount splits "name" + sep + "N" at the last sep into name and N.
func cutCount(s, sep string) (string, int, bool) {
	i := strings.LastIndex(s, sep)
	if i <= 0 {
		return s, 0, false
	}
	n, err := strconv.Atoi(s[i+len(sep):])
	if err != nil || n < 1 {
		return s, 0, false
	}
	return s[:i], n, true
}

// write prints the table and writes the JSON and SVG files o asks for.
func (r report) write(stdout io.Writer, o options) error {
	switch {
	case len(r.Scaling) > 0 && o.wide:
		r.writeWideScaling(stdout)
	case len(r.Scaling) > 0:
		r.writeScaling(stdout)
	case o.wide:
		r.writeWideTable(stdout)
	default:
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

// writeSVG draws grouped bars (examples/internal/barchart): one group per
// config, one bar per path it measured, µs/kernel on a log scale, with
// min–max whiskers; under each group eager/replay and replay/raw_best
// (replay/raw for an old run).
func (r report) writeSVG(path string) error {
	colors := map[string]string{"eager": "#d62728", "replay": "#1f77b4", "replay_inline": "#9ecae1", "fused": "#9467bd", "raw": "#ff7f0e", "raw_chunked": "#ffbb78", "gpu": "#2ca02c"}
	c := barchart.Chart{
		Title:    "softgraph graphbench: end-to-end µs per kernel (log scale, median, min–max whiskers)",
		Subtitle: r.Adapter,
		Log:      true,
		Footnote: "under each config: ×eager/replay · ×replay/raw_best (medians of one run)",
	}
	for _, p := range paths {
		c.Series = append(c.Series, barchart.Series{Name: p, Color: colors[p]})
	}
	for _, x := range r.Rows {
		rawRatio, ok := x.Ratios["replay/raw_best"]
		if !ok {
			rawRatio = x.Ratios["replay/raw"]
		}
		g := barchart.Group{Label: x.Config, Note: fmt.Sprintf("×%.2f · ×%.2f", x.Ratios["eager/replay"], rawRatio)}
		for _, p := range paths {
			v, ok := x.E2E[p]
			if !ok {
				g.Bars = append(g.Bars, nil) // an old run without this path
				continue
			}
			label := p
			if p == "raw_chunked" && x.RawChunk > 0 {
				label = fmt.Sprintf("%s (chunk %d)", p, x.RawChunk)
			}
			g.Bars = append(g.Bars, &barchart.Bar{Value: v, Whisker: true, Lo: x.E2EMin[p], Hi: x.E2EMax[p],
				Tooltip: fmt.Sprintf("%s %s: %.2f µs/kernel", x.Config, label, v)})
		}
		c.Groups = append(c.Groups, g)
	}
	return c.WriteFile(path)
}
