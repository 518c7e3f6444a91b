package wgsl

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Builtins the bundled compiler computes wrongly on some backend become
// calls of helpers appended after the last line, next to the division
// helpers and under the same prefix:
//
//   - pack4x8snorm and pack2x16snorm, everywhere: on lavapipe naga v22's
//     SPIR-V gives pack4x8snorm(vec4(-0.25, 0.5, 1.0, -2.0)) = 0xFFFFFFE0,
//     the first component's sign bits spilling over the other bytes (WGSL:
//     0x817F40E0). The helper computes WGSL's ⌊0.5 + 127 × clamp(e, -1, 1)⌋
//     per component and masks each to its byte.
//   - pack4x8unorm and pack2x16unorm, everywhere: the drivers round a
//     half to even (lavapipe and llvmpipe's GL: pack4x8unorm of 0.3, whose
//     product 255 × 0.3 is 76.5 in f32, gives 76); WGSL's
//     ⌊0.5 + 255 × clamp(e, 0, 1)⌋ is 77. The helper computes that.
//   - countOneBits, countLeadingZeros, countTrailingZeros, firstLeadingBit
//     and firstTrailingBit, on OpenGL: GLSL ES declares bitCount, findLSB
//     and findMSB lowp, so arithmetic on their results is done at low
//     precision (llvmpipe: countTrailingZeros(x) * 10000 wraps at 16 bits).
//     A user function's result has the default precision, highp: the helper
//     only returns the builtin's value.
//
//   - the builtins of the packed_4x8_integer_dot_product language feature
//     (dot4U8Packed, dot4I8Packed, pack4xI8, unpack4xU8, ...), which naga
//     v22 does not know, everywhere: the helper computes them from shifts,
//     masks and an integer dot.
//
//   - extractBits and insertBits, everywhere: SPIR-V and GLSL leave an
//     offset plus count over 32 undefined and WGSL clamps them (offset to
//     32, then count to 32 - offset). lavapipe's Vulkan gave
//     extractBits(1i, 31u, 9u) = 2 (WGSL: 0), llvmpipe's GL gave 0 where
//     WGSL keeps bits. The helper clamps first.
//   - clamp of integer or float scalars or vectors, everywhere unless its
//     bounds are constants with low <= high (orderedBounds): WGSL defines
//     it as min(max(e, low), high) for every operand, SPIR-V's clamp and
//     GLSL's leave low > high undefined, and the H200's GL driver gave
//     clamp(1, 31, 7) = 31 (WGSL: 7). The helper is WGSL's definition.
//   - ldexp of floats, everywhere, in two half steps: the H200's GL
//     overflowed 2^128 (ldexp(0.5, 128) gave +Inf, WGSL 2^127).
//   - i32(x), u32(x) and their vector forms of a runtime f32 x, which WGSL
//     saturates (conversionHelper).
//   - quantizeToF16, everywhere, which naga v22 does not know ("no
//     definition in scope"): the helper rounds the bits as a conversion to
//     binary16 and back does (WGSL leaves a value outside f16's finite
//     range indeterminate; the helper returns it unchanged).
//   - frexp, everywhere, whose argument goes through a helper that flushes
//     a subnormal to zero (lavapipe's frexp read a subnormal's mantissa as
//     a normal one's; WGSL allows the flush), and atan2, everywhere, whose
//     helper answers y = ±0 itself (lavapipe folded constant
//     atan2(-0.0, -1.0) into NaN).
//   - abs of u32 scalars and vectors, everywhere: it is its argument, and
//     naga v22's GLSL took it through int (llvmpipe: abs(0xFFFFFFFFu) = 1).
//     On OpenGL firstLeadingBit and firstTrailingBit of u32 spell their -1
//     out: llvmpipe folded firstLeadingBit(0u) of a constant into 0xFFFF.
//   - atomicLoad on OpenGL (atomicLoadOnGL).
//   - textureNumLevels on OpenGL (numLevelsOnGL), and a u32 level, sample
//     or array index of textureLoad, written i32(...) (levelToI32).
//   - unpack2x16float and the snorm/unorm unpack builtins of a constant
//     become their value (constUnpack).
//
// The helpers are exact as written, so a module this rewrite wrote reads
// back unchanged (isBuiltinHelper).

// packHelpers are the pack builtins always replaced, with their argument
// width, the scale and the mask of one component.
var packHelpers = map[string]struct {
	n               int
	lo, scale, mask string
}{
	"pack4x8snorm":  {4, "-1.0", "127.0", "255u"},
	"pack2x16snorm": {2, "-1.0", "32767.0", "65535u"},
	"pack4x8unorm":  {4, "0.0", "255.0", "255u"},
	"pack2x16unorm": {2, "0.0", "65535.0", "65535u"},
}

// packedHelpers are the builtins of WGSL's packed_4x8_integer_dot_product
// language feature, which naga v22 does not know, with their helpers'
// declarations after "fn NAME".
var packedHelpers = map[string]string{
	"dot4U8Packed":  "(a: u32, b: u32) -> u32 { return dot(vec4<u32>(a & 255u, (a >> 8u) & 255u, (a >> 16u) & 255u, a >> 24u), vec4<u32>(b & 255u, (b >> 8u) & 255u, (b >> 16u) & 255u, b >> 24u)); }",
	"dot4I8Packed":  "(a: u32, b: u32) -> i32 { return dot(vec4<i32>(bitcast<vec4<i32>>(vec4<u32>(a << 24u, a << 16u, a << 8u, a)) >> vec4<u32>(24u)), vec4<i32>(bitcast<vec4<i32>>(vec4<u32>(b << 24u, b << 16u, b << 8u, b)) >> vec4<u32>(24u))); }",
	"unpack4xU8":    "(a: u32) -> vec4<u32> { return vec4<u32>(a & 255u, (a >> 8u) & 255u, (a >> 16u) & 255u, a >> 24u); }",
	"unpack4xI8":    "(a: u32) -> vec4<i32> { return bitcast<vec4<i32>>(vec4<u32>(a << 24u, a << 16u, a << 8u, a)) >> vec4<u32>(24u); }",
	"pack4xU8":      "(e: vec4<u32>) -> u32 { let c = e & vec4<u32>(255u); return c.x | (c.y << 8u) | (c.z << 16u) | (c.w << 24u); }",
	"pack4xI8":      "(e: vec4<i32>) -> u32 { let c = bitcast<vec4<u32>>(e) & vec4<u32>(255u); return c.x | (c.y << 8u) | (c.z << 16u) | (c.w << 24u); }",
	"pack4xU8Clamp": "(e: vec4<u32>) -> u32 { let c = min(e, vec4<u32>(255u)); return c.x | (c.y << 8u) | (c.z << 16u) | (c.w << 24u); }",
	"pack4xI8Clamp": "(e: vec4<i32>) -> u32 { let c = bitcast<vec4<u32>>(clamp(e, vec4<i32>(-128i), vec4<i32>(127i))) & vec4<u32>(255u); return c.x | (c.y << 8u) | (c.z << 16u) | (c.w << 24u); }",
}

// intHelperBuiltins are the builtins replaced on every backend when their
// first argument is an i32 or u32 scalar or vector.
var intHelperBuiltins = []string{"extractBits", "insertBits", "clamp"}

// lowpHelpers are the bit builtins replaced on OpenGL.
var lowpHelpers = []string{"countOneBits", "countLeadingZeros", "countTrailingZeros", "firstLeadingBit", "firstTrailingBit"}

// builtinHelperName is the helper of builtin on arguments of type arg (its
// WGSL spelling, "" for the pack builtins), after prefix.
func builtinHelperName(prefix, builtin, arg string) string {
	r := strings.NewReplacer("<", "_", ">", "")
	if arg == "" {
		return prefix + r.Replace(builtin)
	}
	return prefix + r.Replace(builtin) + "_" + r.Replace(arg)
}

// builtinHelperDecl is the declaration of that helper, on one line.
func builtinHelperDecl(prefix, builtin, arg string) string {
	name := builtinHelperName(prefix, builtin, arg)
	if d, ok := packedHelpers[builtin]; ok {
		return "fn " + name + d
	}
	if p, ok := packHelpers[builtin]; ok {
		v := func(k string) string { return "vec" + strconv.Itoa(p.n) + "<" + k + ">" }
		b := "fn " + name + "(e: " + v("f32") + ") -> u32 { let c = " + v("u32") + "(" + v("i32") +
			"(floor(clamp(e, " + v("f32") + "(" + p.lo + "), " + v("f32") + "(1.0)) * " + p.scale + " + 0.5))) & " + v("u32") + "(" + p.mask + "); return c.x"
		shift := 32 / p.n
		for i, c := range "yzw"[:p.n-1] {
			b += " | (c." + string(c) + " << " + strconv.Itoa(shift*(i+1)) + "u)"
		}
		return b + "; }"
	}
	if res, ok := strings.CutPrefix(builtin, "to_"); ok {
		// lo and hi are the least and greatest f32 values inside the range:
		// below lo the result is the type's least value, above hi its
		// greatest, as Tint's polyfill computes them.
		lo, hi, least, greatest := "-2147483648.0", "2147483520.0", "-2147483647i - 1i", "2147483647i"
		if strings.HasSuffix(res, "u32>") || res == "u32" {
			lo, hi, least, greatest = "0.0", "4294967040.0", "0u", "4294967295u"
		}
		return "fn " + name + "(e: " + arg + ") -> " + res + " { return select(" + res + "(" + greatest + "), select(" + res + "(" + least + "), " +
			res + "(e), e >= " + arg + "(" + lo + ")), e <= " + arg + "(" + hi + ")); }"
	}
	switch builtin {
	case "quantizeToF16":
		// Rounds the f32 bits to binary16's 10 mantissa bits, to nearest
		// even, below 2^-14 to multiples of 2^-24 (binary16's subnormals),
		// and leaves values that do not round to a finite binary16, NaN included,
		// as they are (WGSL: indeterminate). Integer arithmetic, not
		// unpack2x16float(pack2x16float(e)): the H200's Vulkan driver folded
		// that pair to e.
		u := strings.Replace(arg, "f32", "u32", 1)
		return "fn " + name + "(e: " + arg + ") -> " + arg + " { let b = bitcast<" + u + ">(e); " +
			"let n = bitcast<" + arg + ">((b + " + u + "(4095u) + ((b >> " + u + "(13u)) & " + u + "(1u))) & " + u + "(4294959104u)); " +
			"let s = round(e * " + arg + "(16777216.0)) / " + arg + "(16777216.0); " +
			"return select(select(n, s, abs(e) < " + arg + "(0.00006103515625)), e, !(abs(e) < " + arg + "(65520.0))); }"
	case "frexp":
		// Flushes a subnormal argument to a zero of its sign, as WGSL allows:
		// lavapipe's frexp took 0x007fffff as 0.99999994 × 2^-126 (its
		// mantissa read as a normal one; WGSL: 0.99999988 × 2^-126, or 0 × 2^0
		// flushed) and -2^-149 as -0.50000006 × 2^-126.
		return "fn " + name + "(e: " + arg + ") -> " + arg + " { return select(e, e * " + arg + "(0.0), abs(e) < " + arg + "(1.17549435e-38)); }"
	case "ldexp":
		// ldexp(e, x) in two steps of about half the exponent each: WGSL
		// defines e × 2^x for every x up to 128 (bias + 1), and the H200's
		// GL computed it as e × 2^x with 2^128 overflowing, so
		// ldexp(0.5, 128) gave +Inf (WGSL: 2^127) and ldexp(0, 128) NaN.
		// The split depends on e's sign as well (half, or half plus one):
		// with x a constant and e not, lavapipe folded the two steps'
		// constant factors into one, 2^128 in f32, and gave +Inf again;
		// a split that is not a constant where e is not leaves nothing to
		// fold.
		ex := strings.Replace(arg, "f32", "i32", 1)
		return "fn " + name + "(e: " + arg + ", x: " + ex + ") -> " + arg + " { let h = x / " + ex + "(2i) + select(" + ex + "(0i), " + ex + "(1i), e < " + arg + "(0.0)); " +
			"return ldexp(ldexp(e, h), x - h); }"
	case "atan2":
		// atan2(±0, x) is 0 for x > 0 and π for x < 0 (WGSL's 4096 ULP accept
		// ±π there): lavapipe folded atan2 of constant vectors with y = -0.0
		// and x < 0 into NaN, though it computes π for the same values at run
		// time.
		return "fn " + name + "(y: " + arg + ", x: " + arg + ") -> " + arg + " { return select(atan2(y, x), select(" + arg + "(0.0), " + arg +
			"(3.14159274), x < " + arg + "(0.0)), y == " + arg + "(0.0)); }"
	case "extractBits":
		return "fn " + name + "(e: " + arg + ", offset: u32, count: u32) -> " + arg + " { let o = min(offset, 32u); return extractBits(e, o, min(count, 32u - o)); }"
	case "insertBits":
		return "fn " + name + "(e: " + arg + ", newbits: " + arg + ", offset: u32, count: u32) -> " + arg + " { let o = min(offset, 32u); return insertBits(e, newbits, o, min(count, 32u - o)); }"
	case "clamp":
		return "fn " + name + "(e: " + arg + ", low: " + arg + ", high: " + arg + ") -> " + arg + " { return min(max(e, low), high); }"
	}
	if builtin == "abs" {
		// abs of a u32 is its argument: naga v22's GLSL took it through
		// int, and llvmpipe gave abs(0xFFFFFFFFu) = 1.
		return "fn " + name + "(e: " + arg + ") -> " + arg + " { return e; }"
	}
	if strings.HasPrefix(builtin, "first") && strings.Contains(arg, "u32") {
		// -1 as a u32 is spelled out: llvmpipe's GL folded
		// firstLeadingBit(0u) of a constant at lowp into 0xFFFF. The let
		// (a highp variable in GLSL) keeps the select out of lowp.
		return "fn " + name + "(e: " + arg + ") -> " + arg + " { let r: " + arg + " = " + builtin + "(e); return select(r, " + arg + "(4294967295u), e == " + arg + "(0u)); }"
	}
	return "fn " + name + "(e: " + arg + ") -> " + arg + " { return " + builtin + "(e); }"
}

// conversionTargets are the integer types a float converts to, which WGSL
// saturates (u32(-1.5) is 0, i32(3e9) 2147483647) and naga v22 leaves to
// the target's conversion instruction (lavapipe and llvmpipe gave
// 0xFFFFFFFF and -2147483648): such a conversion of a runtime f32 becomes
// a helper that clamps first.
var conversionTargets = []string{"i32", "u32", "vec2<i32>", "vec2<u32>", "vec3<i32>", "vec3<u32>", "vec4<i32>", "vec4<u32>"}

// floatTypeName is the WGSL spelling of f32 scalar or vector t, or "".
func floatTypeName(t *ty) string {
	t = concrete(t)
	switch {
	case t == nil || t.scalar != scalarF32:
		return ""
	case t.kind == typeScalar:
		return "f32"
	case t.kind == typeVec:
		return "vec" + strconv.Itoa(t.n) + "<f32>"
	}
	return ""
}

// conversionHelper replaces conversion e to integer type res (its WGSL
// spelling) of an f32 value of type t by the saturating helper.
func (l *lowerer) conversionHelper(e *callExpr, res string, t *ty) {
	if l.inHelper || len(e.args) != 1 || abstractTy(t) {
		return
	}
	arg := floatTypeName(t)
	if arg == "" || (res == "i32" || res == "u32") != (arg == "f32") {
		return
	}
	h := &l.c.helpers
	h.choosePrefix(l.c.m.src)
	if h.builtins == nil {
		h.builtins = map[string]string{}
	}
	fn := builtinHelperName(h.prefix, "to_"+res, arg)
	if _, ok := h.builtins[fn]; !ok {
		h.builtins[fn] = builtinHelperDecl(h.prefix, "to_"+res, arg)
		h.builtinOrder = append(h.builtinOrder, fn)
	}
	l.c.edits = append(l.c.edits, edit{e.fn.pos, e.fn.end, fn})
}

// intTypeNames are the argument types of the lowp helpers.
var intTypeNames = []string{"i32", "u32", "vec2<i32>", "vec2<u32>", "vec3<i32>", "vec3<u32>", "vec4<i32>", "vec4<u32>"}

// builtinHelper replaces the name of call e, a builtin named name whose
// first argument has type t, by a helper's when the backend needs one; it
// records the helper.
func (l *lowerer) builtinHelper(e *callExpr, name string, t *ty) {
	if l.inHelper {
		return
	}
	arg := ""
	_, packed := packedHelpers[name]
	if name == "quantizeToF16" || name == "frexp" || name == "atan2" || name == "ldexp" || name == "clamp" && floatTypeName(t) != "" {
		if arg = floatTypeName(t); arg == "" || name == "frexp" && l.flushedArg(e) || name == "clamp" && l.orderedBounds(e) {
			return
		}
	} else if _, ok := packHelpers[name]; !ok && !packed {
		if !(l.c.opengl && slices.Contains(lowpHelpers, name)) && !slices.Contains(intHelperBuiltins, name) && name != "abs" {
			return
		}
		elem, n, ok := intElem(concrete(t))
		if !ok || name == "clamp" && l.orderedBounds(e) || name == "abs" && elem != elemU32 {
			return
		}
		arg = elemNames[elem]
		if n > 1 {
			arg = "vec" + strconv.Itoa(n) + "<" + arg + ">"
		}
	}
	h := &l.c.helpers
	h.choosePrefix(l.c.m.src)
	if h.builtins == nil {
		h.builtins = map[string]string{}
	}
	fn := builtinHelperName(h.prefix, name, arg)
	if _, ok := h.builtins[fn]; !ok {
		h.builtins[fn] = builtinHelperDecl(h.prefix, name, arg)
		h.builtinOrder = append(h.builtinOrder, fn)
	}
	if name == "frexp" {
		// frexp(e) becomes frexp(helper(e)): the result's struct type has
		// no name a helper could return.
		l.c.edits = append(l.c.edits, edit{e.fn.pos, e.fn.pos + len(name), "frexp(" + fn})
		l.c.inserts = append(l.c.inserts, insertion{at: e.end - 1, text: ")"})
		return
	}
	l.c.edits = append(l.c.edits, edit{e.fn.pos, e.fn.pos + len(name), fn})
}

// flushedArg reports whether frexp call e's argument is already a call of
// this rewrite's helper (a module it wrote, read again).
func (l *lowerer) flushedArg(e *callExpr) bool {
	if len(e.args) != 1 {
		return false
	}
	a, ok := unparen(e.args[0]).(*callExpr)
	if !ok {
		return false
	}
	f, ok := l.c.m.names[a.fn.name].(*fnDecl)
	return ok && l.c.isHelper(f)
}

// isBuiltinHelper reports whether f is, character for character, one of
// the builtin helpers under prefix.
func (c *checker) isBuiltinHelper(f *fnDecl, prefix string) bool {
	src := c.m.src[f.pos-len("fn "):]
	for _, b := range append(slices.Collect(maps.Keys(packHelpers)), slices.Collect(maps.Keys(packedHelpers))...) {
		if f.name == builtinHelperName(prefix, b, "") {
			return strings.HasPrefix(src, builtinHelperDecl(prefix, b, ""))
		}
	}
	for _, res := range conversionTargets {
		for _, a := range []string{"f32", "vec2<f32>", "vec3<f32>", "vec4<f32>"} {
			if f.name == builtinHelperName(prefix, "to_"+res, a) {
				return strings.HasPrefix(src, builtinHelperDecl(prefix, "to_"+res, a))
			}
		}
	}
	for _, a := range []string{"f32", "vec2<f32>", "vec3<f32>", "vec4<f32>"} {
		for _, b := range []string{"quantizeToF16", "frexp", "atan2", "ldexp", "clamp"} {
			if f.name == builtinHelperName(prefix, b, a) {
				return strings.HasPrefix(src, builtinHelperDecl(prefix, b, a))
			}
		}
	}
	for _, b := range append(slices.Clone(lowpHelpers), append(intHelperBuiltins, "abs")...) {
		for _, a := range intTypeNames {
			if f.name == builtinHelperName(prefix, b, a) {
				return strings.HasPrefix(src, builtinHelperDecl(prefix, b, a))
			}
		}
	}
	return false
}

// atomicLoadOnGL makes atomicLoad(p) on OpenGL an atomic read-modify-write
// that changes nothing, atomicOr(p, 0): naga v22 writes atomicLoad as a
// plain GLSL read of the buffer, which is not an atomic access (the
// buffer is not coherent), and the H200's GL driver let such a read miss
// the invocation's own atomicOr just before it (every one of 64
// invocations read 0). t is the call's result type, i32 or u32.
func (l *lowerer) atomicLoadOnGL(e *callExpr, t *ty) {
	if !l.c.opengl || l.inHelper || len(e.args) != 1 || t == nil || t.kind != typeScalar {
		return
	}
	zero := map[scalar]string{scalarI32: ", 0i", scalarU32: ", 0u"}[t.scalar]
	if zero == "" {
		return
	}
	l.c.edits = append(l.c.edits, edit{e.fn.pos, e.fn.pos + len("atomicLoad"), "atomicOr"})
	l.c.inserts = append(l.c.inserts, insertion{at: e.end - 1, text: zero})
}

// numLevelsOnGL makes textureNumLevels(t) on OpenGL
// (1u + 0u * textureDimensions(t).x): naga v22's GLSL writer needs
// textureQueryLevels, which the GLSL ES version wgpu targets lacks
// (pipeline creation failed with "The selected version doesn't support
// Features(TEXTURE_LEVELS)"), and every texture softgraph binds has one
// mip level. The texture stays an operand, so the binding stays used.
func (l *lowerer) numLevelsOnGL(e *callExpr) {
	if !l.c.opengl || l.inHelper || len(e.args) != 1 {
		return
	}
	t := l.check(e.args[0])
	if t == nil || t.kind != typeTexture {
		return
	}
	sel := ".x)"
	if t.n == 1 {
		sel = ")"
	}
	l.c.edits = append(l.c.edits, edit{e.fn.pos, e.fn.pos + len("textureNumLevels"), "textureDimensions"})
	l.c.inserts = append(l.c.inserts, insertion{at: e.fn.pos, text: "(1u + 0u * "}, insertion{at: e.end, text: sel})
}

// constUnpack replaces an unpack builtin of a constant e (unpack2x16float
// and the 4x8 and 2x16 snorm and unorm forms) by its value, vecN<f32>(...):
// drivers fold these on the host at other precisions than they compute at
// run time (lavapipe turned unpack2x16float(0x3c00bc00u), WGSL (-1, 1),
// into (-1, 0); the H200's GL gave unpack4x8unorm(0x80808080u) components
// of 0.501953125, 128/255 to 16 bits, where WGSL allows 0.50196 within 2.5
// ULP). Each component is written as the f32 nearest WGSL's value, which
// the literal keeps exactly. A half that is infinite or NaN (indeterminate
// in WGSL) leaves the call as written.
func (l *lowerer) constUnpack(e *callExpr, name string) {
	if l.inHelper || len(e.args) != 1 {
		return
	}
	v, err := l.c.eval(e.args[0], true)
	if err != nil || !v.kind.isInt() || v.i < 0 || v.i > math.MaxUint32 {
		return
	}
	w := uint32(v.i)
	lit := func(x float64) string { return strconv.FormatFloat(float64(float32(x)), 'g', -1, 32) + "f" }
	var parts []string
	switch name {
	case "unpack2x16float":
		for _, h := range []uint32{w & 0xFFFF, w >> 16} {
			exp, mant := h>>10&31, float64(h&1023)
			if exp == 31 {
				return
			}
			x := mant * 0x1p-24
			if exp > 0 {
				x = (1 + mant/1024) * math.Ldexp(1, int(exp)-15)
			}
			if h&0x8000 != 0 {
				x = -x
			}
			s := lit(x)
			if h == 0x8000 {
				s = "-0.0f"
			}
			parts = append(parts, s)
		}
	case "unpack4x8unorm", "unpack4x8snorm", "unpack2x16unorm", "unpack2x16snorm":
		bits := 8
		if strings.HasPrefix(name, "unpack2x16") {
			bits = 16
		}
		signed := strings.HasSuffix(name, "snorm")
		for i := 0; i < 32/bits; i++ {
			f := w >> (i * bits) & (1<<bits - 1)
			if signed {
				x := float64(int32(f<<(32-bits)) >> (32 - bits))
				parts = append(parts, lit(math.Max(x/float64(int(1)<<(bits-1)-1), -1)))
			} else {
				parts = append(parts, lit(float64(f)/float64(int(1)<<bits-1)))
			}
		}
	default:
		return
	}
	text := "vec" + strconv.Itoa(len(parts)) + "<f32>(" + strings.Join(parts, ", ") + ")"
	l.c.edits = append(l.c.edits, edit{e.fn.pos, e.end, keepLines(l.c.m.src[e.fn.pos:e.end], text)})
}

// orderedBounds reports whether clamp call e has constant bounds with
// low <= high, where the builtin is exact as written.
func (l *lowerer) orderedBounds(e *callExpr) bool {
	if len(e.args) != 3 {
		return false
	}
	lo, err := l.c.eval(e.args[1], true)
	if err != nil {
		return false
	}
	hi, err := l.c.eval(e.args[2], true)
	switch {
	case err != nil:
		return false
	case lo.kind.isInt() && hi.kind.isInt():
		return lo.i <= hi.i
	case lo.kind.isFloat() && hi.kind.isFloat():
		return lo.f <= hi.f
	}
	return false
}
