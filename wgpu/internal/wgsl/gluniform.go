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
