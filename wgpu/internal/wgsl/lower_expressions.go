package wgsl

// check types e, converting abstract operands inside it where an operator
// or call fixes their type, and remembers the answer.
func (l *lowerer) check(e expr) *ty {
	if t, ok := l.types[e]; ok {
		return t
	}
	l.c.depth++
	defer func() { l.c.depth-- }()
	if l.c.depth > maxCheckDepth {
		return nil
	}
	t := l.typeOf(e)
	l.types[e] = t
	return t
}

func (l *lowerer) typeOf(e expr) *ty {
	switch e := e.(type) {
	case *litExpr:
		return scalarTy(e.val.kind)
	case *parenExpr:
		return l.check(e.x)
	case *identExpr:
		return l.ident(e)
	case *unaryExpr:
		t := l.check(e.x)
		switch e.op {
		case "&":
			if t == nil {
				return nil
			}
			return &ty{kind: typePtr, elem: t}
		case "*":
			if t != nil && t.kind == typePtr {
				return t.elem
			}
			return nil
		}
		return t
	case *binaryExpr:
		return l.binary(e)
	case *indexExpr:
		l.check(e.index)
		l.dynamicConstIndex(e)
		t := l.derefAccess(e.x)
		if t == nil {
			return nil
		}
		switch t.kind {
		case typeArray:
			return t.elem
		case typeVec:
			return scalarTy(t.scalar)
		case typeMat:
			return vecTy(t.n, t.scalar)
		}
		return nil
	case *memberExpr:
		t := l.derefAccess(e.x)
		if t == nil {
			return nil
		}
		switch {
		case t.kind == typeVec:
			if len(e.name) == 1 {
				return scalarTy(t.scalar)
			}
			return vecTy(len(e.name), t.scalar)
		case t.st != nil:
			for _, m := range t.st.members {
				if m.name == e.name {
					return l.resolveMember(m.typ)
				}
			}
		default:
			for _, f := range t.fields {
				if f.name == e.name {
					return f.t
				}
			}
		}
		return nil
	case *callExpr:
		return l.call(e)
	}
	return nil
}

// resolveMember resolves a struct member's type outside any function
// scope, where the struct was declared.
// derefAccess is the type x refers to, x being the base of a member or
// index access. WGSL lets such a base be a pointer (p.m and p[i] for
// (*p).m and (*p)[i], the pointer_composite_access feature), which naga v22
// refuses ("the value accessed by a `.member` expression must not be a
// pointer"): a pointer base is written (*x).
func (l *lowerer) derefAccess(x expr) *ty {
	t := l.check(x)
	if t != nil && t.kind == typePtr {
		l.c.inserts = append(l.c.inserts,
			insertion{at: x.exprPos(), rank: rankDerefOpen, text: "(*"},
			insertion{at: exprEnd(x), rank: rankDerefClose, text: ")"})
	}
	return deref(t)
}

// The ranks of derefAccess's parentheses: innermost of all insertions at
// their offsets, the opening after every other opening and the closing
// before every other closing.
const (
	rankDerefOpen  = 4_000_000
	rankDerefClose = -6_000_000
)

func (l *lowerer) ident(e *identExpr) *ty {
	if loc := l.lookup(e.name); loc != nil {
		if loc.val != nil {
			l.c.subst[e.pos] = edit{e.pos, e.end, literalText(*loc.val)}
		}
		return loc.t
	}
	switch d := l.c.m.names[e.name].(type) {
	case *varDecl:
		if d.typ != nil {
			return l.resolveMember(d.typ)
		}
		if d.init != nil { // var<private> seed = vec2(5u, 6u): the initializer's type
			saved := l.scopes
			l.scopes = nil
			t := concrete(l.check(d.init))
			l.scopes = saved
			return t
		}
	case *overrideDecl:
		if v, err := l.c.overrideValue(d); err == nil {
			return scalarTy(v.kind)
		}
	case *constDecl:
		if d.typ != nil {
			return l.resolveMember(d.typ)
		}
		if v, err := l.c.constValue(d); err == nil {
			return scalarTy(v.kind)
		}
		if l.busy[d] {
			return nil
		}
		l.busy[d] = true
		saved := l.scopes
		l.scopes = nil
		t := l.check(d.init)
		l.scopes = saved
		delete(l.busy, d)
		return t
	}
	return nil
}

func (l *lowerer) binary(e *binaryExpr) *ty {
	tx, ty_ := l.check(e.x), l.check(e.y)
	if _, div := opOf(e.op); div && l.remember(e.y) && l.remember(e.x) {
		l.fold(e)
	}
	switch e.op {
	case "&&", "||":
		return scalarTy(scalarBool)
	case "<<", ">>":
		return l.shift(e, tx, ty_)
	}
	comparison := false
	switch e.op {
	case "==", "!=", "<", "<=", ">", ">=":
		comparison = true
	}
	if (comparison || e.op == "/" || e.op == "%") && (tx == nil || ty_ == nil || leaf(tx).isFloat() || leaf(ty_).isFloat()) {
		// A float comparison of a NaN, and a float division, whose
		// rounding WGSL leaves to the implementation (Kernel.ContextDependent).
		what := "it divides floats"
		if comparison {
			what = "it compares floats"
		}
		l.c.dependsOnContext(e.pos, what)
	}
	if e.op == "*" && (tx == nil || ty_ == nil || leaf(tx).isFloat() || leaf(ty_).isFloat()) &&
		(l.zeroConstant(e.x, e.y) || l.zeroConstant(e.y, e.x)) {
		l.zeroProduct(e.pos)
	}
	if tx == nil || ty_ == nil {
		if comparison {
			return scalarTy(scalarBool)
		}
		return nil
	}
	if e.op == "==" || e.op == "!=" {
		l.constEquality(e, tx, ty_)
	}
	tx, ty_ = l.balance(e, tx, ty_)
	if comparison {
		if tx.kind == typeVec {
			return vecTy(tx.n, scalarBool)
		}
		return scalarTy(scalarBool)
	}
	return arithmeticResult(e.op, tx, ty_)
}

// shift types e, a << or >> of operands typed tx and ty_: the shift amount
// is u32; an abstract left operand is recorded for runtimeShifts (shifted
// by an amount known only at run time) or constShifts (by a constant).
func (l *lowerer) shift(e *binaryExpr, tx, ty_ *ty) *ty {
	if ty_ != nil {
		l.coerce(e.y, withLeaf(ty_, scalarU32))
	}
	if tx != nil && leaf(tx) == scalarAbstractInt && !l.inHelper && !l.inConst {
		if _, err := l.c.eval(e.y, true); err != nil {
			l.shifts = append(l.shifts, e)
		} else if v, err := l.c.eval(e, true); err == nil && v.kind == scalarAbstractInt {
			l.constShifts[e] = v
		}
	}
	return tx
}

// balance converts the abstract operand of e, typed tx and ty_, to the
// other's concrete type, and returns the operands' types after WGSL's
// conversions: both abstract float where an abstract integer meets an
// abstract float. naga v22 converts an operand made of literals alone
// itself; only other abstract operands (constants, calls) need converting,
// and literals of a u32 division the rewrite makes a call of its helper
// (needsHelper: the divisor not a nonzero constant), whose arguments naga
// v22 reads as i32 (4096 / n, and n / 0, became calls it refused).
func (l *lowerer) balance(e *binaryExpr, tx, ty_ *ty) (*ty, *ty) {
	ax, ay := abstractTy(tx), abstractTy(ty_)
	divU32 := func(other *ty) bool {
		if _, div := opOf(e.op); !div || leaf(other) != scalarU32 {
			return false
		}
		v, err := l.c.eval(e.y, true)
		return err != nil || v.i == 0
	}
	switch {
	case ax && !ay:
		if !literalsOnly(e.x) || divU32(ty_) {
			l.coerce(e.x, ty_)
		}
		tx = withLeaf(tx, leaf(ty_))
	case ay && !ax:
		if !literalsOnly(e.y) || divU32(tx) {
			l.coerce(e.y, tx)
		}
		ty_ = withLeaf(ty_, leaf(tx))
	case ax && ay && leaf(tx) != leaf(ty_):
		tx, ty_ = withLeaf(tx, scalarAbstractFloat), withLeaf(ty_, scalarAbstractFloat)
	}
	return tx, ty_
}

// arithmeticResult is the type of arithmetic or bitwise operator op on
// operands of types tx and ty_ (both known): the matrix products, a scalar
// applied to a vector or matrix, else the left operand's type.
func arithmeticResult(op string, tx, ty_ *ty) *ty {
	switch {
	case tx.kind == typeMat && ty_.kind == typeVec && op == "*":
		return vecTy(tx.n, tx.scalar)
	case tx.kind == typeVec && ty_.kind == typeMat && op == "*":
		return vecTy(ty_.cols, ty_.scalar)
	case tx.kind == typeMat && ty_.kind == typeMat && op == "*":
		return &ty{kind: typeMat, n: tx.n, cols: ty_.cols, scalar: tx.scalar}
	case tx.kind == typeScalar && ty_.kind != typeScalar:
		return ty_
	}
	return tx
}

// unify converts the abstract arguments among args to the scalar of the
// first concrete one, and returns the type of the first argument after
// that (the result type of the builtins that take one type throughout).
func (l *lowerer) unify(args []expr) *ty {
	ts := make([]*ty, len(args))
	var k scalar
	float := false
	for i, a := range args {
		ts[i] = l.check(a)
		switch s := leaf(ts[i]); {
		case s == 0:
		case !s.abstract():
			if k == 0 {
				k = s
			}
		case s == scalarAbstractFloat:
			float = true
		}
	}
	if k == 0 && float {
		k = scalarAbstractFloat
	}
	var first *ty
	for i, a := range args {
		if k != 0 && !k.abstract() {
			l.push(a, k)
		}
		if first == nil && ts[i] != nil {
			first = ts[i]
			if k != 0 {
				first = withLeaf(first, k)
			}
		}
	}
	return first
}

// zeroProduct marks the kernel for the float product with a constant zero
// at pos (zeroConstant says why).
func (l *lowerer) zeroProduct(pos int) {
	l.c.dependsOnContext(pos, "it multiplies a float by a constant zero")
}

// zeroConstant reports whether z is a constant zero (of either sign) and
// x, the other operand of a float product, is not a constant: a product that
// naga leaves to the driver, which may fold it to zero. WGSL lets an
// implementation assume no infinity or NaN, under which x * 0 is 0, so a
// driver may drop x's NaN, infinity and sign there, and with them turn
// what follows into a constant it evaluates on the host (exactly) where
// elsewhere the GPU approximates it. Whether it does depends on the whole
// module: on an H100's OpenGL `exp(abs(sqrt(3.0) - (p.c * 0.0 - sqrt(0.0))))`
// differed in its last bit between a kernel alone and the same kernel fused
// (Kernel.ContextDependent).
func (l *lowerer) zeroConstant(z, x expr) bool {
	if !l.isZero(z, 0) {
		return false
	}
	_, err := l.c.eval(x, true)
	return err != nil
}

// isZero reports whether e is a constant zero: a literal, a const or an
// override of that value, an expression of them, a let of one (which naga
// passes on as the constant), or a vector or matrix constructed of zeros
// (or of nothing: vec4f() is zero).
func (l *lowerer) isZero(e expr, depth int) bool {
	if depth >= 8 {
		return false
	}
	switch x := unparen(e).(type) {
	case *identExpr:
		if loc := l.lookup(x.name); loc != nil && loc.let != nil && loc.let.kind == "let" {
			return loc.zero
		}
	case *callExpr:
		name := x.fn.name
		_, _, vec := vecName(name)
		_, _, _, mat := matName(name)
		if _, user := l.c.m.names[name]; !user && l.lookup(name) == nil && (vec || mat) {
			for _, a := range x.args {
				if !l.isZero(a, depth+1) {
					return false
				}
			}
			return true
		}
	}
	v, err := l.c.eval(e, true)
	if err != nil {
		return false
	}
	if v.kind.isFloat() {
		return v.f == 0
	}
	return v.kind != scalarBool && v.i == 0
}
