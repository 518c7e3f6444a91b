package wgsl

import (
	"fmt"
	"maps"
	"slices"
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
	// zero is set on a let whose initializer is a constant zero (isZero),
	// decided where it is declared.
	zero bool
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
	l.floatAnalyses()
	if c.opengl {
		return l.padStructs(l.constructed)
	}
	return nil
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
		if (s.op == "/=" || s.op == "%=") && (lt == nil || leaf(lt).isFloat()) {
			l.c.dependsOnContext(s.opPos, "it divides floats")
		}
		if s.op == "*=" && (lt == nil || leaf(lt).isFloat()) && l.isZero(s.rhs, 0) {
			l.zeroProduct(s.opPos)
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
	if d.kind == "let" && d.init != nil {
		loc.zero = l.isZero(d.init, 0)
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

// rankZeroInit orders the two insertions of a var's explicit zero value
// (" = T" and "()") at the end of its type.
const rankZeroInit = 6_000_000
