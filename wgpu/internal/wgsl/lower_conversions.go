package wgsl

import (
	"strconv"
	"strings"
)

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
		l.pushIdent(e, k)
	case *parenExpr:
		l.push(e.x, k)
	case *memberExpr:
		// A swizzle of an abstract vector (V.x, V.yx) has the vector's
		// component type; a struct's members are never abstract.
		if t := l.check(e.x); t != nil && t.kind == typeVec {
			l.push(e.x, k)
		}
	case *indexExpr:
		l.pushIndex(e, k)
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
		l.pushCall(e, k)
	}
}

// pushIdent converts e, a name of abstract type, to k: a constant's use
// becomes its value spelled as a k.
func (l *lowerer) pushIdent(e *identExpr, k scalar) {
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
}

// pushIndex converts e, an index into an abstract vector or const array,
// to k.
func (l *lowerer) pushIndex(e *indexExpr, k scalar) {
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
}

// pushCall converts e, a call of abstract type, to k: an untyped zero
// vector's zero, a builtin's arguments of the result's type, and the
// helper that waited for that type (abstractCalls).
func (l *lowerer) pushCall(e *callExpr, k scalar) {
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

// toInt converts an abstract argument to i32 (texture coordinates, levels,
// ldexp's exponent: i32 and u32 are both accepted there; i32 is what an
// abstract integer becomes).
func (l *lowerer) toInt(e expr) {
	if t := l.check(e); leaf(t) == scalarAbstractInt {
		l.push(e, scalarI32)
	}
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
