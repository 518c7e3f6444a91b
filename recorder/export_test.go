package recorder

import "github.com/softgraph/softgraph/internal/graphfile"

// What the external tests (package recorder_test) may see of the
// recorder's unexported node kinds; compiled into the test binary only.

// RegisteredNodeKinds lists, in tag order, the graph file's command kinds
// LoadGraph records (nodeLoader's registry).
func RegisteredNodeKinds() []uint8 {
	var kinds []uint8
	for k := range 256 {
		if nodeLoader(graphfile.NodeKind(k)) != nil {
			kinds = append(kinds, uint8(k))
		}
	}
	return kinds
}

// CommandDesc is how the recorder describes one command of a graph: its
// file kind tag (what save writes), its name and detail (String, WriteDOT)
// and its control-flow region.
type CommandDesc struct {
	Kind         uint8
	Name, Detail string
	Region       int
}

// Commands describes g's commands, in order.
func Commands(g *Graph) []CommandDesc {
	t := g.tables()
	out := make([]CommandDesc, len(g.nodes))
	for i := range g.nodes {
		n := &g.nodes[i]
		var fn graphfile.Node
		n.op.save(t, &fn)
		out[i] = CommandDesc{Kind: uint8(fn.Kind), Name: n.op.name(), Detail: n.op.detail(), Region: n.region}
	}
	return out
}
