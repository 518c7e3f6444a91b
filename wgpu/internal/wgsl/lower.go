package wgsl

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Lowering: the part of the rewrite that spells out what WGSL leaves
// implicit and naga v22 cannot infer. naga v22 gives an unsuffixed integer
// literal the type i32 wherever the context does not convert it itself,
// and it converts in binary operators and typed constructors only; so
// `c[0] = 1` (c an array<u32>), `atomicAdd(&n, 1)`, `case 1:` over a u32,
// `min(x, 5)`, `let y: f32 = 1`, `return 0` from an fn returning u32 and a
// u32 argument written `3` all fail there. lower types every function body
// far enough to find those contexts (WGSL § "Type Rules"; what it cannot
// type it leaves alone) and converts the abstract operand in place: a
// literal gets its suffix (1 → 1u) or its float spelling (1 → 1f), a
// constant of abstract type is replaced by its value in the needed type.
//
// It also removes constructs naga v22 does not parse whose meaning is
// plain: function-scope `const` (every use gets the value, the
// declaration goes; a constant the evaluator cannot compute becomes a
// `let`), array element counts and attribute arguments written as
// expressions (replaced by their value), and module-scope const
// initializers naga v22 cannot evaluate (builtins such as max).
//
// Every change is local to a literal, name or expression, so line numbers
// stay those of the author.

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

func scalarTy(k scalar) *ty     { return &ty{kind: typeScalar, scalar: k} }
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

// local is one function-scope name.
type local struct {
	t   *ty
	val *value // a const the evaluator computed: every use is replaced by it
	// part is set on a let bound to the address of part of a variable
	// (let p = &a[i]), which may not be passed to a function (call).
	part bool
	// let is the declaration of a let, or of a const made a let
	// (dynamicConstIndex).
	let *declStmt
	// param is set on a parameter passed by value (dynamicConstIndex).
	param *param
}

// lowerer lowers one function at a time.
type lowerer struct {
	c      *checker
	ret    *ty
	scopes []map[string]*local
	types  map[expr]*ty
	busy   map[*constDecl]bool
	// known holds the values of the operands of integer divisions that are
	// constants, and of those divisions, recorded while typing
	// (division.go); foldErr WGSL's error for such a division (by zero,
	// out of range); divErr is the first error the division rewrite found.
	known   map[expr]value
	foldErr map[expr]error
	divErr  error
	// ptrErr is the first pointer argument into part of a variable (call).
	ptrErr error
	// cmpxchg is where the function being lowered first calls
	// atomicCompareExchangeWeak on OpenGL (-1: it does not).
	cmpxchg int
	// dynConsts holds the module-scope consts indexed at run time, and
	// letVars the lets made vars for the same reason.
	dynConsts map[*constDecl]bool
	letVars   map[*declStmt]bool
	// fn is the function being lowered; paramVars holds its parameters
	// copied into vars (dynamicConstIndex).
	fn        *fnDecl
	paramVars map[*param]bool
	// wrapped holds the expressions wrapConversion converted.
	wrapped map[expr]bool
	// abstractCalls holds the builtin calls whose first argument is
	// abstract, whose helper (builtinHelper) waits for its type.
	abstractCalls map[*callExpr]bool
	// zeroVecs holds the untyped zero vectors (vec2()) whose zero literal
	// waits for the type the context converts them to (push), i32 else.
	zeroVecs map[*callExpr]bool
	// constructed holds the structs built by a constructor with arguments
	// (padding.go).
	constructed map[*structDecl]bool
	// inHelper is set while lowering a helper this rewrite appended
	// (isHelper), whose builtins stay as they are.
	inHelper bool
	// inConst is set while typing a module-scope const's initializer,
	// which must stay a constant expression: no helper calls there.
	inConst bool
	// spelled holds the abstract array constructors spellArray gave
	// their type.
	spelled map[*callExpr]bool
	// shifts holds the shifts of an abstract integer by an amount known
	// only at run time, whose left operand is i32 (runtimeShifts);
	// forceI32 makes convertText spell such an operand's literals i32.
	shifts   []*binaryExpr
	forceI32 bool
	// constShifts holds the shifts of an abstract integer by a constant
	// amount, with their values (runtimeShifts folds them).
	constShifts map[*binaryExpr]value
	// uniformLoads maps the declaration of each helper atomicUniformLoad
	// made, less its name, to that name.
	uniformLoads map[string]string
}

// lower records the lowering's edits for the whole module: every function
// goes to the compiler, not only those the entry point calls.
func (c *checker) lower() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Line: 1, Col: 1, Msg: fmt.Sprintf("internal error of the WGSL front-end while lowering: %v", r)}
		}
	}()
	l := &lowerer{c: c, types: map[expr]*ty{}, busy: map[*constDecl]bool{}, known: map[expr]value{}, foldErr: map[expr]error{}, constructed: map[*structDecl]bool{}, dynConsts: map[*constDecl]bool{}, letVars: map[*declStmt]bool{}, paramVars: map[*param]bool{}, abstractCalls: map[*callExpr]bool{}, zeroVecs: map[*callExpr]bool{}, wrapped: map[expr]bool{}, spelled: map[*callExpr]bool{}, constShifts: map[*binaryExpr]value{}}
	c.local = l.lookupConst
	defer func() { c.local = nil }()
	decls := slices.SortedFunc(maps.Values(c.m.names), func(a, b decl) int { return a.declPos() - b.declPos() })
	for _, d := range decls {
		switch d := d.(type) {
		case *structDecl:
			for _, m := range d.members {
				l.resolve(m.typ)
				l.attrArgs(m.attrs)
			}
		case *aliasDecl:
			l.resolve(d.typ)
		case *varDecl:
			l.attrArgs(d.attrs)
			t := l.resolve(d.typ)
			if d.init != nil {
				it := l.check(d.init)
				l.coerce(d.init, t)
				if d.typ == nil {
					// naga v22 wants a module-scope var's type written out
					// (var<private> seed = vec2(5u, 6u) fails with "expected
					// ':'"); WGSL gives it the initializer's concretized type.
					if text := l.typeText(concrete(it)); text != "" {
						c.inserts = append(c.inserts, insertion{at: d.pos + len(d.name), text: ": " + text})
						l.spellArray(d.init, concrete(it))
					}
				}
			}
		case *constDecl:
			if err := l.moduleConst(d); err != nil {
				return err
			}
		case *fnDecl:
			l.attrArgs(d.attrs)
		}
	}
	for _, f := range c.m.fns {
		l.inHelper = c.isHelper(f)
		l.cmpxchg = -1
		if err := l.function(f); err != nil {
			return err
		}
		if l.ptrErr != nil {
			return l.ptrErr
		}
		if l.cmpxchg >= 0 && slices.Contains(c.reached, f) {
			// naga v22's GLSL writer cannot declare the builtin's result
			// struct: pipeline creation failed with "Unable to write type
			// Struct { ... old_value ... exchanged ... }", which names
			// neither the builtin nor the line.
			return c.errorf(l.cmpxchg, "atomicCompareExchangeWeak on the OpenGL backend: the bundled compiler's GLSL writer cannot express its result (__atomic_compare_exchange_result); use another backend, or a loop of atomicMax/atomicMin/atomicExchange where the algorithm allows")
		}
		if c.isHelper(f) {
			continue // written by the division rewrite: exact as it is
		}
		if err := l.divisions(f.body); err != nil {
			return err
		}
	}
	for _, e := range slices.SortedFunc(maps.Keys(l.abstractCalls), func(a, b *callExpr) int { return a.fn.pos - b.fn.pos }) {
		l.inHelper = false
		l.builtinHelper(e, e.fn.name, concrete(l.types[e.args[0]]))
	}
	for e := range l.zeroVecs {
		l.zeroVector(e, vecTy(2, scalarAbstractInt))
	}
	l.runtimeShifts()
	l.privateConsts()
	if c.opengl {
		return l.padStructs(l.constructed)
	}
	return nil
}

// runtimeShifts spells i32 the abstract left operand of each shift by an
// amount known only at run time (let mask = (1 << (bits - 1u)) - 1) that
// its context did not convert: WGSL concretizes it to i32 (the lowest
// conversion rank), since a run-time expression has no abstract type,
// while naga v22 kept it abstract and then refused it ("failed to convert
// expression to a concrete type"). A context that converted it (a u32 it
// is stored to) keeps its conversion. Only literals are spelled, alone,
// negated or complemented, parenthesised or in a vector constructor
// (1 << k, -(8) >> k, vec2(1, 2) << v); another operand (a named const)
// stays as it was.
func (l *lowerer) runtimeShifts() {
	l.forceI32 = true
	defer func() { l.forceI32 = false }()
	var spell func(e expr)
	spell = func(e expr) {
		switch e := e.(type) {
		case *litExpr:
			l.convertLiteral(e, scalarI32)
		case *parenExpr:
			spell(e.x)
		case *unaryExpr:
			if e.op == "-" || e.op == "~" {
				spell(e.x)
			}
		case *callExpr:
			if _, user := l.c.m.names[e.fn.name]; !user && e.fn.tmpl == nil && (e.fn.name == "vec2" || e.fn.name == "vec3" || e.fn.name == "vec4") {
				for _, a := range e.args {
					spell(a)
				}
			}
		}
	}
	for _, e := range l.shifts {
		spell(e.x)
	}
	// A shift of an abstract integer by a constant amount (1 << LOG_N) is
	// a constant naga v22 cannot concretize either, wherever it is used:
	// it becomes its value, an abstract literal naga converts where it is
	// needed, or a literal of the type its context converted it to.
	for e, v := range l.constShifts {
		text := literalText(v)
		first := e.x
		for {
			switch f := first.(type) {
			case *parenExpr:
				first = f.x
				continue
			case *unaryExpr:
				first = f.x
				continue
			case *binaryExpr:
				first = f.x
				continue
			}
			break
		}
		if ed, ok := l.c.conv[first.exprPos()]; ok && strings.TrimRight(ed.text, ")") != "" {
			var k scalar
			suffix := strings.TrimRight(ed.text, ")")
			switch suffix[len(suffix)-1:] {
			case "u":
				k = scalarU32
			case "i":
				k = scalarI32
			case "f":
				k = scalarF32
			}
			cv, err := l.c.convert(v, k, 0)
			if k == 0 || err != nil {
				continue
			}
			text = parenthesize(wgslLiteral(cv))
		}
		l.c.edits = append(l.c.edits, edit{e.exprPos(), exprEnd(e), keepLines(l.c.m.src[e.exprPos():exprEnd(e)], text)})
	}
}

// dynamicConstIndex records a module-scope const array indexed at run
// time (LUT[i]): naga v22 refuses it ("may only be indexed by a
// constant"), which WGSL allows (privateConsts).
func (l *lowerer) dynamicConstIndex(e *indexExpr) {
	root := unparen(e.x)
	for {
		if m, ok := root.(*memberExpr); ok {
			root = unparen(m.x)
		} else if ix, ok := root.(*indexExpr); ok {
			root = unparen(ix.x)
		} else {
			break
		}
	}
	id, ok := root.(*identExpr)
	if !ok {
		if _, call := root.(*callExpr); call {
			l.valueIndex(e)
		}
		return
	}
	if loc := l.lookup(id.name); loc != nil {
		// naga v22 refuses an array or matrix in a let's value indexed at
		// run time too (a[i], r.vals[i]); a var holds the same value.
		xt := l.check(e.x)
		if loc.t == nil || loc.t.kind == typePtr || xt == nil || (xt.kind != typeArray && xt.kind != typeMat) {
			return
		}
		if _, err := l.c.eval(e.index, false); err == nil {
			return
		}
		if d := loc.let; d != nil && !l.letVars[d] {
			l.letVars[d] = true
			if d.kind == "const" {
				// Made a let by decl: made a var instead.
				for i := range l.c.edits {
					if ed := &l.c.edits[i]; ed.start == d.start && ed.text == "let  " {
						ed.text = "var  "
					}
				}
			} else {
				l.c.edits = append(l.c.edits, edit{d.start, d.start + len("let"), "var"})
			}
		}
		// A parameter is a value too (fn at(a: array<f32, 3>, i: u32)): it
		// is renamed, and a var of its name, holding it, opens the body.
		if p := loc.param; p != nil && l.fn != nil && l.fn.body.open > 0 && !l.paramVars[p] {
			l.paramVars[p] = true
			h := &l.c.helpers
			h.choosePrefix(l.c.m.src)
			renamed := h.prefix + "arg_" + p.name
			l.c.edits = append(l.c.edits, edit{p.pos, p.pos + len(p.name), renamed})
			l.c.inserts = append(l.c.inserts, insertion{at: l.fn.body.open + 1, text: " var " + p.name + " = " + renamed + ";"})
		}
		return
	}
	// The const itself, or a part of it (T[1][i], C.rows[i]: naga v22
	// evaluates T[1] and C.rows as constants and refuses them too).
	d, ok := l.c.m.names[id.name].(*constDecl)
	if !ok {
		return
	}
	if _, err := l.c.eval(e.index, false); err == nil {
		return
	}
	l.dynConsts[d] = true
}

// valueIndex rewrites e, an index at run time into an array or matrix
// that a call or constructor returned (g()[i], h().a[i],
// array<f32, 3>(...)[i]), which naga v22 refuses ("may only be indexed by
// a constant"), as a call of a helper that copies its argument into a var
// and indexes that: X[i] becomes _sg_index_T_I(X, i). Nothing is left
// unevaluated or evaluated twice, and X, an argument now, is converted to
// T as a function argument is.
func (l *lowerer) valueIndex(e *indexExpr) {
	if l.inHelper {
		return
	}
	if _, err := l.c.eval(e.index, false); err == nil {
		return
	}
	raw := l.check(e.x)
	if c, ok := unparen(e.x).(*callExpr); ok && raw != nil && raw.kind == typeVec && raw.scalar.abstract() &&
		c.fn.tmpl == nil && (c.fn.name == "vec2" || c.fn.name == "vec3" || c.fn.name == "vec4") {
		// vec2(1.0, 2.0)[i]: naga v22 cannot concretize the abstract
		// vector it indexes, WGSL does (vec2<f32>); the type is spelled.
		if k := l.typeText(scalarTy(concrete(raw).scalar)); k != "" {
			l.c.inserts = append(l.c.inserts, insertion{at: c.fn.end, text: "<" + k + ">"})
		}
		return
	}
	xt := concrete(raw)
	if xt == nil || (xt.kind != typeArray && xt.kind != typeMat) {
		return
	}
	var elem *ty
	if xt.kind == typeArray {
		elem = xt.elem
	} else {
		elem = vecTy(xt.n, xt.scalar)
	}
	at, et, it := l.typeText(xt), l.typeText(elem), l.typeText(concrete(l.check(e.index)))
	if at == "" || et == "" || (it != "i32" && it != "u32") {
		return
	}
	open, close := exprEnd(e.x), e.index.exprPos()
	if open >= close || e.end <= exprEnd(e.index) {
		return
	}
	h := &l.c.helpers
	h.choosePrefix(l.c.m.src)
	if h.builtins == nil {
		h.builtins = map[string]string{}
	}
	fn := h.prefix + "index_" + strings.NewReplacer("<", "_", ">", "", ", ", "_").Replace(at) + "_" + it
	if _, ok := h.builtins[fn]; !ok {
		h.builtins[fn] = "fn " + fn + "(a: " + at + ", i: " + it + ") -> " + et + " { var v = a; return v[i]; }"
		h.builtinOrder = append(h.builtinOrder, fn)
	}
	src := l.c.m.src
	l.c.inserts = append(l.c.inserts, insertion{at: e.x.exprPos(), text: fn + "("})
	l.c.edits = append(l.c.edits,
		edit{open, close, keepLines(src[open:close], ", ")},
		edit{exprEnd(e.index), e.end, keepLines(src[exprEnd(e.index):e.end], ")")})
}

// privateConsts makes each const array indexed at run time a var<private>
// with the same initializer, which naga v22 indexes at run time, and which
// no one can write, since WGSL forbids writing to a const. Only a const
// whose type is written out (const T: array<u32, 4> = ..., or
// array<u32, 4>(...)) qualifies, since an abstract one would change type,
// and only one no module-scope declaration refers to, since a var is not a
// constant expression.
func (l *lowerer) privateConsts() {
	if len(l.dynConsts) == 0 {
		return
	}
	used := map[string]bool{}
	for _, d := range l.c.m.names {
		var es []expr
		switch d := d.(type) {
		case *constDecl:
			es = []expr{d.typ, d.init}
		case *overrideDecl:
			es = []expr{d.typ, d.init}
		case *varDecl:
			es = []expr{d.typ, d.init}
		case *aliasDecl:
			es = []expr{d.typ}
		case *structDecl:
			for _, m := range d.members {
				es = append(es, m.typ)
			}
		}
		for _, e := range es {
			if e != nil {
				namesIn(&exprsStmt{exprs: []expr{e}}, used)
			}
		}
	}
	for d := range l.dynConsts {
		if used[d.name] {
			continue
		}
		typ := "" // naga v22 wants a module-scope var's type written out
		if c, ok := d.init.(*callExpr); ok && d.typ == nil && c.fn.name == "array" && c.fn.tmpl != nil {
			typ = ": " + l.c.m.src[c.fn.pos:c.fn.end]
		} else if d.typ == nil {
			// An inferred array (const LUT = array(1u, 2u)): indexed at
			// run time it is concretized first, so the var gets the
			// concretized type (array<i32, 3> for array(1, 2, 3)); so
			// does a matrix (mat2x2(...) is a mat2x2<f32> at run time)
			// or a struct (never abstract).
			ct := concrete(l.types[d.init])
			text := l.typeText(ct)
			if text == "" || (ct.kind != typeArray && ct.kind != typeMat && ct.kind != typeStruct) {
				continue
			}
			typ = ": " + text
			l.spellArray(d.init, ct)
		}
		l.c.edits = append(l.c.edits, edit{d.kw, d.kw + len("const"), "var<private>"})
		if typ != "" {
			l.c.inserts = append(l.c.inserts, insertion{at: d.pos + len(d.name), text: typ})
		}
	}
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

// attrArgs replaces attribute arguments written as expressions by their
// values (naga v22 evaluates few expressions there).
func (l *lowerer) attrArgs(attrs []*attribute) {
	for _, a := range attrs {
		switch a.name {
		case "group", "binding", "id", "align", "size", "location", "workgroup_size":
		default:
			continue
		}
		for _, e := range a.args {
			switch e.(type) {
			case *litExpr, *identExpr:
				continue
			}
			v, err := l.c.eval(e, a.name == "workgroup_size")
			if err != nil || !v.kind.isInt() {
				continue
			}
			l.c.edits = append(l.c.edits, edit{e.exprPos(), exprEnd(e), literalText(v)})
		}
	}
}

// moduleConst replaces an initializer naga v22 may not evaluate by its
// value, keeping the constant's type (abstract stays abstract). An
// initializer that divides by zero is an error in WGSL, returned here.
func (l *lowerer) moduleConst(d *constDecl) error {
	t := l.resolve(d.typ)
	v, err := l.c.constValue(d)
	if divByZero(err) {
		return err
	}
	if err != nil {
		l.inConst = true
		l.check(d.init)
		l.coerce(d.init, t)
		l.inConst = false
		return nil
	}
	if lit, ok := d.init.(*litExpr); ok && lit.val.kind == v.kind {
		return nil
	}
	l.c.edits = append(l.c.edits, edit{d.init.exprPos(), exprEnd(d.init), literalText(v)})
	return nil
}

// literalText spells v as a literal of exactly its type, abstract types
// included, parenthesised when negative so it can follow any operator.
func literalText(v value) string {
	var s string
	switch v.kind {
	case scalarAbstractInt:
		s = strconv.FormatInt(v.i, 10)
	case scalarAbstractFloat:
		s = strconv.FormatFloat(v.f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".en") {
			s += ".0"
		}
	default:
		s = wgslLiteral(v)
	}
	if strings.HasPrefix(s, "-") {
		s = "(" + s + ")"
	}
	return s
}

func (l *lowerer) lookupConst(name string) (value, bool, bool) {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if loc, ok := l.scopes[i][name]; ok {
			if loc.val == nil {
				return value{}, true, false
			}
			return *loc.val, true, true
		}
	}
	return value{}, false, false
}

func (l *lowerer) lookup(name string) *local {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if loc, ok := l.scopes[i][name]; ok {
			return loc
		}
	}
	return nil
}

func (l *lowerer) declare(name string, loc *local) {
	l.scopes[len(l.scopes)-1][name] = loc
}

func (l *lowerer) function(f *fnDecl) error {
	l.scopes = []map[string]*local{{}}
	defer func() { l.scopes = nil }()
	l.fn = f
	for i := range f.params {
		p := &f.params[i]
		l.declare(p.name, &local{t: l.resolve(p.typ), param: p})
	}
	l.ret = l.resolve(f.ret)
	if f.ret != nil && f.body.close > 0 && !l.inHelper {
		if !returns(f.body) {
			// WGSL proves that the end of a function returning a value is
			// never reached (fn f() -> u32 { loop { return 5u; } }); naga
			// v22 proves less, and refuses the implicit bare return it
			// adds there ("The `return` value None does not match"). A
			// return of the zero value, never run, ends the body instead.
			l.c.inserts = append(l.c.inserts, insertion{at: f.body.close, text: " return " + l.c.m.src[f.ret.exprPos():exprEnd(f.ret)] + "(); "})
		}
	}
	return l.block(f.body)
}

// returns reports whether block b ends in a return as naga v22 sees it:
// its last statement is a return or a compound statement that ends in
// one.
func returns(b *blockStmt) bool {
	if len(b.stmts) == 0 {
		return false
	}
	switch s := b.stmts[len(b.stmts)-1].(type) {
	case *returnStmt:
		return true
	case *blockStmt:
		return s.open > 0 && !s.loop && !s.continuing && returns(s)
	}
	return false
}

func (l *lowerer) block(b *blockStmt) error {
	l.scopes = append(l.scopes, map[string]*local{})
	defer func() { l.scopes = l.scopes[:len(l.scopes)-1] }()
	var continued map[string]bool
	if n := len(b.stmts); n > 0 && l.c.opengl {
		if c, ok := b.stmts[n-1].(*blockStmt); ok && c.continuing {
			continued = map[string]bool{}
			namesIn(c, continued)
		}
	}
	for _, s := range b.stmts {
		if err := l.stmt(s); err != nil {
			return err
		}
		// On OpenGL naga v22 writes a loop's continuing block at the top
		// of the next iteration and re-evaluates there the expression a
		// let of the body names, so the let reads the variables as the
		// continuing left them (let sq = i * i; ... continuing { i++;
		// break if sq > n; } tests the next i's square). A var is stored
		// where it is declared and read where it is used: such a let
		// becomes one, unless it holds a pointer, which a var cannot.
		if d, ok := s.(*declStmt); ok && d.kind == "let" && continued[d.name] && d.end > 0 {
			if loc := l.lookup(d.name); loc != nil && (loc.t == nil || loc.t.kind != typePtr) && !isAddress(d.init) {
				l.c.edits = append(l.c.edits, edit{d.start, d.start + len("let"), "var"})
			}
		}
	}
	return nil
}

func isAddress(e expr) bool {
	u, ok := unparen(e).(*unaryExpr)
	return ok && u.op == "&"
}

// namesIn adds to names every identifier s refers to.
func namesIn(s stmt, names map[string]bool) {
	var ex func(e expr)
	ex = func(e expr) {
		switch e := e.(type) {
		case *identExpr:
			names[e.name] = true
			for _, a := range e.tmpl {
				ex(a)
			}
		case *callExpr:
			ex(e.fn)
			for _, a := range e.args {
				ex(a)
			}
		case *parenExpr:
			ex(e.x)
		case *unaryExpr:
			ex(e.x)
		case *binaryExpr:
			ex(e.x)
			ex(e.y)
		case *indexExpr:
			ex(e.x)
			ex(e.index)
		case *memberExpr:
			ex(e.x)
		}
	}
	switch s := s.(type) {
	case *blockStmt:
		for _, t := range s.stmts {
			namesIn(t, names)
		}
	case *declStmt:
		if s.init != nil {
			ex(s.init)
		}
	case *exprsStmt:
		for _, e := range s.exprs {
			ex(e)
		}
	case *assignStmt:
		ex(s.lhs)
		ex(s.rhs)
	case *returnStmt:
		if s.x != nil {
			ex(s.x)
		}
	case *caseStmt:
		ex(s.selector)
		for _, v := range s.values {
			ex(v)
		}
	}
}

func (l *lowerer) stmt(s stmt) error {
	switch s := s.(type) {
	case *blockStmt:
		return l.block(s)
	case *declStmt:
		return l.decl(s)
	case *exprsStmt:
		for _, e := range s.exprs {
			l.check(e)
		}
	case *assignStmt:
		lt := l.check(s.lhs)
		l.check(s.rhs)
		if _, div := opOf(s.op); div {
			l.remember(s.rhs)
		}
		switch s.op {
		case "<<=", ">>=":
			l.coerce(s.rhs, withLeaf(lt, scalarU32))
		default:
			l.coerce(s.rhs, lt)
		}
	case *returnStmt:
		if s.x != nil {
			l.check(s.x)
			l.coerce(s.x, l.ret)
		}
	case *caseStmt:
		st := l.check(s.selector)
		for _, v := range s.values {
			l.check(v)
			l.coerce(v, st)
		}
	case *assertStmt:
		l.c.edits = append(l.c.edits, edit{s.start, s.end, keepLines(l.c.m.src[s.start:s.end], "")})
		v, err := l.c.eval(s.cond, false)
		if err == nil && v.kind == scalarBool && v.i == 0 {
			return l.c.errorf(s.start, "const_assert %s is false", format(s.cond))
		}
	}
	return nil
}

// decl types a function-scope declaration; a const initializer that
// divides by zero is an error in WGSL, returned here rather than left to the
// compiler as a let.
func (l *lowerer) decl(d *declStmt) error {
	declared := l.resolve(d.typ)
	if d.kind == "const" {
		v, err := l.c.eval(d.init, false)
		if divByZero(err) {
			return err
		}
		if err == nil {
			if declared != nil && declared.kind == typeScalar {
				v, err = l.c.convert(v, declared.scalar, d.init.exprPos())
			}
			if err == nil && d.end > 0 {
				l.c.edits = append(l.c.edits, edit{d.start, d.end, keepLines(l.c.m.src[d.start:d.end], "")})
				l.declare(d.name, &local{t: scalarTy(v.kind), val: &v})
				return nil
			}
		}
		// Not a scalar the evaluator computes: a let has the same value
		// wherever naga v22 accepts it (and a var where it is indexed at
		// run time, dynamicConstIndex).
		l.c.edits = append(l.c.edits, edit{d.start, d.start + len("const"), "let  "})
	}
	t := declared
	if d.init != nil {
		it := l.check(d.init)
		if t == nil {
			t = concrete(it)
			if d.kind == "const" {
				// Still abstract where it is used (wrapConversion).
				t = it
			}
		}
		l.coerce(d.init, t)
	}
	if d.kind == "var" && d.init == nil && d.typ != nil && !l.inHelper {
		// WGSL zeroes a var without an initializer each time its
		// declaration runs; naga v22 hoists every local to the top of the
		// function and zeroes it once, so inside a loop the second
		// iteration saw what the first left (var acc: f32; acc += 1.0;
		// gave 1, 2, ... where WGSL says 1, 1, ...). An explicit zero
		// value is stored where the declaration stands. A function-scope
		// var's type is constructible, so T() always exists.
		at := exprEnd(d.typ)
		l.c.inserts = append(l.c.inserts,
			insertion{at: at, text: " = ", copy: &span{d.typ.exprPos(), at}, rank: rankZeroInit},
			insertion{at: at, text: "()", rank: rankZeroInit + 1})
	}
	loc := &local{t: t, part: d.kind == "let" && d.init != nil && l.pointsIntoPart(d.init)}
	if d.kind == "let" || d.kind == "const" {
		loc.let = d
	}
	l.declare(d.name, loc)
	return nil
}

// pointsIntoPart reports whether e is a pointer to part of a variable, an
// element or a member (&a[i], &s.m, &(*p).m, or a let bound to one), not
// to a whole variable (&x, a pointer parameter, *&x).
func (l *lowerer) pointsIntoPart(e expr) bool {
	e = unparen(e)
	if id, ok := e.(*identExpr); ok {
		loc := l.lookup(id.name)
		return loc != nil && loc.part
	}
	u, ok := e.(*unaryExpr)
	if !ok || u.op != "&" {
		return false
	}
	x := unparen(u.x)
	if d, ok := x.(*unaryExpr); ok && d.op == "*" {
		return l.pointsIntoPart(d.x)
	}
	_, whole := x.(*identExpr)
	return !whole
}

func unparen(e expr) expr {
	for {
		p, ok := e.(*parenExpr)
		if !ok {
			return e
		}
		e = p.x
	}
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
	default:
		return nil
	}
	name, args := id.name, id.tmpl
	if k, ok := scalarNames[name]; ok {
		return scalarTy(k)
	}
	if n, k, ok := vecName(name); ok {
		if k == 0 && len(args) == 1 {
			k = leaf(l.resolve(args[0]))
		}
		return vecTy(int(n), k)
	}
	if cols, rows, k, ok := matName(name); ok {
		if k == 0 && len(args) == 1 {
			k = leaf(l.resolve(args[0]))
		}
		return &ty{kind: typeMat, n: int(rows), cols: int(cols), scalar: k}
	}
	switch name {
	case "array":
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
	case "atomic":
		if len(args) == 1 {
			return &ty{kind: typeAtomic, scalar: leaf(l.resolve(args[0]))}
		}
	case "ptr":
		if len(args) >= 2 {
			return &ty{kind: typePtr, elem: l.resolve(args[1])}
		}
	case "sampler", "sampler_comparison":
		return &ty{kind: typeSampler}
	}
	if rest, ok := strings.CutPrefix(name, "texture_storage_"); ok {
		t := &ty{kind: typeStorageTexture, n: texDims(rest)}
		if len(args) >= 1 {
			if f, ok := args[0].(*identExpr); ok {
				t.scalar = formatScalar(f.name)
			}
		}
		return t
	}
	if rest, ok := strings.CutPrefix(name, "texture_depth_"); ok {
		return &ty{kind: typeTexture, n: texDims(rest), scalar: scalarF32, depth: true, arrayed: strings.HasSuffix(rest, "_array")}
	}
	if rest, ok := strings.CutPrefix(name, "texture_"); ok {
		t := &ty{kind: typeTexture, n: texDims(rest), arrayed: strings.HasSuffix(rest, "_array")}
		if len(args) == 1 {
			t.scalar = leaf(l.resolve(args[0]))
		}
		return t
	}
	return nil
}

// texDims is how many coordinates textureDimensions returns for a texture
// of the named shape.
func texDims(shape string) int {
	switch shape {
	case "1d":
		return 1
	case "3d":
		return 3
	}
	return 2
}

// formatScalar is the channel type of a storage texel format.
func formatScalar(f string) scalar {
	switch {
	case strings.HasSuffix(f, "uint"):
		return scalarU32
	case strings.HasSuffix(f, "sint"):
		return scalarI32
	}
	return scalarF32
}

// check types e, converting abstract operands inside it where an operator
// or call fixes their type, and remembers the answer.
func (l *lowerer) check(e expr) *ty {
	if t, ok := l.types[e]; ok {
		return t
	}
	l.c.depth++
	defer func() { l.c.depth-- }()
	if l.c.depth > maxCheckDepth {
		return nil
	}
	t := l.typeOf(e)
	l.types[e] = t
	return t
}

func (l *lowerer) typeOf(e expr) *ty {
	switch e := e.(type) {
	case *litExpr:
		return scalarTy(e.val.kind)
	case *parenExpr:
		return l.check(e.x)
	case *identExpr:
		return l.ident(e)
	case *unaryExpr:
		t := l.check(e.x)
		switch e.op {
		case "&":
			if t == nil {
				return nil
			}
			return &ty{kind: typePtr, elem: t}
		case "*":
			if t != nil && t.kind == typePtr {
				return t.elem
			}
			return nil
		}
		return t
	case *binaryExpr:
		return l.binary(e)
	case *indexExpr:
		l.check(e.index)
		l.dynamicConstIndex(e)
		t := l.derefAccess(e.x)
		if t == nil {
			return nil
		}
		switch t.kind {
		case typeArray:
			return t.elem
		case typeVec:
			return scalarTy(t.scalar)
		case typeMat:
			return vecTy(t.n, t.scalar)
		}
		return nil
	case *memberExpr:
		t := l.derefAccess(e.x)
		if t == nil {
			return nil
		}
		switch {
		case t.kind == typeVec:
			if len(e.name) == 1 {
				return scalarTy(t.scalar)
			}
			return vecTy(len(e.name), t.scalar)
		case t.st != nil:
			for _, m := range t.st.members {
				if m.name == e.name {
					return l.resolveMember(m.typ)
				}
			}
		default:
			for _, f := range t.fields {
				if f.name == e.name {
					return f.t
				}
			}
		}
		return nil
	case *callExpr:
		return l.call(e)
	}
	return nil
}

// resolveMember resolves a struct member's type outside any function
// scope, where the struct was declared.
// derefAccess is the type x refers to, x being the base of a member or
// index access. WGSL lets such a base be a pointer (p.m and p[i] for
// (*p).m and (*p)[i], the pointer_composite_access feature), which naga v22
// refuses ("the value accessed by a `.member` expression must not be a
// pointer"): a pointer base is written (*x).
func (l *lowerer) derefAccess(x expr) *ty {
	t := l.check(x)
	if t != nil && t.kind == typePtr {
		l.c.inserts = append(l.c.inserts,
			insertion{at: x.exprPos(), rank: rankDerefOpen, text: "(*"},
			insertion{at: exprEnd(x), rank: rankDerefClose, text: ")"})
	}
	return deref(t)
}

// rankZeroInit orders the two insertions of a var's explicit zero value
// (" = T" and "()") at the end of its type.
const rankZeroInit = 6_000_000

// The ranks of derefAccess's parentheses: innermost of all insertions at
// their offsets, the opening after every other opening and the closing
// before every other closing.
const (
	rankDerefOpen  = 4_000_000
	rankDerefClose = -6_000_000
)

func (l *lowerer) resolveMember(e expr) *ty {
	saved := l.scopes
	l.scopes = nil
	defer func() { l.scopes = saved }()
	return l.resolve(e)
}

func (l *lowerer) ident(e *identExpr) *ty {
	if loc := l.lookup(e.name); loc != nil {
		if loc.val != nil {
			l.c.subst[e.pos] = edit{e.pos, e.end, literalText(*loc.val)}
		}
		return loc.t
	}
	switch d := l.c.m.names[e.name].(type) {
	case *varDecl:
		if d.typ != nil {
			return l.resolveMember(d.typ)
		}
		if d.init != nil { // var<private> seed = vec2(5u, 6u): the initializer's type
			saved := l.scopes
			l.scopes = nil
			t := concrete(l.check(d.init))
			l.scopes = saved
			return t
		}
	case *overrideDecl:
		if v, err := l.c.overrideValue(d); err == nil {
			return scalarTy(v.kind)
		}
	case *constDecl:
		if d.typ != nil {
			return l.resolveMember(d.typ)
		}
		if v, err := l.c.constValue(d); err == nil {
			return scalarTy(v.kind)
		}
		if l.busy[d] {
			return nil
		}
		l.busy[d] = true
		saved := l.scopes
		l.scopes = nil
		t := l.check(d.init)
		l.scopes = saved
		delete(l.busy, d)
		return t
	}
	return nil
}

// coerce converts the abstract parts of e, already checked, to target's
// bottom scalar.
func (l *lowerer) coerce(e expr, target *ty) {
	k := leaf(target)
	if k == 0 || k.abstract() || k == scalarBool || !abstractTy(l.check(e)) {
		return
	}
	l.spellArray(e, target)
	l.push(e, k)
}

// spellArray writes t, the concrete array type an abstract array
// constructor is converted to, into the constructor: array(vec3(1.0),
// vec3(2.0)) where an array<vec3<f32>, 2> is needed becomes
// array<vec3<f32>, 2>(vec3(1.0), vec3(2.0)), which converts each element
// as WGSL's conversion of the array does. naga v22 converts an abstract
// array of vec3 with the abstract element's layout and then finds it
// unlike the concrete type ("Initializer doesn't match the variable
// type", for a var, a let, a return, an argument or a module var whose
// type the rewrite wrote out); a typed constructor it converts right.
// Arrays of arrays are spelled at every level; arrays of other elements,
// which naga v22 converts right, stay as written. A constant named whole
// (f(FACES), const FACES = array(vec3(1.0, 0.0, 0.0), ...)) is spelled
// element by element: array<vec3<f32>, 6>(FACES[0], ..., FACES[5]).
func (l *lowerer) spellArray(e expr, t *ty) {
	if t == nil || t.kind != typeArray {
		return
	}
	if id, ok := unparen(e).(*identExpr); ok {
		l.spellConstArray(id, t)
		return
	}
	c, ok := unparen(e).(*callExpr)
	if !ok || c.fn.name != "array" || c.fn.tmpl != nil || l.spelled[c] {
		return
	}
	el := t.elem
	for el != nil && el.kind == typeArray {
		el = el.elem
	}
	if el == nil || el.kind != typeVec || el.n != 3 {
		return
	}
	text := l.typeText(t)
	if !strings.HasPrefix(text, "array<") || !abstractTy(l.check(e)) {
		return
	}
	l.spelled[c] = true
	l.c.inserts = append(l.c.inserts, insertion{at: c.fn.end, text: strings.TrimPrefix(text, "array")})
	for _, a := range c.args {
		l.spellArray(a, t.elem)
	}
}

// spellConstArray is spellArray for a constant of abstract array-of-vec3
// type named whole, where t, an array of vec3, is needed: the name becomes
// t's constructor of its elements, each indexed at a constant, which
// naga v22 converts one by one (the same values, as the constant has no
// effects to repeat).
//
// A constant array of abstract scalars (const A = array(1, 2)) where an
// array of u32 or f32 is needed (f(A) for a: array<u32, 2>) is spelled the
// same way with each element converted, array<u32, 2>(u32(A[0]),
// u32(A[1])): naga v22 types the constant array<i32, 2> at its declaration
// and refuses it there ("Argument 0 value doesn't match the type"); the
// conversions are exact for every value WGSL converts (wrapConversion).
func (l *lowerer) spellConstArray(id *identExpr, t *ty) {
	if l.wrapped[id] || t.n <= 0 || t.elem == nil || !abstractTy(l.check(id)) {
		return
	}
	conv := ""
	switch {
	case t.elem.kind == typeVec && t.elem.n == 3:
	case t.elem.kind == typeScalar && (t.elem.scalar == scalarU32 || t.elem.scalar == scalarF32):
		if at := l.check(id); at == nil || at.kind != typeArray || at.elem == nil || at.elem.kind != typeScalar {
			return
		}
		conv = elemScalarName(t.elem.scalar)
	default:
		return
	}
	var init expr
	if loc := l.lookup(id.name); loc != nil {
		if loc.let == nil || loc.let.kind != "const" {
			return
		}
		init = loc.let.init
	} else if d, ok := l.c.m.names[id.name].(*constDecl); ok {
		init = d.init
	} else {
		return
	}
	if conv != "" && !l.convertsEach(init, t.elem.scalar) {
		return // not a conversion WGSL makes (-1 to u32, 1.5 to u32): the compiler refuses it
	}
	text := l.typeText(t)
	if !strings.HasPrefix(text, "array<") {
		return
	}
	parts := make([]string, t.n)
	for i := range parts {
		parts[i] = id.name + "[" + strconv.Itoa(i) + "]"
		if conv != "" {
			parts[i] = conv + "(" + parts[i] + ")"
		}
	}
	l.wrapped[id] = true
	l.c.edits = append(l.c.edits, edit{id.pos, id.end, text + "(" + strings.Join(parts, ", ") + ")"})
}

// convertsEach reports whether init is an array constructor of constant
// elements each of which WGSL converts to k.
func (l *lowerer) convertsEach(init expr, k scalar) bool {
	c, ok := unparen(init).(*callExpr)
	if !ok || c.fn.name != "array" || len(c.args) == 0 {
		return false
	}
	for _, a := range c.args {
		v, err := l.c.eval(a, false)
		if err != nil || !v.kind.abstract() {
			return false
		}
		if v.kind == scalarAbstractFloat && k != scalarF32 {
			return false
		}
		if _, err := l.c.convert(v, k, a.exprPos()); err != nil {
			return false
		}
	}
	return true
}

// elemScalarName spells scalar k (u32 or f32).
func elemScalarName(k scalar) string {
	if k == scalarU32 {
		return "u32"
	}
	return "f32"
}

// convertLiteral spells the abstract literal e as a k, unless an earlier
// edit already converted it.
func (l *lowerer) convertLiteral(e *litExpr, k scalar) {
	if text, ok := l.convertText(e.val, k); ok {
		if _, done := l.c.conv[e.pos]; !done {
			l.c.conv[e.pos] = edit{e.pos, e.pos + len(e.text), text}
		}
	}
}

// push converts the abstract leaves of e to k: literals, constants, and
// through the operators and calls whose result type is their operands'.
func (l *lowerer) push(e expr, k scalar) {
	if !abstractTy(l.check(e)) {
		return
	}
	switch e := e.(type) {
	case *litExpr:
		l.convertLiteral(e, k)
	case *identExpr:
		var v value
		var err error
		if loc := l.lookup(e.name); loc != nil {
			if loc.val == nil {
				if loc.let != nil && loc.let.kind == "const" {
					l.wrapConversion(e, k) // const V = vec2(1, 2), made a let
				}
				return
			}
			v = *loc.val
		} else if d, ok := l.c.m.names[e.name].(*constDecl); ok {
			if v, err = l.c.constValue(d); err != nil {
				l.wrapConversion(e, k)
				return
			}
		} else {
			return
		}
		if text, ok := l.convertText(v, k); ok {
			if _, done := l.c.conv[e.pos]; !done {
				l.c.conv[e.pos] = edit{e.pos, e.end, parenthesize(text)}
			}
		}
	case *parenExpr:
		l.push(e.x, k)
	case *memberExpr:
		// A swizzle of an abstract vector (V.x, V.yx) has the vector's
		// component type; a struct's members are never abstract.
		if t := l.check(e.x); t != nil && t.kind == typeVec {
			l.push(e.x, k)
		}
	case *indexExpr:
		t := l.check(e.x)
		switch {
		case t == nil:
		case t.kind == typeVec:
			if _, err := l.c.eval(e.index, false); err == nil {
				l.push(e.x, k) // at run time it is concretized first
			}
		case t.kind == typeArray && l.constRoot(e):
			// An element of an abstract const array (SIZES[1]), which
			// naga v22 typed array<i32, N> at the declaration.
			l.wrapConversion(e, k)
		}
	case *unaryExpr:
		if e.op == "-" || e.op == "~" {
			l.push(e.x, k)
		}
	case *binaryExpr:
		switch e.op {
		case "<<", ">>":
			l.push(e.x, k)
		case "+", "-", "*", "/", "%", "&", "|", "^":
			l.push(e.x, k)
			l.push(e.y, k)
		}
	case *callExpr:
		if l.zeroVecs[e] {
			delete(l.zeroVecs, e)
			l.zeroVector(e, vecTy(2, k))
			return
		}
		args := e.args
		if e.fn.name == "select" && len(args) == 3 {
			args = args[:2]
		}
		if _, user := l.c.m.names[e.fn.name]; user {
			return
		}
		// Only the arguments of the result's type: ldexp's exponent is an
		// integer whatever its result, extractBits' and insertBits' offset
		// and count are u32.
		switch e.fn.name {
		case "ldexp", "extractBits":
			args = args[:min(1, len(args))]
		case "insertBits":
			args = args[:min(2, len(args))]
		}
		for _, a := range args {
			l.push(a, k)
		}
		if l.abstractCalls[e] {
			delete(l.abstractCalls, e)
			l.builtinHelper(e, e.fn.name, withLeaf(l.types[e.args[0]], k))
		}
	}
}

// wrapConversion converts e, an abstract integer scalar or vector that
// names or indexes a const naga v22 cannot see as abstract (const V =
// vec2(1, 2), whose type naga v22 fixes as vec2<i32> at the declaration;
// SIZES[1] of const SIZES = array(16, 32)), to k where k is u32 or f32:
// e becomes the conversion vec2<u32>(V), u32(SIZES[1]), exact for every
// value WGSL converts (an AbstractInt becomes a u32 only when it is not
// negative, an f32 only when it is representable).
func (l *lowerer) wrapConversion(e expr, k scalar) {
	t := l.check(e)
	if t == nil || (t.kind != typeVec && t.kind != typeScalar) || t.scalar != scalarAbstractInt || (k != scalarU32 && k != scalarF32) || l.wrapped[e] {
		return
	}
	text := l.typeText(withLeaf(t, k))
	if text == "" {
		return
	}
	l.wrapped[e] = true
	l.c.inserts = append(l.c.inserts,
		insertion{at: e.exprPos(), rank: rankWrapOpen, text: text + "("},
		insertion{at: exprEnd(e), rank: rankWrapClose, text: ")"})
}

// levelToI32 writes a u32 mip level, sample index or array index of
// textureLoad (and a depth textureSampleLevel's level) as i32(e): WGSL
// takes i32 or u32 there, naga v22 only i32 ("Image sample or
// level-of-detail index's type ... is not an integer scalar"). A value
// past i32's range becomes negative, out of range either way, and an
// out-of-range level, sample or layer is WGSL's indeterminate load in both.
func (l *lowerer) levelToI32(e expr) {
	t := l.check(e)
	if t == nil || t.kind != typeScalar || t.scalar != scalarU32 || l.wrapped[e] {
		return
	}
	l.wrapped[e] = true
	l.c.inserts = append(l.c.inserts,
		insertion{at: e.exprPos(), rank: rankWrapOpen, text: "i32("},
		insertion{at: exprEnd(e), rank: rankWrapClose, text: ")"})
}

// The ranks of wrapConversion's parentheses: outside every other
// insertion at their offsets.
const (
	rankWrapOpen  = -8_000_000
	rankWrapClose = 8_000_000
)

// constRoot reports whether e is a const, or an element or member of one
// at constant indices (module scope, or function scope made a let): an
// index at run time concretizes the array first (A[i] is an i32 of const
// A = array(1, 2)), and then stays as it is.
func (l *lowerer) constRoot(e expr) bool {
	for {
		switch x := unparen(e).(type) {
		case *indexExpr:
			if _, err := l.c.eval(x.index, false); err != nil {
				return false
			}
			e = x.x
			continue
		case *memberExpr:
			e = x.x
			continue
		case *identExpr:
			if loc := l.lookup(x.name); loc != nil {
				return loc.let != nil && loc.let.kind == "const"
			}
			_, ok := l.c.m.names[x.name].(*constDecl)
			return ok
		}
		return false
	}
}

// literalsOnly reports whether e is built of literals and operators only.
func literalsOnly(e expr) bool {
	switch e := e.(type) {
	case *litExpr:
		return true
	case *parenExpr:
		return literalsOnly(e.x)
	case *unaryExpr:
		return literalsOnly(e.x)
	case *binaryExpr:
		return literalsOnly(e.x) && literalsOnly(e.y)
	}
	return false
}

func parenthesize(s string) string {
	if strings.HasPrefix(s, "-") {
		return "(" + s + ")"
	}
	return s
}

// convertText spells abstract v as a literal of type k; false when it is
// not a value of k (the compiler then reports it).
func (l *lowerer) convertText(v value, k scalar) (string, bool) {
	if !v.kind.abstract() || k.abstract() {
		return "", false
	}
	if v.kind == scalarAbstractInt && k == scalarI32 && !l.forceI32 {
		// naga v22 makes abstract integers i32 itself.
		return "", false
	}
	if v.kind == scalarAbstractFloat && k != scalarF16 {
		// Not an integer; and naga v22 makes abstract floats f32 itself.
		return "", false
	}
	cv, err := l.c.convert(v, k, 0)
	if err != nil {
		return "", false
	}
	return wgslLiteral(cv), true
}

func (l *lowerer) binary(e *binaryExpr) *ty {
	tx, ty_ := l.check(e.x), l.check(e.y)
	if _, div := opOf(e.op); div && l.remember(e.y) && l.remember(e.x) {
		l.fold(e)
	}
	switch e.op {
	case "&&", "||":
		return scalarTy(scalarBool)
	case "<<", ">>":
		if ty_ != nil {
			l.coerce(e.y, withLeaf(ty_, scalarU32))
		}
		if tx != nil && leaf(tx) == scalarAbstractInt && !l.inHelper && !l.inConst {
			if _, err := l.c.eval(e.y, true); err != nil {
				l.shifts = append(l.shifts, e)
			} else if v, err := l.c.eval(e, true); err == nil && v.kind == scalarAbstractInt {
				l.constShifts[e] = v
			}
		}
		return tx
	}
	comparison := false
	switch e.op {
	case "==", "!=", "<", "<=", ">", ">=":
		comparison = true
	}
	if tx == nil || ty_ == nil {
		if comparison {
			return scalarTy(scalarBool)
		}
		return nil
	}
	// naga v22 converts an operand made of literals alone itself; only
	// other abstract operands (constants, calls) need converting.
	ax, ay := abstractTy(tx), abstractTy(ty_)
	if e.op == "==" || e.op == "!=" {
		l.constEquality(e, tx, ty_)
	}
	switch {
	case ax && !ay:
		if !literalsOnly(e.x) {
			l.coerce(e.x, ty_)
		}
		tx = withLeaf(tx, leaf(ty_))
	case ay && !ax:
		if !literalsOnly(e.y) {
			l.coerce(e.y, tx)
		}
		ty_ = withLeaf(ty_, leaf(tx))
	case ax && ay && leaf(tx) != leaf(ty_):
		tx, ty_ = withLeaf(tx, scalarAbstractFloat), withLeaf(ty_, scalarAbstractFloat)
	}
	switch e.op {
	case "==", "!=", "<", "<=", ">", ">=":
		if tx.kind == typeVec {
			return vecTy(tx.n, scalarBool)
		}
		return scalarTy(scalarBool)
	}
	switch {
	case tx.kind == typeMat && ty_.kind == typeVec && e.op == "*":
		return vecTy(tx.n, tx.scalar)
	case tx.kind == typeVec && ty_.kind == typeMat && e.op == "*":
		return vecTy(ty_.cols, ty_.scalar)
	case tx.kind == typeMat && ty_.kind == typeMat && e.op == "*":
		return &ty{kind: typeMat, n: tx.n, cols: ty_.cols, scalar: tx.scalar}
	case tx.kind == typeScalar && ty_.kind != typeScalar:
		return ty_
	}
	return tx
}

// constEquality rewrites e, an == or != of two constant operands, which
// naga v22's constant evaluator gets wrong: of two abstract operands it
// made 1 == 1, 0.5 == 0.5 and vec2(1, 2) == vec2(1, 3) all false and the
// same != all true, on every backend (lavapipe and llvmpipe alike), also
// through a function-scope const (const k = 3; if (k == 3) {...} never
// ran); of f32 ones it compared the bits, so 0.0f == -0.0f was false. A
// scalar comparison the evaluator computes becomes its value, as WGSL
// defines it. Of abstract vectors the right operand is converted to i32,
// or f32 where either side is a float, so naga compares concrete values:
// the same result for every value those types hold. (Constant f32 vectors
// with -0.0 against 0.0 stay as naga computes them.)
func (l *lowerer) constEquality(e *binaryExpr, tx, ty_ *ty) {
	ax, ay := abstractTy(tx), abstractTy(ty_)
	if l.wrapped[e] || !(ax && ay) && (!leaf(tx).isFloat() || !leaf(ty_).isFloat()) {
		return
	}
	l.wrapped[e] = true
	if v, err := l.c.eval(e, true); err == nil && v.kind == scalarBool {
		start, end := e.exprPos(), exprEnd(e)
		l.c.edits = append(l.c.edits, edit{start, end, keepLines(l.c.m.src[start:end], literalText(v))})
		return
	}
	if !(ax && ay) {
		return
	}
	k := scalarI32
	if leaf(tx) == scalarAbstractFloat || leaf(ty_) == scalarAbstractFloat {
		k = scalarF32
	}
	text := l.typeText(withLeaf(ty_, k))
	if text == "" || l.wrapped[e.y] {
		return
	}
	l.wrapped[e.y] = true
	l.c.inserts = append(l.c.inserts,
		insertion{at: e.y.exprPos(), rank: rankWrapOpen, text: text + "("},
		insertion{at: exprEnd(e.y), rank: rankWrapClose, text: ")"})
}

// unify converts the abstract arguments among args to the scalar of the
// first concrete one, and returns the type of the first argument after
// that (the result type of the builtins that take one type throughout).
func (l *lowerer) unify(args []expr) *ty {
	ts := make([]*ty, len(args))
	var k scalar
	float := false
	for i, a := range args {
		ts[i] = l.check(a)
		switch s := leaf(ts[i]); {
		case s == 0:
		case !s.abstract():
			if k == 0 {
				k = s
			}
		case s == scalarAbstractFloat:
			float = true
		}
	}
	if k == 0 && float {
		k = scalarAbstractFloat
	}
	var first *ty
	for i, a := range args {
		if k != 0 && !k.abstract() {
			l.push(a, k)
		}
		if first == nil && ts[i] != nil {
			first = ts[i]
			if k != 0 {
				first = withLeaf(first, k)
			}
		}
	}
	return first
}

// sameType are the builtins whose arguments and result share one type (or
// its component type): the numeric, bit and geometric builtins.
var sameType = map[string]bool{
	"abs": true, "acos": true, "acosh": true, "asin": true, "asinh": true, "atan": true, "atanh": true,
	"atan2": true, "ceil": true, "clamp": true, "cos": true, "cosh": true, "countLeadingZeros": true,
	"countOneBits": true, "countTrailingZeros": true, "cross": true, "degrees": true, "exp": true,
	"exp2": true, "faceForward": true, "firstLeadingBit": true, "firstTrailingBit": true, "floor": true,
	"fma": true, "fract": true, "inverseSqrt": true, "log": true, "log2": true, "max": true, "min": true,
	"mix": true, "normalize": true, "pow": true, "quantizeToF16": true, "radians": true, "reflect": true,
	"reverseBits": true, "round": true, "saturate": true, "sign": true, "sin": true, "sinh": true,
	"smoothstep": true, "sqrt": true, "step": true, "tan": true, "tanh": true, "trunc": true,
	"dpdx": true, "dpdxCoarse": true, "dpdxFine": true, "dpdy": true, "dpdyCoarse": true,
	"dpdyFine": true, "fwidth": true, "fwidthCoarse": true, "fwidthFine": true,
}

// integerBuiltins are the sameType builtins that take integers too; the
// others take floats only.
var integerBuiltins = map[string]bool{
	"abs": true, "clamp": true, "countLeadingZeros": true, "countOneBits": true,
	"countTrailingZeros": true, "firstLeadingBit": true, "firstTrailingBit": true, "max": true,
	"min": true, "reverseBits": true, "sign": true,
}

var atomicValue = map[string]bool{
	"atomicStore": true, "atomicAdd": true, "atomicSub": true, "atomicMax": true, "atomicMin": true,
	"atomicAnd": true, "atomicOr": true, "atomicXor": true, "atomicExchange": true,
}

var fixedResult = map[string]*ty{
	"arrayLength": scalarTy(scalarU32), "all": scalarTy(scalarBool), "any": scalarTy(scalarBool),
	"pack4x8snorm": scalarTy(scalarU32), "pack4x8unorm": scalarTy(scalarU32),
	"pack2x16snorm": scalarTy(scalarU32), "pack2x16unorm": scalarTy(scalarU32),
	"pack2x16float": scalarTy(scalarU32), "pack4xI8": scalarTy(scalarU32), "pack4xU8": scalarTy(scalarU32),
	"pack4xI8Clamp": scalarTy(scalarU32), "pack4xU8Clamp": scalarTy(scalarU32),
	"unpack4x8snorm": vecTy(4, scalarF32), "unpack4x8unorm": vecTy(4, scalarF32),
	"unpack2x16snorm": vecTy(2, scalarF32), "unpack2x16unorm": vecTy(2, scalarF32),
	"unpack2x16float": vecTy(2, scalarF32), "unpack4xI8": vecTy(4, scalarI32), "unpack4xU8": vecTy(4, scalarU32),
	"dot4U8Packed": scalarTy(scalarU32), "dot4I8Packed": scalarTy(scalarI32),
	"textureNumLayers": scalarTy(scalarU32), "textureNumLevels": scalarTy(scalarU32),
	"textureNumSamples": scalarTy(scalarU32), "textureSampleCompare": scalarTy(scalarF32),
	"textureSampleCompareLevel": scalarTy(scalarF32),
}

// toInt converts an abstract argument to i32 (texture coordinates, levels,
// ldexp's exponent: i32 and u32 are both accepted there; i32 is what an
// abstract integer becomes).
func (l *lowerer) toInt(e expr) {
	if t := l.check(e); leaf(t) == scalarAbstractInt {
		l.push(e, scalarI32)
	}
}

func (l *lowerer) call(e *callExpr) *ty {
	t := l.callType(e)
	name := e.fn.name
	if len(e.args) > 0 && l.lookup(name) == nil && l.c.m.names[name] == nil {
		if sig, ok := packedSignatures[name]; ok && len(e.args) == len(sig)-1 {
			for i, a := range e.args {
				l.coerce(a, sig[i])
			}
			t = sig[len(sig)-1]
		}
		t0 := l.types[e.args[0]]
		if (name == "clamp" || name == "min" || name == "max") && abstractTy(t0) && t != nil && !abstractTy(t) {
			// The arguments convert to one type, the result's: an
			// abstract first argument takes the others' (clamp(1, 1, 1f)
			// is f32), not its own default.
			t0 = t
			for _, a := range e.args {
				l.coerce(a, t)
			}
		}
		if l.inConst {
			// A constant expression: naga evaluates it, no helper applies.
		} else if abstractTy(t0) && !l.inHelper {
			// The argument's type is known once the context converts it
			// (push), or else at the end (countOneBits(7) is i32 then).
			l.abstractCalls[e] = true
		} else {
			l.builtinHelper(e, name, t0)
		}
		if name == "atomicLoad" {
			l.atomicLoadOnGL(e, t)
		}
		if name == "atomicCompareExchangeWeak" && l.c.opengl && l.cmpxchg < 0 {
			l.cmpxchg = e.fn.pos
		}
		if name == "workgroupUniformLoad" {
			l.atomicUniformLoad(e)
		}
		if name == "textureNumLevels" {
			l.numLevelsOnGL(e)
		}
		if strings.HasPrefix(name, "unpack") && !l.inConst {
			l.constUnpack(e, name)
		}
	}
	if len(e.args) == 1 && l.lookup(name) == nil && l.c.m.names[name] == nil {
		if res := integerTypeName(t); res != "" {
			if _, ok := scalarNames[name]; ok {
				l.conversionHelper(e, res, l.types[e.args[0]])
			} else if _, _, ok := vecName(name); ok {
				l.conversionHelper(e, res, l.types[e.args[0]])
			}
		}
	}
	return t
}

// coordsArg is the index of a sampling builtin's coordinates: two after
// its texture, which comes first or, in textureGather(component, t, s,
// ...), second. -1 if the arguments hold no texture there.
func (l *lowerer) coordsArg(args []expr) int {
	for i := range min(2, len(args)) {
		if t := l.types[args[i]]; t != nil && t.kind == typeTexture {
			if i+2 < len(args) {
				return i + 2
			}
			return -1
		}
	}
	return -1
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

// packedSignatures are the parameter types, then the result type, of the
// packed_4x8_integer_dot_product builtins (builtins.go).
var packedSignatures = map[string][]*ty{
	"dot4U8Packed":  {scalarTy(scalarU32), scalarTy(scalarU32), scalarTy(scalarU32)},
	"dot4I8Packed":  {scalarTy(scalarU32), scalarTy(scalarU32), scalarTy(scalarI32)},
	"unpack4xU8":    {scalarTy(scalarU32), vecTy(4, scalarU32)},
	"unpack4xI8":    {scalarTy(scalarU32), vecTy(4, scalarI32)},
	"pack4xU8":      {vecTy(4, scalarU32), scalarTy(scalarU32)},
	"pack4xI8":      {vecTy(4, scalarI32), scalarTy(scalarU32)},
	"pack4xU8Clamp": {vecTy(4, scalarU32), scalarTy(scalarU32)},
	"pack4xI8Clamp": {vecTy(4, scalarI32), scalarTy(scalarU32)},
}

// callType types call e, recording the lowering of its arguments.
func (l *lowerer) callType(e *callExpr) *ty {
	name, args := e.fn.name, e.args
	if l.lookup(name) != nil {
		return nil
	}
	switch d := l.c.m.names[name].(type) {
	case *fnDecl:
		for i, a := range args {
			l.check(a)
			// WGSL allows such an argument only with the language
			// extension unrestricted_pointer_parameters, which naga v22
			// lacks: it does not refuse it but aborts the process while
			// writing SPIR-V ("Expression [n] is not cached").
			if l.ptrErr == nil && l.pointsIntoPart(a) {
				l.ptrErr = l.c.errorf(a.exprPos(), "argument %d of %s points into part of a variable (%s): "+
					"a pointer argument must be the address of a whole variable (&x) or a pointer parameter, "+
					"unless the language extension unrestricted_pointer_parameters is supported, which the bundled compiler lacks; "+
					"copy the part into a local var, pass its address and copy it back", i+1, name, format(a))
			}
			if i < len(d.params) {
				l.coerce(a, l.resolveMember(d.params[i].typ))
			}
		}
		return l.resolveMember(d.ret)
	case *structDecl, *aliasDecl:
		t := l.resolve(e.fn)
		if t != nil && t.st != nil && len(args) > 0 {
			l.constructed[t.st] = true
		}
		return l.construct(e, t)
	case nil:
	default:
		for _, a := range args {
			l.check(a)
		}
		return nil
	}
	if _, ok := scalarNames[name]; ok {
		for _, a := range args {
			l.check(a)
		}
		t := l.resolve(e.fn)
		if t != nil {
			l.foldAbstractFloatConversion(e, t)
		}
		return t
	}
	if n, _, ok := vecName(name); ok {
		t := l.resolve(e.fn)
		if t.scalar == 0 && len(args) == 0 {
			// vecN(): the zero vector of abstract integers, converted
			// where it is used (var v: vec2<u32> = vec2();): its zero
			// literal gets that type (push).
			l.zeroVecs[e] = true
			return vecTy(int(n), scalarAbstractInt)
		}
		if t.scalar == 0 { // vecN(...): the arguments' type
			u := l.unify(args)
			t.scalar = leaf(u)
			if t.scalar == 0 {
				return nil
			}
			return vecTy(int(n), t.scalar)
		}
		return l.construct(e, t)
	}
	if _, _, _, ok := matName(name); ok {
		t := l.resolve(e.fn)
		if t.scalar == 0 {
			t.scalar = leaf(l.unify(args))
			if t.scalar == 0 {
				return nil
			}
			return t
		}
		return l.construct(e, t)
	}
	switch name {
	case "array":
		if e.fn.tmpl == nil {
			u := l.unify(args)
			if u == nil {
				return nil
			}
			return &ty{kind: typeArray, elem: u, n: len(args)}
		}
		return l.construct(e, l.resolve(e.fn))
	case "bitcast":
		for _, a := range args {
			l.check(a)
		}
		if len(e.fn.tmpl) == 1 {
			return l.resolve(e.fn.tmpl[0])
		}
		return nil
	case "select":
		if len(args) == 3 {
			l.check(args[2])
			return l.unify(args[:2])
		}
	case "atomicLoad":
		if len(args) == 1 {
			if t := deref(l.check(args[0])); t != nil && t.kind == typeAtomic {
				return scalarTy(t.scalar)
			}
		}
		return nil
	case "atomicCompareExchangeWeak":
		k := l.atomicArgs(args)
		if k == 0 {
			return nil
		}
		return &ty{kind: typeStruct, fields: []field{{"old_value", scalarTy(k)}, {"exchanged", scalarTy(scalarBool)}}}
	case "extractBits", "insertBits":
		var first *ty
		for i, a := range args {
			t := l.check(a)
			switch {
			case i == 0:
				first = t
			case i == 1 && name == "insertBits":
				l.coerce(a, first)
			default:
				l.coerce(a, scalarTy(scalarU32))
			}
		}
		return first
	case "ldexp":
		if len(args) == 2 {
			t := l.check(args[0])
			l.check(args[1])
			l.toInt(args[1])
			return t
		}
	case "dot", "length", "distance", "determinant":
		return scalarOf(l.unify(args))
	case "transpose":
		if len(args) == 1 {
			if t := l.check(args[0]); t != nil && t.kind == typeMat {
				return &ty{kind: typeMat, n: t.cols, cols: t.n, scalar: t.scalar}
			}
		}
		return nil
	case "modf", "frexp":
		if len(args) != 1 {
			break
		}
		t := concrete(l.check(args[0]))
		if t == nil {
			return nil
		}
		if name == "modf" {
			return &ty{kind: typeStruct, fields: []field{{"fract", t}, {"whole", t}}}
		}
		return &ty{kind: typeStruct, fields: []field{{"fract", t}, {"exp", withLeaf(t, scalarI32)}}}
	case "workgroupUniformLoad":
		if len(args) == 1 {
			t := deref(l.check(args[0]))
			if t != nil && t.kind == typeAtomic {
				// The atomic overload returns the atomic's value.
				return scalarTy(t.scalar)
			}
			return t
		}
	case "textureLoad":
		var t *ty
		for i, a := range args {
			at := l.check(a)
			if i == 0 {
				t = at
			} else {
				l.toInt(a)
				if i >= 2 {
					l.levelToI32(a)
				}
			}
		}
		if t == nil || t.scalar == 0 {
			return nil
		}
		if t.depth {
			return scalarTy(scalarF32)
		}
		return vecTy(4, t.scalar)
	case "textureStore":
		var t *ty
		for i, a := range args {
			at := l.check(a)
			switch {
			case i == 0:
				t = at
			case i == len(args)-1 && t != nil && t.scalar != 0:
				l.coerce(a, vecTy(4, t.scalar))
			default:
				l.toInt(a)
			}
		}
		return nil
	case "textureDimensions":
		var t *ty
		for i, a := range args {
			if i == 0 {
				t = l.check(a)
			} else {
				l.check(a)
				l.toInt(a)
			}
		}
		if t == nil {
			return nil
		}
		if t.n == 1 {
			return scalarTy(scalarU32)
		}
		return vecTy(t.n, scalarU32)
	case "textureSample", "textureSampleLevel", "textureSampleBias", "textureSampleGrad", "textureSampleBaseClampToEdge",
		"textureGather", "textureSampleCompare", "textureSampleCompareLevel", "textureGatherCompare":
		var t *ty
		for i, a := range args {
			at := l.check(a)
			if i == 0 && name != "textureGather" {
				t = at
			}
			if i == 1 && name == "textureGather" {
				t = at
			}
		}
		// The coordinates (and textureSampleGrad's two gradients) are
		// f32: WGSL converts an abstract vector of integers there
		// (textureSampleLevel(t, s, vec2(0), 0.0)), naga v22 makes it
		// vec2<i32> and refuses the call ("Image coordinate type ...
		// does not match dimension").
		if c := l.coordsArg(args); c >= 0 {
			l.coerce(args[c], scalarTy(scalarF32))
			if name == "textureSampleGrad" && t != nil && t.kind == typeTexture {
				g := c + 1
				if t.arrayed {
					g++
				}
				for _, a := range args[min(g, len(args)):min(g+2, len(args))] {
					l.coerce(a, scalarTy(scalarF32))
				}
			}
		}
		// The scalar after the coordinates (and the array index) is a
		// level, bias or depth reference: f32, except a depth texture's
		// level, which is an integer.
		if t != nil && t.kind == typeTexture && name != "textureGather" && name != "textureSample" {
			at := 3
			if t.arrayed {
				l.toInt(args[min(3, len(args)-1)])
				at = 4
			}
			if at < len(args) && name != "textureSampleGrad" {
				if t.depth && name == "textureSampleLevel" {
					l.toInt(args[at])
					l.levelToI32(args[at])
				} else {
					l.coerce(args[at], scalarTy(scalarF32))
				}
			}
		}
		if name == "textureSampleCompare" || name == "textureSampleCompareLevel" {
			return scalarTy(scalarF32)
		}
		if name == "textureGatherCompare" {
			return vecTy(4, scalarF32)
		}
		if t == nil || t.kind != typeTexture {
			return vecTy(4, scalarF32)
		}
		if t.depth && name != "textureGather" {
			return scalarTy(scalarF32)
		}
		k := t.scalar
		if k == 0 {
			k = scalarF32
		}
		return vecTy(4, k)
	}
	if atomicValue[name] {
		k := l.atomicArgs(args)
		if k == 0 || name == "atomicStore" {
			return nil
		}
		return scalarTy(k)
	}
	if sameType[name] {
		u := l.unify(args)
		if leaf(u) == scalarAbstractInt && !integerBuiltins[name] {
			// A float builtin of abstract integers (pow(1, 1)): WGSL
			// converts them to abstract floats, naga v22 refuses the
			// integers; they are spelled as f32, the type an abstract
			// float becomes where nothing else asks.
			for _, a := range args {
				l.push(a, scalarF32)
			}
			return withLeaf(u, scalarF32)
		}
		return u
	}
	if t, ok := fixedResult[name]; ok {
		for _, a := range args {
			l.check(a)
		}
		return t
	}
	for _, a := range args {
		l.check(a)
	}
	return nil
}

// scalarOf is the component type of a vector (or the scalar itself).
func scalarOf(t *ty) *ty {
	if t == nil || t.scalar == 0 {
		return nil
	}
	return scalarTy(t.scalar)
}

// construct checks a typed constructor T(args...) and converts its
// abstract arguments to T's components, elements or members.
func (l *lowerer) construct(e *callExpr, t *ty) *ty {
	for _, a := range e.args {
		l.check(a)
	}
	if t == nil {
		return nil
	}
	switch t.kind {
	case typeScalar:
		return t // a conversion: its argument keeps its own type
	case typeVec, typeMat:
		if len(e.args) == 0 && t.kind == typeVec {
			l.zeroVector(e, t)
		}
		if len(e.args) == 1 {
			if at := l.check(e.args[0]); at != nil && at.kind == t.kind {
				// A conversion (vec2<u32>(V)): naga v22 converts the whole
				// vector or matrix itself.
				return t
			}
		}
		for _, a := range e.args {
			if !literalsOnly(a) { // naga v22 converts literals there itself
				l.coerce(a, t)
			}
		}
	case typeArray:
		for _, a := range e.args {
			if !literalsOnly(a) {
				l.coerce(a, t.elem)
			}
		}
	case typeStruct:
		if t.st != nil {
			for i, a := range e.args {
				if i < len(t.st.members) && !literalsOnly(a) {
					l.coerce(a, l.resolveMember(t.st.members[i].typ))
				}
			}
		}
	}
	return t
}

// foldAbstractFloatConversion replaces u32(1e6), i32(2.5 * 4.0),
// bool(1.0) or bool(1) in a function by the literal it makes: naga v22
// converts an abstract float to an integer or a bool, or an abstract
// integer to a bool, only in a constant expression and refuses it at run
// time ("Abstract types may only appear in constant expressions"). The
// evaluator computes the conversion as WGSL defines it.
func (l *lowerer) foldAbstractFloatConversion(e *callExpr, t *ty) {
	if l.inConst || len(e.args) != 1 || t.scalar == scalarF32 || t.scalar == scalarF16 {
		return
	}
	at := l.types[e.args[0]]
	if at == nil || at.kind != typeScalar || !(at.scalar == scalarAbstractFloat || at.scalar == scalarAbstractInt && t.scalar == scalarBool) {
		return // u32(1) and i32(1) naga v22 converts itself; bool(1) it refuses
	}
	v, err := l.c.eval(e, false)
	if err != nil || v.kind != t.scalar {
		return // not a constant: left to the compiler, which says why
	}
	l.c.edits = append(l.c.edits, edit{e.fn.pos, e.end, keepLines(l.c.m.src[e.fn.pos:e.end], wgslLiteral(v))})
}

// zeroLiterals are the zero of each scalar kind, spelled so that naga v22
// reads the kind from the literal itself.
var zeroLiterals = map[scalar]string{
	scalarAbstractInt: "0", scalarAbstractFloat: "0.0", scalarBool: "false",
	scalarI32: "0i", scalarU32: "0u", scalarF32: "0f", scalarF16: "0h",
}

// zeroVector spells a vector's zero value, vec3f(), as a splat of a typed
// zero, vec3f(0f). naga v22's constant evaluator mishandles the zero value
// inside another vector's constructor: vec4u(vec2u(), 7u, 9u) is refused
// ("The type of [23] doesn't match the type stored in [22]"),
// vec4u(vec2u(), 7u, 9u).z reads 9, and vec3u(vec2u(), 7u) or even an
// unused const holding one loses the Vulkan device when the pipeline is
// made. A splat of a zero is the same value and compiles right.
func (l *lowerer) zeroVector(e *callExpr, t *ty) {
	if z, ok := zeroLiterals[t.scalar]; ok {
		l.c.inserts = append(l.c.inserts, insertion{at: e.end - 1, text: z})
	}
}

// atomicArgs types an atomic builtin's arguments: the first is a pointer to
// an atomic, whose scalar it returns (0 when unknown); the value arguments
// after it are coerced to that scalar.
func (l *lowerer) atomicArgs(args []expr) scalar {
	var k scalar
	for i, a := range args {
		t := l.check(a)
		if i == 0 {
			if t = deref(t); t != nil && t.kind == typeAtomic {
				k = t.scalar
			}
		} else if k != 0 {
			l.coerce(a, scalarTy(k))
		}
	}
	return k
}
