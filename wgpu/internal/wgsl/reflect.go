package wgsl

import (
	"cmp"
	"slices"
)

// filteringBuiltins are the texture builtins whose texture needs a
// filterable format and whose sampler filters (Resource.Filtered).
var filteringBuiltins = map[string]bool{
	"textureSample": true, "textureSampleBias": true, "textureSampleGrad": true,
	"textureSampleLevel": true, "textureGather": true,
}

// fnInfo is what one function's body references, found once per function.
type fnInfo struct {
	vars  []*varDecl // module-scope vars referenced, first use first
	seen  map[*varDecl]bool
	calls []callSite
	// filteredVars and filteredParams are the module-scope vars and the
	// parameters (by index) passed directly to a filtering builtin.
	filteredVars   []*varDecl
	filteredParams map[int]bool
}

type callSite struct {
	pos  int
	fn   *fnDecl
	args []argRef
}

// argRef is what a call argument names when it is a bare identifier: a
// module-scope var or a parameter of the calling function. Handles
// (textures, samplers) travel between functions only this way.
type argRef struct {
	v     *varDecl
	param int // -1 when not a parameter
}

// scope is the stack of block scopes of the function being walked: each
// maps a name to its parameter index, or -1 for a local.
type scope []map[string]int

func (s scope) lookup(name string) (int, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if idx, ok := s[i][name]; ok {
			return idx, true
		}
	}
	return 0, false
}

// walker collects one function's fnInfo.
type walker struct {
	m     *module
	info  *fnInfo
	scope scope
}

func (c *checker) info(f *fnDecl, cache map[*fnDecl]*fnInfo) *fnInfo {
	if in := cache[f]; in != nil {
		return in
	}
	w := &walker{m: c.m, info: &fnInfo{seen: map[*varDecl]bool{}, filteredParams: map[int]bool{}}}
	params := map[string]int{}
	for i, p := range f.params {
		params[p.name] = i
	}
	w.scope = scope{params}
	w.block(f.body)
	cache[f] = w.info
	return w.info
}

func (w *walker) block(b *blockStmt) {
	w.scope = append(w.scope, nil)
	for _, s := range b.stmts {
		switch s := s.(type) {
		case *blockStmt:
			w.block(s)
		case *declStmt:
			// The initializer sees the enclosing declaration of the same
			// name, not the new one.
			if s.init != nil {
				w.expr(s.init)
			}
			top := &w.scope[len(w.scope)-1]
			if *top == nil {
				*top = map[string]int{}
			}
			(*top)[s.name] = -1
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
			for _, e := range s.values {
				w.expr(e)
			}
		}
	}
	w.scope = w.scope[:len(w.scope)-1]
}

// resolve says what name refers to at this point of the body.
func (w *walker) resolve(name string) argRef {
	if idx, ok := w.scope.lookup(name); ok {
		return argRef{param: idx}
	}
	v, _ := w.m.names[name].(*varDecl)
	return argRef{v: v, param: -1}
}

func (w *walker) expr(e expr) {
	switch e := e.(type) {
	case *identExpr:
		// Template arguments are types and constant counts, never vars.
		if r := w.resolve(e.name); r.v != nil && !w.info.seen[r.v] {
			w.info.seen[r.v] = true
			w.info.vars = append(w.info.vars, r.v)
		}
	case *callExpr:
		if _, local := w.scope.lookup(e.fn.name); !local {
			switch d := w.m.names[e.fn.name].(type) {
			case *fnDecl:
				cs := callSite{pos: e.fn.pos, fn: d, args: make([]argRef, len(e.args))}
				for i, a := range e.args {
					cs.args[i] = w.argument(a)
				}
				w.info.calls = append(w.info.calls, cs)
			case nil:
				if filteringBuiltins[e.fn.name] {
					for _, a := range e.args {
						switch r := w.argument(a); {
						case r.v != nil:
							w.info.filteredVars = append(w.info.filteredVars, r.v)
						case r.param >= 0:
							w.info.filteredParams[r.param] = true
						}
					}
				}
			}
		}
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
	case *indexExpr:
		w.expr(e.x)
		w.expr(e.index)
	case *memberExpr:
		w.expr(e.x) // the member name is not a reference
	}
}

func (w *walker) argument(a expr) argRef {
	for {
		p, ok := a.(*parenExpr)
		if !ok {
			break
		}
		a = p.x
	}
	if id, ok := a.(*identExpr); ok && id.tmpl == nil {
		return w.resolve(id.name)
	}
	return argRef{param: -1}
}

// reachable returns the functions entry calls, transitively, callees before
// callers. WGSL forbids recursion, so a cycle is an error; the walk is
// iterative so deep call chains cannot exhaust the stack.
func (c *checker) reachable(entry *fnDecl, cache map[*fnDecl]*fnInfo) ([]*fnDecl, error) {
	const (
		visiting = 1
		done     = 2
	)
	state := map[*fnDecl]uint8{entry: visiting}
	type frame struct {
		f    *fnDecl
		next int
	}
	stack := []frame{{f: entry}}
	var order []*fnDecl
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		calls := c.info(top.f, cache).calls
		if top.next < len(calls) {
			cs := calls[top.next]
			top.next++
			switch state[cs.fn] {
			case 0:
				state[cs.fn] = visiting
				stack = append(stack, frame{f: cs.fn})
			case visiting:
				return nil, c.errorf(cs.pos, "function %s is called recursively, which WGSL forbids", cs.fn.name)
			}
			continue
		}
		state[top.f] = done
		order = append(order, top.f)
		stack = stack[:len(stack)-1]
	}
	return order, nil
}

// reflect fills k's Resources and WorkgroupStorage from what entry uses.
func (c *checker) reflect(entry *fnDecl, k *Kernel) error {
	cache := map[*fnDecl]*fnInfo{}
	order, err := c.reachable(entry, cache)
	if err != nil {
		return err
	}
	c.reached = order
	// A parameter is filtered if its function filters it directly or passes
	// it on to a filtered parameter; callees come first in order, so one
	// pass settles every function.
	filteredParams := map[*fnDecl]map[int]bool{}
	filtered := map[*varDecl]bool{}
	for _, f := range order {
		in := c.info(f, cache)
		fp := map[int]bool{}
		for p := range in.filteredParams {
			fp[p] = true
		}
		for _, v := range in.filteredVars {
			filtered[v] = true
		}
		for _, cs := range in.calls {
			for p := range filteredParams[cs.fn] {
				if p >= len(cs.args) {
					continue
				}
				switch a := cs.args[p]; {
				case a.v != nil:
					filtered[a.v] = true
				case a.param >= 0:
					fp[a.param] = true
				}
			}
		}
		filteredParams[f] = fp
	}
	var used []*varDecl
	seen := map[*varDecl]bool{}
	for i := len(order) - 1; i >= 0; i-- { // the entry point's own uses first
		for _, v := range c.info(order[i], cache).vars {
			if !seen[v] {
				seen[v] = true
				used = append(used, v)
			}
		}
	}
	at := map[[2]uint32]*varDecl{}
	for _, v := range used {
		r, wg, err := c.resource(v)
		if err != nil {
			return err
		}
		if wg != nil {
			if k.WorkgroupStorage += roundUp(16, wg.size); k.WorkgroupStorage > maxTypeSize {
				return c.errorf(v.pos, "workgroup variables are too large")
			}
			continue
		}
		if r == nil {
			continue
		}
		if prev := at[[2]uint32{r.Group, r.Binding}]; prev != nil {
			first, second := prev, v
			if second.pos < first.pos {
				first, second = second, first
			}
			return c.errorf(second.pos, "%s and %s are both at @group(%d) @binding(%d) and entry point %s uses both",
				first.name, second.name, r.Group, r.Binding, entry.name)
		}
		at[[2]uint32{r.Group, r.Binding}] = v
		if r.Kind == ResourceTexture || r.Kind == ResourceSampler {
			r.Filtered = filtered[v]
		}
		k.Resources = append(k.Resources, *r)
	}
	bySlot := func(a, b Resource) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Binding, b.Binding))
	}
	slices.SortFunc(k.Resources, bySlot)
	k.Declared = k.Resources
	// The declared-but-unused resources, in source order so the first of
	// several at one slot stands for it. Their errors are not the entry
	// point's: an unused declaration does not stop the kernel from
	// compiling here (the bundled compiler validates the whole module).
	var unused []*varDecl
	for _, d := range c.m.names {
		if v, ok := d.(*varDecl); ok && !seen[v] {
			unused = append(unused, v)
		}
	}
	slices.SortFunc(unused, func(a, b *varDecl) int { return cmp.Compare(a.pos, b.pos) })
	var extra []Resource
	for _, v := range unused {
		if v.space == "private" || v.space == "workgroup" || v.space == "function" {
			continue
		}
		r, _, err := c.resource(v)
		if err != nil || r == nil {
			continue
		}
		slot := [2]uint32{r.Group, r.Binding}
		if at[slot] != nil {
			continue
		}
		at[slot] = v
		extra = append(extra, *r)
	}
	if len(extra) > 0 {
		k.Declared = append(slices.Clone(k.Resources), extra...)
		slices.SortFunc(k.Declared, bySlot)
	}
	return nil
}

// resource classifies a module-scope var the entry point uses: a resource,
// a workgroup variable (its store type returned), or neither (private).
func (c *checker) resource(v *varDecl) (*Resource, *wtype, error) {
	group, binding := attr(v.attrs, "group"), attr(v.attrs, "binding")
	switch v.space {
	case "function":
		return nil, nil, c.errorf(v.tmpl, "var<function> is not allowed at module scope")
	case "private", "workgroup":
		if group != nil || binding != nil {
			return nil, nil, c.errorf(v.pos, "var<%s> %s cannot have @group or @binding", v.space, v.name)
		}
		if v.space == "private" {
			return nil, nil, nil
		}
		if v.init != nil {
			return nil, nil, c.errorf(v.pos, "var<workgroup> %s cannot have an initializer", v.name)
		}
		if v.typ == nil {
			return nil, nil, c.errorf(v.pos, "var<workgroup> %s needs a type", v.name)
		}
		t, err := c.resolveType(v.typ, true)
		if err != nil {
			return nil, nil, err
		}
		if t.size == 0 || !t.fixed {
			return nil, nil, c.errorf(v.typ.exprPos(), "var<workgroup> %s has type %s, which does not have a fixed size", v.name, format(v.typ))
		}
		return nil, t, nil
	}
	if v.typ == nil {
		return nil, nil, c.errorf(v.pos, "module-scope var %s needs a type", v.name)
	}
	if v.init != nil {
		return nil, nil, c.errorf(v.pos, "var %s cannot have an initializer; only var<private> can", v.name)
	}
	t, err := c.resolveType(v.typ, false)
	if err != nil {
		return nil, nil, err
	}
	r := &Resource{Name: v.name, Type: format(v.typ)}
	switch v.space {
	case "storage", "uniform":
		if !t.shareable || t.size == 0 {
			return nil, nil, c.errorf(v.typ.exprPos(), "var<%s> %s has type %s, which is not host-shareable", v.space, v.name, format(v.typ))
		}
		r.MinSize = t.size
		if t.atomic && (v.space == "uniform" || v.access != "read_write") {
			// naga v22 accepted an atomic in read-only storage on Vulkan
			// (and refused it on OpenGL as a write to a read-only
			// variable): a shader a browser refuses would run here.
			return nil, nil, c.errorf(v.typ.exprPos(), "var<%s> %s has type %s, which holds an atomic; WGSL allows atomics only in var<workgroup> and var<storage, read_write>", spaceAndAccess(v), v.name, format(v.typ))
		}
		switch {
		case v.space == "uniform":
			if !t.fixed {
				return nil, nil, c.errorf(v.typ.exprPos(), "var<uniform> %s has type %s, which is runtime-sized", v.name, format(v.typ))
			}
			r.Kind = ResourceUniform
			r.StorageOnGL = c.uniformAsStorage(v, t)
		case v.access == "" || v.access == "read":
			r.Kind, r.Access = ResourceReadOnlyStorage, AccessRead
		case v.access == "read_write":
			r.Kind, r.Access = ResourceStorage, AccessReadWrite
		default:
			return nil, nil, c.errorf(v.modes, "var<storage, %s> is not allowed; storage buffers are read or read_write", v.access)
		}
	default: // handle address space
		switch t.kind {
		case typeTexture:
			r.Kind, r.Dim, r.SampleType, r.Multisampled = ResourceTexture, t.dim, t.sample, t.multisampled
		case typeStorageTexture:
			r.Kind, r.Dim, r.Format, r.Access = ResourceStorageTexture, t.dim, t.format, t.access
		case typeSampler:
			r.Kind = ResourceSampler
			if t.comparison {
				r.Kind = ResourceComparisonSampler
			}
		case typeExternalTexture:
			return nil, nil, c.errorf(v.typ.exprPos(), "var %s: texture_external is not supported", v.name)
		default:
			return nil, nil, c.errorf(v.pos, "module-scope var %s of type %s needs an address space (var<private>, var<workgroup>, var<storage> or var<uniform>)", v.name, format(v.typ))
		}
	}
	if group == nil || binding == nil {
		return nil, nil, c.errorf(v.pos, "resource %s needs both @group and @binding", v.name)
	}
	if r.Group, err = c.attrUint(group, "@group", false); err != nil {
		return nil, nil, err
	}
	if r.Binding, err = c.attrUint(binding, "@binding", false); err != nil {
		return nil, nil, err
	}
	return r, nil, nil
}

// spaceAndAccess spells v's address space and access mode as written
// ("storage, read", "storage" or "uniform").
func spaceAndAccess(v *varDecl) string {
	if v.access == "" {
		return v.space
	}
	return v.space + ", " + v.access
}
