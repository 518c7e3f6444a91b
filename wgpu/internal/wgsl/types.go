package wgsl

import (
	"math/bits"
	"strings"
)

// typeKind classifies a resolved type.
type typeKind uint8

const (
	typeScalar typeKind = iota + 1
	typeVec
	typeMat
	typeArray
	typeAtomic
	typeStruct
	typePtr
	typeTexture
	typeStorageTexture
	typeSampler
	typeExternalTexture
)

// wtype is a resolved WGSL type with its memory layout (WGSL § "Memory
// Layout"). Types without a layout (pointers, textures, samplers) have
// size and align 0.
type wtype struct {
	kind   typeKind
	scalar scalar // scalar, vector or matrix component; atomic's type
	// count is a vector's width, a matrix's rows, an array's element count
	// (0 for a runtime-sized array).
	count uint64
	cols  uint64 // matrix columns
	elem  *wtype // array element
	name  string // struct name

	size, align uint64 // SizeOf and AlignOf; a runtime-sized array counts one element
	// fixed: the type has a creation-fixed footprint (no runtime-sized array).
	fixed bool
	// shareable: host-shareable, i.e. laid out in memory and free of bool.
	shareable bool
	// atomic: the type is or holds an atomic, which WGSL allows only in
	// workgroup variables and read_write storage.
	atomic bool

	dim          TextureDim
	sample       SampleType
	multisampled bool
	format       string
	access       Access
	comparison   bool // sampler_comparison
}

// maxTypeSize bounds every size computed here so arithmetic on sizes never
// overflows; WebGPU's own limits are far below it.
const maxTypeSize = 1 << 62

func scalarType(k scalar) *wtype {
	t := &wtype{kind: typeScalar, scalar: k, size: 4, align: 4, fixed: true, shareable: k != scalarBool}
	if k == scalarF16 {
		t.size, t.align = 2, 2
	}
	return t
}

// vecType lays out vecN<T>: vec3 aligns like vec4 (WGSL § "Alignment and
// Size").
func vecType(n uint64, k scalar) *wtype {
	s := scalarType(k)
	t := &wtype{kind: typeVec, scalar: k, count: n, size: n * s.size, align: 4 * s.size, fixed: true, shareable: s.shareable}
	if n == 2 {
		t.align = 2 * s.size
	}
	return t
}

// matType lays out matCxR<T> as an array of C column vectors.
func matType(cols, rows uint64, k scalar) *wtype {
	col := vecType(rows, k)
	return &wtype{kind: typeMat, scalar: k, count: rows, cols: cols, size: cols * roundUp(col.align, col.size), align: col.align, fixed: true, shareable: true}
}

func roundUp(k, n uint64) uint64 { return (n + k - 1) / k * k }

// mulSize multiplies two sizes; false past maxTypeSize.
func mulSize(a, b uint64) (uint64, bool) {
	hi, lo := bits.Mul64(a, b)
	return lo, hi == 0 && lo <= maxTypeSize
}

var scalarNames = map[string]scalar{"bool": scalarBool, "i32": scalarI32, "u32": scalarU32, "f32": scalarF32, "f16": scalarF16}

// aliasSuffix maps the suffix of predeclared aliases (vec3f, mat4x4h) to
// their component.
var aliasSuffix = map[byte]scalar{'i': scalarI32, 'u': scalarU32, 'f': scalarF32, 'h': scalarF16}

var textureDims = map[string]TextureDim{
	"1d": Dim1D, "2d": Dim2D, "2d_array": Dim2DArray, "3d": Dim3D, "cube": DimCube, "cube_array": DimCubeArray,
}

// texelFormats are WGSL's storage texel formats, with those of the
// texture-formats-tier1 extension.
var texelFormats = map[string]bool{
	"rgba8unorm": true, "rgba8snorm": true, "rgba8uint": true, "rgba8sint": true,
	"rgba16uint": true, "rgba16sint": true, "rgba16float": true,
	"r32uint": true, "r32sint": true, "r32float": true,
	"rg32uint": true, "rg32sint": true, "rg32float": true,
	"rgba32uint": true, "rgba32sint": true, "rgba32float": true, "bgra8unorm": true,
	"r8unorm": true, "r8snorm": true, "r8uint": true, "r8sint": true,
	"rg8unorm": true, "rg8snorm": true, "rg8uint": true, "rg8sint": true,
	"r16unorm": true, "r16snorm": true, "r16uint": true, "r16sint": true, "r16float": true,
	"rg16unorm": true, "rg16snorm": true, "rg16uint": true, "rg16sint": true, "rg16float": true,
	"rgba16unorm": true, "rgba16snorm": true,
	"rgb10a2uint": true, "rgb10a2unorm": true, "rg11b10ufloat": true,
}

var accessModes = map[string]Access{"read": AccessRead, "write": AccessWrite, "read_write": AccessReadWrite}

// resolveType resolves a type expression. overrides allows the element
// count of an outermost array to be an override-expression, which WGSL
// permits only in the store type of a var<workgroup>.
func (c *checker) resolveType(e expr, overrides bool) (*wtype, error) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxCheckDepth {
		return nil, c.errorf(e.exprPos(), "types nest too deeply")
	}
	id, ok := e.(*identExpr)
	if !ok {
		return nil, c.errorf(e.exprPos(), "expected a type, found the expression %s", format(e))
	}
	if d := c.m.names[id.name]; d != nil {
		if id.tmpl != nil {
			return nil, c.errorf(id.pos, "%s takes no template arguments", id.name)
		}
		switch d := d.(type) {
		case *structDecl:
			return c.structType(d)
		case *aliasDecl:
			return c.aliasType(d, overrides)
		}
		return nil, c.errorf(id.pos, "%s is %s, not a type", id.name, describe(d))
	}
	return c.predeclaredType(id, overrides)
}

// typeArity checks that the predeclared type id has lo to hi template
// arguments.
func (c *checker) typeArity(id *identExpr, lo, hi int) error {
	name, args := id.name, id.tmpl
	switch {
	case len(args) >= lo && len(args) <= hi:
		return nil
	case hi == 0:
		return c.errorf(id.pos, "%s takes no template arguments", name)
	case len(args) == 0:
		return c.errorf(id.pos, "%s needs template arguments, as in %s<f32>", name, name)
	}
	return c.errorf(id.pos, "%s takes %d to %d template arguments, not %d", name, lo, hi, len(args))
}

// typeComponent resolves e, a template argument of the predeclared type id,
// to one of the scalars allowed there.
func (c *checker) typeComponent(id *identExpr, e expr, allowed ...scalar) (scalar, error) {
	t, err := c.resolveType(e, false)
	if err != nil {
		return 0, err
	}
	if t.kind == typeScalar {
		for _, k := range allowed {
			if t.scalar == k {
				return k, nil
			}
		}
	}
	return 0, c.errorf(e.exprPos(), "%s is not a valid component type for %s", format(e), id.name)
}

// predeclaredType resolves id, which names no declaration of the module:
// a predeclared type or alias, with its template arguments.
func (c *checker) predeclaredType(id *identExpr, overrides bool) (*wtype, error) {
	name, args := id.name, id.tmpl
	if k, ok := scalarNames[name]; ok {
		if err := c.typeArity(id, 0, 0); err != nil {
			return nil, err
		}
		return scalarType(k), nil
	}
	// vecN, vecN<T> aliases, matCxR, matCxR<T> aliases.
	if n, k, ok := vecName(name); ok {
		return c.resolveVec(id, n, k)
	}
	if cols, rows, k, ok := matName(name); ok {
		return c.resolveMat(id, cols, rows, k)
	}
	switch name {
	case "array":
		return c.arrayType(id, overrides)
	case "atomic":
		if err := c.typeArity(id, 1, 1); err != nil {
			return nil, err
		}
		k, err := c.typeComponent(id, args[0], scalarI32, scalarU32)
		if err != nil {
			return nil, err
		}
		return &wtype{kind: typeAtomic, scalar: k, size: 4, align: 4, fixed: true, shareable: true, atomic: true}, nil
	case "ptr":
		if err := c.typeArity(id, 2, 3); err != nil {
			return nil, err
		}
		return &wtype{kind: typePtr}, nil
	case "sampler", "sampler_comparison":
		if err := c.typeArity(id, 0, 0); err != nil {
			return nil, err
		}
		return &wtype{kind: typeSampler, comparison: name == "sampler_comparison"}, nil
	case "texture_external":
		if err := c.typeArity(id, 0, 0); err != nil {
			return nil, err
		}
		return &wtype{kind: typeExternalTexture}, nil
	}
	if strings.HasPrefix(name, "texture_") {
		return c.textureType(id)
	}
	return nil, c.errorf(id.pos, "unknown type %s", name)
}

// resolveVec resolves id, vecN (n components) with its component type as
// a template argument, or an alias such as vec3f (k its component).
func (c *checker) resolveVec(id *identExpr, n uint64, k scalar) (*wtype, error) {
	if k != 0 {
		if err := c.typeArity(id, 0, 0); err != nil {
			return nil, err
		}
		return vecType(n, k), nil
	}
	if err := c.typeArity(id, 1, 1); err != nil {
		return nil, err
	}
	k, err := c.typeComponent(id, id.tmpl[0], scalarBool, scalarI32, scalarU32, scalarF32, scalarF16)
	if err != nil {
		return nil, err
	}
	return vecType(n, k), nil
}

// resolveMat resolves id, matCxR with its component type as a template
// argument, or an alias such as mat4x4f (k its component).
func (c *checker) resolveMat(id *identExpr, cols, rows uint64, k scalar) (*wtype, error) {
	if k != 0 {
		if err := c.typeArity(id, 0, 0); err != nil {
			return nil, err
		}
		return matType(cols, rows, k), nil
	}
	if err := c.typeArity(id, 1, 1); err != nil {
		return nil, err
	}
	k, err := c.typeComponent(id, id.tmpl[0], scalarF32, scalarF16)
	if err != nil {
		return nil, err
	}
	return matType(cols, rows, k), nil
}

// textureType resolves id, a texture type other than texture_external:
// sampled, depth or storage.
func (c *checker) textureType(id *identExpr) (*wtype, error) {
	name, args := id.name, id.tmpl
	if rest, ok := strings.CutPrefix(name, "texture_depth_"); ok {
		t := &wtype{kind: typeTexture, sample: SampleDepth}
		if rest == "multisampled_2d" {
			t.dim, t.multisampled = Dim2D, true
		} else if d := textureDims[rest]; d == Dim2D || d == Dim2DArray || d == DimCube || d == DimCubeArray {
			t.dim = d
		} else {
			return nil, c.errorf(id.pos, "unknown type %s", name)
		}
		return t, c.typeArity(id, 0, 0)
	}
	if rest, ok := strings.CutPrefix(name, "texture_storage_"); ok {
		return c.storageTextureType(id, rest)
	}
	rest := strings.TrimPrefix(name, "texture_")
	t := &wtype{kind: typeTexture}
	if rest == "multisampled_2d" {
		t.dim, t.multisampled = Dim2D, true
	} else if t.dim = textureDims[rest]; t.dim == 0 {
		return nil, c.errorf(id.pos, "unknown type %s", name)
	}
	if err := c.typeArity(id, 1, 1); err != nil {
		return nil, err
	}
	k, err := c.typeComponent(id, args[0], scalarF32, scalarI32, scalarU32)
	if err != nil {
		return nil, err
	}
	t.sample = map[scalar]SampleType{scalarF32: SampleFloat, scalarI32: SampleSint, scalarU32: SampleUint}[k]
	return t, nil
}

// storageTextureType resolves id, texture_storage_ followed by rest, with
// its texel format and access mode.
func (c *checker) storageTextureType(id *identExpr, rest string) (*wtype, error) {
	name, args := id.name, id.tmpl
	d := textureDims[rest]
	if d == 0 || d == DimCube || d == DimCubeArray {
		return nil, c.errorf(id.pos, "unknown type %s", name)
	}
	if err := c.typeArity(id, 2, 2); err != nil {
		return nil, err
	}
	t := &wtype{kind: typeStorageTexture, dim: d}
	f, ok := args[0].(*identExpr)
	if !ok || f.tmpl != nil || !texelFormats[f.name] {
		return nil, c.errorf(args[0].exprPos(), "%s is not a storage texel format", format(args[0]))
	}
	a, ok := args[1].(*identExpr)
	if !ok || a.tmpl != nil || accessModes[a.name] == 0 {
		return nil, c.errorf(args[1].exprPos(), "%s is not an access mode (read, write or read_write)", format(args[1]))
	}
	t.format, t.access = f.name, accessModes[a.name]
	return t, nil
}

// vecName recognises vec2..vec4 (k == 0) and their predeclared aliases.
func vecName(name string) (n uint64, k scalar, ok bool) {
	if len(name) < 4 || name[:3] != "vec" || name[3] < '2' || name[3] > '4' {
		return 0, 0, false
	}
	n = uint64(name[3] - '0')
	switch len(name) {
	case 4:
		return n, 0, true
	case 5:
		k, ok = aliasSuffix[name[4]]
		return n, k, ok
	}
	return 0, 0, false
}

// matName recognises mat2x2..mat4x4 (k == 0) and the f and h aliases.
func matName(name string) (cols, rows uint64, k scalar, ok bool) {
	if len(name) < 6 || name[:3] != "mat" || name[4] != 'x' {
		return 0, 0, 0, false
	}
	if name[3] < '2' || name[3] > '4' || name[5] < '2' || name[5] > '4' {
		return 0, 0, 0, false
	}
	cols, rows = uint64(name[3]-'0'), uint64(name[5]-'0')
	switch {
	case len(name) == 6:
		return cols, rows, 0, true
	case len(name) == 7 && (name[6] == 'f' || name[6] == 'h'):
		return cols, rows, aliasSuffix[name[6]], true
	}
	return 0, 0, 0, false
}

func (c *checker) arrayType(id *identExpr, overrides bool) (*wtype, error) {
	if len(id.tmpl) < 1 || len(id.tmpl) > 2 {
		return nil, c.errorf(id.pos, "array takes an element type and an optional element count")
	}
	elem, err := c.resolveType(id.tmpl[0], false)
	if err != nil {
		return nil, err
	}
	if elem.size == 0 || !elem.fixed {
		return nil, c.errorf(id.tmpl[0].exprPos(), "array element type %s does not have a fixed size", format(id.tmpl[0]))
	}
	stride := roundUp(elem.align, elem.size)
	t := &wtype{kind: typeArray, elem: elem, align: elem.align, size: stride, shareable: elem.shareable, atomic: elem.atomic}
	if len(id.tmpl) == 1 {
		return t, nil // runtime-sized: SizeOf counts one element
	}
	e := id.tmpl[1]
	v, err := c.eval(e, overrides)
	if err != nil {
		return nil, err
	}
	if !v.kind.isInt() || v.i <= 0 {
		return nil, c.errorf(e.exprPos(), "array element count must be a positive integer; %s is %s", format(e), v)
	}
	if v.kind == scalarAbstractInt && v.i > 0xFFFFFFFF {
		return nil, c.errorf(e.exprPos(), "array element count %d does not fit in u32", v.i)
	}
	t.count, t.fixed = uint64(v.i), true
	var ok bool
	if t.size, ok = mulSize(stride, t.count); !ok {
		return nil, c.errorf(id.pos, "%s is too large", format(id))
	}
	return t, nil
}

func (c *checker) aliasType(d *aliasDecl, overrides bool) (*wtype, error) {
	key := typeKey{d, overrides}
	if t := c.types[key]; t != nil {
		return t, nil
	}
	if err, ok := c.failed[d]; ok {
		return nil, err
	}
	if c.busy[key] {
		return nil, c.errorf(d.pos, "alias %s refers to itself", d.name)
	}
	c.busy[key] = true
	t, err := c.resolveType(d.typ, overrides)
	delete(c.busy, key)
	if err != nil {
		c.failed[d] = err
		return nil, err
	}
	c.types[key] = t
	return t, nil
}

// structType lays out a struct (WGSL § "Structure Member Layout"): each
// member at the next multiple of its alignment (@align overrides AlignOf),
// taking its size (@size overrides SizeOf); the struct's alignment is its
// largest member's, and its size rounds up to that alignment.
func (c *checker) structType(d *structDecl) (*wtype, error) {
	key := typeKey{d: d}
	if t := c.types[key]; t != nil {
		return t, nil
	}
	if err, ok := c.failed[d]; ok {
		return nil, err
	}
	if c.busy[key] {
		return nil, c.errorf(d.pos, "struct %s contains itself", d.name)
	}
	c.busy[key] = true
	t, err := c.layoutStruct(d)
	delete(c.busy, key)
	if err != nil {
		c.failed[d] = err
		return nil, err
	}
	c.types[key] = t
	return t, nil
}

func (c *checker) layoutStruct(d *structDecl) (*wtype, error) {
	t := &wtype{kind: typeStruct, name: d.name, align: 1, fixed: true, shareable: true}
	var offset uint64
	for i, m := range d.members {
		mt, err := c.resolveType(m.typ, false)
		if err != nil {
			return nil, err
		}
		if mt.size == 0 {
			return nil, c.errorf(m.typ.exprPos(), "member %s of struct %s has type %s, which cannot be stored in a struct", m.name, d.name, format(m.typ))
		}
		if !mt.fixed {
			if i != len(d.members)-1 {
				return nil, c.errorf(m.pos, "member %s of struct %s is runtime-sized, so it must be the last member", m.name, d.name)
			}
			t.fixed = false
		}
		t.shareable = t.shareable && mt.shareable
		t.atomic = t.atomic || mt.atomic
		align, size := mt.align, mt.size
		if a := attr(m.attrs, "align"); a != nil {
			n, err := c.attrUint(a, "@align", false)
			if err != nil {
				return nil, err
			}
			if n == 0 || n&(n-1) != 0 {
				return nil, c.errorf(a.pos, "@align(%d) on member %s must be a positive power of two", n, m.name)
			}
			align = uint64(n)
		}
		if a := attr(m.attrs, "size"); a != nil {
			n, err := c.attrUint(a, "@size", false)
			if err != nil {
				return nil, err
			}
			if !mt.fixed {
				return nil, c.errorf(a.pos, "@size does not apply to the runtime-sized member %s", m.name)
			}
			if uint64(n) < mt.size {
				return nil, c.errorf(a.pos, "@size(%d) on member %s is less than SizeOf(%s) = %d", n, m.name, format(m.typ), mt.size)
			}
			size = uint64(n)
		}
		offset = roundUp(align, offset) + size
		if offset > maxTypeSize {
			return nil, c.errorf(d.pos, "struct %s is too large", d.name)
		}
		t.align = max(t.align, align)
	}
	t.size = roundUp(t.align, offset)
	return t, nil
}
