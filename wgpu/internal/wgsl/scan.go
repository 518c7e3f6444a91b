package wgsl

import (
	"unicode"
	"unicode/utf8"
)

// tokKind classifies a token.
type tokKind uint8

const (
	tokEOF tokKind = iota
	tokIdent
	tokInt
	tokFloat
	tokPunct
	tokTemplateStart // a '<' that template list discovery says opens a list
	tokTemplateEnd   // the '>' that closes it
)

// lexeme is one token of the source as scan keeps it: byte offsets only,
// so a megabyte of source makes a pointer-free slice the garbage collector
// never scans.
type lexeme struct {
	kind     tokKind
	pos, end int
}

// token is a lexeme with its text, src[pos:end], as the parser reads it.
type token struct {
	kind     tokKind
	pos, end int
	text     string
}

// scan tokenizes src in the three steps the WGSL specification implies:
// blankspace and comments go and operator characters come out one by one;
// template list discovery (WGSL § "Template Lists") marks which '<' and '>'
// delimit template lists; then the remaining operator characters join into
// the longest operators they spell. Keeping them apart until discovery ran
// is what lets `array<vec2<f32>>` close two lists where `a >> b` shifts.
//
// '++' and '--' are never joined: the parser recognises them from two
// adjacent characters, so `5--7` subtracts minus seven as WGSL's
// context-aware tokenizer would have it.
func scan(src string) ([]lexeme, error) {
	toks, err := scanChars(src)
	if err != nil {
		return nil, err
	}
	discoverTemplates(src, toks)
	toks = joinOperators(src, toks)
	return append(toks, lexeme{kind: tokEOF, pos: len(src), end: len(src)}), nil
}

func scanChars(src string) ([]lexeme, error) {
	// WGSL has a token every four or five bytes; sizing for that up front
	// saves regrowing the slice.
	toks := make([]lexeme, 0, len(src)/4+16)
	i := 0
	for i < len(src) {
		r, size := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return nil, errorAt(src, i, "the source is not valid UTF-8")
		case isBlank(r):
			i += size
		case r == '/' && i+1 < len(src) && src[i+1] == '/':
			// A line comment runs to the line break; a "/*" inside it opens
			// nothing.
			j := i + 2
			for j < len(src) {
				r, s := utf8.DecodeRuneInString(src[j:])
				if isLineBreak(r) {
					break
				}
				j += s
			}
			i = j
		case r == '/' && i+1 < len(src) && src[i+1] == '*':
			end, ok := blockCommentEnd(src, i)
			if !ok {
				return nil, errorAt(src, i, "block comment is not closed by */ (block comments nest)")
			}
			i = end
		case r >= '0' && r <= '9' || r == '.' && i+1 < len(src) && isDigit(src[i+1]):
			end, float, ok := numberEnd(src, i)
			if end < len(src) {
				if r, _ := utf8.DecodeRuneInString(src[end:]); isIdentContinue(r) {
					ok = false
				}
			}
			if !ok {
				j := end
				for j < len(src) {
					r, s := utf8.DecodeRuneInString(src[j:])
					if !isIdentContinue(r) && r != '.' {
						break
					}
					j += s
				}
				return nil, errorAt(src, i, "%q is not a valid numeric literal", src[i:j])
			}
			kind := tokInt
			if float {
				kind = tokFloat
			}
			toks = append(toks, lexeme{kind: kind, pos: i, end: end})
			i = end
		case r == '_' || isIdentStart(r):
			j := i + size
			for j < len(src) {
				r, s := utf8.DecodeRuneInString(src[j:])
				if !isIdentContinue(r) {
					break
				}
				j += s
			}
			toks = append(toks, lexeme{kind: tokIdent, pos: i, end: j})
			i = j
		case r < utf8.RuneSelf && isPunct(byte(r)):
			toks = append(toks, lexeme{kind: tokPunct, pos: i, end: i + 1})
			i++
		default:
			return nil, errorAt(src, i, "unexpected character %q", r)
		}
	}
	return toks, nil
}

// blockCommentEnd returns the offset just past the block comment opening at
// i, counting nested "/*" "*/" pairs as WGSL does.
func blockCommentEnd(src string, i int) (int, bool) {
	depth := 0
	for i+1 < len(src) {
		switch {
		case src[i] == '/' && src[i+1] == '*':
			depth++
			i += 2
		case src[i] == '*' && src[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i, true
			}
		default:
			i++
		}
	}
	return i, false
}

// numberEnd matches the longest WGSL numeric literal at i (WGSL § "Numeric
// Literals") and says whether it is a floating point one.
func numberEnd(src string, i int) (end int, float, ok bool) {
	n := len(src)
	digits := func(j int, ok func(byte) bool) int {
		for j < n && ok(src[j]) {
			j++
		}
		return j
	}
	exponent := func(j int, marks string) (int, bool) {
		if j >= n || (src[j] != marks[0] && src[j] != marks[1]) {
			return j, false
		}
		k := j + 1
		if k < n && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k >= n || !isDigit(src[k]) {
			return j, false
		}
		return digits(k, isDigit), true
	}
	suffix := func(j int, a, b byte) int {
		if j < n && (src[j] == a || src[j] == b) {
			return j + 1
		}
		return j
	}
	if src[i] == '0' && i+1 < n && (src[i+1] == 'x' || src[i+1] == 'X') {
		j := digits(i+2, isHexDigit)
		whole := j - (i + 2)
		dot, frac := false, 0
		if j < n && src[j] == '.' {
			dot = true
			k := digits(j+1, isHexDigit)
			frac = k - (j + 1)
			j = k
		}
		if whole+frac == 0 {
			return j, false, false
		}
		j, exp := exponent(j, "pP")
		if exp {
			return suffix(j, 'f', 'h'), true, true
		}
		if dot {
			return j, true, true
		}
		return suffix(j, 'i', 'u'), false, true
	}
	j := digits(i, isDigit)
	whole := j - i
	dot := false
	if j < n && src[j] == '.' && (whole > 0 || j+1 < n && isDigit(src[j+1])) {
		dot = true
		j = digits(j+1, isDigit)
	}
	j, exp := exponent(j, "eE")
	if dot || exp {
		return suffix(j, 'f', 'h'), true, true
	}
	leadingZero := whole > 1 && src[i] == '0'
	if j < n && (src[j] == 'f' || src[j] == 'h') {
		return j + 1, true, !leadingZero
	}
	return suffix(j, 'i', 'u'), false, !leadingZero
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isPunct(c byte) bool {
	switch c {
	case '&', '|', '^', '~', '!', '+', '-', '*', '/', '%', '<', '>', '=', '.', ',', ';', ':', '(', ')', '[', ']', '{', '}', '@':
		return true
	}
	return false
}

// isBlank is WGSL's blankspace (Pattern_White_Space).
func isBlank(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x85, 0x200E, 0x200F, 0x2028, 0x2029:
		return true
	}
	return false
}

// isLineBreak ends a line comment (WGSL § "Line Breaks").
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\v', '\f', '\r', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// isIdentStart and isIdentContinue approximate XID_Start and XID_Continue
// with the Unicode categories they are built from.
func isIdentStart(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.Is(unicode.Nl, r))
}

func isIdentContinue(r rune) bool {
	return isIdentStart(r) || r == '_' || r >= '0' && r <= '9' ||
		r >= utf8.RuneSelf && unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc)
}

// discoverTemplates is WGSL's template list discovery algorithm run over
// single-character operator tokens, where "adjacent" stands for "the next
// code point". It marks the '<' and '>' of each list it finds.
func discoverTemplates(src string, toks []lexeme) {
	type candidate struct{ at, depth int }
	var pending []candidate
	depth := 0
	next := func(i int, c byte) bool {
		return i+1 < len(toks) && toks[i+1].kind == tokPunct && src[toks[i+1].pos] == c && toks[i+1].pos == toks[i].end
	}
	popDeeper := func() {
		for len(pending) > 0 && pending[len(pending)-1].depth >= depth {
			pending = pending[:len(pending)-1]
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tokIdent {
			if i+1 < len(toks) && toks[i+1].kind == tokPunct && src[toks[i+1].pos] == '<' {
				i++
				if next(i, '<') || next(i, '=') {
					// '<<' or '<=': no template argument starts with '<' or '='.
					i++
					continue
				}
				pending = append(pending, candidate{i, depth})
			}
			continue
		}
		if t.kind != tokPunct {
			continue
		}
		switch src[t.pos] {
		case '<':
			// Not after an identifier: a comparison or shift. Skip a
			// following '=' or '<' so '<=' is not taken for an assignment.
			if next(i, '<') || next(i, '=') {
				i++
			}
		case '>':
			if n := len(pending); n > 0 && pending[n-1].depth == depth {
				toks[pending[n-1].at].kind = tokTemplateStart
				toks[i].kind = tokTemplateEnd
				pending = pending[:n-1]
				continue
			}
			if next(i, '=') {
				i++
			}
		case '(', '[':
			depth++
		case ')', ']':
			popDeeper()
			depth = max(depth-1, 0)
		case '!':
			if next(i, '=') {
				i++
			}
		case '=':
			if next(i, '=') {
				i++
				continue
			}
			depth = 0
			pending = pending[:0]
		case ';', '{', ':':
			depth = 0
			pending = pending[:0]
		case '&', '|':
			if next(i, src[t.pos]) {
				popDeeper()
				i++
			}
		}
	}
}

// operators WGSL spells with more than one character, except '++' and '--'
// (see scan).
var operators = map[string]bool{
	"<<=": true, ">>=": true,
	"&&": true, "||": true, "->": true, "<<": true, ">>": true, "<=": true, ">=": true,
	"==": true, "!=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true,
	"&=": true, "|=": true, "^=": true,
}

// joinOperators joins adjacent operator characters (template delimiters
// excepted) into the longest operator they spell, in place.
func joinOperators(src string, toks []lexeme) []lexeme {
	out := toks[:0]
	joinable := func(i, n int) bool {
		if i+n > len(toks) {
			return false
		}
		for k := 0; k < n; k++ {
			t := toks[i+k]
			if t.kind != tokPunct || k > 0 && t.pos != toks[i+k-1].end {
				return false
			}
		}
		return operators[src[toks[i].pos:toks[i].pos+n]]
	}
	for i := 0; i < len(toks); {
		t := toks[i]
		if t.kind == tokPunct {
			if joinable(i, 3) {
				out = append(out, lexeme{kind: tokPunct, pos: t.pos, end: t.pos + 3})
				i += 3
				continue
			}
			if joinable(i, 2) {
				out = append(out, lexeme{kind: tokPunct, pos: t.pos, end: t.pos + 2})
				i += 2
				continue
			}
		}
		out = append(out, t)
		i++
	}
	return out
}
