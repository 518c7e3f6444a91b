package recorder

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/softgraph/softgraph/internal/paramcache"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// internalKernelPrefix begins the entry point of every kernel the
// recorder compiles for itself (internal/kernels).
const internalKernelPrefix = "softgraph_"

// graphNames gives every resource a graph uses a short name, in order of
// first use: buffers b0, b1, ... and Vars v0, v1, ... (or their label),
// params p0, ..., textures t0, ....
type graphNames struct {
	pages map[*pool.Page]string
	metas map[*paramcache.Entry]string
	texs  map[*texHandle]string
	order []*pool.Page
	vars  map[*pool.Page]bool // the pages that are Vars'
}

func (g *Graph) names() graphNames {
	n := graphNames{pages: map[*pool.Page]string{}, metas: map[*paramcache.Entry]string{}, texs: map[*texHandle]string{}, vars: map[*pool.Page]bool{}}
	addPage := func(pg *pool.Page, b *Buffer) {
		if pg == nil {
			return
		}
		if _, ok := n.pages[pg]; ok {
			return
		}
		name := fmt.Sprintf("b%d", len(n.pages)-len(n.vars))
		if b != nil && b.v != nil {
			name = fmt.Sprintf("v%d", len(n.vars))
			n.vars[pg] = true
		}
		if b != nil {
			if l := b.Label(); l != "" {
				name = l
			}
		}
		n.pages[pg] = name
		n.order = append(n.order, pg)
	}
	for i := range g.nodes {
		nd := &g.nodes[i]
		nd.op.uses(func(u bufferUse) { addPage(u.pg, u.buf) })
		d := dispatchOf(nd)
		if d == nil {
			continue
		}
		for _, a := range d.acc {
			switch a.kind {
			case accessParams:
				if _, ok := n.metas[a.meta]; !ok {
					n.metas[a.meta] = fmt.Sprintf("p%d", len(n.metas))
				}
			case accessTexture:
				if _, ok := n.texs[a.tex.h]; !ok {
					n.texs[a.tex.h] = fmt.Sprintf("t%d", len(n.texs))
				}
			}
		}
	}
	return n
}

// String is a compact summary: dispatches, kernels with counts (the
// recorder's own control-flow and CopyIndirect kernels apart), copies and
// clears, buffers and Vars with sizes, textures, params, control flow,
// fusion and pinned bytes. For example:
//
//	graph: 3 dispatches; kernels: add_one ×2, scale ×1; buffers: b0 256 B, b1 256 B; params: 2 (32 B); pinned 544 B
func (g *Graph) String() string {
	if g == nil {
		return "graph: <nil>"
	}
	g.s.mu.Lock()
	released := g.released
	g.s.mu.Unlock()
	if released {
		return fmt.Sprintf("graph: released (%s)", plural(g.stats.Dispatches, "dispatch", "dispatches"))
	}
	// Count by kernel, named by entry point; different kernels sharing an
	// entry name ("main") are told apart as main, main#2, ...
	t := tallyNodes(g.nodes)
	counts, order := t.launches, t.kernels
	seen := map[string]int{}
	var ks, internal []string
	for _, k := range order {
		name := kernelName(k)
		if k.Guarded() {
			// The guarded variant of a body kernel (WithPredication).
			name += " (predicated)"
		}
		seen[name]++
		if seen[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, seen[name])
		}
		if strings.HasPrefix(k.Entry(), internalKernelPrefix) {
			// The recorder's own kernels (control flow, CopyIndirect).
			internal = append(internal, fmt.Sprintf("%s ×%d", name, counts[k]))
			continue
		}
		ks = append(ks, fmt.Sprintf("%s ×%d", name, counts[k]))
	}
	names := g.names()
	var bs, vs []string
	for _, pg := range names.order {
		if names.vars[pg] {
			vs = append(vs, fmt.Sprintf("%s %d B", names.pages[pg], g.boundSize(pg)))
			continue
		}
		bs = append(bs, fmt.Sprintf("%s %d B", names.pages[pg], g.boundSize(pg)))
	}
	var pbytes uint64
	for e := range names.metas {
		pbytes += e.Size
	}
	var b strings.Builder
	fmt.Fprintf(&b, "graph: %s; kernels: %s", plural(g.stats.Dispatches, "dispatch", "dispatches"), strings.Join(ks, ", "))
	if len(internal) > 0 {
		fmt.Fprintf(&b, "; the recorder's kernels: %s", strings.Join(internal, ", "))
	}
	if t.transfers > 0 {
		fmt.Fprintf(&b, "; copies: %d, clears: %d", t.byName["copy"], t.byName["clear"])
		// Any other kind of transfer by its name.
		var others []string
		for name, n := range t.byName {
			if name != "copy" && name != "clear" {
				others = append(others, fmt.Sprintf(", %s: %d", name, n))
			}
		}
		sort.Strings(others)
		b.WriteString(strings.Join(others, ""))
	}
	if len(bs) > 0 {
		fmt.Fprintf(&b, "; buffers: %s", strings.Join(bs, ", "))
	}
	if len(vs) > 0 {
		fmt.Fprintf(&b, "; vars: %s", strings.Join(vs, ", "))
	}
	if len(names.texs) > 0 {
		var ts []string
		for h, name := range names.texs {
			d := h.t.Desc()
			ts = append(ts, fmt.Sprintf("%s %d×%d×%d %s", name, d.Width, d.Height, d.Depth, d.Format))
		}
		sort.Strings(ts)
		fmt.Fprintf(&b, "; textures: %s", strings.Join(ts, ", "))
	}
	fmt.Fprintf(&b, "; params: %d (%d B)", len(names.metas), pbytes)
	if cf := g.controlSummary(); cf != "" {
		fmt.Fprintf(&b, "; %s", cf)
	}
	if fs := g.fusionSummary(); fs != "" {
		fmt.Fprintf(&b, "; %s", fs)
	}
	fmt.Fprintf(&b, "; pinned %d B", g.stats.RetainedBytes)
	return b.String()
}

// boundSize is the largest size any command uses of pg (the Buffer's size,
// not the pool page's).
func (g *Graph) boundSize(pg *pool.Page) uint64 {
	var n uint64
	for i := range g.nodes {
		nd := &g.nodes[i]
		nd.op.uses(func(u bufferUse) {
			switch {
			case u.bound:
				if u.pg == pg && u.size > n {
					n = u.size
				}
			case u.buf != nil && u.buf.pg == pg && u.buf.size > n:
				// Indirect counts, a transfer's source or destination:
				// the whole Buffer.
				n = u.buf.size
			}
		})
	}
	if n == 0 {
		n = pg.Cap()
	}
	return n
}

// WriteDOT writes the graph in Graphviz DOT: one node per command,
// labelled with its index, kernel entry point (or copy, clear) and
// workgroup counts; one edge per read-after-write dependency through a
// buffer (command j reads, as a binding, a copy source or indirect counts,
// a buffer that command i < j wrote last), labelled with the buffer's name.
// If and While bodies are drawn as clusters. `dot -Tsvg` draws what the
// graph does.
func (g *Graph) WriteDOT(w io.Writer) error {
	const op = lifecycle.Save
	if g == nil {
		return argError(op, ErrInvalidArgument, "WriteDOT: graph is nil")
	}
	if w == nil {
		return argError(op, ErrInvalidArgument, "WriteDOT: writer is nil")
	}
	g.s.mu.Lock()
	released := g.released
	g.s.mu.Unlock()
	if released {
		return argError(op, ErrReleased, "WriteDOT: graph of %d dispatches was released", g.stats.Dispatches)
	}
	names := g.names()
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph softgraph {")
	fmt.Fprintln(bw, "  node [shape=box, fontname=\"monospace\"];")
	g.writeClusters(bw)
	lastWriter := map[*pool.Page]int{}
	for j := range g.nodes {
		n := &g.nodes[j]
		label := n.name() + "\\n" + n.op.detail()
		if f := g.fusedName(j); f != "" {
			label += "\\n= " + f
		}
		fmt.Fprintf(bw, "  d%d [label=\"%d: %s\"];\n", j, j, label)
		seen := map[string]bool{}
		edge := func(pg *pool.Page) {
			if i, ok := lastWriter[pg]; ok && i != j {
				key := fmt.Sprintf("%d-%s", i, names.pages[pg])
				if !seen[key] {
					seen[key] = true
					fmt.Fprintf(bw, "  d%d -> d%d [label=\"%s\"];\n", i, j, names.pages[pg])
				}
			}
		}
		// Reads first (a read_write binding reads too), then writes.
		var writes []*pool.Page
		n.op.uses(func(u bufferUse) {
			if u.read {
				edge(u.pg)
			}
			if u.write {
				writes = append(writes, u.pg)
			}
		})
		for _, pg := range writes {
			lastWriter[pg] = j
		}
	}
	g.writeFusionDOT(bw)
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}
