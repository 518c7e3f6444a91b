package wgsl

import "maps"

// builtinCall types a call of a predeclared function or type, converting
// the abstract arguments whose type the builtin fixes; nil when the result
// type is not known.
type builtinCall func(l *lowerer, e *callExpr) *ty

// builtinCalls is the handler of every predeclared name the lowering types
// a call of, merged from builtinFamilies by init and never changed after.
// A predeclared name not here has its arguments checked and no known result
// type (argsOnly).
var builtinCalls = map[string]builtinCall{}

func init() {
	for _, family := range builtinFamilies() {
		maps.Copy(builtinCalls, family)
	}
}

// builtinFamilies are the handler tables, one per family of builtins
// (WGSL § "Built-in Functions"); no name is in two of them.
func builtinFamilies() []map[string]builtinCall {
	return []map[string]builtinCall{
		constructorCalls(),
		numericCalls(),
		geometricCalls(),
		bitCalls(),
		floatCalls(),
		logicalCalls(),
		atomicCalls(),
		packingCalls(),
		textureCalls(),
	}
}

// fixed is the handler of a builtin whose result type is t whatever its
// arguments.
func fixed(t *ty) builtinCall {
	return func(l *lowerer, e *callExpr) *ty {
		l.argsOnly(e)
		return t
	}
}

// constructorCalls are the value constructors and conversions of the
// predeclared types: bool, i32, u32, f32, f16, vecN and matCxR (with their
// aliases vec3f, mat4x4h...), array and bitcast.
func constructorCalls() map[string]builtinCall {
	calls := map[string]builtinCall{
		"array":   (*lowerer).arrayCall,
		"bitcast": (*lowerer).bitcastCall,
	}
	for name := range scalarNames {
		calls[name] = (*lowerer).conversionCall
	}
	suffixes := []string{""}
	for s := range aliasSuffix {
		suffixes = append(suffixes, string(s))
	}
	for _, n := range []string{"2", "3", "4"} {
		for _, s := range suffixes {
			if _, _, ok := vecName("vec" + n + s); ok {
				calls["vec"+n+s] = (*lowerer).vecCall
			}
			for _, rows := range []string{"2", "3", "4"} {
				if _, _, _, ok := matName("mat" + n + "x" + rows + s); ok {
					calls["mat"+n+"x"+rows+s] = (*lowerer).matCall
				}
			}
		}
	}
	return calls
}

// conversionCall types bool(x), i32(x), u32(x), f32(x) and f16(x).
func (l *lowerer) conversionCall(e *callExpr) *ty {
	l.argsOnly(e)
	t := l.resolve(e.fn)
	if t != nil {
		l.foldAbstractFloatConversion(e, t)
	}
	return t
}

// vecCall types a vector constructor, typed (vec2<u32>(...), vec3f(...))
// or inferred from its arguments (vec2(...)).
func (l *lowerer) vecCall(e *callExpr) *ty {
	n, _, _ := vecName(e.fn.name)
	t := l.resolve(e.fn)
	if t.scalar == 0 && len(e.args) == 0 {
		// vecN(): the zero vector of abstract integers, converted
		// where it is used (var v: vec2<u32> = vec2();): its zero
		// literal gets that type (push).
		l.zeroVecs[e] = true
		return vecTy(int(n), scalarAbstractInt)
	}
	if t.scalar == 0 { // vecN(...): the arguments' type
		u := l.unify(e.args)
		t.scalar = leaf(u)
		if t.scalar == 0 {
			return nil
		}
		return vecTy(int(n), t.scalar)
	}
	return l.construct(e, t)
}

// matCall types a matrix constructor, typed or inferred from its
// arguments.
func (l *lowerer) matCall(e *callExpr) *ty {
	t := l.resolve(e.fn)
	if t.scalar == 0 {
		t.scalar = leaf(l.unify(e.args))
		if t.scalar == 0 {
			return nil
		}
		return t
	}
	return l.construct(e, t)
}

// arrayCall types an array constructor, typed (array<u32, 3>(...)) or
// inferred from its elements (array(...)).
func (l *lowerer) arrayCall(e *callExpr) *ty {
	if e.fn.tmpl == nil {
		u := l.unify(e.args)
		if u == nil {
			return nil
		}
		return &ty{kind: typeArray, elem: u, n: len(e.args)}
	}
	return l.construct(e, l.resolve(e.fn))
}

// bitcastCall types bitcast<T>(x): T.
func (l *lowerer) bitcastCall(e *callExpr) *ty {
	l.argsOnly(e)
	if len(e.fn.tmpl) == 1 {
		return l.resolve(e.fn.tmpl[0])
	}
	return nil
}

// numericNames are the builtins whose arguments and result share one type
// (or its component type): the numeric, bit-counting and geometric
// builtins of one type throughout, and the derivatives.
var numericNames = []string{
	"abs", "acos", "acosh", "asin", "asinh", "atan", "atanh",
	"atan2", "ceil", "clamp", "cos", "cosh", "countLeadingZeros",
	"countOneBits", "countTrailingZeros", "cross", "degrees", "exp",
	"exp2", "faceForward", "firstLeadingBit", "firstTrailingBit", "floor",
	"fma", "fract", "inverseSqrt", "log", "log2", "max", "min",
	"mix", "normalize", "pow", "quantizeToF16", "radians", "reflect",
	"reverseBits", "round", "saturate", "sign", "sin", "sinh",
	"smoothstep", "sqrt", "step", "tan", "tanh", "trunc",
	"dpdx", "dpdxCoarse", "dpdxFine", "dpdy", "dpdyCoarse",
	"dpdyFine", "fwidth", "fwidthCoarse", "fwidthFine",
}

// integerBuiltins are the numericNames that take integers too; the others
// take floats only.
var integerBuiltins = map[string]bool{
	"abs": true, "clamp": true, "countLeadingZeros": true, "countOneBits": true,
	"countTrailingZeros": true, "firstLeadingBit": true, "firstTrailingBit": true, "max": true,
	"min": true, "reverseBits": true, "sign": true,
}

// numericCalls are the builtins of numericNames.
func numericCalls() map[string]builtinCall {
	calls := map[string]builtinCall{}
	for _, name := range numericNames {
		calls[name] = (*lowerer).numericCall
	}
	return calls
}

// numericCall types a builtin of numericNames: its arguments' unified
// type.
func (l *lowerer) numericCall(e *callExpr) *ty {
	u := l.unify(e.args)
	if leaf(u) == scalarAbstractInt && !integerBuiltins[e.fn.name] {
		// A float builtin of abstract integers (pow(1, 1)): WGSL
		// converts them to abstract floats, naga v22 refuses the
		// integers; they are spelled as f32, the type an abstract
		// float becomes where nothing else asks.
		for _, a := range e.args {
			l.push(a, scalarF32)
		}
		return withLeaf(u, scalarF32)
	}
	return u
}

// geometricCalls are the vector and matrix builtins whose result is not
// their arguments' type.
func geometricCalls() map[string]builtinCall {
	return map[string]builtinCall{
		"dot":         (*lowerer).componentCall,
		"length":      (*lowerer).componentCall,
		"distance":    (*lowerer).componentCall,
		"determinant": (*lowerer).componentCall,
		"transpose":   (*lowerer).transposeCall,
	}
}

// componentCall types dot, length, distance and determinant: the
// component type of their unified arguments.
func (l *lowerer) componentCall(e *callExpr) *ty {
	return scalarOf(l.unify(e.args))
}

// transposeCall types transpose(m): m's type with rows and columns swapped.
func (l *lowerer) transposeCall(e *callExpr) *ty {
	if len(e.args) == 1 {
		if t := l.check(e.args[0]); t != nil && t.kind == typeMat {
			return &ty{kind: typeMat, n: t.cols, cols: t.n, scalar: t.scalar}
		}
	}
	return nil
}

// bitCalls are the bit-field builtins, whose offset and count are u32.
func bitCalls() map[string]builtinCall {
	return map[string]builtinCall{
		"extractBits": (*lowerer).bitFieldCall,
		"insertBits":  (*lowerer).bitFieldCall,
	}
}

// bitFieldCall types extractBits(e, offset, count) and insertBits(e,
// newbits, offset, count): e's type, which insertBits' newbits takes too.
func (l *lowerer) bitFieldCall(e *callExpr) *ty {
	var first *ty
	for i, a := range e.args {
		t := l.check(a)
		switch {
		case i == 0:
			first = t
		case i == 1 && e.fn.name == "insertBits":
			l.coerce(a, first)
		default:
			l.coerce(a, scalarTy(scalarU32))
		}
	}
	return first
}

// floatCalls are the builtins that split or build a float from its parts.
func floatCalls() map[string]builtinCall {
	return map[string]builtinCall{
		"ldexp": (*lowerer).ldexpCall,
		"modf":  (*lowerer).decomposeCall,
		"frexp": (*lowerer).decomposeCall,
	}
}

// ldexpCall types ldexp(x, exponent): x's type; the exponent is an integer.
func (l *lowerer) ldexpCall(e *callExpr) *ty {
	if len(e.args) != 2 {
		return l.argsOnly(e)
	}
	t := l.check(e.args[0])
	l.check(e.args[1])
	l.toInt(e.args[1])
	return t
}

// decomposeCall types modf(x) and frexp(x): their result structs, of x's
// concrete type.
func (l *lowerer) decomposeCall(e *callExpr) *ty {
	if len(e.args) != 1 {
		return l.argsOnly(e)
	}
	t := concrete(l.check(e.args[0]))
	if t == nil {
		return nil
	}
	if e.fn.name == "modf" {
		return &ty{kind: typeStruct, fields: []field{{"fract", t}, {"whole", t}}}
	}
	return &ty{kind: typeStruct, fields: []field{{"fract", t}, {"exp", withLeaf(t, scalarI32)}}}
}

// logicalCalls are select and the vector reductions all and any.
func logicalCalls() map[string]builtinCall {
	return map[string]builtinCall{
		"select": (*lowerer).selectCall,
		"all":    fixed(scalarTy(scalarBool)),
		"any":    fixed(scalarTy(scalarBool)),
	}
}

// selectCall types select(f, t, cond): the unified type of f and t.
func (l *lowerer) selectCall(e *callExpr) *ty {
	if len(e.args) != 3 {
		return l.argsOnly(e)
	}
	l.check(e.args[2])
	return l.unify(e.args[:2])
}

// atomicCalls are the atomic builtins, workgroupUniformLoad (whose atomic
// overload reads an atomic) and arrayLength, the other builtin of a
// pointer into a buffer.
func atomicCalls() map[string]builtinCall {
	calls := map[string]builtinCall{
		"atomicLoad":                (*lowerer).atomicLoadCall,
		"atomicStore":               (*lowerer).atomicStoreCall,
		"atomicCompareExchangeWeak": (*lowerer).atomicCompareExchangeCall,
		"workgroupUniformLoad":      (*lowerer).workgroupUniformLoadCall,
		"arrayLength":               fixed(scalarTy(scalarU32)),
	}
	for _, name := range []string{"atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicAnd", "atomicOr", "atomicXor", "atomicExchange"} {
		calls[name] = (*lowerer).atomicRMWCall
	}
	return calls
}

// atomicLoadCall types atomicLoad(p): the atomic's scalar.
func (l *lowerer) atomicLoadCall(e *callExpr) *ty {
	if len(e.args) == 1 {
		if t := deref(l.check(e.args[0])); t != nil && t.kind == typeAtomic {
			return scalarTy(t.scalar)
		}
	}
	return nil
}

// atomicStoreCall types atomicStore(p, v), which returns nothing.
func (l *lowerer) atomicStoreCall(e *callExpr) *ty {
	l.atomicArgs(e.args)
	return nil
}

// atomicRMWCall types the read-modify-write atomics: the atomic's scalar.
func (l *lowerer) atomicRMWCall(e *callExpr) *ty {
	k := l.atomicArgs(e.args)
	if k == 0 {
		return nil
	}
	return scalarTy(k)
}

// atomicCompareExchangeCall types atomicCompareExchangeWeak: its result
// struct.
func (l *lowerer) atomicCompareExchangeCall(e *callExpr) *ty {
	k := l.atomicArgs(e.args)
	if k == 0 {
		return nil
	}
	return &ty{kind: typeStruct, fields: []field{{"old_value", scalarTy(k)}, {"exchanged", scalarTy(scalarBool)}}}
}

// workgroupUniformLoadCall types workgroupUniformLoad(p): p's store type.
func (l *lowerer) workgroupUniformLoadCall(e *callExpr) *ty {
	if len(e.args) != 1 {
		return l.argsOnly(e)
	}
	t := deref(l.check(e.args[0]))
	if t != nil && t.kind == typeAtomic {
		// The atomic overload returns the atomic's value.
		return scalarTy(t.scalar)
	}
	return t
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

// packingCalls are the data packing and unpacking builtins and the packed
// 4x8 integer dot products, whose types are fixed; call converts the
// arguments of those of packedSignatures.
func packingCalls() map[string]builtinCall {
	return map[string]builtinCall{
		"pack4x8snorm": fixed(scalarTy(scalarU32)), "pack4x8unorm": fixed(scalarTy(scalarU32)),
		"pack2x16snorm": fixed(scalarTy(scalarU32)), "pack2x16unorm": fixed(scalarTy(scalarU32)),
		"pack2x16float": fixed(scalarTy(scalarU32)), "pack4xI8": fixed(scalarTy(scalarU32)), "pack4xU8": fixed(scalarTy(scalarU32)),
		"pack4xI8Clamp": fixed(scalarTy(scalarU32)), "pack4xU8Clamp": fixed(scalarTy(scalarU32)),
		"unpack4x8snorm": fixed(vecTy(4, scalarF32)), "unpack4x8unorm": fixed(vecTy(4, scalarF32)),
		"unpack2x16snorm": fixed(vecTy(2, scalarF32)), "unpack2x16unorm": fixed(vecTy(2, scalarF32)),
		"unpack2x16float": fixed(vecTy(2, scalarF32)), "unpack4xI8": fixed(vecTy(4, scalarI32)), "unpack4xU8": fixed(vecTy(4, scalarU32)),
		"dot4U8Packed": fixed(scalarTy(scalarU32)), "dot4I8Packed": fixed(scalarTy(scalarI32)),
	}
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
