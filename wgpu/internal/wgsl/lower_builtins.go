package wgsl

// sameType are the builtins whose arguments and result share one type (or
// its component type): the numeric, bit and geometric builtins.
var sameType = map[string]bool{
	"abs": true, "acos": true, "acosh": true, "asin": true, "asinh": true, "atan": true, "atanh": true,
	"atan2": true, "ceil": true, "clamp": true, "cos": true, "cosh": true, "countLeadingZeros": true,
	"countOneBits": true, "countTrailingZeros": true, "cross": true, "degrees": true, "exp": true,
	"exp2": true, "faceForward": true, "firstLeadingBit": true, "firstTrailingBit": true, "floor": true,
	"fma": true, "fract": true, "inverseSqrt": true, "log": true, "log2": true, "max": true, "min": true,
	"mix": true, "normalize": true, "pow": true, "quantizeToF16": true, "radians": true, "reflect": true,
	"reverseBits": true, "round": true, "saturate": true, "sign": true, "sin": true, "sinh": true,
	"smoothstep": true, "sqrt": true, "step": true, "tan": true, "tanh": true, "trunc": true,
	"dpdx": true, "dpdxCoarse": true, "dpdxFine": true, "dpdy": true, "dpdyCoarse": true,
	"dpdyFine": true, "fwidth": true, "fwidthCoarse": true, "fwidthFine": true,
}

// integerBuiltins are the sameType builtins that take integers too; the
// others take floats only.
var integerBuiltins = map[string]bool{
	"abs": true, "clamp": true, "countLeadingZeros": true, "countOneBits": true,
	"countTrailingZeros": true, "firstLeadingBit": true, "firstTrailingBit": true, "max": true,
	"min": true, "reverseBits": true, "sign": true,
}

var atomicValue = map[string]bool{
	"atomicStore": true, "atomicAdd": true, "atomicSub": true, "atomicMax": true, "atomicMin": true,
	"atomicAnd": true, "atomicOr": true, "atomicXor": true, "atomicExchange": true,
}

var fixedResult = map[string]*ty{
	"arrayLength": scalarTy(scalarU32), "all": scalarTy(scalarBool), "any": scalarTy(scalarBool),
	"pack4x8snorm": scalarTy(scalarU32), "pack4x8unorm": scalarTy(scalarU32),
	"pack2x16snorm": scalarTy(scalarU32), "pack2x16unorm": scalarTy(scalarU32),
	"pack2x16float": scalarTy(scalarU32), "pack4xI8": scalarTy(scalarU32), "pack4xU8": scalarTy(scalarU32),
	"pack4xI8Clamp": scalarTy(scalarU32), "pack4xU8Clamp": scalarTy(scalarU32),
	"unpack4x8snorm": vecTy(4, scalarF32), "unpack4x8unorm": vecTy(4, scalarF32),
	"unpack2x16snorm": vecTy(2, scalarF32), "unpack2x16unorm": vecTy(2, scalarF32),
	"unpack2x16float": vecTy(2, scalarF32), "unpack4xI8": vecTy(4, scalarI32), "unpack4xU8": vecTy(4, scalarU32),
	"dot4U8Packed": scalarTy(scalarU32), "dot4I8Packed": scalarTy(scalarI32),
	"textureNumLayers": scalarTy(scalarU32), "textureNumLevels": scalarTy(scalarU32),
	"textureNumSamples": scalarTy(scalarU32), "textureSampleCompare": scalarTy(scalarF32),
	"textureSampleCompareLevel": scalarTy(scalarF32),
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
