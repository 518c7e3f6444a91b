package wgsl

import (
	"math"
	"strconv"
)

// ty is a type as the lowering sees it; nil means "not known", and nothing
// is converted on the strength of an unknown type.
type ty struct {
	kind   typeKind
	scalar scalar // scalar, vector, matrix or atomic component; texel type of textures
	n      int    // vector width, matrix rows, array count (0: runtime-sized)
	cols   int
	elem   *ty // array element, pointer's store type
	st     *structDecl
	fields []field // the result structs of builtins (atomicCompareExchangeWeak, modf, frexp)
	depth  bool    // depth texture
	// arrayed: a texture_*_array, whose calls take an array index.
	arrayed bool
}

type field struct {
	name string
	t    *ty
}

func scalarTy(k scalar) *ty { return &ty{kind: typeScalar, scalar: k} }

func vecTy(n int, k scalar) *ty { return &ty{kind: typeVec, n: n, scalar: k} }

// leaf is the scalar at the bottom of t (0 when t has none).
func leaf(t *ty) scalar {
	for t != nil && t.kind == typeArray {
		t = t.elem
	}
	if t == nil {
		return 0
	}
	switch t.kind {
	case typeScalar, typeVec, typeMat, typeAtomic:
		return t.scalar
	}
	return 0
}

func abstractTy(t *ty) bool { return leaf(t).abstract() }

// withLeaf is t with its bottom scalar replaced by k.
func withLeaf(t *ty, k scalar) *ty {
	if t == nil {
		return nil
	}
	u := *t
	if u.kind == typeArray {
		u.elem = withLeaf(t.elem, k)
		return &u
	}
	u.scalar = k
	return &u
}

// concrete is t with an abstract bottom scalar given its default type.
func concrete(t *ty) *ty {
	switch leaf(t) {
	case scalarAbstractInt:
		return withLeaf(t, scalarI32)
	case scalarAbstractFloat:
		return withLeaf(t, scalarF32)
	}
	return t
}

func deref(t *ty) *ty {
	if t != nil && t.kind == typePtr {
		return t.elem
	}
	return t
}

// typeText is the WGSL spelling of concrete type t: a scalar, vector,
// matrix, atomic, struct or fixed-size array of those; "" for any other
// type, an unknown or abstract one, or one whose spelling the module
// redeclares (alias u32 = ..., or a struct's name shadowed).
func (l *lowerer) typeText(t *ty) string {
	if t == nil {
		return ""
	}
	predeclared := func(name string) string {
		if l.c.m.names[name] != nil {
			return ""
		}
		return name
	}
	elem := func(k scalar) string {
		switch k {
		case scalarBool, scalarI32, scalarU32, scalarF32, scalarF16:
			return predeclared(k.String())
		}
		return ""
	}
	switch t.kind {
	case typeScalar:
		return elem(t.scalar)
	case typeVec, typeMat, typeAtomic:
		e := elem(t.scalar)
		name := "atomic"
		switch t.kind {
		case typeVec:
			name = "vec" + strconv.Itoa(t.n)
		case typeMat:
			name = "mat" + strconv.Itoa(t.cols) + "x" + strconv.Itoa(t.n)
		}
		if e == "" || predeclared(name) == "" {
			return ""
		}
		return name + "<" + e + ">"
	case typeStruct:
		if t.st == nil || l.c.m.names[t.st.name] != decl(t.st) {
			return ""
		}
		return t.st.name
	case typeArray:
		e := l.typeText(t.elem)
		if e == "" || t.n <= 0 || predeclared("array") == "" {
			return ""
		}
		return "array<" + e + ", " + strconv.Itoa(t.n) + ">"
	}
	return ""
}

// resolve is the type a type expression names, recording the rewrite of
// array counts written as expressions; nil when unknown.
func (l *lowerer) resolve(e expr) *ty {
	id, ok := e.(*identExpr)
	if !ok || id == nil {
		return nil
	}
	if l.lookup(id.name) != nil {
		return nil
	}
	switch d := l.c.m.names[id.name].(type) {
	case *structDecl:
		return &ty{kind: typeStruct, st: d}
	case *aliasDecl:
		l.c.depth++ // an alias cycle is an error reported elsewhere; depth bounds it here
		defer func() { l.c.depth-- }()
		if l.c.depth > maxCheckDepth {
			return nil
		}
		return l.resolve(d.typ)
	case nil:
		return l.resolvePredeclared(id.name, id.tmpl)
	}
	return nil
}

// resolvePredeclared is the type that predeclared type name with template
// arguments args names; nil when unknown.
func (l *lowerer) resolvePredeclared(name string, args []expr) *ty {
	if k, ok := scalarNames[name]; ok {
		return scalarTy(k)
	}
	if n, k, ok := vecName(name); ok {
		if k == 0 && len(args) == 1 {
			k = leaf(l.resolve(args[0]))
			l.spellScalarAlias(args[0], k)
		}
		return vecTy(int(n), k)
	}
	if cols, rows, k, ok := matName(name); ok {
		if k == 0 && len(args) == 1 {
			k = leaf(l.resolve(args[0]))
			l.spellScalarAlias(args[0], k)
		}
		return &ty{kind: typeMat, n: int(rows), cols: int(cols), scalar: k}
	}
	switch name {
	case "array":
		return l.resolveArray(args)
	case "atomic":
		if len(args) == 1 {
			k := leaf(l.resolve(args[0]))
			l.spellScalarAlias(args[0], k)
			return &ty{kind: typeAtomic, scalar: k}
		}
	case "ptr":
		if len(args) >= 2 {
			return &ty{kind: typePtr, elem: l.resolve(args[1])}
		}
	case "sampler", "sampler_comparison":
		return &ty{kind: typeSampler}
	}
	return l.resolveTexture(name, args)
}

// spellScalarAlias records that arg, a vector's, matrix's or atomic's
// component type written as an alias of scalar k (alias Real = f32;
// vec4<Real>), be spelled k: naga v22 reads that template argument as a
// predeclared scalar name only ("unknown scalar type: 'Real'"). Left as
// written where the module redeclares k's own name.
func (l *lowerer) spellScalarAlias(arg expr, k scalar) {
	id, ok := arg.(*identExpr)
	if !ok || l.lookup(id.name) != nil {
		return
	}
	if _, alias := l.c.m.names[id.name].(*aliasDecl); !alias {
		return
	}
	switch k {
	case scalarBool, scalarI32, scalarU32, scalarF32, scalarF16:
		if l.c.m.names[k.String()] == nil {
			l.c.subst[id.pos] = edit{id.pos, id.end, k.String()}
		}
	}
}

// resolveArray is the type array<args...> names, recording the rewrite of
// an element count written as an expression.
func (l *lowerer) resolveArray(args []expr) *ty {
	if len(args) == 0 {
		return nil
	}
	t := &ty{kind: typeArray, elem: l.resolve(args[0])}
	if len(args) == 2 {
		if v, err := l.c.eval(args[1], true); err == nil && v.kind.isInt() {
			t.n = int(min(v.i, math.MaxInt32))
			// naga v22 reads a literal or a module-scope name there, not
			// an expression; a function-scope const is replaced anyway.
			switch n := args[1].(type) {
			case *litExpr:
			case *identExpr:
				if loc := l.lookup(n.name); loc != nil && loc.val != nil {
					l.c.subst[n.pos] = edit{n.pos, n.end, literalText(v)}
				}
			default:
				l.c.edits = append(l.c.edits, edit{n.exprPos(), exprEnd(n), literalText(v)})
			}
		}
	}
	return t
}

func (l *lowerer) resolveMember(e expr) *ty {
	saved := l.scopes
	l.scopes = nil
	defer func() { l.scopes = saved }()
	return l.resolve(e)
}

// elemScalarName spells scalar k (u32 or f32).
func elemScalarName(k scalar) string {
	if k == scalarU32 {
		return "u32"
	}
	return "f32"
}

// integerTypeName is the WGSL spelling of concrete i32 or u32 scalar or
// vector t, or "".
func integerTypeName(t *ty) string {
	elem, n, ok := intElem(t)
	if !ok {
		return ""
	}
	if n == 1 {
		return elemNames[elem]
	}
	return "vec" + strconv.Itoa(n) + "<" + elemNames[elem] + ">"
}

// scalarOf is the component type of a vector (or the scalar itself).
func scalarOf(t *ty) *ty {
	if t == nil || t.scalar == 0 {
		return nil
	}
	return scalarTy(t.scalar)
}
