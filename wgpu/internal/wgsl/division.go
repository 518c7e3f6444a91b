package wgsl

import (
	"strconv"
	"strings"
)

// Integer division and remainder. WGSL defines them for every operand
// (WGSL § "Arithmetic Expressions"): i32 `a / b` is a when b is 0 or when a
// is the most negative i32 and b is -1, else a / b truncated toward zero;
// i32 `a % b` is 0 in those two cases, else a - b * trunc(a / b) (the sign
// of the dividend); u32 `a / b` is a and u32 `a % b` is 0 when b is 0.
// naga v22 predates the helpers newer naga wraps these in: it writes the
// target's plain instruction, whose result for those divisors the driver
// chooses (lavapipe's Vulkan: i32 x % 0 = -1, x / 0 = 0; u32 x / 0 and
// x % 0 = 0xFFFFFFFF), and on OpenGL it writes GLSL's %, which GLSL leaves
// undefined for negative operands (llvmpipe computes an unsigned remainder:
// -7 % 3 gives 0, MinInt32 % -1 gives MinInt32).
//
// So each runtime division or remainder of concrete i32 or u32 scalars or
// vectors in a function body becomes a call of a helper that computes
// WGSL's result with operations every target defines. A u32 helper divides
// by max(b, 1u): a / 1 = a and a % 1 = 0, WGSL's results for a zero
// divisor. An i32 helper works on magnitudes, as u32: WGSL's i32 division
// truncates toward zero, so |a / b| = |a| / |b| and |a % b| = |a| % |b|,
// the quotient negative when the signs differ and the remainder with the
// dividend's sign. abs of the most negative i32 is itself, whose u32 is
// 2^31, its magnitude; max(|b|, 1u) turns a zero divisor into 1, which
// gives a / 0 = a and a % 0 = 0; and MinInt32 / -1 comes out as 2^31,
// which is MinInt32 again, and MinInt32 % -1 as 0. The sign goes back on
// branch-free: with s = x >> 31u (0 or -1, an arithmetic shift), (m ^ s) -
// s is m or -m. GLSL's `/` and `%` on uint are exact for every nonzero
// divisor, so one text serves every backend.
//
// Neither helper selects. Substituting the divisor with select(b, 1u,
// b == 0u) (and for i32, a - d * (a / d) with d selected likewise)
// computes the same values, but on an H100's OpenGL those selects cost
// Game of Life (nine remainders a cell) 1.6 µs of 9.5 per 512×512
// dispatch replayed with u32 coordinates and 2.6 of 10.6 with i32 ones;
// the forms above cost nothing measurable there (replay 7.9 and 8.0, as
// the kernel with a plain %), and NVIDIA's Vulkan ran both forms alike.
//
// A helper is left out where it is provably unnecessary, which keeps index
// math such as `i / 64u` and `i % N` as written: when the divisor is a
// constant (a literal, a const, an override: overrides become consts)
// whose value is not 0, a u32 operator and an i32 `/` are exact as written
// (an i32 `/` except for the divisor -1: MinInt32 / -1). An i32 `%` never
// is: SPIR-V's OpSRem, like GLSL's %, leaves negative operands to the
// driver (the Vulkan spec: "if either operand is negative the result is
// undefined"), and the H200's Vulkan driver computed -7 % 3 as 0, an
// unsigned remainder, as llvmpipe's GL does. A division of concrete integers whose two
// operands are constants is a constant expression and becomes its value,
// computed by the front-end with WGSL's semantics; a zero divisor or a
// result out of range there is an error in WGSL (shader-creation, or
// pipeline-creation for overrides), which Specialize reports. naga v22
// passes such an expression on as written, and on OpenGL Mesa's GLSL
// compiler folds it on the host: `M % -1` with M the most negative i32
// killed the process with SIGFPE while the pipeline was created
// (llvmpipe). A division whose operand types the lowering cannot tell is
// left as written; f32 is exact on every backend.
//
// `x / y` becomes `P_div_i32(x , y)` (P_rem_vecN_u32 and so on for the
// others; a scalar operand of a vector operator splatted with
// vecN<i32>(...)): the operator becomes a comma and the call's name and
// parentheses are inserted around the operands, so every other edit inside
// them (a converted literal, a substituted constant, a nested division)
// still applies. WGSL evaluates a call's arguments once, left to right,
// like the operands of `/`, and a call is a primary expression, so no
// precedence changes. `lhs /= rhs` becomes `lhs = P_div_i32(lhs, rhs)`: lhs
// is written twice, which is only the same statement when evaluating it has
// no side effect. An lhs that calls a user function or an atomic builtin
// is evaluated once through a pointer instead, `{ let P_p1 = &(lhs);
// *P_p1 = P_div_i32(*P_p1, rhs); }` (divPointer), which only a whole
// statement can become: in a for loop's header it is refused with an
// *Error saying how to write it. Constant expressions in
// other places (case selectors, array counts, const declarations,
// attributes) are evaluated by the front-end or the compiler, which could
// not call a function there.
//
// The helpers are appended after the author's last line, so line numbers
// do not move; P is "_sg_" or, when the source already holds that text,
// the first of "_sg1_", "_sg2_", ... that it does not. A function that is
// exactly one of these helpers (a module this rewrite wrote) is not
// rewritten again, so rewriting a rewritten module changes nothing.

// Helper operations and element types, the indices of intHelpers.used.
const (
	opRem = iota
	opDiv
)

const (
	elemI32 = iota
	elemU32
)

var (
	opNames   = [2]string{opRem: "rem", opDiv: "div"}
	elemNames = [2]string{elemI32: "i32", elemU32: "u32"}
)

// intHelpers records which helpers the rewritten module needs.
type intHelpers struct {
	prefix string
	// used[op][elem][n] is set when the helper for n-component operands
	// is used (1: scalar).
	used [2][2][5]bool
	// ptrs counts the statements divPointer rewrote; the Nth declares
	// prefix+"pN" (and prefix+"iN"), so every site has names of its own.
	ptrs int
	// builtins holds the declarations of the builtin helpers used
	// (builtins.go), by name, and builtinOrder their names in first use.
	builtins     map[string]string
	builtinOrder []string
}

// Edit ranks of insertions at one offset (see insertion): the statement-level
// text of a compound assignment first, then openings outer to inner, then,
// from a separate range, closings inner to outer. depth is how many
// rewritten operators enclose the one ranked (-1 for a compound assignment).
const (
	rankAssign = -3_000_000
	rankClose  = -1_000_000
	// A statement rewritten by divPointer opens with a block and closes it
	// after its ';', where the next statement may start: the closing goes
	// first.
	rankStmtClose = -5_000_001
	rankStmtOpen  = -5_000_000
)

func openRank(depth int) int  { return 2 * depth }
func closeRank(depth int) int { return rankClose - 2*depth }

// helperName is the helper of op on n-component operands of elem, after
// prefix.
func helperName(prefix string, op, elem, n int) string {
	if n == 1 {
		return prefix + opNames[op] + "_" + elemNames[elem]
	}
	return prefix + opNames[op] + "_vec" + strconv.Itoa(n) + "_" + elemNames[elem]
}

// name is the helper of op on n-component operands of elem, recording that
// it is used.
func (h *intHelpers) name(src string, op, elem, n int) string {
	h.choosePrefix(src)
	h.used[op][elem][n] = true
	return helperName(h.prefix, op, elem, n)
}

// choosePrefix picks, once, a prefix for the helpers' names that src does
// not contain.
func (h *intHelpers) choosePrefix(src string) {
	if h.prefix == "" {
		h.prefix = "_sg_"
		for i := 1; strings.Contains(src, h.prefix); i++ {
			h.prefix = "_sg" + strconv.Itoa(i) + "_"
		}
	}
}

// helperDecl is the declaration of the helper of op on n-component
// operands of elem, on one line; the vector helpers call the scalar one
// component by component.
func helperDecl(prefix string, op, elem, n int) string {
	scalar := helperName(prefix, op, elem, 1)
	if n == 1 {
		t := elemNames[elem]
		head := "fn " + scalar + "(a: " + t + ", b: " + t + ") -> " + t + " { "
		switch {
		case op == opRem && elem == elemI32:
			return head + "let s = a >> 31u; let m = u32(abs(a)) % max(u32(abs(b)), 1u); return (i32(m) ^ s) - s; }"
		case op == opDiv && elem == elemI32:
			return head + "let s = (a ^ b) >> 31u; let m = u32(abs(a)) / max(u32(abs(b)), 1u); return (i32(m) ^ s) - s; }"
		case op == opRem:
			return head + "return a % max(b, 1u); }"
		}
		return head + "return a / max(b, 1u); }"
	}
	v := "vec" + strconv.Itoa(n) + "<" + elemNames[elem] + ">"
	var b strings.Builder
	b.WriteString("fn " + helperName(prefix, op, elem, n) + "(a: " + v + ", b: " + v + ") -> " + v + " { return " + v + "(")
	for i, c := range "xyzw"[:n] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(scalar + "(a." + string(c) + ", b." + string(c) + ")")
	}
	b.WriteString("); }")
	return b.String()
}

// text is the helpers' source, one declaration a line: i32 remainders,
// i32 divisions, u32 remainders, u32 divisions, each scalar then vectors;
// "" when none is used.
func (h *intHelpers) text() string {
	var b strings.Builder
	for _, elem := range []int{elemI32, elemU32} {
		for _, op := range []int{opRem, opDiv} {
			used := h.used[op][elem]
			if !used[1] && !used[2] && !used[3] && !used[4] {
				continue
			}
			// The vector helpers call the scalar one.
			b.WriteString(helperDecl(h.prefix, op, elem, 1) + "\n")
			for n := 2; n <= 4; n++ {
				if used[n] {
					b.WriteString(helperDecl(h.prefix, op, elem, n) + "\n")
				}
			}
		}
	}
	for _, fn := range h.builtinOrder {
		b.WriteString(h.builtins[fn] + "\n")
	}
	return b.String()
}

// isHelper reports whether f is, character for character, one of the
// helpers this rewrite appends, under any prefix it may choose.
func (c *checker) isHelper(f *fnDecl) bool {
	rest, ok := strings.CutPrefix(f.name, "_sg")
	if !ok {
		return false
	}
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if !strings.HasPrefix(rest[digits:], "_") {
		return false
	}
	prefix := f.name[:len("_sg")+digits+1]
	if f.pos < len("fn ") {
		return false
	}
	if c.isBuiltinHelper(f, prefix) {
		return true
	}
	for op := range opNames {
		for elem := range elemNames {
			for n := 1; n <= 4; n++ {
				if helperName(prefix, op, elem, n) == f.name {
					return strings.HasPrefix(c.m.src[f.pos-len("fn "):], helperDecl(prefix, op, elem, n))
				}
			}
		}
	}
	return false
}

// intElem reports whether t is a concrete i32 or u32 scalar or vector, its
// element (elemI32, elemU32) and its width.
func intElem(t *ty) (elem, n int, ok bool) {
	switch {
	case t == nil:
		return 0, 0, false
	case t.scalar == scalarI32:
		elem = elemI32
	case t.scalar == scalarU32:
		elem = elemU32
	default:
		return 0, 0, false
	}
	switch {
	case t.kind == typeScalar:
		return elem, 1, true
	case t.kind == typeVec && t.n >= 2 && t.n <= 4:
		return elem, t.n, true
	}
	return 0, 0, false
}

// opOf is the helper operation of a division operator ("/", "/=", "%",
// "%="); false for any other.
func opOf(op string) (int, bool) {
	switch op {
	case "/", "/=":
		return opDiv, true
	case "%", "%=":
		return opRem, true
	}
	return 0, false
}

// remember records e's value when e is a constant (an override included:
// each becomes a const), while typing, where function-scope consts are in
// scope; divisions read it to leave out helpers they do not need.
func (l *lowerer) remember(e expr) bool {
	if _, ok := l.known[e]; ok {
		return true
	}
	v, err := l.c.eval(e, true)
	if err != nil || !v.kind.isInt() {
		return false
	}
	l.known[e] = v
	return true
}

// fold records the value of the division e of two constants (or WGSL's
// error for it) while typing, where function-scope consts are in scope.
func (l *lowerer) fold(e *binaryExpr) {
	v, err := l.c.eval(e, true)
	if _, unsup := err.(unsupported); err != nil && !unsup {
		l.foldErr[e] = err
	} else if err == nil && v.kind.isInt() {
		l.known[e] = v
	}
}

// needsHelper reports whether op on elem operands, with divisor y, differs
// from WGSL when written as the operator: unless y is a constant of a
// value that makes the target's instruction exact.
func (l *lowerer) needsHelper(op, elem int, y expr) bool {
	v, ok := l.known[y]
	switch {
	case !ok || v.i == 0:
		return true
	case elem == elemU32:
		return false
	case v.i == -1:
		return true
	}
	// i32 %: SPIR-V's OpSRem and GLSL's % leave negative operands to the
	// driver (the Vulkan spec: "if either operand is negative the result
	// is undefined"); the H200's Vulkan computed -7 % 3 as an unsigned
	// remainder, 0, as llvmpipe's GL does. Only the helper is exact.
	return op == opRem
}

// divisions records the rewrite of the integer divisions and remainders in
// the statements of b, which lower has already typed.
func (l *lowerer) divisions(b *blockStmt) error {
	for _, s := range b.stmts {
		switch s := s.(type) {
		case *blockStmt:
			if err := l.divisions(s); err != nil {
				return err
			}
		case *declStmt:
			// A const the evaluator computed is removed and never typed,
			// so nothing in it is rewritten; one that became a let is.
			if s.init != nil {
				l.divWalk(s.init, 0)
			}
		case *exprsStmt:
			for _, e := range s.exprs {
				l.divWalk(e, 0)
			}
		case *assignStmt:
			if err := l.divAssign(s); err != nil {
				return err
			}
		case *returnStmt:
			if s.x != nil {
				l.divWalk(s.x, 0)
			}
		case *caseStmt:
			// It repeats its switch's selector, walked where the switch
			// reads it; its values are const-expressions.
		}
		if l.divErr != nil {
			return l.divErr
		}
	}
	return nil
}

// divWalk rewrites the integer divisions and remainders in e, depth of them
// enclosing it. Type positions (template arguments) are not expressions
// evaluated at run time and are not visited.
func (l *lowerer) divWalk(e expr, depth int) {
	switch e := e.(type) {
	case *parenExpr:
		l.divWalk(e.x, depth)
	case *unaryExpr:
		l.divWalk(e.x, depth)
	case *binaryExpr:
		op, isDiv := opOf(e.op)
		elem, n, isInt := intElem(l.types[e])
		_, constX := l.known[e.x]
		_, constY := l.known[e.y]
		switch {
		case !isDiv || !isInt:
		case constX && constY:
			// A constant expression: its value, or WGSL's error (a zero
			// divisor, a result out of range).
			if v, ok := l.known[e]; ok {
				l.c.edits = append(l.c.edits, edit{e.exprPos(), exprEnd(e), literalText(v)})
			} else if err := l.foldErr[e]; err != nil && l.divErr == nil {
				l.divErr = err
			}
			return
		case l.needsHelper(op, elem, e.y):
			l.divCall(op, elem, n, e.x, e.y, depth)
			l.c.edits = append(l.c.edits, edit{e.pos, e.pos + 1, ","})
			depth++
		}
		l.divWalk(e.x, depth)
		l.divWalk(e.y, depth)
	case *indexExpr:
		l.divWalk(e.x, depth)
		l.divWalk(e.index, depth)
	case *memberExpr:
		l.divWalk(e.x, depth)
	case *callExpr:
		for _, a := range e.args {
			l.divWalk(a, depth)
		}
	}
}

// divCall records the insertions that make the operands x and y (x nil for
// a compound assignment, whose left operand divAssign writes) the
// arguments of the helper: the name and '(' before x, ')' after y, and a
// vector splat around a scalar operand of a vector operator.
func (l *lowerer) divCall(op, elem, n int, x, y expr, depth int) {
	name := l.c.helpers.name(l.c.m.src, op, elem, n)
	splat := func(e expr) {
		if t := l.types[e]; n == 1 || t == nil || t.kind != typeScalar {
			return
		}
		start, end := e.exprPos(), exprEnd(e)
		l.c.inserts = append(l.c.inserts,
			insertion{at: start, text: "vec" + strconv.Itoa(n) + "<" + elemNames[elem] + ">(", rank: openRank(depth) + 1},
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

// divAssign rewrites `lhs /= rhs` and `lhs %= rhs` on integers where a
// helper is needed, and the divisions inside lhs and rhs. A left-hand side
// without side effects is written twice, `lhs = P_div_i32(lhs, rhs)`; one
// that calls a function is evaluated once, through a pointer (divPointer),
// which only a whole statement can hold: in a for header it is refused.
func (l *lowerer) divAssign(s *assignStmt) error {
	l.divWalk(s.lhs, 0)
	op, isDiv := opOf(s.op)
	elem, n, isInt := intElem(l.types[s.lhs])
	if !isDiv || !isInt || !l.needsHelper(op, elem, s.rhs) {
		l.divWalk(s.rhs, 0)
		return nil
	}
	name := l.c.helpers.name(l.c.m.src, op, elem, n)
	switch call := l.sideEffect(s.lhs); {
	case call == "":
		lhs := span{s.lhs.exprPos(), exprEnd(s.lhs)}
		at := s.opPos + len(s.op)
		l.c.edits = append(l.c.edits, edit{s.opPos, at, "= " + name + "("})
		l.c.inserts = append(l.c.inserts,
			insertion{at: at, rank: rankAssign, copy: &lhs},
			insertion{at: at, text: ",", rank: rankAssign + 1})
	case s.end == 0:
		return l.c.errorf(s.opPos, "softgraph rewrites an integer %s into a call of a helper (WGSL's result for every divisor needs one), which must evaluate the left-hand side once, and this one calls %s; a statement would hold a pointer to it, but in a for loop's header no statement fits: compute the index first (let i = ...;) in the loop body and use it", s.op, call)
	default:
		l.divPointer(s, name)
	}
	l.divCall(op, elem, n, nil, s.rhs, -1)
	l.divWalk(s.rhs, 0)
	return nil
}

// divPointer rewrites the whole statement `lhs op= rhs;`, whose lhs calls a
// function, into `{ let P_pN = &(lhs); *P_pN = P_div_i32(*P_pN, rhs); }`
// on the same lines. WGSL evaluates a compound assignment's left-hand side
// once, as a reference, before the right-hand side (WGSL § "Compound
// Assignment"); taking its address in the let does exactly that, and the
// let comes first. WGSL forbids the address of a vector component (WGSL §
// "Address-Of Expression": a shader-creation error), so an lhs that ends in
// one, `base.x` or `base[i]` on a vector, takes the address of the vector
// and assigns the component through it: `{ let P_pN = &(base);
// (*P_pN).x = ...; }`, and for an index `let P_iN = i;` after the pointer,
// which keeps the order base, index, rhs. Parentheses around such an lhs
// become spaces (their closing ones lie in the replaced tail).
//
// The lhs and rhs keep their text and every edit inside them; what lies
// between them (the operator, a member name, brackets, whitespace,
// comments) is replaced keeping its line breaks.
func (l *lowerer) divPointer(s *assignStmt, name string) {
	h := &l.c.helpers
	h.ptrs++
	p := h.prefix + "p" + strconv.Itoa(h.ptrs)
	at := s.opPos + len(s.op)
	src := l.c.m.src
	tail := func(from int, text string) {
		l.c.edits = append(l.c.edits, edit{from, at, keepLines(src[from:at], text)})
	}
	target, ref := s.lhs, "*"+p
	inner := s.lhs
	var parens []*parenExpr
	for {
		pe, ok := inner.(*parenExpr)
		if !ok {
			break
		}
		parens = append(parens, pe)
		inner = pe.x
	}
	var index expr
	isVec := func(e expr) bool {
		t := deref(l.types[e])
		return t != nil && t.kind == typeVec
	}
	switch e := inner.(type) {
	case *memberExpr:
		if isVec(e.x) {
			target, ref = e.x, "(*"+p+")."+e.name
		}
	case *indexExpr:
		if isVec(e.x) {
			i := h.prefix + "i" + strconv.Itoa(h.ptrs)
			target, ref, index = e.x, "(*"+p+")["+i+"]", e.index
			l.c.edits = append(l.c.edits, edit{exprEnd(e.x), e.index.exprPos(), keepLines(src[exprEnd(e.x):e.index.exprPos()], "); let "+i+" = ")})
		}
	}
	addr := "&("
	if t := l.types[target]; t != nil && t.kind == typePtr {
		addr = "(" // a pointer already: base.x through WGSL's pointer shorthand
	}
	if target != s.lhs {
		for _, pe := range parens {
			l.c.edits = append(l.c.edits, edit{pe.pos, pe.pos + 1, " "})
		}
	}
	l.c.inserts = append(l.c.inserts,
		insertion{at: s.lhs.exprPos(), text: "{ let " + p + " = " + addr, rank: rankStmtOpen},
		insertion{at: s.end, text: " }", rank: rankStmtClose})
	text := "; " + ref + " = " + name + "(" + ref + ","
	switch {
	case index != nil:
		tail(exprEnd(index), text)
	default:
		tail(exprEnd(target), ")"+text)
	}
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
