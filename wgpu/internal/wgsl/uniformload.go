package wgsl

import (
	"strconv"
	"strings"
)

// workgroupUniformLoad has an overload for atomics (WGSL §
// "workgroupUniformLoad": p: ptr<workgroup, atomic<T>, read_write>, T i32
// or u32, returning T) that naga v22 lacks: it types the call's result as
// the atomic itself and refuses its use ("workgroupUniformLoad result type
// can't be [3]", "Incompatible operands: GreaterEqual(Atomic(...), _)").
// The call becomes one of a helper appended after the last line, with the
// overload's meaning built from what naga v22 has:
//
//	var<workgroup> P_uniform_u32: u32;
//	fn P_uniform_load1(P_index1: u32) -> u32 { workgroupBarrier();
//	    P_uniform_u32 = atomicLoad(&arr[P_index1].count);
//	    return workgroupUniformLoad(&P_uniform_u32); }
//
// The first barrier orders the load after every invocation's earlier
// atomic writes, as the overload's barrier does; between it and
// workgroupUniformLoad's own barrier nothing writes the atomic, so every
// invocation stores the same value into the temporary, and the non-atomic
// workgroupUniformLoad returns it to all of them, uniform for WGSL's
// analysis as the overload's result is (naga v22 checks no barrier's
// uniformity). One temporary per element type serves every call: calls
// are barriers apart.
//
// The pointer must be written in the call as the address of a module-scope
// var<workgroup> or of an element or member of one (&a, &arr[i], &s.f,
// &arr[i].f): a pointer parameter to workgroup memory needs the language
// extension unrestricted_pointer_parameters, and naga v22 aborts on a
// pointer argument into part of a variable, so each index written there
// becomes an argument of the helper instead (a constant index its value),
// evaluated once, in order, where the pointer was. Any other form (a let
// or parameter holding the pointer) is an *Error naming it.
//
// On OpenGL the load is atomicOr(p, 0), as atomicLoadOnGL makes every
// atomicLoad there.
func (l *lowerer) atomicUniformLoad(e *callExpr) {
	if l.inHelper || l.inConst || len(e.args) != 1 {
		return
	}
	pt := l.types[e.args[0]]
	if pt == nil || pt.kind != typePtr || pt.elem == nil || pt.elem.kind != typeAtomic {
		return
	}
	k := pt.elem.scalar
	if k != scalarI32 && k != scalarU32 {
		return
	}
	arg := e.args[0]
	steps, root, why := accessChain(arg)
	if why != "" {
		l.refuseUniformLoad(arg, why)
		return
	}
	if loc := l.lookup(root.name); loc != nil {
		l.refuseUniformLoad(arg, "it goes through "+root.name+", a pointer held in a let or parameter: write the address of the variable or its part in the call")
		return
	}
	if d, ok := l.c.m.names[root.name].(*varDecl); !ok || d.space != "workgroup" {
		return // not valid WGSL: left to the compiler, which refuses it
	}
	elem := l.typeText(scalarTy(k))
	if elem == "" {
		l.refuseUniformLoad(arg, "the module redeclares "+k.String()+", the helper's result type")
		return
	}
	fn, kept, why := l.uniformLoadHelper(root, steps, elem)
	if why != "" {
		l.refuseUniformLoad(arg, why)
		return
	}
	l.callUniformLoad(e, fn, kept)
}

// refuseUniformLoad records the refusal of workgroupUniformLoad(arg) of an
// atomic, why saying what about arg the rewrite cannot take, unless an
// earlier pointer error is recorded.
func (l *lowerer) refuseUniformLoad(arg expr, why string) {
	if l.ptrErr == nil {
		l.ptrErr = l.c.errorf(arg.exprPos(), "workgroupUniformLoad(%s) of an atomic: the bundled compiler lacks this overload, and the front-end rewrites it "+
			"only for an argument written as the address of a module-scope var<workgroup> or of an element or member of one (&a, &arr[i], &s.f, &arr[i].f); "+
			"here %s", format(arg), why)
	}
}

// accessChain reads arg, the pointer argument of workgroupUniformLoad, as
// the address of the variable root followed by the member and index steps,
// outermost step first; why says, when it is not one, what it is instead.
func accessChain(arg expr) (steps []expr, root *identExpr, why string) {
	u, ok := unparen(arg).(*unaryExpr)
	if !ok || u.op != "&" {
		return nil, nil, "the pointer is held in " + format(arg) + ": write the address in the call"
	}
	x := unparen(u.x)
	for root == nil {
		switch v := x.(type) {
		case *indexExpr:
			steps = append(steps, v)
			x = unparen(v.x)
		case *memberExpr:
			steps = append(steps, v)
			x = unparen(v.x)
		case *unaryExpr:
			inner, ok := unparen(v.x).(*unaryExpr)
			switch {
			case v.op == "&":
				// (&s).f, pointer_composite_access: the same reference.
				x = unparen(v.x)
			case v.op == "*" && ok && inner.op == "&":
				x = unparen(inner.x)
			default:
				return nil, nil, "it dereferences the pointer " + format(v.x) + ": write the address of the variable or its part in the call"
			}
		case *identExpr:
			root = v
		default:
			return nil, nil, "its base " + format(x) + " is not a variable"
		}
	}
	return steps, root, ""
}

// uniformLoadHelper records the helper that loads the atomic at root and
// steps (outermost first) into the var<workgroup> temporary of type elem
// and returns workgroupUniformLoad of it; it returns the helper's name and
// the index expressions that become its arguments, in order. why says,
// when there is no helper, which index it cannot take.
func (l *lowerer) uniformLoadHelper(root *identExpr, steps []expr, elem string) (fn string, kept []expr, why string) {
	h := &l.c.helpers
	h.choosePrefix(l.c.m.src)
	if h.builtins == nil {
		h.builtins = map[string]string{}
	}
	// The chain as the helper writes it, innermost step first; each index
	// not a constant becomes a parameter, its expression an argument.
	var chain, params strings.Builder
	chain.WriteString(l.nagaName(root.name))
	for i := len(steps) - 1; i >= 0; i-- {
		switch s := steps[i].(type) {
		case *memberExpr:
			chain.WriteString("." + l.nagaName(s.name))
		case *indexExpr:
			if v, err := l.c.eval(s.index, true); err == nil && v.kind.isInt() {
				chain.WriteString("[" + literalText(v) + "]")
				continue
			}
			it := l.typeText(concrete(l.types[s.index]))
			if it != "i32" && it != "u32" {
				return "", nil, "the index " + format(s.index) + " is not known to be an i32 or u32"
			}
			p := h.prefix + "index" + strconv.Itoa(len(kept)+1)
			if len(kept) > 0 {
				params.WriteString(", ")
			}
			params.WriteString(p + ": " + it)
			chain.WriteString("[" + p + "]")
			kept = append(kept, s.index)
		}
	}
	tmp := h.prefix + "uniform_" + elem
	if _, ok := h.builtins[tmp]; !ok {
		h.builtins[tmp] = "var<workgroup> " + tmp + ": " + elem + ";"
		h.builtinOrder = append(h.builtinOrder, tmp)
	}
	load := "atomicLoad(&" + chain.String() + ")"
	if l.c.opengl {
		load = "atomicOr(&" + chain.String() + ", 0" + elem[:1] + ")"
	}
	sig := "(" + params.String() + ") -> " + elem + " { workgroupBarrier(); " + tmp + " = " + load + "; return workgroupUniformLoad(&" + tmp + "); }"
	if l.uniformLoads == nil {
		l.uniformLoads = map[string]string{}
	}
	fn, ok := l.uniformLoads[sig]
	if !ok {
		fn = h.prefix + "uniform_load" + strconv.Itoa(len(l.uniformLoads)+1)
		l.uniformLoads[sig] = fn
		h.builtins[fn] = "fn " + fn + sig
		h.builtinOrder = append(h.builtinOrder, fn)
	}
	if l.c.uniformTemps == nil {
		l.c.uniformTemps = map[string][]*fnDecl{}
	}
	l.c.uniformTemps[tmp] = append(l.c.uniformTemps[tmp], l.fn)
	return fn, kept, ""
}

// callUniformLoad replaces call e by a call of the helper fn with the
// index expressions kept as its arguments. The call's text between them is
// replaced, so their own rewrites (a division's helper) stay, and so do the
// lines.
func (l *lowerer) callUniformLoad(e *callExpr, fn string, kept []expr) {
	src := l.c.m.src
	gap := func(start, end int, text string) {
		l.c.edits = append(l.c.edits, edit{start, end, keepLines(src[start:end], text)})
	}
	if len(kept) == 0 {
		gap(e.fn.pos, e.end, fn+"()")
		return
	}
	gap(e.fn.pos, kept[0].exprPos(), fn+"(")
	for i := 1; i < len(kept); i++ {
		gap(exprEnd(kept[i-1]), kept[i].exprPos(), ", ")
	}
	gap(exprEnd(kept[len(kept)-1]), e.end, ")")
}

// nagaName is name as the rewritten module spells it: with the helpers'
// prefix when naga v22 reserves it (renameReserved).
func (l *lowerer) nagaName(name string) string {
	if nagaReserved[name] {
		l.c.helpers.choosePrefix(l.c.m.src)
		return l.c.helpers.prefix + name
	}
	return name
}

// uniformLoadStorage is the workgroup storage the temporaries of
// atomicUniformLoad add for an entry point reaching the functions
// reached: 16 bytes (a u32 or i32 rounded up as Kernel.WorkgroupStorage
// counts it) for each temporary one of them uses.
func (c *checker) uniformLoadStorage(reached []*fnDecl) uint64 {
	in := map[*fnDecl]bool{}
	for _, f := range reached {
		in[f] = true
	}
	var n uint64
	for _, fns := range c.uniformTemps {
		for _, f := range fns {
			if in[f] {
				n += 16
				break
			}
		}
	}
	return n
}
