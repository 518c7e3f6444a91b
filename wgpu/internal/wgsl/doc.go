// Package wgsl is softgraph's own WGSL front end: it parses a module,
// evaluates its constants and overrides, reflects one compute entry point
// and rewrites the module into WGSL that the compiler bundled with
// wgpu-native v22 (naga) accepts and computes as the WGSL specification
// says. Package wgpu hands that text, never SPIR-V, to wgpu-native.
//
// What is accepted as written, what is rewritten and why, and what is
// refused with which error is documented once, in docs/wgsl.md ("WGSL
// compatibility reference"); this comment says only what the package owns.
//
// What it owns. The WGSL grammar down to function bodies (parse.go,
// scan.go); the evaluation of scalar const- and override-expressions with
// WGSL's abstract-int and abstract-float rules and its overflow errors
// (eval.go, override.go); the memory layout of types, WGSL § "Memory
// Layout" (types.go); the answer to "which resources does this entry point
// use", found through its call graph with WGSL's scoping (reflect.go); and
// the rewrite (rewrite.go), whose edits keep every line where the author
// wrote it: the lowering of abstract values and of what naga v22 does not
// parse or index (lower*.go), integer division and remainder (division.go),
// builtin helpers (builtins.go, uniformload.go), the OpenGL backend's needs
// (padding.go, gluniform.go) and names naga reserves (reserved.go). Guard
// (guard.go) makes the guarded variants of entry points that graphs use to
// skip a dispatch; Check (checks.go) the checked variants of a stream
// WithChecks, which record out-of-range indices into bindings
// (docs/checks.md). Sizes, binding numbers and workgroup sizes come from
// this parse alone: nothing reported is taken from the compiler.
//
// What it never does. It does not type-check function bodies, resolve
// overloads, or check uniform buffer layout constraints, entry point I/O or
// uniformity: the compiler validates those right after, on the rewritten
// text, and where a type is unknown the lowering changes nothing. It
// evaluates only scalar expressions. It never touches a device and has no
// cgo, so it builds and tests with CGO_ENABLED=0.
//
// Errors. Source problems are *Error with a line and column; a missing or
// non-compute entry point is *EntryError (ErrNoEntry, ErrNotCompute); a bad
// constants map or override value is *OverrideError (ErrUnknownOverride,
// ErrMissingOverride, ErrUnrepresentable). Nothing panics across the API:
// an internal failure of the lowering is recovered and returned as *Error.
//
// Costs. One pass to scan, one to discover template lists, one recursive
// descent; then evaluation and layout memoised per declaration, and one
// typing walk per function. All of it is linear in the source: the Game of
// Life step takes about 0.1 ms on a two-core CI machine
// (BenchmarkSpecialize), a megabyte well under a second. Nothing is cached
// between calls, so callers cache Kernels by (source, entry, constants). A
// syntax tree deeper than 1024 levels, and evaluation or type resolution
// deeper than 4096 levels, are refused with an *Error; that bounds the
// stack for any input.
package wgsl
