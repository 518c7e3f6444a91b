package wgsl

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ErrNotPointwise is wrapped by the *PointwiseError AnalyzePointwise returns
// for a kernel that parses and reflects but cannot be fused.
var ErrNotPointwise = errors.New("not pointwise")

// PointwiseError says why an entry point is not pointwise: Reason names
// the first construct the analysis does not accept.
type PointwiseError struct {
	Entry  string
	Reason string
}

func (e *PointwiseError) Error() string {
	return fmt.Sprintf("wgsl: entry point %q is not pointwise: %s", e.Entry, e.Reason)
}

func (e *PointwiseError) Unwrap() error { return ErrNotPointwise }

// Pointwise describes an entry point in which every invocation reads and
// writes storage only at one index, a fixed function of its builtin
// invocation ids (the invocation's index): the kernels whose dispatches
// can run one after another inside one invocation (Fuse).
type Pointwise struct {
	Entry string
	// WorkgroupSize is the x size of Workgroup, the @workgroup_size.
	WorkgroupSize uint32
	// Workgroup is the whole @workgroup_size (a dimension left out is 1):
	// fused parts must agree on all three.
	Workgroup [3]uint32
	// Index is the invocation's index in a canonical spelling: the builtin
	// values by their builtin names ("global_invocation_id.y *
	// num_workgroups.x * 256u + global_invocation_id.x"). Two kernels with
	// equal Index and workgroup size, dispatched over the same workgroup
	// counts, give each invocation the same index.
	Index string
	// Fold says on which workgroup counts Index is one-to-one (OneToOne).
	Fold Fold
	// Resources are the entry point's resources, as Specialize reports
	// them: storage and uniform buffers only.
	Resources []Resource
	// Gathered is, per resource, whether the entry point reads it at an
	// index other than Index (bias[i % cols]). Only read-only storage and
	// uniforms may be gathered.
	Gathered []bool
	// Builtins are the builtin names of the entry point's parameters, in
	// order.
	Builtins []string
	// Unused names the module's resource declarations the entry point
	// never uses (a family of kernels sharing one header): the fused
	// module drops them, since no binding is made for them.
	Unused []string
	// ContextDependent and ContextReason are the Kernel's: a compiler may
	// compute the entry point's floats differently in a fused module.
	ContextDependent bool
	ContextReason    string
	// ChainsFloats and ChainReason are the Kernel's: fused only on
	// devices measured to keep such kernels' bits in another context.
	ChainsFloats bool
	ChainReason  string
	// Producer: AnalyzeProducer's result, the head of an epilogue; Index
	// is its stores' index, and Gathered marks all but the stored
	// resources.
	Producer bool
}

// pointwiseBuiltins are the builtin values a pointwise entry point may take,
// with their types: all of them are the same for an invocation of any
// kernel dispatched with the same workgroup size and counts.
var pointwiseBuiltins = map[string]string{
	"global_invocation_id":   "vec3<u32>",
	"local_invocation_id":    "vec3<u32>",
	"local_invocation_index": "u32",
	"workgroup_id":           "vec3<u32>",
	"num_workgroups":         "vec3<u32>",
}

// forbiddenCall says why a builtin call makes a kernel not pointwise:
// whatever couples invocations (barriers, atomics, subgroup and quad
// operations, derivatives) or touches textures.
func forbiddenCall(name string) string {
	switch {
	case strings.HasSuffix(name, "Barrier"), name == "workgroupUniformLoad":
		return "synchronizes invocations"
	case strings.HasPrefix(name, "atomic"):
		return "is atomic"
	case strings.HasPrefix(name, "subgroup"), strings.HasPrefix(name, "quad"):
		return "couples invocations"
	case strings.HasPrefix(name, "dpd"), strings.HasPrefix(name, "fwidth"):
		return "is a derivative"
	case strings.HasPrefix(name, "texture"):
		return "uses a texture"
	}
	return ""
}

// AnalyzePointwise decides whether entry of src is pointwise. A source that
// does not specialize returns Specialize's error; one that is not pointwise
// a *PointwiseError (ErrNotPointwise) with the reason. The analysis is
// conservative: what it does not recognise is not pointwise.
//
// A pointwise entry point: is the module's only entry point, with a 1-D
// @workgroup_size and no override in the module (the fused module is
// built from the author's text) nor directive; takes only the builtin
// parameters listed in pointwiseBuiltins; uses no var<workgroup>, no
// texture or sampler, and every resource the module declares; calls no
// barrier, atomic, subgroup, quad, derivative or texture builtin; declares
// no local that shadows a module-scope name, nor one name twice; uses each
// storage variable only as NAME[index] or arrayLength(&NAME), and index is
// the invocation's index (an expression of builtin parameters, literals
// and lets of such expressions) except for reads of read-only storage; and
// its other functions use no storage at all.
func AnalyzePointwise(src, entry string) (*Pointwise, error) {
	k, err := Specialize(src, entry, Options{})
	if err != nil {
		return nil, err
	}
	m, fn, err := parseEntry(src, entry)
	if err != nil {
		return nil, err
	}
	a := &pointwiseAnalysis{m: m, entry: fn, k: k, lets: map[string]string{}, params: map[string]string{}}
	if reason := a.run(); reason != "" {
		return nil, &PointwiseError{Entry: entry, Reason: reason}
	}
	return &Pointwise{Entry: entry, WorkgroupSize: k.WorkgroupSize[0], Workgroup: k.WorkgroupSize, Index: a.index, Fold: a.fold, Resources: k.Resources, Gathered: a.gathered, Builtins: a.builtins, Unused: a.unused, ContextDependent: k.ContextDependent, ContextReason: k.ContextReason, ChainsFloats: k.ChainsFloats, ChainReason: k.ChainReason}, nil
}

type pointwiseAnalysis struct {
	m     *module
	entry *fnDecl
	k     *Kernel
	// params maps a parameter's name to its builtin name; lets a let of
	// an invocation expression to that expression's canonical spelling.
	params, lets map[string]string
	builtins     []string
	storage      map[string]int // storage variable name → resource index
	gathered     []bool
	index        string // the canonical index
	accesses     []storageAccess
	fold         Fold
	unused       []string // resource declarations the entry point does not use
	reason       string   // the first reason found
	// producer is set for AnalyzeProducer: workgroup memory, barriers and
	// atomics are allowed, and storage is checked by stores; helperUses
	// holds the storage the entry point's callees name.
	producer   bool
	helperUses map[string]bool
}

func (a *pointwiseAnalysis) fail(format string, args ...any) {
	if a.reason == "" {
		a.reason = fmt.Sprintf(format, args...)
	}
}

func (a *pointwiseAnalysis) run() string {
	m, k := a.m, a.k
	if len(m.overrides) > 0 {
		return "the module declares overrides"
	}
	if toks, err := scan(m.src); err == nil && len(toks) > 0 {
		switch m.src[toks[0].pos:toks[0].end] {
		case "enable", "requires", "diagnostic":
			return "the module has a directive"
		}
	}
	stages := 0
	for _, f := range m.fns {
		if _, ok := f.stage(); ok {
			stages++
		}
	}
	if stages != 1 {
		return fmt.Sprintf("the module has %d entry points", stages)
	}
	if k.WorkgroupStorage > 0 && !a.producer {
		return "it uses workgroup memory"
	}
	used := map[string]bool{}
	a.storage = map[string]int{}
	for i, r := range k.Resources {
		used[r.Name] = true
		switch r.Kind {
		case ResourceStorage, ResourceReadOnlyStorage:
			a.storage[r.Name] = i
		case ResourceUniform:
		default:
			return fmt.Sprintf("it binds %s, a %s", r.Name, r.Kind)
		}
	}
	a.gathered = make([]bool, len(k.Resources))
	for name, d := range m.names {
		v, ok := d.(*varDecl)
		if !ok {
			continue
		}
		switch v.space {
		case "private":
		case "workgroup":
			if !a.producer {
				return fmt.Sprintf("it declares var<workgroup> %s", name)
			}
		default:
			if used[name] {
				continue
			}
			// A declaration the entry point does not use (a header shared
			// by a family of kernels) gets no binding: the fused module
			// drops it, which is sound only when nothing names it.
			if a.namedOutside(name, v) {
				return fmt.Sprintf("the module declares %s, which the entry point does not use but other code names", name)
			}
			a.unused = append(a.unused, name)
		}
	}
	slices.Sort(a.unused)
	for _, p := range a.entry.params {
		b := attr(p.attrs, "builtin")
		if b == nil || len(b.args) != 1 || len(p.attrs) != 1 {
			return fmt.Sprintf("parameter %s is not a builtin value", p.name)
		}
		id, ok := b.args[0].(*identExpr)
		if !ok || pointwiseBuiltins[id.name] == "" {
			return fmt.Sprintf("parameter %s is @builtin(%s)", p.name, format(b.args[0]))
		}
		a.params[p.name] = id.name
		a.builtins = append(a.builtins, id.name)
	}
	// Shadowing and redeclaration would make a name mean two things; the
	// analysis (and the fused module's renaming) reads names without scopes.
	for _, f := range m.fns {
		seen := map[string]bool{}
		for _, p := range f.params {
			if m.names[p.name] != nil {
				return fmt.Sprintf("parameter %s of %s shadows a module-scope name", p.name, f.name)
			}
			seen[p.name] = true
		}
		bad := ""
		walkStmts(f.body, func(s stmt) {
			d, ok := s.(*declStmt)
			if !ok || bad != "" {
				return
			}
			if m.names[d.name] != nil || seen[d.name] {
				bad = fmt.Sprintf("%s declares %s twice or over a module-scope name", f.name, d.name)
			}
			seen[d.name] = true
		})
		if bad != "" {
			return bad
		}
	}
	// The functions the entry point calls must not touch storage.
	done := map[*fnDecl]bool{a.entry: true}
	var callees func(f *fnDecl)
	callees = func(f *fnDecl) {
		walkExprs(f.body, func(e expr) {
			switch e := e.(type) {
			case *callExpr:
				if why := forbiddenCall(e.fn.name); why != "" && m.names[e.fn.name] == nil && (!a.producer || strings.HasPrefix(e.fn.name, "texture")) {
					a.fail("%s calls %s, which %s", f.name, e.fn.name, why)
				}
				if g, ok := m.names[e.fn.name].(*fnDecl); ok && !done[g] {
					done[g] = true
					callees(g)
				}
			case *identExpr:
				if _, ok := a.storage[e.name]; ok && f != a.entry {
					if a.producer {
						a.helperUses[e.name] = true
						break
					}
					a.fail("function %s, which the entry point calls, uses storage %s", f.name, e.name)
				}
			}
		})
	}
	callees(a.entry)
	if a.reason != "" {
		return a.reason
	}
	if a.producer {
		return a.stores()
	}
	// Lets of invocation expressions, then every storage access.
	walkStmts(a.entry.body, func(s stmt) {
		if d, ok := s.(*declStmt); ok && d.kind == "let" && d.init != nil {
			if c, ok := a.invocation(d.init); ok {
				a.lets[d.name] = c
			}
		}
	})
	walkStmts(a.entry.body, func(s stmt) {
		switch s := s.(type) {
		case *declStmt:
			a.access(s.typ)
			a.access(s.init)
		case *exprsStmt:
			for _, e := range s.exprs {
				a.access(e)
			}
		case *assignStmt:
			a.access(s.lhs)
			a.access(s.rhs)
		case *returnStmt:
			a.access(s.x)
		case *caseStmt:
			a.access(s.selector)
			for _, e := range s.values {
				a.access(e)
			}
		case *assertStmt:
			a.access(s.cond)
		}
	})
	if a.reason != "" {
		return a.reason
	}
	return a.decideIndex()
}

// storageAccess is one NAME[index] of a storage variable: canon is the
// index's canonical spelling, "" when it is not an invocation expression.
type storageAccess struct {
	res         int
	name, canon string
	text        string
}

// decideIndex finds the invocation's index: the one index every access to
// read_write storage uses (or, without any, the first invocation index of a
// read), which must be one the analysis knows to be one-to-one; reads of
// read-only storage elsewhere are gathered.
func (a *pointwiseAnalysis) decideIndex() string {
	for _, ac := range a.accesses {
		if a.k.Resources[ac.res].Kind != ResourceStorage {
			continue
		}
		switch {
		case ac.canon == "":
			return fmt.Sprintf("read_write storage %s is indexed at %s, not at the invocation's index", ac.name, ac.text)
		case a.index != "" && a.index != ac.canon:
			return fmt.Sprintf("%s is indexed at %s and at %s", ac.name, a.index, ac.canon)
		}
		a.index = ac.canon
	}
	for _, ac := range a.accesses {
		if a.index == "" && ac.canon != "" {
			a.index = ac.canon
		}
	}
	if a.index == "" {
		return "it accesses no storage at an invocation index"
	}
	fold, ok := injective(a.index, a.k.WorkgroupSize)
	if !ok {
		return fmt.Sprintf("its index %s is not one the analysis knows to differ between invocations", a.index)
	}
	a.fold = fold
	for _, ac := range a.accesses {
		if ac.canon != a.index {
			a.gathered[ac.res] = true
		}
	}
	return ""
}

// injective reports whether index, in canonical spelling, is one of the
// forms known to give every invocation of a dispatch a different value,
// and on which dispatches: the global x id (dispatches of one row of
// workgroups), the x id folded with y over num_workgroups.x times the
// workgroup size (what ElementwiseGroups dispatches; one layer in z), the
// x id plus y times a constant K (workgroup counts in x at most K / size;
// one layer), or the workgroup id times the size plus the local id (the
// local index, with the whole workgroup's size). ws is @workgroup_size: the
// x forms hold for its x size, and whether other dimensions vary is
// OneToOne's to check.
func injective(index string, ws [3]uint32) (Fold, bool) {
	w, all := ws[0], ws[0]*ws[1]*ws[2]
	for _, lit := range []string{fmt.Sprint(all), fmt.Sprint(all) + "u"} {
		if index == "workgroup_id.x * "+lit+" + local_invocation_index" {
			return Fold{Kind: FoldLocalIndex}, true
		}
	}
	for _, lit := range []string{fmt.Sprint(w), fmt.Sprint(w) + "u"} {
		switch index {
		case "global_invocation_id.x",
			"workgroup_id.x * " + lit + " + local_invocation_id.x":
			return Fold{Kind: FoldNone}, true
		case "global_invocation_id.y * num_workgroups.x * " + lit + " + global_invocation_id.x",
			"global_invocation_id.x + global_invocation_id.y * num_workgroups.x * " + lit,
			"global_invocation_id.y * (num_workgroups.x * " + lit + ") + global_invocation_id.x",
			"global_invocation_id.x + global_invocation_id.y * (num_workgroups.x * " + lit + ")":
			return Fold{Kind: FoldGroups}, true
		}
	}
	for _, re := range []*regexp.Regexp{foldConstAfter, foldConstBefore} {
		m := re.FindStringSubmatch(index)
		if m == nil {
			continue
		}
		k := uint64(1)
		for _, f := range strings.Split(m[1], " * ") {
			v, err := strconv.ParseUint(strings.TrimSuffix(f, "u"), 10, 32)
			if err != nil {
				return Fold{}, false
			}
			k *= v
			if k > 1<<40 {
				return Fold{}, false
			}
		}
		return Fold{Kind: FoldConstant, K: k}, true
	}
	return Fold{}, false
}

var (
	foldConstAfter  = regexp.MustCompile(`^global_invocation_id\.x \+ global_invocation_id\.y \* ((?:\d+u? \* )*\d+u?)$`)
	foldConstBefore = regexp.MustCompile(`^global_invocation_id\.y \* ((?:\d+u? \* )*\d+u?) \+ global_invocation_id\.x$`)
)

// FoldKind is how an index folds the workgroup grid into one dimension.
type FoldKind uint8

const (
	FoldNone       FoldKind = iota // the x id alone: one row of workgroups
	FoldGroups                     // y folded over num_workgroups.x: one layer
	FoldConstant                   // y folded over a constant K: one layer, x·size ≤ K
	FoldLocalIndex                 // workgroup x id times the whole workgroup plus the local index
)

// Fold is the dispatches on which a pointwise index is one-to-one.
type Fold struct {
	Kind FoldKind
	K    uint64 // FoldConstant's stride
}

// OneToOne reports whether the index gives every invocation of a dispatch
// of x×y×z workgroups a different value: what fusing dispatches of the
// kernel needs (two invocations sharing an element would see each other's
// stores in a fused kernel in an order the unfused graph does not have).
// The global ids range over the workgroup counts times the workgroup size
// in each dimension: an index of x alone needs one invocation in y and z,
// one folding y over a row width needs every x id below that width.
func (p *Pointwise) OneToOne(x, y, z uint32) bool {
	wg := p.Workgroup
	if wg == ([3]uint32{}) {
		wg = [3]uint32{p.WorkgroupSize, 1, 1}
	}
	ny := uint64(y) * uint64(wg[1])
	nz := uint64(z) * uint64(wg[2])
	switch p.Fold.Kind {
	case FoldNone:
		return ny == 1 && nz == 1
	case FoldLocalIndex:
		return y == 1 && z == 1
	case FoldGroups:
		return nz == 1
	case FoldConstant:
		return nz == 1 && (ny == 1 || uint64(x)*uint64(wg[0]) <= p.Fold.K)
	}
	return false
}

// FirstOfIndex is a WGSL condition, over the fused entry point's builtin
// values (_global_invocation_id, _workgroup_id, _num_workgroups), that
// holds in exactly one invocation of each index value on any workgroup
// counts: the invocation whose index no other with smaller (z, y) ids
// shares. A dispatch whose counts only the GPU knows (an indirect one)
// can be fused when every part runs in those invocations only; where the
// counts make the index one-to-one (what OneToOne checks for direct
// counts) it holds in every invocation and changes nothing. It returns
// the builtins the condition reads, and false for a kernel whose index
// has no such condition here.
func (p *Pointwise) FirstOfIndex() (cond string, builtins []string, ok bool) {
	wg := p.Workgroup
	if wg == ([3]uint32{}) {
		wg = [3]uint32{p.WorkgroupSize, 1, 1}
	}
	switch p.Fold.Kind {
	case FoldNone:
		// The index is the x id alone: y and z repeat it.
		return "_global_invocation_id.y == 0u && _global_invocation_id.z == 0u", []string{"global_invocation_id"}, true
	case FoldLocalIndex:
		return "_workgroup_id.y == 0u && _workgroup_id.z == 0u", []string{"workgroup_id"}, true
	case FoldGroups:
		// y is folded over the whole x extent: only z repeats it.
		return "_global_invocation_id.z == 0u", []string{"global_invocation_id"}, true
	case FoldConstant:
		// x + y·K: (x, y) shares its index with (x + K, y - 1) when that
		// x is in the grid (x extent X = num_workgroups.x times the x
		// size, at most 65535 · 1024 < 2^26, so a K past that never
		// meets). Invocations with y = 0, or whose x + K is past X,
		// are the first of their index.
		if p.Fold.K == 0 || p.Fold.K >= 1<<26 {
			return "_global_invocation_id.z == 0u", []string{"global_invocation_id"}, true
		}
		return fmt.Sprintf("_global_invocation_id.z == 0u && (_global_invocation_id.y == 0u || _global_invocation_id.x + %du >= _num_workgroups.x * %du)", p.Fold.K, wg[0]),
			[]string{"global_invocation_id", "num_workgroups"}, true
	}
	return "", nil, false
}

// invocation spells e canonically if it is an expression of the builtin
// parameters, literals and lets of such expressions only.
func (a *pointwiseAnalysis) invocation(e expr) (string, bool) {
	switch e := e.(type) {
	case *identExpr:
		if b, ok := a.params[e.name]; ok && e.tmpl == nil {
			return b, true
		}
		if c, ok := a.lets[e.name]; ok && e.tmpl == nil {
			if !strings.Contains(c, " ") {
				return c, true // one value (let row = gid.y) needs no parentheses
			}
			return "(" + c + ")", true
		}
		// A module-scope const of a literal (const N = 768u; an override
		// bound by BindOverrides) is its literal: row widths are
		// written so.
		if c, ok := a.m.names[e.name].(*constDecl); ok && e.tmpl == nil {
			if l, ok := unparen(c.init).(*litExpr); ok {
				return l.text, true
			}
		}
	case *litExpr:
		return e.text, true
	case *parenExpr:
		c, ok := a.invocation(e.x)
		return "(" + c + ")", ok
	case *unaryExpr:
		if e.op == "&" || e.op == "*" {
			return "", false
		}
		c, ok := a.invocation(e.x)
		return e.op + c, ok
	case *binaryExpr:
		x, ok1 := a.invocation(e.x)
		y, ok2 := a.invocation(e.y)
		return x + " " + e.op + " " + y, ok1 && ok2
	case *memberExpr:
		x, ok := a.invocation(e.x)
		return x + "." + e.name, ok
	}
	return "", false
}

// access checks the storage accesses in e.
func (a *pointwiseAnalysis) access(e expr) {
	if e == nil || a.reason != "" {
		return
	}
	switch e := e.(type) {
	case *identExpr:
		if _, ok := a.storage[e.name]; ok {
			a.fail("storage %s is used other than as %s[index]", e.name, e.name)
		}
		for _, t := range e.tmpl {
			a.access(t)
		}
	case *indexExpr:
		if id, ok := e.x.(*identExpr); ok {
			if r, ok := a.storage[id.name]; ok {
				c, inv := a.invocation(e.index)
				if l, ok := e.index.(*identExpr); ok && a.lets[l.name] != "" {
					c = a.lets[l.name] // i, not (i)
				}
				if !inv {
					c = ""
				}
				a.accesses = append(a.accesses, storageAccess{res: r, name: id.name, canon: c, text: format(e.index)})
				a.access(e.index)
				return
			}
		}
		a.access(e.x)
		a.access(e.index)
	case *callExpr:
		if e.fn.name == "arrayLength" && len(e.args) == 1 && a.m.names["arrayLength"] == nil {
			if u, ok := e.args[0].(*unaryExpr); ok && u.op == "&" {
				if id, ok := u.x.(*identExpr); ok {
					if _, ok := a.storage[id.name]; ok {
						return
					}
				}
			}
		}
		for _, t := range e.fn.tmpl {
			a.access(t)
		}
		for _, x := range e.args {
			a.access(x)
		}
	case *parenExpr:
		a.access(e.x)
	case *unaryExpr:
		a.access(e.x)
	case *binaryExpr:
		a.access(e.x)
		a.access(e.y)
	case *memberExpr:
		a.access(e.x)
	}
}

// walkStmts calls f on every statement under b, b's nested blocks included,
// in source order.
func walkStmts(b *blockStmt, f func(stmt)) {
	if b == nil {
		return
	}
	for _, s := range b.stmts {
		if s == nil {
			continue
		}
		f(s)
		if nb, ok := s.(*blockStmt); ok {
			walkStmts(nb, f)
		}
	}
}

// walkExprs calls f on every expression under b, subexpressions included.
func walkExprs(b *blockStmt, f func(expr)) {
	var visit func(e expr)
	visit = func(e expr) {
		if e == nil {
			return
		}
		f(e)
		switch e := e.(type) {
		case *identExpr:
			for _, t := range e.tmpl {
				visit(t)
			}
		case *callExpr:
			visit(e.fn)
			for _, x := range e.args {
				visit(x)
			}
		case *parenExpr:
			visit(e.x)
		case *unaryExpr:
			visit(e.x)
		case *binaryExpr:
			visit(e.x)
			visit(e.y)
		case *indexExpr:
			visit(e.x)
			visit(e.index)
		case *memberExpr:
			visit(e.x)
		}
	}
	walkStmts(b, func(s stmt) {
		switch s := s.(type) {
		case *declStmt:
			visit(s.typ)
			visit(s.init)
		case *exprsStmt:
			for _, e := range s.exprs {
				visit(e)
			}
		case *assignStmt:
			visit(s.lhs)
			visit(s.rhs)
		case *returnStmt:
			visit(s.x)
		case *caseStmt:
			visit(s.selector)
			for _, e := range s.values {
				visit(e)
			}
		case *assertStmt:
			visit(s.cond)
		}
	})
}

// namedOutside reports whether the module's text names name anywhere but
// in v, its declaration.
func (a *pointwiseAnalysis) namedOutside(name string, v *varDecl) bool {
	lex, err := scan(a.m.src)
	if err != nil {
		return true
	}
	start, end := v.pos, v.pos
	if len(v.attrs) > 0 {
		start = min(start, v.attrs[0].pos)
	}
	if v.typ != nil {
		end = exprEnd(v.typ)
	}
	for _, l := range lex {
		if l.kind == tokIdent && a.m.src[l.pos:l.end] == name && (l.pos < start || l.pos > end) {
			return true
		}
	}
	return false
}
