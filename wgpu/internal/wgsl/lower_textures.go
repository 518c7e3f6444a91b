package wgsl

import "strings"

// texDims is how many coordinates textureDimensions returns for a texture
// of the named shape.
func texDims(shape string) int {
	switch shape {
	case "1d":
		return 1
	case "3d":
		return 3
	}
	return 2
}

// formatScalar is the channel type of a storage texel format.
func formatScalar(f string) scalar {
	switch {
	case strings.HasSuffix(f, "uint"):
		return scalarU32
	case strings.HasSuffix(f, "sint"):
		return scalarI32
	}
	return scalarF32
}

// coordsArg is the index of a sampling builtin's coordinates: two after
// its texture, which comes first or, in textureGather(component, t, s,
// ...), second. -1 if the arguments hold no texture there.
func (l *lowerer) coordsArg(args []expr) int {
	for i := range min(2, len(args)) {
		if t := l.types[args[i]]; t != nil && t.kind == typeTexture {
			if i+2 < len(args) {
				return i + 2
			}
			return -1
		}
	}
	return -1
}

// textureCalls are the texture builtins.
func textureCalls() map[string]builtinCall {
	calls := map[string]builtinCall{
		"textureLoad":       (*lowerer).textureLoadCall,
		"textureStore":      (*lowerer).textureStoreCall,
		"textureDimensions": (*lowerer).textureDimensionsCall,
		"textureNumLayers":  fixed(scalarTy(scalarU32)),
		"textureNumLevels":  fixed(scalarTy(scalarU32)),
		"textureNumSamples": fixed(scalarTy(scalarU32)),
	}
	for _, name := range []string{"textureSample", "textureSampleLevel", "textureSampleBias", "textureSampleGrad", "textureSampleBaseClampToEdge",
		"textureGather", "textureSampleCompare", "textureSampleCompareLevel", "textureGatherCompare"} {
		calls[name] = (*lowerer).sampleCall
	}
	return calls
}

// textureLoadCall types textureLoad(t, coords, ...): a texel of t. The
// coordinates are integers, and the level, sample or array index an i32
// (levelToI32).
func (l *lowerer) textureLoadCall(e *callExpr) *ty {
	var t *ty
	for i, a := range e.args {
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
}

// textureStoreCall types textureStore(t, coords, ..., value), which
// returns nothing: the coordinates and array index are integers, the value
// a vec4 of t's channel type.
func (l *lowerer) textureStoreCall(e *callExpr) *ty {
	var t *ty
	for i, a := range e.args {
		at := l.check(a)
		switch {
		case i == 0:
			t = at
		case i == len(e.args)-1 && t != nil && t.scalar != 0:
			l.coerce(a, vecTy(4, t.scalar))
		default:
			l.toInt(a)
		}
	}
	return nil
}

// textureDimensionsCall types textureDimensions(t, level?): u32 or a
// vector of as many u32 as t has dimensions.
func (l *lowerer) textureDimensionsCall(e *callExpr) *ty {
	var t *ty
	for i, a := range e.args {
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
}

// sampleCall types the sampling and gathering builtins, converting their
// coordinates, gradients, level, bias and depth reference.
func (l *lowerer) sampleCall(e *callExpr) *ty {
	name, args := e.fn.name, e.args
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
	l.sampleCoords(e, t)
	if t != nil && t.kind == typeTexture && name != "textureGather" && name != "textureSample" {
		l.sampleOperand(e, t)
	}
	return sampleResult(name, t)
}

// sampleCoords converts the coordinates (and textureSampleGrad's two
// gradients) to f32: WGSL converts an abstract vector of integers there
// (textureSampleLevel(t, s, vec2(0), 0.0)), naga v22 makes it vec2<i32>
// and refuses the call ("Image coordinate type ... does not match
// dimension"). t is the sampled texture's type.
func (l *lowerer) sampleCoords(e *callExpr, t *ty) {
	args := e.args
	c := l.coordsArg(args)
	if c < 0 {
		return
	}
	l.coerce(args[c], scalarTy(scalarF32))
	if e.fn.name == "textureSampleGrad" && t != nil && t.kind == typeTexture {
		g := c + 1
		if t.arrayed {
			g++
		}
		for _, a := range args[min(g, len(args)):min(g+2, len(args))] {
			l.coerce(a, scalarTy(scalarF32))
		}
	}
}

// sampleOperand converts the scalar after the coordinates (and the array
// index, an integer) of a sampling builtin other than textureSample and
// textureGather: a level, bias or depth reference, f32, except a depth
// texture's level, which is an integer. t is the texture's type.
func (l *lowerer) sampleOperand(e *callExpr, t *ty) {
	name, args := e.fn.name, e.args
	at := 3
	if t.arrayed {
		l.toInt(args[min(3, len(args)-1)])
		at = 4
	}
	if at >= len(args) || name == "textureSampleGrad" {
		return
	}
	if t.depth && name == "textureSampleLevel" {
		l.toInt(args[at])
		l.levelToI32(args[at])
	} else {
		l.coerce(args[at], scalarTy(scalarF32))
	}
}

// sampleResult is the result type of sampling builtin name on a texture of
// type t: f32 from a depth comparison or a depth texture (but
// textureGather), else a vec4 of the texture's channel type (f32 when
// unknown).
func sampleResult(name string, t *ty) *ty {
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

// resolveTexture is the type that texture type name with template
// arguments args names; nil when name is no texture type.
func (l *lowerer) resolveTexture(name string, args []expr) *ty {
	if rest, ok := strings.CutPrefix(name, "texture_storage_"); ok {
		t := &ty{kind: typeStorageTexture, n: texDims(rest)}
		if len(args) >= 1 {
			if f, ok := args[0].(*identExpr); ok {
				t.scalar = formatScalar(f.name)
			}
		}
		return t
	}
	if rest, ok := strings.CutPrefix(name, "texture_depth_"); ok {
		return &ty{kind: typeTexture, n: texDims(rest), scalar: scalarF32, depth: true, arrayed: strings.HasSuffix(rest, "_array")}
	}
	if rest, ok := strings.CutPrefix(name, "texture_"); ok {
		t := &ty{kind: typeTexture, n: texDims(rest), arrayed: strings.HasSuffix(rest, "_array")}
		if len(args) == 1 {
			t.scalar = leaf(l.resolve(args[0]))
		}
		return t
	}
	return nil
}
