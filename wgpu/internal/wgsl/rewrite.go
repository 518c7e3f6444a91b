package wgsl

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// BindOverrides is src with every override turned into a const of its
// value under constants (the same values and spelling Specialize gives
// them) and nothing else changed: the author's text of a kernel compiled
// with constants, which the fusion pass analyses and fuses as written.
// Errors are Specialize's for the same constants.
func BindOverrides(src string, constants map[string]float64) (string, error) {
	m, err := parse(src)
	if err != nil {
		return "", err
	}
	if len(m.overrides) == 0 {
		return src, nil
	}
	c := newChecker(m)
	if err := c.bind(constants); err != nil {
		return "", err
	}
	var edits []edit
	for _, o := range m.overrides {
		text, err := c.overrideConst(o)
		if err != nil {
			return "", err
		}
		edits = append(edits, edit{o.start, o.end, text})
	}
	return applyEdits(src, edits), nil
}

// applyEdits is src with each edit's span replaced by its text; the spans
// must not overlap.
func applyEdits(src string, edits []edit) string {
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var b strings.Builder
	at := 0
	for _, e := range edits {
		b.WriteString(src[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.WriteString(src[at:])
	return b.String()
}

// overrideConst is the const declaration override o becomes, its line
// breaks kept.
func (c *checker) overrideConst(o *overrideDecl) (string, error) {
	v, err := c.overrideValue(o)
	if err != nil {
		return "", err
	}
	typ := ": " + v.kind.String()
	switch {
	case o.typ != nil:
		typ = ": " + format(o.typ)
	case c.m.names[v.kind.String()] != nil:
		// The module redeclares the predeclared type's name (alias
		// i32 = u32); the literal's suffix already gives the type.
		typ = ""
	}
	return keepLines(c.m.src[o.start:o.end], "const "+o.name+typ+" = "+wgslLiteral(v)+";"), nil
}

// rewrite produces Kernel.Source: the module with every override turned
// into a const of its value and every trailing comma of an attribute
// argument list removed, each replaced region keeping its line breaks so
// the compiler's line numbers still point at the author's lines.
func (c *checker) rewrite() (string, error) {
	if err := c.lower(); err != nil {
		return "", err
	}
	edits := slices.Clone(c.edits)
	for _, o := range c.m.overrides {
		text, err := c.overrideConst(o)
		if err != nil {
			return "", err
		}
		edits = append(edits, edit{o.start, o.end, text})
	}
	for _, pos := range c.m.commas {
		edits = append(edits, edit{pos, pos + 1, ""})
	}
	for _, s := range c.m.strips {
		text := keepLines(c.m.src[s.start:s.end], "")
		if text == "" && s.start > 0 && s.end < len(c.m.src) && wordByte(c.m.src[s.start-1]) && wordByte(c.m.src[s.end]) {
			// var<function>A: removing the template must not join the
			// keyword and the name into one word.
			text = " "
		}
		edits = append(edits, edit{s.start, s.end, text})
	}
	for pos, e := range c.subst {
		if _, ok := c.conv[pos]; !ok {
			edits = append(edits, e)
		}
	}
	for _, e := range c.conv {
		edits = append(edits, e)
	}
	changes := make([]change, 0, len(edits)+len(c.inserts))
	for _, e := range edits {
		changes = append(changes, change{edit: e})
	}
	for _, in := range c.inserts {
		changes = append(changes, change{edit: edit{in.at, in.at, in.text}, rank: in.rank, copy: in.copy})
	}
	// At one offset insertions go first, by rank, then the longer edit,
	// which wins: an edit that starts inside one already applied (a literal
	// inside an override or a stripped declaration) is dropped.
	slices.SortFunc(changes, func(a, b change) int {
		if a.start != b.start {
			return a.start - b.start
		}
		ai, bi := a.start == a.end, b.start == b.end
		switch {
		case ai && bi:
			return a.rank - b.rank
		case ai:
			return -1
		case bi:
			return 1
		}
		return (b.end - b.start) - (a.end - a.start)
	})
	out := c.render(changes, 0, len(c.m.src), nil)
	if h := c.helpers.text(); h != "" {
		if !strings.HasSuffix(out, "\n") {
			out += "\n" // the module may end inside a line comment
		}
		out += h
	}
	return out, nil
}

// change is an edit or an insertion (start == end) of the rewrite.
type change struct {
	edit
	rank int
	copy *span
}

// render is src[start:end] with the sorted changes that lie inside it
// applied; a change's copy is rendered the same way. Rendering the copy of
// an insertion made at the copy's end (a var's type, copied just after
// itself), that insertion and the later ones at its offset (by rank) are
// left out: they follow the copied text, they are not part of it.
func (c *checker) render(changes []change, start, end int, of *change) string {
	var b strings.Builder
	b.Grow(end - start)
	last := start
	for i := range changes {
		e := &changes[i]
		if e.start < last || e.end > end {
			continue
		}
		if of != nil && e.start == e.end && e.start == of.start && e.rank >= of.rank {
			continue
		}
		b.WriteString(c.m.src[last:e.start])
		b.WriteString(e.text)
		if e.copy != nil {
			b.WriteString(c.render(changes, e.copy.start, e.copy.end, e))
		}
		last = e.end
	}
	b.WriteString(c.m.src[last:end])
	return b.String()
}

// wordByte reports whether b may be part of an identifier or keyword.
func wordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// keepLines is text followed by as many line breaks as old has, so every
// later line keeps its number.
func keepLines(old, text string) string {
	return text + strings.Repeat("\n", strings.Count(old, "\n"))
}

// wgslLiteral spells v as a WGSL literal of exactly its type: an explicit
// suffix, and floats in the shortest form that reads back to the same f32
// (or f16). The most negative i32 has no literal (2147483648i is out of
// range before the minus applies), so it is spelled as a subtraction of
// two, which no module-scope declaration can shadow.
func wgslLiteral(v value) string {
	switch v.kind {
	case scalarBool:
		return strconv.FormatBool(v.i != 0)
	case scalarI32:
		if v.i == math.MinInt32 {
			return "(-2147483647i - 1i)"
		}
		return strconv.FormatInt(v.i, 10) + "i"
	case scalarU32:
		return strconv.FormatInt(v.i, 10) + "u"
	case scalarF16:
		return strconv.FormatFloat(v.f, 'g', -1, 32) + "h"
	}
	return strconv.FormatFloat(v.f, 'g', -1, 32) + "f"
}
