package wgsl

import "strings"

// The syntax tree keeps what reflection, evaluation and the rewrite need:
// every module-scope declaration in full, and of function bodies only their
// scopes, declarations and expressions (which statement held an expression
// matters to nobody here).

// module is a parsed WGSL module.
type module struct {
	src   string
	names map[string]decl // module-scope declarations by name
	// overrides and fns are in source order.
	overrides []*overrideDecl
	fns       []*fnDecl
	asserts   []*constAssert
	// commas are the byte offsets of trailing commas in attribute argument
	// lists, which the rewrite removes.
	commas []int
	// strips are the spans the rewrite deletes (keeping their line breaks):
	// directives, const_asserts, var<function>'s template, and the
	// @diagnostic and @must_use attributes, none of which naga v22 reads.
	strips []span
}

// span is a byte range [start, end) of the source.
type span struct{ start, end int }

type decl interface {
	declName() string
	declPos() int // offset of the declared name
}

// attribute is `@name` or `@name(args)`.
type attribute struct {
	pos  int // the '@'
	end  int // just past the attribute
	name string
	args []expr
}

type structDecl struct {
	pos     int
	name    string
	members []member
}

type member struct {
	pos   int
	attrs []*attribute
	name  string
	typ   expr
}

type constDecl struct {
	kw   int // the keyword
	pos  int
	name string
	typ  expr // nil when inferred
	init expr
}

// overrideDecl spans [start, end): from its first attribute to its ';'.
type overrideDecl struct {
	start, end int
	pos        int
	attrs      []*attribute
	name       string
	typ        expr // nil when inferred from init
	init       expr // nil when there is no default
}

type aliasDecl struct {
	pos  int
	name string
	typ  expr
}

type varDecl struct {
	pos    int
	attrs  []*attribute
	space  string // address space as written; "" for handles
	access string // access mode as written; "" when not given
	tmpl   int    // offset of `var`
	modes  int    // offset of the access mode, or of `var`
	name   string
	typ    expr // nil when inferred
	init   expr
}

type fnDecl struct {
	pos    int
	paren  int // the '(' of the parameter list
	attrs  []*attribute
	name   string
	params []param
	ret    expr // the return type; nil when there is none
	body   *blockStmt
}

type param struct {
	pos   int
	attrs []*attribute
	name  string
	typ   expr
}

type constAssert struct {
	pos  int
	cond expr
}

func (d *structDecl) declName() string   { return d.name }
func (d *constDecl) declName() string    { return d.name }
func (d *overrideDecl) declName() string { return d.name }
func (d *aliasDecl) declName() string    { return d.name }
func (d *varDecl) declName() string      { return d.name }
func (d *fnDecl) declName() string       { return d.name }
func (d *structDecl) declPos() int       { return d.pos }
func (d *constDecl) declPos() int        { return d.pos }
func (d *overrideDecl) declPos() int     { return d.pos }
func (d *aliasDecl) declPos() int        { return d.pos }
func (d *varDecl) declPos() int          { return d.pos }
func (d *fnDecl) declPos() int           { return d.pos }

// describe names the kind of declaration d for messages.
func describe(d decl) string {
	switch d.(type) {
	case *structDecl:
		return "a struct"
	case *constDecl:
		return "a const"
	case *overrideDecl:
		return "an override"
	case *aliasDecl:
		return "a type alias"
	case *varDecl:
		return "a var"
	case *fnDecl:
		return "a function"
	}
	return "a declaration"
}

// attr returns f's attribute name, if present.
func attr(attrs []*attribute, name string) *attribute {
	for _, a := range attrs {
		if a.name == name {
			return a
		}
	}
	return nil
}

// stage is the entry point stage f declares, if it declares one.
func (f *fnDecl) stage() (Stage, bool) {
	for _, a := range f.attrs {
		switch a.name {
		case "compute":
			return StageCompute, true
		case "vertex":
			return StageVertex, true
		case "fragment":
			return StageFragment, true
		}
	}
	return 0, false
}

// Statements: blocks open a scope, declarations add a name to it after their
// initializer, and exprsStmt stands for any statement's expressions.
type stmt interface{ isStmt() }

type blockStmt struct {
	stmts []stmt
	// continuing marks a loop's continuing block, the last statement of
	// the loop's body.
	continuing bool
	// open and close are the offsets of a compound statement's braces (0
	// for the blocks the parser builds around for loops, switches and
	// else-ifs).
	open, close int
	// loop marks the body of a loop statement.
	loop bool
	// repeats marks the block the parser builds around a for or while
	// statement: its statements from repeatFrom on (a for's condition,
	// update and body; a while's condition and body) run any number of
	// times, those before (a for's initializer) once.
	repeats    bool
	repeatFrom int
}

type declStmt struct {
	kind       string // let, var or const
	start, end int    // the keyword; just past the ';' (0 in a for header)
	pos        int    // the name
	name       string
	typ        expr // nil when inferred
	init       expr // nil without initializer
}

type exprsStmt struct{ exprs []expr }

// assignStmt is `lhs op rhs` for op "=" or a compound assignment ("+=").
type assignStmt struct {
	lhs, rhs expr
	op       string
	opPos    int // the operator
	// end is just past the ';' of a whole statement, where the rewrite may
	// wrap the assignment in a block; 0 in a for header, where it may not.
	end int
}

// returnStmt is `return x;`, x nil for a bare return.
type returnStmt struct{ x expr }

// caseStmt is the selector values of one case clause of a switch.
type caseStmt struct {
	selector expr
	values   []expr
}

// assertStmt is a function-scope const_assert spanning [start, end).
type assertStmt struct {
	start, end int
	cond       expr
}

func (*blockStmt) isStmt()  {}
func (*declStmt) isStmt()   {}
func (*exprsStmt) isStmt()  {}
func (*assignStmt) isStmt() {}
func (*returnStmt) isStmt() {}
func (*caseStmt) isStmt()   {}
func (*assertStmt) isStmt() {}

// Expressions. Types are expressions too, as in WGSL's grammar: a
// template-elaborated identifier such as array<f32, 4>.
type expr interface{ exprPos() int }

type identExpr struct {
	pos  int
	end  int // just past the name or the template list
	name string
	tmpl []expr // template arguments; nil without a template list
}

type litExpr struct {
	pos  int
	text string
	val  value
}

type callExpr struct {
	fn   *identExpr
	args []expr
	end  int // just past ')'
}

type parenExpr struct {
	pos int
	x   expr
	end int // just past ')'
}

type unaryExpr struct {
	pos int
	op  string
	x   expr
}

type binaryExpr struct {
	pos  int // the operator
	op   string
	x, y expr
}

type indexExpr struct {
	x, index expr
	end      int // just past ']'
}

type memberExpr struct {
	x    expr
	name string
	end  int // just past the member name
}

func (e *identExpr) exprPos() int  { return e.pos }
func (e *litExpr) exprPos() int    { return e.pos }
func (e *callExpr) exprPos() int   { return e.fn.pos }
func (e *parenExpr) exprPos() int  { return e.pos }
func (e *unaryExpr) exprPos() int  { return e.pos }
func (e *binaryExpr) exprPos() int { return e.x.exprPos() }
func (e *indexExpr) exprPos() int  { return e.x.exprPos() }
func (e *memberExpr) exprPos() int { return e.x.exprPos() }

// exprEnd is the offset just past e in the source.
func exprEnd(e expr) int {
	switch e := e.(type) {
	case *identExpr:
		return e.end
	case *litExpr:
		return e.pos + len(e.text)
	case *callExpr:
		return e.end
	case *parenExpr:
		return e.end
	case *unaryExpr:
		return exprEnd(e.x)
	case *binaryExpr:
		return exprEnd(e.y)
	case *indexExpr:
		return e.end
	case *memberExpr:
		return e.end
	}
	return e.exprPos()
}

// format spells e in the canonical form Resource.Type and the rewrite use:
// single spaces around binary operators and after commas, none elsewhere.
func format(e expr) string {
	var b strings.Builder
	formatTo(&b, e)
	return b.String()
}

func formatTo(b *strings.Builder, e expr) {
	list := func(open, close string, xs []expr) {
		b.WriteString(open)
		for i, x := range xs {
			if i > 0 {
				b.WriteString(", ")
			}
			formatTo(b, x)
		}
		b.WriteString(close)
	}
	switch e := e.(type) {
	case *identExpr:
		b.WriteString(e.name)
		if e.tmpl != nil {
			list("<", ">", e.tmpl)
		}
	case *litExpr:
		b.WriteString(e.text)
	case *callExpr:
		formatTo(b, e.fn)
		list("(", ")", e.args)
	case *parenExpr:
		b.WriteString("(")
		formatTo(b, e.x)
		b.WriteString(")")
	case *unaryExpr:
		b.WriteString(e.op)
		formatTo(b, e.x)
	case *binaryExpr:
		formatTo(b, e.x)
		b.WriteString(" " + e.op + " ")
		formatTo(b, e.y)
	case *indexExpr:
		formatTo(b, e.x)
		b.WriteString("[")
		formatTo(b, e.index)
		b.WriteString("]")
	case *memberExpr:
		formatTo(b, e.x)
		b.WriteString("." + e.name)
	}
}
