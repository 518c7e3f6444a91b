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
