package recorder

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/softgraph/softgraph/wgpu"
)

// names gives every page a graph binds a short name (b0, b1, ... in order
// of first use) and every params slot one (p0, ...).
func (g *Graph) names() (map[*page]string, map[*metaEntry]string) {
	pages, metas := map[*page]string{}, map[*metaEntry]string{}
	for _, n := range g.nodes {
		for _, a := range n.access {
			switch {
			case a.meta != nil:
				if _, ok := metas[a.meta]; !ok {
					metas[a.meta] = fmt.Sprintf("p%d", len(metas))
				}
			case a.pg != nil:
				if _, ok := pages[a.pg]; !ok {
					pages[a.pg] = fmt.Sprintf("b%d", len(pages))
				}
			}
		}
	}
	return pages, metas
}

// String is a compact summary: dispatches, kernels with counts, buffers
// with sizes, params, and pinned bytes. For example:
//
//	graph: 3 dispatches; kernels: add_one ×2, scale ×1; buffers: b0 256 B, b1 256 B; params: 2 (32 B); pinned 544 B
func (g *Graph) String() string {
	if g == nil {
		return "graph: <nil>"
	}
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	if g.released {
		return fmt.Sprintf("graph: released (%d dispatches)", g.stats.Dispatches)
	}
	// Count by kernel, named by entry point; different kernels sharing an
	// entry name ("main") are told apart as main, main#2, ...
	counts := map[*wgpu.Kernel]int{}
	var order []*wgpu.Kernel
	for _, n := range g.nodes {
		if counts[n.k] == 0 {
			order = append(order, n.k)
		}
		counts[n.k]++
	}
	seen := map[string]int{}
	var ks []string
	for _, k := range order {
		name := k.Entry()
		seen[name]++
		if seen[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, seen[name])
		}
		ks = append(ks, fmt.Sprintf("%s ×%d", name, counts[k]))
	}
	pages, metas := g.names()
	type named struct {
		name string
		size uint64
	}
	var bufs []named
	for pg, name := range pages {
		bufs = append(bufs, named{name, g.boundSize(pg)})
	}
	sort.Slice(bufs, func(i, j int) bool { return nameIndex(bufs[i].name) < nameIndex(bufs[j].name) })
	var bs []string
	for _, b := range bufs {
		bs = append(bs, fmt.Sprintf("%s %d B", b.name, b.size))
	}
	var pbytes uint64
	for e := range metas {
		pbytes += e.size
	}
	return fmt.Sprintf("graph: %d dispatches; kernels: %s; buffers: %s; params: %d (%d B); pinned %d B",
		g.stats.Dispatches, strings.Join(ks, ", "), strings.Join(bs, ", "), len(metas), pbytes, g.stats.RetainedBytes)
}

// boundSize is the largest size any dispatch binds of pg (the Buffer's
// size, not the pool page's).
func (g *Graph) boundSize(pg *page) uint64 {
	var n uint64
	for _, nd := range g.nodes {
		for _, a := range nd.access {
			if a.pg == pg && !a.indirect && a.size > n {
				n = a.size
			}
		}
	}
	if n == 0 {
		n = pg.cap
	}
	return n
}

func nameIndex(s string) int {
	var n int
	fmt.Sscanf(s[1:], "%d", &n)
	return n
}

// WriteDOT writes the graph in Graphviz DOT: one node per dispatch, labelled
// with its index, kernel entry point and workgroup counts; one edge per
// read-after-write dependency through a buffer (dispatch j reads, as a
// binding or as indirect counts, a buffer that dispatch i < j wrote last),
// labelled with the buffer's name. `dot -Tsvg` draws what the graph does.
func (g *Graph) WriteDOT(w io.Writer) error {
	if g == nil {
		return argError("WriteDOT", ErrInvalidArgument, "graph is nil")
	}
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	if g.released {
		return argError("WriteDOT", ErrReleased, "graph of %d dispatches was released", g.stats.Dispatches)
	}
	pages, _ := g.names()
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph softgraph {")
	fmt.Fprintln(bw, "  node [shape=box, fontname=\"monospace\"];")
	lastWriter := map[*page]int{}
	for j, n := range g.nodes {
		fmt.Fprintf(bw, "  d%d [label=\"%d: %s\\n%s\"];\n", j, j, n.k.Entry(), n.d.label())
		seen := map[string]bool{}
		for _, a := range n.access {
			if a.pg == nil || (a.write && !a.indirect) {
				continue
			}
			if i, ok := lastWriter[a.pg]; ok {
				key := fmt.Sprintf("%d-%s", i, pages[a.pg])
				if !seen[key] {
					seen[key] = true
					fmt.Fprintf(bw, "  d%d -> d%d [label=\"%s\"];\n", i, j, pages[a.pg])
				}
			}
		}
		// A read_write binding both reads and writes: the read edge is drawn
		// from the previous writer before this dispatch becomes the writer.
		for _, a := range n.access {
			if a.pg != nil && a.write {
				if i, ok := lastWriter[a.pg]; ok && i != j {
					key := fmt.Sprintf("%d-%s", i, pages[a.pg])
					if !seen[key] {
						seen[key] = true
						fmt.Fprintf(bw, "  d%d -> d%d [label=\"%s\"];\n", i, j, pages[a.pg])
					}
				}
				lastWriter[a.pg] = j
			}
		}
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// label is the dispatch as a DOT node shows it: "groups 4×1×1" or
// "indirect @0".
func (d Dispatch) label() string {
	if d.isIndirect {
		return fmt.Sprintf("indirect @%d", d.offset)
	}
	return fmt.Sprintf("groups %d×%d×%d", d.x, d.y, d.z)
}
