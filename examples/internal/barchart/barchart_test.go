package barchart

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// elements parses svg and counts its elements by name, failing the test
// when it is not well-formed XML (a browser would show nothing).
func elements(t *testing.T, svg string) map[string]int {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	n := map[string]int{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("the chart must be well-formed XML: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok {
			n[se.Name.Local]++
		}
	}
}

// TestEveryBarIsDrawnInItsSlotAndMissingOnesAreNot: one rect per bar given
// (plus the background and one legend swatch per series), a whisker line
// only where asked, and labels that would break the XML escaped.
func TestEveryBarIsDrawnInItsSlotAndMissingOnesAreNot(t *testing.T) {
	c := Chart{
		Title:    "a <chart> & more",
		Subtitle: "adapter",
		Log:      true,
		Series:   []Series{{"eager", "#d62728"}, {"replay", "#1f77b4"}, {"raw", "#ff7f0e"}},
		Groups: []Group{
			{Label: "tiny_x150", Note: "×1.50", Bars: []*Bar{{Value: 3, Whisker: true, Lo: 2, Hi: 4}, {Value: 2}, nil}},
			{Label: "a<b", Bars: []*Bar{{Value: 300}, nil, {Value: 0.5, Tooltip: "raw & <x>"}}},
		},
		Footnote: "notes",
	}
	svg := c.SVG()
	n := elements(t, svg)
	if want := 1 + 4 + len(c.Series); n["rect"] != want {
		t.Errorf("want %d rects (background, 4 bars, %d legend swatches), got %d", want, len(c.Series), n["rect"])
	}
	// Grid lines: one per decade from 0.1 to 1000 (five); whiskers: one.
	if n["line"] != 5+1 {
		t.Errorf("want 5 decade lines and 1 whisker, got %d lines\n%s", n["line"], svg)
	}
	for _, s := range []string{"tiny_x150", "×1.50", "a&lt;b", "a &lt;chart&gt; &amp; more", "raw &amp; &lt;x&gt;", "notes"} {
		if !strings.Contains(svg, s) {
			t.Errorf("the chart lacks %q", s)
		}
	}
}

// TestLinearAxisStartsAtZeroAndCoversTheLargestValue: a linear axis runs
// from 0 in 1-2-5 steps to at least the largest bar, so every bar's
// height is proportional to its value.
func TestLinearAxisStartsAtZeroAndCoversTheLargestValue(t *testing.T) {
	for _, top := range []float64{0.7, 1, 9.5, 110, 26368} {
		c := Chart{Series: []Series{{"gpu", "#2ca02c"}}, Groups: []Group{{Label: "k", Bars: []*Bar{{Value: top}}}}}
		a := c.axis()
		if a.log || a.ticks[0] != 0 || a.hi < top || a.hi > 2.5*top || len(a.ticks) < 3 || len(a.ticks) > 11 {
			t.Errorf("max %v: want ticks from 0 to at least the max, 3 to 11 of them; got top %v ticks %v", top, a.hi, a.ticks)
		}
		if y0, yTop := a.y(0), a.y(a.hi); y0 != a.base() || yTop >= y0 {
			t.Errorf("max %v: 0 sits on the base (%v, got %v) and the top above it (%v)", top, a.base(), y0, yTop)
		}
	}
	if a := (Chart{}).axis(); a.hi != 1 {
		t.Errorf("an empty linear chart still gets an axis of 0–1, got top %v", a.hi)
	}
}
