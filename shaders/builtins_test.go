package shaders_test

import (
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// WGSL's builtin functions, operators and conversions, in
// the style of the WebGPU CTS's shader execution tests
// (webgpu:shader,execution,expression,...). Each probe is one expression
// over arguments a, b, c, ... and a table of edge-case inputs (zero, -0,
// ±1, the type's extremes, powers of two, rounding ties, f32 subnormals,
// shift amounts past the bit width); the GPU's result is compared with
// WGSL's definition of it, within the accuracy the WGSL specification
// grants (§ "Floating Point Accuracy"; cited at each probe).
//
// Every probe runs four ways, as the CTS's input sources do:
//
//   - storage: one case per invocation, the arguments read from a storage
//     array of structs of vec4<u32> bit patterns and bitcast;
//   - uniform: one invocation loops over the cases, read from a uniform
//     array of structs whose members are @size(16) (the CTS's layout,
//     which the front-end pads by hand on OpenGL);
//   - const: the arguments written as typed literals in the expression, so
//     the compiler's constant evaluator computes it;
//   - abstract (where the probe allows it): untyped literals, so the
//     expression is evaluated as AbstractInt/AbstractFloat and converted.
//
// A componentwise probe runs at every vector width (a case's lanes are
// four consecutive cases of the table) and, where WGSL allows a scalar
// next to vectors (vec3 * f32, select over a bool, extractBits' offset),
// with that operand scalar.
//
// The default run checks each probe on a sample of its table at the scalar
// and the widest width (probe.sampled); SOFTGRAPH_LONG=1 adds the
// ...OnEveryInput tests, every case at every width (about two more minutes
// with -race on a two-core machine and lavapipe).
//
// Subnormal f32 inputs and outputs may be flushed to zero (WGSL §
// "Floating Point Accuracy"), so a result is accepted when it fits the
// inputs as given or with subnormal inputs flushed, and a range that
// reaches into the subnormals accepts ±0. ±0 compare equal except where a
// probe checks bits. Inputs whose result WGSL leaves indeterminate (NaN,
// overflow, x/0) are not tested, except where WGSL defines them.

// tyw is a WGSL scalar or vector type: elem is f32, i32, u32 or bool and n
// its width, 1 for a scalar.
type tyw struct {
	elem string
	n    int
}

func (t tyw) String() string {
	if t.n == 1 {
		return t.elem
	}
	return "vec" + strconv.Itoa(t.n) + "<" + t.elem + ">"
}

// with is t with element type e.
func (t tyw) with(e string) tyw { return tyw{e, t.n} }

// operand is how a slot reads one argument from a case: its type and the
// lanes of the case's four it takes.
type operand struct {
	t     tyw
	lanes []int
}

// slot is one evaluation of the expression per case: its operands and its
// result type.
type slot struct {
	ops []operand
	res tyw
}

// accept decides whether a result component's bits are acceptable.
type accept struct {
	desc string
	ok   func(bits uint32) bool
	// free: WGSL leaves the value indeterminate (any result is accepted,
	// and a constant expression would be a shader-creation error).
	free bool
}

// probe is one expression over a table of cases, with the result WGSL
// allows for each case's arguments.
type probe struct {
	name  string
	expr  string // WGSL over a, b, c, ...
	slots []slot
	cases [][][4]uint32 // per case, per argument, four lanes of bits
	// want is what each component of a slot's result may be, given the
	// bits of the lanes the slot's operands read.
	want func(args [][]uint32, res tyw) []accept
	// abstract also runs the probe with untyped literals.
	abstract bool
	// constOK reports whether the arguments may be evaluated as a constant
	// expression (nil: unless an input is not finite or a result is
	// indeterminate); false for cases that overflow, which WGSL makes a
	// shader-creation error there.
	constOK func(args [][]uint32) bool
	// noFlush: the expression does no floating point operation on its
	// inputs (a bitcast), so subnormal inputs keep their bits.
	noFlush bool
}

var argNames = []string{"a", "b", "c", "d", "e", "f", "g", "h"}

// ---- accepted values ----

func f32of(b uint32) float64 { return float64(math.Float32frombits(b)) }
func bitsF(x float32) uint32 { return math.Float32bits(x) }

const minNormal = 0x1p-126

func anyValue() accept {
	return accept{desc: "any (indeterminate)", ok: func(uint32) bool { return true }, free: true}
}

func exactBits(b uint32, show string) accept {
	return accept{desc: show, ok: func(g uint32) bool { return g == b }}
}
func exactU(v uint32) accept { return exactBits(v, fmt.Sprintf("%d (0x%08x)", v, v)) }
func exactI(v int32) accept  { return exactBits(uint32(v), strconv.Itoa(int(v))) }
func exactB(v bool) accept {
	if v {
		return exactBits(1, "true")
	}
	return exactBits(0, "false")
}

// oneOfU accepts any of the given bit patterns.
func oneOfU(vs ...uint32) accept {
	var s []string
	for _, v := range vs {
		s = append(s, fmt.Sprintf("0x%08x", v))
	}
	return accept{desc: "one of " + strings.Join(s, ", "), ok: func(g uint32) bool {
		for _, v := range vs {
			if g == v {
				return true
			}
		}
		return false
	}}
}

// ulpAt is the spacing of f32 values at |x| (2^-149 in the subnormals).
func ulpAt(x float64) float64 {
	x = math.Abs(x)
	if x < minNormal {
		return 0x1p-149
	}
	_, e := math.Frexp(x)
	return math.Ldexp(1, e-24)
}

// ivl is a closed interval of reals: the values WGSL's accuracy rules allow.
type ivl struct{ lo, hi float64 }

func pt(x float64) ivl { return ivl{x, x} }

var everything = ivl{math.Inf(-1), math.Inf(1)}

func (a ivl) bad() bool {
	return math.IsNaN(a.lo) || math.IsNaN(a.hi) || math.Abs(a.lo) > math.MaxFloat32 || math.Abs(a.hi) > math.MaxFloat32
}

// widen grows a by n ULPs of f32 at each end.
func (a ivl) widen(n float64) ivl {
	if a.bad() {
		return everything
	}
	return ivl{a.lo - n*ulpAt(a.lo), a.hi + n*ulpAt(a.hi)}
}

// correct is a correctly rounded result: WGSL allows either f32 neighbour
// of the exact value.
func correct(x float64) ivl {
	if math.IsNaN(x) || math.Abs(x) > math.MaxFloat32 {
		return everything
	}
	f := float64(float32(x))
	switch {
	case f == x:
		return pt(x)
	case f < x:
		return ivl{f, float64(math.Nextafter32(float32(f), float32(math.Inf(1))))}
	}
	return ivl{float64(math.Nextafter32(float32(f), float32(math.Inf(-1)))), f}
}

func corners(op func(x, y float64) float64, a, b ivl) ivl {
	r := ivl{math.Inf(1), math.Inf(-1)}
	for _, x := range []float64{a.lo, a.hi} {
		for _, y := range []float64{b.lo, b.hi} {
			v := op(x, y)
			r.lo, r.hi = math.Min(r.lo, v), math.Max(r.hi, v)
		}
	}
	return r
}

// The f32 operators: +, -, * correctly rounded; / within 2.5 ULP for
// divisors of magnitude in [2^-126, 2^126] (WGSL's accuracy table),
// indeterminate outside.
func addI(a, b ivl) ivl { return ivl{a.lo + b.lo, a.hi + b.hi}.widen(1) }
func subI(a, b ivl) ivl { return ivl{a.lo - b.hi, a.hi - b.lo}.widen(1) }
func mulI(a, b ivl) ivl {
	return corners(func(x, y float64) float64 { return x * y }, a, b).widen(1)
}
func divI(a, b ivl) ivl {
	if b.lo <= 0 && b.hi >= 0 || math.Max(math.Abs(b.lo), math.Abs(b.hi)) > 0x1p126 || math.Min(math.Abs(b.lo), math.Abs(b.hi)) < minNormal {
		return everything
	}
	return corners(func(x, y float64) float64 { return x / y }, a, b).widen(2.5)
}
func mono(f func(float64) float64, a ivl) ivl {
	x, y := f(a.lo), f(a.hi)
	return ivl{math.Min(x, y), math.Max(x, y)}
}

// inverseSqrt: 2 ULP; sqrt: inherited from 1.0 / inverseSqrt(x).
func invSqrtI(a ivl) ivl {
	if a.lo <= 0 {
		return everything
	}
	return mono(func(x float64) float64 { return 1 / math.Sqrt(x) }, a).widen(2)
}
func sqrtI(a ivl) ivl {
	if a.lo == 0 && a.hi == 0 {
		return pt(0)
	}
	if a.lo < 0 {
		return everything
	}
	if a.lo == 0 {
		a.lo = 0x1p-149
	}
	r := divI(pt(1), invSqrtI(a))
	if r.lo < 0x1p-70 {
		r.lo = 0
	}
	return r
}

// exp and exp2: 3 + 2 × |x| ULP.
func expI(f func(float64) float64, a ivl) ivl {
	return mono(f, a).widen(3 + 2*math.Max(math.Abs(a.lo), math.Abs(a.hi)))
}

// log and log2: absolute error 2^-21 inside [0.5, 2.0], 3 ULP outside.
func logI(f func(float64) float64, a ivl) ivl {
	if a.lo <= 0 || a.bad() {
		return everything
	}
	r := mono(f, a)
	w := r.widen(3)
	if a.lo <= 2 && a.hi >= 0.5 {
		w.lo, w.hi = math.Min(w.lo, r.lo-0x1p-21), math.Max(w.hi, r.hi+0x1p-21)
	}
	return w
}

// sin and cos: absolute error 2^-11 inside [-π, π].
func trigI(f func(float64) float64, x float64) ivl {
	if math.Abs(x) > math.Pi {
		return everything
	}
	v := f(x)
	return ivl{v - 0x1p-11, v + 0x1p-11}
}

// atan and atan2: 4096 ULP.
func atan2I(y, x ivl) ivl {
	if y.lo <= 0 && y.hi >= 0 && x.lo <= 0 && x.hi >= 0 || x.hi < 0 && y.lo < 0 && y.hi >= 0 {
		return everything // the origin, or across the branch cut
	}
	return corners(math.Atan2, y, x).widen(4096)
}

func (a ivl) accept() accept {
	if a.bad() || math.IsInf(a.lo, 0) || math.IsInf(a.hi, 0) {
		return anyValue()
	}
	flush := a.lo < minNormal && a.hi > -minNormal
	desc := fmt.Sprintf("%.9g", a.lo)
	if a.hi != a.lo {
		desc = fmt.Sprintf("[%.9g, %.9g]", a.lo, a.hi)
	}
	if flush && !(a.lo <= 0 && a.hi >= 0) {
		desc += " or ±0"
	}
	return accept{desc: desc, ok: func(b uint32) bool {
		g := f32of(b)
		if math.IsNaN(g) {
			return false
		}
		return (g >= a.lo && g <= a.hi) || (flush && g == 0)
	}}
}

func fx(x float64) accept { return correct(x).accept() }

// union accepts what any of as accepts.
func union(as ...accept) accept {
	var d []string
	for _, a := range as {
		if a.free {
			return a
		}
		d = append(d, a.desc)
	}
	return accept{desc: strings.Join(d, " | "), ok: func(b uint32) bool {
		for _, a := range as {
			if a.ok(b) {
				return true
			}
		}
		return false
	}}
}

// ---- shader generation ----

func swz(lanes []int) string {
	s := ""
	for _, l := range lanes {
		s += string("xyzw"[l])
	}
	return s
}

func storeType(e string) string {
	if e == "bool" {
		return "u32"
	}
	return e
}

// fromBits converts u, an expression of u32 bits of type t.with("u32"),
// into type t.
func fromBits(t tyw, u string) string {
	switch t.elem {
	case "u32":
		return u
	case "bool":
		return "(" + u + " != " + t.with("u32").String() + "(0u))"
	}
	return "bitcast<" + t.String() + ">(" + u + ")"
}

// toWords makes value v of type t a vec4<u32> of its bits.
func toWords(t tyw, v string) string {
	var u string
	switch t.elem {
	case "u32":
		u = v
	case "bool":
		u = "select(" + t.with("u32").String() + "(0u), " + t.with("u32").String() + "(1u), " + v + ")"
	default:
		u = "bitcast<" + t.with("u32").String() + ">(" + v + ")"
	}
	return "vec4<u32>(" + u + strings.Repeat(", 0u", 4-t.n) + ")"
}

// uniformRead is operand o of the uniform case i: members NAME (a vec3 of
// lanes 0-2) and NAME4 (lane 3), both @size(16).
func uniformRead(o operand, name string) string {
	e := storeType(o.t.elem)
	m := "cases[i]." + name
	var v string
	switch {
	case len(o.lanes) == 1 && o.lanes[0] == 3:
		v = m + "4"
	case len(o.lanes) == 4:
		v = "vec4<" + e + ">(" + m + ", " + m + "4)"
	default:
		v = m + "." + swz(o.lanes)
	}
	if o.t.elem == "bool" {
		return "(" + v + " != " + o.t.with("u32").String() + "(0u))"
	}
	return v
}

var identRE = regexp.MustCompile(`\b[a-h]\b`)

// literal is the WGSL spelling of bits of an element of type e; abstract
// leaves i32 and f32 untyped.
func literal(e string, b uint32, abstract bool) string {
	switch e {
	case "bool":
		return strconv.FormatBool(b != 0)
	case "u32":
		return strconv.FormatUint(uint64(b), 10) + "u"
	case "i32":
		v := int32(b)
		if abstract {
			return strconv.Itoa(int(v))
		}
		if v == math.MinInt32 {
			return "i32(-2147483648)"
		}
		return strconv.Itoa(int(v)) + "i"
	}
	s := strconv.FormatFloat(f32of(b), 'e', -1, 64)
	if abstract {
		return s
	}
	return s + "f"
}

func literalOf(t tyw, lanes []uint32, abstract bool) string {
	if t.n == 1 {
		return "(" + literal(t.elem, lanes[0], abstract) + ")"
	}
	var parts []string
	for _, b := range lanes {
		parts = append(parts, literal(t.elem, b, abstract))
	}
	ty := t.String()
	if abstract && (t.elem == "i32" || t.elem == "f32") {
		ty = "vec" + strconv.Itoa(t.n)
	}
	return ty + "(" + strings.Join(parts, ", ") + ")"
}

// operandBits is the lanes of case c that operand k of s reads.
func operandBits(c [][4]uint32, s slot) [][]uint32 {
	r := make([][]uint32, len(s.ops))
	for k, o := range s.ops {
		for _, l := range o.lanes {
			r[k] = append(r[k], c[k][l])
		}
	}
	return r
}

// expected is what p allows for the operands args of a slot: as given,
// or with subnormal f32 inputs flushed to zero.
func (p *probe) expected(s slot, args [][]uint32) []accept {
	w := p.want(args, s.res)
	if p.noFlush {
		return w
	}
	flushed, any := make([][]uint32, len(args)), false
	for k, a := range args {
		flushed[k] = append([]uint32(nil), a...)
		if s.ops[k].t.elem != "f32" {
			continue
		}
		for j, b := range a {
			if b&0x7f800000 == 0 && b&0x7fffff != 0 {
				flushed[k][j], any = b&0x80000000, true
			}
		}
	}
	if !any {
		return w
	}
	w2 := p.want(flushed, s.res)
	for j := range w {
		w[j] = union(w[j], w2[j])
	}
	return w
}

func (p *probe) constant(s slot, args [][]uint32) bool {
	for k, a := range args {
		if s.ops[k].t.elem == "f32" {
			for _, b := range a {
				if b&0x7f800000 == 0x7f800000 {
					return false
				}
			}
		}
	}
	for _, a := range p.want(args, s.res) {
		if a.free {
			return false
		}
	}
	return p.constOK == nil || p.constOK(args)
}

// run runs p every way and reports each result WGSL does not allow.
func (p *probe) run(t *testing.T, d *wgpu.Device, s *recorder.Stream) {
	t.Helper()
	modes := []string{"storage", "uniform", "const"}
	if p.abstract {
		modes = append(modes, "abstract")
	}
	if runtime.GOOS == "windows" {
		// The Windows leg checks the platform (wine, with -race, on two
		// CPU cores), where compiling every way of every probe took most of
		// its five minutes; the WGSL semantics are the same text on every
		// OS, and the Linux leg and the H200 run all four ways.
		modes = modes[:1]
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			got, done := p.launch(t, d, s, mode)
			p.check(t, mode, got, done)
		})
	}
}

const maxReports = 12

func (p *probe) check(t *testing.T, mode string, got []uint32, done []bool) {
	t.Helper()
	reports := 0
	for i, c := range p.cases {
		for si, sl := range p.slots {
			k := i*len(p.slots) + si
			if done != nil && !done[k] {
				continue
			}
			args := operandBits(c, sl)
			want := p.expected(sl, args)
			for j, w := range want {
				b := got[4*k+j]
				if w.ok(b) {
					continue
				}
				if reports++; reports <= maxReports {
					t.Errorf("%s: %s with %s: component %d = %s, WGSL allows %s",
						mode, p.exprWith(sl), showArgs(sl, args), j, showBits(sl.res.elem, b), w.desc)
				}
			}
		}
	}
	if reports > maxReports {
		t.Errorf("%s: %d more results differ", mode, reports-maxReports)
	}
}

// text is p's expression for slot s: $R is its result type, $U, $I and
// $F the u32, i32 and f32 scalar or vector of its width.
func (p *probe) text(s slot) string {
	return strings.NewReplacer("$R", s.res.String(), "$U", s.res.with("u32").String(),
		"$I", s.res.with("i32").String(), "$F", s.res.with("f32").String()).Replace(p.expr)
}

func (p *probe) exprWith(s slot) string {
	var ts []string
	for k, o := range s.ops {
		ts = append(ts, argNames[k]+": "+o.t.String())
	}
	return p.expr + " [" + strings.Join(ts, ", ") + "]"
}

func showBits(e string, b uint32) string {
	switch e {
	case "f32":
		return fmt.Sprintf("%.9g (0x%08x)", f32of(b), b)
	case "i32":
		return strconv.Itoa(int(int32(b)))
	case "bool":
		return strconv.FormatBool(b != 0)
	}
	return fmt.Sprintf("%d (0x%08x)", b, b)
}

func showArgs(s slot, args [][]uint32) string {
	var parts []string
	for k, a := range args {
		var v []string
		for _, b := range a {
			v = append(v, showBits(s.ops[k].t.elem, b))
		}
		parts = append(parts, argNames[k]+" = "+strings.Join(v, ", "))
	}
	return strings.Join(parts, "; ")
}

// launch compiles and runs p in mode and returns four words per (case,
// slot), and which were computed (nil: all).
func (p *probe) launch(t *testing.T, d *wgpu.Device, s *recorder.Stream, mode string) ([]uint32, []bool) {
	t.Helper()
	nOps := len(p.slots[0].ops)
	nOut := len(p.cases) * len(p.slots)
	out, err := s.Alloc(uint64(16 * nOut))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	compile := func(src string) *wgpu.Kernel {
		k, err := d.Kernel(src, "main")
		if err != nil {
			t.Fatalf("Kernel refused valid WGSL: %v\n%s", err, src)
		}
		return k
	}
	body := func(sl slot, read func(k int, o operand) string, idx string) string {
		var lets []string
		for k, o := range sl.ops {
			lets = append(lets, "let "+argNames[k]+" = "+read(k, o)+";")
		}
		return "  { " + strings.Join(lets, " ") + " out[" + idx + "] = " + toWords(sl.res, p.text(sl)) + "; }\n"
	}
	K := strconv.Itoa(len(p.slots))
	switch mode {
	case "storage":
		b.WriteString("struct Case {")
		for k := 0; k < nOps; k++ {
			b.WriteString(" " + argNames[k] + ": vec4<u32>,")
		}
		b.WriteString(" }\n@group(0) @binding(0) var<storage, read> cases: array<Case>;\n")
		b.WriteString("@group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;\n")
		b.WriteString("@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n  let i = gid.x;\n  if (i >= arrayLength(&cases)) { return; }\n")
		for si, sl := range p.slots {
			b.WriteString(body(sl, func(k int, o operand) string {
				return fromBits(o.t, "cases[i]."+argNames[k]+"."+swz(o.lanes))
			}, "i * "+K+"u + "+strconv.Itoa(si)+"u"))
		}
		b.WriteString("}\n")
		k := compile(b.String())
		var words []uint32
		for _, c := range p.cases {
			for _, a := range c {
				words = append(words, a[:]...)
			}
		}
		launch(t, s, k, recorder.Groups(uint32((len(p.cases)+63)/64), 1, 1), upU32(t, s, words), out)
		return readU32(t, s, out), nil
	case "uniform":
		per := 65536 / (32 * nOps)
		n := min(per, len(p.cases))
		// The loop's count is read from base, not written as a literal: a
		// short constant loop is unrolled by the compiler (lavapipe's LLVM),
		// which made this way about five times slower to compile than the
		// others while checking nothing more.
		b.WriteString("struct Case {")
		for k := 0; k < nOps; k++ {
			e := storeType(p.slots[0].ops[k].t.elem)
			b.WriteString(" @size(16) " + argNames[k] + ": vec3<" + e + ">, @size(16) " + argNames[k] + "4: " + e + ",")
		}
		b.WriteString(" }\nstruct Base { at: u32, n: u32 }\n@group(0) @binding(0) var<uniform> cases: array<Case, " + strconv.Itoa(n) + ">;\n")
		b.WriteString("@group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;\n@group(0) @binding(2) var<uniform> base: Base;\n")
		b.WriteString("@compute @workgroup_size(1)\nfn main() {\n  for (var i = 0u; i < base.n; i++) {\n")
		for si, sl := range p.slots {
			b.WriteString("  " + body(sl, func(k int, o operand) string {
				return uniformRead(o, argNames[k])
			}, "(base.at + i) * "+K+"u + "+strconv.Itoa(si)+"u"))
		}
		b.WriteString("  }\n}\n")
		k := compile(b.String())
		for at := 0; at < len(p.cases); at += n {
			// The last chunk starts early enough to hold n cases.
			start := min(at, len(p.cases)-n)
			var words []uint32
			for _, c := range p.cases[start : start+n] {
				for _, a := range c {
					words = append(words, a[0], a[1], a[2], 0, a[3], 0, 0, 0)
				}
			}
			launch(t, s, k, recorder.Groups(1, 1, 1), recorder.Params(asBytesU(words...)), out, recorder.ParamsOf[uint32](uint32(start), uint32(n), 0, 0))
		}
		return readU32(t, s, out), nil
	}
	abstract := mode == "abstract"
	done := make([]bool, nOut)
	var stmts []string
	for i, c := range p.cases {
		for si, sl := range p.slots {
			args := operandBits(c, sl)
			if !p.constant(sl, args) {
				continue
			}
			done[i*len(p.slots)+si] = true
			e := identRE.ReplaceAllStringFunc(p.text(sl), func(n string) string {
				k := int(n[0] - 'a')
				return literalOf(sl.ops[k].t, args[k], abstract)
			})
			if abstract {
				e = sl.res.String() + "(" + e + ")"
			}
			stmts = append(stmts, "  out["+strconv.Itoa(i*len(p.slots)+si)+"] = "+toWords(sl.res, e)+";\n")
		}
	}
	const perShader = 400
	for at := 0; at < len(stmts); at += perShader {
		b.Reset()
		b.WriteString("@group(0) @binding(0) var<storage, read_write> out: array<vec4<u32>>;\n@compute @workgroup_size(1)\nfn main() {\n")
		for _, st := range stmts[at:min(at+perShader, len(stmts))] {
			b.WriteString(st)
		}
		b.WriteString("}\n")
		launch(t, s, compile(b.String()), recorder.Groups(1, 1, 1), out)
	}
	return readU32(t, s, out), done
}

// ---- componentwise probes ----

// cw is a componentwise builtin or operator: scalar argument types, a
// table of scalar cases and the scalar reference.
type cw struct {
	name  string
	expr  string
	args  []string
	res   string
	cases [][]uint32
	ref   func(x []uint32) accept
	// mixed: operands that may be scalars next to vector ones; scalars:
	// operands that are scalars at every width (extractBits' offset).
	mixed, scalars []int
	abstract       bool
	constOK        func(x []uint32) bool
	noFlush        bool
	// widths: the vector widths to run (nil: 1 to 4).
	widths []int
}

func lanes(n int) []int { return []int{0, 1, 2, 3}[:n] }

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (c cw) probe() *probe {
	n := len(c.cases)
	p := &probe{name: c.name, expr: c.expr, abstract: c.abstract, noFlush: c.noFlush}
	for k := 0; k < n; k++ {
		var cs [][4]uint32
		for a := range c.args {
			var l [4]uint32
			for j := range l {
				l[j] = c.cases[(k+j)%n][a]
			}
			cs = append(cs, l)
		}
		p.cases = append(p.cases, cs)
	}
	mk := func(w, scalarOp int) slot {
		var s slot
		for a, e := range c.args {
			o := operand{tyw{e, w}, lanes(w)}
			if w == 1 || a == scalarOp || contains(c.scalars, a) {
				o = operand{tyw{e, 1}, []int{3}}
			}
			s.ops = append(s.ops, o)
		}
		s.res = tyw{c.res, w}
		return s
	}
	widths := c.widths
	if widths == nil {
		widths = []int{1, 2, 3, 4}
	}
	for _, w := range widths {
		p.slots = append(p.slots, mk(w, -1))
	}
	for _, m := range c.mixed {
		for _, w := range widths {
			if w > 1 {
				p.slots = append(p.slots, mk(w, m))
			}
		}
	}
	scalarArgs := func(args [][]uint32, j int) []uint32 {
		x := make([]uint32, len(args))
		for k, a := range args {
			x[k] = a[min(j, len(a)-1)]
		}
		return x
	}
	p.want = func(args [][]uint32, res tyw) []accept {
		out := make([]accept, res.n)
		for j := range out {
			out[j] = c.ref(scalarArgs(args, j))
		}
		return out
	}
	if c.constOK != nil {
		p.constOK = func(args [][]uint32) bool {
			w := 0
			for _, a := range args {
				w = max(w, len(a))
			}
			for j := 0; j < w; j++ {
				if !c.constOK(scalarArgs(args, j)) {
					return false
				}
			}
			return true
		}
	}
	return p
}

// ---- input tables ----

var negZero = math.Float32frombits(0x80000000)

// f32Edge are the f32 inputs of the float probes: zeros, ±1, halves and
// rounding ties, values next to integer boundaries, the extremes, the
// least normal and subnormals.
var f32Edge = []float32{0, negZero, 1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 0.49999997, -0.49999997,
	0.1, -0.1, 10.0001, -10.0001, 123.456, -1e10, 1e10, 8388607.5, -8388607.5, 8388609, 16777215,
	2147483520, -2147483648, 4294967040, math.MaxFloat32, -math.MaxFloat32,
	minNormal, -minNormal, math.Float32frombits(0x007fffff), math.Float32frombits(0x80000001), 1e-8, -1e-8}

// f32Small are inputs inside the domains of the transcendental functions'
// accuracy rules.
var f32Small = []float32{0, negZero, 1, -1, 0.5, -0.5, 0.25, -0.75, 2, -2, 3, -3, 3.1415925, -3.1415925,
	1.5707964, 0.1, -0.1, 1e-3, 1e-20, minNormal, math.Float32frombits(0x00400000), 0.999, -0.999, 10, -10}

// f32Positive are inputs of log, sqrt and inverseSqrt.
var f32Positive = []float32{1, 2, 4, 0.5, 0.25, 0.75, 1.5, 3, 10, 100, 1e-10, 1e10, 1e30, 1e-30, minNormal,
	math.MaxFloat32, 0.999999, 1.0000001, 7, 1234.5678}

var i32Edge = []int32{0, 1, -1, 2, -2, 7, -7, 31, 32, 33, 0x55555555, -0x55555556, 1 << 30, math.MaxInt32,
	math.MinInt32, math.MinInt32 + 1, 0x00FF0000, -256, 12345678}

var u32Edge = []uint32{0, 1, 2, 3, 31, 32, 33, 63, 64, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0x0000FFFF,
	0xFFFF0000, 0x12345678, 0xF0F0F0F0, 0x00010000}

func unaryF(xs []float32) [][]uint32 {
	var r [][]uint32
	for _, x := range xs {
		r = append(r, []uint32{bitsF(x)})
	}
	return r
}

func unaryI(xs []int32) [][]uint32 {
	var r [][]uint32
	for _, x := range xs {
		r = append(r, []uint32{uint32(x)})
	}
	return r
}

func unaryU(xs []uint32) [][]uint32 {
	var r [][]uint32
	for _, x := range xs {
		r = append(r, []uint32{x})
	}
	return r
}

// cross is every combination of the given argument tables.
func cross(tables ...[]uint32) [][]uint32 {
	r := [][]uint32{nil}
	for _, tb := range tables {
		var next [][]uint32
		for _, p := range r {
			for _, v := range tb {
				next = append(next, append(append([]uint32(nil), p...), v))
			}
		}
		r = next
	}
	return r
}

func iBits(xs []int32) []uint32 {
	r := make([]uint32, len(xs))
	for i, x := range xs {
		r[i] = uint32(x)
	}
	return r
}

// sampledCases is how many of a probe's cases the default run keeps. A
// case's four lanes read four consecutive table entries, so the vector
// slots still see about 4 × sampledCases inputs of every table; only the
// scalar slots and the constant evaluator see fewer. SOFTGRAPH_LONG=1 runs
// every case at every width (the ...OnEveryInput tests).
const sampledCases = 8

// sampled is p as the default run checks it: sampledCases of its cases,
// spread evenly over its table (the first, zero or its first edge, always
// among them), at the scalar and the widest of its widths (a mixed slot,
// a scalar operand beside vectors, at the widest). Every way (storage,
// uniform, const, abstract) still runs: each is a different path through
// the front end and the compiler.
func (p *probe) sampled() *probe {
	q := *p
	if len(p.cases) > sampledCases {
		q.cases = make([][][4]uint32, sampledCases)
		for i := range q.cases {
			q.cases[i] = p.cases[i*len(p.cases)/sampledCases]
		}
	}
	widest := 0
	for _, sl := range p.slots {
		widest = max(widest, sl.res.n)
	}
	q.slots = nil
	for _, sl := range p.slots {
		if sl.res.n == 1 || sl.res.n == widest {
			q.slots = append(q.slots, sl)
		}
	}
	return &q
}

// runProbes runs every probe on a few of its cases (sampled); every case
// of every probe is the long sweep of runAllProbes.
func runProbes(t *testing.T, ps []*probe) {
	skipIfShort(t)
	d, s := openStream(t)
	for _, p := range ps {
		p := p.sampled()
		t.Run(p.name, func(t *testing.T) { p.run(t, d, s) })
	}
}

// runAllProbes runs every case of every probe, under SOFTGRAPH_LONG=1.
func runAllProbes(t *testing.T, ps []*probe) {
	if !longSweep() {
		t.Skip("long sweep: set SOFTGRAPH_LONG=1")
	}
	d, s := openStream(t)
	for _, p := range ps {
		t.Run(p.name, func(t *testing.T) { p.run(t, d, s) })
	}
}

func probes(cs ...cw) []*probe {
	var r []*probe
	for _, c := range cs {
		r = append(r, c.probe())
	}
	return r
}

// ---- integer builtins and operators ----

// fitsI32 reports whether v is an i32: a constant expression whose value
// is not is a shader-creation error, a run-time one wraps.
func fitsI32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

// shiftOK: a constant shift amount must be less than the bit width.
func shiftOK(x []uint32) bool { return x[1] < 32 }

func integerProbes() []*probe {
	ii := cross(iBits(i32Edge), iBits(i32Edge))
	uu := cross(u32Edge, u32Edge)
	iu := cross(iBits(i32Edge), u32Edge)
	small := iBits([]int32{0, 1, -1, 7, -7, math.MaxInt32, math.MinInt32})
	smallU := []uint32{0, 1, 7, 0x80000000, 0xFFFFFFFF}
	bitRange := []uint32{0, 1, 4, 16, 31, 32, 33, 40}
	bitE := iBits([]int32{0, -1, 0x12345678, math.MinInt32, 0x5555AAAA, 0x0000F0F0})
	un := func(name, expr, arg string, ref func(x []uint32) accept) cw {
		cases := unaryU(u32Edge)
		if arg == "i32" {
			cases = unaryI(i32Edge)
		}
		return cw{name: name, expr: expr, args: []string{arg}, res: arg, cases: cases, ref: ref, abstract: arg == "i32"}
	}
	res := func(c cw, r string) cw { c.res = r; return c }
	noWrap := func(op func(a, b int64) int64) func(x []uint32) bool {
		return func(x []uint32) bool { return fitsI32(op(int64(int32(x[0])), int64(int32(x[1])))) }
	}
	noWrapU := func(op func(a, b int64) int64) func(x []uint32) bool {
		return func(x []uint32) bool { v := op(int64(x[0]), int64(x[1])); return v >= 0 && v <= math.MaxUint32 }
	}
	add := func(a, b int64) int64 { return a + b }
	sub := func(a, b int64) int64 { return a - b }
	mul := func(a, b int64) int64 { return a * b }
	return probes(
		// abs: WGSL abs of the most negative i32 is itself.
		un("abs i32", "abs(a)", "i32", func(x []uint32) accept { return exactI(absI32(int32(x[0]))) }),
		un("abs u32", "abs(a)", "u32", func(x []uint32) accept { return exactU(x[0]) }),
		cw{name: "negation i32 wraps", expr: "-a", args: []string{"i32"}, res: "i32", cases: unaryI(i32Edge),
			ref:     func(x []uint32) accept { return exactI(-int32(x[0])) },
			constOK: func(x []uint32) bool { return int32(x[0]) != math.MinInt32 }},
		un("complement i32", "~a", "i32", func(x []uint32) accept { return exactI(^int32(x[0])) }),
		un("complement u32", "~a", "u32", func(x []uint32) accept { return exactU(^x[0]) }),
		cw{name: "i32 + wraps", expr: "a + b", args: []string{"i32", "i32"}, res: "i32", cases: ii, mixed: []int{0, 1},
			ref: func(x []uint32) accept { return exactI(int32(x[0]) + int32(x[1])) }, constOK: noWrap(add), abstract: true},
		cw{name: "i32 - wraps", expr: "a - b", args: []string{"i32", "i32"}, res: "i32", cases: ii, mixed: []int{0, 1},
			ref: func(x []uint32) accept { return exactI(int32(x[0]) - int32(x[1])) }, constOK: noWrap(sub), abstract: true},
		cw{name: "i32 * wraps", expr: "a * b", args: []string{"i32", "i32"}, res: "i32", cases: ii, mixed: []int{0, 1},
			ref: func(x []uint32) accept { return exactI(int32(x[0]) * int32(x[1])) }, constOK: noWrap(mul), abstract: true},
		cw{name: "u32 + wraps", expr: "a + b", args: []string{"u32", "u32"}, res: "u32", cases: uu, mixed: []int{0, 1},
			ref: func(x []uint32) accept { return exactU(x[0] + x[1]) }, constOK: noWrapU(add)},
		cw{name: "u32 - wraps", expr: "a - b", args: []string{"u32", "u32"}, res: "u32", cases: uu, mixed: []int{0, 1},
			ref: func(x []uint32) accept { return exactU(x[0] - x[1]) }, constOK: noWrapU(sub)},
		cw{name: "u32 * wraps", expr: "a * b", args: []string{"u32", "u32"}, res: "u32", cases: uu, mixed: []int{0, 1},
			ref: func(x []uint32) accept { return exactU(x[0] * x[1]) }, constOK: noWrapU(mul)},
		cw{name: "i32 / and % with scalar-vector mixes", expr: "a / b + (a % b) * 3", args: []string{"i32", "i32"}, res: "i32", cases: cross(small, small), mixed: []int{0, 1},
			ref: func(x []uint32) accept {
				a, b := int32(x[0]), int32(x[1])
				return exactI(wgslDivI32(a, b) + wgslRemI32(a, b)*3)
			},
			constOK: func(x []uint32) bool {
				a, b := int32(x[0]), int32(x[1])
				return b != 0 && !(a == math.MinInt32 && b == -1) && fitsI32(int64(wgslDivI32(a, b))+int64(wgslRemI32(a, b))*3)
			}},
		cw{name: "u32 / and % with scalar-vector mixes", expr: "(a / b) ^ (a % b)", args: []string{"u32", "u32"}, res: "u32", cases: cross(smallU, smallU), mixed: []int{0, 1},
			ref:     func(x []uint32) accept { return exactU(wgslDivU32(x[0], x[1]) ^ wgslRemU32(x[0], x[1])) },
			constOK: func(x []uint32) bool { return x[1] != 0 }},
		cw{name: "i32 & | ^", expr: "(a & b) ^ ((a | b) << $U(1u))", args: []string{"i32", "i32"}, res: "i32", cases: ii,
			ref: func(x []uint32) accept { a, b := int32(x[0]), int32(x[1]); return exactI((a & b) ^ ((a | b) << 1)) }},
		cw{name: "u32 & | ^", expr: "(a & b) ^ ((a | b) >> $U(1u))", args: []string{"u32", "u32"}, res: "u32", cases: uu,
			ref: func(x []uint32) accept { return exactU((x[0] & x[1]) ^ ((x[0] | x[1]) >> 1)) }},
		// Shifts: WGSL takes the amount modulo the bit width at run time;
		// a constant amount of 32 or more is a shader-creation error.
		cw{name: "i32 << u32", expr: "a << b", args: []string{"i32", "u32"}, res: "i32", cases: iu,
			ref: func(x []uint32) accept { return exactI(int32(x[0]) << (x[1] % 32)) }, constOK: shiftOK},
		cw{name: "i32 >> u32 (arithmetic)", expr: "a >> b", args: []string{"i32", "u32"}, res: "i32", cases: iu,
			ref: func(x []uint32) accept { return exactI(int32(x[0]) >> (x[1] % 32)) }, constOK: shiftOK},
		cw{name: "u32 << u32", expr: "a << b", args: []string{"u32", "u32"}, res: "u32", cases: uu,
			ref: func(x []uint32) accept { return exactU(x[0] << (x[1] % 32)) }, constOK: shiftOK},
		cw{name: "u32 >> u32", expr: "a >> b", args: []string{"u32", "u32"}, res: "u32", cases: uu,
			ref: func(x []uint32) accept { return exactU(x[0] >> (x[1] % 32)) }, constOK: shiftOK},
		cw{name: "min and max i32", expr: "min(a, b) * 3 + max(a, b)", args: []string{"i32", "i32"}, res: "i32", cases: ii, abstract: true,
			ref: func(x []uint32) accept { a, b := int32(x[0]), int32(x[1]); return exactI(min(a, b)*3 + max(a, b)) },
			constOK: func(x []uint32) bool {
				a, b := int64(int32(x[0])), int64(int32(x[1]))
				return fitsI32(min(a, b)*3) && fitsI32(min(a, b)*3+max(a, b))
			}},
		cw{name: "min and max u32", expr: "min(a, b) ^ (max(a, b) << $U(1u))", args: []string{"u32", "u32"}, res: "u32", cases: uu,
			ref: func(x []uint32) accept { return exactU(min(x[0], x[1]) ^ max(x[0], x[1])<<1) }},
		// clamp(e, low, high) = min(max(e, low), high), low > high included.
		cw{name: "clamp i32", expr: "clamp(a, b, c)", args: []string{"i32", "i32", "i32"}, res: "i32", cases: cross(small, small, small), abstract: true,
			ref: func(x []uint32) accept { return exactI(min(max(int32(x[0]), int32(x[1])), int32(x[2]))) }},
		cw{name: "clamp u32", expr: "clamp(a, b, c)", args: []string{"u32", "u32", "u32"}, res: "u32", cases: cross(smallU, smallU, smallU),
			ref: func(x []uint32) accept { return exactU(min(max(x[0], x[1]), x[2])) }},
		un("countLeadingZeros i32", "countLeadingZeros(a)", "i32", func(x []uint32) accept { return exactI(int32(clz(x[0]))) }),
		un("countLeadingZeros u32", "countLeadingZeros(a)", "u32", func(x []uint32) accept { return exactU(clz(x[0])) }),
		un("countOneBits i32", "countOneBits(a)", "i32", func(x []uint32) accept { return exactI(int32(popcount(x[0]))) }),
		un("countOneBits u32", "countOneBits(a)", "u32", func(x []uint32) accept { return exactU(popcount(x[0])) }),
		un("countTrailingZeros i32", "countTrailingZeros(a)", "i32", func(x []uint32) accept { return exactI(int32(ctz(x[0]))) }),
		un("countTrailingZeros u32", "countTrailingZeros(a)", "u32", func(x []uint32) accept { return exactU(ctz(x[0])) }),
		un("firstLeadingBit i32", "firstLeadingBit(a)", "i32", func(x []uint32) accept { return exactI(firstLeadingBitI32(int32(x[0]))) }),
		un("firstLeadingBit u32", "firstLeadingBit(a)", "u32", func(x []uint32) accept { return exactU(firstLeadingBitU32(x[0])) }),
		un("firstTrailingBit i32", "firstTrailingBit(a)", "i32", func(x []uint32) accept { return exactI(int32(firstTrailingBitU32(x[0]))) }),
		un("firstTrailingBit u32", "firstTrailingBit(a)", "u32", func(x []uint32) accept { return exactU(firstTrailingBitU32(x[0])) }),
		un("reverseBits i32", "reverseBits(a)", "i32", func(x []uint32) accept { return exactU(reverse(x[0])) }),
		un("reverseBits u32", "reverseBits(a)", "u32", func(x []uint32) accept { return exactU(reverse(x[0])) }),
		cw{name: "extractBits i32", expr: "extractBits(a, b, c)", args: []string{"i32", "u32", "u32"}, res: "i32", scalars: []int{1, 2},
			cases: cross(bitE, bitRange, bitRange), abstract: true,
			ref: func(x []uint32) accept { return exactI(extractBitsI32(int32(x[0]), x[1], x[2])) }},
		cw{name: "extractBits u32", expr: "extractBits(a, b, c)", args: []string{"u32", "u32", "u32"}, res: "u32", scalars: []int{1, 2},
			cases: cross(bitE, bitRange, bitRange),
			ref:   func(x []uint32) accept { return exactU(extractBitsU32(x[0], x[1], x[2])) }},
		cw{name: "insertBits i32", expr: "insertBits(a, d, b, c)", args: []string{"i32", "u32", "u32", "i32"}, res: "i32", scalars: []int{1, 2},
			cases: cross(iBits([]int32{0, -1, 0x12345678}), bitRange, bitRange, iBits([]int32{-1, 0x5A5A, math.MinInt32})), abstract: true,
			ref: func(x []uint32) accept { return exactU(insertBitsU32(x[0], x[3], x[1], x[2])) }},
		cw{name: "insertBits u32", expr: "insertBits(a, d, b, c)", args: []string{"u32", "u32", "u32", "u32"}, res: "u32", scalars: []int{1, 2},
			cases: cross([]uint32{0, 0xFFFFFFFF, 0x12345678}, bitRange, bitRange, []uint32{0xFFFFFFFF, 0x5A5A, 0x80000001}),
			ref:   func(x []uint32) accept { return exactU(insertBitsU32(x[0], x[3], x[1], x[2])) }},
		cw{name: "i32 comparisons", expr: cmpExpr, args: []string{"i32", "i32"}, res: "u32", cases: ii, abstract: true,
			ref: func(x []uint32) accept { return exactU(cmpBits(float64(int32(x[0])), float64(int32(x[1])))) }},
		cw{name: "u32 comparisons", expr: cmpExpr, args: []string{"u32", "u32"}, res: "u32", cases: uu,
			ref: func(x []uint32) accept { return exactU(cmpBits(float64(x[0]), float64(x[1]))) }},
		cw{name: "select over a scalar or vector bool", expr: "select(a, b, c)", args: []string{"i32", "i32", "bool"}, res: "i32", mixed: []int{2},
			cases: cross(small, small, []uint32{0, 1}), abstract: true,
			ref: func(x []uint32) accept {
				if x[2] != 0 {
					return exactU(x[1])
				}
				return exactU(x[0])
			}},
		res(cw{name: "bool operators", expr: "(a && !b) || ((a != b) == (b || c))", args: []string{"bool", "bool", "bool"}, cases: cross([]uint32{0, 1}, []uint32{0, 1}, []uint32{0, 1}), widths: []int{1},
			ref: func(x []uint32) accept {
				a, b, c := x[0] != 0, x[1] != 0, x[2] != 0
				return exactB((a && !b) || ((a != b) == (b || c)))
			}}, "bool"),
		res(cw{name: "bool vector operators", expr: "(a & !b) | ((a != b) & c) | (a == c)", args: []string{"bool", "bool", "bool"}, cases: cross([]uint32{0, 1}, []uint32{0, 1}, []uint32{0, 1}),
			ref: func(x []uint32) accept {
				a, b, c := x[0] != 0, x[1] != 0, x[2] != 0
				return exactB((a && !b) || ((a != b) && c) || (a == c))
			}}, "bool"),
	)
}

// cmpExpr is every comparison operator of a and b, one bit each, at the
// slot's width ($R is the result type).
const cmpExpr = "select($R(0u), $R(1u), a < b) | select($R(0u), $R(2u), a <= b) | select($R(0u), $R(4u), a == b) | " +
	"select($R(0u), $R(8u), a != b) | select($R(0u), $R(16u), a > b) | select($R(0u), $R(32u), a >= b)"

func cmpBits(a, b float64) uint32 {
	r := uint32(0)
	for i, c := range []bool{a < b, a <= b, a == b, a != b, a > b, a >= b} {
		if c {
			r |= 1 << i
		}
	}
	return r
}

func clz(x uint32) uint32      { return uint32(bits.LeadingZeros32(x)) }
func popcount(x uint32) uint32 { return uint32(bits.OnesCount32(x)) }
func ctz(x uint32) uint32      { return uint32(bits.TrailingZeros32(x)) }
func reverse(x uint32) uint32  { return bits.Reverse32(x) }

// TestIntegerBuiltinsFollowWGSL: WGSL's integer builtins and operators on
// i32 and u32 scalars and vectors of every width, with scalar-vector
// mixes, at run time and as constant expressions, bit for bit.
func TestIntegerBuiltinsFollowWGSL(t *testing.T) { runProbes(t, integerProbes()) }

// TestIntegerBuiltinsFollowWGSLOnEveryInput: every case of every probe (a long sweep).
func TestIntegerBuiltinsFollowWGSLOnEveryInput(t *testing.T) { runAllProbes(t, integerProbes()) }

// ---- float builtins and operators ----

// fIvl is the accepted range of a float result from its interval.
func fIvl(f func(x []float64) ivl) func(x []uint32) accept {
	return func(x []uint32) accept {
		v := make([]float64, len(x))
		for i := range x {
			v[i] = f32of(x[i])
		}
		return f(v).accept()
	}
}

// fExact: the correctly rounded value of f (WGSL: "correctly rounded",
// either neighbour of an exact result f32 cannot hold).
func fExact(f func(x []float64) float64) func(x []uint32) accept {
	return fIvl(func(x []float64) ivl { return correct(f(x)) })
}

func unF(name, expr string, xs []float32, ref func(x []uint32) accept) cw {
	return cw{name: name, expr: expr, args: []string{"f32"}, res: "f32", cases: unaryF(xs), ref: ref, abstract: true}
}

// fractRef is WGSL's fract: e - floor(e), correctly rounded (a tiny
// negative e gives 1.0 or the f32 below it).
func fractRef(x []float64) float64 { return x[0] - math.Floor(x[0]) }

// floatProbes: WGSL's f32 builtins and operators, one function per family,
// in the order the tests run them.
func floatProbes() []*probe {
	var ps []*probe
	for _, kind := range []func() []*probe{
		floatExactUnaryProbes, floatTranscendentalProbes, floatArithmeticProbes, floatRepresentationProbes,
	} {
		ps = append(ps, kind()...)
	}
	return ps
}

// floatExactUnaryProbes: abs, negation, rounding, fract, sign and
// saturate, whose results are exact.
func floatExactUnaryProbes() []*probe {
	return probes(
		// abs, floor, ceil, trunc, round, sign, saturate and the unary
		// minus are exact; abs and - are checked bit for bit (sign of zero).
		// abs(-0.0) is +0.0 ("e with a positive sign bit"), but naga v22's
		// constant evaluator keeps -0.0's sign; the CTS, whose intervals do
		// not tell zeros apart, accepts both, and so does this probe.
		cw{name: "abs f32", expr: "abs(a)", args: []string{"f32"}, res: "f32", cases: unaryF(f32Edge), abstract: true,
			ref: func(x []uint32) accept {
				if x[0]&0x7fffffff == 0 {
					return oneOfU(0, 0x80000000)
				}
				return exactBits(x[0]&0x7fffffff, showBits("f32", x[0]&0x7fffffff))
			}},
		cw{name: "negation f32", expr: "-a", args: []string{"f32"}, res: "f32", cases: unaryF(f32Edge), abstract: true, noFlush: true,
			ref: func(x []uint32) accept {
				v := x[0] ^ 0x80000000
				if x[0]&0x7f800000 == 0 {
					return oneOfU(v, v&0x80000000) // a subnormal may flush
				}
				return exactBits(v, showBits("f32", v))
			}},
		unF("floor", "floor(a)", f32Edge, fExact(func(x []float64) float64 { return math.Floor(x[0]) })),
		unF("ceil", "ceil(a)", f32Edge, fExact(func(x []float64) float64 { return math.Ceil(x[0]) })),
		unF("trunc", "trunc(a)", f32Edge, fExact(func(x []float64) float64 { return math.Trunc(x[0]) })),
		unF("round (ties to even)", "round(a)", f32Edge, fExact(func(x []float64) float64 { return math.RoundToEven(x[0]) })),
		unF("fract", "fract(a)", f32Edge, fExact(fractRef)),
		unF("sign", "sign(a)", f32Edge, fExact(func(x []float64) float64 {
			switch {
			case x[0] > 0:
				return 1
			case x[0] < 0:
				return -1
			}
			return 0
		})),
		unF("saturate", "saturate(a)", f32Edge, fExact(func(x []float64) float64 { return math.Min(math.Max(x[0], 0), 1) })),
	)
}

// floatTranscendentalProbes: sqrt, exp, log, the trigonometric and
// hyperbolic functions, degrees and radians, within WGSL's error bounds.
func floatTranscendentalProbes() []*probe {
	small := bitsOf(f32Small)

	return probes(
		// sqrt is inherited from 1.0 / inverseSqrt(x); inverseSqrt 2 ULP.
		unF("sqrt", "sqrt(a)", append(f32Positive, 0, negZero), fIvl(func(x []float64) ivl { return sqrtI(pt(x[0])) })),
		unF("inverseSqrt", "inverseSqrt(a)", f32Positive, fIvl(func(x []float64) ivl { return invSqrtI(pt(x[0])) })),
		// exp and exp2: 3 + 2|x| ULP; log and log2: 2^-21 absolute inside
		// [0.5, 2], 3 ULP outside.
		unF("exp", "exp(a)", []float32{0, 1, -1, 0.5, 2, 10, -10, 50, -50, 88, -87, 1e-8}, fIvl(func(x []float64) ivl { return expI(math.Exp, pt(x[0])) })),
		unF("exp2", "exp2(a)", []float32{0, 1, -1, 0.5, 2, 10, -10, 100, 127, -126, 127.5, 1e-8}, fIvl(func(x []float64) ivl { return expI(math.Exp2, pt(x[0])) })),
		unF("log", "log(a)", f32Positive, fIvl(func(x []float64) ivl { return logI(math.Log, pt(x[0])) })),
		unF("log2", "log2(a)", f32Positive, fIvl(func(x []float64) ivl { return logI(math.Log2, pt(x[0])) })),
		// sin and cos: 2^-11 absolute inside [-π, π]; tan inherited from
		// sin(x) / cos(x).
		unF("sin", "sin(a)", f32Small, fIvl(func(x []float64) ivl { return trigI(math.Sin, x[0]) })),
		unF("cos", "cos(a)", f32Small, fIvl(func(x []float64) ivl { return trigI(math.Cos, x[0]) })),
		unF("tan", "tan(a)", f32Small, fIvl(func(x []float64) ivl { return divI(trigI(math.Sin, x[0]), trigI(math.Cos, x[0])) })),
		// asin and acos inherited from atan2(x, sqrt(1 - x*x)) and
		// atan2(sqrt(1 - x*x), x); atan and atan2 4096 ULP.
		unF("asin", "asin(a)", []float32{0, negZero, 0.5, -0.5, 1, -1, 0.25, -0.75, 0.999, -0.999, 1e-3, 0.1}, fIvl(func(x []float64) ivl {
			return atan2I(pt(x[0]), sqrtI(subI(pt(1), mulI(pt(x[0]), pt(x[0])))))
		})),
		unF("acos", "acos(a)", []float32{0, negZero, 0.5, -0.5, 1, -1, 0.25, -0.75, 0.999, -0.999, 1e-3, 0.1}, fIvl(func(x []float64) ivl {
			return atan2I(sqrtI(subI(pt(1), mulI(pt(x[0]), pt(x[0])))), pt(x[0]))
		})),
		unF("atan", "atan(a)", f32Edge, fIvl(func(x []float64) ivl { return pt(math.Atan(x[0])).widen(4096) })),
		cw{name: "atan2", expr: "atan2(a, b)", args: []string{"f32", "f32"}, res: "f32", cases: cross(small, small), abstract: true,
			ref: fIvl(func(x []float64) ivl {
				if x[0] == 0 && x[1] == 0 {
					return everything // WGSL: indeterminate at the origin
				}
				if x[0] == 0 && x[1] < 0 {
					// On the negative x axis ±π: WGSL's atan2 has no signed-zero rule.
					return ivl{-math.Pi, -math.Pi}.widen(4096).union(ivl{math.Pi, math.Pi}.widen(4096))
				}
				return atan2I(pt(x[0]), pt(x[1]))
			})},
		// sinh, cosh inherited from (exp(x) ∓ exp(-x)) * 0.5; tanh from
		// sinh(x) / cosh(x); asinh, acosh, atanh from their log forms.
		unF("sinh", "sinh(a)", []float32{0, 1, -1, 0.5, 2, -3, 10, -10, 1e-3}, fIvl(func(x []float64) ivl {
			return mulI(subI(expI(math.Exp, pt(x[0])), expI(math.Exp, pt(-x[0]))), pt(0.5))
		})),
		unF("cosh", "cosh(a)", []float32{0, 1, -1, 0.5, 2, -3, 10, -10, 1e-3}, fIvl(func(x []float64) ivl {
			return mulI(addI(expI(math.Exp, pt(x[0])), expI(math.Exp, pt(-x[0]))), pt(0.5))
		})),
		unF("tanh", "tanh(a)", []float32{0, 1, -1, 0.5, 2, -3, 10, -10, 1e-3}, fIvl(func(x []float64) ivl {
			e, m := expI(math.Exp, pt(x[0])), expI(math.Exp, pt(-x[0]))
			return divI(mulI(subI(e, m), pt(0.5)), mulI(addI(e, m), pt(0.5)))
		})),
		unF("asinh", "asinh(a)", []float32{0, 1, -1, 0.5, 2, -3, 10, 100, 1e-3}, fIvl(func(x []float64) ivl {
			return logI(math.Log, addI(pt(x[0]), sqrtI(addI(mulI(pt(x[0]), pt(x[0])), pt(1)))))
		})),
		unF("acosh", "acosh(a)", []float32{1, 1.5, 2, 3, 10, 100, 1e4}, fIvl(func(x []float64) ivl {
			return logI(math.Log, addI(pt(x[0]), sqrtI(subI(mulI(pt(x[0]), pt(x[0])), pt(1)))))
		})),
		unF("atanh", "atanh(a)", []float32{0, 0.5, -0.5, 0.25, -0.75, 0.9, 1e-3}, fIvl(func(x []float64) ivl {
			return mulI(logI(math.Log, divI(addI(pt(1), pt(x[0])), subI(pt(1), pt(x[0])))), pt(0.5))
		})),
		// degrees and radians: inherited from x * 57.295779513082322865
		// and x * 0.017453292519943295474 (the constant rounded to f32,
		// then a correctly rounded product).
		unF("degrees", "degrees(a)", f32Small, fIvl(func(x []float64) ivl { return mulI(pt(x[0]), correct(180/math.Pi)) })),
		unF("radians", "radians(a)", append(f32Small, 180, -90, 360, 1e30), fIvl(func(x []float64) ivl { return mulI(pt(x[0]), correct(math.Pi/180)) })),
	)
}

// floatArithmeticProbes: the arithmetic operators and comparisons, min,
// max, clamp, step, fma, mix, smoothstep and pow.
func floatArithmeticProbes() []*probe {
	ff := cross(bitsOf([]float32{0, negZero, 1, -1, 0.5, -2.5, 3, 1e10, -1e-8, minNormal, 1e30, 7.25, -0.1}), bitsOf([]float32{0, negZero, 1, -1, 0.5, -2.5, 3, 1e10, -1e-8, minNormal, 1e30, 7.25, -0.1}))

	return probes(
		// + - * correctly rounded; / 2.5 ULP; % inherited from
		// x - y * trunc(x / y).
		cw{name: "f32 +", expr: "a + b", args: []string{"f32", "f32"}, res: "f32", cases: ff, mixed: []int{0, 1}, abstract: true,
			ref: fExact(func(x []float64) float64 { return x[0] + x[1] })},
		cw{name: "f32 -", expr: "a - b", args: []string{"f32", "f32"}, res: "f32", cases: ff, mixed: []int{0, 1}, abstract: true,
			ref: fExact(func(x []float64) float64 { return x[0] - x[1] })},
		cw{name: "f32 *", expr: "a * b", args: []string{"f32", "f32"}, res: "f32", cases: ff, mixed: []int{0, 1}, abstract: true,
			ref: fExact(func(x []float64) float64 { return x[0] * x[1] })},
		cw{name: "f32 /", expr: "a / b", args: []string{"f32", "f32"}, res: "f32", cases: ff, mixed: []int{0, 1}, abstract: true,
			ref: fIvl(func(x []float64) ivl { return divI(pt(x[0]), pt(x[1])) })},
		cw{name: "f32 %", expr: "a % b", args: []string{"f32", "f32"}, res: "f32", cases: ff, mixed: []int{0, 1}, abstract: true,
			ref: fIvl(func(x []float64) ivl {
				q := divI(pt(x[0]), pt(x[1]))
				if q.bad() || math.IsInf(q.lo, 0) {
					return everything
				}
				return subI(pt(x[0]), mulI(pt(x[1]), ivl{math.Trunc(q.lo), math.Trunc(q.hi)}))
			})},
		// -0.0 == 0.0. naga v22's constant evaluator compares f32 bits; the
		// front-end evaluates scalar constant comparisons itself, but not
		// vector ones, which stay out of the constant runs here.
		cw{name: "f32 comparisons", expr: cmpExpr, args: []string{"f32", "f32"}, res: "u32", cases: ff, abstract: true,
			ref:     func(x []uint32) accept { return exactU(cmpBits(f32of(x[0]), f32of(x[1]))) },
			constOK: func(x []uint32) bool { return x[0] == x[1] || f32of(x[0]) != f32of(x[1]) }},
		// min and max: exact, either zero for ±0; clamp: min(max(e, low),
		// high) or the median of the three (WGSL allows both for low > high).
		cw{name: "min f32", expr: "min(a, b)", args: []string{"f32", "f32"}, res: "f32", cases: ff, abstract: true,
			ref: fExact(func(x []float64) float64 { return math.Min(x[0], x[1]) })},
		cw{name: "max f32", expr: "max(a, b)", args: []string{"f32", "f32"}, res: "f32", cases: ff, abstract: true,
			ref: fExact(func(x []float64) float64 { return math.Max(x[0], x[1]) })},
		cw{name: "clamp f32", expr: "clamp(a, b, c)", args: []string{"f32", "f32", "f32"}, res: "f32", abstract: true,
			cases: cross(bitsOf([]float32{0, negZero, 1, -1, 0.5, 7, -1e30}), bitsOf([]float32{0, -1, 0.5, 2}), bitsOf([]float32{1, 0, -2, 0.25})),
			ref: func(x []uint32) accept {
				e, lo, hi := f32of(x[0]), f32of(x[1]), f32of(x[2])
				med := math.Max(math.Min(e, math.Max(lo, hi)), math.Min(lo, hi))
				return union(fx(math.Min(math.Max(e, lo), hi)), fx(med))
			}},
		// step(edge, x): 1.0 where edge <= x, exact.
		cw{name: "step", expr: "step(a, b)", args: []string{"f32", "f32"}, res: "f32", cases: ff, abstract: true,
			ref: fExact(func(x []float64) float64 {
				if x[0] <= x[1] {
					return 1
				}
				return 0
			})},
		// fma inherited from a * b + c: the fused or the unfused result.
		cw{name: "fma", expr: "fma(a, b, c)", args: []string{"f32", "f32", "f32"}, res: "f32", abstract: true,
			cases: cross(bitsOf([]float32{0, 1, -1, 1 + 0x1p-23, 3, 0.1, -1e10}), bitsOf([]float32{1, -1, 1 - 0x1p-23, 0.5, 1e10}), bitsOf([]float32{0, -1, 1, 0.1, -1e20})),
			ref:   fIvl(func(x []float64) ivl { return addI(mulI(pt(x[0]), pt(x[1])), pt(x[2])) })},
		// mix inherited from e1 * (1 - e3) + e2 * e3 (or e1 + (e2 - e1) * e3).
		cw{name: "mix", expr: "mix(a, b, c)", args: []string{"f32", "f32", "f32"}, res: "f32", mixed: []int{2}, abstract: true,
			cases: cross(bitsOf([]float32{0, 1, -1, 10, 1e10, -0.5}), bitsOf([]float32{0, 2, -3, 1e-3, 1e10}), bitsOf([]float32{0, 1, 0.5, 0.25, -1, 2})),
			ref: fIvl(func(x []float64) ivl {
				a, b, t := pt(x[0]), pt(x[1]), pt(x[2])
				return addI(mulI(a, subI(pt(1), t)), mulI(b, t)).union(addI(a, mulI(subI(b, a), t)))
			})},
		// smoothstep inherited from t * t * (3 - 2 * t), t = clamp((x -
		// low) / (high - low), 0, 1).
		cw{name: "smoothstep", expr: "smoothstep(a, b, c)", args: []string{"f32", "f32", "f32"}, res: "f32", abstract: true,
			cases: cross(bitsOf([]float32{0, -1, 2}), bitsOf([]float32{1, 3, 10}), bitsOf([]float32{0, 0.5, 1, -1, 2.5, 5, 11})),
			ref: fIvl(func(x []float64) ivl {
				lo, hi, v := pt(x[0]), pt(x[1]), pt(x[2])
				t := divI(subI(v, lo), subI(hi, lo))
				t = ivl{math.Min(math.Max(t.lo, 0), 1), math.Min(math.Max(t.hi, 0), 1)}
				return mulI(mulI(t, t), subI(pt(3), mulI(pt(2), t)))
			})},
		// pow inherited from exp2(y * log2(x)).
		cw{name: "pow", expr: "pow(a, b)", args: []string{"f32", "f32"}, res: "f32", abstract: true,
			cases: cross(bitsOf([]float32{1, 2, 0.5, 10, 3.5, 1e-5}), bitsOf([]float32{0, 1, -1, 2, 0.5, 10, -3})),
			ref:   fIvl(func(x []float64) ivl { return expI(math.Exp2, mulI(pt(x[1]), logI(math.Log2, pt(x[0])))) })},
	)
}

// floatRepresentationProbes: ldexp, frexp, modf and quantizeToF16, which
// take a float's exponent and mantissa apart or round it to f16.
func floatRepresentationProbes() []*probe {
	return probes(
		// ldexp: e1 * 2^e2, exact; zero allowed where e2 + 127 <= 0;
		// indeterminate where e2 > 128.
		cw{name: "ldexp", expr: "ldexp(a, b)", args: []string{"f32", "i32"}, res: "f32", abstract: true,
			cases: cross(bitsOf([]float32{0, 1, -1, 0.5, 1.5, 0x1p127, minNormal, 3}), iBits([]int32{0, 1, -1, 10, 127, 128, -126, -127, -149, -150, 200, -200})),
			ref: func(x []uint32) accept {
				e1, e2 := f32of(x[0]), int32(x[1])
				if e2 > 128 {
					return anyValue()
				}
				r := fx(math.Ldexp(e1, int(e2)))
				if e2+127 <= 0 {
					r = union(r, fx(0))
				}
				return r
			},
			constOK: func(x []uint32) bool {
				v := math.Ldexp(f32of(x[0]), int(int32(x[1])))
				return math.Abs(v) <= math.MaxFloat32 && (v == 0 || math.Abs(v) >= minNormal)
			}},
		// frexp and modf: correctly rounded; their struct results.
		unF("frexp fract", "frexp(a).fract", f32Edge, fExact(func(x []float64) float64 { f, _ := math.Frexp(x[0]); return f })),
		cw{name: "frexp exp", expr: "frexp(a).exp", args: []string{"f32"}, res: "i32", cases: unaryF(f32Edge), abstract: true,
			ref: func(x []uint32) accept { _, e := math.Frexp(f32of(x[0])); return exactI(int32(e)) }},
		unF("modf fract", "modf(a).fract", f32Edge, fExact(func(x []float64) float64 { return x[0] - math.Trunc(x[0]) })),
		unF("modf whole", "modf(a).whole", f32Edge, fExact(func(x []float64) float64 { return math.Trunc(x[0]) })),
		unF("quantizeToF16", "quantizeToF16(a)", []float32{0, 1, -1, 1.0 / 3, 0.1, 65504, -65504, 1e-5, 1 + 0x1p-11, 1 + 3*0x1p-11},
			fIvl(func(x []float64) ivl { return f16Neighbours(x[0]) })),
	)
}

// union is the smallest interval holding a and b.
func (a ivl) union(b ivl) ivl { return ivl{math.Min(a.lo, b.lo), math.Max(a.hi, b.hi)} }

// f16Neighbours are the binary16 values next to x (WGSL's conversion to a
// narrower float: either neighbour); below 2^-14 a subnormal or zero.
func f16Neighbours(x float64) ivl {
	a := math.Abs(x)
	if a == 0 {
		return pt(0)
	}
	e := math.Max(math.Floor(math.Log2(a)), -14)
	u := math.Ldexp(1, int(e)-10)
	lo, hi := math.Floor(x/u)*u, math.Ceil(x/u)*u
	r := ivl{lo, hi}
	if a < 0x1p-14 {
		r = r.union(pt(0))
	}
	return r
}

// TestFloatBuiltinsFollowWGSL: WGSL's f32 builtins and operators, within
// the accuracy WGSL's table grants each, at every width, as constant
// expressions and with abstract arguments.
func TestFloatBuiltinsFollowWGSL(t *testing.T) { runProbes(t, floatProbes()) }

// TestLdexpOfARunTimeValueByAConstantExponentFollowsWGSL: ldexp of a value
// known only at run time by an exponent written as a constant (a literal,
// a typed literal, a const, a vector of them), which the probes above do
// not mix (their arguments are all run-time or all constant). WGSL defines
// e × 2^128 (2^127 for 0.5); lavapipe folded the two constant factors the
// ldexp helper splits 2^128 into (2^64 each) into one, 2^128 in f32, +Inf,
// and returned +Inf. The exponent the helper's split depends on is now the
// sign of the value too, so no factor is a constant where the value is not.
func TestLdexpOfARunTimeValueByAConstantExponentFollowsWGSL(t *testing.T) {
	d, s := openStream(t)
	const src = `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> v: array<f32>;
const E: i32 = 128;
@compute @workgroup_size(1)
fn main() {
	let z = v[0]; // 0, at run time
	let m = v[1]; // the least normal f32, at run time
	out[0] = bitcast<u32>(ldexp(z + 0.5, 128));
	out[1] = bitcast<u32>(ldexp(z + 0.5, 128i));
	out[2] = bitcast<u32>(ldexp(z + 0.5, E));
	out[3] = bitcast<u32>(ldexp(vec2(z + 0.5, z - 0.75), vec2(128)).x);
	out[4] = bitcast<u32>(ldexp(vec2(z + 0.5, z - 0.75), vec2(128)).y);
	out[5] = bitcast<u32>(ldexp(z - 0.5, 128));
	out[6] = bitcast<u32>(ldexp(z + 0.25, 128));
	out[7] = bitcast<u32>(ldexp(z + 1.0, 127));
	out[8] = bitcast<u32>(ldexp(m, 128));
	out[9] = bitcast<u32>(ldexp(z + 1.5, 128));
	out[10] = bitcast<u32>(ldexp(z + 3.0, -130));
	out[11] = bitcast<u32>(ldexp(z + 0x1p127, -254));
}
`
	k, err := d.Kernel(src, "main")
	if err != nil {
		t.Fatal(err)
	}
	out := empty(t, s, 12)
	launch(t, s, k, recorder.Groups(1, 1, 1), out, upload(t, s, []float32{0, minNormal}))
	got := readU32(t, s, out)
	cases := []struct {
		what string
		e    float64
		x    int
	}{
		{"ldexp(0.5, 128)", 0.5, 128}, {"ldexp(0.5, 128i)", 0.5, 128}, {"ldexp(0.5, E), const E = 128", 0.5, 128},
		{"ldexp(vec2(0.5, -0.75), vec2(128)).x", 0.5, 128}, {"ldexp(vec2(0.5, -0.75), vec2(128)).y", -0.75, 128},
		{"ldexp(-0.5, 128)", -0.5, 128}, {"ldexp(0.25, 128)", 0.25, 128}, {"ldexp(1, 127)", 1, 127},
		{"ldexp(least normal, 128)", minNormal, 128}, {"ldexp(1.5, 128) overflows", 1.5, 128},
		{"ldexp(3, -130)", 3, -130}, {"ldexp(2^127, -254)", 0x1p127, -254},
	}
	for i, c := range cases {
		want := math.Float32bits(float32(math.Ldexp(c.e, c.x)))
		if got[i] != want && !(c.x+127 <= 0 && got[i]&0x7fffffff == 0) {
			t.Errorf("%s (a run-time value) = %#08x (%g); want %#08x (%g)", c.what, got[i], math.Float32frombits(got[i]), want, math.Float32frombits(want))
		}
	}
}

// TestFloatBuiltinsFollowWGSLOnEveryInput: every case of every probe (a long sweep).
func TestFloatBuiltinsFollowWGSLOnEveryInput(t *testing.T) { runAllProbes(t, floatProbes()) }

// ---- conversions and bitcasts ----

func conversionProbes() []*probe {
	fEdge := unaryF(append(f32Edge, 2147483648, -2147483904, 4294967296, 0.99999994, -0.99999994, 1e-45))
	return probes(
		// No abstract runs here: naga v22 refuses a conversion of an abstract
		// vector at run time (vec2<i32>(vec2(0.5, 1.5)), vec2<bool>(vec2(0,
		// 1)): "Abstract types may only appear in constant expressions").
		// f32 to i32/u32: truncate, then saturate to the type's range
		// (WGSL § "Conversion to integer": values past it clamp).
		cw{name: "i32(f32) saturates", expr: "$R(a)", args: []string{"f32"}, res: "i32", cases: fEdge,
			ref: func(x []uint32) accept {
				return exactI(int32(math.Max(math.Min(math.Trunc(f32of(x[0])), math.MaxInt32), math.MinInt32)))
			},
			constOK: func(x []uint32) bool { v := math.Trunc(f32of(x[0])); return v >= math.MinInt32 && v <= math.MaxInt32 }},
		cw{name: "u32(f32) saturates", expr: "$R(a)", args: []string{"f32"}, res: "u32", cases: fEdge,
			ref: func(x []uint32) accept {
				return exactU(uint32(math.Max(math.Min(math.Trunc(f32of(x[0])), math.MaxUint32), 0)))
			},
			constOK: func(x []uint32) bool { v := math.Trunc(f32of(x[0])); return v >= 0 && v <= math.MaxUint32 }},
		// i32/u32 to f32: exact, or either neighbour when f32 cannot hold it.
		cw{name: "f32(i32)", expr: "$R(a)", args: []string{"i32"}, res: "f32", cases: unaryI(append(i32Edge, 16777217, -16777217, 0x7FFFFFC0)), abstract: true,
			ref: func(x []uint32) accept { return fx(float64(int32(x[0]))) }},
		cw{name: "f32(u32)", expr: "$R(a)", args: []string{"u32"}, res: "f32", cases: unaryU(append(u32Edge, 16777217, 0xFFFFFF80, 0xFFFFFF7F)),
			ref: func(x []uint32) accept { return fx(float64(x[0])) }},
		cw{name: "i32(u32) and u32(i32) keep the bits", expr: "$U($I(a) + $I(0i))", args: []string{"u32"}, res: "u32", cases: unaryU(u32Edge),
			ref: func(x []uint32) accept { return exactU(x[0]) }},
		cw{name: "bool(f32)", expr: "$R(a)", args: []string{"f32"}, res: "bool", cases: unaryF(f32Edge),
			ref: func(x []uint32) accept {
				if x[0]&0x7f800000 == 0 && x[0]&0x7fffff != 0 {
					return oneOfU(0, 1) // a subnormal may flush to zero
				}
				return exactB(f32of(x[0]) != 0)
			}},
		cw{name: "bool(i32)", expr: "$R(a)", args: []string{"i32"}, res: "bool", cases: unaryI(i32Edge),
			ref: func(x []uint32) accept { return exactB(x[0] != 0) }},
		cw{name: "bool(u32)", expr: "$R(a)", args: []string{"u32"}, res: "bool", cases: unaryU(u32Edge),
			ref: func(x []uint32) accept { return exactB(x[0] != 0) }},
		cw{name: "f32, i32, u32 of bool", expr: "$F(a) * 4.0 + $F($I(a)) * 2.0 + $F($U(a))", args: []string{"bool"}, res: "f32", cases: unaryU([]uint32{0, 1}),
			ref: func(x []uint32) accept { return fx(7 * float64(x[0])) }},
		// bitcast keeps every bit, a subnormal's included (no float operation
		// touches it); NaN payloads stay out (indeterminate).
		cw{name: "bitcast<f32>(u32) and back", expr: "bitcast<$U>(bitcast<$F>(a))", args: []string{"u32"}, res: "u32", noFlush: true,
			cases: unaryU([]uint32{0, 0x80000000, 1, 0x807fffff, 0x3f800000, 0x7f800000, 0xff800000, 0x7f7fffff, 0x00800000, 0x12345678}),
			ref:   func(x []uint32) accept { return exactU(x[0]) }},
		cw{name: "bitcast<i32>(f32)", expr: "bitcast<$I>(a)", args: []string{"f32"}, res: "i32", noFlush: true,
			cases: unaryF([]float32{0, negZero, 1, -1, 0.1, math.MaxFloat32, minNormal, math.Float32frombits(1), math.Float32frombits(0x807fffff)}),
			ref:   func(x []uint32) accept { return exactU(x[0]) }},
		cw{name: "bitcast<f32>(i32)", expr: "bitcast<$F>(a)", args: []string{"i32"}, res: "f32", noFlush: true,
			cases: unaryI([]int32{0, 1, -1 << 31, 0x3f800000, -0x40800000, 0x7f7fffff, 0x00400000}),
			ref:   func(x []uint32) accept { return exactU(x[0]) }},
	)
}

// TestConversionsFollowWGSL: value conversions between f32, i32, u32 and
// bool (saturating float-to-integer) and bitcasts, at every width.
func TestConversionsFollowWGSL(t *testing.T) { runProbes(t, conversionProbes()) }

// TestConversionsFollowWGSLOnEveryInput: every case of every probe (a long sweep).
func TestConversionsFollowWGSLOnEveryInput(t *testing.T) { runAllProbes(t, conversionProbes()) }

// ---- vector, matrix and packing builtins ----

// vp is a builtin over whole vectors or matrices (matrices are built in
// the expression from column arguments): its operand and result types,
// cases given as the operands' components, and the reference.
type vp struct {
	name     string
	expr     string
	ops      []tyw
	res      tyw
	cases    [][][]float64 // per case, per operand, components (f32 values, or integers)
	want     func(x [][]float64) []accept
	abstract bool
}

func (v vp) probe() *probe {
	p := &probe{name: v.name, expr: v.expr, abstract: v.abstract}
	var s slot
	for _, o := range v.ops {
		s.ops = append(s.ops, operand{o, lanes(o.n)})
	}
	s.res = v.res
	p.slots = []slot{s}
	for _, c := range v.cases {
		var cs [][4]uint32
		for k, o := range v.ops {
			var l [4]uint32
			for j, x := range c[k] {
				switch o.ops() {
				case "f32":
					l[j] = bitsF(float32(x))
				case "i32":
					l[j] = uint32(int32(x))
				default:
					l[j] = uint32(x)
				}
			}
			cs = append(cs, l)
		}
		p.cases = append(p.cases, cs)
	}
	p.want = func(args [][]uint32, _ tyw) []accept {
		x := make([][]float64, len(args))
		for k, a := range args {
			for _, b := range a {
				switch v.ops[k].elem {
				case "f32":
					x[k] = append(x[k], f32of(b))
				case "i32":
					x[k] = append(x[k], float64(int32(b)))
				default:
					x[k] = append(x[k], float64(b))
				}
			}
		}
		return v.want(x)
	}
	return p
}

func (t tyw) ops() string { return t.elem }

func vecs(n int, vs ...[]float64) [][]float64 {
	var r [][]float64
	for _, v := range vs {
		r = append(r, v[:n])
	}
	return r
}

// dotI is the interval of a dot product, each product and sum rounded
// (WGSL: dot inherited from the sum of products).
func dotI(a, b []float64) ivl {
	r := pt(0)
	for i := range a {
		p := mulI(pt(a[i]), pt(b[i]))
		if i == 0 {
			r = p
		} else {
			r = addI(r, p)
		}
	}
	return r
}

func ivls(v ...ivl) []accept {
	r := make([]accept, len(v))
	for i, x := range v {
		r[i] = x.accept()
	}
	return r
}

func vectorProbes() []*probe {
	f := tyw{"f32", 1}
	fv := func(n int) tyw { return tyw{"f32", n} }
	vals := [][]float64{{1, 2, 3, 4}, {-0.5, 0.25, 8, -2}, {3, 4, 0, 0}, {1e-3, -1e3, 0.1, 7}, {0, 0, 0, 1}, {1e19, 1e19, 0, 0}}
	var ps []*probe
	for n := 2; n <= 4; n++ {
		var pairs, singles [][][]float64
		for i, a := range vals {
			singles = append(singles, vecs(n, a))
			for _, b := range vals[i:] {
				pairs = append(pairs, vecs(n, a, b))
			}
		}
		N := strconv.Itoa(n)
		ps = append(ps,
			vp{name: "dot vec" + N + "<f32>", expr: "dot(a, b)", ops: []tyw{fv(n), fv(n)}, res: f, cases: pairs, abstract: true,
				want: func(x [][]float64) []accept { return ivls(dotI(x[0], x[1])) }}.probe(),
			// length inherited from sqrt(dot(e, e)); distance from
			// length(a - b); normalize from e / length(e).
			vp{name: "length vec" + N, expr: "length(a)", ops: []tyw{fv(n)}, res: f, cases: singles, abstract: true,
				want: func(x [][]float64) []accept { return ivls(sqrtI(dotI(x[0], x[0]))) }}.probe(),
			vp{name: "distance vec" + N, expr: "distance(a, b)", ops: []tyw{fv(n), fv(n)}, res: f, cases: pairs, abstract: true,
				want: func(x [][]float64) []accept {
					d := make([]ivl, n)
					lo, hi := make([]float64, n), make([]float64, n)
					for i := range d {
						d[i] = subI(pt(x[0][i]), pt(x[1][i]))
						lo[i], hi[i] = d[i].lo, d[i].hi
					}
					return ivls(sqrtI(dotI(lo, lo)).union(sqrtI(dotI(hi, hi))).widen(4))
				}}.probe(),
			vp{name: "normalize vec" + N, expr: "normalize(a)", ops: []tyw{fv(n)}, res: fv(n), cases: singles[:4], abstract: true,
				want: func(x [][]float64) []accept {
					l := sqrtI(dotI(x[0], x[0]))
					r := make([]ivl, n)
					for i := range r {
						r[i] = divI(pt(x[0][i]), l)
					}
					return ivls(r...)
				}}.probe(),
			vp{name: "dot vec" + N + "<i32> wraps", expr: "dot(a, b)", ops: []tyw{{"i32", n}, {"i32", n}}, res: tyw{"i32", 1},
				cases: [][][]float64{vecs(n, []float64{1, 2, 3, 4}, []float64{5, -6, 7, -8}), vecs(n, []float64{math.MaxInt32, 2, -1, math.MinInt32}, []float64{2, math.MaxInt32, math.MinInt32, -1})},
				want: func(x [][]float64) []accept {
					s := int32(0)
					for i := range x[0] {
						s += int32(x[0][i]) * int32(x[1][i])
					}
					return []accept{exactI(s)}
				}}.probe(),
			vp{name: "dot vec" + N + "<u32> wraps", expr: "dot(a, b)", ops: []tyw{{"u32", n}, {"u32", n}}, res: tyw{"u32", 1},
				cases: [][][]float64{vecs(n, []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}), vecs(n, []float64{math.MaxUint32, 2, 0x80000000, 3}, []float64{2, math.MaxUint32, 2, 0x55555555})},
				want: func(x [][]float64) []accept {
					s := uint32(0)
					for i := range x[0] {
						s += uint32(x[0][i]) * uint32(x[1][i])
					}
					return []accept{exactU(s)}
				}}.probe(),
			vp{name: "all and any vec" + N, expr: "select(0u, 1u, all(a)) + select(0u, 2u, any(a))", ops: []tyw{{"bool", n}}, res: tyw{"u32", 1},
				cases: [][][]float64{{{0, 0, 0, 0}}, {{1, 1, 1, 1}}, {{1, 0, 1, 1}}, {{0, 0, 0, 1}}, {{0, 1, 0, 0}}, {{1, 1, 1, 0}}},
				want: func(x [][]float64) []accept {
					all, any := true, false
					for _, b := range x[0] {
						all, any = all && b != 0, any || b != 0
					}
					return []accept{exactU(uint32(b2u(all) + 2*b2u(any)))}
				}}.probe(),
		)
	}
	v3 := fv(3)
	triples := [][][]float64{{{1, 0, 0}, {0, 1, 0}}, {{1, 2, 3}, {4, 5, 6}}, {{-0.5, 8, 1e3}, {3, -2, 0.25}}, {{0, 0, 1}, {0, 0, -1}}}
	ps = append(ps,
		// cross inherited from its products and differences.
		vp{name: "cross", expr: "cross(a, b)", ops: []tyw{v3, v3}, res: v3, cases: triples, abstract: true,
			want: func(x [][]float64) []accept {
				a, b := x[0], x[1]
				c := func(i, j int) ivl { return subI(mulI(pt(a[i]), pt(b[j])), mulI(pt(a[j]), pt(b[i]))) }
				return ivls(c(1, 2), c(2, 0), c(0, 1))
			}}.probe(),
		// reflect inherited from e1 - 2 * dot(e2, e1) * e2.
		vp{name: "reflect", expr: "reflect(a, b)", ops: []tyw{v3, v3}, res: v3, cases: triples, abstract: true,
			want: func(x [][]float64) []accept {
				d := mulI(pt(2), dotI(x[1], x[0]))
				r := make([]ivl, 3)
				for i := range r {
					r[i] = subI(pt(x[0][i]), mulI(d, pt(x[1][i])))
				}
				return ivls(r...)
			}}.probe(),
		// faceForward: e1 where dot(e2, e3) < 0, else -e1.
		vp{name: "faceForward", expr: "faceForward(a, b, c)", ops: []tyw{v3, v3, v3}, res: v3, abstract: true,
			cases: [][][]float64{{{1, 2, 3}, {0, 0, 1}, {0, 0, -1}}, {{1, 2, 3}, {0, 0, 1}, {0, 0, 1}}, {{-1, 0.5, 0}, {1, 1, 0}, {-2, 1, 0}}},
			want: func(x [][]float64) []accept {
				s := -1.0
				if dotI(x[1], x[2]).hi < 0 {
					s = 1
				}
				return ivls(pt(s*x[0][0]), pt(s*x[0][1]), pt(s*x[0][2]))
			}}.probe(),
		// refract: k = 1 - eta² (1 - dot(n, i)²); 0 where k < 0, else
		// eta i - (eta dot(n, i) + sqrt(k)) n, inherited.
		vp{name: "refract", expr: "refract(a, b, c)", ops: []tyw{v3, v3, f}, res: v3, abstract: true,
			cases: [][][]float64{{{0.6, -0.8, 0}, {0, 1, 0}, {0.5}}, {{0.6, -0.8, 0}, {0, 1, 0}, {1}}, {{0.8, -0.6, 0}, {0, 1, 0}, {1.5}}, {{0, -1, 0}, {0, 1, 0}, {0.75}}},
			want: func(x [][]float64) []accept {
				i, n, eta := x[0], x[1], x[2][0]
				d := 0.0
				for j := range i {
					d += i[j] * n[j]
				}
				k := 1 - eta*eta*(1-d*d)
				r := make([]ivl, 3)
				for j := range r {
					if k < 0 {
						r[j] = pt(0)
					} else {
						r[j] = pt(eta*i[j] - (eta*d+math.Sqrt(k))*n[j]).widen(16)
					}
				}
				return ivls(r...)
			}}.probe(),
	)
	return ps
}

func b2u(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestVectorBuiltinsFollowWGSL: dot, length, distance, normalize, cross,
// reflect, refract, faceForward, all and any, at every width they take.
func TestVectorBuiltinsFollowWGSL(t *testing.T) { runProbes(t, vectorProbes()) }

// TestVectorBuiltinsFollowWGSLOnEveryInput: every case of every probe (a long sweep).
func TestVectorBuiltinsFollowWGSLOnEveryInput(t *testing.T) { runAllProbes(t, vectorProbes()) }

// ---- packing and matrices ----

func packProbes() []*probe {
	f4, f2, u := tyw{"f32", 4}, tyw{"f32", 2}, tyw{"u32", 1}
	// 0.3 and 0.7: 255 × the f32 nearest is a half in f32 (76.5, 178.5),
	// which WGSL rounds up and the drivers' unorm packs rounded to even.
	comps := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2, -2, 0.25, 1.0 / 255, 0.1, 1e-3, -1e-3, 0.996, 0.00196, 0.3, 0.7}
	var c4, c2 [][][]float64
	for i := range comps {
		var v []float64
		for j := 0; j < 4; j++ {
			v = append(v, comps[(i+j*3)%len(comps)])
		}
		c4 = append(c4, [][]float64{v})
		c2 = append(c2, [][]float64{v[:2]})
	}
	// pack: ⌊0.5 + scale × clamp(e, lo, 1)⌋ per component; the product is
	// an f32 one, so both its correctly rounded neighbours count.
	pack := func(bits int, signed bool) func(x [][]float64) []accept {
		scale := float64(int(1)<<bits - 1)
		lo := 0.0
		if signed {
			scale, lo = float64(int(1)<<(bits-1)-1), -1
		}
		return func(x [][]float64) []accept {
			opts := []uint32{0}
			for i, e := range x[0] {
				v := correct(scale * math.Min(math.Max(e, lo), 1))
				var next []uint32
				for _, r := range []float64{math.Floor(v.lo + 0.5), math.Floor(v.hi + 0.5)} {
					for _, o := range opts {
						next = append(next, o|(uint32(int32(r))&(1<<bits-1))<<(i*bits))
					}
				}
				opts = next
			}
			return []accept{oneOfU(opts...)}
		}
	}
	words := []float64{0, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x01FF8100, 0x80007FFF, 0x3C00BC00, 0x7BFF0001, 0x12345678, 0x00FF00FF, 0x03FF8400}
	var wc [][][]float64
	for _, w := range words {
		wc = append(wc, [][]float64{{w}})
	}
	// unpack: each field divided by the scale (correctly rounded), the
	// snorm ones clamped at -1; unpack2x16float exact, a binary16
	// subnormal possibly flushed.
	unpack := func(bits int, signed bool) func(x [][]float64) []accept {
		return func(x [][]float64) []accept {
			w := uint32(x[0][0])
			var r []accept
			for i := 0; i < 32/bits; i++ {
				f := w >> (i * bits) & (1<<bits - 1)
				// WGSL's accuracy for the unpack builtins is inherited from
				// v ÷ (2^bits - 1) (or 2^(bits-1) - 1), the division's 2.5
				// ULP (the CTS checks divisionInterval too): the H200's
				// Vulkan computed 127 ÷ 255 one ULP above the nearest f32.
				if signed {
					v := float64(int32(f<<(32-bits)) >> (32 - bits))
					d := float64(int(1)<<(bits-1) - 1)
					if v/d <= -1 {
						r = append(r, fx(-1))
					} else {
						r = append(r, divI(pt(v), pt(d)).accept())
					}
				} else {
					r = append(r, divI(pt(float64(f)), pt(float64(int(1)<<bits-1))).accept())
				}
			}
			return r
		}
	}
	half := func(h uint32) accept {
		e, m := int(h>>10&31), float64(h&1023)
		s := 1.0
		if h&0x8000 != 0 {
			s = -1
		}
		switch e {
		case 31:
			return anyValue()
		case 0:
			return union(fx(s*m*0x1p-24), fx(0))
		}
		return fx(s * (1 + m/1024) * math.Ldexp(1, e-15))
	}
	return []*probe{
		vp{name: "pack4x8snorm", expr: "pack4x8snorm(a)", ops: []tyw{f4}, res: u, cases: c4, want: pack(8, true)}.probe(),
		vp{name: "pack4x8unorm", expr: "pack4x8unorm(a)", ops: []tyw{f4}, res: u, cases: c4, want: pack(8, false)}.probe(),
		vp{name: "pack2x16snorm", expr: "pack2x16snorm(a)", ops: []tyw{f2}, res: u, cases: c2, want: pack(16, true)}.probe(),
		vp{name: "pack2x16unorm", expr: "pack2x16unorm(a)", ops: []tyw{f2}, res: u, cases: c2, want: pack(16, false)}.probe(),
		// pack2x16float: each component to binary16, either neighbour (WGSL
		// § "Floating Point Conversion"); checked through unpacking it again.
		vp{name: "pack2x16float", expr: "pack2x16float(a)", ops: []tyw{f2}, res: u, cases: append(c2, [][]float64{{65504, -1 - 0x1p-10}}, [][]float64{{1 + 0x1p-11, 1 + 3*0x1p-11}}),
			want: func(x [][]float64) []accept {
				return []accept{{desc: fmt.Sprintf("binary16 neighbours of %v", x[0]), ok: func(b uint32) bool {
					for i, e := range x[0] {
						r := f16Neighbours(e)
						g := half(b >> (16 * i) & 0xFFFF)
						if g.free {
							return false
						}
						if !(union(r.accept(), fx(0))).ok(bitsF(float32(halfValue(b >> (16 * i) & 0xFFFF)))) {
							return false
						}
					}
					return true
				}}}
			}}.probe(),
		vp{name: "unpack4x8snorm", expr: "unpack4x8snorm(a)", ops: []tyw{u}, res: f4, cases: wc, want: unpack(8, true)}.probe(),
		vp{name: "unpack4x8unorm", expr: "unpack4x8unorm(a)", ops: []tyw{u}, res: f4, cases: wc, want: unpack(8, false)}.probe(),
		vp{name: "unpack2x16snorm", expr: "unpack2x16snorm(a)", ops: []tyw{u}, res: f2, cases: wc, want: unpack(16, true)}.probe(),
		vp{name: "unpack2x16unorm", expr: "unpack2x16unorm(a)", ops: []tyw{u}, res: f2, cases: wc, want: unpack(16, false)}.probe(),
		vp{name: "unpack2x16float", expr: "unpack2x16float(a)", ops: []tyw{u}, res: f2, cases: wc,
			want: func(x [][]float64) []accept { w := uint32(x[0][0]); return []accept{half(w & 0xFFFF), half(w >> 16)} }}.probe(),
	}
}

// halfValue is binary16 bits h as a number (NaN for NaN and infinity).
func halfValue(h uint32) float64 {
	e, m := int(h>>10&31), float64(h&1023)
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	switch e {
	case 31:
		return math.NaN()
	case 0:
		return s * m * 0x1p-24
	}
	return s * (1 + m/1024) * math.Ldexp(1, e-15)
}

// TestPackingBuiltinsFollowWGSL: every pack and unpack builtin of WGSL's
// 4x8 and 2x16 snorm, unorm and float forms.
func TestPackingBuiltinsFollowWGSL(t *testing.T) { runProbes(t, packProbes()) }

// TestPackingBuiltinsFollowWGSLOnEveryInput: every case of every probe (a long sweep).
func TestPackingBuiltinsFollowWGSLOnEveryInput(t *testing.T) { runAllProbes(t, packProbes()) }

func matrixProbes() []*probe {
	fv := func(n int) tyw { return tyw{"f32", n} }
	cols := [][]float64{{1, 2, 3, 4}, {-0.5, 0.25, 8, -2}, {3, 4, 0, 1}, {0.125, -1, 2, 0.5}, {2, 0, 1, -3}, {1, 1, 1, 1}, {-2, 5, 0.75, 6}, {0, 3, -1, 2}}
	// The entries are small dyadic numbers, so every product and sum is
	// exact in f32 and the matrix operations (inherited from their dot
	// products) must be exact too.
	exact := func(v ...float64) []accept {
		r := make([]accept, len(v))
		for i, x := range v {
			r[i] = fx(x)
		}
		return r
	}
	mk := func(c, r, first int) [][]float64 {
		var m [][]float64
		for i := 0; i < c; i++ {
			m = append(m, cols[(first+i)%len(cols)][:r])
		}
		return m
	}
	var ps []*probe
	for n := 2; n <= 4; n++ {
		N := strconv.Itoa(n)
		mat := "mat" + N + "x" + N + "<f32>(" + strings.Join(argNames[:n], ", ") + ")"
		var ops []tyw
		for i := 0; i < n; i++ {
			ops = append(ops, fv(n))
		}
		var cases, mv [][][]float64
		for k := 0; k < 4; k++ {
			cases = append(cases, mk(n, n, k))
			mv = append(mv, append(mk(n, n, k), cols[(k+5)%len(cols)][:n]))
		}
		vArg := argNames[n]
		ps = append(ps,
			vp{name: "determinant mat" + N, expr: "determinant(" + mat + ")", ops: ops, res: fv(1), cases: cases, abstract: true,
				want: func(x [][]float64) []accept { return exact(det(x)) }}.probe(),
			vp{name: "transpose mat" + N + " column 0", expr: "transpose(" + mat + ")[0]", ops: ops, res: fv(n), cases: cases, abstract: true,
				want: func(x [][]float64) []accept {
					r := make([]float64, n)
					for i := range r {
						r[i] = x[i][0]
					}
					return exact(r...)
				}}.probe(),
			vp{name: "mat" + N + " * vec" + N, expr: mat + " * " + vArg, ops: append(append([]tyw(nil), ops...), fv(n)), res: fv(n), cases: mv, abstract: true,
				want: func(x [][]float64) []accept {
					r := make([]float64, n)
					for row := range r {
						for c := 0; c < n; c++ {
							r[row] += x[c][row] * x[n][c]
						}
					}
					return exact(r...)
				}}.probe(),
			vp{name: "vec" + N + " * mat" + N, expr: vArg + " * " + mat, ops: append(append([]tyw(nil), ops...), fv(n)), res: fv(n), cases: mv, abstract: true,
				want: func(x [][]float64) []accept {
					r := make([]float64, n)
					for c := range r {
						for row := 0; row < n; row++ {
							r[c] += x[c][row] * x[n][row]
						}
					}
					return exact(r...)
				}}.probe(),
			vp{name: "mat" + N + " * mat" + N + " column 1, mat * scalar, mat + mat", expr: "(" + mat + " * " + mat + ")[1] + (" + mat + " * 2.0)[0] - (" + mat + " + " + mat + ")[1]",
				ops: ops, res: fv(n), cases: cases, abstract: true,
				want: func(x [][]float64) []accept {
					r := make([]float64, n)
					for row := range r {
						for k := 0; k < n; k++ {
							r[row] += x[k][row] * x[1][k]
						}
						r[row] += 2*x[0][row] - 2*x[1][row]
					}
					return exact(r...)
				}}.probe(),
		)
	}
	// A non-square product: mat2x3 * mat3x2 is a mat3x3 (3 columns of 3).
	ps = append(ps, vp{name: "mat2x3 * mat3x2 column 2", expr: "(mat2x3<f32>(a, b) * mat3x2<f32>(c, d, e))[2]",
		ops: []tyw{fv(3), fv(3), fv(2), fv(2), fv(2)}, res: fv(3), abstract: true,
		cases: [][][]float64{{cols[0][:3], cols[1][:3], cols[2][:2], cols[3][:2], cols[4][:2]}, {cols[5][:3], cols[6][:3], cols[7][:2], cols[0][:2], cols[1][:2]}},
		want: func(x [][]float64) []accept {
			r := make([]float64, 3)
			for row := range r {
				r[row] = x[0][row]*x[4][0] + x[1][row]*x[4][1]
			}
			return exact(r...)
		}}.probe())
	return ps
}

// det is the determinant of the matrix of columns m.
func det(m [][]float64) float64 {
	n := len(m)
	if n == 1 {
		return m[0][0]
	}
	s := 0.0
	for c := 0; c < n; c++ {
		var minor [][]float64
		for k := 0; k < n; k++ {
			if k != c {
				minor = append(minor, m[k][1:n])
			}
		}
		s += math.Pow(-1, float64(c)) * m[c][0] * det(minor)
	}
	return s
}

// TestMatrixBuiltinsFollowWGSL: determinant, transpose and the matrix
// products, of every square size and one non-square product.
func TestMatrixBuiltinsFollowWGSL(t *testing.T) { runProbes(t, matrixProbes()) }

// TestMatrixBuiltinsFollowWGSLOnEveryInput: every case of every probe (a long sweep).
func TestMatrixBuiltinsFollowWGSLOnEveryInput(t *testing.T) { runAllProbes(t, matrixProbes()) }
