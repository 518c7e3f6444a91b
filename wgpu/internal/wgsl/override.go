package wgsl

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// checker evaluates, types and reflects one parsed module for one
// Specialize call. Every table memoises by declaration, so each
// declaration is evaluated or laid out at most once however often it is
// referenced, and depth bounds the recursion through chains of them.
type checker struct {
	m      *module
	given  map[*overrideDecl]float64 // values from constants
	keys   map[*overrideDecl]string  // the constants key each given value came under
	ids    map[*overrideDecl]uint32  // evaluated @id
	values map[*overrideDecl]value
	consts map[*constDecl]value
	failed map[decl]error // declarations whose evaluation failed, and why
	types  map[typeKey]*wtype
	busy   map[any]bool // declarations being evaluated or laid out (cycle check)
	depth  int
	// local, while a function body is lowered, looks a name up in the
	// body's scopes: found when a local declares it, ok when that local is
	// a constant of value v.
	local func(name string) (v value, found, ok bool)
	// edits are the lowering's rewrites of spans (array counts, attribute
	// arguments, const initializers, declarations); conv and subst its
	// rewrites of single literals and constant names, keyed by offset:
	// conv converts to the type the context needs (the first conversion
	// of a position wins), subst spells a function-scope constant where
	// no context says more.
	edits       []edit
	conv, subst map[int]edit
	// opengl is Options.OpenGL: i32 remainders by a constant also need a
	// helper. Integer divisions and remainders are rewritten into calls of
	// the helpers in helpers (division.go), which the rewrite appends after
	// the module's last line; inserts are that rewrite's insertions.
	opengl  bool
	helpers intHelpers
	inserts []insertion
	// reached are the functions the entry point reaches (reflect);
	// uniformTemps maps each temporary of atomicUniformLoad to the
	// functions whose calls use it, for Kernel.WorkgroupStorage.
	reached      []*fnDecl
	uniformTemps map[string][]*fnDecl
	// contextDependent is Kernel.ContextDependent, found while lowering;
	// contextWhy is Kernel.ContextReason.
	contextDependent bool
	contextWhy       string
	// chainsFloats and chainWhy are Kernel.ChainsFloats and ChainReason.
	chainsFloats bool
	chainWhy     string
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// insertion puts text, then the rewritten text of copy when set (every
// edit inside that span of the source applied: the one way an expression
// is written twice, for an integer `/=` or `%=` that needs a helper), at
// offset at. At one offset insertions go before the edit starting there,
// lower rank first.
type insertion struct {
	at, rank int
	text     string
	copy     *span
}

type typeKey struct {
	d         decl
	overrides bool // an override-expression element count is allowed
}

func newChecker(m *module) *checker {
	return &checker{
		m:      m,
		given:  map[*overrideDecl]float64{},
		keys:   map[*overrideDecl]string{},
		ids:    map[*overrideDecl]uint32{},
		values: map[*overrideDecl]value{},
		consts: map[*constDecl]value{},
		failed: map[decl]error{},
		types:  map[typeKey]*wtype{},
		busy:   map[any]bool{},
		conv:   map[int]edit{},
		subst:  map[int]edit{},
	}
}

// bind evaluates every @id and matches each constants key to its override,
// by name or by @id as decimal text.
func (c *checker) bind(constants map[string]float64) error {
	byID := map[uint32]*overrideDecl{}
	for _, o := range c.m.overrides {
		a := attr(o.attrs, "id")
		if a == nil {
			continue
		}
		id, err := c.attrUint(a, "@id", false)
		if err != nil {
			return err
		}
		if prev, dup := byID[id]; dup {
			return c.errorf(a.pos, "@id(%d) is given to both %s and %s", id, prev.name, o.name)
		}
		byID[id] = o
		c.ids[o] = id
	}
	// Sorted, so that with several bad keys the same one is reported.
	for _, key := range slices.Sorted(maps.Keys(constants)) {
		f := constants[key]
		o, ok := c.m.names[key].(*overrideDecl)
		if !ok {
			if n, err := strconv.ParseUint(key, 10, 32); err == nil && strconv.FormatUint(n, 10) == key {
				o, ok = byID[uint32(n)]
			}
		}
		if !ok {
			return &OverrideError{Key: key, Overrides: c.overrideNames(), Err: ErrUnknownOverride}
		}
		if prev, dup := c.keys[o]; dup {
			a, b := min(prev, key), max(prev, key)
			return &OverrideError{Override: o.name, Key: key, Msg: fmt.Sprintf("given twice, under %q and %q", a, b), Err: ErrUnknownOverride}
		}
		c.given[o], c.keys[o] = f, key
	}
	return nil
}

// attrUint evaluates the single argument of a as a non-negative integer
// that fits in 32 bits.
func (c *checker) attrUint(a *attribute, what string, overrides bool) (uint32, error) {
	if len(a.args) != 1 {
		return 0, c.errorf(a.pos, "%s takes exactly one argument", what)
	}
	v, err := c.eval(a.args[0], overrides)
	if err != nil {
		return 0, err
	}
	if !v.kind.isInt() || v.i < 0 || v.i > 0xFFFFFFFF {
		return 0, c.errorf(a.args[0].exprPos(), "%s must be a non-negative integer; %s is %s of type %s", what, format(a.args[0]), v, v.kind)
	}
	return uint32(v.i), nil
}

// overrideValues gives every override of the module its value, in source
// order so that the first problem reported is the first in the source.
func (c *checker) overrideValues() (map[string]float64, error) {
	if len(c.m.overrides) == 0 {
		return nil, nil
	}
	out := make(map[string]float64, len(c.m.overrides))
	for _, o := range c.m.overrides {
		v, err := c.overrideValue(o)
		if err != nil {
			return nil, err
		}
		out[o.name] = v.float()
	}
	return out, nil
}

func (c *checker) overrideValue(o *overrideDecl) (value, error) {
	if v, ok := c.values[o]; ok {
		return v, nil
	}
	if err, ok := c.failed[o]; ok {
		return value{}, err
	}
	if c.busy[o] {
		return value{}, c.errorf(o.pos, "override %s depends on itself", o.name)
	}
	c.busy[o] = true
	v, err := c.computeOverride(o)
	delete(c.busy, o)
	if err != nil {
		c.failed[o] = err
		return value{}, err
	}
	c.values[o] = v
	return v, nil
}

func (c *checker) computeOverride(o *overrideDecl) (value, error) {
	k, err := c.overrideType(o)
	if err != nil {
		return value{}, err
	}
	if f, ok := c.given[o]; ok {
		v, ok := fromFloat(f, k)
		if !ok {
			return value{}, &OverrideError{Override: o.name, Key: c.keys[o], Value: f,
				Msg: fmt.Sprintf("%v (under key %q) is not a value of type %s", f, c.keys[o], k), Err: ErrUnrepresentable}
		}
		return v, nil
	}
	if o.init == nil {
		return value{}, &OverrideError{Override: o.name, Msg: "no value in constants and no initializer", Err: ErrMissingOverride}
	}
	v, err := c.eval(o.init, true)
	if err != nil {
		return value{}, err
	}
	return c.convert(v, k, o.init.exprPos())
}

// overrideType is the override's concrete scalar type: as declared, or
// its initializer's type concretized (AbstractInt → i32, AbstractFloat →
// f32). The initializer is evaluated for that only when it has to be.
func (c *checker) overrideType(o *overrideDecl) (scalar, error) {
	if o.typ != nil {
		t, err := c.resolveType(o.typ, false)
		if err != nil {
			return 0, err
		}
		if t.kind != typeScalar {
			return 0, c.errorf(o.typ.exprPos(), "override %s has type %s; overrides must be bool, i32, u32, f32 or f16", o.name, format(o.typ))
		}
		return t.scalar, nil
	}
	v, err := c.eval(o.init, true)
	if err != nil {
		return 0, err
	}
	v, err = c.concretize(v, o.init.exprPos())
	return v.kind, err
}

// constAsserts evaluates every module-scope const_assert; one the
// evaluator cannot compute is left to the compiler.
func (c *checker) constAsserts() error {
	for _, a := range c.m.asserts {
		v, err := c.eval(a.cond, false)
		if _, ok := err.(unsupported); ok {
			continue
		}
		if err != nil {
			return err
		}
		if v.kind != scalarBool {
			return c.errorf(a.cond.exprPos(), "const_assert needs a bool, not %s", v.kind)
		}
		if v.i == 0 {
			return c.errorf(a.pos, "const_assert %s is false", format(a.cond))
		}
	}
	return nil
}

// workgroupSize evaluates @workgroup_size: one to three override-expressions
// of one integer type (abstract ones convert), each positive.
func (c *checker) workgroupSize(f *fnDecl) ([3]uint32, error) {
	size := [3]uint32{1, 1, 1}
	a := attr(f.attrs, "workgroup_size")
	vals := make([]value, len(a.args))
	for i, e := range a.args {
		v, err := c.eval(e, true)
		if err != nil {
			return size, err
		}
		if !v.kind.isInt() {
			return size, c.errorf(e.exprPos(), "workgroup_size must be a positive integer; %s is %s of type %s", format(e), v, v.kind)
		}
		vals[i] = v
	}
	for i := range vals {
		for j := range vals {
			var err error
			x, y := vals[i], vals[j]
			if vals[i], vals[j], err = c.unify(x, y, a.args[j].exprPos()); err != nil {
				if !x.kind.abstract() && !y.kind.abstract() {
					return size, c.errorf(a.args[j].exprPos(), "workgroup_size arguments must all be i32 or all u32; found %s and %s", x.kind, y.kind)
				}
				return size, err
			}
		}
	}
	for i, v := range vals {
		if v.i <= 0 || v.i > 0xFFFFFFFF {
			return size, c.errorf(a.args[i].exprPos(), "workgroup_size must be a positive integer; %s is %s", format(a.args[i]), v)
		}
		size[i] = uint32(v.i)
	}
	return size, nil
}

// dependsOnContext marks the kernel Kernel.ContextDependent for the
// construct at pos, which does what (the first such construct is the
// reason given).
func (c *checker) dependsOnContext(pos int, what string) {
	if c.contextDependent {
		return
	}
	c.contextDependent = true
	c.contextWhy = fmt.Sprintf("%s (line %d)", what, errorAt(c.m.src, pos, "").Line)
}
