// Package wgsl is softgraph's own WGSL front-end: it parses a module,
// evaluates its constants and overrides, reflects one compute entry point
// and rewrites the module into WGSL that the compiler bundled with
// wgpu-native v22 (naga) accepts. Package wgpu hands that text, never
// SPIR-V, to wgpu-native.
//
// What it owns. The WGSL grammar down to function bodies (nested block
// comments, template list discovery, every declaration, statement and
// expression form); the evaluation of scalar const- and override-expressions
// (literals of every form, arithmetic, bit, shift, comparison and logical
// operators, i32/u32/f32/f16/bool conversions, min, max, abs, clamp,
// select, with WGSL's abstract-int and abstract-float conversion rules and
// its overflow errors); the memory layout of types (WGSL § "Memory Layout":
// SizeOf, AlignOf, @size, @align); and the answer to "which resources does
// this entry point use", found through its call graph with WGSL's scoping
// (parameters and locals shadow module-scope names; member names are not
// references). Sizes, binding numbers and workgroup sizes come from this
// parse alone: nothing reported is taken from the compiler.
//
// The rewrite (Kernel.Source) changes only what naga v22 rejects or
// mistypes, each change local to a declaration, literal or name so every
// line keeps its number:
//
//   - `override` declarations: naga v22 does not parse them at all. Each
//     becomes `const NAME: T = LITERAL;`, T the declared type as written or,
//     when untyped, the initializer's concretized type (AbstractInt → i32,
//     AbstractFloat → f32); LITERAL is the value with an explicit suffix
//     (8u, -3i, 1.5f, 0.25h, true), floats in the shortest form that reads
//     back to the same f32 (f16), the most negative i32 as
//     (-2147483647i - 1i). When the module redeclares the name of the
//     concretized type (alias i32 = u32), ": T" is left out and the suffix
//     types the const. The @id attribute goes with the declaration.
//   - abstract operands where the context fixes another type (lower.go):
//     naga v22 types an unsuffixed integer as i32 except in binary operators
//     and typed constructors, so in assignments, compound assignments,
//     typed let/var initializers, returns, function arguments, switch case
//     selectors, atomic operands and the arguments of builtins taking one
//     type throughout (min, max, clamp, select, mix, pow, ...) an abstract
//     literal gets its suffix (1 → 1u) or float spelling (1 → 1f) and a
//     module-scope const of abstract type is replaced by its value in the
//     needed type. Bodies are typed as far as that needs; where a type is
//     unknown nothing changes.
//   - function-scope `const`, which naga v22 does not parse: each use
//     becomes the value and the declaration goes (one the evaluator cannot
//     compute becomes a `let`).
//   - expressions naga v22 does not evaluate: array element counts written
//     as expressions (array<f32, 2 * N>), attribute arguments written as
//     expressions (@binding(A + 1)), module-scope const initializers
//     (const X = max(1, 2)): each becomes its value.
//   - what naga v22 does not parse and that does not change what a kernel
//     computes: the enable, requires and diagnostic directives, const_assert
//     (evaluated first: a false one is an *Error), @diagnostic and @must_use,
//     `<function>` in var<function>, and trailing commas in attribute
//     argument lists, template lists and case selector lists. An enable of
//     a name WGSL does not define as an enable-extension, or a requires of
//     a language extension other than those provided here
//     (readonly_and_readwrite_storage_textures,
//     packed_4x8_integer_dot_product, unrestricted_pointer_parameters,
//     pointer_composite_access), is an *Error, as WGSL makes it a
//     shader-creation error (parse.go).
//   - every division and remainder of concrete i32 or u32 scalars or
//     vectors evaluated at run time, `/=` and `%=` included, whose divisor
//     is not a constant that makes the target's instruction exact: naga v22
//     leaves zero divisors (and MinInt32 % -1) to the driver, and on OpenGL
//     writes GLSL's %, undefined for negative operands (Options.OpenGL).
//     It becomes a call of a helper appended after the last line,
//     computing WGSL's result; such a division of two constants becomes
//     its value, and is an *Error when it divides by zero or overflows
//     (division.go says how, and why that keeps evaluation order).
//   - builtins naga v22 computes wrongly or does not know (builtins.go):
//     pack4x8snorm and pack2x16snorm, the packed 4x8 integer builtins
//     (dot4U8Packed, ...), conversions of runtime f32 to i32 or u32 (WGSL
//     saturates them), and on OpenGL the bit-counting builtins, extractBits
//     and insertBits, become calls of helpers appended with the division
//     helpers; on OpenGL a loop
//     body's let that the continuing block reads becomes a var.
//   - a member or index access through a pointer (p.m, p[i]), which naga
//     v22 refuses: the base becomes (*p).
//   - a module-scope const array indexed at run time, which naga v22
//     refuses: a var<private> with the same initializer (privateConsts),
//     typed as written or, for an inferred array(1, 2), concretized;
//     a let, or a function-scope const made a let, of an array or matrix
//     indexed at run time: a var; such a parameter: renamed, and copied
//     into a var of its name at the top of the body; such a value returned
//     by a call or constructor (g()[i]): indexed through a helper.
//   - code after a return, break, continue or discard (parse.go), which
//     naga v22 refuses: deleted, keeping its line breaks, and neither
//     lowered nor reflected; a function returning a value whose body naga
//     v22 cannot see ends in a return (one ending in a loop): a return of
//     the zero value, never run, before its '}'.
//   - a module-scope var without a type (var<private> s = vec2(5u, 6u)),
//     which naga v22 does not parse: its initializer's type written out.
//   - a const of abstract vector type where a u32 or f32 vector is
//     needed (naga v22 typed it vec2<i32> at its declaration), or an
//     element of an abstract const array at a constant index: the
//     conversion vec2<u32>(V), u32(A[1]); an abstract vector constructor indexed
//     at run time: its type spelled (vec2<f32>(1.0, 2.0)[i]).
//   - quantizeToF16, which naga v22 does not know: a helper (builtins.go).
//   - workgroupUniformLoad of a ptr<workgroup, atomic<T>>, an overload
//     naga v22 lacks: a helper that loads the atomic between barriers into
//     a var<workgroup> temporary of type T and returns workgroupUniformLoad
//     of that, the pointer's indices its arguments; a pointer held in a
//     let or parameter is an *Error (uniformload.go).
//   - on OpenGL, @size and @align, which naga v22's GLSL writer ignores: a
//     struct they lay out gets u32 padding members instead (padding.go).
//
// Everything else is copied byte for byte, including valid WGSL that naga
// v22 also rejects (checked on lavapipe): f16; `5--7`; predeclared type
// names redeclared (alias i32 = u32); pointer parameters in the storage
// address space (WGSL allows them only with unrestricted_pointer_parameters).
// Those reach the compiler and fail there with its diagnostic. A pointer
// argument into part of a variable (&a[i], &s.m, a let bound to one), which
// WGSL also allows only with that extension, is an *Error here: naga v22
// does not check it and aborts the process writing SPIR-V. Expressions
// parse with naga's precedence (C's, parse.go), a superset of WGSL's.
//
// What it never does. It does not type-check function bodies, resolve
// overloads, or check uniform buffer layout constraints, entry point I/O or
// uniformity: the compiler validates those right after, on the rewritten
// text. It evaluates only scalar expressions: an @binding, array count,
// workgroup size or override default written with vectors, matrices or
// other builtins is refused with an *Error saying so (a const_assert the
// evaluator cannot compute is left to the compiler). It never touches a
// device and has no cgo, so it builds and tests with CGO_ENABLED=0.
//
// Errors. Source problems are *Error with a line and column; a missing or
// non-compute entry point is *EntryError (ErrNoEntry, ErrNotCompute); a bad
// constants map or override value is *OverrideError (ErrUnknownOverride,
// ErrMissingOverride, ErrUnrepresentable). Every override of the module
// needs a value, even one the entry point does not use, because every
// override becomes a const in the rewritten module.
//
// Costs. One pass to scan, one to discover template lists, one recursive
// descent; then evaluation and layout memoised per declaration, and one walk
// per function reachable from the entry point. All of it is linear in the
// source: the Game of Life step takes about 0.1 ms on a two-core CI machine
// (BenchmarkSpecialize), a megabyte well under a second. Nothing is cached
// between calls, so callers cache Kernels by (source, entry, constants).
// A syntax tree deeper than 1024 levels (nesting, or a chain of operators),
// and evaluation or type resolution deeper than 4096 levels (each reference
// from one constant or type to the next counts), are refused with an *Error;
// that bounds the stack for any input.
package wgsl
