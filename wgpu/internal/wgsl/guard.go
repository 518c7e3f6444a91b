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
	// statement inserted after the entry point's opening brace (and, for a
	// latch, builtin parameters it lacks inserted after its '('), on the
	// same lines, so every line keeps its number; and the guard's resource
	// declarations appended after the last line.
	Source string
	// Layout is where the guard's resources bind.
	Layout GuardLayout
}

// GuardLayout is where a guard's resources bind: all in one bind group of
// their own, the one after the highest the entry point uses. This type is
// the one statement of the layout; the recorder binds what it says.
type GuardLayout struct {
	Group uint32
	// Words is the binding of words, var<storage, read> array<u32>
	// (read_write for a latch): the enable words.
	Words uint32
	// At is the binding of at, var<uniform> vec4<u32>: x the enable word's
	// index in words; for a latch, y the condition word's index in cond.
	At uint32
	// Cond is the binding of cond, var<storage, read> array<u32>: the
	// condition words (a latch only).
	Cond uint32
	// EnableAt and CondAt are the components of at (0 for x, 1 for y)
	// that hold the enable word's index in words and, for a latch, the
	// condition word's index in cond.
	EnableAt, CondAt uint32
}

// guardLayout is the layout of a guard in bind group group.
func guardLayout(group uint32) GuardLayout {
	return GuardLayout{Group: group, Words: 0, At: 1, Cond: 2, EnableAt: 0, CondAt: 1}
}

// component is the WGSL swizzle of vector component i.
func component(i uint32) string { return string("xyzw"[i]) }

// Guard returns a variant of the compute entry point entry of src whose
// every invocation returns at once unless words[at.x] is non-zero, words
// and at being resources it adds in a bind group of its own, the one after
// the highest the entry point uses. Graphs use it to skip a dispatch inside
// an If or While body without dispatching it indirectly: the word is the
// enable word of the body.
//
// With latch, the variant decides from a condition instead, and records
// the decision for the body's later dispatches: it returns at once unless
// cond[at.y] is non-zero, and its first invocation (local invocation 0 of
// workgroup (0, 0, 0)) first writes 1 or 0 to words[at.x] accordingly. The
// builtins that needs are taken from the entry point's parameters, or added
// as parameters when it has none of them.
//
// The guard reads only read-only storage and uniform memory, so under
// WGSL's uniformity rules its early return is uniform and the entry
// point's barriers stay valid.
//
// It fails with ErrNotGuardable when the entry point already uses the last
// bind group a device offers (3), when some module-scope variable already
// declares the group the guard would take, or (latch) when a parameter of
// struct type leaves the builtins unknown; with an *Error for source
// Specialize would refuse.
func Guard(src, entry string, constants map[string]float64, latch bool) (*Guarded, error) {
	r, err := reflectEntry(src, entry, constants, ErrNotGuardable, "guard")
	if err != nil {
		return nil, err
	}
	m, fn, c, group := r.m, r.fn, r.c, r.group
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
	var params, stmt, decls string
	l := guardLayout(group)
	if !latch {
		stmt = fmt.Sprintf(guardStmt, words, at, component(l.EnableAt))
		decls = fmt.Sprintf("\n@group(%d) @binding(%d) var<storage, read> %s: array<u32>;\n@group(%d) @binding(%d) var<uniform> %s: vec4<u32>;\n",
			l.Group, l.Words, words, l.Group, l.At, at)
	} else {
		first, added, err := m.firstInvocation(fn)
		if err != nil {
			return nil, err
		}
		params = added
		cond := m.freeName(fn, guardPrefix+"cond")
		en, cw := component(l.EnableAt), component(l.CondAt)
		stmt = fmt.Sprintf(" if (%s) { %s[%s.%s] = select(0u, 1u, %s[%s.%s] != 0u); }", first, words, at, en, cond, at, cw) +
			fmt.Sprintf(" if (%s[%s.%s] == 0u) { return; }", cond, at, cw)
		decls = fmt.Sprintf("\n@group(%d) @binding(%d) var<storage, read_write> %s: array<u32>;\n@group(%d) @binding(%d) var<uniform> %s: vec4<u32>;\n@group(%d) @binding(%d) var<storage, read> %s: array<u32>;\n",
			l.Group, l.Words, words, l.Group, l.At, at, l.Group, l.Cond, cond)
	}
	var b strings.Builder
	b.WriteString(src[:fn.paren+1])
	b.WriteString(params)
	b.WriteString(src[fn.paren+1 : fn.body.open+1])
	b.WriteString(stmt)
	b.WriteString(src[fn.body.open+1:])
	b.WriteString(decls)
	return &Guarded{Source: b.String(), Layout: l}, nil
}

// firstInvocation returns a boolean expression true in exactly one
// invocation of a dispatch (local invocation 0 of workgroup (0, 0, 0)),
// written with fn's builtin parameters, and the parameters to insert after
// fn's '(' for the builtins it lacks.
func (m *module) firstInvocation(fn *fnDecl) (string, string, error) {
	builtins := map[string]string{} // builtin → the expression reading it
	for _, p := range fn.params {
		if a := attr(p.attrs, "builtin"); a != nil && len(a.args) == 1 {
			if id, ok := a.args[0].(*identExpr); ok {
				builtins[id.name] = p.name
			}
			continue
		}
		t, ok := p.typ.(*identExpr)
		if !ok {
			return "", "", fmt.Errorf("%w: parameter %s of %s", ErrNotGuardable, p.name, fn.name)
		}
		sd, ok := m.names[t.name].(*structDecl)
		if !ok {
			return "", "", fmt.Errorf("%w: parameter %s of %s has type %s", ErrNotGuardable, p.name, fn.name, t.name)
		}
		for _, mb := range sd.members {
			if a := attr(mb.attrs, "builtin"); a != nil && len(a.args) == 1 {
				if id, ok := a.args[0].(*identExpr); ok {
					builtins[id.name] = p.name + "." + mb.name
				}
			}
		}
	}
	var add []string
	local, ok := builtins["local_invocation_index"]
	switch {
	case ok:
		local = "(" + local + " == 0u)"
	case builtins["local_invocation_id"] != "":
		local = "all(" + builtins["local_invocation_id"] + " == vec3<u32>(0u))"
	default:
		name := m.freeName(fn, guardPrefix+"local")
		add = append(add, "@builtin(local_invocation_index) "+name+": u32")
		local = "(" + name + " == 0u)"
	}
	wg, ok := builtins["workgroup_id"]
	if !ok {
		wg = m.freeName(fn, guardPrefix+"workgroup")
		add = append(add, "@builtin(workgroup_id) "+wg+": vec3<u32>")
	}
	params := strings.Join(add, ", ")
	if params != "" && len(fn.params) > 0 {
		params += ", "
	}
	return local + " && all(" + wg + " == vec3<u32>(0u))", params, nil
}

// guardPrefix starts the names of the guard's resources; guardStmt is the
// statement Guard inserts without a latch (words, at, the enable word's
// component of at).
const (
	guardPrefix = "softgraph_guard_"
	guardStmt   = " if (%s[%s.%s] == 0u) { return; }"
)

// guarded reports whether fn's body begins with a statement Guard
// inserts, reading a storage buffer it declares: the module is a guarded
// variant (Kernel.Guarded), however it was obtained (a graph file stores
// variants as source).
func (m *module) guarded(fn *fnDecl) bool {
	if fn.body == nil || fn.body.open <= 0 || fn.body.open >= len(m.src) {
		return false
	}
	rest := m.src[fn.body.open+1:]
	end := strings.Index(rest, "{ return; }")
	if end < 0 || !strings.HasPrefix(rest, " if (") {
		return false
	}
	stmt := rest[:end]
	for name, d := range m.names {
		if v, ok := d.(*varDecl); ok && strings.HasPrefix(name, guardPrefix+"words") && v.space == "storage" && strings.Contains(stmt, name+"[") {
			return true
		}
	}
	return false
}

// freeName is base, or base with a number after it, whichever is first
// absent from the source text altogether: not declared at module scope,
// as a parameter, or as a local anywhere (a local of that name at the top
// of fn's body would clash with a parameter the guard adds), and not even
// in a comment, which costs nothing but a digit.
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
		return strings.Contains(m.src, n)
	}
	name := base
	for i := 2; taken(name); i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	return name
}
