package wgsl

import (
	"strconv"
	"strings"
)

// Signed remainders for OpenGL (Options.OpenGL). WGSL defines i32 `a % b`
// as a - b * trunc(a / b), 0 when b is 0 or when a is the most negative i32
// and b is -1 (WGSL § "Arithmetic Expressions"). naga v22's GLSL writer
// emits GLSL's `%`, which GLSL leaves undefined for negative operands; Mesa's
// llvmpipe computes it as an unsigned remainder (-7 % 3 gives 0, 7 % -3
// gives 7, MinInt32 % -1 gives MinInt32). GLSL's `/` on i32 truncates
// toward zero there, as WGSL's does (measured on llvmpipe for every sign
// combination), so the helper computes the remainder from a quotient whose
// divisor is never 0 or -1, the divisors GLSL's `/` leaves unspecified:
// dividing by 1 instead yields a - a = 0, the value WGSL gives both cases.
//
// Each remainder `x % y` of concrete i32 scalars or vectors in a function
// body becomes `P_rem_i32(x, y)` (P_rem_vecN_i32 for vectors, a scalar
// operand of a vector remainder splatted with vecN<i32>(...)): the operator
// becomes a comma and the call's name and parentheses are inserted around
// the operands, so every other edit inside them (a converted literal, a
// substituted constant, a nested remainder) still applies. WGSL evaluates a
// call's arguments once, left to right, like the operands of `%`, and a
// call is a primary expression, so no precedence changes. `lhs %= rhs`
// becomes `lhs = P_rem_i32(lhs, rhs)`: lhs is written twice, which is only
// the same statement when evaluating it has no side effect, so an lhs that
// calls a user function or an atomic builtin is refused with an *Error
// saying how to write it. Constant expressions (case selectors, array
// counts, const declarations, attributes) are left to the compiler, which
// evaluates them with WGSL's semantics and could not call a function there;
// a remainder whose operand types the lowering cannot tell is left as
// written. u32 remainders are untouched: GLSL defines them for every
// non-zero divisor.
//
// The helpers are appended after the author's last line, so line numbers
// do not move; P is "_sg_" or, when the source already holds that text,
// the first of "_sg1_", "_sg2_", ... that it does not.

// remHelpers records which helpers the rewritten module needs.
type remHelpers struct {
	prefix string
	// widths[n] is set when the helper for n-component operands is used
	// (1: scalar).
	widths [5]bool
}

// Edit ranks of insertions at one offset (see insertion): the statement-level
// text of a `%=` first, then openings outer to inner, then, from a
// separate range, closings inner to outer. depth is how many rewritten
// remainders enclose the one ranked (-1 for a `%=` statement).
const (
	rankAssign = -3_000_000
	rankClose  = -1_000_000
)

func openRank(depth int) int  { return 2 * depth }
func closeRank(depth int) int { return rankClose - 2*depth }

// name is the helper for operands of width n, recording that it is used.
func (h *remHelpers) name(src string, n int) string {
	if h.prefix == "" {
		h.prefix = "_sg_"
		for i := 1; strings.Contains(src, h.prefix); i++ {
			h.prefix = "_sg" + strconv.Itoa(i) + "_"
		}
	}
	h.widths[n] = true
	if n == 1 {
		return h.prefix + "rem_i32"
	}
	return h.prefix + "rem_vec" + strconv.Itoa(n) + "_i32"
}

// text is the helpers' source, one declaration a line; "" when none is
// used.
func (h *remHelpers) text() string {
	used := false
	for _, u := range h.widths {
		used = used || u
	}
	if !used {
		return ""
	}
	scalar := h.prefix + "rem_i32"
	var b strings.Builder
	b.WriteString("fn " + scalar + "(a: i32, b: i32) -> i32 { let d = select(b, 1i, b == 0i || b == -1i); return a - d * (a / d); }")
	for n := 2; n <= 4; n++ {
		if !h.widths[n] {
			continue
		}
		v := "vec" + strconv.Itoa(n) + "<i32>"
		b.WriteString("\nfn " + h.prefix + "rem_vec" + strconv.Itoa(n) + "_i32(a: " + v + ", b: " + v + ") -> " + v + " { return " + v + "(")
		for i, c := range "xyzw"[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(scalar + "(a." + string(c) + ", b." + string(c) + ")")
		}
		b.WriteString("); }")
	}
	b.WriteString("\n")
	return b.String()
}

// signedInt reports whether t is a concrete i32 scalar or vector, and its
// width.
func signedInt(t *ty) (int, bool) {
	switch {
	case t == nil || t.scalar != scalarI32:
		return 0, false
	case t.kind == typeScalar:
		return 1, true
	case t.kind == typeVec && t.n >= 2 && t.n <= 4:
		return t.n, true
	}
	return 0, false
}

// remainders records the OpenGL rewrite of the signed remainders in the
// statements of b, which lower has already typed.
func (l *lowerer) remainders(b *blockStmt) error {
	for _, s := range b.stmts {
		switch s := s.(type) {
		case *blockStmt:
			if err := l.remainders(s); err != nil {
				return err
			}
		case *declStmt:
			// A const the evaluator computed is removed and never typed,
			// so nothing in it is rewritten; one that became a let is.
			if s.init != nil {
				l.remWalk(s.init, 0)
			}
		case *exprsStmt:
			for _, e := range s.exprs {
				l.remWalk(e, 0)
			}
		case *assignStmt:
			if err := l.remAssign(s); err != nil {
				return err
			}
		case *returnStmt:
			if s.x != nil {
				l.remWalk(s.x, 0)
			}
		case *caseStmt:
			// It repeats its switch's selector, walked where the switch
			// reads it; its values are const-expressions.
		}
	}
	return nil
}

// remWalk rewrites the signed remainders in e, depth of them enclosing it.
// Type positions (template arguments) are not expressions evaluated at run
// time and are not visited.
func (l *lowerer) remWalk(e expr, depth int) {
	switch e := e.(type) {
	case *parenExpr:
		l.remWalk(e.x, depth)
	case *unaryExpr:
		l.remWalk(e.x, depth)
	case *binaryExpr:
		if n, ok := signedInt(l.types[e]); ok && e.op == "%" {
			l.remCall(n, e.x, e.y, depth)
			l.c.edits = append(l.c.edits, edit{e.pos, e.pos + 1, ","})
			depth++
		}
		l.remWalk(e.x, depth)
		l.remWalk(e.y, depth)
	case *indexExpr:
		l.remWalk(e.x, depth)
		l.remWalk(e.index, depth)
	case *memberExpr:
		l.remWalk(e.x, depth)
	case *callExpr:
		for _, a := range e.args {
			l.remWalk(a, depth)
		}
	}
}

// remCall records the insertions that make the operands x and y (x nil for
// a `%=`, whose left operand is written by remAssign) the arguments of the
// helper for width n: the name and '(' before x, ')' after y, and a vector
// splat around a scalar operand of a vector remainder.
func (l *lowerer) remCall(n int, x, y expr, depth int) {
	name := l.c.helpers.name(l.c.m.src, n)
	splat := func(e expr) {
		if t := l.types[e]; n == 1 || t == nil || t.kind != typeScalar {
			return
		}
		start, end := e.exprPos(), exprEnd(e)
		l.c.inserts = append(l.c.inserts,
			insertion{at: start, text: "vec" + strconv.Itoa(n) + "<i32>(", rank: openRank(depth) + 1},
			insertion{at: end, text: ")", rank: closeRank(depth) - 1})
	}
	if x != nil {
		start := x.exprPos()
		l.c.inserts = append(l.c.inserts, insertion{at: start, text: name + "(", rank: openRank(depth)})
		splat(x)
	}
	splat(y)
	end := exprEnd(y)
	l.c.inserts = append(l.c.inserts, insertion{at: end, text: ")", rank: closeRank(depth)})
}

// remAssign rewrites `lhs %= rhs` on signed integers into
// `lhs = P_rem_i32(lhs, rhs)`, and the remainders inside lhs and rhs.
func (l *lowerer) remAssign(s *assignStmt) error {
	l.remWalk(s.lhs, 0)
	n, ok := signedInt(l.types[s.lhs])
	if s.op != "%=" || !ok {
		l.remWalk(s.rhs, 0)
		return nil
	}
	if call := l.sideEffect(s.lhs); call != "" {
		return l.c.errorf(s.opPos, "on OpenGL softgraph rewrites an i32 %%= into an assignment that evaluates its left-hand side twice, and this one calls %s; compute the index first (let i = ...;) and use it", call)
	}
	lhs := span{s.lhs.exprPos(), exprEnd(s.lhs)}
	at := s.opPos + len("%=")
	l.c.edits = append(l.c.edits, edit{s.opPos, at, "= " + l.c.helpers.name(l.c.m.src, n) + "("})
	l.c.inserts = append(l.c.inserts,
		insertion{at: at, rank: rankAssign, copy: &lhs},
		insertion{at: at, text: ",", rank: rankAssign + 1})
	l.remCall(n, nil, s.rhs, -1)
	l.remWalk(s.rhs, 0)
	return nil
}

// sideEffect names a call in e that may have a side effect (a user
// function, an atomic builtin); "" when there is none.
func (l *lowerer) sideEffect(e expr) string {
	switch e := e.(type) {
	case *parenExpr:
		return l.sideEffect(e.x)
	case *unaryExpr:
		return l.sideEffect(e.x)
	case *binaryExpr:
		if s := l.sideEffect(e.x); s != "" {
			return s
		}
		return l.sideEffect(e.y)
	case *indexExpr:
		if s := l.sideEffect(e.x); s != "" {
			return s
		}
		return l.sideEffect(e.index)
	case *memberExpr:
		return l.sideEffect(e.x)
	case *callExpr:
		if _, user := l.c.m.names[e.fn.name].(*fnDecl); user || strings.HasPrefix(e.fn.name, "atomic") {
			return e.fn.name + "()"
		}
		for _, a := range e.args {
			if s := l.sideEffect(a); s != "" {
				return s
			}
		}
	}
	return ""
}
