package wgsl

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// scalar is the type of a constant value, abstract types included.
type scalar uint8

const (
	scalarAbstractInt scalar = iota + 1
	scalarAbstractFloat
	scalarBool
	scalarI32
	scalarU32
	scalarF32
	scalarF16
)

func (s scalar) String() string {
	switch s {
	case scalarAbstractInt:
		return "AbstractInt"
	case scalarAbstractFloat:
		return "AbstractFloat"
	case scalarBool:
		return "bool"
	case scalarI32:
		return "i32"
	case scalarU32:
		return "u32"
	case scalarF32:
		return "f32"
	case scalarF16:
		return "f16"
	}
	return "?"
}

func (s scalar) isInt() bool    { return s == scalarAbstractInt || s == scalarI32 || s == scalarU32 }
func (s scalar) isFloat() bool  { return s == scalarAbstractFloat || s == scalarF32 || s == scalarF16 }
func (s scalar) abstract() bool { return s == scalarAbstractInt || s == scalarAbstractFloat }

// value is a scalar constant. Integers and bools (0 or 1) live in i, u32
// as 0..2^32-1; floats live in f, already rounded to their type.
type value struct {
	kind scalar
	i    int64
	f    float64
}

// float is v as Kernel.Overrides reports it.
func (v value) float() float64 {
	if v.kind.isFloat() {
		return v.f
	}
	return float64(v.i)
}

func (v value) String() string {
	switch {
	case v.kind == scalarBool:
		return strconv.FormatBool(v.i != 0)
	case v.kind.isFloat():
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	}
	return strconv.FormatInt(v.i, 10)
}

// literal evaluates a numeric literal the scanner matched; a non-empty
// message says why it is out of range.
func literal(text string, float bool) (value, string) {
	if float {
		kind := scalarAbstractFloat
		body := text
		hex := len(text) > 1 && (text[1] == 'x' || text[1] == 'X')
		// A hex float's suffix only ever follows its exponent, since 'f' is
		// also a hex digit.
		if last := text[len(text)-1]; (last == 'f' || last == 'h') && (!hex || strings.ContainsAny(text, "pP")) {
			kind = scalarF32
			if last == 'h' {
				kind = scalarF16
			}
			body = text[:len(text)-1]
		}
		if hex && !strings.ContainsAny(body, "pP") {
			body += "p0"
		}
		f, err := strconv.ParseFloat(body, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return value{}, "invalid numeric literal " + text
		}
		r, ok := roundFloat(f, kind)
		if !ok {
			return value{}, "literal " + text + " is out of range for " + kind.String()
		}
		return value{kind: kind, f: r}, ""
	}
	kind := scalarAbstractInt
	body := text
	switch text[len(text)-1] {
	case 'i':
		kind, body = scalarI32, text[:len(text)-1]
	case 'u':
		kind, body = scalarU32, text[:len(text)-1]
	}
	n, err := strconv.ParseUint(body, 0, 64)
	if err != nil || n > limit(kind) {
		return value{}, "literal " + text + " is out of range for " + kind.String()
	}
	return value{kind: kind, i: int64(n)}, ""
}

// limit is the largest value of an integer kind.
func limit(k scalar) uint64 {
	switch k {
	case scalarI32:
		return math.MaxInt32
	case scalarU32:
		return math.MaxUint32
	}
	return math.MaxInt64
}

// fits reports whether integer n is a value of kind k.
func fits(n int64, k scalar) bool {
	switch k {
	case scalarI32:
		return n >= math.MinInt32 && n <= math.MaxInt32
	case scalarU32:
		return n >= 0 && n <= math.MaxUint32
	}
	return true
}

// f32Overflow is the smallest magnitude that rounds to infinity in f32:
// MaxFloat32 plus half an ulp.
const f32Overflow = 0x1.ffffffp127

// roundFloat rounds f to a float kind; false if the result is not finite.
func roundFloat(f float64, k scalar) (float64, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f, false
	}
	switch k {
	case scalarF32:
		if math.Abs(f) >= f32Overflow {
			return f, false
		}
		return float64(float32(f)), true
	case scalarF16:
		if f == 0 {
			return f, true
		}
		_, exp := math.Frexp(f) // |f| in [2^(exp-1), 2^exp)
		e := max(exp-1, -14)    // f16 subnormals share the smallest exponent
		ulp := math.Ldexp(1, e-10)
		r := math.RoundToEven(f/ulp) * ulp
		return r, math.Abs(r) <= 65504
	}
	return f, true
}

// fromFloat is the value a constants entry gives an override of type k.
func fromFloat(f float64, k scalar) (value, bool) {
	switch k {
	case scalarBool:
		if f != 0 {
			return value{kind: k, i: 1}, true
		}
		return value{kind: k}, true
	case scalarI32, scalarU32:
		lo, hi := float64(math.MinInt32), float64(math.MaxInt32)
		if k == scalarU32 {
			lo, hi = 0, math.MaxUint32
		}
		if math.IsNaN(f) || f != math.Trunc(f) || f < lo || f > hi {
			return value{}, false
		}
		return value{kind: k, i: int64(f)}, true
	}
	r, ok := roundFloat(f, k)
	return value{kind: k, f: r}, ok
}

// maxCheckDepth bounds evaluation and type resolution, which follow
// references from one declaration to the next on top of each one's syntax
// tree depth.
const maxCheckDepth = 4 * maxDepth

// unsupported marks a valid expression that this evaluator does not compute
// (vectors, matrices, most builtins). Specialize reports it as its *Error;
// const_assert skips it.
type unsupported struct{ err *Error }

func (u unsupported) Error() string { return u.err.Error() }

func (c *checker) errorf(pos int, format string, args ...any) *Error {
	return errorAt(c.m.src, pos, format, args...)
}

func (c *checker) unsupportedf(pos int, format string, args ...any) error {
	return unsupported{c.errorf(pos, format, args...)}
}

// eval evaluates e as a const-expression, or as an override-expression when
// overrides is set (WGSL § "Expression Evaluation Phases").
func (c *checker) eval(e expr, overrides bool) (value, error) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxCheckDepth {
		return value{}, c.errorf(e.exprPos(), "constant expression nests too deeply")
	}
	switch e := e.(type) {
	case *litExpr:
		return e.val, nil
	case *parenExpr:
		return c.eval(e.x, overrides)
	case *identExpr:
		if e.tmpl != nil {
			return value{}, c.errorf(e.pos, "%s is a type, not a value", format(e))
		}
		return c.identValue(e, overrides)
	case *unaryExpr:
		x, err := c.eval(e.x, overrides)
		if err != nil {
			return value{}, err
		}
		return c.unary(e, x)
	case *binaryExpr:
		x, err := c.eval(e.x, overrides)
		if err != nil {
			return value{}, err
		}
		y, err := c.eval(e.y, overrides)
		if err != nil {
			return value{}, err
		}
		return c.binary(e, x, y)
	case *callExpr:
		return c.call(e, overrides)
	}
	return value{}, c.unsupportedf(e.exprPos(), "cannot evaluate %s: only scalar constant expressions are supported here", format(e))
}

func (c *checker) identValue(e *identExpr, overrides bool) (value, error) {
	if c.local != nil {
		if v, found, ok := c.local(e.name); found {
			if !ok {
				return value{}, c.unsupportedf(e.pos, "%s is a function-scope name that is not a scalar constant", e.name)
			}
			return v, nil
		}
	}
	switch d := c.m.names[e.name].(type) {
	case *constDecl:
		return c.constValue(d)
	case *overrideDecl:
		if !overrides {
			return value{}, c.errorf(e.pos, "%s is an override, but this needs a const-expression", e.name)
		}
		return c.overrideValue(d)
	case nil:
		return value{}, c.errorf(e.pos, "unknown identifier %s", e.name)
	default:
		return value{}, c.errorf(e.pos, "%s is %s, not a constant", e.name, describe(d))
	}
}

func (c *checker) constValue(d *constDecl) (value, error) {
	if v, ok := c.consts[d]; ok {
		return v, nil
	}
	if err, ok := c.failed[d]; ok {
		return value{}, err
	}
	if c.busy[d] {
		return value{}, c.errorf(d.pos, "const %s depends on itself", d.name)
	}
	c.busy[d] = true
	v, err := c.eval(d.init, false)
	if err == nil && d.typ != nil {
		var k scalar
		if k, err = c.scalarOf(d.typ); err == nil {
			v, err = c.convert(v, k, d.init.exprPos())
		}
	}
	delete(c.busy, d)
	if err != nil {
		c.failed[d] = err
		return value{}, err
	}
	c.consts[d] = v
	return v, nil
}

// scalarOf resolves a type expected to be scalar.
func (c *checker) scalarOf(e expr) (scalar, error) {
	t, err := c.resolveType(e, false)
	if err != nil {
		return 0, err
	}
	if t.kind != typeScalar {
		return 0, c.unsupportedf(e.exprPos(), "cannot evaluate constants of type %s: only scalar constant expressions are supported", format(e))
	}
	return t.scalar, nil
}

// convert applies WGSL's automatic conversion of an abstract value to k.
func (c *checker) convert(v value, k scalar, pos int) (value, error) {
	if v.kind == k {
		return v, nil
	}
	switch v.kind {
	case scalarAbstractInt:
		switch k {
		case scalarI32, scalarU32:
			if !fits(v.i, k) {
				return value{}, c.errorf(pos, "%d is out of range for %s", v.i, k)
			}
			return value{kind: k, i: v.i}, nil
		case scalarAbstractFloat, scalarF32, scalarF16:
			f, ok := roundFloat(float64(v.i), k)
			if !ok {
				return value{}, c.errorf(pos, "%d is out of range for %s", v.i, k)
			}
			return value{kind: k, f: f}, nil
		}
	case scalarAbstractFloat:
		if k == scalarF32 || k == scalarF16 {
			f, ok := roundFloat(v.f, k)
			if !ok {
				return value{}, c.errorf(pos, "%v is out of range for %s", v.f, k)
			}
			return value{kind: k, f: f}, nil
		}
	}
	return value{}, c.errorf(pos, "cannot use a value of type %s where %s is expected", v.kind, k)
}

// concretize gives an abstract value its default concrete type: i32 for
// AbstractInt, f32 for AbstractFloat (WGSL § "Conversion Rank").
func (c *checker) concretize(v value, pos int) (value, error) {
	switch v.kind {
	case scalarAbstractInt:
		return c.convert(v, scalarI32, pos)
	case scalarAbstractFloat:
		return c.convert(v, scalarF32, pos)
	}
	return v, nil
}

// unify converts two operands to one type, abstract towards concrete.
func (c *checker) unify(x, y value, pos int) (value, value, error) {
	var err error
	switch {
	case x.kind == y.kind:
	case x.kind.abstract() && y.kind.abstract():
		// AbstractInt meets AbstractFloat.
		if x.kind == scalarAbstractInt {
			x, err = c.convert(x, scalarAbstractFloat, pos)
		} else {
			y, err = c.convert(y, scalarAbstractFloat, pos)
		}
	case x.kind.abstract():
		x, err = c.convert(x, y.kind, pos)
	case y.kind.abstract():
		y, err = c.convert(y, x.kind, pos)
	default:
		err = c.errorf(pos, "mismatched operand types %s and %s", x.kind, y.kind)
	}
	return x, y, err
}

func (c *checker) unary(e *unaryExpr, x value) (value, error) {
	switch e.op {
	case "-":
		switch x.kind {
		case scalarAbstractInt, scalarI32:
			if x.i == math.MinInt64 || x.kind == scalarI32 && x.i == math.MinInt32 {
				return value{}, c.errorf(e.pos, "-(%d) overflows %s", x.i, x.kind)
			}
			return value{kind: x.kind, i: -x.i}, nil
		case scalarAbstractFloat, scalarF32, scalarF16:
			return value{kind: x.kind, f: -x.f}, nil
		}
	case "!":
		if x.kind == scalarBool {
			return value{kind: scalarBool, i: 1 - x.i}, nil
		}
	case "~":
		switch x.kind {
		case scalarAbstractInt, scalarI32:
			return value{kind: x.kind, i: ^x.i}, nil
		case scalarU32:
			return value{kind: x.kind, i: ^x.i & math.MaxUint32}, nil
		}
	default:
		return value{}, c.errorf(e.pos, "pointer operator %s in a constant expression", e.op)
	}
	return value{}, c.errorf(e.pos, "operator %s does not apply to %s", e.op, x.kind)
}

func (c *checker) binary(e *binaryExpr, x, y value) (value, error) {
	switch e.op {
	case "&&", "||":
		return c.logical(e, x, y)
	case "<<", ">>":
		return c.shift(e, x, y)
	}
	x, y, err := c.unify(x, y, e.pos)
	if err != nil {
		return value{}, err
	}
	k := x.kind
	switch e.op {
	case "==", "!=", "<", "<=", ">", ">=":
		if k != scalarBool || e.op == "==" || e.op == "!=" {
			return compare(e.op, x, y), nil
		}
	case "&", "|", "^":
		if k.isInt() || k == scalarBool && e.op != "^" {
			return bitwise(e.op, x, y), nil
		}
	case "+", "-", "*", "/", "%":
		if k.isFloat() {
			return c.floatArith(e, x, y)
		}
		if k.isInt() {
			return c.integerArith(e, x, y)
		}
	}
	return value{}, c.errorf(e.pos, "operator %s does not apply to %s", e.op, k)
}

// logical computes && and || of two bools.
func (c *checker) logical(e *binaryExpr, x, y value) (value, error) {
	if x.kind != scalarBool || y.kind != scalarBool {
		return value{}, c.errorf(e.pos, "operator %s needs bool operands, not %s and %s", e.op, x.kind, y.kind)
	}
	b := x.i != 0 && y.i != 0
	if e.op == "||" {
		b = x.i != 0 || y.i != 0
	}
	return boolValue(b), nil
}

// compare computes comparison op of x and y, of one kind.
func compare(op string, x, y value) value {
	k := x.kind
	cmp := 0
	switch {
	case k.isFloat() && x.f < y.f, !k.isFloat() && x.i < y.i:
		cmp = -1
	case k.isFloat() && x.f > y.f, !k.isFloat() && x.i > y.i:
		cmp = 1
	}
	switch op {
	case "==":
		return boolValue(cmp == 0)
	case "!=":
		return boolValue(cmp != 0)
	case "<":
		return boolValue(cmp < 0)
	case "<=":
		return boolValue(cmp <= 0)
	case ">":
		return boolValue(cmp > 0)
	}
	return boolValue(cmp >= 0)
}

// bitwise computes &, | or ^ of x and y, integers or (& and |) bools of
// one kind.
func bitwise(op string, x, y value) value {
	r := x.i & y.i
	if op == "|" {
		r = x.i | y.i
	} else if op == "^" {
		r = x.i ^ y.i
	}
	return value{kind: x.kind, i: r}
}

// floatArith computes arithmetic operator e.op of floats x and y, of one
// kind, rounded to it; a result that is not finite is an error.
func (c *checker) floatArith(e *binaryExpr, x, y value) (value, error) {
	k := x.kind
	var r float64
	switch e.op {
	case "+":
		r = x.f + y.f
	case "-":
		r = x.f - y.f
	case "*":
		r = x.f * y.f
	case "/":
		r = x.f / y.f
	case "%":
		r = math.Mod(x.f, y.f)
	}
	f, ok := roundFloat(r, k)
	if !ok {
		return value{}, c.errorf(e.pos, "%v %s %v is not a finite %s", x.f, e.op, y.f, k)
	}
	return value{kind: k, f: f}, nil
}

// integerArith computes arithmetic operator e.op of integers x and y, of
// one kind; overflow and division by zero are errors.
func (c *checker) integerArith(e *binaryExpr, x, y value) (value, error) {
	k := x.kind
	r, msg := intArith(e.op, x.i, y.i)
	if msg == "" && !fits(r, k) {
		msg = "overflows " + k.String()
	}
	if msg != "" {
		return value{}, c.errorf(e.pos, "%d %s %d %s", x.i, e.op, y.i, msg)
	}
	return value{kind: k, i: r}, nil
}

func boolValue(b bool) value {
	if b {
		return value{kind: scalarBool, i: 1}
	}
	return value{kind: scalarBool}
}

// msgDivByZero ends the message of an *Error for an integer division or
// remainder by zero in a constant expression (see divByZero).
const msgDivByZero = "divides by zero"

// divByZero reports whether err is the evaluator's integer division by
// zero: in a constant or override expression WGSL makes it an error (a
// shader- or pipeline-creation error), never a value, so Specialize
// reports it rather than leaving the expression to a compiler that might
// compute something.
func divByZero(err error) bool {
	e, ok := err.(*Error)
	return ok && strings.HasSuffix(e.Msg, msgDivByZero)
}

// intArith computes on 64-bit integers; a message reports overflow of int64
// (AbstractInt's range) or division by zero.
func intArith(op string, a, b int64) (int64, string) {
	switch op {
	case "+":
		r := a + b
		if (a > 0 && b > 0 && r < 0) || (a < 0 && b < 0 && r >= 0) {
			return 0, "overflows AbstractInt"
		}
		return r, ""
	case "-":
		r := a - b
		if (a >= 0 && b < 0 && r < 0) || (a < 0 && b > 0 && r >= 0) {
			return 0, "overflows AbstractInt"
		}
		return r, ""
	case "*":
		if a == 0 || b == 0 {
			return 0, ""
		}
		r := a * b
		if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
			return 0, "overflows AbstractInt"
		}
		return r, ""
	}
	if b == 0 {
		return 0, msgDivByZero
	}
	if a == math.MinInt64 && b == -1 {
		return 0, "overflows AbstractInt"
	}
	if op == "/" {
		return a / b, ""
	}
	return a % b, ""
}

func (c *checker) shift(e *binaryExpr, x, y value) (value, error) {
	if !x.kind.isInt() {
		return value{}, c.errorf(e.pos, "operator %s needs an integer left operand, not %s", e.op, x.kind)
	}
	if y.kind != scalarU32 && y.kind != scalarAbstractInt {
		return value{}, c.errorf(e.pos, "the shift amount must be u32, not %s", y.kind)
	}
	bits := int64(32)
	if x.kind == scalarAbstractInt {
		bits = 64
	}
	if y.i < 0 || y.i >= bits {
		return value{}, c.errorf(e.pos, "shift by %d is not less than the %d bits of %s", y.i, bits, x.kind)
	}
	s := uint(y.i)
	if e.op == ">>" {
		return value{kind: x.kind, i: x.i >> s}, nil
	}
	r := x.i << s
	if r>>s != x.i || !fits(r, x.kind) {
		return value{}, c.errorf(e.pos, "%d << %d overflows %s", x.i, s, x.kind)
	}
	return value{kind: x.kind, i: r}, nil
}

// call evaluates a conversion or one of the builtins min, max, abs, clamp,
// select and sqrt. A module-scope declaration of the same name takes
// precedence, as WGSL's scoping says.
func (c *checker) call(e *callExpr, overrides bool) (value, error) {
	name := e.fn.name
	target, err := c.callTarget(e)
	if err != nil {
		return value{}, err
	}
	if e.fn.tmpl != nil && c.m.names[name] == nil {
		return value{}, c.errorf(e.fn.pos, "%s takes no template arguments", name)
	}
	args := make([]value, len(e.args))
	for i, a := range e.args {
		v, err := c.eval(a, overrides)
		if err != nil {
			return value{}, err
		}
		args[i] = v
	}
	pos := e.fn.pos
	if target != 0 {
		switch len(args) {
		case 0:
			return value{kind: target}, nil
		case 1:
			return c.convertExplicit(args[0], target, pos)
		}
		return value{}, c.errorf(pos, "%s(...) takes at most one argument", name)
	}
	want := map[string]int{"min": 2, "max": 2, "abs": 1, "clamp": 3, "select": 3, "sqrt": 1}[name]
	if len(args) != want {
		return value{}, c.errorf(pos, "%s takes %d arguments, not %d", name, want, len(args))
	}
	switch name {
	case "sqrt":
		return c.evalSqrt(args[0], pos)
	case "select":
		return c.evalSelect(args, pos)
	}
	return c.evalNumeric(name, args, pos)
}

// callTarget is the scalar type call e converts to (0 for the builtins
// min, max, abs, clamp, select and sqrt); an error for a call this
// evaluator does not compute. A module-scope declaration of the name takes
// precedence over the predeclared one.
func (c *checker) callTarget(e *callExpr) (scalar, error) {
	name := e.fn.name
	switch c.m.names[name].(type) {
	case nil:
		switch name {
		case "bool":
			return scalarBool, nil
		case "i32":
			return scalarI32, nil
		case "u32":
			return scalarU32, nil
		case "f32":
			return scalarF32, nil
		case "f16":
			return scalarF16, nil
		case "min", "max", "abs", "clamp", "select", "sqrt":
			return 0, nil
		}
		return 0, c.unsupportedf(e.fn.pos, "cannot evaluate a call to %s here: only i32, u32, f32, f16, bool, min, max, abs, clamp, select and sqrt are evaluated", name)
	case *aliasDecl:
		return c.scalarOf(e.fn)
	case *fnDecl:
		return 0, c.errorf(e.fn.pos, "a call to function %s is not a constant expression", name)
	}
	return 0, c.unsupportedf(e.fn.pos, "cannot evaluate a %s constructor here", name)
}

// evalSqrt evaluates sqrt(a): const PHI = (1.0 + sqrt(5.0)) / 2.0, which
// naga v22 does not evaluate ("Not implemented as constant expression"). An
// AbstractInt argument is converted to AbstractFloat, the result rounded to
// the argument's type (math.Sqrt is correctly rounded, so the f32 and f16
// results are too); a negative argument makes NaN, which WGSL makes an
// error in a constant expression.
func (c *checker) evalSqrt(a value, pos int) (value, error) {
	if a.kind == scalarAbstractInt {
		a = value{kind: scalarAbstractFloat, f: float64(a.i)}
	}
	if !a.kind.isFloat() {
		return value{}, c.errorf(pos, "sqrt takes a floating-point argument, not %s", a.kind)
	}
	if a.f < 0 {
		return value{}, c.errorf(pos, "sqrt(%v) is not a number, which a constant expression must not be", a.f)
	}
	r, ok := roundFloat(math.Sqrt(a.f), a.kind)
	if !ok {
		return value{}, c.errorf(pos, "sqrt(%v) is out of range for %s", a.f, a.kind)
	}
	return value{kind: a.kind, f: r}, nil
}

// evalSelect evaluates select(f, t, cond).
func (c *checker) evalSelect(args []value, pos int) (value, error) {
	if args[2].kind != scalarBool {
		return value{}, c.errorf(pos, "select's condition must be bool, not %s", args[2].kind)
	}
	f, t, err := c.unify(args[0], args[1], pos)
	if err != nil {
		return value{}, err
	}
	if args[2].i != 0 {
		return t, nil
	}
	return f, nil
}

// evalNumeric evaluates min, max, clamp or abs of args, converted to one
// type first.
func (c *checker) evalNumeric(name string, args []value, pos int) (value, error) {
	for i := 1; i < len(args); i++ {
		var err error
		if args[0], args[i], err = c.unify(args[0], args[i], pos); err != nil {
			return value{}, err
		}
	}
	for i := 1; i < len(args); i++ { // earlier operands may have been abstract
		args[i], _ = c.convert(args[i], args[0].kind, pos)
	}
	k := args[0].kind
	if k == scalarBool {
		return value{}, c.errorf(pos, "%s does not apply to bool", name)
	}
	less := func(a, b value) bool {
		if k.isFloat() {
			return a.f < b.f
		}
		return a.i < b.i
	}
	pick := func(minimum bool, a, b value) value {
		if less(b, a) == minimum {
			return b
		}
		return a
	}
	switch name {
	case "min":
		return pick(true, args[0], args[1]), nil
	case "max":
		return pick(false, args[0], args[1]), nil
	case "clamp":
		return pick(true, pick(false, args[0], args[1]), args[2]), nil
	}
	// abs: the most negative i32 is its own absolute value (WGSL § abs).
	a := args[0]
	switch {
	case k.isFloat():
		a.f = math.Abs(a.f)
	case a.i == math.MinInt64:
		return value{}, c.errorf(pos, "abs(%d) overflows AbstractInt", a.i)
	case a.i < 0 && !(k == scalarI32 && a.i == math.MinInt32):
		a.i = -a.i
	}
	return a, nil
}

// convertExplicit is a value conversion T(e) (WGSL § "Value Constructor
// Built-in Functions"): i32 and u32 reinterpret each other's bits, floats
// truncate toward zero and clamp into an integer type's range.
func (c *checker) convertExplicit(v value, k scalar, pos int) (value, error) {
	switch k {
	case scalarBool:
		if v.kind.isFloat() {
			return boolValue(v.f != 0), nil
		}
		return boolValue(v.i != 0), nil
	case scalarI32, scalarU32:
		switch v.kind {
		case scalarBool:
			return value{kind: k, i: v.i}, nil
		case scalarAbstractInt:
			return c.convert(v, k, pos)
		case scalarI32, scalarU32:
			if k == scalarI32 {
				return value{kind: k, i: int64(int32(uint32(v.i)))}, nil
			}
			return value{kind: k, i: int64(uint32(int32(v.i)))}, nil
		}
		lo, hi := float64(math.MinInt32), float64(math.MaxInt32)
		if k == scalarU32 {
			lo, hi = 0, math.MaxUint32
		}
		f := math.Trunc(v.f)
		return value{kind: k, i: int64(min(max(f, lo), hi))}, nil
	}
	f := v.f
	if !v.kind.isFloat() {
		f = float64(v.i)
	}
	r, ok := roundFloat(f, k)
	if !ok {
		return value{}, c.errorf(pos, "%v is out of range for %s", f, k)
	}
	return value{kind: k, f: r}, nil
}
