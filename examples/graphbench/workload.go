package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/softgraph/softgraph/examples/workloads"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// role is what a binding of a workload's kernel holds; the hand-written
// paths build their layout and bind groups from the roles.
type role uint8

const (
	roleParams  role = iota // the uniform params
	roleSrc                 // read-only storage: the state read
	roleDst                 // read-write storage: the state written
	roleInOut               // read-write storage, updated in place
	roleCounter             // read-write storage of one word that nobody checks (the sort's swap counter)
)

// workload is what every path of a config runs, with the same WGSL and the
// same params bytes: how its buffers are bound, what one dispatch covers and
// how to check the result. Every path owns its own buffers, so each checks
// its own arithmetic.
//
// A ping-pong workload's dispatches alternate A→B, B→A, starting from A at
// every pass and every graph; their lengths are even (config.validate), so
// between passes the current state is always in A.
type workload struct {
	name     string // "add_one", "add_one_inplace", "life", "mlp", "sort"
	wgsl     string // entry point "main"
	bindings []role // by binding number, all in group 0
	words    uint32 // 32-bit words per buffer
	params   []byte // the uniform, the same bytes on every path
	// stepParams, when set, replaces params: dispatch i of a pass binds
	// stepParams[i % len(stepParams)] (the sort's stage and step). Its
	// length is even, so a dispatch's params and its ping-pong parity
	// repeat together.
	stepParams [][]byte
	gx, gy     uint32 // workgroups per dispatch
	init       []uint32
	// check says whether out, the state after steps dispatches from init,
	// is right. Calls come in ascending steps, so a reference may advance.
	check func(out []uint32, steps int) error
	// checkFresh checks a fresh pass (steps dispatches from init); nil: check.
	checkFresh func(out []uint32, steps int) error
	// target makes one recorder path's memory and launcher on s.
	target func(s *recorder.Stream) (sgTarget, error)
	// recorderOnly: the workload chains several kernels, which the
	// hand-written paths (one kernel) do not run (mlp.go).
	recorderOnly bool
	// close releases what the workload holds (the mlp reference stream);
	// nil when nothing.
	close func()
	// The mlp workload's activations, bias and shape.
	mlpInit, mlpBias []float32
	mlpRows, mlpCols uint32
}

func (w *workload) pingPong() bool { return slices.Contains(w.bindings, roleSrc) }

// addOneWGSL is the chain's kernel: dst = src + 1 over p.n floats.
const addOneWGSL = `
struct P { n: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: P;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x + id.y * 65535u * 64u;
	if (i < p.n) {
		dst[i] = src[i] + 1.0;
	}
}
`

// addOneInPlaceWGSL is the short graphs' kernel: x = x + 1 in one buffer.
// A graph of one dispatch must chain with itself when replayed, which a
// ping-pong dispatch (fixed src and dst) cannot; an in-place one does, and
// every dispatch still depends on the one before it.
const addOneInPlaceWGSL = `
struct P { n: u32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: P;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x + id.y * 65535u * 64u;
	if (i < p.n) {
		x[i] = x[i] + 1.0;
	}
}
`

// newWorkload builds c's workload on dev.
func newWorkload(dev *wgpu.Device, c config) (*workload, error) {
	switch c.Workload {
	case "add_one", "add_one_inplace":
		w := &workload{name: c.Workload, wgsl: addOneWGSL, bindings: []role{roleSrc, roleDst, roleParams}, words: c.Elems, init: make([]uint32, c.Elems)}
		if c.Workload == "add_one_inplace" {
			w.wgsl, w.bindings = addOneInPlaceWGSL, []role{roleInOut, roleParams}
		}
		w.params = recorder.ParamsOf[uint32](c.Elems, 0, 0, 0)
		w.gx, w.gy = groups(c.Elems)
		// Every element holds the number of dispatches run (exact in f32
		// below 2^24, far more than any run makes).
		w.check = func(out []uint32, steps int) error {
			want := float32(steps)
			for i, x := range out {
				if v := math.Float32frombits(x); v != want {
					return fmt.Errorf("element %d is %v after %d dispatches, want %v", i, v, steps, want)
				}
			}
			return nil
		}
		w.target = func(s *recorder.Stream) (sgTarget, error) { return newBufTarget(s, w) }
		return w, nil
	case "mlp":
		return newMLPWorkload(dev, c)
	case "sort":
		return newSortWorkload(c), nil
	case "life":
		// examples/workloads' Life: its kernel on every path (its
		// blockSize override at its default, 8), its Life type on the
		// recorder paths, its reference for the fresh passes.
		side := int(c.Side)
		k, err := dev.Kernel(workloads.LifeWGSL(), "main")
		if err != nil {
			return nil, err
		}
		ws := k.WorkgroupSize()
		ref := newLifeReference(side, side, 1)
		w := &workload{
			name: "life", wgsl: constOverrides(workloads.LifeWGSL()), bindings: []role{roleParams, roleSrc, roleDst},
			words: c.Side * c.Side, params: recorder.ParamsOf[uint32](c.Side, c.Side),
			gx: (c.Side + ws[0] - 1) / ws[0], gy: (c.Side + ws[1] - 1) / ws[1],
			init:  ref.init,
			check: ref.check,
		}
		fresh := map[int][]uint32{} // generations → workloads.LifeReference's cells, computed once
		w.checkFresh = func(out []uint32, gens int) error {
			if fresh[gens] == nil {
				fresh[gens] = workloads.LifeReference(ref.init, side, side, gens)
			}
			return compareCells(out, fresh[gens], side, gens)
		}
		w.target = func(s *recorder.Stream) (sgTarget, error) { return newLifeTarget(s, w, side) }
		return w, nil
	}
	return nil, fmt.Errorf("unknown workload %q", c.Workload)
}

// overrideDecl is a WGSL pipeline-overridable constant with a default:
// `override name = value;` or `override name: type = value;`.
var overrideDecl = regexp.MustCompile(`\boverride\s+([A-Za-z_]\w*)\s*(?::\s*(\w+)\s*)?=\s*([^;]+);`)

// constOverrides turns each override of src into a const of its default
// value, as a hand-written user of wgpu-native v22 must: its compiler
// predates `override` (softgraph's Device.Kernel makes the same rewrite,
// so both compile the same program). An untyped override is an i32, as
// WGSL concretizes an abstract-int initializer. An override this does not
// match stays, and fails to compile: no silent difference between paths.
func constOverrides(src string) string {
	return overrideDecl.ReplaceAllStringFunc(src, func(decl string) string {
		m := overrideDecl.FindStringSubmatch(decl)
		typ := m[2]
		if typ == "" {
			typ = "i32"
		}
		return "const " + m[1] + ": " + typ + " = " + strings.TrimSpace(m[3]) + ";"
	})
}

// groups covers n elements with 64-wide workgroups, folding into y past the
// 65535 per-dimension limit (1M floats need 16384 groups: no fold needed,
// but the kernel supports it).
func groups(n uint32) (uint32, uint32) {
	g := (n + 63) / 64
	if g <= 65535 {
		return g, 1
	}
	return 65535, (g + 65534) / 65535
}

// lifeReference is the Go Game of Life a whole run is checked against: a
// seeded random soup (density 1/3) advanced generation by generation, rows
// split among the CPUs. A 512×512 run is checked after thousands of
// generations, for which workloads.LifeReference (one goroutine, from the
// soup at every call) would take about a minute per config;
// TestLifeReferenceAgreesWithWorkloads holds the two equal. It only moves
// forward; asking for an earlier generation starts again from init.
type lifeReference struct {
	w, h     int
	init     []uint32
	gen      int
	cur, nxt []uint32
}

func newLifeReference(w, h int, seed uint64) *lifeReference {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	init := make([]uint32, w*h)
	for i := range init {
		if rng.IntN(3) == 0 {
			init[i] = 1
		}
	}
	r := &lifeReference{w: w, h: h, init: init, nxt: make([]uint32, w*h)}
	r.cur = slices.Clone(init)
	return r
}

func (r *lifeReference) at(gen int) []uint32 {
	if gen < r.gen {
		r.gen = 0
		copy(r.cur, r.init)
	}
	for ; r.gen < gen; r.gen++ {
		lifeStep(r.nxt, r.cur, r.w, r.h)
		r.cur, r.nxt = r.nxt, r.cur
	}
	return r.cur
}

func (r *lifeReference) check(out []uint32, gens int) error {
	return compareCells(out, r.at(gens), r.w, gens)
}

func compareCells(out, want []uint32, w, gens int) error {
	if len(out) != len(want) {
		return fmt.Errorf("%d cells read, want %d", len(out), len(want))
	}
	for i := range want {
		if out[i] != want[i] {
			return fmt.Errorf("cell (%d,%d) is %d after %d generations, want %d", i%w, i/w, out[i], gens, want[i])
		}
	}
	return nil
}

// lifeStep writes the generation after src into dst, rows split among the
// CPUs.
func lifeStep(dst, src []uint32, w, h int) {
	workers := min(runtime.NumCPU(), max(1, h/32))
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func(y0, y1 int) {
			defer wg.Done()
			for y := y0; y < y1; y++ {
				up, mid, dn := (y+h-1)%h*w, y*w, (y+1)%h*w
				for x := range w {
					xl, xr := x-1, x+1
					if xl < 0 {
						xl = w - 1
					}
					if xr == w {
						xr = 0
					}
					n := src[up+xl] + src[up+x] + src[up+xr] + src[mid+xl] + src[mid+xr] + src[dn+xl] + src[dn+x] + src[dn+xr]
					var v uint32
					if n == 3 || (n == 2 && src[mid+x] == 1) {
						v = 1
					}
					dst[mid+x] = v
				}
			}
		}(k*h/workers, (k+1)*h/workers)
	}
	wg.Wait()
}
