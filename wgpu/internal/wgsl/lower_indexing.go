package wgsl

import "strings"

// dynamicConstIndex records a module-scope const array indexed at run
// time (LUT[i]): naga v22 refuses it ("may only be indexed by a
// constant"), which WGSL allows (privateConsts).
func (l *lowerer) dynamicConstIndex(e *indexExpr) {
	root := unparen(e.x)
	for {
		if m, ok := root.(*memberExpr); ok {
			root = unparen(m.x)
		} else if ix, ok := root.(*indexExpr); ok {
			root = unparen(ix.x)
		} else {
			break
		}
	}
	id, ok := root.(*identExpr)
	if !ok {
		if _, call := root.(*callExpr); call {
			l.valueIndex(e)
		}
		return
	}
	if loc := l.lookup(id.name); loc != nil {
		// naga v22 refuses an array or matrix in a let's value indexed at
		// run time too (a[i], r.vals[i]); a var holds the same value.
		xt := l.check(e.x)
		if loc.t == nil || loc.t.kind == typePtr || xt == nil || (xt.kind != typeArray && xt.kind != typeMat) {
			return
		}
		if _, err := l.c.eval(e.index, false); err == nil {
			return
		}
		if d := loc.let; d != nil && !l.letVars[d] {
			l.letVars[d] = true
			if d.kind == "const" {
				// Made a let by decl: made a var instead.
				for i := range l.c.edits {
					if ed := &l.c.edits[i]; ed.start == d.start && ed.text == "let  " {
						ed.text = "var  "
					}
				}
			} else {
				l.c.edits = append(l.c.edits, edit{d.start, d.start + len("let"), "var"})
			}
		}
		// A parameter is a value too (fn at(a: array<f32, 3>, i: u32)): it
		// is renamed, and a var of its name, holding it, opens the body.
		if p := loc.param; p != nil && l.fn != nil && l.fn.body.open > 0 && !l.paramVars[p] {
			l.paramVars[p] = true
			h := &l.c.helpers
			h.choosePrefix(l.c.m.src)
			renamed := h.prefix + "arg_" + p.name
			l.c.edits = append(l.c.edits, edit{p.pos, p.pos + len(p.name), renamed})
			l.c.inserts = append(l.c.inserts, insertion{at: l.fn.body.open + 1, text: " var " + p.name + " = " + renamed + ";"})
		}
		return
	}
	// The const itself, or a part of it (T[1][i], C.rows[i]: naga v22
	// evaluates T[1] and C.rows as constants and refuses them too).
	d, ok := l.c.m.names[id.name].(*constDecl)
	if !ok {
		return
	}
	if _, err := l.c.eval(e.index, false); err == nil {
		return
	}
	l.dynConsts[d] = true
}

// valueIndex rewrites e, an index at run time into an array or matrix
// that a call or constructor returned (g()[i], h().a[i],
// array<f32, 3>(...)[i]), which naga v22 refuses ("may only be indexed by
// a constant"), as a call of a helper that copies its argument into a var
// and indexes that: X[i] becomes _sg_index_T_I(X, i). Nothing is left
// unevaluated or evaluated twice, and X, an argument now, is converted to
// T as a function argument is.
func (l *lowerer) valueIndex(e *indexExpr) {
	if l.inHelper {
		return
	}
	if _, err := l.c.eval(e.index, false); err == nil {
		return
	}
	raw := l.check(e.x)
	if c, ok := unparen(e.x).(*callExpr); ok && raw != nil && raw.kind == typeVec && raw.scalar.abstract() &&
		c.fn.tmpl == nil && (c.fn.name == "vec2" || c.fn.name == "vec3" || c.fn.name == "vec4") {
		// vec2(1.0, 2.0)[i]: naga v22 cannot concretize the abstract
		// vector it indexes, WGSL does (vec2<f32>); the type is spelled.
		if k := l.typeText(scalarTy(concrete(raw).scalar)); k != "" {
			l.c.inserts = append(l.c.inserts, insertion{at: c.fn.end, text: "<" + k + ">"})
		}
		return
	}
	xt := concrete(raw)
	if xt == nil || (xt.kind != typeArray && xt.kind != typeMat) {
		return
	}
	var elem *ty
	if xt.kind == typeArray {
		elem = xt.elem
	} else {
		elem = vecTy(xt.n, xt.scalar)
	}
	at, et, it := l.typeText(xt), l.typeText(elem), l.typeText(concrete(l.check(e.index)))
	if at == "" || et == "" || (it != "i32" && it != "u32") {
		return
	}
	open, close := exprEnd(e.x), e.index.exprPos()
	if open >= close || e.end <= exprEnd(e.index) {
		return
	}
	h := &l.c.helpers
	h.choosePrefix(l.c.m.src)
	if h.builtins == nil {
		h.builtins = map[string]string{}
	}
	fn := h.prefix + "index_" + strings.NewReplacer("<", "_", ">", "", ", ", "_").Replace(at) + "_" + it
	if _, ok := h.builtins[fn]; !ok {
		h.builtins[fn] = "fn " + fn + "(a: " + at + ", i: " + it + ") -> " + et + " { var v = a; return v[i]; }"
		h.builtinOrder = append(h.builtinOrder, fn)
	}
	src := l.c.m.src
	l.c.inserts = append(l.c.inserts, insertion{at: e.x.exprPos(), text: fn + "("})
	l.c.edits = append(l.c.edits,
		edit{open, close, keepLines(src[open:close], ", ")},
		edit{exprEnd(e.index), e.end, keepLines(src[exprEnd(e.index):e.end], ")")})
}

// privateConsts makes each const array indexed at run time a var<private>
// with the same initializer, which naga v22 indexes at run time, and which
// no one can write, since WGSL forbids writing to a const. Only a const
// whose type is written out (const T: array<u32, 4> = ..., or
// array<u32, 4>(...)) qualifies, since an abstract one would change type,
// and only one no module-scope declaration refers to, since a var is not a
// constant expression.
func (l *lowerer) privateConsts() {
	if len(l.dynConsts) == 0 {
		return
	}
	used := map[string]bool{}
	for _, d := range l.c.m.names {
		var es []expr
		switch d := d.(type) {
		case *constDecl:
			es = []expr{d.typ, d.init}
		case *overrideDecl:
			es = []expr{d.typ, d.init}
		case *varDecl:
			es = []expr{d.typ, d.init}
		case *aliasDecl:
			es = []expr{d.typ}
		case *structDecl:
			for _, m := range d.members {
				es = append(es, m.typ)
			}
		}
		for _, e := range es {
			if e != nil {
				namesIn(&exprsStmt{exprs: []expr{e}}, used)
			}
		}
	}
	for d := range l.dynConsts {
		if used[d.name] {
			continue
		}
		typ := "" // naga v22 wants a module-scope var's type written out
		if c, ok := d.init.(*callExpr); ok && d.typ == nil && c.fn.name == "array" && c.fn.tmpl != nil {
			typ = ": " + l.c.m.src[c.fn.pos:c.fn.end]
		} else if d.typ == nil {
			// An inferred array (const LUT = array(1u, 2u)): indexed at
			// run time it is concretized first, so the var gets the
			// concretized type (array<i32, 3> for array(1, 2, 3)); so
			// does a matrix (mat2x2(...) is a mat2x2<f32> at run time)
			// or a struct (never abstract).
			ct := concrete(l.types[d.init])
			text := l.typeText(ct)
			if text == "" || (ct.kind != typeArray && ct.kind != typeMat && ct.kind != typeStruct) {
				continue
			}
			typ = ": " + text
			l.spellArray(d.init, ct)
		}
		l.c.edits = append(l.c.edits, edit{d.kw, d.kw + len("const"), "var<private>"})
		if typ != "" {
			l.c.inserts = append(l.c.inserts, insertion{at: d.pos + len(d.name), text: typ})
		}
	}
}
