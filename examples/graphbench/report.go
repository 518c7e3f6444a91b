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
}

type row struct {
	Config      string             `json:"config"`
	Elems       uint32             `json:"elems"`
	Kernels     int                `json:"kernels"`
	Rounds      int                `json:"rounds"`
	E2E         map[string]float64 `json:"e2e_us_per_kernel"`
	E2EMin      map[string]float64 `json:"e2e_us_per_kernel_min"`
	E2EMax      map[string]float64 `json:"e2e_us_per_kernel_max"`
	Enqueue     map[string]float64 `json:"enqueue_us_per_pass"`
	Share       float64            `json:"share"`
	CaptureMS   float64            `json:"capture_ms"`
	Ratios      map[string]float64 `json:"ratios"`
	Verified    map[string]bool    `json:"verified"`
	VerifyError map[string]string  `json:"verify_error,omitempty"`
}

var paths = []string{"eager", "replay", "replay_inline", "raw", "gpu"}

func (r report) writeTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\trounds\teager µs/k\treplay µs/k\tinline µs/k\traw µs/k\tgpu µs/k\teager enq µs\treplay enq µs\tshare\tcapture ms\teager/replay\treplay/raw\treplay/gpu\tverified\t")
	for _, x := range r.Rows {
		cell := func(p string) string {
			return fmt.Sprintf("%.2f [%.2f–%.2f]", x.E2E[p], x.E2EMin[p], x.E2EMax[p])
		}
		ok := "yes"
		for _, p := range paths {
			if !x.Verified[p] {
				ok = "NO: " + p
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.0f\t%.2f\t%.1f\t%.2f\t%.2f\t%.2f\t%s\t\n",
			x.Config, x.Rounds, cell("eager"), cell("replay"), cell("replay_inline"), cell("raw"), cell("gpu"),
			x.Enqueue["eager"], x.Enqueue["replay"], x.Share, x.CaptureMS,
			x.Ratios["eager/replay"], x.Ratios["replay/raw"], x.Ratios["replay/gpu"], ok)
	}
	tw.Flush()
}

// write prints the table and writes the JSON and SVG files o asks for.
func (r report) write(stdout io.Writer, o options) error {
	r.writeTable(stdout)
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
		if i == 0 {
			out = r
			out.Rows = nil
			out.Method += "; merged from separate runs"
		} else if r.Adapter != out.Adapter {
			return report{}, fmt.Errorf("%s was measured on %q, not %q", p, r.Adapter, out.Adapter)
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

// writeSVG draws grouped bars: one group per config, one bar per path,
// µs/kernel on a log scale, with min–max whiskers.
func (r report) writeSVG(path string) error {
	colors := map[string]string{"eager": "#d62728", "replay": "#1f77b4", "replay_inline": "#9ecae1", "raw": "#ff7f0e", "gpu": "#2ca02c"}
	const (
		left, right, top, bottom = 70.0, 20.0, 60.0, 70.0
		barW, gap                = 16.0, 24.0
		height                   = 360.0
	)
	groupW := barW*float64(len(paths)) + gap
	width := left + right + groupW*float64(len(r.Rows))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range r.Rows {
		for _, p := range paths {
			lo = math.Min(lo, x.E2EMin[p])
			hi = math.Max(hi, x.E2EMax[p])
		}
	}
	if !(lo > 0) {
		lo = 0.01
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
			bx := gx + float64(j)*barW
			v := x.E2E[p]
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %.2f µs/kernel</title></rect>`+"\n",
				bx, y(v), barW-2, top+height-y(v), colors[p], x.Config, p, v)
			cx := bx + (barW-2)/2
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black"/>`+"\n", cx, cx, y(x.E2EMin[p]), y(x.E2EMax[p]))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", gx+barW*2.5, top+height+18, x.Config)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">×%.2f</text>`+"\n", gx+barW*2.5, top+height+34, x.Ratios["eager/replay"])
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="#555">×: eager/replay</text>`+"\n", left, top+height+54)
	for j, p := range paths {
		lx := left + 140 + float64(j)*110
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n", lx, top+height+44, colors[p], lx+16, top+height+54, p)
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
