package tests

import (
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// latchCountdown: st[0] is a loop condition n; each run takes one from it
// (down to 0) and counts itself in st[1].
const latchCountdown = `
@group(0) @binding(0) var<storage, read_write> st: array<u32>;
@compute @workgroup_size(1)
fn countdown() {
	if (st[0] > 0u) { st[0] = st[0] - 1u; }
	st[1] = st[1] + 1u;
}
`

// latchBump: v[i] = v[i] * 3 + i + 1 over every element (one invocation per
// element, workgroups of 8): a result that depends on how often each
// element was reached.
const latchBump = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	if (g.x < arrayLength(&v)) { v[g.x] = v[g.x] * 3u + g.x + 1u; }
}
`

// latchWideBump: one workgroup of one invocation per element (so a dispatch
// of n elements has n workgroups): v[i] = v[i] * 3 + i + 1.
const latchWideBump = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) w: vec3<u32>) {
	if (w.x < arrayLength(&v)) { v[w.x] = v[w.x] * 3u + w.x + 1u; }
}
`

func setU32(t testing.TB, s *recorder.Stream, b *recorder.Buffer, v ...uint32) {
	t.Helper()
	if err := recorder.WriteSlice(s, b, 0, v); err != nil {
		t.Fatalf("WriteSlice: %v", err)
	}
}

// latchKernel compiles entry of src on d, released when the test ends.
func latchKernel(t testing.TB, d *wgpu.Device, src, entry string, opts ...wgpu.KernelOption) *wgpu.Kernel {
	t.Helper()
	k, err := d.Kernel(src, entry, opts...)
	if err != nil {
		t.Fatalf("Kernel(%s): %v", entry, err)
	}
	t.Cleanup(k.Release)
	return k
}

func latchZeros(n int) []uint32 { return make([]uint32, n) }

// latchModes runs f with predication on and off.
func latchModes(t *testing.T, f func(t *testing.T, on bool)) {
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "predicated", false: "indirect"}[on], func(t *testing.T) { f(t, on) })
	}
}

// latchAgree captures step (with bufs set to inits[0] first), then for every
// init sets bufs, runs step eagerly and reads them, sets them again,
// replays the graph and reads them: both must agree bit for bit. When model
// is not nil the eager result must also equal model(i). It returns the
// graph (released at the end of the test).
func latchAgree(t *testing.T, s *recorder.Stream, bufs []*recorder.Buffer, inits [][][]uint32, model func(i int) [][]uint32, step func() error) *recorder.Graph {
	t.Helper()
	return latchAgreeWith(t, s, bufs, inits, model, step, step)
}

// latchAgreeWith is latchAgree with a captured step other than the eager one
// (a step replaying child graphs, checked against the steps they hold).
func latchAgreeWith(t *testing.T, s *recorder.Stream, bufs []*recorder.Buffer, inits [][][]uint32, model func(i int) [][]uint32, eager, captured func() error) *recorder.Graph {
	t.Helper()
	latchSetAll(t, s, bufs, inits[0])
	g, err := s.Capture(captured)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	t.Cleanup(g.Release)
	for i, init := range inits {
		latchSetAll(t, s, bufs, init)
		if err := eager(); err != nil {
			t.Fatalf("eager step %d: %v", i, err)
		}
		want := latchReadAll(t, s, bufs)
		if model != nil {
			if m := model(i); !reflect.DeepEqual(m, want) {
				gputest.WantEqual(t, "eager run "+itoa(i)+" against the Go model", m, want)
			}
		}
		latchSetAll(t, s, bufs, init)
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay %d: %v", i, err)
		}
		if got := latchReadAll(t, s, bufs); !reflect.DeepEqual(want, got) {
			gputest.WantEqual(t, "replay "+itoa(i)+" against the eager run of the same step", want, got)
		}
	}
	return g
}

func latchSetAll(t testing.TB, s *recorder.Stream, bufs []*recorder.Buffer, init [][]uint32) {
	t.Helper()
	for i, b := range bufs {
		setU32(t, s, b, init[i]...)
	}
}

func latchReadAll(t testing.TB, s *recorder.Stream, bufs []*recorder.Buffer) [][]uint32 {
	t.Helper()
	out := make([][]uint32, len(bufs))
	for i, b := range bufs {
		out[i] = gputest.ReadU32(t, s, b)
	}
	return out
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// latchBumpModel applies latchBump's update k times to zeros of length n.
func latchBumpModel(n int, k uint32) []uint32 {
	v := make([]uint32, n)
	for ; k > 0; k-- {
		for i := range v {
			v[i] = v[i]*3 + uint32(i) + 1
		}
	}
	return v
}

var _ = wgpu.Options{}

// TestACommandAfterAnEmptyNestedRegionKeepsItsGateInALatchedLoop: a
// top-level While whose body is [latchable dispatch, an empty nested If (or
// While), X] where X has no guarded variant — a copy, a clear, a dispatch of
// more than 256 workgroups, a kernel using @group(3) — must not be latched
// (X needs a gate). latchable (internal/lower) once counted the command
// right after an empty nested region as inside it and latched the loop
// anyway; X then went to a slot no gate wrote and never ran. Every variant
// agrees with the eager step, predicated or not.
func TestACommandAfterAnEmptyNestedRegionKeepsItsGateInALatchedLoop(t *testing.T) {
	skipIfShort(t)
	const n, max = 16, 4
	for _, tail := range []string{"copy", "clear", "wide dispatch", "indirect dispatch", "kernel without a variant", "empty While instead of If"} {
		t.Run(tail, func(t *testing.T) {
			latchModes(t, func(t *testing.T, on bool) {
				d, s := gputest.OpenStream(t, recorder.WithPredication(on))
				bump := gputest.Kernel(t, d, latchBump)
				wide := gputest.Kernel(t, d, latchWideBump)
				last := latchKernel(t, d, "@group(3) @binding(0) var<storage, read_write> w: array<u32>;\n@compute @workgroup_size(1)\nfn last() { w[0] = w[0] * 3u + 1u; }\n", "last")
				counts := gputest.UploadU32(t, s, 5, 1, 1)
				count := latchKernel(t, d, latchCountdown, "countdown")
				st := gputest.UploadU32(t, s, 0, 0)
				never := gputest.UploadU32(t, s, 0)
				v := gputest.UploadU32(t, s, latchZeros(n)...)
				w := gputest.UploadU32(t, s, latchZeros(300)...)
				acc := gputest.UploadU32(t, s, latchZeros(n*max)...)
				step := func() error {
					return s.While(st, 0, max, func() error {
						if err := s.Launch(bump, recorder.Groups(n/8, 1, 1), v); err != nil {
							return err
						}
						empty := func() error { return s.If(never, 0, func() error { return nil }) }
						if tail == "empty While instead of If" {
							empty = func() error { return s.While(never, 0, 3, func() error { return nil }) }
						}
						if err := empty(); err != nil {
							return err
						}
						switch tail {
						case "copy":
							// acc[0:n] = v (the last iteration's v).
							if err := s.Copy(acc, 0, v, 0, n*4); err != nil {
								return err
							}
						case "clear":
							if err := s.Clear(acc, 4, 8); err != nil {
								return err
							}
						case "indirect dispatch":
							if err := s.Launch(wide, recorder.Indirect(counts, 0), w); err != nil {
								return err
							}
						case "kernel without a variant":
							if err := s.Launch(last, recorder.Groups(1, 1, 1), w); err != nil {
								return err
							}
						default:
							if err := s.Launch(wide, recorder.Groups(300, 1, 1), w); err != nil {
								return err
							}
						}
						return s.Launch(count, recorder.Groups(1, 1, 1), st)
					})
				}
				var inits [][][]uint32
				for _, c := range []uint32{3, 0, 1, 9} {
					a := latchZeros(n * max)
					for i := range a {
						a[i] = 7
					}
					inits = append(inits, [][]uint32{{c, 0}, {0}, latchZeros(n), latchZeros(300), a})
				}
				latchAgree(t, s, []*recorder.Buffer{st, never, v, w, acc}, inits, nil, step)
			})
		})
	}
}

// latchToggle flips f[0] between 0 and 1 and counts its runs in f[1].
const latchToggle = `
@group(0) @binding(0) var<storage, read_write> f: array<u32>;
@compute @workgroup_size(1)
fn toggle() { f[0] = 1u - f[0]; f[1] = f[1] + 1u; }
`

// latchForm is a body kernel written in an unusual way. Every form updates
// v (64 u32s) from every one of its invocations, so a guard that lets only
// some of them through shows in v; aux is a read-only ramp some forms read.
type latchForm struct {
	name, src, entry string
	consts           map[string]float64
	groups           recorder.Dispatch
	args             func(v, aux *recorder.Buffer) []recorder.Arg
	// guardable: the form has a plain guarded variant; latchable: it has a
	// latching one too (so, first in a top-level body, needs no gates).
	guardable, latchable bool
}

func latchV(v, aux *recorder.Buffer) []recorder.Arg { return []recorder.Arg{v} }

const latchFormN = 64

var latchForms = []latchForm{
	{name: "trailing comma after the only parameter", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>,) { v[g.x] = v[g.x] * 3u + g.x + 1u; }
`},
	{name: "no parameters, atomics only", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<atomic<u32>>;
@compute @workgroup_size(4)
fn main() {
	atomicAdd(&v[0], 1u);
	atomicMax(&v[1], 77u);
	atomicOr(&v[2], 6u);
	atomicXor(&v[3], 1u);
}
`, groups: recorder.Groups(4, 2, 1)},
	{name: "comments and braces between every token", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
/* fn main() { } */ // fn main( {
@compute /* a { */ @workgroup_size( /*b*/ 8 /*c*/ )
fn /* ( */ main /* { */ ( // ( {
  /* x ) */ @builtin( /* y */ global_invocation_id /* z */ ) /*(*/ g /*)*/ : /*{*/ vec3<u32> // }
  /* ) /* nested { */ */ ) /* { */ // {
{ // }
	v[g.x] = v[g.x] * 3u + g.x + 1u; /* } */
} // }
`},
	{name: "entry before the resources, brace on the next line, 3-D ids and num_workgroups", guardable: true, latchable: true, src: `
@compute
@workgroup_size(2, 2, 2)
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>)
{
	let wg = w.x + nw.x * (w.y + nw.y * w.z);
	let i = wg * 8u + l.x + 2u * (l.y + 2u * l.z);
	v[i] = v[i] * 3u + i + 1u;
}
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
`, groups: recorder.Groups(2, 2, 2)},
	{name: "body starting with function-scope consts", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	const K = 3u;
	const T = array<u32, 4>(1u, 2u, 3u, 4u);
	let i = g.x;
	v[i] = v[i] * K + T[i % 4u] + i;
}
`},
	{name: "lets shadowing names", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
fn ident(v: u32) -> u32 { let g = v; return g; }
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = ident(g.x);
	{
		let g = 3u;
		let ident = i + 1u;
		v[i] = v[i] * g + ident;
	}
}
`},
	{name: "early returns of its own", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	if (g.x >= arrayLength(&v)) { return; }
	if ((g.x & 1u) == 1u) { v[g.x] = v[g.x] * 3u + g.x + 1u; return; }
	v[g.x] = v[g.x] * 5u + 2u;
	return;
}
`},
	{name: "barriers and workgroupUniformLoad", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
var<workgroup> part: array<u32, 8>;
var<workgroup> total: u32;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) w: vec3<u32>) {
	let i = w.x * 8u + li;
	part[li] = v[i] + 1u;
	workgroupBarrier();
	if (li == 0u) {
		var s = 0u;
		for (var k = 0u; k < 8u; k++) { s += part[k]; }
		total = s;
	}
	storageBarrier();
	let t = workgroupUniformLoad(&total);
	v[i] = v[i] * 3u + t + li;
}
`},
	{name: "workgroup size from overrides by name and by id", guardable: true, latchable: true, src: `
override blk: u32 = 1u;
@id(7) override scale: u32 = 2u;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(blk)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] * scale + g.x + 1u; }
`, consts: map[string]float64{"blk": 16, "7": 5}, groups: recorder.Groups(4, 1, 1)},
	{name: "bind groups 0, 1 and 2 (the guard takes 3)", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(1) @binding(0) var<storage, read_write> v: array<u32>;
@group(2) @binding(3) var<uniform> p: vec4<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] * p.x + a[g.x] + 1u; }
`, args: func(v, aux *recorder.Buffer) []recorder.Arg {
		return []recorder.Arg{aux, v, recorder.ParamsOf[uint32](3, 0, 0, 0)}
	}},
	{name: "bind group 3 (no variant)", src: `
@group(3) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] * 3u + g.x + 1u; }
`},
	{name: "another entry point declares the guard's group (no variant)", src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@group(1) @binding(0) var<storage, read_write> other: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] * 3u + g.x + 1u; }
@compute @workgroup_size(1)
fn aux() { other[0] = 1u; }
`},
	{name: "module names and parameters taken from the guard", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read> softgraph_guard_words: array<u32>;
@group(0) @binding(1) var<storage, read_write> v: array<u32>;
const softgraph_guard_cond = 5u;
fn softgraph_guard_at(x: u32) -> u32 { return x + softgraph_guard_cond; }
struct softgraph_guard_words2 { x: u32 }
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) softgraph_guard_local: vec3<u32>, @builtin(num_workgroups) softgraph_guard_workgroup: vec3<u32>) {
	let i = softgraph_guard_local.x;
	v[i] = v[i] * 3u + softgraph_guard_at(softgraph_guard_words[i]) + softgraph_guard_workgroup.x;
}
`, args: func(v, aux *recorder.Buffer) []recorder.Arg { return []recorder.Arg{aux, v} }},
	{name: "function-scope const and let named like the guard's resources", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	const softgraph_guard_at = vec4<u32>(1u, 2u, 3u, 4u);
	const softgraph_guard_cond = array<u32, 2>(0u, 0u);
	let softgraph_guard_words = array<u32, 4>(9u, 9u, 9u, 9u);
	v[g.x] = v[g.x] * 3u + softgraph_guard_at.y + softgraph_guard_words[g.x % 4u] + softgraph_guard_cond[g.x % 2u];
}
`},
	// The names a latch adds must avoid these top-level locals (freeName
	// once looked at module names and parameters only, and the latching
	// variant did not compile: the loop fell back to gates).
	{name: "locals named like the parameters a latch adds", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let softgraph_guard_local = g.x;
	var softgraph_guard_workgroup = 2u;
	v[softgraph_guard_local] = v[softgraph_guard_local] * 3u + softgraph_guard_workgroup;
}
`},
	{name: "entry named like a word naga reserves", entry: "signed", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn signed(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] * 3u + g.x + 1u; }
`},
	{name: "only bind group 1 (gap at 0)", guardable: true, latchable: true, src: `
@group(1) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] * 3u + g.x + 1u; }
`},
	{name: "bind groups 0 and 2 (gap at 1, the guard takes 3)", guardable: true, latchable: true, src: `
@group(2) @binding(5) var<storage, read_write> v: array<u32>;
@group(0) @binding(0) var<storage, read> a: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] * 3u + a[g.x] + 1u; }
`, args: func(v, aux *recorder.Buffer) []recorder.Arg { return []recorder.Arg{aux, v} }},
	{name: "parameters named like the guard's resources", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) softgraph_guard_words: vec3<u32>, @builtin(local_invocation_index) softgraph_guard_at: u32, @builtin(workgroup_id) softgraph_guard_cond: vec3<u32>) {
	let i = softgraph_guard_words.x;
	v[i] = v[i] * 3u + softgraph_guard_at + softgraph_guard_cond.x + 1u;
}
`},
	{name: "struct of builtins declared after the entry, trailing commas", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@workgroup_size(4, 2,) @compute
fn main(inp: In,) {
	let i = inp.wg.x * 8u + inp.li;
	v[i] = v[i] * 3u + i + 1u;
}
struct In { @builtin(local_invocation_index,) li: u32, @builtin(workgroup_id) wg: vec3<u32>, }
`},
	{name: "struct parameter through an alias", guardable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
struct In { @builtin(global_invocation_id) g: vec3<u32> }
alias Ins = In;
@compute @workgroup_size(8)
fn main(inp: Ins) { v[inp.g.x] = v[inp.g.x] * 3u + inp.g.x + 1u; }
`},
	{name: "loop with continuing, break if and switch", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	var k = 0u;
	loop {
		if (k >= 3u) { break; }
		let d = k + g.x;
		continuing {
			k += 1u;
			v[g.x] = v[g.x] + d;
			break if k >= 2u;
		}
	}
	switch (g.x % 3u) {
		case 0u, 1u,: { v[g.x] = v[g.x] * 3u; }
		default: { v[g.x] += 1u; }
	}
}
`},
	{name: "directives, const_assert, must_use and a trailing line comment without newline", guardable: true, latchable: true, src: `diagnostic(off, derivative_uniformity);
const N = 8u;
const_assert N == 8u;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@must_use fn f(x: u32) -> u32 { return x * 3u; }
@compute @workgroup_size(N)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = f(v[g.x]) + g.x + 1u; }
// the end, no newline`},
	{name: "CRLF line endings and non-ASCII text before the entry", guardable: true, latchable: true,
		src: "// Größe ∑ — ✓ 漢字\r\n@group(0) @binding(0) var<storage, read_write> v: array<u32>;\r\n/* ünïcödé { ( */\r\n@compute @workgroup_size(8)\r\nfn main(@builtin(global_invocation_id) g: vec3<u32>)\r\n{\r\n\tv[g.x] = v[g.x] * 3u + g.x + 1u; // ∎\r\n}\r\n"},
	{name: "helpers before and after, the entry calls them", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
fn before(i: u32) { v[i] = v[i] * 3u; }
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { before(g.x); after(g.x); }
fn after(i: u32) { v[i] = v[i] + i + 1u; if (i == 0u) { return; } }
`},
	{name: "integer division by a run-time value (helper appended)", guardable: true, latchable: true, src: `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let q = v[g.x] / (g.x % 3u);
	v[g.x] = v[g.x] * 3u + q % 7u + g.x + 1u;
}
`},
}

// TestUnusualBodyKernelsComputeAsTheEagerStep: every unusual form of body
// kernel, as the first dispatch of a top-level While (a latching variant),
// as a later one (a plain guarded variant), alone in a top-level If reading
// its condition at a non-zero offset, and inside an If nested in a latched
// While (gated by a gate that reads the latch), computes bit for bit what
// the eager step computes, predicated or not. Forms with a variant must get
// it (and a latching one no gate dispatches); forms without fall back to
// gates.
func TestUnusualBodyKernelsComputeAsTheEagerStep(t *testing.T) {
	skipIfShort(t)
	const max = 5
	latchModes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := latchKernel(t, d, latchCountdown, "countdown")
		toggle := latchKernel(t, d, latchToggle, "toggle")
		ramp := make([]uint32, latchFormN)
		for i := range ramp {
			ramp[i] = uint32(i*i + 1)
		}
		for i, f := range latchForms {
			if !inDefaultSweep(i, on) {
				continue
			}
			t.Run(f.name, func(t *testing.T) {
				entry := f.entry
				if entry == "" {
					entry = "main"
				}
				k, err := d.Kernel(f.src, entry, wgpu.WithConstants(f.consts))
				if err != nil {
					t.Fatalf("the form must compile as written: %v", err)
				}
				defer k.Release()
				groups := f.groups
				if groups == (recorder.Dispatch{}) {
					groups = recorder.Groups(latchFormN/8, 1, 1)
				}
				args := f.args
				if args == nil {
					args = latchV
				}
				v := gputest.UploadU32(t, s, latchZeros(latchFormN)...)
				aux := gputest.UploadU32(t, s, ramp...)
				st := gputest.UploadU32(t, s, 0, 0)
				flag := gputest.UploadU32(t, s, 0, 0)
				c := gputest.UploadU32(t, s, 0, 0, 0, 0)
				launch := func() error { return s.Launch(k, groups, args(v, aux)...) }
				layouts := []struct {
					name string
					step func() error
				}{
					{"first in a While", func() error {
						return s.While(st, 0, max, func() error {
							if err := launch(); err != nil {
								return err
							}
							return s.Launch(count, recorder.Groups(1, 1, 1), st)
						})
					}},
					{"later in a While", func() error {
						return s.While(st, 0, max, func() error {
							if err := s.Launch(toggle, recorder.Groups(1, 1, 1), flag); err != nil {
								return err
							}
							if err := launch(); err != nil {
								return err
							}
							return s.Launch(count, recorder.Groups(1, 1, 1), st)
						})
					}},
					{"alone in an If at offset 12", func() error {
						return s.If(c, 12, launch)
					}},
					{"in an If nested in a latched While", func() error {
						return s.While(st, 0, max, func() error {
							if err := s.Launch(toggle, recorder.Groups(1, 1, 1), flag); err != nil {
								return err
							}
							if err := s.If(flag, 0, launch); err != nil {
								return err
							}
							return s.Launch(count, recorder.Groups(1, 1, 1), st)
						})
					}},
				}
				for li, l := range layouts {
					var inits [][][]uint32
					for _, n := range []uint32{3, 0, 1, 9} {
						inits = append(inits, [][]uint32{latchZeros(latchFormN), {n, 0}, {0, 0}, {0, 0, 0, n % 2 * n}})
					}
					g := latchAgree(t, s, []*recorder.Buffer{v, st, flag, c}, inits, nil, l.step)
					if nz := gputest.ReadU32(t, s, v); slices.Equal(nz, latchZeros(latchFormN)) && li != 2 {
						t.Errorf("%s: the last run left v all zeros: the test computes nothing", l.name)
					}
					if !on || !gputest.Predicates(d) {
						continue
					}
					str := g.String()
					if got := strings.Contains(str, entry+" (predicated)"); got != f.guardable {
						t.Errorf("%s: predicated dispatches: %v, want %v (guardable form): %s", l.name, got, f.guardable, str)
					}
					if li == 0 || li == 2 {
						if gates := strings.Contains(str, "softgraph_gate"); gates == f.latchable {
							t.Errorf("%s: gate dispatches: %v, want %v (a latchable form first in a top-level body needs none): %s", l.name, gates, !f.latchable, str)
						}
					}
				}
			})
		}
	})
}

// latchFlatA: workgroups of size (1), flat index from global id and
// num_workgroups only (a latch must add both builtins it needs).
const latchFlatA = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn flat(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
	let i = g.x + n.x * (g.y + n.y * g.z);
	v[i] = v[i] * 3u + i + 1u;
}
`

// latchFlatB: workgroups of 256, flat index from workgroup id and local
// index (a latch takes both from the parameters).
const latchFlatB = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(256)
fn flat(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
	let i = (w.x + n.x * (w.y + n.y * w.z)) * 256u + li;
	v[i] = v[i] * 3u + i + 1u;
}
`

// TestALatchingDispatchOfAnyShapeWritesTheEnableWordOnce: a latching first
// dispatch of 1..257 workgroups in every shape (y and z above 1), workgroup
// sizes 1 and 256, followed by a guarded dispatch that reads the latch's
// enable word: the enable word must be written by exactly the dispatch's
// first invocation whatever the shape, and 257 workgroups must fall back to
// gates. Each iteration count agrees with the Go model and the eager run.
func TestALatchingDispatchOfAnyShapeWritesTheEnableWordOnce(t *testing.T) {
	skipIfShort(t)
	const max = 3
	shapes := []struct {
		src      string
		wg       uint32
		x, y, z  uint32
		latching bool
	}{
		{latchFlatA, 1, 16, 4, 4, true},
		{latchFlatA, 1, 1, 1, 256, true},
		{latchFlatA, 1, 1, 256, 1, true},
		{latchFlatA, 1, 2, 2, 64, true},
		{latchFlatA, 1, 257, 1, 1, false},
		{latchFlatA, 1, 1, 1, 257, false},
		{latchFlatB, 256, 4, 8, 8, true},
		{latchFlatB, 256, 1, 1, 1, true},
		{latchFlatB, 256, 1, 257, 1, false},
	}
	latchModes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := latchKernel(t, d, latchCountdown, "countdown")
		bump := latchKernel(t, d, latchBump, "main")
		for _, sh := range shapes {
			name := "wg" + itoa(int(sh.wg)) + "_" + itoa(int(sh.x)) + "x" + itoa(int(sh.y)) + "x" + itoa(int(sh.z))
			t.Run(name, func(t *testing.T) {
				k := latchKernel(t, d, sh.src, "flat")
				n := int(sh.wg * sh.x * sh.y * sh.z)
				v := gputest.UploadU32(t, s, latchZeros(n)...)
				u := gputest.UploadU32(t, s, latchZeros(16)...)
				st := gputest.UploadU32(t, s, 0, 0)
				step := func() error {
					return s.While(st, 0, max, func() error {
						if err := s.Launch(k, recorder.Groups(sh.x, sh.y, sh.z), v); err != nil {
							return err
						}
						if err := s.Launch(bump, recorder.Groups(2, 1, 1), u); err != nil {
							return err
						}
						return s.Launch(count, recorder.Groups(1, 1, 1), st)
					})
				}
				conds := []uint32{2, 0, 1, 7}
				var inits [][][]uint32
				for _, c := range conds {
					inits = append(inits, [][]uint32{{c, 0}, latchZeros(n), latchZeros(16)})
				}
				model := func(i int) [][]uint32 {
					it := min(conds[i], max)
					return [][]uint32{{conds[i] - it, it}, latchBumpModel(n, it), latchBumpModel(16, it)}
				}
				g := latchAgree(t, s, []*recorder.Buffer{st, v, u}, inits, model, step)
				if on && gputest.Predicates(d) {
					if gates := strings.Contains(g.String(), "softgraph_gate"); gates == sh.latching {
						t.Errorf("gate dispatches: %v, want %v: %s", gates, !sh.latching, g.String())
					}
				}
			})
		}
	})
}

// latchCountAt counts down big[p.x] (to 0) and counts its runs in big[p.y].
const latchCountAt = `
struct P { at: u32, cnt: u32 }
@group(0) @binding(0) var<storage, read_write> big: array<u32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1)
fn countat() { if (big[p.at] > 0u) { big[p.at] = big[p.at] - 1u; } big[p.cnt] = big[p.cnt] + 1u; }
`

// latchPeek reads four words of big from p.x on (read-only) into out.
const latchPeek = `
@group(0) @binding(0) var<storage, read> big: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> p: vec4<u32>;
@compute @workgroup_size(8)
fn peek(@builtin(global_invocation_id) g: vec3<u32>) {
	if (g.x < arrayLength(&out)) { out[g.x] = out[g.x] * 3u + big[p.x + g.x % 4u] + 1u; }
}
`

// latchReload sets st[0] = st[2] (restarts an inner loop's condition).
const latchReload = `
@group(0) @binding(0) var<storage, read_write> st: array<u32>;
@compute @workgroup_size(1)
fn reload() { st[0] = st[2]; }
`

// latchDec writes max(src[0], 1) - 1 to dst[0] (a condition computed into
// another buffer, then copied over the real one).
const latchDec = `
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(1)
fn dec() { dst[0] = max(src[0], 1u) - 1u; dst[1] = dst[1] + 1u; }
`

// latchShrink takes one from counts[0] (an indirect dispatch's x) down to 1.
const latchShrink = `
@group(0) @binding(0) var<storage, read_write> counts: array<u32>;
@compute @workgroup_size(1)
fn shrink() { if (counts[0] > 1u) { counts[0] = counts[0] - 1u; } }
`

type latchKernels struct {
	count, toggle, bump, countAt, peek, reload, dec, shrink *wgpu.Kernel
}

func latchCompile(t testing.TB, d *wgpu.Device) latchKernels {
	return latchKernels{
		count:   latchKernel(t, d, latchCountdown, "countdown"),
		toggle:  latchKernel(t, d, latchToggle, "toggle"),
		bump:    latchKernel(t, d, latchBump, "main"),
		countAt: latchKernel(t, d, latchCountAt, "countat"),
		peek:    latchKernel(t, d, latchPeek, "peek"),
		reload:  latchKernel(t, d, latchReload, "reload"),
		dec:     latchKernel(t, d, latchDec, "dec"),
		shrink:  latchKernel(t, d, latchShrink, "shrink"),
	}
}

// TestConditionsAndBodiesOfEveryKindReplayAsTheEagerStep: latched and gated
// regions in every arrangement — a condition near the end of a 1 MiB buffer
// that a later body kernel also reads, a condition written by a copy or a
// clear or a non-first kernel, indirect and empty dispatches in bodies, a
// top-level If holding a While holding an If, an If inside a While inside a
// While, consecutive latched loops on one condition buffer — replay bit for
// bit as the same step run eagerly, with and without predication. (Groups(0,
// 1, 1) is refused by Launch, so latchable's zero-count test of the first
// dispatch cannot be reached.)
func TestConditionsAndBodiesOfEveryKindReplayAsTheEagerStep(t *testing.T) {
	skipIfShort(t)
	latchModes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		cases := conditionCases(t, s, latchCompile(t, d))
		for i, cs := range cases {
			if !inDefaultSweep(i, on) {
				continue
			}
			t.Run(cs.name, func(t *testing.T) {
				var inits [][][]uint32
				for _, n := range []uint32{3, 0, 1, 2, 8} {
					inits = append(inits, cs.inits(n))
				}
				latchAgree(t, s, cs.bufs, inits, nil, cs.step)
			})
		}
	})
}

// conditionCase is a step with latched or gated regions, the buffers it
// uses and their initial contents for a condition n.
type conditionCase struct {
	name  string
	bufs  []*recorder.Buffer
	inits func(n uint32) [][]uint32
	step  func() error
}

// conditionCases are the arrangements of TestConditionsAndBodiesOfEveryKindReplayAsTheEagerStep,
// on buffers of s.
func conditionCases(t *testing.T, s *recorder.Stream, k latchKernels) []conditionCase {
	const bigWords = 1 << 18 // 1 MiB
	const W = bigWords - 4   // the condition's word
	one := recorder.Groups(1, 1, 1)
	v := gputest.UploadU32(t, s, latchZeros(16)...)
	u := gputest.UploadU32(t, s, latchZeros(16)...)
	w := gputest.UploadU32(t, s, latchZeros(16)...)
	out := gputest.UploadU32(t, s, latchZeros(8)...)
	st := gputest.UploadU32(t, s, 0, 0, 0)
	st2 := gputest.UploadU32(t, s, 0, 0, 0)
	flag := gputest.UploadU32(t, s, 0, 0)
	tmp := gputest.UploadU32(t, s, 0, 0)
	counts := gputest.UploadU32(t, s, 0, 0, 0)
	c := gputest.UploadU32(t, s, 0, 0)
	big, err := s.Alloc(bigWords * 4)
	if err != nil {
		t.Fatal(err)
	}
	bigInit := func(n uint32) []uint32 {
		bb := latchZeros(bigWords)
		bb[W-2], bb[W-1], bb[W], bb[W+1], bb[W+2], bb[W+3] = n/2+1, 5, n, 0, 0xdeadbeef, n
		return bb
	}
	bump := func(b *recorder.Buffer) error { return s.Launch(k.bump, recorder.Groups(2, 1, 1), b) }
	cd := func(b *recorder.Buffer) error { return s.Launch(k.count, one, b) }
	seq := func(fs ...func() error) error {
		for _, f := range fs {
			if err := f(); err != nil {
				return err
			}
		}
		return nil
	}
	cases := []conditionCase{
		{"condition near the end of a 1 MiB buffer, also read by a later body kernel",
			[]*recorder.Buffer{v, out, big}, func(n uint32) [][]uint32 { return [][]uint32{latchZeros(16), latchZeros(8), bigInit(n)} },
			func() error {
				return s.While(big, W*4, 6, func() error {
					return seq(func() error { return bump(v) },
						func() error {
							return s.Launch(k.peek, recorder.Groups(1, 1, 1), big, out, recorder.ParamsOf[uint32](W-2, 0, 0, 0))
						},
						func() error { return s.Launch(k.countAt, one, big, recorder.ParamsOf[uint32](W, W+1)) })
				})
			}},
		{"condition written by a copy (gates)",
			[]*recorder.Buffer{v, st, tmp}, func(n uint32) [][]uint32 { return [][]uint32{latchZeros(16), {n, 0, 0}, {0, 0}} },
			func() error {
				return s.While(st, 0, 5, func() error {
					return seq(func() error { return bump(v) },
						func() error { return s.Launch(k.dec, one, st, tmp) },
						func() error { return s.Copy(st, 0, tmp, 0, 4) })
				})
			}},
		{"condition cleared by a clear in an If inside the loop",
			[]*recorder.Buffer{v, st, flag}, func(n uint32) [][]uint32 { return [][]uint32{latchZeros(16), {n, 0, 0}, {n % 2, 0}} },
			func() error {
				return s.While(st, 0, 5, func() error {
					return seq(func() error { return bump(v) },
						func() error { return s.If(flag, 0, func() error { return s.Clear(st, 0, 4) }) },
						func() error { return s.Launch(k.toggle, one, flag) },
						func() error { return cd(st) })
				})
			}},
		{"a clear first in the body (gates), then a latch-capable dispatch",
			[]*recorder.Buffer{v, st, u}, func(n uint32) [][]uint32 {
				return [][]uint32{latchZeros(16), {n, 0, 0}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}
			},
			func() error {
				return s.While(st, 0, 5, func() error {
					return seq(func() error { return s.Clear(u, 8, 8) }, func() error { return bump(u) }, func() error { return cd(st) })
				})
			}},
		{"indirect dispatches whose counts the body changes",
			[]*recorder.Buffer{v, u, st, counts}, func(n uint32) [][]uint32 { return [][]uint32{latchZeros(16), latchZeros(16), {n, 0, 0}, {2, 1, 1}} },
			func() error {
				return s.While(st, 0, 5, func() error {
					return seq(func() error { return bump(v) },
						func() error { return s.Launch(k.bump, recorder.Indirect(counts, 0), u) },
						func() error { return s.Launch(k.shrink, one, counts) },
						func() error { return cd(st) })
				})
			}},
		{"an indirect dispatch first in the body",
			[]*recorder.Buffer{v, st, counts}, func(n uint32) [][]uint32 { return [][]uint32{latchZeros(16), {n, 0, 0}, {2, 1, 1}} },
			func() error {
				return s.While(st, 0, 5, func() error {
					return seq(func() error { return s.Launch(k.bump, recorder.Indirect(counts, 0), v) },
						func() error { return s.Launch(k.shrink, one, counts) },
						func() error { return cd(st) })
				})
			}},
		{"a top-level If holding a While holding an If",
			[]*recorder.Buffer{v, u, w, st, flag, c}, func(n uint32) [][]uint32 {
				return [][]uint32{latchZeros(16), latchZeros(16), latchZeros(16), {n, 0, 0}, {0, 0}, {0, n % 3}}
			},
			func() error {
				return s.If(c, 4, func() error {
					return seq(func() error { return bump(v) },
						func() error {
							return s.While(st, 0, 4, func() error {
								return seq(func() error { return s.Launch(k.toggle, one, flag) },
									func() error { return s.If(flag, 0, func() error { return bump(u) }) },
									func() error { return cd(st) })
							})
						},
						func() error { return bump(w) })
				})
			}},
		{"an If inside a While inside a While",
			[]*recorder.Buffer{v, u, st, st2, flag}, func(n uint32) [][]uint32 {
				return [][]uint32{latchZeros(16), latchZeros(16), {n, 0, 0}, {0, 0, n % 4}, {0, 0}}
			},
			func() error {
				return s.While(st, 0, 3, func() error {
					return seq(func() error { return bump(v) },
						func() error { return s.Launch(k.reload, one, st2) },
						func() error {
							return s.While(st2, 0, 3, func() error {
								return seq(func() error { return s.Launch(k.toggle, one, flag) },
									func() error { return s.If(flag, 0, func() error { return bump(u) }) },
									func() error { return cd(st2) })
							})
						},
						func() error { return cd(st) })
				})
			}},
		{"consecutive latched loops on two words of one buffer, the same first kernel",
			[]*recorder.Buffer{v, u, big}, func(n uint32) [][]uint32 { return [][]uint32{latchZeros(16), latchZeros(16), bigInit(n)} },
			func() error {
				for _, at := range []uint32{W, W - 2} {
					if err := s.While(big, uint64(at)*4, 4, func() error {
						return seq(func() error { return bump(v) },
							func() error { return bump(u) },
							func() error { return s.Launch(k.countAt, one, big, recorder.ParamsOf[uint32](at, at+1)) })
					}); err != nil {
						return err
					}
				}
				return s.If(big, W*4, func() error { return bump(u) })
			}},
	}
	return cases
}

var errMismatch = errors.New("WRONG RESULT")

// latchMul: v[i] = v[i] * mul + i + 1, mul an override.
const latchMul = `
override mul: u32 = 3u;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] * mul + g.x + 1u; }
`

// TestManyDistinctKernelsInALatchedBodyComputeAndReleaseEveryVariant: 48
// kernels (one source, 48 override values) in one latched While body, each
// with its own variant (the first a latching one): the loop computes the Go
// model's result, and releasing the kernels and the graph leaves no kernel
// or variant alive.
func TestManyDistinctKernelsInALatchedBodyComputeAndReleaseEveryVariant(t *testing.T) {
	skipIfShort(t)
	const nk, max = 48, 3
	latchModes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		drv, err := driver.Of(d)
		if err != nil {
			t.Fatal(err)
		}
		count := latchKernel(t, d, latchCountdown, "countdown")
		before := drv.Live().Kernels
		var ks []*wgpu.Kernel
		for i := range nk {
			k, err := d.Kernel(latchMul, "main", wgpu.WithConstants(map[string]float64{"mul": float64(i + 2)}))
			if err != nil {
				t.Fatal(err)
			}
			ks = append(ks, k)
		}
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, latchZeros(16)...)
		step := func() error {
			return s.While(st, 0, max, func() error {
				for _, k := range ks {
					if err := s.Launch(k, recorder.Groups(2, 1, 1), v); err != nil {
						return err
					}
				}
				return s.Launch(count, recorder.Groups(1, 1, 1), st)
			})
		}
		conds := []uint32{2, 0, 5}
		var inits [][][]uint32
		for _, n := range conds {
			inits = append(inits, [][]uint32{{n, 0}, latchZeros(16)})
		}
		model := func(i int) [][]uint32 {
			it := min(conds[i], max)
			v := latchZeros(16)
			for range it {
				for m := range nk {
					for j := range v {
						v[j] = v[j]*uint32(m+2) + uint32(j) + 1
					}
				}
			}
			return [][]uint32{{conds[i] - it, it}, v}
		}
		g := latchAgree(t, s, []*recorder.Buffer{st, v}, inits, model, step)
		if on && gputest.Predicates(d) {
			if n := strings.Count(g.String(), "(predicated)"); n < nk {
				t.Errorf("%d predicated kernels named, want at least %d: %s", n, nk, g.String())
			}
		}
		for _, k := range ks {
			k.Release()
		}
		g.Release()
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		// count's variants (made for the body) may stay with count.
		if live := drv.Live().Kernels; live > before+2 {
			t.Errorf("%d kernels alive after releasing the 48 kernels and the graph, want at most %d", live, before+2)
		}
	})
}

// TestALatchedLoopOfMaxWhileIterationsReplaysTheModel: a latched While of
// recorder.MaxWhileIterations iterations captures (its capture time is
// logged) and replays the Go model's result for counts below, at and
// beyond the bound; MaxWhileIterations+1 is refused.
func TestALatchedLoopOfMaxWhileIterationsReplaysTheModel(t *testing.T) {
	skipIfShort(t)
	const max = recorder.MaxWhileIterations
	latchModes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := latchKernel(t, d, latchCountdown, "countdown")
		bump := latchKernel(t, d, latchBump, "main")
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, latchZeros(8)...)
		setU32(t, s, st, 0, 0)
		start := time.Now()
		g, err := s.Capture(func() error {
			return s.While(st, 0, max, func() error {
				if err := s.Launch(bump, recorder.Groups(1, 1, 1), v); err != nil {
					return err
				}
				return s.Launch(count, recorder.Groups(1, 1, 1), st)
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Release()
		t.Logf("capture of a %d-iteration While: %v, %d dispatches", max, time.Since(start), g.Len())
		for _, n := range []uint32{0, 1, 3000, max, max + 7} {
			setU32(t, s, st, n, 0)
			setU32(t, s, v, latchZeros(8)...)
			start := time.Now()
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			it := min(n, max)
			gputest.WantEqual(t, "replay with n="+itoa(int(n)), [][]uint32{{n - it, it}, latchBumpModel(8, it)},
				[][]uint32{gputest.ReadU32(t, s, st), gputest.ReadU32(t, s, v)})
			t.Logf("replay with n=%d: %v", n, time.Since(start))
		}
		err = s.While(st, 0, max+1, func() error { return nil })
		if !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Errorf("While with maxIterations=MaxWhileIterations+1: want ErrInvalidArgument, got %v", err)
		}
	})
}

// TestTexturesAndSamplersInLatchedBodiesReplayAsTheEagerStep: body kernels
// reading a sampled texture (textureLoad, group 0) and sampling one through
// a sampler (group 1) — the guard's group after them — as the latching first
// dispatch and as a later one: replays equal the eager step.
func TestTexturesAndSamplersInLatchedBodiesReplayAsTheEagerStep(t *testing.T) {
	const loadSrc = `
@group(0) @binding(0) var tex: texture_2d<u32>;
@group(1) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn load(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = textureLoad(tex, vec2<i32>(i32(g.x % 8u), i32(g.x / 8u)), 0).x;
	v[g.x] = v[g.x] * 3u + t + 1u;
}
`
	const sampleSrc = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@group(1) @binding(0) var tex: texture_2d<f32>;
@group(1) @binding(1) var smp: sampler;
@compute @workgroup_size(8)
fn sample(@builtin(global_invocation_id) g: vec3<u32>) {
	let uv = (vec2<f32>(f32(g.x % 8u), f32(g.x / 8u)) + 0.5) / 8.0;
	let c = textureSampleLevel(tex, smp, uv, 0.0);
	v[g.x] = v[g.x] * 3u + u32(c.x * 255.0) + u32(c.w * 255.0);
}
`
	const max = 4
	latchModes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := latchKernel(t, d, latchCountdown, "countdown")
		toggle := latchKernel(t, d, latchToggle, "toggle")
		load := latchKernel(t, d, loadSrc, "load")
		sample := latchKernel(t, d, sampleSrc, "sample")
		texel := make([]byte, 8*8*4)
		rgba := make([]byte, 8*8*4)
		for i := range 64 {
			binary.LittleEndian.PutUint32(texel[4*i:], uint32(i*i+3))
			rgba[4*i], rgba[4*i+1], rgba[4*i+2], rgba[4*i+3] = byte(i*5), byte(i), byte(255-i), byte(i*3)
		}
		ut, err := s.UploadTexture(recorder.TextureDesc{Width: 8, Height: 8, Format: "r32uint"}, texel)
		if err != nil {
			t.Fatal(err)
		}
		ft, err := s.UploadTexture(recorder.TextureDesc{Width: 8, Height: 8, Format: "rgba8unorm"}, rgba)
		if err != nil {
			t.Fatal(err)
		}
		smp, err := s.NewSampler(recorder.SamplerDesc{})
		if err != nil {
			t.Fatal(err)
		}
		v := gputest.UploadU32(t, s, latchZeros(64)...)
		w := gputest.UploadU32(t, s, latchZeros(64)...)
		st := gputest.UploadU32(t, s, 0, 0)
		flag := gputest.UploadU32(t, s, 0, 0)
		for _, order := range []string{"load first", "sample first", "after a toggle"} {
			t.Run(order, func(t *testing.T) {
				step := func() error {
					return s.While(st, 0, max, func() error {
						launches := []func() error{
							func() error { return s.Launch(load, recorder.Groups(8, 1, 1), ut, v) },
							func() error { return s.Launch(sample, recorder.Groups(8, 1, 1), w, ft, smp) },
						}
						switch order {
						case "sample first":
							launches[0], launches[1] = launches[1], launches[0]
						case "after a toggle":
							launches = append([]func() error{func() error { return s.Launch(toggle, recorder.Groups(1, 1, 1), flag) }}, launches...)
						}
						for _, l := range launches {
							if err := l(); err != nil {
								return err
							}
						}
						return s.Launch(count, recorder.Groups(1, 1, 1), st)
					})
				}
				var inits [][][]uint32
				for _, n := range []uint32{2, 0, 7} {
					inits = append(inits, [][]uint32{{n, 0}, {0, 0}, latchZeros(64), latchZeros(64)})
				}
				g := latchAgree(t, s, []*recorder.Buffer{st, flag, v, w}, inits, nil, step)
				if on && gputest.Predicates(d) && order != "after a toggle" && strings.Contains(g.String(), "softgraph_gate") {
					t.Errorf("a texture kernel first in the body should latch: %s", g.String())
				}
			})
		}
	})
}

// TestAnF16KernelFirstInALatchedBodyReplaysAsTheEagerStep: an f16 kernel
// first in a While body, where the device compiles f16 at all (naga v22 does
// not: skipped with the reason).
func TestAnF16KernelFirstInALatchedBodyReplaysAsTheEagerStep(t *testing.T) {
	const src = `
enable f16;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let h = f16(g.x % 16u) * 2.0h;
	v[g.x] = v[g.x] * 3u + u32(h) + 1u;
}
`
	latchModes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		k, err := d.Kernel(src, "main")
		if err != nil {
			t.Skipf("f16 does not compile on this device: %v", err)
		}
		defer k.Release()
		count := latchKernel(t, d, latchCountdown, "countdown")
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, latchZeros(16)...)
		var inits [][][]uint32
		for _, n := range []uint32{2, 0, 9} {
			inits = append(inits, [][]uint32{{n, 0}, latchZeros(16)})
		}
		latchAgree(t, s, []*recorder.Buffer{st, v}, inits, nil, func() error {
			return s.While(st, 0, 4, func() error {
				if err := s.Launch(k, recorder.Groups(2, 1, 1), v); err != nil {
					return err
				}
				return s.Launch(count, recorder.Groups(1, 1, 1), st)
			})
		})
	})
}
