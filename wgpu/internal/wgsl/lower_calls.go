package wgsl

import "strings"

// call types call e (callType) and then records the rewrites a builtin
// call needs beyond its arguments' conversions: the packed-integer
// signatures, the helpers of builtins naga v22 gets wrong (builtins.go),
// the OpenGL rewrites of atomics and texture queries, and the exact
// integer conversions (conversionHelper).
func (l *lowerer) call(e *callExpr) *ty {
	t := l.callType(e)
	name := e.fn.name
	builtin := l.lookup(name) == nil && l.c.m.names[name] == nil
	if builtin && len(e.args) > 0 {
		t = l.builtinRewrites(e, t)
	}
	if builtin && len(e.args) == 1 {
		l.integerConversion(e, t)
	}
	return t
}

// contextDependentCalls are the builtins whose result on a NaN operand
// SPIR-V's GLSL.std.450 (FMin, FMax, FClamp) or GLSL leaves undefined,
// those specified through them, and fma, which may round once or twice
// (Kernel.ContextDependent).
var contextDependentCalls = map[string]bool{"min": true, "max": true, "clamp": true, "saturate": true, "step": true, "smoothstep": true, "sign": true, "fma": true}

// builtinRewrites records the rewrites of a call e of a predeclared
// function with arguments, typed t by callType, and returns its type: the
// packed-integer builtins take their signature's.
func (l *lowerer) builtinRewrites(e *callExpr, t *ty) *ty {
	name := e.fn.name
	if sig, ok := packedSignatures[name]; ok && len(e.args) == len(sig)-1 {
		for i, a := range e.args {
			l.coerce(a, sig[i])
		}
		t = sig[len(sig)-1]
	}
	t0 := l.types[e.args[0]]
	if contextDependentCalls[name] && (t0 == nil || leaf(t0).isFloat()) {
		l.c.dependsOnContext(e.fn.pos, "it calls "+name+" on floats")
	}
	if name == "dot" && len(e.args) == 2 && (t0 == nil || leaf(t0).isFloat()) &&
		(l.zeroConstant(e.args[0], e.args[1]) || l.zeroConstant(e.args[1], e.args[0])) {
		// A sum of products with zero (zeroConstant).
		l.zeroProduct(e.fn.pos)
	}
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
	switch name {
	case "atomicLoad":
		l.atomicLoadOnGL(e, t)
	case "atomicCompareExchangeWeak":
		if l.c.opengl && l.cmpxchg < 0 {
			l.cmpxchg = e.fn.pos
		}
	case "workgroupUniformLoad":
		l.atomicUniformLoad(e)
	case "textureNumLevels":
		l.numLevelsOnGL(e)
	}
	if strings.HasPrefix(name, "unpack") && !l.inConst {
		l.constUnpack(e, name)
	}
	return t
}

// integerConversion records the helper of a conversion to a concrete
// integer scalar or vector, e a call of a predeclared type with one
// argument typed t (conversionHelper).
func (l *lowerer) integerConversion(e *callExpr, t *ty) {
	res := integerTypeName(t)
	if res == "" {
		return
	}
	name := e.fn.name
	if _, ok := scalarNames[name]; ok {
		l.conversionHelper(e, res, l.types[e.args[0]])
	} else if _, _, ok := vecName(name); ok {
		l.conversionHelper(e, res, l.types[e.args[0]])
	}
}

// callType types call e, recording the lowering of its arguments: a call
// of the module's own function or type (a struct or an alias), else of a
// predeclared function or type, by its handler in builtinCalls. A call
// whose name a local declaration shadows, or whose function nothing here
// knows, has no known type.
func (l *lowerer) callType(e *callExpr) *ty {
	name := e.fn.name
	if l.lookup(name) != nil {
		return nil
	}
	switch d := l.c.m.names[name].(type) {
	case *fnDecl:
		return l.userCall(e, d)
	case *structDecl, *aliasDecl:
		t := l.resolve(e.fn)
		if t != nil && t.st != nil && len(e.args) > 0 {
			l.constructed[t.st] = true
		}
		return l.construct(e, t)
	case nil:
		if h, ok := builtinCalls[name]; ok {
			return h(l, e)
		}
	}
	return l.argsOnly(e)
}

// argsOnly checks the arguments of a call whose result type the lowering
// does not know.
func (l *lowerer) argsOnly(e *callExpr) *ty {
	for _, a := range e.args {
		l.check(a)
	}
	return nil
}

// userCall types a call of the module's function d, converting each
// argument to its parameter's type.
func (l *lowerer) userCall(e *callExpr, d *fnDecl) *ty {
	name := e.fn.name
	for i, a := range e.args {
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
