package shaders_test

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestCorpusPointwiseKernelsFusedMatchUnfusedBitForBit: every kernel of
// the WGSL corpus (the shipped kernels, the raw-string modules of this
// package's tests and the real-world and public-sample modules under
// testdata/wgsl) that wgpu.AnalyzePointwise accepts, and whose buffers
// this test can fill (scalars, vectors, matrices, fixed arrays and structs
// of f32, u32 and i32), is captured as a chain of dispatches twice, with
// recorder.WithFusion(true) and without, on random data that includes
// negative zero, subnormals and values near the float range's end; both
// graphs replay from the same contents, and every buffer they bind must
// read back equal bit for bit. The chains: the kernel repeated on the same
// buffers; the kernel repeated with its buffers of one type rotated among
// its bindings (so each dispatch reads what the one before wrote); and
// pairs of different kernels of one workgroup size and index alternating
// on shared buffers. Results are compared as words, NaNs included (large
// inputs make infinities and NaNs): lavapipe and llvmpipe's GL give the
// same bits fused and unfused, so no NaN is exempted. The fused graph must
// have fewer dispatches, so a chain that silently stopped fusing fails
// instead of comparing a graph with itself. Without this, fusion was proven bit-exact on the shipped
// kernels only; the corpus brings real-world control flow (loops with
// continuing blocks, switches, early returns, struct stores, matrices,
// integer division, transcendentals) into the fused kernels.
//
// The default run takes a chain of 3 per kernel and each kernel paired
// with the next of its family it shares a buffer type with;
// SOFTGRAPH_LONG=1 runs chains of 8, every such pair, and three seeds.
func TestCorpusPointwiseKernelsFusedMatchUnfusedBitForBit(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	long := os.Getenv("SOFTGRAPH_LONG") == "1"
	if testing.Short() && !long {
		t.Skip("about a hundred captures and forty fused compilations (2-3 s on lavapipe): skipped under -short")
	}
	chainLen, seeds := 3, []uint64{1}
	if long {
		chainLen, seeds = 8, []uint64{1, 2, 3}
	}
	start := time.Now()
	kernels, skipped := runnableCorpusKernels(t, d)
	// The floor: every kernel the analysis accepts was runnable when this
	// test was written, 24 (the 7 shipped elementwise kernels and 17 of
	// the tests' and testdata's). Fewer means the runnable set collapsed
	// (a corpus file moved, the analysis got stricter, the filler lost a
	// type), not that fusion is right.
	const floor = 24
	if len(kernels) < floor {
		t.Errorf("%d corpus kernels runnable (skipped: %v), want at least %d", len(kernels), skipped, floor)
	}
	unfused := gputest.Stream(t, d)
	fused := gputest.Stream(t, d, recorder.WithFusion(true))
	ran := 0
	for _, seed := range seeds {
		for _, k := range kernels {
			for _, rotate := range []bool{false, true} {
				if rotate && !k.rotatable() {
					continue
				}
				name := fmt.Sprintf("%s/same", k.name)
				if rotate {
					name = fmt.Sprintf("%s/rotated", k.name)
				}
				t.Run(fmt.Sprintf("%s/seed%d", name, seed), func(t *testing.T) {
					c := newCorpusChain([]*corpusKernel{k}, chainLen, rotate, seed)
					compareFusedUnfused(t, unfused, fused, c)
				})
				ran++
			}
		}
		// Pairs: kernels of one family (workgroup size and index) in
		// alternation, sharing their buffers of predeclared array types.
		families := map[string][]*corpusKernel{}
		var order []string
		for _, k := range kernels {
			key := fmt.Sprintf("%d %s", k.pw.WorkgroupSize, k.pw.Index)
			if families[key] == nil {
				order = append(order, key)
			}
			families[key] = append(families[key], k)
		}
		for _, key := range order {
			fam := families[key]
			for i := range fam {
				paired := false
				for j := i + 1; j < len(fam); j++ {
					a, b := fam[i], fam[j]
					if !a.sharesWith(b) || (paired && !long) {
						continue
					}
					paired = true
					t.Run(fmt.Sprintf("%s+%s/seed%d", a.name, b.name, seed), func(t *testing.T) {
						c := newCorpusChain([]*corpusKernel{a, b}, 2*((chainLen+1)/2), false, seed)
						compareFusedUnfused(t, unfused, fused, c)
					})
					ran++
				}
			}
		}
	}
	var reasons []string
	total := 0
	for why, n := range skipped {
		reasons = append(reasons, fmt.Sprintf("%d %s", n, why))
		total += n
	}
	sort.Strings(reasons)
	t.Logf("%d pointwise corpus kernels ran fused and unfused in %d chains (%v); %d skipped: %s", len(kernels), ran, time.Since(start).Round(time.Millisecond), total, strings.Join(reasons, "; "))
}

// compareFusedUnfused captures c on both streams, replays each graph once
// from c's initial contents, and compares every buffer bit for bit.
func compareFusedUnfused(t *testing.T, unfused, fused *recorder.Stream, c *corpusChain) {
	t.Helper()
	results := make([][][]uint32, 2)
	dispatches := make([]int, 2)
	summaries := make([]string, 2)
	for i, s := range []*recorder.Stream{unfused, fused} {
		bufs := make([]*recorder.Buffer, len(c.init))
		for j, words := range c.init {
			b, err := recorder.UploadSlice(s, words)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Release()
			bufs[j] = b
		}
		g, err := s.Capture(func() error {
			for _, l := range c.launches {
				args := make([]recorder.Arg, len(l.args))
				for j, a := range l.args {
					if a.params != nil {
						args[j] = recorder.Params(a.params)
					} else {
						args[j] = bufs[a.buf]
					}
				}
				if err := s.Launch(l.k.k, recorder.Groups(l.k.groups, 1, 1), args...); err != nil {
					return fmt.Errorf("%s: %w", l.k.name, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("capture (fusion %v): %v", i == 1, err)
		}
		defer g.Release()
		dispatches[i], summaries[i] = g.Stats().Dispatches, g.String()
		// The capture's warmup ran the chain: the initial contents go
		// back before the replay compared.
		for j, words := range c.init {
			if err := recorder.WriteSlice(s, bufs[j], 0, words); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Replay(); err != nil {
			t.Fatalf("replay (fusion %v): %v", i == 1, err)
		}
		for _, b := range bufs {
			words, err := recorder.ReadSlice[uint32](s, b)
			if err != nil {
				t.Fatalf("read (fusion %v): %v", i == 1, err)
			}
			results[i] = append(results[i], words)
		}
	}
	// Float kernels a compiler may compute differently in a fused kernel
	// (comparisons, min and max, fma, division, hidden constants; chained
	// float operations on some devices) are left unfused: the graph must
	// say so, and still compute the unfused values.
	if dispatches[1] >= dispatches[0] && !strings.Contains(summaries[1], "in a fused kernel (docs/fusion.md)") {
		t.Errorf("the fused graph must have fewer dispatches than the %d recorded, has %d: %s", dispatches[0], dispatches[1], summaries[1])
	}
	if d := cmp.Diff(results[0], results[1]); d != "" {
		t.Errorf("every buffer after the fused graph's replay must equal the unfused graph's bit for bit (-unfused +fused, words):\n%s\nbuffers: %s\nfused: %s", d, c.describe(), summaries[1])
	}
}

// corpusKernel is a pointwise corpus kernel this test can run: its
// compiled kernel, analysis, and per binding the layout of its contents.
type corpusKernel struct {
	name   string // file#module:entry
	k      *wgpu.Kernel
	pw     *wgpu.Pointwise
	binds  []wgpu.Binding
	words  []corpusWords // per binding: one element's words (runtime arrays) or the whole value's
	array  []bool        // per binding: a runtime-sized array of words[i] elements
	groups uint32        // workgroups per dispatch
}

// invocations is how many invocations a dispatch runs: one element each.
func (k *corpusKernel) invocations() int { return int(k.groups * k.pw.WorkgroupSize) }

// rotatable: the kernel has a storage binding it writes and another of
// the same type, none of them read at other indices, so rotating its
// buffers of that type makes each dispatch read what the last one wrote.
func (k *corpusKernel) rotatable() bool { return len(k.rotation()) > 1 }

// rotation is the bindings whose buffers a rotated chain rotates: the
// storage bindings of the first type that a written binding has, when
// none of them is gathered.
func (k *corpusKernel) rotation() []int {
	for i, b := range k.binds {
		if b.Kind != wgpu.BindStorage || !k.array[i] {
			continue
		}
		var same []int
		for j, c := range k.binds {
			if c.Kind.IsBuffer() && c.Kind != wgpu.BindUniform && c.Type == b.Type && k.array[j] {
				if k.pw.Gathered[j] {
					same = nil
					break
				}
				same = append(same, j)
			}
		}
		if len(same) > 1 {
			return same
		}
	}
	return nil
}

// sharesWith: a and b share at least one buffer type a pair can bind to
// both (a runtime array of a predeclared element type), one of them
// writing it, and run over the same invocations.
func (k *corpusKernel) sharesWith(o *corpusKernel) bool {
	if k.invocations() != o.invocations() || k.groups != o.groups {
		return false
	}
	for i, b := range k.binds {
		for j, c := range o.binds {
			if sharedType(k, i) && sharedType(o, j) && b.Type == c.Type && (b.Kind == wgpu.BindStorage || c.Kind == wgpu.BindStorage) {
				return true
			}
		}
	}
	return false
}

// sharedType: binding i of k may be shared with another kernel: a storage
// runtime array of a predeclared element type, not read at other indices.
func sharedType(k *corpusKernel, i int) bool {
	b := k.binds[i]
	return b.Kind != wgpu.BindUniform && k.array[i] && !k.pw.Gathered[i] && predeclaredArray.MatchString(b.Type)
}

var predeclaredArray = regexp.MustCompile(`^array<(f32|i32|u32|vec[234]<(f32|i32|u32)>|vec[234][fiu])>$`)

// corpusChain is one chain of launches over buffers it describes.
type corpusChain struct {
	init     [][]uint32 // per buffer, its initial words
	names    []string   // per buffer, the bindings it first served
	launches []corpusLaunch
}

type corpusLaunch struct {
	k    *corpusKernel
	args []corpusArg
}

// corpusArg is a buffer of the chain (its index) or params bytes.
type corpusArg struct {
	buf    int
	params []byte
}

func (c *corpusChain) describe() string {
	var s []string
	for i, n := range c.names {
		s = append(s, fmt.Sprintf("%d=%s", i, n))
	}
	return strings.Join(s, ", ")
}

// newCorpusChain lays out a chain of n launches of ks in turn. Every
// binding gets a buffer of its own, except that a rotated chain rotates
// the kernel's same-typed storage buffers among those bindings each
// launch, and a pair shares buffers of a predeclared array type by type
// (the i-th binding of a type in each kernel binds that type's i-th
// buffer). Params are the same bytes in every launch of a kernel.
func newCorpusChain(ks []*corpusKernel, n int, rotate bool, seed uint64) *corpusChain {
	h := fnv.New64a()
	for _, k := range ks {
		h.Write([]byte(k.name))
	}
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	c := &corpusChain{}
	add := func(name string, words []uint32) int {
		c.init = append(c.init, words)
		c.names = append(c.names, name)
		return len(c.init) - 1
	}
	shared := map[string][]int{} // predeclared array type → buffers
	plan := make([][]corpusArg, len(ks))
	for ki, k := range ks {
		nth := map[string]int{}
		for i, b := range k.binds {
			fill := k.words[i].fill(rng, k.invocations(), b.Kind == wgpu.BindUniform)
			if k.array[i] {
				fill = nil
				for range k.invocations() {
					fill = append(fill, k.words[i].fill(rng, k.invocations(), false)...)
				}
			}
			switch {
			case b.Kind == wgpu.BindUniform:
				plan[ki] = append(plan[ki], corpusArg{buf: -1, params: wordsBytes(fill)})
			case len(ks) > 1 && sharedType(k, i):
				m := nth[b.Type]
				nth[b.Type]++
				if m == len(shared[b.Type]) {
					shared[b.Type] = append(shared[b.Type], add(b.Type, fill))
				}
				plan[ki] = append(plan[ki], corpusArg{buf: shared[b.Type][m]})
			default:
				plan[ki] = append(plan[ki], corpusArg{buf: add(k.name+"."+b.Name, fill)})
			}
		}
	}
	for i := range n {
		ki := i % len(ks)
		k := ks[ki]
		args := slices.Clone(plan[ki])
		if rotate {
			rot := k.rotation()
			for j, b := range rot {
				args[b] = plan[ki][rot[(j+i)%len(rot)]]
			}
		}
		c.launches = append(c.launches, corpusLaunch{k: k, args: args})
	}
	return c
}

func wordsBytes(words []uint32) []byte {
	b := make([]byte, 0, 4*len(words))
	for _, w := range words {
		b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	return b
}

// wordKind is what one 32-bit word of a buffer holds.
type wordKind uint8

const (
	wordPad wordKind = iota
	wordF32
	wordU32
	wordI32
)

// corpusWords is the kinds of the words of one value.
type corpusWords []wordKind

// specialF32 are the floats every f32 word draws from a quarter of the
// time: signed zeros, the smallest and largest subnormals, the smallest
// normal, values past which products overflow, the largest finite value,
// and small integers (switches and comparisons).
var specialF32 = []float32{
	0, float32(math.Copysign(0, -1)),
	math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
	math.Float32frombits(0x007fffff), math.Float32frombits(0x807fffff),
	math.Float32frombits(0x00800000), 1e-30, -1e-30,
	1e20, -1e20, 3e38, -math.MaxFloat32, math.MaxFloat32,
	1, -1, 2, 0.5, 3,
}

// fill draws one value's words. An unsigned word in a uniform is a count or
// bound in the kernels here (n, rows, cols): it is drawn from [0, 2·inv]
// so bounds cut some dispatches short and not others; elsewhere it is a
// small value (switch cases, Collatz starts) or any value. Integers are
// never huge loop bounds: the corpus's pointwise loops are bounded.
func (w corpusWords) fill(rng *rand.Rand, inv int, uniform bool) []uint32 {
	out := make([]uint32, len(w))
	for i, k := range w {
		switch k {
		case wordPad:
			out[i] = rng.Uint32()
		case wordF32:
			var f float32
			switch r := rng.IntN(8); {
			case r < 2:
				f = specialF32[rng.IntN(len(specialF32))]
			case r < 3:
				f = math.Float32frombits(rng.Uint32() & 0x807fffff) // a random subnormal or zero
			case r < 4:
				f = float32(rng.NormFloat64() * 1e6)
			default:
				f = float32(rng.NormFloat64() * 4)
			}
			out[i] = math.Float32bits(f)
		case wordU32:
			switch {
			case uniform:
				out[i] = uint32(rng.IntN(2*inv + 1))
			case rng.IntN(2) == 0:
				out[i] = uint32(rng.IntN(10))
			default:
				out[i] = rng.Uint32()
			}
		case wordI32:
			if rng.IntN(2) == 0 {
				out[i] = uint32(int32(rng.IntN(21) - 10))
			} else {
				out[i] = rng.Uint32()
			}
		}
	}
	return out
}

// runnableCorpusKernels finds the corpus's pointwise kernels, compiles
// them and lays out their bindings; skipped counts the others by reason.
func runnableCorpusKernels(t *testing.T, d *wgpu.Device) ([]*corpusKernel, map[string]int) {
	t.Helper()
	var files []string
	for _, g := range []string{"*.wgsl", "*_test.go", "testdata/wgsl/*.wgsl"} {
		f, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	skipped := map[string]int{}
	var out []*corpusKernel
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		modules := []string{string(b)}
		if strings.HasSuffix(f, ".go") {
			modules = nil
			for _, m := range corpusModule.FindAllStringSubmatch(string(b), -1) {
				modules = append(modules, m[1])
			}
		}
		for mi, src := range modules {
			for _, m := range corpusEntry.FindAllStringSubmatch(src, -1) {
				entry := m[1]
				name := fmt.Sprintf("%s#%d:%s", strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)), mi, entry)
				pw, err := wgpu.AnalyzePointwise(src, entry)
				if err != nil {
					var pe *wgpu.PointwiseError
					if errors.As(err, &pe) {
						skipped["not pointwise"]++
					} else {
						skipped["does not specialize without constants"]++
					}
					continue
				}
				k, why := layOutCorpusKernel(d, name, src, entry, pw)
				if why != "" {
					skipped[why]++
					t.Logf("%s: skipped: %s", name, why)
					continue
				}
				out = append(out, k)
			}
		}
	}
	return out, skipped
}

// layOutCorpusKernel compiles entry and lays out its bindings, or says
// why it cannot run here.
func layOutCorpusKernel(d *wgpu.Device, name, src, entry string, pw *wgpu.Pointwise) (*corpusKernel, string) {
	k, err := d.Kernel(src, entry)
	if err != nil {
		return nil, "does not compile on this adapter"
	}
	ck := &corpusKernel{name: name, k: k, pw: pw, binds: k.Bindings()}
	if len(ck.binds) != len(pw.Resources) {
		return nil, "the analysis and the kernel list different resources"
	}
	ly := newWGSLLayout(src)
	for i, b := range ck.binds {
		if !b.Kind.IsBuffer() || pw.Resources[i].Name != b.Name {
			return nil, "a binding that is not a buffer"
		}
		typ, array := b.Type, false
		if elem, ok := strings.CutPrefix(typ, "array<"); ok && !strings.Contains(elem, ",") {
			typ, array = strings.TrimSuffix(elem, ">"), true
		}
		w, align, ok := ly.of(typ)
		if !ok {
			return nil, "a binding of a type the filler does not lay out (f16, atomics, bool, runtime arrays in structs)"
		}
		// A runtime array's element padded to its stride; a whole value
		// to a uniform's 16 bytes.
		pad := align / 4
		if !array {
			pad = 4
		}
		for len(w)%pad != 0 {
			w = append(w, wordPad)
		}
		ck.words, ck.array = append(ck.words, w), append(ck.array, array)
	}
	// About 512 invocations, whole workgroups: a kernel without bounds
	// checks then never writes past its buffers.
	ck.groups = max(1, 512/pw.WorkgroupSize)
	if !pw.OneToOne(ck.groups, 1, 1) {
		return nil, "its index is not one-to-one over the dispatch"
	}
	return ck, ""
}

// wgslLayout lays out host-shareable WGSL types of one module (WGSL §
// "Memory Layout"): scalars, vectors, matrices, fixed-size arrays, structs
// and aliases of them, as word kinds.
type wgslLayout struct {
	structs map[string][]wgslMember
	aliases map[string]string
}

// wgslMember is a struct member: its type and its @align and @size
// attributes (0 when absent).
type wgslMember struct {
	typ         string
	align, size int
}

var (
	structDecl = regexp.MustCompile(`(?s)struct\s+([A-Za-z_]\w*)\s*\{(.*?)\}`)
	aliasDecl  = regexp.MustCompile(`alias\s+([A-Za-z_]\w*)\s*=\s*([^;]+);`)
	memberDecl = regexp.MustCompile(`^((?:@(?:align|size)\(\d+\)\s*)*)([A-Za-z_]\w*)\s*:\s*(.+)$`)
	memberAttr = regexp.MustCompile(`@(align|size)\((\d+)\)`)
	lineCmt    = regexp.MustCompile(`//[^\n]*`)
)

func newWGSLLayout(src string) *wgslLayout {
	src = lineCmt.ReplaceAllString(src, "")
	l := &wgslLayout{structs: map[string][]wgslMember{}, aliases: map[string]string{}}
	for _, m := range structDecl.FindAllStringSubmatch(src, -1) {
		var members []wgslMember
		for _, part := range splitTop(m[2]) {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			mm := memberDecl.FindStringSubmatch(part)
			if mm == nil { // other attributes (@location) or the unexpected
				members = nil
				l.structs[m[1]] = nil
				break
			}
			mem := wgslMember{typ: strings.ReplaceAll(mm[3], " ", "")}
			for _, a := range memberAttr.FindAllStringSubmatch(mm[1], -1) {
				v, _ := strconv.Atoi(a[2])
				if a[1] == "align" {
					mem.align = v
				} else {
					mem.size = v
				}
			}
			members = append(members, mem)
		}
		if members != nil {
			l.structs[m[1]] = members
		}
	}
	for _, m := range aliasDecl.FindAllStringSubmatch(src, -1) {
		l.aliases[m[1]] = strings.ReplaceAll(strings.TrimSpace(m[2]), " ", "")
	}
	return l
}

// splitTop splits s at commas outside template brackets.
func splitTop(s string) []string {
	var out []string
	depth, from := 0, 0
	for i, r := range s {
		switch r {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[from:i])
				from = i + 1
			}
		}
	}
	return append(out, s[from:])
}

// of returns typ's words (size/4 of them) and alignment in bytes.
func (l *wgslLayout) of(typ string) (corpusWords, int, bool) {
	typ = strings.ReplaceAll(typ, " ", "")
	if a, ok := l.aliases[typ]; ok {
		return l.of(a)
	}
	scalar := map[string]wordKind{"f32": wordF32, "u32": wordU32, "i32": wordI32, "f": wordF32, "u": wordU32, "i": wordI32}
	if k, ok := scalar[typ]; ok && len(typ) == 3 {
		return corpusWords{k}, 4, true
	}
	vec := func(n int, k wordKind) (corpusWords, int, bool) {
		w := make(corpusWords, n)
		for i := range w {
			w[i] = k
		}
		align := map[int]int{2: 8, 3: 16, 4: 16}[n]
		return w, align, true
	}
	if m := regexp.MustCompile(`^vec([234])(?:<(f32|u32|i32)>|([fui]))$`).FindStringSubmatch(typ); m != nil {
		n, _ := strconv.Atoi(m[1])
		return vec(n, scalar[m[2]+m[3]])
	}
	if m := regexp.MustCompile(`^mat([234])x([234])(?:<f32>|f)$`).FindStringSubmatch(typ); m != nil {
		cols, _ := strconv.Atoi(m[1])
		rows, _ := strconv.Atoi(m[2])
		col, align, _ := vec(rows, wordF32)
		var w corpusWords
		for range cols {
			w = append(w, col...)
			for len(w)%(align/4) != 0 {
				w = append(w, wordPad)
			}
		}
		return w, align, true
	}
	if m := regexp.MustCompile(`^array<(.+),(\d+)u?>$`).FindStringSubmatch(typ); m != nil {
		elem, align, ok := l.of(m[1])
		n, _ := strconv.Atoi(m[2])
		if !ok || n == 0 {
			return nil, 0, false
		}
		stride := slices.Clone(elem)
		for len(stride)%(align/4) != 0 {
			stride = append(stride, wordPad)
		}
		var w corpusWords
		for range n {
			w = append(w, stride...)
		}
		return w, align, true
	}
	members, ok := l.structs[typ]
	if !ok || members == nil {
		return nil, 0, false
	}
	var w corpusWords
	align := 4
	for _, m := range members {
		mw, ma, ok := l.of(m.typ)
		if !ok || m.size%4 != 0 || m.align%4 != 0 || (m.size != 0 && m.size < 4*len(mw)) {
			return nil, 0, false
		}
		if m.align != 0 {
			ma = m.align
		}
		for len(w)%(ma/4) != 0 {
			w = append(w, wordPad)
		}
		w = append(w, mw...)
		for range m.size/4 - len(mw) {
			w = append(w, wordPad)
		}
		align = max(align, ma)
	}
	for len(w)%(align/4) != 0 {
		w = append(w, wordPad)
	}
	return w, align, true
}
