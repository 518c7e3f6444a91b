package wgsl

import "strings"

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
