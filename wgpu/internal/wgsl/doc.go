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
// The rewrite (Kernel.Source) changes exactly two forms, because naga v22
// rejects them and softgraph needs them:
//
//   - `override` declarations: naga v22 does not parse them at all. Each
//     becomes `const NAME: T = LITERAL;`, T the declared type as written or,
//     when untyped, the initializer's concretized type (AbstractInt → i32,
//     AbstractFloat → f32); LITERAL is the value with an explicit suffix
//     (8u, -3i, 1.5f, 0.25h, true), floats in the shortest form that reads
//     back to the same f32 (f16), the most negative i32 as
//     (-2147483647i - 1i). When the module redeclares the name of the
//     concretized type (alias i32 = u32), ": T" is left out and the suffix
//     types the const. The @id attribute goes with the declaration. The
//     replacement keeps the declaration's line breaks, so every later line
//     keeps its number.
//   - trailing commas in attribute argument lists (`@binding(0,)`,
//     `@workgroup_size(64,)`): naga v22 expects ')'. The comma is deleted.
//
// Everything else is copied byte for byte, including valid WGSL that naga
// v22 also rejects (checked on lavapipe): const_assert; the enable, requires
// and diagnostic directives and the @diagnostic attribute; trailing commas in
// template lists (`array<f32, 4,>`); an array element count written as an
// expression rather than a name or literal; `var<function>` spelled out;
// f16; builtins such as abs and min in const-expressions; `5--7`; predeclared
// type names redeclared (alias i32 = u32). Those reach the compiler as
// written and fail there with its diagnostic.
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
