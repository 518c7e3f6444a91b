package wgsl

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrNotCheckable says Check cannot make a checked variant of an entry
// point: the bind group its checks would take is the last a device
// offers, or some variable already declares it.
var ErrNotCheckable = errors.New("no checked variant")

// Checked is the variant of a compute entry point that Check makes.
type Checked struct {
	// Source is the module with its checks. Every checked index
	// expression i of a storage or uniform binding's array, vector or
	// matrix becomes prefix(u32(i), LENGTH, SITE): text inserted before
	// and after i on its own line, so every line keeps its number and i
	// is still evaluated exactly once, where it was. One statement is
	// inserted after the entry point's opening brace (and a builtin
	// parameter after its '(' when it has no global_invocation_id), and
	// the checks' declarations are appended after the last line.
	Source string
	// Layout is where the checks' resources bind.
	Layout CheckLayout
	// Sites are the checked accesses: the SITE a violation records is an
	// index into Sites. Empty when the entry point indexes no binding;
	// Source is then the original text and binds nothing more.
	Sites []CheckSite
}

// CheckSite is one checked access: the binding whose array (or vector or
// matrix) it indexes, and where it is in the source.
type CheckSite struct {
	// Name is the binding's variable name; Group and Binding where it
	// binds.
	Name           string
	Group, Binding uint32
	// Function is the function the access is in (the entry point, or a
	// function it calls); Line and Col are its 1-based position in the
	// source (the index expression's first character).
	Function  string
	Line, Col int
	// Indexed is the indexed expression as written, its spaces collapsed
	// ("m[i]", "p.data"; Name itself for the binding's own array), and Of
	// what its length counts: "elements", "components" (a vector) or
	// "columns" (a matrix).
	Indexed, Of string
}

// CheckLayout is where a checked variant's resources bind: in one bind
// group of their own, the one after the highest the entry point uses (the
// layout Guard uses, for the same reason: the kernel's own bindings and
// the pipeline layout of its groups stay as they were).
type CheckLayout struct {
	Group uint32
	// State is the binding of the checks' state, var<storage, read_write>
	// of CheckStateSize bytes: eight u32 words, CheckCount first (an
	// atomic counter of violations), then CheckLaunch, CheckSite,
	// CheckIndex, CheckLength and the invocation's global id (CheckX,
	// CheckY, CheckZ) of the first violation, which only the invocation
	// that raised the counter from 0 writes. Zero words mean no violation.
	State uint32
	// At is the binding of var<uniform> vec4<u32>: x is copied into
	// CheckLaunch, so the host can tell which dispatch recorded it.
	At uint32
}

// The words of a checks' state buffer (CheckLayout.State), by index.
const (
	CheckCount = iota
	CheckLaunch
	CheckSiteWord
	CheckIndex
	CheckLength
	CheckX
	CheckY
	CheckZ
	checkWords
)

// CheckStateSize is the size of the state a checked variant binds, and
// CheckAtSize of its uniform.
const (
	CheckStateSize = 4 * checkWords
	CheckAtSize    = 16
)

// Check returns a variant of the compute entry point entry of src in which
// every index into a storage or uniform binding is checked against the
// binding's length before it is used: runtime-sized arrays against
// arrayLength, fixed-size arrays against their element count (overrides
// bound to constants), vectors and matrices against their width and
// column count. A check changes nothing about the access: the index is
// evaluated once, where it was, and the same value indexes the binding, so
// in-range accesses read and write what they did, bit for bit. An index
// past the end (or negative: u32 of a negative i32 is past every length)
// adds one to the state's counter, and the invocation that raised it from
// zero records the launch word, the site, the index, the length and its
// global invocation id. Nothing else changes: an out-of-range access still
// does what WGSL says it does (an implementation-defined in-range element
// or nothing), so the kernel's results are the unchecked kernel's.
//
// Accesses are found in the entry point and in every function it calls,
// through any path of member accesses, derefs and address-ofs, and
// through let-declared pointers (let p = &a[i]; p[j] and (*p)[j] are
// checked). Not checked: arrays in function, private or workgroup memory
// (they are no binding's), indices through pointer parameters of helper
// functions (which binding a parameter points into is the caller's), and
// accesses through a vector swizzle.
//
// Its errors are ErrNotCheckable (wrapped) when the group the checks take
// is unavailable, and an *Error for source Specialize would refuse.
func Check(src, entry string, constants map[string]float64) (*Checked, error) {
	r, err := reflectEntry(src, entry, constants, ErrNotCheckable, "check")
	if err != nil {
		return nil, err
	}
	m, fn, c, group := r.m, r.fn, r.c, r.group
	prefix := m.freeName(fn, checkPrefix)
	w := &checkWalker{c: c, m: m, fn: "", prefix: prefix}
	for _, f := range c.reached {
		if f.body == nil {
			continue
		}
		w.fn = f.name
		w.scope = checkScope{map[string]*checkPtr{}}
		for _, p := range f.params {
			w.scope[0][p.name] = nil // parameters shadow module-scope names
		}
		w.block(f.body)
	}
	if w.err != nil {
		return nil, w.err
	}
	if len(w.sites) == 0 {
		return &Checked{Source: src}, nil
	}
	// The first group after the entry point's that no declaration of the
	// module takes (another entry point's bindings may): the groups
	// between stay empty, as gaps between an entry's groups may.
	declared := map[uint32]string{}
	for _, d := range m.names {
		if v, ok := d.(*varDecl); ok {
			if a := attr(v.attrs, "group"); a != nil {
				g, err := c.attrUint(a, "@group", false)
				if err != nil {
					return nil, err
				}
				declared[g] = v.name
			}
		}
	}
	for group <= maxGuardGroup && declared[group] != "" {
		group++
	}
	if group > maxGuardGroup {
		return nil, fmt.Errorf("%w: entry point %s leaves no bind group free after its own (a device offers @group(0) to @group(%d))", ErrNotCheckable, entry, maxGuardGroup)
	}
	// The entry point becomes a plain function (its attributes and its
	// parameters' blanked, its name the prefix's), called by a new entry
	// point of the same name, attributes and parameters appended after
	// the last line, which flushes what the checks saw: a check only
	// stores to private memory, and the one atomic of an invocation is
	// made once, at its end (see checkDecls).
	l := CheckLayout{Group: group, State: 0, At: 1}
	for _, a := range fn.attrs {
		w.edits = append(w.edits, edit{a.pos, a.end, keepLines(src[a.pos:a.end], "")})
	}
	w.edits = append(w.edits, edit{fn.pos, fn.pos + len(fn.name), prefix + "_entry"})
	var attrs, params, args []string
	for _, a := range fn.attrs {
		attrs = append(attrs, src[a.pos:a.end])
	}
	for _, p := range fn.params {
		var pa []string
		for _, a := range p.attrs {
			pa = append(pa, src[a.pos:a.end])
			w.edits = append(w.edits, edit{a.pos, a.end, keepLines(src[a.pos:a.end], "")})
		}
		pa = append(pa, p.name+": "+src[p.typ.exprPos():exprEnd(p.typ)])
		params = append(params, strings.Join(pa, " "))
		args = append(args, p.name)
	}
	gid, param := globalID(m, fn, prefix+"_gid")
	if param != "" {
		params = append(params, param)
	}
	var b strings.Builder
	b.WriteString(applyEdits(src, mergeInsertions(w.edits)))
	fmt.Fprintf(&b, checkDecls, prefix, group, l.State, group, l.At)
	fmt.Fprintf(&b, "%s\nfn %s(%s) {\n\t%s_inv = %s;\n\t%s_entry(%s);\n\t%s_flush();\n}\n",
		strings.Join(attrs, " "), fn.name, strings.Join(params, ", "), prefix, gid, prefix, strings.Join(args, ", "), prefix)
	return &Checked{Source: b.String(), Layout: l, Sites: w.sites}, nil
}

// checkPrefix starts every name Check declares; checkDecls are its
// declarations (the prefix, then the group and binding of the state and
// of the launch word). The prefix is absent from the source altogether
// (freeName), so every name it starts is free too.
const (
	checkPrefix = "softgraph_check"
	checkDecls  = `
struct %[1]s_State { count: atomic<u32>, launch: u32, site: u32, index: u32, length: u32, x: u32, y: u32, z: u32, }
@group(%[2]d) @binding(%[3]d) var<storage, read_write> %[1]s_state: %[1]s_State;
@group(%[4]d) @binding(%[5]d) var<uniform> %[1]s_at: vec4<u32>;
var<private> %[1]s_inv: vec3<u32>;
var<private> %[1]s_site: u32;
var<private> %[1]s_index: u32;
var<private> %[1]s_length: u32;
fn %[1]s(i: u32, n: u32, site: u32) -> u32 {
	let first = (i >= n) & (%[1]s_site == 0u);
	%[1]s_site = select(%[1]s_site, site + 1u, first);
	%[1]s_index = select(%[1]s_index, i, first);
	%[1]s_length = select(%[1]s_length, n, first);
	return i;
}
fn %[1]s_flush() {
	if (%[1]s_site != 0u) {
		if (atomicAdd(&%[1]s_state.count, 1u) == 0u) {
			%[1]s_state.launch = %[1]s_at.x;
			%[1]s_state.site = %[1]s_site - 1u;
			%[1]s_state.index = %[1]s_index;
			%[1]s_state.length = %[1]s_length;
			%[1]s_state.x = %[1]s_inv.x;
			%[1]s_state.y = %[1]s_inv.y;
			%[1]s_state.z = %[1]s_inv.z;
		}
	}
}
`
)

// globalID is the expression of fn's global_invocation_id builtin, and the
// parameter to add when it has none (named name).
func globalID(m *module, fn *fnDecl, name string) (expr, param string) {
	for _, p := range fn.params {
		if a := attr(p.attrs, "builtin"); a != nil && len(a.args) == 1 {
			if id, ok := a.args[0].(*identExpr); ok && id.name == "global_invocation_id" {
				return p.name, ""
			}
			continue
		}
		if t, ok := p.typ.(*identExpr); ok {
			if sd, ok := m.names[t.name].(*structDecl); ok {
				for _, mb := range sd.members {
					if a := attr(mb.attrs, "builtin"); a != nil && len(a.args) == 1 {
						if id, ok := a.args[0].(*identExpr); ok && id.name == "global_invocation_id" {
							return p.name + "." + mb.name, ""
						}
					}
				}
			}
		}
	}
	return name, "@builtin(global_invocation_id) " + name + ": vec3<u32>"
}

// checkPtr is what a let-declared pointer points at: a place inside
// binding root, of type t.
type checkPtr struct {
	t    *wtype
	root *varDecl
}

// checkScope maps the names declared in each open block to the binding a
// pointer among them points into; nil for every other local (and for
// parameters), which shadow module-scope names.
type checkScope []map[string]*checkPtr

func (s checkScope) lookup(name string) (*checkPtr, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if p, ok := s[i][name]; ok {
			return p, true
		}
	}
	return nil, false
}

// checkWalker finds the checked accesses of the functions an entry point
// reaches and the insertions that check them.
type checkWalker struct {
	c      *checker
	m      *module
	fn     string // the function being walked
	prefix string
	scope  checkScope
	edits  []edit
	sites  []CheckSite
	err    error
}

func (w *checkWalker) block(b *blockStmt) {
	w.scope = append(w.scope, map[string]*checkPtr{})
	for _, s := range b.stmts {
		switch s := s.(type) {
		case *blockStmt:
			w.block(s)
		case *declStmt:
			// The initializer sees the enclosing declaration of the same
			// name, not the new one.
			var p *checkPtr
			if s.init != nil {
				w.expr(s.init)
				if s.kind == "let" {
					if t, root, ptr, ok := w.typeOf(s.init); ok && ptr {
						p = &checkPtr{t: t, root: root}
					}
				}
			}
			w.scope[len(w.scope)-1][s.name] = p
		case *exprsStmt:
			for _, e := range s.exprs {
				w.expr(e)
			}
		case *assignStmt:
			w.expr(s.lhs)
			w.expr(s.rhs)
		case *returnStmt:
			if s.x != nil {
				w.expr(s.x)
			}
		case *caseStmt:
			w.expr(s.selector)
			for _, e := range s.values {
				w.expr(e)
			}
		}
	}
	w.scope = w.scope[:len(w.scope)-1]
}

func (w *checkWalker) expr(e expr) {
	switch e := e.(type) {
	case *callExpr:
		for _, a := range e.args {
			w.expr(a)
		}
	case *parenExpr:
		w.expr(e.x)
	case *unaryExpr:
		w.expr(e.x)
	case *binaryExpr:
		w.expr(e.x)
		w.expr(e.y)
	case *memberExpr:
		w.expr(e.x)
	case *indexExpr:
		w.expr(e.x)
		w.expr(e.index)
		w.access(e)
	}
}

// access adds the check of e when it indexes a binding.
func (w *checkWalker) access(e *indexExpr) {
	t, root, ptr, ok := w.typeOf(e.x)
	if !ok {
		return
	}
	var length string
	of := "elements"
	switch t.kind {
	case typeArray:
		if t.count != 0 {
			length = fmt.Sprintf("%du", t.count)
			break
		}
		// A runtime-sized array is a binding's store type or the last
		// member of it, never an element of an array: its base is a path
		// of names, members, derefs and address-ofs, which evaluates to
		// the same place twice without side effects.
		if !plainPath(e.x) {
			return
		}
		base := w.m.src[e.x.exprPos():exprEnd(e.x)]
		if ptr {
			length = "arrayLength(" + base + ")"
		} else {
			length = "arrayLength(&" + base + ")"
		}
	case typeVec:
		length, of = fmt.Sprintf("%du", t.count), "components"
	case typeMat:
		length, of = fmt.Sprintf("%du", t.cols), "columns"
	default:
		return
	}
	r, _, err := w.c.resource(root)
	if err != nil || r == nil {
		return
	}
	pos := e.index.exprPos()
	line := 1 + strings.Count(w.m.src[:pos], "\n")
	col := utf8.RuneCountInString(w.m.src[strings.LastIndexByte(w.m.src[:pos], '\n')+1:pos]) + 1
	site := len(w.sites)
	indexed := strings.Join(strings.Fields(w.m.src[e.x.exprPos():exprEnd(e.x)]), " ")
	w.sites = append(w.sites, CheckSite{Name: root.name, Group: r.Group, Binding: r.Binding, Function: w.fn, Line: line, Col: col, Indexed: indexed, Of: of})
	w.edits = append(w.edits,
		edit{pos, pos, w.prefix + "(u32("},
		edit{exprEnd(e.index), exprEnd(e.index), fmt.Sprintf("), %s, %du)", length, site)})
}

// mergeInsertions joins the insertions made at one offset into one, in
// the order they were made, so applyEdits (which sorts by offset, not
// stably) writes them in that order.
func mergeInsertions(edits []edit) []edit {
	at := map[int]int{} // offset → index in out
	var out []edit
	for _, e := range edits {
		if i, ok := at[e.start]; ok && e.start == e.end {
			out[i].text += e.text
			continue
		}
		at[e.start] = len(out)
		out = append(out, e)
	}
	return out
}

// plainPath reports whether e is made of names, member accesses, derefs,
// address-ofs and parentheses only.
func plainPath(e expr) bool {
	for {
		switch x := e.(type) {
		case *identExpr:
			return x.tmpl == nil
		case *parenExpr:
			e = x.x
		case *unaryExpr:
			if x.op != "*" && x.op != "&" {
				return false
			}
			e = x.x
		case *memberExpr:
			e = x.x
		default:
			return false
		}
	}
}

// typeOf is the type of the place e names inside a storage or uniform
// binding (root), and whether e is a pointer to it; ok is false when e
// names no place inside a binding, or one typeOf cannot follow.
func (w *checkWalker) typeOf(e expr) (t *wtype, root *varDecl, ptr, ok bool) {
	switch x := e.(type) {
	case *identExpr:
		if x.tmpl != nil {
			return nil, nil, false, false
		}
		if p, local := w.scope.lookup(x.name); local {
			if p == nil {
				return nil, nil, false, false
			}
			return p.t, p.root, true, true
		}
		v, isVar := w.m.names[x.name].(*varDecl)
		if !isVar || (v.space != "storage" && v.space != "uniform") || v.typ == nil {
			return nil, nil, false, false
		}
		t, err := w.c.resolveType(v.typ, false)
		if err != nil {
			return nil, nil, false, false
		}
		return t, v, false, true
	case *parenExpr:
		return w.typeOf(x.x)
	case *unaryExpr:
		switch x.op {
		case "*":
			t, root, _, ok := w.typeOf(x.x)
			return t, root, false, ok
		case "&":
			t, root, _, ok := w.typeOf(x.x)
			return t, root, true, ok
		}
	case *memberExpr:
		t, root, _, ok := w.typeOf(x.x)
		if !ok || t.kind != typeStruct {
			return nil, nil, false, false
		}
		sd, isStruct := w.m.names[t.name].(*structDecl)
		if !isStruct {
			return nil, nil, false, false
		}
		for _, mb := range sd.members {
			if mb.name == x.name {
				mt, err := w.c.resolveType(mb.typ, false)
				if err != nil {
					return nil, nil, false, false
				}
				return mt, root, false, true
			}
		}
	case *indexExpr:
		t, root, _, ok := w.typeOf(x.x)
		if !ok {
			return nil, nil, false, false
		}
		switch t.kind {
		case typeArray:
			if t.elem != nil {
				return t.elem, root, false, true
			}
		case typeVec:
			return scalarType(t.scalar), root, false, true
		case typeMat:
			return vecType(t.count, t.scalar), root, false, true
		}
	}
	return nil, nil, false, false
}
