package recorder

import (
	"bufio"
	"fmt"
	"slices"
	"strings"
)

// members lists, per node of a fused graph, the unfused nodes it runs.
func (fz *fusion) members(n int) [][]int {
	out := make([][]int, n)
	for i, j := range fz.group {
		out[j] = append(out[j], i)
	}
	return out
}

// fusedName is "add+scale×2+axpy" for a fused node, "" for any other.
func (g *Graph) fusedName(j int) string {
	if g.fusion == nil {
		return ""
	}
	m := g.fusion.members(len(g.nodes))[j]
	if len(m) < 2 {
		return ""
	}
	// Runs of one kernel are counted: add_one×15+scale.
	var names []string
	for k := 0; k < len(m); {
		name, run := g.fusion.unfused[m[k]].name(), 1
		for k+run < len(m) && g.fusion.unfused[m[k+run]].name() == name {
			run++
		}
		if run > 1 {
			name += fmt.Sprintf("×%d", run)
		}
		names = append(names, name)
		k += run
	}
	return strings.Join(names, "+")
}

// fusionSummary is String's part on fusion: the fused chains (a name
// repeated is counted: "fused: 2 chains of 7 dispatches (add+scale ×2)")
// and every adjacent pair of dispatches that was not fused, grouped by
// reason, most frequent first ("not fused: 3 adjacent pairs (2 × kernel
// main: dispatched indirectly; 1 × ...)"); "" when the graph was not
// sealed WithFusion(true).
func (g *Graph) fusionSummary() string {
	fz := g.fusion
	if fz == nil {
		return ""
	}
	var b strings.Builder
	counts := map[string]int{}
	var order []string
	parts := 0
	members := fz.members(len(g.nodes))
	for j := range g.nodes {
		if len(members[j]) < 2 {
			continue
		}
		parts += len(members[j])
		name := g.fusedName(j)
		if counts[name] == 0 {
			order = append(order, name)
		}
		counts[name]++
	}
	var cs []string
	for _, name := range order {
		cs = append(cs, fmt.Sprintf("%s ×%d", name, counts[name]))
	}
	fmt.Fprintf(&b, "fused: %s of %s", plural(fz.fused, "chain", "chains"), plural(parts, "dispatch", "dispatches"))
	if len(cs) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(cs, ", "))
	}
	if reasons := fz.reasons(); len(reasons) > 0 {
		pairs := 0
		var rs []string
		for _, r := range reasons {
			pairs += r.count
			rs = append(rs, fmt.Sprintf("%d × %s", r.count, r.why))
		}
		fmt.Fprintf(&b, "; not fused: %s (%s)", plural(pairs, "adjacent pair", "adjacent pairs"), strings.Join(rs, "; "))
	}
	return b.String()
}

// fusionReason is one reason adjacent dispatches were not fused, and for
// how many pairs.
type fusionReason struct {
	why   string
	count int
}

// reasons groups the pairs not fused by reason, most frequent first (the
// first seen first among equals).
func (fz *fusion) reasons() []fusionReason {
	at := map[string]int{}
	var out []fusionReason
	for _, why := range fz.why {
		if why == "" {
			continue
		}
		i, ok := at[why]
		if !ok {
			i = len(out)
			at[why] = i
			out = append(out, fusionReason{why: why})
		}
		out[i].count++
	}
	slices.SortStableFunc(out, func(a, b fusionReason) int { return b.count - a.count })
	return out
}

// plural is "1 chain" or "n chains".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// writeFusionDOT draws, for adjacent dispatches that were not fused, a
// dotted edge labelled with why.
func (g *Graph) writeFusionDOT(bw *bufio.Writer) {
	fz := g.fusion
	if fz == nil {
		return
	}
	for i, why := range fz.why {
		if why == "" {
			continue
		}
		fmt.Fprintf(bw, "  d%d -> d%d [style=dotted, arrowhead=none, label=%q];\n", fz.group[i], fz.group[i+1], "not fused: "+why)
	}
}
