package wgsl

import (
	"fmt"
	"slices"
)

// AnalyzeProducer decides whether entry of src can be the producer of an
// epilogue: the first part of a fused chain that need not be pointwise (a
// matrix multiply, a reduction with workgroup memory and barriers) but
// whose every write to storage is one store, executed at most once per
// invocation, at the invocation's index. A pointwise kernel that follows
// it, reading the stored buffer at the same index, can then run inside
// the producer's invocation, right after the producer's body: the element
// it reads is the one that invocation stored, and no other invocation
// stores it (the index is one-to-one), so it reads what it reads after
// the producer's whole dispatch.
//
// What it accepts, beyond AnalyzePointwise's module rules (one entry
// point of builtin parameters, no override or directive, buffers and
// uniforms only, no shadowing): any body, with var<workgroup>, barriers,
// atomics and loops, in which every read_write storage variable is
// written by exactly one assignment `NAME[index] = value;` in the entry
// point itself, outside every loop, and is named nowhere else (but in
// arrayLength(&NAME)); index is an invocation expression of a form
// injective knows (the same forms as a pointwise index), one for every
// such variable. Read-only storage and uniforms it may read anywhere.
//
// The result is a *Pointwise with Producer set: Index and Fold describe
// the stores' index, Gathered marks every resource but the stored ones
// (the producer reads them at any index), which is what the fusion's
// dependence rule needs to refuse a chain whose later parts write what
// the producer reads.
func AnalyzeProducer(src, entry string) (*Pointwise, error) {
	k, err := Specialize(src, entry, Options{})
	if err != nil {
		return nil, err
	}
	m, fn, err := parseEntry(src, entry)
	if err != nil {
		return nil, err
	}
	a := &pointwiseAnalysis{m: m, entry: fn, k: k, lets: map[string]string{}, params: map[string]string{}, producer: true, helperUses: map[string]bool{}}
	if reason := a.run(); reason != "" {
		return nil, &PointwiseError{Entry: entry, Reason: "as an epilogue's producer, " + reason}
	}
	return &Pointwise{Entry: entry, WorkgroupSize: k.WorkgroupSize[0], Workgroup: k.WorkgroupSize, Index: a.index, Fold: a.fold, Resources: k.Resources, Gathered: a.gathered, Builtins: a.builtins, Unused: a.unused, ContextDependent: k.ContextDependent, ContextReason: k.ContextReason, ChainsFloats: k.ChainsFloats, ChainReason: k.ChainReason, Producer: true}, nil
}

// stores checks a producer's storage: every read_write variable has its
// one store at one invocation index, outside loops.
func (a *pointwiseAnalysis) stores() string {
	walkStmts(a.entry.body, func(s stmt) {
		if d, ok := s.(*declStmt); ok && d.kind == "let" && d.init != nil {
			if c, ok := a.invocation(d.init); ok {
				a.lets[d.name] = c
			}
		}
	})
	lex, err := scan(a.m.src)
	if err != nil {
		return err.Error()
	}
	loops := loopSpans(a.m.src, lex)
	inLoop := func(pos int) bool {
		for _, l := range loops {
			if pos >= l.start && pos < l.end {
				return true
			}
		}
		return false
	}
	// Every name of a read_write variable in the entry point, less those
	// in arrayLength(&NAME).
	uses := map[string]int{}
	lengths := map[*identExpr]bool{}
	walkExprs(a.entry.body, func(e expr) {
		if c, ok := e.(*callExpr); ok && c.fn.name == "arrayLength" && len(c.args) == 1 && a.m.names["arrayLength"] == nil {
			if u, ok := c.args[0].(*unaryExpr); ok && u.op == "&" {
				if id, ok := u.x.(*identExpr); ok {
					lengths[id] = true
				}
			}
		}
	})
	walkExprs(a.entry.body, func(e expr) {
		if id, ok := e.(*identExpr); ok && !lengths[id] {
			uses[id.name]++
		}
	})
	type store struct {
		canon string
		pos   int
	}
	found := map[string][]store{}
	walkStmts(a.entry.body, func(s stmt) {
		as, ok := s.(*assignStmt)
		if !ok || as.op != "=" {
			return
		}
		ix, ok := as.lhs.(*indexExpr)
		if !ok {
			return
		}
		id, ok := ix.x.(*identExpr)
		if !ok {
			return
		}
		r, ok := a.storage[id.name]
		if !ok || a.k.Resources[r].Kind != ResourceStorage {
			return
		}
		c, inv := a.invocation(ix.index)
		if l, ok := ix.index.(*identExpr); ok && a.lets[l.name] != "" {
			c = a.lets[l.name]
		}
		if !inv {
			c = ""
		}
		found[id.name] = append(found[id.name], store{c, id.pos})
	})
	a.gathered = make([]bool, len(a.k.Resources))
	stored := 0
	for r, res := range a.k.Resources {
		if res.Kind != ResourceStorage {
			a.gathered[r] = true
			continue
		}
		st := found[res.Name]
		switch {
		case a.helperUses[res.Name]:
			return fmt.Sprintf("a function the entry point calls uses read_write storage %s", res.Name)
		case len(st) != 1:
			return fmt.Sprintf("read_write storage %s is stored %d times, not once", res.Name, len(st))
		case uses[res.Name] != 1:
			return fmt.Sprintf("read_write storage %s is used other than by its one store", res.Name)
		case inLoop(st[0].pos):
			return fmt.Sprintf("read_write storage %s is stored inside a loop", res.Name)
		case st[0].canon == "":
			return fmt.Sprintf("read_write storage %s is stored at an index that is not the invocation's", res.Name)
		case a.index != "" && a.index != st[0].canon:
			return fmt.Sprintf("read_write storage is stored at %s and at %s", a.index, st[0].canon)
		}
		a.index = st[0].canon
		stored++
	}
	if stored == 0 {
		return "it stores nothing"
	}
	fold, ok := injective(a.index, a.k.WorkgroupSize)
	if !ok {
		return fmt.Sprintf("its stores' index %s is not one the analysis knows to differ between invocations", a.index)
	}
	a.fold = fold
	return ""
}

// loopSpans are the source spans of the module's loop statements (for,
// while, loop), keyword to closing brace: the parse keeps a for or while
// loop only as the block around its parts.
func loopSpans(src string, lex []lexeme) []span {
	var out []span
	for i, l := range lex {
		if l.kind != tokIdent {
			continue
		}
		switch src[l.pos:l.end] {
		case "for", "while", "loop":
		default:
			continue
		}
		depth := 0 // parentheses and brackets before the body's brace
		for j := i + 1; j < len(lex); j++ {
			t := src[lex[j].pos:lex[j].end]
			switch t {
			case "(", "[":
				depth++
			case ")", "]":
				depth--
			}
			if t != "{" || depth != 0 {
				continue
			}
			braces := 0
			for k := j; k < len(lex); k++ {
				switch src[lex[k].pos:lex[k].end] {
				case "{":
					braces++
				case "}":
					braces--
				}
				if braces == 0 {
					out = append(out, span{l.pos, lex[k].end})
					break
				}
			}
			break
		}
	}
	return slices.Clip(out)
}

// SameIndexFunction reports whether two analysed kernels' indices are one
// function of the global invocation id, whatever their spellings and
// workgroup sizes: what lets a part run inside another's invocation. The
// local-index form depends on the workgroup's shape, so it matches only
// the same workgroup.
func SameIndexFunction(a, b *Pointwise) bool {
	if a.Fold != b.Fold {
		return false
	}
	if a.Fold.Kind == FoldLocalIndex || a.Fold.Kind == FoldGroups {
		// num_workgroups and the local index are not the global id's.
		return a.Workgroup == b.Workgroup && a.Index == b.Index
	}
	return true
}

// GlobalOnly reports whether the kernel takes no builtin but
// global_invocation_id: it computes the same in any workgroup shape that
// covers the same ids.
func (p *Pointwise) GlobalOnly() bool {
	for _, b := range p.Builtins {
		if b != "global_invocation_id" {
			return false
		}
	}
	return true
}

// Joins reports whether part p can run inside the invocations of head,
// the first part of a fused chain, for dispatches that cover the same
// global ids: the same index function, and the same workgroup size or a
// part that takes the global id alone (the fused kernel runs with the
// head's workgroup size). That the dispatches cover the same ids is the
// caller's to check.
func Joins(head, p *Pointwise) bool {
	return !p.Producer && SameIndexFunction(head, p) && (head.Workgroup == p.Workgroup || p.GlobalOnly())
}
