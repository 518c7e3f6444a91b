// Package barchart draws the examples' charts as standalone SVG: groups of
// bars (one group per benchmark config, or per kernel), one bar per series
// in a fixed slot, on a log or a linear scale, with optional min–max
// whiskers, a label and a note under each group, and a legend.
//
// It exists so that every example that writes a chart (graphbench's
// µs/kernel per path, the transformer's GPU time per kernel) lays it out
// the same way from one piece of code. It only formats: it never measures,
// sorts or drops what it is given, and it needs nothing but the standard
// library, so a chart opens in any browser.
package barchart

import (
	"fmt"
	"math"
	"os"
	"strings"
)

// Series is one kind of bar: its slot in every group, its colour and its
// legend entry.
type Series struct {
	Name  string
	Color string // any SVG colour ("#1f77b4")
}

// Bar is one measured value.
type Bar struct {
	Value float64
	// Whisker draws a line from Lo to Hi through the bar (a min–max
	// spread); false draws none.
	Whisker bool
	Lo, Hi  float64
	Tooltip string // the bar's <title>, shown on hover
}

// Group is one cluster of bars, labelled under the axis.
type Group struct {
	Label string
	Note  string // a second, grey line under the label; "" for none
	// Bars holds one entry per Chart.Series, in the same order; nil where
	// the group has no value for that series (its slot stays empty, so
	// the slots line up across groups).
	Bars []*Bar
}

// Chart is the whole figure.
type Chart struct {
	Title    string // the first line
	Subtitle string // a grey second line (the adapter, the model)
	// Log selects a log10 axis over the decades the values span (for
	// values a hundred times apart); false a linear axis from zero.
	Log      bool
	Series   []Series
	Groups   []Group
	Footnote string // a grey line under the groups' notes: how to read the notes
}

// Layout, in pixels. The font is 12 px sans-serif, about 7 px per
// character, which is what a group's label is given room for.
const (
	left, right, top, bottom = 70.0, 20.0, 60.0, 90.0
	barW, gap                = 16.0, 28.0
	plotH                    = 360.0
	legendStep               = 110.0
	charW                    = 7.0
)

// SVG returns the chart as an SVG document.
func (c Chart) SVG() string {
	groupW := barW*float64(len(c.Series)) + gap
	for _, g := range c.Groups {
		groupW = max(groupW, charW*float64(max(len([]rune(g.Label)), len([]rune(g.Note))))+gap/2)
	}
	width := max(left+right+groupW*float64(len(c.Groups)), left+right+legendStep*float64(len(c.Series)))
	ax := c.axis()

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", width, top+plotH+bottom)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="20" font-size="14">%s</text>`+"\n", left, Escape(c.Title))
	fmt.Fprintf(&b, `<text x="%.0f" y="38" fill="#555">%s</text>`+"\n", left, Escape(c.Subtitle))
	for _, t := range ax.ticks {
		yy := ax.y(t)
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, width-right, yy, yy)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%g</text>`+"\n", left-6, yy+4, t)
	}
	// Bars are centred in their group's width, and widen (up to 48 px)
	// into room a few series leave.
	bw := barW
	if n := float64(len(c.Series)); n > 0 {
		bw = min(48, max(barW, (groupW-gap)/n))
	}
	barsW := bw * float64(len(c.Series))
	for i, g := range c.Groups {
		gx := left + float64(i)*groupW + (groupW-barsW)/2
		for j, bar := range g.Bars {
			if bar == nil || j >= len(c.Series) {
				continue
			}
			bx := gx + float64(j)*bw
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`+"\n",
				bx, ax.y(bar.Value), bw-2, ax.base()-ax.y(bar.Value), c.Series[j].Color, Escape(bar.Tooltip))
			if bar.Whisker {
				cx := bx + (bw-2)/2
				fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black"/>`+"\n", cx, cx, ax.y(bar.Lo), ax.y(bar.Hi))
			}
		}
		mid := gx + barsW/2
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", mid, top+plotH+18, Escape(g.Label))
		if g.Note != "" {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">%s</text>`+"\n", mid, top+plotH+34, Escape(g.Note))
		}
	}
	if c.Footnote != "" {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="#555">%s</text>`+"\n", left, top+plotH+54, Escape(c.Footnote))
	}
	for j, s := range c.Series {
		lx := left + float64(j)*legendStep
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			lx, top+plotH+64, s.Color, lx+16, top+plotH+74, Escape(s.Name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// WriteFile writes the chart's SVG to path.
func (c Chart) WriteFile(path string) error {
	return os.WriteFile(path, []byte(c.SVG()), 0o644)
}

// axis maps values to the plot's y coordinate.
type axis struct {
	log    bool
	lo, hi float64 // log: decades (exponents); linear: 0 and the top tick
	ticks  []float64
}

// axis fits the values (bars and whisker ends) of the chart: whole decades
// on a log axis, a 1-2-5 step from zero on a linear one. With nothing
// positive to draw it falls back to one decade (log) or 0–1 (linear).
func (c Chart) axis() axis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range c.Groups {
		for _, bar := range g.Bars {
			if bar == nil {
				continue
			}
			vs := []float64{bar.Value}
			if bar.Whisker {
				vs = append(vs, bar.Lo, bar.Hi)
			}
			for _, v := range vs {
				if v > 0 && !math.IsInf(v, 0) {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
	}
	if c.Log {
		if math.IsInf(lo, 1) {
			lo = 0.01
		}
		if !(hi > lo) {
			hi = lo * 10
		}
		a := axis{log: true, lo: math.Floor(math.Log10(lo)), hi: math.Ceil(math.Log10(hi))}
		if a.hi <= a.lo {
			a.hi = a.lo + 1
		}
		for e := a.lo; e <= a.hi; e++ {
			a.ticks = append(a.ticks, math.Pow(10, e))
		}
		return a
	}
	if math.IsInf(hi, -1) {
		hi = 1
	}
	step := niceStep(hi / 5)
	a := axis{hi: step * math.Ceil(hi/step)}
	for i := 0.0; i*step <= a.hi*(1+1e-9); i++ {
		a.ticks = append(a.ticks, i*step)
	}
	return a
}

// niceStep is the smallest of 1, 2 and 5 times a power of ten that is at
// least x.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// y is v's coordinate; a value below the axis sits on its base.
func (a axis) y(v float64) float64 {
	if a.log {
		v = math.Max(v, math.Pow(10, a.lo))
		return top + plotH - (math.Log10(v)-a.lo)/(a.hi-a.lo)*plotH
	}
	v = math.Max(v, 0)
	return top + plotH - v/a.hi*plotH
}

// base is the coordinate bars grow from: the axis's bottom.
func (a axis) base() float64 { return top + plotH }

// Escape makes s safe as SVG text.
func Escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
