package kernels

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// module is what the reader takes from a WGSL file: its structs, bound
// variables and functions, by name.
type module struct {
	structs map[string][]field
	vars    map[string]variable
	fns     map[string]bool // true: a @compute entry point
}

// field is one field of a module-scope struct; every one is a u32.
type field struct{ name string }

// variable is one bound module-scope variable.
type variable struct {
	at      Binding
	uniform bool
	typ     string
}

var (
	structRE = regexp.MustCompile(`(?s)^struct\s+(\w+)\s*\{(.*)\}$`)
	fieldRE  = regexp.MustCompile(`^(\w+)\s*:\s*(\w+)$`)
	varRE    = regexp.MustCompile(`(?s)^@group\(\s*(\d+)\s*\)\s*@binding\(\s*(\d+)\s*\)\s*var\s*(?:<([^>]*)>)?\s*(\w+)\s*:\s*(.+)$`)
	fnRE     = regexp.MustCompile(`(?s)^((?:@\w+(?:\([^)]*\))?\s*)*)fn\s+(\w+)\s*\(`)
	padRE    = regexp.MustCompile(`^pad\d*$`)
)

// parse reads src: module-scope declarations split at depth zero, each a
// struct of u32 fields, a bound variable, a function, or a const, alias or
// override (skipped). Anything else is refused, so a file the reader
// would misread fails at init instead of binding wrongly.
func parse(src string) (*module, error) {
	text, err := stripComments(src)
	if err != nil {
		return nil, err
	}
	decls, err := split(text)
	if err != nil {
		return nil, err
	}
	m := &module{structs: map[string][]field{}, vars: map[string]variable{}, fns: map[string]bool{}}
	for _, d := range decls {
		switch first := strings.Fields(d)[0]; {
		case first == "struct":
			err = m.addStruct(d)
		case strings.HasPrefix(first, "@group"):
			err = m.addVar(d)
		case first == "const" || first == "alias" || first == "override":
		default:
			fm := fnRE.FindStringSubmatch(d)
			if fm == nil {
				return nil, fmt.Errorf("unreadable declaration %q (struct, bound var, fn, const, alias or override only)", d)
			}
			m.fns[fm[2]] = strings.Contains(fm[1], "@compute")
		}
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

// addStruct reads struct declaration d.
func (m *module) addStruct(d string) error {
	sm := structRE.FindStringSubmatch(d)
	if sm == nil {
		return fmt.Errorf("unreadable struct declaration %q", d)
	}
	if _, dup := m.structs[sm[1]]; dup {
		return fmt.Errorf("struct %s declared twice", sm[1])
	}
	var fs []field
	for f := range strings.SplitSeq(sm[2], ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		fm := fieldRE.FindStringSubmatch(f)
		if fm == nil {
			return fmt.Errorf("struct %s: unreadable field %q (plain name: u32 only)", sm[1], f)
		}
		if fm[2] != "u32" {
			return fmt.Errorf("struct %s: field %s is %s (u32 only)", sm[1], fm[1], fm[2])
		}
		fs = append(fs, field{fm[1]})
	}
	m.structs[sm[1]] = fs
	return nil
}

// addVar reads bound variable declaration d.
func (m *module) addVar(d string) error {
	vm := varRE.FindStringSubmatch(d)
	if vm == nil {
		return fmt.Errorf("unreadable variable declaration %q", d)
	}
	name := vm[4]
	g, err1 := strconv.ParseUint(vm[1], 10, 32)
	b, err2 := strconv.ParseUint(vm[2], 10, 32)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("variable %s: unreadable group or binding", name)
	}
	v := variable{at: Binding{Group: uint32(g), Binding: uint32(b)}, typ: strings.TrimSpace(vm[5])}
	switch space := strings.Join(strings.Fields(strings.ReplaceAll(vm[3], ",", " ")), " "); space {
	case "uniform":
		v.uniform = true
	case "storage", "storage read":
	case "storage read_write":
		v.at.Writable = true
	default:
		return fmt.Errorf("variable %s: address space <%s> (uniform or storage only)", name, vm[3])
	}
	if _, dup := m.vars[name]; dup {
		return fmt.Errorf("variable %s declared twice", name)
	}
	for n, o := range m.vars {
		if o.at.Group == v.at.Group && o.at.Binding == v.at.Binding {
			return fmt.Errorf("variables %s and %s both at @group(%d) @binding(%d)", n, name, g, b)
		}
	}
	m.vars[name] = v
	return nil
}

// stripComments replaces every comment of src with a space.
func stripComments(src string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(src); {
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			b.WriteByte(' ')
		case strings.HasPrefix(src[i:], "/*"):
			depth := 0
			for {
				if i >= len(src) {
					return "", fmt.Errorf("unterminated block comment")
				}
				if strings.HasPrefix(src[i:], "/*") {
					depth, i = depth+1, i+2
				} else if strings.HasPrefix(src[i:], "*/") {
					depth, i = depth-1, i+2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
			b.WriteByte(' ')
		default:
			b.WriteByte(src[i])
			i++
		}
	}
	return b.String(), nil
}

// split cuts text into module-scope declarations: each ends at a ';' or a
// '}' at depth zero.
func split(text string) ([]string, error) {
	var decls []string
	depth, start := 0, 0
	// end closes the declaration that runs to stop; the next starts at next.
	end := func(stop, next int) {
		if d := strings.TrimSpace(text[start:stop]); d != "" {
			decls = append(decls, d)
		}
		start = next
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			if depth--; depth < 0 {
				return nil, fmt.Errorf("unbalanced %q at byte %d", text[i], i)
			}
			if depth == 0 && text[i] == '}' {
				end(i+1, i+1)
			}
		case ';':
			if depth == 0 {
				end(i, i+1)
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced brackets")
	}
	if strings.TrimSpace(text[start:]) != "" {
		return nil, fmt.Errorf("declaration without an end: %q", strings.TrimSpace(text[start:]))
	}
	return decls, nil
}

// loaded is a kernel as load derived it, or why it could not.
type loaded[L, P any] struct {
	k   Kernel[L, P]
	err error
}

// load derives the kernel entry of file (source src) for layout L and
// params P: every field of L, a Binding tagged with a variable's name,
// gets that variable's binding; P's fields, uint32 tagged with field
// names of the struct of the one uniform variable, get their positions.
// Every bound variable must be named by L, and every field of the uniform
// struct by P unless its name is pad or pad followed by digits.
func load[L, P any](file, src, entry string) loaded[L, P] {
	k, err := derive[L, P](src, entry)
	if err != nil {
		return loaded[L, P]{err: fmt.Errorf("kernels: %s (%s): %v: %w", file, entry, err, ErrLayout)}
	}
	return loaded[L, P]{k: k}
}

// derive is load without the file's name in its errors.
func derive[L, P any](src, entry string) (Kernel[L, P], error) {
	k := Kernel[L, P]{Source: src, Entry: entry}
	m, err := parse(src)
	if err != nil {
		return k, err
	}
	if compute, ok := m.fns[entry]; !ok || !compute {
		return k, fmt.Errorf("no @compute entry point %s", entry)
	}
	lv := reflect.ValueOf(&k.Layout).Elem()
	lt := lv.Type()
	named := map[string]bool{}
	var uniform string
	for i := range lt.NumField() {
		f := lt.Field(i)
		name, ok := f.Tag.Lookup("wgsl")
		if !ok || f.Type != reflect.TypeFor[Binding]() || !f.IsExported() {
			return k, fmt.Errorf("%s.%s: a layout field is an exported Binding tagged wgsl:\"name\"", lt.Name(), f.Name)
		}
		v, ok := m.vars[name]
		if !ok {
			return k, fmt.Errorf("%s.%s names variable %s, which the WGSL does not declare", lt.Name(), f.Name, name)
		}
		if named[name] {
			return k, fmt.Errorf("%s names variable %s twice", lt.Name(), name)
		}
		named[name] = true
		if v.uniform {
			if uniform != "" {
				return k, fmt.Errorf("%s binds two uniforms, %s and %s (one params struct only)", lt.Name(), uniform, name)
			}
			uniform = name
		}
		lv.Field(i).Set(reflect.ValueOf(v.at))
	}
	for name, v := range m.vars {
		if !named[name] {
			return k, fmt.Errorf("the WGSL declares @group(%d) @binding(%d) var %s, which %s does not name", v.at.Group, v.at.Binding, name, lt.Name())
		}
	}
	pt := reflect.TypeFor[P]()
	if uniform == "" {
		return k, fmt.Errorf("%s binds no uniform for %s", lt.Name(), pt.Name())
	}
	fields, ok := m.structs[m.vars[uniform].typ]
	if !ok {
		return k, fmt.Errorf("uniform %s is a %s, not a struct the WGSL declares", uniform, m.vars[uniform].typ)
	}
	pos := map[string]int{}
	for i, f := range fields {
		pos[f.name] = i
	}
	k.words = len(fields)
	filled := map[string]bool{}
	for i := range pt.NumField() {
		f := pt.Field(i)
		name, ok := f.Tag.Lookup("wgsl")
		if !ok || f.Type.Kind() != reflect.Uint32 {
			return k, fmt.Errorf("%s.%s: a params field is a uint32 tagged wgsl:\"name\"", pt.Name(), f.Name)
		}
		at, ok := pos[name]
		if !ok {
			return k, fmt.Errorf("%s.%s names field %s, which struct %s does not have", pt.Name(), f.Name, name, m.vars[uniform].typ)
		}
		if filled[name] {
			return k, fmt.Errorf("%s names field %s twice", pt.Name(), name)
		}
		filled[name] = true
		k.at = append(k.at, at)
	}
	for _, f := range fields {
		if !filled[f.name] && !padRE.MatchString(f.name) {
			return k, fmt.Errorf("struct %s has field %s, which %s does not name (only pad fields may be left out)", m.vars[uniform].typ, f.name, pt.Name())
		}
	}
	return k, nil
}
