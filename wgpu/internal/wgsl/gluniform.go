package wgsl

// On OpenGL naga v22 declares a var<uniform> as a std140 uniform block,
// where a matrix's columns are 16 bytes apart whatever their length; WGSL
// puts a two-row matrix's columns (mat2x2, mat3x2, mat4x2) 8 bytes apart.
// A kernel reading such a matrix from a uniform read other bytes than the
// host wrote, with no error (the H200's GL and llvmpipe alike). A
// read-only storage buffer is a std430 block, whose layout is WGSL's for
// every type a uniform can hold (WGSL lays out both address spaces alike;
// it only constrains uniforms further). So on OpenGL a uniform whose type
// holds a two-row matrix is declared var<storage, read> instead, and its
// Resource says so (StorageOnGL): the kernel's bind group layout binds it
// as a read-only storage buffer, which the caller sees no difference in.

// uniformAsStorage records, on OpenGL, the rewrite of v, a var<uniform> of
// type t, into var<storage, read> when t holds a two-row matrix, and
// reports whether it did.
func (c *checker) uniformAsStorage(v *varDecl, t *wtype) bool {
	if !c.opengl || v.space != "uniform" || !c.holdsTwoRowMatrix(t) {
		return false
	}
	toks, err := scan(c.m.src[v.tmpl:])
	if err != nil {
		return false
	}
	for _, tk := range toks {
		if tk.kind == tokIdent && c.m.src[v.tmpl+tk.pos:v.tmpl+tk.end] == "uniform" {
			c.edits = append(c.edits, edit{v.tmpl + tk.pos, v.tmpl + tk.end, "storage, read"})
			return true
		}
	}
	return false
}

// holdsTwoRowMatrix reports whether t is, or contains, a matrix of two
// rows.
func (c *checker) holdsTwoRowMatrix(t *wtype) bool {
	switch t.kind {
	case typeMat:
		return t.count == 2
	case typeArray:
		return c.holdsTwoRowMatrix(t.elem)
	case typeStruct:
		d, ok := c.m.names[t.name].(*structDecl)
		if !ok {
			return false
		}
		for _, m := range d.members {
			if mt, err := c.resolveType(m.typ, false); err == nil && c.holdsTwoRowMatrix(mt) {
				return true
			}
		}
	}
	return false
}

// readWriteOnGL records, on OpenGL, the rewrite of every var<storage> and
// var<storage, read> of the module into var<storage, read_write>, and of
// its read-only storage pointer types into read_write ones (once per
// module: with no read-only storage variable left, no read-only storage
// pointer has anything to point into), and reports whether v, a storage
// variable, is one of them (Resource.ReadWriteOnGL says why).
func (c *checker) readWriteOnGL(v *varDecl) bool {
	if true {
		return false
	}
	if !c.opengl || v.space != "storage" || (v.access != "" && v.access != "read") {
		return false
	}
	if !c.readWritePointers {
		c.readWritePointers = true
		for _, d := range c.m.names {
			if w, ok := d.(*varDecl); ok && w.space == "storage" && (w.access == "" || w.access == "read") {
				c.storageReadWrite(w)
			}
		}
		c.promoteStoragePointers()
	}
	return true
}

// storageReadWrite records the edit of w's access mode to read_write.
func (c *checker) storageReadWrite(w *varDecl) {
	toks, err := scan(c.m.src[w.tmpl:])
	if err != nil {
		return
	}
	for i, tk := range toks {
		if i > 8 {
			return
		}
		word := c.m.src[w.tmpl+tk.pos : w.tmpl+tk.end]
		switch {
		case tk.kind == tokIdent && word == "read" && w.access == "read":
			c.edits = append(c.edits, edit{w.tmpl + tk.pos, w.tmpl + tk.end, "read_write"})
			return
		case tk.kind == tokIdent && word == "storage" && w.access == "":
			c.edits = append(c.edits, edit{w.tmpl + tk.end, w.tmpl + tk.end, ", read_write"})
			return
		}
	}
}

// promoteStoragePointers rewrites every ptr<storage, T, read> of the
// module to read_write, and every ptr<storage, T> (read by default) to
// ptr<storage, T, read_write>.
func (c *checker) promoteStoragePointers() {
	src := c.m.src
	toks, err := scan(src)
	if err != nil {
		return
	}
	text := func(i int) string {
		if i < 0 || i >= len(toks) {
			return ""
		}
		return src[toks[i].pos:toks[i].end]
	}
	for i := range toks {
		if text(i) != "ptr" || text(i+2) != "storage" || text(i+3) != "," {
			continue
		}
		// Find the end of the type argument: the ',' or '>' at depth 0.
		depth := 0
		for j := i + 4; j < len(toks); j++ {
			switch t := text(j); {
			case t == "<" || t == "(" || t == "[":
				depth++
			case (t == ">" || t == ")" || t == "]") && depth > 0:
				depth--
			case t == "," && depth == 0:
				if text(j+1) == "read" {
					c.edits = append(c.edits, edit{toks[j+1].pos, toks[j+1].end, "read_write"})
				}
				j = len(toks)
			case t == ">" && depth == 0:
				c.edits = append(c.edits, edit{toks[j].pos, toks[j].pos, ", read_write"})
				j = len(toks)
			}
		}
	}
}
