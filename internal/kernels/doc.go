// Package kernels owns the WGSL kernels the recorder dispatches on its own:
// the control-flow kernels If and While lower to (the gate, the forwarder
// of an indirect dispatch's counts, and the copy and clear that run inside
// a body) and CopyIndirect's copy.
//
// Each kernel's WGSL file is the one statement of its interface. The Go
// side names what it binds and what its params hold (a layout struct of
// Binding fields and a params struct of uint32 fields, each tagged with the
// WGSL name it stands for), and the package derives the rest from the text
// when it is initialised: the group, binding and access of every variable,
// and the position of every params field in the uniform struct. A
// variable or field one side names and the other lacks is an ErrLayout
// that every accessor (Gate, Forward, Copy, Clear, CopyIndirect) and Check
// return; nothing panics.
//
// It never compiles or dispatches: the recorder compiles the sources on
// its device and binds what the layouts say. Parsing is a small, strict
// reader of these files only (module-scope structs of u32 fields, bound
// variables, entry points), not a WGSL front end; it runs once, at init.
//
// Pure Go: it imports nothing of the module and builds with CGO_ENABLED=0;
// its tests run without a GPU.
package kernels
