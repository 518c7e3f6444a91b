// Package graphfile owns the softgraph graph file format
// (docs/graph-format.md): a plain data model of one file (File), Encode
// to write it and Decode to read and check it.
//
// It owns the bytes and nothing else. It never compiles a kernel, makes a
// buffer or touches a device: recorder translates a sealed Graph into a
// File before Encode (Graph.Save), and builds a graph from the File that
// Decode returns (Stream.LoadGraph). It is pure Go and imports nothing of
// the module, so the format's tests (parsing, corruption, truncation,
// fuzzing) run without a GPU.
//
// Decode reads untrusted bytes. Before it allocates it checks that every
// count can fit in the bytes that follow, so it allocates at most in
// proportion to the input (bounded by Limits.MaxFileSize where the caller
// sets one), never panics, and refuses a bad file with an *Error saying
// what is wrong and where. What a valid file declares (buffer sizes, say)
// is bounded only by the Limits the caller passes: a few bytes can declare
// gigabytes, and making them is the caller's decision.
//
// Encode writes a File exactly as Decode reads it: Encode of a Decode
// gives back the same bytes for every file softgraph wrote, of every
// version.
package graphfile
