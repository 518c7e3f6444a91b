package wgsl

import "fmt"

// Hidden constants: the second way a float kernel's result can depend on
// the context it is compiled in (Kernel.ContextDependent).
//
// naga v22 evaluates constant expressions itself, so a literal, a const
// and an expression of them reach the driver as the same constant in every
// module. A value held in a function-scope var, a var<private> or a
// parameter is another matter: naga writes it as a variable or an argument,
// and the driver learns that it is constant only after promoting the
// variable to a register or inlining the call, at a point of its pipeline
// that depends on the whole module. Whether it then folds a transcendental
// of that constant on the host (exact) or leaves it to the GPU's
// approximation, or reassociates `t - (x + 3.0)` with t = 3.0 into `-x`
// (another rounding, another zero sign), differed between a kernel alone
// and the same kernel inside a fused module on the H200: `var t = 1.5f;
// exp(sqrt(t))` came out 0x405a5ca2 alone and 0x405a5ca0 fused on OpenGL,
// `var t = abs(3.0f); t - (v1 + 3.0f)` gave -0 alone and +0 fused on
// Vulkan. Such a kernel is context-dependent: a float operation (an
// arithmetic operator or a builtin other than the exact ones) with an
// operand whose value the driver can know while naga did not fold it.
//
// The analysis interprets the entry point abstractly, calls inlined, each
// value one of three levels; a variable's level after a branch or a loop
// is the highest any path leaves (a value constant on one path only is not
// one the driver can fold without duplicating code, which is not what was
// seen). Where the interpretation would take too long, the kernel counts
// as context-dependent.

// level orders what the driver can know of a value.
type level uint8

const (
	// folded: a constant naga evaluates itself (a literal, a const, an
	// override, a let of them).
	folded level = iota
	// hidden: a constant only the driver's own optimisation finds.
	hidden
	// runtime: known only when the kernel runs (memory, builtins).
	runtime
)

// hiddenSlot is one function-scope name, or one var<private>.
type hiddenSlot struct {
	isVar bool
	// target is the variable a pointer let or parameter points into.
	target *hiddenSlot
}

// hiddenEnv is the level of every variable at one point of the program.
type hiddenEnv map[*hiddenSlot]level

func (e hiddenEnv) clone() hiddenEnv {
	c := make(hiddenEnv, len(e))
	for k, v := range e {
		c[k] = v
	}
	return c
}

// merge raises e to the levels other leaves: a variable is as known after
// two paths as on the less known one. Only e's variables are merged: those
// other adds were declared on its path, and are gone after it.
func (e hiddenEnv) merge(other hiddenEnv) bool {
	changed := false
	for k, v := range other {
		if old, ok := e[k]; ok && v > old {
			e[k] = v
			changed = true
		}
	}
	return changed
}

// hiddenBudget bounds the statements the interpretation visits (calls are
// inlined, loops visited until their levels settle).
const hiddenBudget = 200_000

type hiddenConsts struct {
	l        *lowerer
	privates map[*varDecl]*hiddenSlot
	scopes   []map[string]*hiddenSlot
	// quiet is set while a loop's levels settle: a level seen then may
	// still rise, so nothing is reported.
	quiet   int
	found   bool
	visits  int
	returns []level // the levels the function being inlined returns
}

// analysisFailed begins the reason a kernel gets when the float analyses
// below fail on a construct they do not expect.
const analysisFailed = "the fusion analysis failed"

// floatAnalyses runs the analyses of the entry point's floats: hidden
// constants (below) and chained operations (chains.go). They only decide
// what fusion leaves unfused, so a failure of theirs must not refuse a
// kernel the compiler accepts: it marks the kernel context-dependent,
// which keeps it unfused, with the reason (FuzzSpecialize reports it).
func (l *lowerer) floatAnalyses() {
	defer func() {
		if r := recover(); r != nil {
			l.c.contextDependent, l.c.contextWhy = true, fmt.Sprintf("%s (%v)", analysisFailed, r)
		}
	}()
	if !l.c.contextDependent {
		l.hiddenConstants()
	}
	l.chains()
}

// hiddenConstants marks the kernel context-dependent when its entry point
// (the last function reached) applies a float operation to a value only
// the driver can know is constant (see above).
func (l *lowerer) hiddenConstants() {
	if len(l.c.reached) == 0 {
		return
	}
	entry := l.c.reached[len(l.c.reached)-1]
	h := &hiddenConsts{l: l, privates: map[*varDecl]*hiddenSlot{}}
	env := hiddenEnv{}
	for _, d := range l.c.m.names {
		if v, ok := d.(*varDecl); ok && v.space == "private" {
			s := &hiddenSlot{isVar: true}
			h.privates[v] = s
			env[s] = hidden // its initializer, or zero
		}
	}
	h.scopes = []map[string]*hiddenSlot{{}}
	for i := range entry.params {
		s := &hiddenSlot{}
		h.scopes[0][entry.params[i].name] = s
		env[s] = runtime
	}
	h.block(entry.body, env)
	if !h.found && h.visits > hiddenBudget {
		l.c.dependsOnContext(entry.pos, "its entry point is too long to show that no float operation takes a constant only the driver folds")
	}
}

func (h *hiddenConsts) lookup(name string) *hiddenSlot {
	for i := len(h.scopes) - 1; i >= 0; i-- {
		if s, ok := h.scopes[i][name]; ok {
			return s
		}
	}
	if v, ok := h.l.c.m.names[name].(*varDecl); ok {
		return h.privates[v] // nil for memory: runtime
	}
	return nil
}

// block interprets b from env, which it updates; it reports whether the
// end of b is reached (a return ends a path).
func (h *hiddenConsts) block(b *blockStmt, env hiddenEnv) bool {
	h.scopes = append(h.scopes, map[string]*hiddenSlot{})
	defer func() {
		// The block's names are gone: env keeps only live variables, so
		// cloning it at a branch or a loop costs what is in scope, not
		// every variable the interpretation ever made.
		for _, s := range h.scopes[len(h.scopes)-1] {
			delete(env, s)
		}
		h.scopes = h.scopes[:len(h.scopes)-1]
	}()
	stmts := b.stmts
	if b.repeats {
		for _, s := range stmts[:b.repeatFrom] {
			if !h.stmt(s, env) {
				return false
			}
		}
		h.repeat(&blockStmt{stmts: stmts[b.repeatFrom:]}, env)
		return true
	}
	if b.loop {
		h.repeat(&blockStmt{stmts: stmts}, env)
		return true
	}
	for _, s := range stmts {
		if h.visits > hiddenBudget {
			return false
		}
		if !h.stmt(s, env) {
			return false
		}
	}
	return true
}

// repeat interprets a loop's body until the levels at its head settle,
// then once more to report; env leaves with the head's levels.
func (h *hiddenConsts) repeat(body *blockStmt, env hiddenEnv) {
	h.quiet++
	for h.visits <= hiddenBudget {
		out := env.clone()
		h.block(body, out)
		if !env.merge(out) {
			break
		}
	}
	h.quiet--
	out := env.clone()
	h.block(body, out)
	env.merge(out)
}

func (h *hiddenConsts) stmt(s stmt, env hiddenEnv) bool {
	h.visits++
	switch s := s.(type) {
	case *blockStmt:
		if s.open > 0 && !s.continuing {
			// A compound statement: an if's or a switch's branch runs or
			// not, so what it leaves merges with what came in (a plain
			// { } runs, and merging only loses precision).
			out := env.clone()
			if h.block(s, out) {
				env.merge(out)
			}
			return true
		}
		return h.block(s, env)
	case *declStmt:
		slot := &hiddenSlot{isVar: s.kind == "var"}
		lv := folded
		switch {
		case s.kind == "const":
		case s.init == nil:
			lv = hidden // zero
		default:
			lv = h.expr(s.init, env)
			if s.kind == "var" && lv == folded {
				lv = hidden
			}
			slot.target = h.pointee(s.init)
		}
		env[slot] = lv
		h.scopes[len(h.scopes)-1][s.name] = slot
	case *exprsStmt:
		for _, e := range s.exprs {
			h.expr(e, env)
		}
	case *assignStmt:
		rhs := h.expr(s.rhs, env)
		h.index(s.lhs, env)
		target, whole := h.assigned(s.lhs)
		if s.op != "=" {
			old := runtime
			if target != nil {
				old = env[target]
			}
			if h.l.mayBeFloat(s.lhs) {
				h.operation(s.opPos, []level{old, rhs})
			}
			rhs = max(old, rhs)
		}
		if target != nil {
			if rhs == folded {
				rhs = hidden // stored: naga no longer folds it
			}
			if whole {
				env[target] = rhs
			} else {
				env[target] = max(env[target], rhs)
			}
		}
	case *returnStmt:
		if s.x != nil {
			h.returns = append(h.returns, h.expr(s.x, env))
		}
		return false
	case *caseStmt:
		h.expr(s.selector, env)
	}
	return true
}

// assigned finds the variable an assignment's left side writes, and
// whether it writes the whole of it; nil for memory.
func (h *hiddenConsts) assigned(lhs expr) (*hiddenSlot, bool) {
	switch e := unparen(lhs).(type) {
	case *identExpr:
		s := h.lookup(e.name)
		if s == nil {
			return nil, false
		}
		if s.target != nil {
			return s.target, false
		}
		return s, s.isVar
	case *indexExpr:
		s, _ := h.assigned(e.x)
		return s, false
	case *memberExpr:
		s, _ := h.assigned(e.x)
		return s, false
	case *unaryExpr:
		if e.op == "*" {
			s, _ := h.assigned(e.x)
			return s, false
		}
	}
	return nil, false
}

// index interprets the index expressions of an assignment's left side.
func (h *hiddenConsts) index(lhs expr, env hiddenEnv) {
	switch e := unparen(lhs).(type) {
	case *indexExpr:
		h.expr(e.index, env)
		h.index(e.x, env)
	case *memberExpr:
		h.index(e.x, env)
	case *unaryExpr:
		h.index(e.x, env)
	}
}

// pointee is the variable a pointer expression points into, if it is one
// of the function's or a private one.
func (h *hiddenConsts) pointee(e expr) *hiddenSlot {
	e = unparen(e)
	if id, ok := e.(*identExpr); ok {
		if s := h.lookup(id.name); s != nil {
			return s.target
		}
		return nil
	}
	u, ok := e.(*unaryExpr)
	if !ok || u.op != "&" {
		return nil
	}
	s, _ := h.assigned(u.x)
	return s
}

// exactCalls are the builtins whose result no compiler rounds: they never
// report, their level is their arguments'.
var exactCalls = map[string]bool{"select": true, "bitcast": true, "arrayLength": true, "abs": true, "any": true, "all": true}

// expr returns e's level, reporting the float operations on hidden values.
func (h *hiddenConsts) expr(e expr, env hiddenEnv) level {
	switch e := e.(type) {
	case *litExpr:
		return folded
	case *parenExpr:
		return h.expr(e.x, env)
	case *identExpr:
		if s := h.lookup(e.name); s != nil {
			return env[s]
		}
		if _, ok := h.l.c.m.names[e.name].(*varDecl); ok {
			return runtime // memory; privates are slots
		}
		return folded // a const, an override, a type
	case *unaryExpr:
		if id, ok := unparen(e.x).(*identExpr); ok && e.op == "*" {
			if s := h.lookup(id.name); s != nil && s.target != nil {
				return env[s.target]
			}
		}
		return h.expr(e.x, env)
	case *binaryExpr:
		x, y := h.expr(e.x, env), h.expr(e.y, env)
		switch e.op {
		case "+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=":
			if h.l.mayBeFloat(e.x) || h.l.mayBeFloat(e.y) {
				h.operation(e.pos, []level{x, y})
			}
		}
		return max(x, y)
	case *indexExpr:
		x, i := h.expr(e.x, env), h.expr(e.index, env)
		return max(x, i)
	case *memberExpr:
		return h.expr(e.x, env)
	case *callExpr:
		return h.call(e, env)
	}
	return runtime
}

// call returns a call's level: a function of the module is interpreted
// with its arguments' levels (inlined, as the driver does), a builtin
// reports a hidden argument unless it is exact.
func (h *hiddenConsts) call(e *callExpr, env hiddenEnv) level {
	args := make([]level, len(e.args))
	lv := folded
	for i, a := range e.args {
		args[i] = h.expr(a, env)
		lv = max(lv, args[i])
	}
	if f, ok := h.l.c.m.names[e.fn.name].(*fnDecl); ok && h.lookup(e.fn.name) == nil {
		return h.inline(f, e, args, env)
	}
	if _, ok := h.l.c.m.names[e.fn.name]; ok || e.fn.tmpl != nil || typeNames[e.fn.name] {
		return lv // a constructor or a conversion: exact or as naga folds it
	}
	if exactCalls[e.fn.name] {
		return lv
	}
	for _, a := range e.args {
		if h.l.mayBeFloat(a) {
			h.operation(e.fn.pos, args)
			break
		}
	}
	if len(e.args) == 0 {
		return runtime // a builtin of no argument reads the invocation
	}
	if lv == folded {
		return folded // naga evaluates the builtins it knows
	}
	return lv
}

// typeNames are the predeclared types whose names are constructors.
var typeNames = map[string]bool{"f32": true, "f16": true, "i32": true, "u32": true, "bool": true,
	"vec2": true, "vec3": true, "vec4": true, "vec2f": true, "vec3f": true, "vec4f": true,
	"vec2i": true, "vec3i": true, "vec4i": true, "vec2u": true, "vec3u": true, "vec4u": true,
	"vec2h": true, "vec3h": true, "vec4h": true, "array": true,
	"mat2x2f": true, "mat2x3f": true, "mat2x4f": true, "mat3x2f": true, "mat3x3f": true,
	"mat3x4f": true, "mat4x2f": true, "mat4x3f": true, "mat4x4f": true}

// inline interprets f's body for one call.
func (h *hiddenConsts) inline(f *fnDecl, call *callExpr, args []level, env hiddenEnv) level {
	saved, savedReturns := h.scopes, h.returns
	h.scopes = []map[string]*hiddenSlot{{}}
	h.returns = nil
	for i := range f.params {
		s := &hiddenSlot{}
		if i < len(call.args) {
			s.target = h.pointeeIn(saved, call.args[i])
		}
		if i < len(args) {
			env[s] = max(args[i], hidden) // an argument: naga no longer folds it
		}
		h.scopes[0][f.params[i].name] = s
	}
	h.block(f.body, env)
	for _, s := range h.scopes[0] {
		delete(env, s) // the parameters
	}
	lv := folded
	for _, r := range h.returns {
		lv = max(lv, r)
	}
	h.scopes, h.returns = saved, savedReturns
	return lv
}

// pointeeIn is pointee with the caller's scopes.
func (h *hiddenConsts) pointeeIn(scopes []map[string]*hiddenSlot, e expr) *hiddenSlot {
	saved := h.scopes
	h.scopes = scopes
	defer func() { h.scopes = saved }()
	return h.pointee(e)
}

// operation reports a float operation, at pos, one of whose operands is
// hidden.
func (h *hiddenConsts) operation(pos int, operands []level) {
	if h.quiet > 0 || h.found {
		return
	}
	for _, o := range operands {
		if o == hidden {
			h.found = true
			h.l.c.dependsOnContext(pos, "it computes with a float constant held in a variable or passed to a function, which only the driver folds")
			return
		}
	}
}

// mayBeFloat reports whether e is (or may be: its type is unknown) a
// float.
func (l *lowerer) mayBeFloat(e expr) bool {
	t, ok := l.types[e]
	if !ok {
		t, ok = l.types[unparen(e)]
	}
	if !ok || t == nil {
		return true
	}
	return leaf(t).isFloat()
}
