package wgsl

import (
	"slices"
	"strconv"
	"strings"
)

// maxDepth bounds the depth of the syntax tree, and so the recursion of
// everything that walks it: nested parentheses, blocks, template lists and
// unary operators each count a level, and so does each operator of a chain
// (a + b + c is two levels deep, as the tree it builds is). WGSL itself lets
// implementations refuse brace nesting beyond 127; nothing written by hand
// comes near this.
const maxDepth = 1024

// parser is a recursive-descent parser over scan's tokens following the
// WGSL grammar (WGSL § "Grammar for Recursive Descent Parsing"). The first
// error ends the parse: it unwinds with a bailout panic that parse turns
// back into the returned *Error, the way go/parser does.
type parser struct {
	src   string
	toks  []lexeme
	p     int
	depth int
	m     *module
	// jumped is set by statement when it read return, break, continue or
	// discard (not break if); block reads and clears it.
	jumped bool
}

type bailout struct{ err *Error }

var keywords = map[string]bool{
	"alias": true, "break": true, "case": true, "const": true, "const_assert": true,
	"continue": true, "continuing": true, "default": true, "diagnostic": true,
	"discard": true, "else": true, "enable": true, "false": true, "fn": true,
	"for": true, "if": true, "let": true, "loop": true, "override": true,
	"requires": true, "return": true, "struct": true, "switch": true, "true": true,
	"var": true, "while": true,
}

// knownAttributes are WGSL's attributes, plus naga's early_depth_test. Where
// each may appear is checked per declaration (onlyAttributes).
var knownAttributes = map[string]bool{
	"align": true, "binding": true, "blend_src": true, "builtin": true, "compute": true,
	"const": true, "diagnostic": true, "fragment": true, "group": true, "id": true,
	"interpolate": true, "invariant": true, "location": true, "must_use": true,
	"size": true, "vertex": true, "workgroup_size": true, "early_depth_test": true,
}

func parse(src string) (m *module, err error) {
	toks, err := scan(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks, m: &module{src: src, names: map[string]decl{}}}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			m, err = nil, b.err
		}
	}()
	p.module()
	return p.m, nil
}

func (p *parser) fail(pos int, format string, args ...any) {
	panic(bailout{errorAt(p.src, pos, format, args...)})
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail(p.peek().pos, "nesting is too deep (more than %d levels)", maxDepth)
	}
}

// restore resets the depth when a parsing function returns, undoing its
// enter and every enter of its operator and postfix chains.
func (p *parser) restore(depth int) { p.depth = depth }

// tok is the i-th token with its text.
func (p *parser) tok(i int) token {
	i = min(i, len(p.toks)-1)
	l := p.toks[i]
	return token{kind: l.kind, pos: l.pos, end: l.end, text: p.src[l.pos:l.end]}
}

func (p *parser) peek() token { return p.tok(p.p) }

func (p *parser) next() token {
	t := p.tok(p.p)
	if t.kind != tokEOF {
		p.p++
	}
	return t
}

// is reports whether the next token is the operator or keyword s.
func (p *parser) is(s string) bool {
	t := p.tok(p.p)
	return (t.kind == tokPunct || t.kind == tokIdent) && t.text == s
}

func (p *parser) accept(s string) bool {
	if p.is(s) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(s string) token {
	if !p.is(s) {
		p.fail(p.peek().pos, "expected '%s', found %s", s, p.found())
	}
	return p.next()
}

func (p *parser) found() string {
	t := p.peek()
	switch t.kind {
	case tokEOF:
		return "the end of the source"
	case tokIdent:
		if keywords[t.text] {
			return "keyword '" + t.text + "'"
		}
	}
	return "'" + t.text + "'"
}

// adjacent reports whether the next two tokens are the characters a and b
// with nothing between them ('++', '--').
func (p *parser) adjacent(a, b string) bool {
	t, u := p.tok(p.p), p.tok(p.p+1)
	return t.kind == tokPunct && t.text == a && u.kind == tokPunct && u.text == b && u.pos == t.end
}

// ident reads an identifier that is not a keyword; what names the
// construct expected for the message.
func (p *parser) ident(what string) token {
	t := p.peek()
	if t.kind != tokIdent || keywords[t.text] || t.text == "_" {
		p.fail(t.pos, "expected %s, found %s", what, p.found())
	}
	return p.next()
}

// declare reads the name a declaration introduces and checks WGSL's rules
// for identifiers: not a keyword, not `_`, not starting with `__`.
func (p *parser) declare(what string) token {
	t := p.ident(what)
	if strings.HasPrefix(t.text, "__") {
		p.fail(t.pos, "identifier %q starts with \"__\", which WGSL reserves", t.text)
	}
	return t
}

func (p *parser) module() {
	m := p.m
directives:
	for {
		switch {
		case p.is("enable"), p.is("requires"):
			kw := p.next()
			for {
				p.extension(kw.text, p.ident("an extension name"))
				if !p.accept(",") || p.is(";") {
					break
				}
			}
			p.m.strips = append(p.m.strips, span{kw.pos, p.expect(";").end})
		case p.is("diagnostic"):
			kw := p.next()
			p.diagnosticControl(false)
			p.m.strips = append(p.m.strips, span{kw.pos, p.expect(";").end})
		default:
			break directives
		}
	}
	for p.peek().kind != tokEOF {
		if p.accept(";") {
			continue
		}
		attrs := p.attributes()
		t := p.peek()
		var d decl
		switch {
		case p.is("var"):
			d = p.globalVar(attrs)
		case p.is("override"):
			o := p.override(attrs)
			m.overrides = append(m.overrides, o)
			d = o
		case p.is("fn"):
			f := p.function(attrs)
			m.fns = append(m.fns, f)
			d = f
		case p.is("const"), p.is("alias"), p.is("struct"), p.is("const_assert"):
			if len(attrs) > 0 {
				p.fail(attrs[0].pos, "'%s' declarations take no attributes", t.text)
			}
			switch t.text {
			case "const":
				d = p.constDecl()
			case "alias":
				d = p.alias()
			case "struct":
				d = p.structDecl()
			default:
				p.next()
				m.asserts = append(m.asserts, &constAssert{pos: t.pos, cond: p.expression()})
				m.strips = append(m.strips, span{t.pos, p.expect(";").end})
				continue
			}
		case p.is("enable"), p.is("requires"), p.is("diagnostic"):
			p.fail(t.pos, "'%s' directives must come before every declaration", t.text)
		default:
			p.fail(t.pos, "expected a module-scope declaration (var, override, const, alias, struct, fn, const_assert), found %s", p.found())
		}
		name := d.declName()
		if prev, dup := m.names[name]; dup {
			p.fail(d.declPos(), "%q is declared twice at module scope (first as %s at %s)", name, describe(prev), linecol(p.src, prev.declPos()))
		}
		m.names[name] = d
	}
}

// enableExtensions are the enable-extensions WGSL defines, which `enable`
// may name; languageExtensions the language extensions `requires` may name
// that the rewrite or the bundled compiler provides (readonly and
// read_write storage textures; the packed builtins and pointer composite
// access, rewritten; pointer parameters, refused in the storage address
// space by the compiler). Both directives are removed, as naga v22 does not
// parse them; what an enabled extension adds (f16, subgroup builtins) is
// refused by the compiler where the device lacks it.
var (
	enableExtensions   = []string{"f16", "clip_distances", "dual_source_blending", "subgroups"}
	languageExtensions = []string{"readonly_and_readwrite_storage_textures", "packed_4x8_integer_dot_product", "unrestricted_pointer_parameters", "pointer_composite_access"}
)

// extension checks name, read after the directive kw (enable or requires):
// WGSL makes an enable-extension the implementation does not know, or a
// language extension it does not support, a shader-creation error, where
// removing the directive would compile a module its author meant for
// another implementation.
func (p *parser) extension(kw string, name token) {
	switch {
	case kw == "enable" && !slices.Contains(enableExtensions, name.text):
		p.fail(name.pos, "enable %s: not an enable-extension this implementation knows (known: %s)", name.text, strings.Join(enableExtensions, ", "))
	case kw == "requires" && !slices.Contains(languageExtensions, name.text):
		p.fail(name.pos, "requires %s: not a language extension this implementation supports (supported: %s)", name.text, strings.Join(languageExtensions, ", "))
	}
}

func linecol(src string, pos int) string {
	e := errorAt(src, pos, "")
	return strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col)
}

// diagnosticControl reads `(severity, rule)` after `diagnostic`; inAttribute
// says whether it is the @diagnostic attribute, whose trailing comma the
// rewrite removes, or the directive, which the rewrite leaves alone.
func (p *parser) diagnosticControl(inAttribute bool) []expr {
	p.expect("(")
	sev := p.ident("a diagnostic severity")
	p.expect(",")
	rule := p.ident("a diagnostic rule name")
	args := []expr{&identExpr{pos: sev.pos, name: sev.text}, &identExpr{pos: rule.pos, name: rule.text}}
	if p.accept(".") {
		p.ident("a diagnostic rule name")
	}
	if inAttribute {
		p.trailingComma()
	} else {
		p.accept(",")
	}
	p.expect(")")
	return args
}

// trailingComma accepts a ',' right before ')' in an attribute argument
// list and records it for the rewrite.
func (p *parser) trailingComma() {
	if next := p.tok(p.p + 1); p.is(",") && next.kind == tokPunct && next.text == ")" {
		p.m.commas = append(p.m.commas, p.next().pos)
	}
}

// attributes reads zero or more attributes.
func (p *parser) attributes() []*attribute {
	var attrs []*attribute
	for p.is("@") {
		at := p.next()
		t := p.peek()
		if t.kind != tokIdent {
			p.fail(t.pos, "expected an attribute name after '@', found %s", p.found())
		}
		p.next()
		if !knownAttributes[t.text] {
			p.fail(t.pos, "unknown attribute @%s", t.text)
		}
		for _, a := range attrs {
			if a.name == t.text {
				p.fail(at.pos, "attribute @%s is given twice", t.text)
			}
		}
		a := &attribute{pos: at.pos, name: t.text}
		if p.is("(") {
			if t.text == "diagnostic" {
				a.args = p.diagnosticControl(true)
			} else {
				p.next()
				if p.is(")") {
					p.fail(p.peek().pos, "@%s() needs an argument", t.text)
				}
				for {
					a.args = append(a.args, p.expression())
					p.trailingComma()
					if p.is(")") {
						break
					}
					p.expect(",")
				}
				p.expect(")")
			}
		}
		a.end = p.tok(p.p - 1).end
		if a.name == "diagnostic" || a.name == "must_use" {
			// naga v22 knows neither; neither changes what the code computes.
			p.m.strips = append(p.m.strips, span{a.pos, a.end})
		}
		attrs = append(attrs, a)
	}
	return attrs
}

// onlyAttributes fails on an attribute outside allowed.
func (p *parser) onlyAttributes(attrs []*attribute, what string, allowed ...string) {
	for _, a := range attrs {
		ok := false
		for _, s := range allowed {
			ok = ok || a.name == s
		}
		if !ok {
			p.fail(a.pos, "@%s does not apply to %s", a.name, what)
		}
	}
}

func (p *parser) globalVar(attrs []*attribute) *varDecl {
	p.onlyAttributes(attrs, "a module-scope var", "group", "binding")
	v := &varDecl{attrs: attrs, tmpl: p.next().pos}
	v.modes = v.tmpl
	v.space, v.access = p.varTemplate(&v.modes)
	name := p.declare("a variable name")
	v.pos, v.name = name.pos, name.text
	if p.accept(":") {
		v.typ = p.typeSpecifier()
	}
	if p.accept("=") {
		v.init = p.expression()
	}
	if v.typ == nil && v.init == nil {
		p.fail(v.pos, "var %s needs a type or an initializer", v.name)
	}
	p.expect(";")
	return v
}

// varTemplate reads the optional `<address space[, access mode]>` after var.
func (p *parser) varTemplate(accessPos *int) (space, access string) {
	if p.peek().kind != tokTemplateStart {
		return "", ""
	}
	args := p.templateList()
	word := func(e expr, what string) string {
		id, ok := e.(*identExpr)
		if !ok || id.tmpl != nil {
			p.fail(e.exprPos(), "expected %s in var<...>", what)
		}
		return id.name
	}
	if len(args) > 2 {
		p.fail(args[2].exprPos(), "var<...> takes an address space and an access mode, no more")
	}
	space = word(args[0], "an address space")
	switch space {
	case "function", "private", "workgroup", "uniform", "storage":
	default:
		p.fail(args[0].exprPos(), "unknown address space %q (function, private, workgroup, uniform or storage)", space)
	}
	if len(args) == 2 {
		*accessPos = args[1].exprPos()
		access = word(args[1], "an access mode")
		switch access {
		case "read", "write", "read_write":
		default:
			p.fail(args[1].exprPos(), "unknown access mode %q (read, write or read_write)", access)
		}
		if space != "storage" {
			p.fail(args[1].exprPos(), "only var<storage> takes an access mode")
		}
	}
	return space, access
}

func (p *parser) override(attrs []*attribute) *overrideDecl {
	p.onlyAttributes(attrs, "an override", "id")
	o := &overrideDecl{attrs: attrs, start: p.peek().pos}
	if len(attrs) > 0 {
		o.start = attrs[0].pos
	}
	p.next()
	name := p.declare("an override name")
	o.pos, o.name = name.pos, name.text
	if p.accept(":") {
		o.typ = p.typeSpecifier()
	}
	if p.accept("=") {
		o.init = p.expression()
	}
	if o.typ == nil && o.init == nil {
		p.fail(o.pos, "override %s needs a type or an initializer", o.name)
	}
	o.end = p.expect(";").end
	return o
}

func (p *parser) constDecl() *constDecl {
	kw := p.next().pos
	name := p.declare("a constant name")
	c := &constDecl{kw: kw, pos: name.pos, name: name.text}
	if p.accept(":") {
		c.typ = p.typeSpecifier()
	}
	p.expect("=")
	c.init = p.expression()
	p.expect(";")
	return c
}

func (p *parser) alias() *aliasDecl {
	p.next()
	name := p.declare("an alias name")
	p.expect("=")
	a := &aliasDecl{pos: name.pos, name: name.text, typ: p.typeSpecifier()}
	p.expect(";")
	return a
}

func (p *parser) structDecl() *structDecl {
	p.next()
	name := p.declare("a struct name")
	s := &structDecl{pos: name.pos, name: name.text}
	p.expect("{")
	for !p.is("}") {
		attrs := p.attributes()
		p.onlyAttributes(attrs, "a struct member", "align", "size", "builtin", "location", "interpolate", "invariant", "blend_src")
		mn := p.declare("a member name")
		for _, prev := range s.members {
			if prev.name == mn.text {
				p.fail(mn.pos, "struct %s has two members named %s", s.name, mn.text)
			}
		}
		p.expect(":")
		s.members = append(s.members, member{pos: mn.pos, attrs: attrs, name: mn.text, typ: p.typeSpecifier()})
		if !p.accept(",") {
			break
		}
	}
	p.expect("}")
	if len(s.members) == 0 {
		p.fail(s.pos, "struct %s has no members", s.name)
	}
	return s
}

func (p *parser) function(attrs []*attribute) *fnDecl {
	p.onlyAttributes(attrs, "a function", "compute", "vertex", "fragment", "workgroup_size", "must_use", "diagnostic", "early_depth_test")
	p.next()
	name := p.declare("a function name")
	f := &fnDecl{pos: name.pos, attrs: attrs, name: name.text}
	stages := 0
	for _, a := range attrs {
		switch a.name {
		case "compute", "vertex", "fragment":
			stages++
			if stages > 1 {
				p.fail(a.pos, "function %s declares more than one shader stage", f.name)
			}
			if a.args != nil {
				p.fail(a.pos, "@%s takes no arguments", a.name)
			}
		case "workgroup_size":
			if n := len(a.args); n == 0 || n > 3 {
				p.fail(a.pos, "@workgroup_size takes one to three arguments")
			}
		}
	}
	if wg := attr(attrs, "workgroup_size"); wg != nil && attr(attrs, "compute") == nil {
		p.fail(wg.pos, "@workgroup_size applies only to a @compute entry point")
	}
	if attr(attrs, "compute") != nil && attr(attrs, "workgroup_size") == nil {
		p.fail(f.pos, "@compute entry point %s needs @workgroup_size", f.name)
	}
	f.paren = p.expect("(").pos
	for !p.is(")") {
		pattrs := p.attributes()
		p.onlyAttributes(pattrs, "a parameter", "builtin", "location", "interpolate", "invariant", "blend_src")
		pn := p.declare("a parameter name")
		for _, prev := range f.params {
			if prev.name == pn.text {
				p.fail(pn.pos, "function %s has two parameters named %s", f.name, pn.text)
			}
		}
		p.expect(":")
		f.params = append(f.params, param{pos: pn.pos, attrs: pattrs, name: pn.text, typ: p.typeSpecifier()})
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	if p.accept("->") {
		rattrs := p.attributes()
		p.onlyAttributes(rattrs, "a return type", "builtin", "location", "interpolate", "invariant", "blend_src")
		f.ret = p.typeSpecifier()
	}
	f.body = p.compound()
	return f
}

// typeSpecifier reads a template-elaborated identifier naming a type.
func (p *parser) typeSpecifier() *identExpr {
	defer p.restore(p.depth)
	p.enter()
	t := p.ident("a type")
	id := &identExpr{pos: t.pos, name: t.text}
	if p.peek().kind == tokTemplateStart {
		id.tmpl = p.templateList()
	}
	id.end = p.tok(p.p - 1).end
	return id
}

// templateList reads `<expr, ...>` (a trailing comma allowed).
func (p *parser) templateList() []expr {
	open := p.next()
	var args []expr
	for {
		if p.peek().kind == tokTemplateEnd {
			if len(args) == 0 {
				p.fail(open.pos, "empty template list")
			}
			break
		}
		args = append(args, p.expression())
		if !p.is(",") {
			break
		}
		if comma := p.next(); p.peek().kind == tokTemplateEnd {
			p.m.commas = append(p.m.commas, comma.pos) // naga v22 expects '>'
		}
	}
	if p.peek().kind != tokTemplateEnd {
		p.fail(p.peek().pos, "expected ',' or the '>' closing the template list, found %s", p.found())
	}
	p.next()
	return args
}

// compound reads `attribute* { statement* }`.
func (p *parser) compound() *blockStmt {
	defer p.restore(p.depth)
	p.enter()
	p.attributes()
	open := p.expect("{")
	b := &blockStmt{open: open.pos}
	dead := -1
	for !p.is("}") {
		if p.peek().kind == tokEOF {
			p.fail(p.peek().pos, "expected '}', found the end of the source")
		}
		dead = p.blockStatement(b, dead)
	}
	b.close = p.next().pos
	p.unreachable(dead, b.close)
	p.jumped = dead >= 0
	return b
}

// blockStatement reads one statement of b, appending it unless it follows
// a return, break, continue or discard of b (dead >= 0: the offset where
// that unreachable code starts). It returns the new dead.
func (p *parser) blockStatement(b *blockStmt, dead int) int {
	p.jumped = false
	s := p.statement()
	jumped := p.jumped
	p.jumped = false
	switch {
	case dead >= 0:
	case s != nil:
		b.stmts = append(b.stmts, s)
	}
	if jumped && dead < 0 {
		return p.peek().pos
	}
	return dead
}

// unreachable records code after a return, break, continue or discard up
// to end, which WGSL allows (Skia's and Tint's output have it) and naga
// v22 refuses ("There are instructions after return/break/continue"): the
// rewrite deletes it, keeping its line breaks, and nothing in it is
// lowered or reflected, since it never runs.
func (p *parser) unreachable(dead, end int) {
	if dead >= 0 && dead < end {
		p.m.strips = append(p.m.strips, span{dead, end})
	}
}

func (p *parser) statement() stmt {
	defer p.restore(p.depth)
	p.enter()
	if p.accept(";") {
		return nil
	}
	start := p.p
	attrs := p.attributes()
	t := p.peek()
	// Of the statements holding blocks, only a compound statement whose
	// own statements jump, jumps (jumped): naga v22 also refuses what
	// follows { return; }, but not what follows an if whose branches all
	// return.
	switch {
	case p.is("{"):
		p.p = start
		return p.compound()
	case p.is("if"):
		defer func() { p.jumped = false }()
		return p.ifStmt()
	case p.is("switch"):
		defer func() { p.jumped = false }()
		return p.switchStmt()
	case p.is("loop"):
		defer func() { p.jumped = false }()
		return p.loopStmt()
	case p.is("for"):
		defer func() { p.jumped = false }()
		return p.forStmt()
	case p.is("while"):
		defer func() { p.jumped = false }()
		p.next()
		cond := p.expression()
		return &blockStmt{stmts: []stmt{&exprsStmt{exprs: []expr{cond}}, p.compound()}, repeats: true}
	}
	if len(attrs) > 0 {
		p.fail(attrs[0].pos, "attributes apply only to compound, if, switch, loop, for and while statements")
	}
	switch {
	case p.is("return"):
		p.next()
		s := &returnStmt{}
		if !p.is(";") {
			s.x = p.expression()
		}
		p.expect(";")
		p.jumped = true
		return s
	case p.is("break"):
		p.next()
		var s stmt
		if p.accept("if") {
			s = &exprsStmt{exprs: []expr{p.expression()}}
		} else {
			p.jumped = true
		}
		p.expect(";")
		return s
	case p.is("continue"), p.is("discard"):
		p.next()
		p.expect(";")
		p.jumped = true
		return nil
	case p.is("const_assert"):
		s := &assertStmt{start: p.next().pos}
		s.cond = p.expression()
		s.end = p.expect(";").end
		return s
	case t.kind == tokIdent && keywords[t.text] && !p.is("let") && !p.is("var") && !p.is("const"):
		p.fail(t.pos, "unexpected keyword '%s' at the start of a statement", t.text)
	}
	s := p.simpleStatement()
	end := p.expect(";").end
	switch s := s.(type) {
	case *declStmt:
		s.end = end
	case *assignStmt:
		s.end = end
	}
	return s
}

// simpleStatement reads a declaration, assignment, increment, decrement or
// function call: the statements for's header holds.
func (p *parser) simpleStatement() stmt {
	switch {
	case p.is("let"), p.is("const"), p.is("var"):
		kw := p.next()
		d := &declStmt{kind: kw.text, start: kw.pos}
		if kw.text == "var" && p.peek().kind == tokTemplateStart {
			var ignored int
			open := p.peek().pos
			space, _ := p.varTemplate(&ignored)
			if space == "function" {
				// naga v22 does not parse var<function>; it is the default.
				p.m.strips = append(p.m.strips, span{open, p.tok(p.p - 1).end})
			}
		}
		name := p.declare("a name")
		d.name, d.pos = name.text, name.pos
		if p.accept(":") {
			d.typ = p.typeSpecifier()
		}
		if kw.text == "var" {
			if p.accept("=") {
				d.init = p.expression()
			}
		} else {
			p.expect("=")
			d.init = p.expression()
		}
		return d
	case p.is("_"):
		p.next()
		p.expect("=")
		return &exprsStmt{exprs: []expr{p.expression()}}
	}
	lhs := p.unary()
	switch t := p.peek(); {
	case t.kind == tokPunct && (t.text == "=" || len(t.text) >= 2 && t.text[len(t.text)-1] == '=' && t.text != "==" && t.text != "!=" && t.text != "<=" && t.text != ">="):
		p.next()
		return &assignStmt{lhs: lhs, op: t.text, opPos: t.pos, rhs: p.expression()}
	case p.adjacent("+", "+"), p.adjacent("-", "-"):
		p.next()
		p.next()
		return &exprsStmt{exprs: []expr{lhs}}
	}
	if _, ok := lhs.(*callExpr); !ok {
		p.fail(p.peek().pos, "expected an assignment, increment, decrement or function call statement, found %s", p.found())
	}
	return &exprsStmt{exprs: []expr{lhs}}
}

// ifStmt reads an if/else-if/else chain iteratively. Each else-if still
// counts two levels against maxDepth, as `else { if ... }` would: the
// bundled compiler nests it so and recurses once per link (a chain of
// 10000 overflowed its stack and killed the process).
func (p *parser) ifStmt() stmt {
	defer p.restore(p.depth)
	b := &blockStmt{}
	for first := true; ; first = false {
		if !first {
			p.enter()
			p.enter()
		}
		p.next() // if
		b.stmts = append(b.stmts, &exprsStmt{exprs: []expr{p.expression()}}, p.compound())
		if !p.accept("else") {
			return b
		}
		if !p.is("if") {
			b.stmts = append(b.stmts, p.compound())
			return b
		}
	}
}

func (p *parser) switchStmt() stmt {
	p.next()
	selector := p.expression()
	b := &blockStmt{stmts: []stmt{&exprsStmt{exprs: []expr{selector}}}}
	p.attributes()
	p.expect("{")
	clauses := 0
	for !p.is("}") {
		switch {
		case p.accept("case"):
			sel := &caseStmt{selector: selector}
			for {
				if !p.accept("default") {
					sel.values = append(sel.values, p.expression())
				}
				if !p.is(",") {
					break
				}
				comma := p.next()
				if p.is(":") || p.is("{") || p.is("@") {
					p.m.commas = append(p.m.commas, comma.pos) // naga v22 expects a selector
					break
				}
			}
			b.stmts = append(b.stmts, sel)
		case p.accept("default"):
		default:
			p.fail(p.peek().pos, "expected 'case' or 'default' in switch, found %s", p.found())
		}
		p.accept(":")
		b.stmts = append(b.stmts, p.compound())
		clauses++
	}
	p.next()
	if clauses == 0 {
		p.fail(p.peek().pos, "switch needs at least one clause")
	}
	return b
}

// loopStmt reads `loop { ... continuing { ... break if e; } }`; continuing
// is a block nested in the body's scope, which is what lets it see the
// body's declarations.
func (p *parser) loopStmt() stmt {
	p.next()
	p.attributes()
	open := p.expect("{")
	b := &blockStmt{open: open.pos, loop: true}
	dead := -1
	for !p.is("}") {
		if p.peek().kind == tokEOF {
			p.fail(p.peek().pos, "expected '}', found the end of the source")
		}
		if p.is("continuing") {
			// The continuing block stays, even after a break.
			p.unreachable(dead, p.peek().pos)
			dead = -1
			p.next()
			c := p.compound()
			c.continuing = true
			b.stmts = append(b.stmts, c)
			if !p.is("}") {
				p.fail(p.peek().pos, "continuing must be the last statement of a loop")
			}
			break
		}
		dead = p.blockStatement(b, dead)
	}
	b.close = p.next().pos
	p.unreachable(dead, b.close)
	return b
}

func (p *parser) forStmt() stmt {
	p.next()
	p.expect("(")
	b := &blockStmt{repeats: true}
	if !p.is(";") {
		b.stmts = append(b.stmts, p.simpleStatement())
		b.repeatFrom = 1
	}
	p.expect(";")
	if !p.is(";") {
		b.stmts = append(b.stmts, &exprsStmt{exprs: []expr{p.expression()}})
	}
	p.expect(";")
	if !p.is(")") {
		b.stmts = append(b.stmts, p.simpleStatement())
	}
	p.expect(")")
	b.stmts = append(b.stmts, p.compound())
	return b
}

// expression parses with the operator precedence of naga, the compiler
// the rewritten text goes to: C's, from || (loosest) through &&, |, ^, &,
// equality, relational, shift and additive down to multiplicative, each
// level left-associative. WGSL's own grammar is stricter (a bitwise
// operator never mixes with another operator without parentheses,
// relational operators do not chain, && and || do not mix), but every
// expression it accepts parses to the same tree here, and shaders written
// for naga (Bevy's hash: state ^ state >> 16u) rely on the rest: refusing
// them would refuse what the compiler accepts, and parsing them any other
// way would type and rewrite a tree the compiler does not build.
func (p *parser) expression() expr {
	defer p.restore(p.depth)
	p.enter()
	return p.binary(0, p.unary())
}

// precedence lists the binary operators from the loosest level to the
// tightest, as naga groups them.
var precedence = [][]string{
	{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">="},
	{"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
}

// binary parses the operators of level and tighter, x being the first
// operand, already parsed.
func (p *parser) binary(level int, x expr) expr {
	defer p.restore(p.depth)
	if level == len(precedence) {
		return x
	}
	x = p.binary(level+1, x)
	for slices.Contains(precedence[level], p.op()) {
		p.enter()
		t := p.next()
		x = &binaryExpr{pos: t.pos, op: t.text, x: x, y: p.binary(level+1, p.unary())}
	}
	return x
}

// op is the next token if it is an operator, else "".
func (p *parser) op() string {
	if t := p.peek(); t.kind == tokPunct {
		return t.text
	}
	return ""
}

func (p *parser) unary() expr {
	defer p.restore(p.depth)
	p.enter()
	switch op := p.op(); op {
	case "-", "!", "~", "*", "&":
		pos := p.next().pos
		return &unaryExpr{pos: pos, op: op, x: p.unary()}
	}
	x := p.primary()
	for {
		if p.is(".") || p.is("[") {
			p.enter()
		}
		switch {
		case p.is("."):
			p.next()
			t := p.peek()
			if t.kind != tokIdent {
				p.fail(t.pos, "expected a member name after '.', found %s", p.found())
			}
			p.next()
			x = &memberExpr{x: x, name: t.text, end: t.end}
		case p.is("["):
			p.next()
			ix := &indexExpr{x: x, index: p.expression()}
			ix.end = p.expect("]").end
			x = ix
		default:
			return x
		}
	}
}

func (p *parser) primary() expr {
	t := p.peek()
	switch t.kind {
	case tokInt, tokFloat:
		p.next()
		v, msg := literal(t.text, t.kind == tokFloat)
		if msg != "" {
			p.fail(t.pos, "%s", msg)
		}
		return &litExpr{pos: t.pos, text: t.text, val: v}
	case tokIdent:
		switch t.text {
		case "true", "false":
			p.next()
			v := value{kind: scalarBool}
			if t.text == "true" {
				v.i = 1
			}
			return &litExpr{pos: t.pos, text: t.text, val: v}
		}
		id := &identExpr{pos: p.ident("an expression").pos, name: t.text}
		if p.peek().kind == tokTemplateStart {
			id.tmpl = p.templateList()
		}
		id.end = p.tok(p.p - 1).end
		if !p.is("(") {
			return id
		}
		p.next()
		c := &callExpr{fn: id, args: []expr{}}
		for !p.is(")") {
			c.args = append(c.args, p.expression())
			if !p.accept(",") {
				break
			}
		}
		c.end = p.expect(")").end
		return c
	case tokPunct:
		if t.text == "(" {
			p.next()
			x := &parenExpr{pos: t.pos, x: p.expression()}
			x.end = p.expect(")").end
			return x
		}
	}
	p.fail(t.pos, "expected an expression, found %s", p.found())
	return nil
}
