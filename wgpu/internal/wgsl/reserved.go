package wgsl

// nagaReserved are words the bundled compiler (naga v22) refuses as names
// although WGSL lets a module use them: its list of reserved words predates
// the specification's current one and adds some of HLSL's. (It also refuses
// the predeclared type names, vec2, f32, array and so on, as names; WGSL
// allows shadowing them, but a module that does is rare and renaming a
// type's spelling is not safe, so those stay refused.)
var nagaReserved = map[string]bool{
	"handle": true, "inout": true, "signed": true,
	"CompileShader": true, "ComputeShader": true, "DomainShader": true, "GeometryShader": true, "Hullshader": true,
}

// renameReserved records, for every identifier token spelled as one of
// nagaReserved, an edit that gives it the helpers' prefix, so the module
// reads the same to naga under names it accepts: every use of a name is
// one such token (declarations, references, members after '.'), so all of
// them change together. It returns the entry point's name as naga will
// see it.
func (c *checker) renameReserved(entry string) (string, error) {
	toks, err := scan(c.m.src)
	if err != nil {
		return entry, err
	}
	for _, t := range toks {
		if t.kind != tokIdent || !nagaReserved[c.m.src[t.pos:t.end]] {
			continue
		}
		c.helpers.choosePrefix(c.m.src)
		c.edits = append(c.edits, edit{t.pos, t.end, c.helpers.prefix + c.m.src[t.pos:t.end]})
	}
	if nagaReserved[entry] {
		c.helpers.choosePrefix(c.m.src)
		entry = c.helpers.prefix + entry
	}
	return entry, nil
}
