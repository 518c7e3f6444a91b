package recorder

import (
	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/graphfile"
	"github.com/softgraph/softgraph/internal/lower"
	"github.com/softgraph/softgraph/internal/pool"
)

// node is one recorded command: what it does (op: a *dispatchOp, *copyOp
// or *clearOp, each in its own node_*.go file) and where in the control
// flow it runs. Nodes are data only: the graph's program is built from them
// at seal time, and Rebind builds a new node list and a new program.
//
// A node is copied by value between node lists (a child graph included in
// a capture, a lowering, a Rebind), and the op it points to may then be
// shared by graphs: an op is never changed once it is in a sealed graph's
// list. Whoever changes one clones it first (nodeOp.clone).
type node struct {
	op nodeOp
	// region is the control-flow region the node belongs to (0: the
	// graph's top level); see control.go.
	region int
}

func (n *node) name() string { return n.op.name() }

// nodeOp is what one kind of recorded command does, everywhere the
// recorder handles commands without knowing their kind: adding a
// recordable command is a new type implementing it, in one file with its
// tests, plus its kind tag in the graph file (internal/graphfile, and
// nodeLoader in graphload.go). Code that works only on dispatches (fusion,
// predication, view rebinding, profiling by pass) type-asserts *dispatchOp
// instead of asking every kind.
//
// None of these methods runs while replaying: Replay encodes the program
// buildProgram made from encode at seal time.
type nodeOp interface {
	// name is how descriptions and errors call the command: a dispatch
	// by its kernel, a transfer by what it does ("copy", "clear").
	name() string
	// detail is what WriteDOT prints under the name: the workgroup
	// counts, or the bytes a transfer moves.
	detail() string
	// uses calls use for every buffer page the command reads or writes,
	// bindings first, in the order they are bound; the order names the
	// graph's buffers (String, WriteDOT) and numbers them in a saved file.
	uses(use func(bufferUse))
	// pin takes fresh references, into p, on everything the command
	// binds, copies or reads (a graph made from another's nodes holds
	// what it uses itself).
	pin(p *pinSet)
	// encode appends the command to the program that replays the graph.
	encode(p driver.Program) error
	// tally counts the command into the graph's description.
	tally(t *tally)
	// plan describes the command to the control-flow planner
	// (internal/lower); cond is the condition page of its region (nil at
	// the top level).
	plan(c *lower.Command, cond *pool.Page)
	// rebind returns the command binding new (its page npg) wherever it
	// binds old, and whether it did; the op it was called on is
	// unchanged (another graph holds it). Bind groups it makes are pinned
	// in pins. i is the command's index, for errors. The caller holds
	// s.mu.
	rebind(s *Stream, i int, old, new *Buffer, npg *pool.Page, pins *pinSet) (nodeOp, bool, error)
	// clone returns an op equal to this one that the caller may change.
	clone() nodeOp
	// tabulate gives file indices (t) to what the command uses, and save
	// writes it as a graph file's command, its kind tag included (the tag
	// is the file format's: it never changes for a kind).
	tabulate(t *graphTables)
	save(t *graphTables, fn *graphfile.Node)
}

// bufferUse is one buffer page a command reads or writes.
type bufferUse struct {
	pg  *pool.Page
	buf *Buffer // the Buffer it came from (nil: the recorder's own)
	// size is the bytes bound, for a binding (bound); other uses (a
	// dispatch's indirect counts, a transfer's source and destination)
	// use the Buffer's.
	size        uint64
	bound       bool
	read, write bool
}

// tally is what describing a graph counts of its commands (Graph.describe,
// String).
type tally struct {
	dispatches, transfers int
	launches              map[driver.Kernel]int // dispatches by kernel
	kernels               []driver.Kernel       // in order of first dispatch
	groups                map[*bindGroup]bool
	byName                map[string]int // transfers by name: copy, clear
}

// tallyNodes counts nodes.
func tallyNodes(nodes []node) *tally {
	t := &tally{launches: map[driver.Kernel]int{}, groups: map[*bindGroup]bool{}, byName: map[string]int{}}
	for i := range nodes {
		nodes[i].op.tally(t)
	}
	return t
}

// dispatchOf is n's dispatch, or nil when n is another kind of command:
// for the code that works on dispatches only.
func dispatchOf(n *node) *dispatchOp {
	d, _ := n.op.(*dispatchOp)
	return d
}
