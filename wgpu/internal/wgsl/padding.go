package wgsl

import (
	"slices"
	"strconv"
	"strings"
)

// On OpenGL naga v22's GLSL writer ignores @size and @align: a struct's
// members are laid out as GLSL lays out the same members without them
// (llvmpipe read struct { a: u32, @size(16) b: u32, c: u32 }'s c at byte
// 8, not 20). So there each struct whose attributes move a member or
// change its size loses those attributes and gets explicit u32 padding
// members, named after the helpers' prefix, where the attributes put
// space: before each member the attributes moved, and at the end up to
// the struct's WGSL size. Every member then sits at its WGSL offset under
// both layouts, nested structs and arrays of structs included, since each
// struct's size becomes its WGSL size. A struct built with a constructor
// taking arguments cannot gain members, so a module that would need to
// pad one is refused with an *Error naming it.

// naturalAlign is the alignment GLSL gives t: WGSL's, except that @align
// attributes inside a struct do not count.
func (c *checker) naturalAlign(t *wtype) uint64 {
	switch t.kind {
	case typeArray:
		return c.naturalAlign(t.elem)
	case typeStruct:
		d, ok := c.m.names[t.name].(*structDecl)
		if !ok {
			return t.align
		}
		a := uint64(1)
		for _, m := range d.members {
			mt, err := c.resolveType(m.typ, false)
			if err != nil {
				return t.align
			}
			a = max(a, c.naturalAlign(mt))
		}
		return a
	}
	return t.align
}

// padStructs records the padding of every struct that needs it (OpenGL
// only); constructed lists the structs the module builds from arguments.
func (l *lowerer) padStructs(constructed map[*structDecl]bool) error {
	c := l.c
	for _, d := range c.m.structs() {
		if !hasLayoutAttrs(d) {
			continue
		}
		st, err := c.structType(d)
		if err != nil || st.size%4 != 0 {
			continue // reported elsewhere, or f16, which naga v22 refuses
		}
		var edits []edit
		pads := 0
		padText := func(bytes uint64) string {
			var b strings.Builder
			for range bytes / 4 {
				c.helpers.choosePrefix(c.m.src)
				b.WriteString(c.helpers.prefix + "pad" + strconv.Itoa(pads) + ": u32, ")
				pads++
			}
			return b.String()
		}
		var wgslEnd, glslEnd uint64
		last := d.members[len(d.members)-1]
		for _, m := range d.members {
			mt, err := c.resolveType(m.typ, false)
			if err != nil {
				return nil
			}
			align, size := mt.align, mt.size
			start := m.pos
			for _, a := range m.attrs {
				start = min(start, a.pos)
				switch a.name {
				case "align", "size":
					n, err := c.attrUint(a, "@"+a.name, false)
					if err != nil {
						return nil
					}
					if a.name == "align" {
						align = uint64(n)
					} else {
						size = uint64(n)
					}
					edits = append(edits, edit{a.pos, a.end, keepLines(c.m.src[a.pos:a.end], "")})
				}
			}
			offset := roundUp(align, wgslEnd)
			if at := roundUp(c.naturalAlign(mt), glslEnd); at < offset {
				edits = append(edits, edit{start, start, padText(offset - glslEnd)})
			}
			wgslEnd, glslEnd = offset+size, offset+mt.size
		}
		if lt, err := c.resolveType(last.typ, false); err == nil && lt.fixed && glslEnd < st.size {
			end := exprEnd(last.typ)
			edits = append(edits, edit{end, end, ", " + strings.TrimSuffix(padText(st.size-glslEnd), ", ")})
		}
		if pads > 0 && constructed[d] {
			return c.errorf(d.pos, "struct %s places members with @size or @align, which the OpenGL backend's compiler (naga v22's GLSL writer) ignores; "+
				"softgraph pads such a struct with members of its own, but this module builds %s with a constructor, which the padding would break: "+
				"add explicit padding members instead of @size and @align, or assign the members one by one", d.name, d.name)
		}
		c.edits = append(c.edits, edits...)
	}
	return nil
}

// structs lists the module's structs in source order.
func (m *module) structs() []*structDecl {
	var out []*structDecl
	for _, d := range m.names {
		if s, ok := d.(*structDecl); ok {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *structDecl) int { return a.pos - b.pos })
	return out
}

func hasLayoutAttrs(d *structDecl) bool {
	for _, m := range d.members {
		if attr(m.attrs, "size") != nil || attr(m.attrs, "align") != nil {
			return true
		}
	}
	return false
}
