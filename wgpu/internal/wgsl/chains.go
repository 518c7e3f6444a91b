package wgsl

import "strconv"

// Chained float operations: the third way a float kernel's result can
// depend on the module it is compiled in, on some devices
// (Kernel.ChainsFloats).
//
// A float +, - or * is correctly rounded, but WGSL (like SPIR-V without
// NoContraction and GLSL without precise, which is what naga v22 writes)
// lets a compiler contract a multiply and the add that takes its result
// into one fma, and reassociate the multiply a transcendental hides
// (exp(a - c) as ex2(a·log2e - c·log2e)). Whether it does is its choice,
// and NVIDIA's Vulkan compiler chose differently for a kernel alone and
// the same kernel inside a fused module, even as its first part: `exp(abs(
// p.c + old * 1.5)) * p.c` differed by 24 ULP in one element, and kernels
// of only +, -, *, exp and tanh by 1 or 2 ULP in 8 random chains of 10000
// (docs/fusion.md). One operation alone has no such freedom; a kernel where
// one float operation's result reaches another (through an expression, a
// let, a var, a parameter or a return) has. Whether a device's compiler
// keeps such kernels' bits in another context is measured, not known
// (wgpu.Device.FusesChainedFloats): fusion leaves them unfused on the
// others.
//
// The analysis is flow-insensitive, over every function the entry point
// reaches: a name holds a rounded value if any assignment gives it one; a
// parameter if any call passes one; a function returns one if any return
// does.

// chains finds the first float operation of the reached functions taking
// another's result, and records it as the kernel's ChainReason.
func (l *lowerer) chains() {
	ch := &chainFinder{l: l, rounded: map[*fnDecl]map[string]bool{}, returns: map[*fnDecl]bool{}, privates: map[string]bool{}}
	for _, f := range l.c.reached {
		ch.rounded[f] = map[string]bool{}
	}
	for changed := true; changed; {
		ch.changed = false
		for _, f := range l.c.reached {
			ch.fn = f
			ch.stmt(f.body)
		}
		changed = ch.changed
	}
	ch.report = true
	for _, f := range l.c.reached {
		ch.fn = f
		ch.stmt(f.body)
	}
}

type chainFinder struct {
	l        *lowerer
	fn       *fnDecl
	rounded  map[*fnDecl]map[string]bool // a function's names holding a rounded float
	returns  map[*fnDecl]bool            // functions returning one
	privates map[string]bool             // var<private> and var<workgroup> holding one
	changed  bool
	report   bool // the names have settled: report the first chain
	found    bool
}

func (ch *chainFinder) mark(set map[string]bool, name string) {
	if !set[name] {
		set[name] = true
		ch.changed = true
	}
}

func (ch *chainFinder) stmt(s stmt) {
	switch s := s.(type) {
	case *blockStmt:
		for _, t := range s.stmts {
			ch.stmt(t)
		}
	case *declStmt:
		if s.init != nil && ch.expr(s.init) {
			ch.mark(ch.rounded[ch.fn], s.name)
		}
	case *exprsStmt:
		for _, e := range s.exprs {
			ch.expr(e)
		}
	case *assignStmt:
		r := ch.expr(s.rhs)
		ch.expr(s.lhs)
		if s.op != "=" && s.op != "<<=" && s.op != ">>=" && ch.l.types[s.lhs] != nil && leaf(ch.l.types[s.lhs]).isFloat() {
			// x += e is an operation on x and e.
			ch.operation(s.opPos, ch.expr(s.lhs) || r)
			r = true
		}
		if r {
			if name := rootName(s.lhs); name != "" {
				switch v, ok := ch.l.c.m.names[name].(*varDecl); {
				case ch.declaresLocal(name) || !ok:
					ch.mark(ch.rounded[ch.fn], name)
				case v.space == "private" || v.space == "workgroup":
					ch.mark(ch.privates, name)
				}
				// (storage is memory: what a later load of it reads is not
				// known to be this value)
			}
		}
	case *returnStmt:
		if s.x != nil && ch.expr(s.x) && !ch.returns[ch.fn] {
			ch.returns[ch.fn] = true
			ch.changed = true
		}
	case *caseStmt:
		ch.expr(s.selector)
	}
}

// declaresLocal reports whether the function being walked has a local or
// parameter of that name (which then shadows a module-scope var; being
// flow-insensitive, any such declaration counts).
func (ch *chainFinder) declaresLocal(name string) bool {
	for _, p := range ch.fn.params {
		if p.name == name {
			return true
		}
	}
	found := false
	var walk func(s stmt)
	walk = func(s stmt) {
		switch s := s.(type) {
		case *blockStmt:
			for _, t := range s.stmts {
				walk(t)
			}
		case *declStmt:
			found = found || s.name == name
		}
	}
	walk(ch.fn.body)
	return found
}

// rootName is the variable an assignment's left side writes into.
func rootName(e expr) string {
	switch e := unparen(e).(type) {
	case *identExpr:
		return e.name
	case *indexExpr:
		return rootName(e.x)
	case *memberExpr:
		return rootName(e.x)
	case *unaryExpr:
		return rootName(e.x)
	}
	return ""
}

// expr reports whether e's value is (or holds, for a composite) the
// result of a float operation; operations taking one are reported.
func (ch *chainFinder) expr(e expr) bool {
	switch e := e.(type) {
	case *parenExpr:
		return ch.expr(e.x)
	case *identExpr:
		return ch.rounded[ch.fn][e.name] || ch.privates[e.name]
	case *unaryExpr:
		return ch.expr(e.x) // -x and abs are exact; & and * pass it on
	case *indexExpr:
		ch.expr(e.index)
		return ch.expr(e.x)
	case *memberExpr:
		return ch.expr(e.x)
	case *binaryExpr:
		x, y := ch.expr(e.x), ch.expr(e.y)
		switch e.op {
		case "+", "-", "*", "/", "%":
			if ch.l.mayBeFloat(e.x) || ch.l.mayBeFloat(e.y) {
				ch.operation(e.pos, x || y)
				return true
			}
		}
		return x || y
	case *callExpr:
		return ch.call(e)
	}
	return false
}

func (ch *chainFinder) call(e *callExpr) bool {
	args := make([]bool, len(e.args))
	anyArg := false
	for i, a := range e.args {
		args[i] = ch.expr(a)
		anyArg = anyArg || args[i]
	}
	if f, ok := ch.l.c.m.names[e.fn.name].(*fnDecl); ok {
		if set := ch.rounded[f]; set != nil {
			for i := range f.params {
				if i < len(args) && args[i] {
					ch.mark(set, f.params[i].name)
				}
			}
		}
		return ch.returns[f]
	}
	if _, ok := ch.l.c.m.names[e.fn.name]; ok || e.fn.tmpl != nil || typeNames[e.fn.name] || exactCalls[e.fn.name] {
		return anyArg // a constructor, a conversion or an exact builtin
	}
	for _, a := range e.args {
		if ch.l.mayBeFloat(a) {
			ch.operation(e.fn.pos, anyArg)
			return true
		}
	}
	return anyArg
}

// operation reports, once the names have settled, the first float
// operation at pos taking another's result.
func (ch *chainFinder) operation(pos int, chained bool) {
	if !ch.report || !chained || ch.found {
		return
	}
	ch.found = true
	ch.l.c.chainsFloats = true
	ch.l.c.chainWhy = "it feeds one float operation's result to another (line " + strconv.Itoa(errorAt(ch.l.c.m.src, pos, "").Line) + ")"
}
