package recorder

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/softgraph/softgraph/lifecycle"
)

// ParamsFrom packs a Go struct (or a pointer to one) as a Params uniform
// with WGSL's layout rules for the uniform address space, so a struct that
// mixes f32, u32 and i32 fields, vectors and arrays needs no hand packing.
// Field types map to WGSL as:
//
//	uint32, int32, float32           u32, i32, f32
//	[2]T, [3]T, [4]T of those        vec2<T>, vec3<T>, vec4<T>
//	[N]T, or any array tagged        array<T, N> (element stride rounded up to 16,
//	  `wgsl:"array"`                  as uniform buffers require)
//	[C][R]float32 (C, R in 2..4)     matCxR<f32> (C columns of vecR, 8 bytes apart
//	                                   for R = 2, 16 otherwise: a matrix is not an
//	                                   array; tag it `wgsl:"array"` for array<vecR, C>)
//	a nested struct                  a struct member (alignment rounded up to 16)
//
// Fields are laid out in declaration order with each member aligned to its
// WGSL alignment, and the struct's size is rounded up to its alignment
// (16), exactly as the WGSL struct with the same members in the same order.
// An unsupported field (bool, int, float64, a slice, a pointer, a struct
// with no fields) is an error naming it. Fields named _ are left out (WGSL
// has no such member). The layout is WGSL's on every backend: on OpenGL,
// where naga v22 would lay a uniform's matCx2 out as std140, the kernel
// binds such a uniform as read-only storage (see docs/design.md).
//
// The uniform address space's rules differ from storage's only for arrays
// whose element stride is not a multiple of 16 and for struct members whose
// alignment is under 16; for a struct free of both the bytes suit a
// var<storage, read> too. StructParams lays a struct out by the binding it
// meets, and can be written inline in a Launch.
func ParamsFrom(v any) (Params, error) {
	p, err := paramsFrom(v, false)
	if err != nil {
		return nil, argError(lifecycle.Launch, ErrInvalidArgument, "ParamsFrom: %v", err)
	}
	return p, nil
}

// StructParams is a Params argument written inline in a Launch: the Go
// struct v (or a pointer to one), laid out when the launch resolves it by
// the rules of the address space of the binding it meets: a var<uniform>
// as ParamsFrom does, a var<storage, read> by the storage address space's
// (arrays strided by their element's size rounded to its alignment, a
// struct aligned as its most aligned member). A value that has no WGSL form
// is refused by that Launch, as an *Error wrapping ErrInvalidArgument
// naming the argument and the field, and nothing is enqueued; ParamsFrom
// reports the same before a launch. The struct is read when Launch is
// called (a graph keeps the bytes of the captured launch, as for Params).
// It costs a walk of the struct's fields by reflection on every Launch;
// ParamsFrom once, outside a hot loop, does not.
//
//	s.Launch(k, g, x, y, recorder.StructParams(Params{N: n, Scale: 0.5}))
func StructParams(v any) Arg { return structParams{v} }

// structParams is StructParams' argument until Launch lays it out.
type structParams struct{ v any }

func (structParams) isArg() {}

// paramsFrom lays v out with the uniform address space's rules, or the
// storage address space's when storage is set.
func paramsFrom(v any, storage bool) (Params, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, fmt.Errorf("nil pointer")
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%T is not a struct", v)
	}
	l, err := layoutOf(rv.Type(), rv.Type().Name(), "", storage)
	if err != nil {
		return nil, err
	}
	if l.size == 0 {
		return nil, fmt.Errorf("%s has no fields", rv.Type())
	}
	out := make(Params, l.size)
	l.put(out, rv)
	return out, nil
}

// uniformLayout is the WGSL uniform-address-space layout of a Go type and
// how to write a value of it.
type uniformLayout struct {
	align, size uint64
	put         func(dst []byte, v reflect.Value)
}

func roundUp(n, k uint64) uint64 { return (n + k - 1) / k * k }

func scalarLayout(t reflect.Type) (uniformLayout, bool) {
	switch t.Kind() {
	case reflect.Uint32:
		return uniformLayout{4, 4, func(dst []byte, v reflect.Value) { binary.LittleEndian.PutUint32(dst, uint32(v.Uint())) }}, true
	case reflect.Int32:
		return uniformLayout{4, 4, func(dst []byte, v reflect.Value) { binary.LittleEndian.PutUint32(dst, uint32(int32(v.Int()))) }}, true
	case reflect.Float32:
		return uniformLayout{4, 4, func(dst []byte, v reflect.Value) {
			binary.LittleEndian.PutUint32(dst, math.Float32bits(float32(v.Float())))
		}}, true
	}
	return uniformLayout{}, false
}

// layoutOf computes the layout of t; path names the field for errors and
// tag is its `wgsl` struct tag. storage selects the storage address
// space's rules: no rounding of array strides and struct alignments up to
// 16 (WGSL § "Memory Layout": those are the uniform address space's).
func layoutOf(t reflect.Type, path, tag string, storage bool) (uniformLayout, error) {
	if l, ok := scalarLayout(t); ok {
		return l, nil
	}
	switch t.Kind() {
	case reflect.Array:
		el := t.Elem()
		n := uint64(t.Len())
		if s, ok := scalarLayout(el); ok && n >= 2 && n <= 4 && tag != "array" {
			align := uint64(16)
			if n == 2 {
				align = 8
			}
			return uniformLayout{align, 4 * n, func(dst []byte, v reflect.Value) {
				for i := 0; i < int(n); i++ {
					s.put(dst[4*i:], v.Index(i))
				}
			}}, nil
		}
		if n == 0 {
			return uniformLayout{}, fmt.Errorf("field %s: a zero-length array has no WGSL form", path)
		}
		if col := el; tag != "array" && n <= 4 && col.Kind() == reflect.Array && col.Len() >= 2 && col.Len() <= 4 && col.Elem().Kind() == reflect.Float32 {
			// matCxR<f32>: C columns of vecR, aligned as one column and
			// strided by its size rounded to its alignment (8 bytes for
			// R = 2). A matrix is not an array: the uniform address
			// space's 16-byte array stride does not apply to its columns.
			r := uint64(col.Len())
			align := uint64(16)
			if r == 2 {
				align = 8
			}
			stride := roundUp(4*r, align)
			return uniformLayout{align, stride * n, func(dst []byte, v reflect.Value) {
				for c := 0; c < int(n); c++ {
					for i := 0; i < int(r); i++ {
						binary.LittleEndian.PutUint32(dst[uint64(c)*stride+4*uint64(i):], math.Float32bits(float32(v.Index(c).Index(i).Float())))
					}
				}
			}}, nil
		}
		e, err := layoutOf(el, path+"[]", "", storage)
		if err != nil {
			return uniformLayout{}, err
		}
		// Uniform buffers round array strides (and alignment) up to 16.
		stride, align := roundUp(roundUp(e.size, e.align), 16), max(e.align, 16)
		if storage {
			stride, align = roundUp(e.size, e.align), e.align
		}
		return uniformLayout{align, stride * n, func(dst []byte, v reflect.Value) {
			for i := 0; i < int(n); i++ {
				e.put(dst[uint64(i)*stride:], v.Index(i))
			}
		}}, nil
	case reflect.Struct:
		type field struct {
			off uint64
			l   uniformLayout
			i   int
		}
		var fields []field
		var off, align uint64 = 0, 16
		if storage {
			align = 4
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Name == "_" {
				continue
			}
			name := f.Name
			if path != "" {
				name = path + "." + f.Name
			}
			fl, err := layoutOf(f.Type, name, strings.TrimSpace(f.Tag.Get("wgsl")), storage)
			if err != nil {
				return uniformLayout{}, err
			}
			off = roundUp(off, fl.align)
			fields = append(fields, field{off, fl, i})
			off += fl.size
			align = max(align, fl.align)
		}
		if len(fields) == 0 {
			// WGSL has no empty struct: a member of one would take no
			// bytes, and the next member would land on it.
			what := "field " + path
			if path == "" || path == t.Name() {
				what = t.String()
			}
			return uniformLayout{}, fmt.Errorf("%s: a struct with no fields has no WGSL form", what)
		}
		return uniformLayout{align, roundUp(off, align), func(dst []byte, v reflect.Value) {
			for _, f := range fields {
				f.l.put(dst[f.off:], v.Field(f.i))
			}
		}}, nil
	}
	return uniformLayout{}, fmt.Errorf("field %s has type %s, which has no WGSL uniform form (use uint32, int32, float32, arrays of them, or structs)", path, t)
}
