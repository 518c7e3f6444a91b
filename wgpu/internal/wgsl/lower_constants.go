package wgsl

import (
	"strconv"
	"strings"
)

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
