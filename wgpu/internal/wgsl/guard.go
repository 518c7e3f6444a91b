package wgsl

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotGuardable says Guard cannot make a guarded variant of an entry
// point; the caller gates the kernel another way.
var ErrNotGuardable = errors.New("no guarded variant")

// maxGuardGroup is the highest bind group a guard may take: devices are
// opened with four bind groups.
const maxGuardGroup = 3

// Guarded is the variant of a compute entry point that Guard makes.
type Guarded struct {
	// Source is the module with the guard: the original text with one
	// statement inserted after the entry point's opening brace (on the same
	// line, so every line keeps its number) and two resource declarations
	// appended after the last line.
	Source string
	// Group is the bind group of the two guard resources: binding 0 is the
	// words (var<storage, read> array<u32>), binding 1 the index of the word
	// that enables the dispatch (var<uniform> vec4<u32>, the index in x).
	Group uint32
}

// Guard returns a variant of the compute entry point entry of src whose
// every invocation returns at once unless words[at.x] is non-zero, words
// and at being two resources it adds in a bind group of their own, the one
// after the highest the entry point uses. Graphs use it to skip a dispatch
// inside an If or While body without dispatching it indirectly: the word is
// the enable word a gate kernel wrote. Both resources are read-only, so
// under WGSL's uniformity rules the early return is uniform and the entry
// point's barriers stay valid.
//
// It fails with ErrNotGuardable when the entry point already uses the last
// bind group a device offers (3), or when some module-scope variable
// already declares the group the guard would take; with an *Error for
// source Specialize would refuse.
func Guard(src, entry string, constants map[string]float64) (*Guarded, error) {
	m, err := parse(src)
	if err != nil {
		return nil, err
	}
	fn, err := m.entry(entry)
	if err != nil {
		return nil, err
	}
	if fn.body == nil || fn.body.open <= 0 || fn.body.open >= len(src) || src[fn.body.open] != '{' {
		return nil, fmt.Errorf("%w: entry point %s has no body to guard", ErrNotGuardable, entry)
	}
	c := newChecker(m)
	if err := c.bind(constants); err != nil {
		return nil, err
	}
	k := &Kernel{Entry: entry}
	if err := c.reflect(fn, k); err != nil {
		return nil, err
	}
	group := uint32(0)
	for _, r := range k.Resources {
		group = max(group, r.Group+1)
	}
	if group > maxGuardGroup {
		return nil, fmt.Errorf("%w: entry point %s uses @group(%d), the last a device offers", ErrNotGuardable, entry, maxGuardGroup)
	}
	for _, d := range m.names {
		v, ok := d.(*varDecl)
		if !ok {
			continue
		}
		if a := attr(v.attrs, "group"); a != nil {
			if g, err := c.attrUint(a, "@group", false); err != nil || g == group {
				return nil, fmt.Errorf("%w: %s is declared in @group(%d), the group the guard would take", ErrNotGuardable, v.name, group)
			}
		}
	}
	words, at := m.freeName(fn, guardPrefix+"words"), m.freeName(fn, guardPrefix+"at")
	var b strings.Builder
	b.WriteString(src[:fn.body.open+1])
	fmt.Fprintf(&b, guardStmt, words, at)
	b.WriteString(src[fn.body.open+1:])
	fmt.Fprintf(&b, "\n@group(%d) @binding(0) var<storage, read> %s: array<u32>;\n@group(%d) @binding(1) var<uniform> %s: vec4<u32>;\n",
		group, words, group, at)
	return &Guarded{Source: b.String(), Group: group}, nil
}

// guardPrefix starts the names of the guard's resources; guardStmt is the
// statement Guard inserts (words, at).
const (
	guardPrefix = "softgraph_guard_"
	guardStmt   = " if (%s[%s.x] == 0u) { return; }"
)

// guarded reports whether fn's body begins with the statement Guard
// inserts, naming two resources declared as Guard declares them: the
// module is a guarded variant (Kernel.Guarded), however it was obtained (a
// graph file stores variants as source).
func (m *module) guarded(fn *fnDecl) bool {
	if fn.body == nil || fn.body.open <= 0 || fn.body.open >= len(m.src) {
		return false
	}
	rest := m.src[fn.body.open+1:]
	end := strings.Index(rest, "{ return; }")
	if end < 0 || !strings.HasPrefix(rest, " if ("+guardPrefix) {
		return false
	}
	stmt := rest[:end+len("{ return; }")]
	open, dot := strings.IndexByte(stmt, '['), strings.Index(stmt, ".x]")
	if open < 0 || dot < open {
		return false
	}
	words, at := stmt[len(" if ("):open], stmt[open+1:dot]
	if !strings.HasPrefix(at, guardPrefix) || stmt != fmt.Sprintf(guardStmt, words, at) {
		return false
	}
	w, ok1 := m.names[words].(*varDecl)
	a, ok2 := m.names[at].(*varDecl)
	return ok1 && ok2 && w.space == "storage" && a.space == "uniform"
}

// freeName is base, or base with a number after it, whichever is first
// declared neither at module scope nor as a parameter of fn (the guard is
// the first statement of fn's body, so no local can shadow it).
func (m *module) freeName(fn *fnDecl, base string) string {
	taken := func(n string) bool {
		if _, ok := m.names[n]; ok {
			return true
		}
		for _, p := range fn.params {
			if p.name == n {
				return true
			}
		}
		return false
	}
	name := base
	for i := 2; taken(name); i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	return name
}
