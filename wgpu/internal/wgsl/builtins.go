package wgsl

import (
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
//   - countOneBits, countLeadingZeros, countTrailingZeros, firstLeadingBit
//     and firstTrailingBit, on OpenGL: GLSL ES declares bitCount, findLSB
//     and findMSB lowp, so arithmetic on their results is done at low
//     precision (llvmpipe: countTrailingZeros(x) * 10000 wraps at 16 bits).
//     A user function's result has the default precision, highp: the helper
//     only returns the builtin's value.
//
// The helpers are exact as written, so a module this rewrite wrote reads
// back unchanged (isBuiltinHelper).

// packHelpers are the pack builtins always replaced, with their argument
// width, the scale and the mask of one component.
var packHelpers = map[string]struct {
	n           int
	scale, mask string
}{
	"pack4x8snorm":  {4, "127.0", "255u"},
	"pack2x16snorm": {2, "32767.0", "65535u"},
}

// lowpHelpers are the bit builtins replaced on OpenGL.
var lowpHelpers = []string{"countOneBits", "countLeadingZeros", "countTrailingZeros", "firstLeadingBit", "firstTrailingBit"}

// builtinHelperName is the helper of builtin on arguments of type arg (its
// WGSL spelling, "" for the pack builtins), after prefix.
func builtinHelperName(prefix, builtin, arg string) string {
	if arg == "" {
		return prefix + builtin
	}
	r := strings.NewReplacer("<", "_", ">", "")
	return prefix + builtin + "_" + r.Replace(arg)
}

// builtinHelperDecl is the declaration of that helper, on one line.
func builtinHelperDecl(prefix, builtin, arg string) string {
	name := builtinHelperName(prefix, builtin, arg)
	if p, ok := packHelpers[builtin]; ok {
		v := func(k string) string { return "vec" + strconv.Itoa(p.n) + "<" + k + ">" }
		b := "fn " + name + "(e: " + v("f32") + ") -> u32 { let c = " + v("u32") + "(" + v("i32") +
			"(floor(clamp(e, " + v("f32") + "(-1.0), " + v("f32") + "(1.0)) * " + p.scale + " + 0.5))) & " + v("u32") + "(" + p.mask + "); return c.x"
		shift := 32 / p.n
		for i, c := range "yzw"[:p.n-1] {
			b += " | (c." + string(c) + " << " + strconv.Itoa(shift*(i+1)) + "u)"
		}
		return b + "; }"
	}
	return "fn " + name + "(e: " + arg + ") -> " + arg + " { return " + builtin + "(e); }"
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
	if _, ok := packHelpers[name]; !ok {
		if !l.c.opengl || !slices.Contains(lowpHelpers, name) {
			return
		}
		elem, n, ok := intElem(concrete(t))
		if !ok {
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
	l.c.edits = append(l.c.edits, edit{e.fn.pos, e.fn.pos + len(name), fn})
}

// isBuiltinHelper reports whether f is, character for character, one of
// the builtin helpers under prefix.
func (c *checker) isBuiltinHelper(f *fnDecl, prefix string) bool {
	src := c.m.src[f.pos-len("fn "):]
	for b := range packHelpers {
		if f.name == builtinHelperName(prefix, b, "") {
			return strings.HasPrefix(src, builtinHelperDecl(prefix, b, ""))
		}
	}
	for _, b := range lowpHelpers {
		for _, a := range intTypeNames {
			if f.name == builtinHelperName(prefix, b, a) {
				return strings.HasPrefix(src, builtinHelperDecl(prefix, b, a))
			}
		}
	}
	return false
}
