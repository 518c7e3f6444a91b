// Package lower plans how a recording's If and While regions become plain
// dispatches: which recorded commands run unchanged, which run through
// their kernel's guarded variant (predicated) and which are dispatched
// indirectly from counts a gate writes (gated), where gate, forwarder,
// copy and clear dispatches go, how While loops unroll, which words of the
// enable and gate buffers each gate and command uses, and the table the
// gates read.
//
// It owns that decision and nothing else. It sees a recording as plain
// data (a Tree: commands in recording order and the nested regions around
// them) and asks the caller one question through Options.Guarded: does
// this command's kernel have a guarded variant? Everything that needs the
// device (compiling control kernels and variants, allocating the buffers,
// params, bind groups, pins) is materialisation and stays with the
// recorder, which turns a Plan's steps into graph nodes in order.
//
// The plan is a function of the Tree and the answers to Guarded: the same
// recording planned twice gives the same steps, so a Rebind that lowers a
// graph again gets the layout a fresh capture would.
//
// Costs: Plan counts the unrolled size first (refusing a tree over the
// limit before building anything), then builds one Step per lowered
// command; Guarded is asked at most once per command and iteration, and
// the caller caches its answers per kernel.
//
// Pure Go: it imports nothing of the module and builds with CGO_ENABLED=0;
// its tests run without a GPU.
package lower
