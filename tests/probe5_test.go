package tests

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// This file holds the fifth adversarial review: predicated If/While bodies
// (recorder.WithPredication, guarded and latching variants of body
// kernels, commits c6d52e3..e9c4a2f) attacked as a hostile user would.
// Every probe compares the replayed graph bit for bit with the eager run
// of the same step or with a Go model, predicated and not. Three found
// bugs, fixed since: an empty nested If/While before a command that needs
// a gate let the loop latch and that command never ran (recorder/control.go
// latchable); ProfileReplay with WithFloor reported the floor rounds'
// branches (recorder/profile.go); a loaded latched loop's Rebind onto its
// condition was refused with a conflict naming a binding the caller never
// made (now refused saying why: a loaded graph keeps its lowering).

// p5Countdown: st[0] is a loop condition n; each run takes one from it
// (down to 0) and counts itself in st[1].
const p5Countdown = `
@group(0) @binding(0) var<storage, read_write> st: array<u32>;
@compute @workgroup_size(1)
fn countdown() {
	if (st[0] > 0u) { st[0] = st[0] - 1u; }
	st[1] = st[1] + 1u;
}
`

// p5Bump: v[i] = v[i] * 3 + i + 1 over every element (one invocation per
// element, workgroups of 8): a result that depends on how often each
// element was reached.
const p5Bump = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	if (g.x < arrayLength(&v)) { v[g.x] = v[g.x] * 3u + g.x + 1u; }
}
`

// p5WideBump: one workgroup of one invocation per element (so a dispatch
// of n elements has n workgroups): v[i] = v[i] * 3 + i + 1.
const p5WideBump = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) w: vec3<u32>) {
	if (w.x < arrayLength(&v)) { v[w.x] = v[w.x] * 3u + w.x + 1u; }
}
`

func p5Set(t testing.TB, s *recorder.Stream, b *recorder.Buffer, v ...uint32) {
	t.Helper()
	if err := recorder.WriteSlice(s, b, 0, v); err != nil {
		t.Fatalf("WriteSlice: %v", err)
	}
}

// p5Kernel compiles entry of src on d, released when the test ends.
func p5Kernel(t testing.TB, d *wgpu.Device, src, entry string, opts ...wgpu.KernelOption) *wgpu.Kernel {
	t.Helper()
	k, err := d.Kernel(src, entry, opts...)
	if err != nil {
		t.Fatalf("Kernel(%s): %v", entry, err)
	}
	t.Cleanup(k.Release)
	return k
}

func p5Zeros(n int) []uint32 { return make([]uint32, n) }

// p5Modes runs f with predication on and off.
func p5Modes(t *testing.T, f func(t *testing.T, on bool)) {
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "predicated", false: "indirect"}[on], func(t *testing.T) { f(t, on) })
	}
}

// p5Agree captures step (with bufs set to inits[0] first), then for every
// init sets bufs, runs step eagerly and reads them, sets them again,
// replays the graph and reads them: both must agree bit for bit. When model
// is not nil the eager result must also equal model(i). It returns the
// graph (released at the end of the test).
func p5Agree(t *testing.T, s *recorder.Stream, bufs []*recorder.Buffer, inits [][][]uint32, model func(i int) [][]uint32, step func() error) *recorder.Graph {
	t.Helper()
	return p5AgreeWith(t, s, bufs, inits, model, step, step)
}

// p5AgreeWith is p5Agree with a captured step other than the eager one
// (a step replaying child graphs, checked against the steps they hold).
func p5AgreeWith(t *testing.T, s *recorder.Stream, bufs []*recorder.Buffer, inits [][][]uint32, model func(i int) [][]uint32, eager, captured func() error) *recorder.Graph {
	t.Helper()
	p5SetAll(t, s, bufs, inits[0])
	g, err := s.Capture(captured)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	t.Cleanup(g.Release)
	for i, init := range inits {
		p5SetAll(t, s, bufs, init)
		if err := eager(); err != nil {
			t.Fatalf("eager step %d: %v", i, err)
		}
		want := p5ReadAll(t, s, bufs)
		if model != nil {
			if m := model(i); !reflect.DeepEqual(m, want) {
				gputest.WantEqual(t, "eager run "+itoaP5(i)+" against the Go model", m, want)
			}
		}
		p5SetAll(t, s, bufs, init)
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay %d: %v", i, err)
		}
		if got := p5ReadAll(t, s, bufs); !reflect.DeepEqual(want, got) {
			gputest.WantEqual(t, "replay "+itoaP5(i)+" against the eager run of the same step", want, got)
		}
	}
	return g
}

func p5SetAll(t testing.TB, s *recorder.Stream, bufs []*recorder.Buffer, init [][]uint32) {
	t.Helper()
	for i, b := range bufs {
		p5Set(t, s, b, init[i]...)
	}
}

func p5ReadAll(t testing.TB, s *recorder.Stream, bufs []*recorder.Buffer) [][]uint32 {
	t.Helper()
	out := make([][]uint32, len(bufs))
	for i, b := range bufs {
		out[i] = gputest.ReadU32(t, s, b)
	}
	return out
}

func itoaP5(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoaP5(i/10) + digits[i%10:i%10+1]
}

// p5BumpModel applies p5Bump's update k times to zeros of length n.
func p5BumpModel(n int, k uint32) []uint32 {
	v := make([]uint32, n)
	for ; k > 0; k-- {
		for i := range v {
			v[i] = v[i]*3 + uint32(i) + 1
		}
	}
	return v
}

var _ = wgpu.Options{}

// TestProbe5EmptyNestedIfBeforeAnUnguardableCommand: a top-level While
// whose body is [latchable dispatch, an empty nested If (or While), X]
// where X has no guarded variant — a copy, a clear, a dispatch of more
// than 256 workgroups, a kernel using @group(3) — must not be latched (X
// needs a gate). latchable (recorder/control.go) once counted the command
// right after an empty nested region as inside it and latched the loop
// anyway; X then went to a slot no gate wrote and never ran. Every variant
// agrees with the eager step, predicated or not.
func TestProbe5EmptyNestedIfBeforeAnUnguardableCommand(t *testing.T) {
	const n, max = 16, 4
	for _, tail := range []string{"copy", "clear", "wide dispatch", "indirect dispatch", "kernel without a variant", "empty While instead of If"} {
		t.Run(tail, func(t *testing.T) {
			p5Modes(t, func(t *testing.T, on bool) {
				d, s := gputest.OpenStream(t, recorder.WithPredication(on))
				bump := gputest.Kernel(t, d, p5Bump)
				wide := gputest.Kernel(t, d, p5WideBump)
				last := p5Kernel(t, d, "@group(3) @binding(0) var<storage, read_write> w: array<u32>;\n@compute @workgroup_size(1)\nfn last() { w[0] = w[0] * 3u + 1u; }\n", "last")
				counts := gputest.UploadU32(t, s, 5, 1, 1)
				count := p5Kernel(t, d, p5Countdown, "countdown")
				st := gputest.UploadU32(t, s, 0, 0)
				never := gputest.UploadU32(t, s, 0)
				v := gputest.UploadU32(t, s, p5Zeros(n)...)
				w := gputest.UploadU32(t, s, p5Zeros(300)...)
				acc := gputest.UploadU32(t, s, p5Zeros(n*max)...)
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
					a := p5Zeros(n * max)
					for i := range a {
						a[i] = 7
					}
					inits = append(inits, [][]uint32{{c, 0}, {0}, p5Zeros(n), p5Zeros(300), a})
				}
				p5Agree(t, s, []*recorder.Buffer{st, never, v, w, acc}, inits, nil, step)
			})
		})
	}
}

// p5Toggle flips f[0] between 0 and 1 and counts its runs in f[1].
const p5Toggle = `
@group(0) @binding(0) var<storage, read_write> f: array<u32>;
@compute @workgroup_size(1)
fn toggle() { f[0] = 1u - f[0]; f[1] = f[1] + 1u; }
`

// p5Form is a body kernel written in an unusual way. Every form updates
// v (64 u32s) from every one of its invocations, so a guard that lets only
// some of them through shows in v; aux is a read-only ramp some forms read.
type p5Form struct {
	name, src, entry string
	consts           map[string]float64
	groups           recorder.Dispatch
	args             func(v, aux *recorder.Buffer) []recorder.Arg
	// guardable: the form has a plain guarded variant; latchable: it has a
	// latching one too (so, first in a top-level body, needs no gates).
	guardable, latchable bool
}

func p5V(v, aux *recorder.Buffer) []recorder.Arg { return []recorder.Arg{v} }

const p5FormN = 64

var p5Forms = []p5Form{
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

// TestProbe5UnusualWGSLInBodies: every unusual form of body kernel, as the
// first dispatch of a top-level While (a latching variant), as a later one
// (a plain guarded variant), alone in a top-level If reading its condition
// at a non-zero offset, and inside an If nested in a latched While (gated
// by a gate that reads the latch), computes bit for bit what the eager
// step computes, predicated or not. Forms with a variant must get it (and
// a latching one no gate dispatches); forms without fall back to gates.
func TestProbe5UnusualWGSLInBodies(t *testing.T) {
	const max = 5
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := p5Kernel(t, d, p5Countdown, "countdown")
		toggle := p5Kernel(t, d, p5Toggle, "toggle")
		ramp := make([]uint32, p5FormN)
		for i := range ramp {
			ramp[i] = uint32(i*i + 1)
		}
		for _, f := range p5Forms {
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
					groups = recorder.Groups(p5FormN/8, 1, 1)
				}
				args := f.args
				if args == nil {
					args = p5V
				}
				v := gputest.UploadU32(t, s, p5Zeros(p5FormN)...)
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
						inits = append(inits, [][]uint32{p5Zeros(p5FormN), {n, 0}, {0, 0}, {0, 0, 0, n % 2 * n}})
					}
					g := p5Agree(t, s, []*recorder.Buffer{v, st, flag, c}, inits, nil, l.step)
					if nz := gputest.ReadU32(t, s, v); slices.Equal(nz, p5Zeros(p5FormN)) && li != 2 {
						t.Errorf("%s: the last run left v all zeros: the probe computes nothing", l.name)
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

// p5FlatA: workgroups of size (1), flat index from global id and
// num_workgroups only (a latch must add both builtins it needs).
const p5FlatA = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(1)
fn flat(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
	let i = g.x + n.x * (g.y + n.y * g.z);
	v[i] = v[i] * 3u + i + 1u;
}
`

// p5FlatB: workgroups of 256, flat index from workgroup id and local
// index (a latch takes both from the parameters).
const p5FlatB = `
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(256)
fn flat(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
	let i = (w.x + n.x * (w.y + n.y * w.z)) * 256u + li;
	v[i] = v[i] * 3u + i + 1u;
}
`

// TestProbe5MultiDimensionalLatchingDispatches: a latching first dispatch
// of 1..257 workgroups in every shape (y and z above 1), workgroup sizes 1
// and 256, followed by a guarded dispatch that reads the latch's enable
// word: the enable word must be written by exactly the dispatch's first
// invocation whatever the shape, and 257 workgroups must fall back to
// gates. Each iteration count agrees with the Go model and the eager run.
func TestProbe5MultiDimensionalLatchingDispatches(t *testing.T) {
	const max = 3
	shapes := []struct {
		src      string
		wg       uint32
		x, y, z  uint32
		latching bool
	}{
		{p5FlatA, 1, 16, 4, 4, true},
		{p5FlatA, 1, 1, 1, 256, true},
		{p5FlatA, 1, 1, 256, 1, true},
		{p5FlatA, 1, 2, 2, 64, true},
		{p5FlatA, 1, 257, 1, 1, false},
		{p5FlatA, 1, 1, 1, 257, false},
		{p5FlatB, 256, 4, 8, 8, true},
		{p5FlatB, 256, 1, 1, 1, true},
		{p5FlatB, 256, 1, 257, 1, false},
	}
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := p5Kernel(t, d, p5Countdown, "countdown")
		bump := p5Kernel(t, d, p5Bump, "main")
		for _, sh := range shapes {
			name := "wg" + itoaP5(int(sh.wg)) + "_" + itoaP5(int(sh.x)) + "x" + itoaP5(int(sh.y)) + "x" + itoaP5(int(sh.z))
			t.Run(name, func(t *testing.T) {
				k := p5Kernel(t, d, sh.src, "flat")
				n := int(sh.wg * sh.x * sh.y * sh.z)
				v := gputest.UploadU32(t, s, p5Zeros(n)...)
				u := gputest.UploadU32(t, s, p5Zeros(16)...)
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
					inits = append(inits, [][]uint32{{c, 0}, p5Zeros(n), p5Zeros(16)})
				}
				model := func(i int) [][]uint32 {
					it := min(conds[i], max)
					return [][]uint32{{conds[i] - it, it}, p5BumpModel(n, it), p5BumpModel(16, it)}
				}
				g := p5Agree(t, s, []*recorder.Buffer{st, v, u}, inits, model, step)
				if on && gputest.Predicates(d) {
					if gates := strings.Contains(g.String(), "softgraph_gate"); gates == sh.latching {
						t.Errorf("gate dispatches: %v, want %v: %s", gates, !sh.latching, g.String())
					}
				}
			})
		}
	})
}

// p5CountAt counts down big[p.x] (to 0) and counts its runs in big[p.y].
const p5CountAt = `
struct P { at: u32, cnt: u32 }
@group(0) @binding(0) var<storage, read_write> big: array<u32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1)
fn countat() { if (big[p.at] > 0u) { big[p.at] = big[p.at] - 1u; } big[p.cnt] = big[p.cnt] + 1u; }
`

// p5Peek reads four words of big from p.x on (read-only) into out.
const p5Peek = `
@group(0) @binding(0) var<storage, read> big: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> p: vec4<u32>;
@compute @workgroup_size(8)
fn peek(@builtin(global_invocation_id) g: vec3<u32>) {
	if (g.x < arrayLength(&out)) { out[g.x] = out[g.x] * 3u + big[p.x + g.x % 4u] + 1u; }
}
`

// p5Reload sets st[0] = st[2] (restarts an inner loop's condition).
const p5Reload = `
@group(0) @binding(0) var<storage, read_write> st: array<u32>;
@compute @workgroup_size(1)
fn reload() { st[0] = st[2]; }
`

// p5Dec writes max(src[0], 1) - 1 to dst[0] (a condition computed into
// another buffer, then copied over the real one).
const p5Dec = `
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(1)
fn dec() { dst[0] = max(src[0], 1u) - 1u; dst[1] = dst[1] + 1u; }
`

// p5Shrink takes one from counts[0] (an indirect dispatch's x) down to 1.
const p5Shrink = `
@group(0) @binding(0) var<storage, read_write> counts: array<u32>;
@compute @workgroup_size(1)
fn shrink() { if (counts[0] > 1u) { counts[0] = counts[0] - 1u; } }
`

type p5Kernels struct {
	count, toggle, bump, countAt, peek, reload, dec, shrink *wgpu.Kernel
}

func p5Compile(t testing.TB, d *wgpu.Device) p5Kernels {
	return p5Kernels{
		count:   p5Kernel(t, d, p5Countdown, "countdown"),
		toggle:  p5Kernel(t, d, p5Toggle, "toggle"),
		bump:    p5Kernel(t, d, p5Bump, "main"),
		countAt: p5Kernel(t, d, p5CountAt, "countat"),
		peek:    p5Kernel(t, d, p5Peek, "peek"),
		reload:  p5Kernel(t, d, p5Reload, "reload"),
		dec:     p5Kernel(t, d, p5Dec, "dec"),
		shrink:  p5Kernel(t, d, p5Shrink, "shrink"),
	}
}

// TestProbe5ConditionsAndBodiesOfEveryKind: latched and gated regions in
// every arrangement the brief lists — a condition near the end of a 1 MiB
// buffer that a later body kernel also reads, a condition written by a
// copy or a clear or a non-first kernel, indirect and empty dispatches in
// bodies, a top-level If holding a While holding an If, an If inside a
// While inside a While, consecutive latched loops on one condition buffer
// — replay bit for bit as the same step run eagerly, with and without
// predication. (Groups(0, 1, 1) is refused by Launch, so latchable's
// zero-count test of the first dispatch cannot be reached.)
func TestProbe5ConditionsAndBodiesOfEveryKind(t *testing.T) {
	const bigWords = 1 << 18 // 1 MiB
	const W = bigWords - 4   // the condition's word
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		k := p5Compile(t, d)
		one := recorder.Groups(1, 1, 1)
		v := gputest.UploadU32(t, s, p5Zeros(16)...)
		u := gputest.UploadU32(t, s, p5Zeros(16)...)
		w := gputest.UploadU32(t, s, p5Zeros(16)...)
		out := gputest.UploadU32(t, s, p5Zeros(8)...)
		st := gputest.UploadU32(t, s, 0, 0, 0)
		st2 := gputest.UploadU32(t, s, 0, 0, 0)
		flag := gputest.UploadU32(t, s, 0, 0)
		tmp := gputest.UploadU32(t, s, 0, 0)
		counts := gputest.UploadU32(t, s, 0, 0, 0)
		c := gputest.UploadU32(t, s, 0, 0)
		big, err := s.Empty(bigWords * 4)
		if err != nil {
			t.Fatal(err)
		}
		bigInit := func(n uint32) []uint32 {
			bb := p5Zeros(bigWords)
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
		cases := []struct {
			name  string
			bufs  []*recorder.Buffer
			inits func(n uint32) [][]uint32
			step  func() error
		}{
			{"condition near the end of a 1 MiB buffer, also read by a later body kernel",
				[]*recorder.Buffer{v, out, big}, func(n uint32) [][]uint32 { return [][]uint32{p5Zeros(16), p5Zeros(8), bigInit(n)} },
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
				[]*recorder.Buffer{v, st, tmp}, func(n uint32) [][]uint32 { return [][]uint32{p5Zeros(16), {n, 0, 0}, {0, 0}} },
				func() error {
					return s.While(st, 0, 5, func() error {
						return seq(func() error { return bump(v) },
							func() error { return s.Launch(k.dec, one, st, tmp) },
							func() error { return s.Copy(st, 0, tmp, 0, 4) })
					})
				}},
			{"condition cleared by a clear in an If inside the loop",
				[]*recorder.Buffer{v, st, flag}, func(n uint32) [][]uint32 { return [][]uint32{p5Zeros(16), {n, 0, 0}, {n % 2, 0}} },
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
					return [][]uint32{p5Zeros(16), {n, 0, 0}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}
				},
				func() error {
					return s.While(st, 0, 5, func() error {
						return seq(func() error { return s.Clear(u, 8, 8) }, func() error { return bump(u) }, func() error { return cd(st) })
					})
				}},
			{"indirect dispatches whose counts the body changes",
				[]*recorder.Buffer{v, u, st, counts}, func(n uint32) [][]uint32 { return [][]uint32{p5Zeros(16), p5Zeros(16), {n, 0, 0}, {2, 1, 1}} },
				func() error {
					return s.While(st, 0, 5, func() error {
						return seq(func() error { return bump(v) },
							func() error { return s.Launch(k.bump, recorder.Indirect(counts, 0), u) },
							func() error { return s.Launch(k.shrink, one, counts) },
							func() error { return cd(st) })
					})
				}},
			{"an indirect dispatch first in the body",
				[]*recorder.Buffer{v, st, counts}, func(n uint32) [][]uint32 { return [][]uint32{p5Zeros(16), {n, 0, 0}, {2, 1, 1}} },
				func() error {
					return s.While(st, 0, 5, func() error {
						return seq(func() error { return s.Launch(k.bump, recorder.Indirect(counts, 0), v) },
							func() error { return s.Launch(k.shrink, one, counts) },
							func() error { return cd(st) })
					})
				}},
			{"a top-level If holding a While holding an If",
				[]*recorder.Buffer{v, u, w, st, flag, c}, func(n uint32) [][]uint32 {
					return [][]uint32{p5Zeros(16), p5Zeros(16), p5Zeros(16), {n, 0, 0}, {0, 0}, {0, n % 3}}
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
					return [][]uint32{p5Zeros(16), p5Zeros(16), {n, 0, 0}, {0, 0, n % 4}, {0, 0}}
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
				[]*recorder.Buffer{v, u, big}, func(n uint32) [][]uint32 { return [][]uint32{p5Zeros(16), p5Zeros(16), bigInit(n)} },
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
		for _, cs := range cases {
			t.Run(cs.name, func(t *testing.T) {
				var inits [][][]uint32
				for _, n := range []uint32{3, 0, 1, 2, 8} {
					inits = append(inits, cs.inits(n))
				}
				p5Agree(t, s, cs.bufs, inits, nil, cs.step)
			})
		}
	})
}

// p5IndexOf is b's index in g.Buffers(), or fails t.
func p5IndexOf(t testing.TB, g *recorder.Graph, b *recorder.Buffer) int {
	t.Helper()
	i := slices.Index(g.Buffers(), b)
	if i < 0 {
		t.Fatalf("the graph does not list %v in Buffers()", b)
	}
	return i
}

// p5Describe runs String and WriteDOT, which must not panic or fail.
func p5Describe(t testing.TB, what string, g *recorder.Graph) string {
	t.Helper()
	var str string
	if p := noPanic(func() { str = g.String() }); p != "" {
		t.Fatalf("%s: String panicked: %s", what, p)
	}
	var dot bytes.Buffer
	var err error
	if p := noPanic(func() { err = g.WriteDOT(&dot) }); p != "" || err != nil {
		t.Fatalf("%s: WriteDOT: panic %q, error %v", what, p, err)
	}
	if !strings.HasPrefix(dot.String(), "digraph") && !strings.Contains(dot.String(), "digraph") {
		t.Errorf("%s: WriteDOT wrote no digraph: %q", what, dot.String())
	}
	return str
}

// TestProbe5LatchedGraphsThroughFilesRebindProfileAndChildren: a graph
// with a latched While (holding a gated If) and a latched top-level If
// goes through every Graph call: it replays as the eager step does; Save
// and LoadGraph (on the same device, again from the loaded graph, and on
// a second device) give graphs that replay identically, report the same
// branches in ProfileReplay and describe themselves; Rebind of a body
// buffer and of the first dispatch's buffer onto the condition works on
// the captured graph (lowered anew with gates) and, without predication, on
// the loaded one; a loaded latched loop keeps its lowering, whose guard
// binds the condition, so that rebinding is refused saying why; the graph
// replayed as a child at top level and inside an If computes what its step
// does there (and so does that parent graph rebound); a loaded graph with
// control flow is refused as a child, cleanly.
func TestProbe5LatchedGraphsThroughFilesRebindProfileAndChildren(t *testing.T) {
	const max = 6
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		k := p5Compile(t, d)
		one := recorder.Groups(1, 1, 1)
		st := gputest.UploadU32(t, s, 0, 0)
		flag := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, p5Zeros(16)...)
		v2 := gputest.UploadU32(t, s, p5Zeros(16)...)
		u := gputest.UploadU32(t, s, p5Zeros(16)...)
		w := gputest.UploadU32(t, s, p5Zeros(16)...)
		c := gputest.UploadU32(t, s, 0)
		stepOn := func(cond, first, body *recorder.Buffer) func() error {
			return func() error {
				if err := s.While(cond, 0, max, func() error {
					if err := s.Launch(k.toggle, one, first); err != nil {
						return err
					}
					if err := s.If(first, 0, func() error { return s.Launch(k.bump, recorder.Groups(2, 1, 1), body) }); err != nil {
						return err
					}
					if err := s.Launch(k.bump, recorder.Groups(2, 1, 1), u); err != nil {
						return err
					}
					return s.Launch(k.count, one, cond)
				}); err != nil {
					return err
				}
				return s.If(c, 0, func() error { return s.Launch(k.bump, recorder.Groups(2, 1, 1), w) })
			}
		}
		step := stepOn(st, flag, v)
		bufs := []*recorder.Buffer{st, flag, v, u, w, c}
		conds := []uint32{3, 0, 1, 6, 9}
		var inits [][][]uint32
		for _, n := range conds {
			inits = append(inits, [][]uint32{{n, 0}, {0, 0}, p5Zeros(16), p5Zeros(16), p5Zeros(16), {n % 2}})
		}
		model := func(i int) [][]uint32 {
			n := conds[i]
			it := min(n, max)
			ifs := (it + 1) / 2
			var wv []uint32
			if n%2 == 1 {
				wv = p5BumpModel(16, 1)
			} else {
				wv = p5Zeros(16)
			}
			return [][]uint32{{n - it, it}, {it % 2, it}, p5BumpModel(16, ifs), p5BumpModel(16, it), wv, {n % 2}}
		}
		g := p5Agree(t, s, bufs, inits, model, step)
		str := p5Describe(t, "captured", g)
		if on && gputest.Predicates(d) && strings.Count(str, "softgraph_gate") != 1 {
			t.Errorf("only the nested If should keep gates (softgraph_gate ×%d): %s", max, str)
		}

		// ProfileReplay: which bodies ran, against the model.
		wantRan := func(n uint32) [][]bool {
			it := min(n, max)
			w, in := make([]bool, max), make([]bool, max)
			for i := range it {
				w[i] = true
				in[i] = i%2 == 0
			}
			return [][]bool{w, in, {n%2 == 1}}
		}
		ran := func(p recorder.ReplayProfile) [][]bool {
			var out [][]bool
			for _, b := range p.Branches {
				out = append(out, b.Ran)
			}
			return out
		}
		for i, n := range conds {
			p5SetAll(t, s, bufs, inits[i])
			p, err := s.ProfileReplay(g)
			if err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, "ProfileReplay's branches with n="+itoaP5(int(n)), wantRan(n), ran(p))
			gputest.WantEqual(t, "the profiled replay computes as the eager run", model(i), p5ReadAll(t, s, bufs))
		}

		// Graph files: same device, twice through a file, second device.
		save := func(g *recorder.Graph) []byte {
			var file bytes.Buffer
			if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
				t.Fatal(err)
			}
			return file.Bytes()
		}
		idx := make([]int, len(bufs))
		for i, b := range bufs {
			idx[i] = p5IndexOf(t, g, b)
		}
		checkLoaded := func(what string, s2 *recorder.Stream, l *recorder.Graph) {
			t.Helper()
			lb := l.Buffers()
			if len(lb) != len(g.Buffers()) {
				t.Fatalf("%s: %d buffers, the saved graph had %d", what, len(lb), len(g.Buffers()))
			}
			mine := make([]*recorder.Buffer, len(bufs))
			for i := range bufs {
				mine[i] = lb[idx[i]]
				if mine[i].Size() != bufs[i].Size() {
					t.Fatalf("%s: buffer %d is %d bytes, was %d", what, idx[i], mine[i].Size(), bufs[i].Size())
				}
			}
			for i, n := range conds {
				p5SetAll(t, s2, mine, inits[i])
				if err := l.Replay(); err != nil {
					t.Fatalf("%s: Replay: %v", what, err)
				}
				gputest.WantEqual(t, what+": replay with n="+itoaP5(int(n)), model(i), p5ReadAll(t, s2, mine))
				p5SetAll(t, s2, mine, inits[i])
				p, err := s2.ProfileReplay(l)
				if err != nil {
					t.Fatal(err)
				}
				gputest.WantEqual(t, what+": ProfileReplay's branches with n="+itoaP5(int(n)), wantRan(n), ran(p))
			}
			if ls := p5Describe(t, what, l); ls != str {
				t.Logf("%s describes itself differently:\n  captured: %s\n  loaded:   %s", what, str, ls)
			}
		}
		file := save(g)
		l, err := s.LoadGraph(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("LoadGraph: %v", err)
		}
		defer l.Release()
		checkLoaded("loaded on the same device", s, l)
		l2, err := s.LoadGraph(bytes.NewReader(save(l)))
		if err != nil {
			t.Fatalf("LoadGraph of a loaded graph's file: %v", err)
		}
		defer l2.Release()
		checkLoaded("loaded from the loaded graph's file", s, l2)
		d2 := gputest.Open(t, wgpu.Options{})
		s2 := gputest.Stream(t, d2, recorder.WithPredication(on))
		l3, err := s2.LoadGraph(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("LoadGraph on a second device: %v", err)
		}
		defer l3.Release()
		checkLoaded("loaded on a second device", s2, l3)

		// Rebind a body buffer, on the captured and on the loaded graph.
		for _, gr := range []struct {
			what string
			g    *recorder.Graph
		}{{"captured", g}, {"loaded", l}} {
			t.Run("Rebind the If body's buffer, "+gr.what, func(t *testing.T) {
				old, mine := v, bufs
				if gr.g == l {
					lb := l.Buffers()
					old = lb[idx[2]]
					mine = []*recorder.Buffer{lb[idx[0]], lb[idx[1]], lb[idx[2]], lb[idx[3]], lb[idx[4]], lb[idx[5]]}
				}
				rb, err := gr.g.Rebind(old, v2)
				if err != nil {
					t.Fatalf("Rebind(v, v2): %v", err)
				}
				defer rb.Release()
				for i, n := range conds {
					p5SetAll(t, s, bufs, inits[i])
					p5Set(t, s, v2, p5Zeros(16)...)
					if err := stepOn(st, flag, v2)(); err != nil {
						t.Fatal(err)
					}
					want := append(p5ReadAll(t, s, bufs), gputest.ReadU32(t, s, v2))
					p5SetAll(t, s, mine, inits[i])
					p5Set(t, s, v2, p5Zeros(16)...)
					if err := rb.Replay(); err != nil {
						t.Fatal(err)
					}
					got := append(p5ReadAll(t, s, mine), gputest.ReadU32(t, s, v2))
					gputest.WantEqual(t, "the rebound graph against the eager step on v2, n="+itoaP5(int(n)), want, got)
				}
			})
			t.Run("Rebind the condition, "+gr.what, func(t *testing.T) {
				old, mine := st, bufs
				if gr.g == l {
					lb := l.Buffers()
					old = lb[idx[0]]
					mine = []*recorder.Buffer{lb[idx[0]], lb[idx[1]], lb[idx[2]], lb[idx[3]], lb[idx[4]], lb[idx[5]]}
				}
				st2 := gputest.UploadU32(t, s, 0, 0)
				rb, err := gr.g.Rebind(old, st2)
				if err != nil {
					t.Fatalf("Rebind(st, st2): %v", err)
				}
				defer rb.Release()
				for i, n := range conds {
					p5SetAll(t, s, bufs, inits[i])
					p5Set(t, s, st2, n+1, 0)
					p5Set(t, s, st, 100, 100)
					if err := stepOn(st2, flag, v)(); err != nil {
						t.Fatal(err)
					}
					want := append(p5ReadAll(t, s, bufs), gputest.ReadU32(t, s, st2))
					p5SetAll(t, s, mine, inits[i])
					p5Set(t, s, st2, n+1, 0)
					p5Set(t, s, mine[0], 100, 100)
					p, err := s.ProfileReplay(rb)
					if err != nil {
						t.Fatal(err)
					}
					got := append(p5ReadAll(t, s, mine), gputest.ReadU32(t, s, st2))
					gputest.WantEqual(t, "the graph rebound to st2 against the eager step on st2, n="+itoaP5(int(n)), want, got)
					gputest.WantEqual(t, "ProfileReplay's branches of the rebound graph, n+1="+itoaP5(int(n+1)), wantRan(n + 1)[:2], ran(p)[:2])
				}
			})
			t.Run("Rebind the latching dispatch's buffer onto the condition, "+gr.what, func(t *testing.T) {
				old, cond, mine := flag, st, bufs
				if gr.g == l {
					lb := l.Buffers()
					old, cond = lb[idx[1]], lb[idx[0]]
					mine = []*recorder.Buffer{lb[idx[0]], lb[idx[1]], lb[idx[2]], lb[idx[3]], lb[idx[4]], lb[idx[5]]}
				}
				rb, err := gr.g.Rebind(old, cond)
				if gr.g == l && on && gputest.Predicates(d) {
					// A loaded graph keeps its lowering: its latching
					// dispatch's guard binds the condition, and the
					// rebinding is refused, saying why (design.md).
					gputest.WantErr(t, "Rebind of a loaded latched loop's first buffer onto its condition", err,
						[]error{recorder.ErrInvalidArgument}, "guarded variant", "capture the step instead")
					return
				}
				if err != nil {
					t.Fatalf("Rebind(first dispatch's buffer, condition) on the %s graph (the captured one accepts it, lowering the loop with gates): %v", gr.what, err)
				}
				defer rb.Release()
				for i, n := range conds {
					p5SetAll(t, s, bufs, inits[i])
					if err := stepOn(st, st, v)(); err != nil {
						t.Fatal(err)
					}
					want := p5ReadAll(t, s, bufs)
					p5SetAll(t, s, mine, inits[i])
					if err := rb.Replay(); err != nil {
						t.Fatal(err)
					}
					gputest.WantEqual(t, "the rebound graph against the eager step, n="+itoaP5(int(n)), want, p5ReadAll(t, s, mine))
				}
			})
		}

		// Child graphs: g replayed at top level and inside an If.
		t.Run("as a child graph", func(t *testing.T) {
			x := gputest.UploadU32(t, s, p5Zeros(16)...)
			cx := gputest.UploadU32(t, s, 0)
			wrap := func(inner func() error) func() error {
				return func() error {
					if err := s.Launch(k.bump, recorder.Groups(2, 1, 1), x); err != nil {
						return err
					}
					if err := inner(); err != nil {
						return err
					}
					return s.If(cx, 0, inner)
				}
			}
			var cinits [][][]uint32
			for i, n := range conds {
				cinits = append(cinits, append(append([][]uint32(nil), inits[i]...), p5Zeros(16), []uint32{n % 3}))
			}
			all := append(append([]*recorder.Buffer(nil), bufs...), x, cx)
			b := p5AgreeWith(t, s, all, cinits, nil, wrap(step), wrap(g.Replay))
			rb, err := b.Rebind(v, v2)
			if err != nil {
				t.Fatalf("Rebind of a graph holding the child's regions: %v", err)
			}
			defer rb.Release()
			for i := range conds {
				p5SetAll(t, s, all, cinits[i])
				p5Set(t, s, v2, p5Zeros(16)...)
				if err := wrap(stepOn(st, flag, v2))(); err != nil {
					t.Fatal(err)
				}
				want := append(p5ReadAll(t, s, all), gputest.ReadU32(t, s, v2))
				p5SetAll(t, s, all, cinits[i])
				p5Set(t, s, v2, p5Zeros(16)...)
				if err := rb.Replay(); err != nil {
					t.Fatal(err)
				}
				gputest.WantEqual(t, "the rebound parent graph against its eager step on v2", want, append(p5ReadAll(t, s, all), gputest.ReadU32(t, s, v2)))
			}
		})
		t.Run("a loaded graph with control flow as a child", func(t *testing.T) {
			_, err := s.Capture(func() error { return l.Replay() })
			if !errors.Is(err, wgpu.ErrInvalidArgument) {
				t.Fatalf("including a loaded graph with If/While: want ErrInvalidArgument, got %v", err)
			}
			if st := s.State(); st != lifecycle.NoCapture {
				t.Fatalf("after the refused capture the stream is in %v", st)
			}
			p5SetAll(t, s, bufs, inits[0])
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, "the stream still replays", model(0), p5ReadAll(t, s, bufs))
		})
	})
}

// p5LoopRun captures, on s, a latched While (kernel first, then a nested
// If, then the countdown) and replays it for each condition, comparing
// with the Go model; it returns the first error or mismatch. For use from
// goroutines (no testing.T).
func p5LoopRun(s *recorder.Stream, first, bump, toggle, count *wgpu.Kernel, conds []uint32) error {
	const max = 5
	one := recorder.Groups(1, 1, 1)
	st, err := recorder.UploadSlice(s, []uint32{0, 0})
	if err != nil {
		return err
	}
	defer st.Release()
	flag, err := recorder.UploadSlice(s, []uint32{0, 0})
	if err != nil {
		return err
	}
	defer flag.Release()
	v, err := recorder.UploadSlice(s, p5Zeros(16))
	if err != nil {
		return err
	}
	defer v.Release()
	u, err := recorder.UploadSlice(s, p5Zeros(16))
	if err != nil {
		return err
	}
	defer u.Release()
	g, err := s.Capture(func() error {
		return s.While(st, 0, max, func() error {
			if err := s.Launch(first, recorder.Groups(2, 1, 1), v); err != nil {
				return err
			}
			if err := s.Launch(toggle, one, flag); err != nil {
				return err
			}
			if err := s.If(flag, 0, func() error { return s.Launch(bump, recorder.Groups(2, 1, 1), u) }); err != nil {
				return err
			}
			return s.Launch(count, one, st)
		})
	})
	if err != nil {
		return err
	}
	defer g.Release()
	for _, n := range conds {
		for _, w := range []struct {
			b *recorder.Buffer
			v []uint32
		}{{st, []uint32{n, 0}}, {flag, []uint32{0, 0}}, {v, p5Zeros(16)}, {u, p5Zeros(16)}} {
			if err := recorder.WriteSlice(s, w.b, 0, w.v); err != nil {
				return err
			}
		}
		if err := g.Replay(); err != nil {
			return err
		}
		it := min(n, max)
		want := [][]uint32{{n - it, it}, {it % 2, it}, p5BumpModel(16, it), p5BumpModel(16, (it+1)/2)}
		var got [][]uint32
		for _, b := range []*recorder.Buffer{st, flag, v, u} {
			r, err := recorder.ReadSlice[uint32](s, b)
			if err != nil {
				return err
			}
			got = append(got, r)
		}
		if !reflect.DeepEqual(want, got) {
			return fmt.Errorf("%w: replay with n=%d: got %v, want %v", errP5Mismatch, n, got, want)
		}
	}
	return nil
}

var errP5Mismatch = errors.New("WRONG RESULT")

// TestProbe5ConcurrentLatchedLoopsOnStreamsOfOneDevice: goroutines on
// streams of one device (half predicated, half not) capture and replay
// latched loops built from the same kernels at once — the variants are
// made once per device and shared — and every replay matches the model.
func TestProbe5ConcurrentLatchedLoopsOnStreamsOfOneDevice(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	bump := p5Kernel(t, d, p5Bump, "main")
	toggle := p5Kernel(t, d, p5Toggle, "toggle")
	count := p5Kernel(t, d, p5Countdown, "countdown")
	const workers, rounds = 4, 4
	var streams []*recorder.Stream
	for i := range workers {
		streams = append(streams, gputest.Stream(t, d, recorder.WithPredication(i%2 == 0)))
	}
	errs := make(chan error, workers)
	for i := range workers {
		go func() {
			for r := range rounds {
				if err := p5LoopRun(streams[i], bump, bump, toggle, count, []uint32{uint32(r + i), 0, 7}); err != nil {
					errs <- fmt.Errorf("worker %d round %d: %w", i, r, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		select {
		case err := <-errs:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the workers hung")
		}
	}
}

// TestProbe5KernelReleaseRacingLatchedCaptures: a kernel that is the
// latching first dispatch (or the kernel of an If nested in the loop) of
// While bodies being captured on several streams is released at a random
// moment, then compiled again, over many
// rounds. Every capture either fails with an error wrapping ErrReleased
// or seals a graph that replays exactly as the model says (after the
// Release too); nothing crashes or hangs, and once everything is released
// no kernel (original or variant) is left alive beyond the shared ones.
func TestProbe5KernelReleaseRacingLatchedCaptures(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		d := gputest.Open(t, wgpu.Options{})
		bump := p5Kernel(t, d, p5Bump, "main")
		toggle := p5Kernel(t, d, p5Toggle, "toggle")
		count := p5Kernel(t, d, p5Countdown, "countdown")
		const workers, rounds = 3, 12
		var streams []*recorder.Stream
		for i := range workers {
			streams = append(streams, gputest.Stream(t, d, recorder.WithPredication(i != 2)))
		}
		ok, refused := 0, 0
		deadline := time.AfterFunc(90*time.Second, func() { panic("TestProbe5KernelReleaseRacingLatchedCaptures hung") })
		defer deadline.Stop()
		for r := range rounds {
			// A distinct source each round: a fresh kernel, fresh variants.
			k, err := d.Kernel(p5Bump+"\n// round "+itoaP5(r)+"\n", "main")
			if err != nil {
				t.Fatal(err)
			}
			errs := make(chan error, workers)
			// Even rounds: k is the latching first dispatch; odd rounds: the
			// kernel of the If nested in the loop (a plain variant, gated).
			first, nested := k, bump
			if r%2 == 1 {
				first, nested = bump, k
			}
			for i := range workers {
				go func() { errs <- p5LoopRun(streams[i], first, nested, toggle, count, []uint32{3, 0, 9}) }()
			}
			time.Sleep(time.Duration(r) * 700 * time.Microsecond)
			k.Release()
			for range workers {
				err := <-errs
				switch {
				case err == nil:
					ok++
				case errors.Is(err, errP5Mismatch):
					t.Errorf("round %d: %v", r, err)
				case errors.Is(err, wgpu.ErrReleased):
					refused++
				default:
					t.Errorf("round %d: an error that does not wrap ErrReleased: %v", r, err)
				}
			}
		}
		t.Logf("%d captures sealed and replayed correctly, %d refused with ErrReleased", ok, refused)
		for _, s := range streams {
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
		}
		drv, err := driver.Of(d)
		if err != nil {
			t.Fatal(err)
		}
		// bump, toggle, count and the variants of toggle, bump, count made
		// for the bodies (plain and latching) stay; nothing of the
		// released kernels.
		if live := drv.Live().Kernels; live > 3+6 {
			t.Errorf("%d kernels alive after every graph and released kernel is gone, want at most 9 (3 kernels and their variants)", live)
		}
	})
}

// TestProbe5DeviceCloseRacingLatchedLoops: the device closes while
// goroutines capture and replay latched loops on its streams. Every call
// returns (nil before the Close, an error after it, never a wrong result),
// nothing crashes or hangs, and a device opened afterwards computes.
func TestProbe5DeviceCloseRacingLatchedLoops(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		for round := range 3 {
			d, err := wgpu.Open(wgpu.Options{})
			gputest.SkipIfNoAdapter(t, err)
			if err != nil {
				t.Fatal(err)
			}
			bump, err1 := d.Kernel(p5Bump, "main")
			toggle, err2 := d.Kernel(p5Toggle, "toggle")
			count, err3 := d.Kernel(p5Countdown, "countdown")
			if err := errors.Join(err1, err2, err3); err != nil {
				t.Fatal(err)
			}
			const workers = 3
			errs := make(chan error, workers)
			var runs atomic.Int32
			for i := range workers {
				go func() {
					s, err := recorder.New(d, recorder.WithPredication(i != 1))
					if err != nil {
						errs <- err
						return
					}
					defer s.Close()
					for {
						if err := p5LoopRun(s, bump, bump, toggle, count, []uint32{2, 5}); err != nil {
							errs <- err
							return
						}
						runs.Add(1)
					}
				}()
			}
			time.Sleep(time.Duration(20+30*round) * time.Millisecond)
			done := make(chan error)
			go func() { done <- d.Close() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Close: %v", err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("Close hung")
			}
			t.Logf("round %d: %d loops captured and checked before the Close", round, runs.Load())
			for range workers {
				select {
				case err := <-errs:
					if errors.Is(err, errP5Mismatch) {
						t.Errorf("round %d: %v", round, err)
					} else if !errors.Is(err, wgpu.ErrClosed) && !errors.Is(err, wgpu.ErrReleased) {
						t.Errorf("round %d: a worker stopped with an error that is neither ErrClosed nor ErrReleased: %v", round, err)
					}
				case <-time.After(60 * time.Second):
					t.Fatal("a worker hung after the Close")
				}
			}
		}
	})
}

// p5Mul: v[i] = v[i] * mul + i + 1, mul an override.
const p5Mul = `
override mul: u32 = 3u;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] * mul + g.x + 1u; }
`

// TestProbe5ManyDistinctKernelsInALatchedBody: 48 kernels (one source,
// 48 override values) in one latched While body, each with its own
// variant (the first a latching one): the loop computes the Go model's
// result, and releasing the kernels and the graph leaves no kernel or
// variant alive.
func TestProbe5ManyDistinctKernelsInALatchedBody(t *testing.T) {
	const nk, max = 48, 3
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		drv, err := driver.Of(d)
		if err != nil {
			t.Fatal(err)
		}
		count := p5Kernel(t, d, p5Countdown, "countdown")
		before := drv.Live().Kernels
		var ks []*wgpu.Kernel
		for i := range nk {
			k, err := d.Kernel(p5Mul, "main", wgpu.WithConstants(map[string]float64{"mul": float64(i + 2)}))
			if err != nil {
				t.Fatal(err)
			}
			ks = append(ks, k)
		}
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, p5Zeros(16)...)
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
			inits = append(inits, [][]uint32{{n, 0}, p5Zeros(16)})
		}
		model := func(i int) [][]uint32 {
			it := min(conds[i], max)
			v := p5Zeros(16)
			for range it {
				for m := range nk {
					for j := range v {
						v[j] = v[j]*uint32(m+2) + uint32(j) + 1
					}
				}
			}
			return [][]uint32{{conds[i] - it, it}, v}
		}
		g := p5Agree(t, s, []*recorder.Buffer{st, v}, inits, model, step)
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

// TestProbe5MaxIterationsLatchedLoop: a latched While of
// recorder.MaxWhileIterations iterations captures (its capture time is
// logged) and replays the Go model's result for counts below, at and
// beyond the bound; MaxWhileIterations+1 is refused.
func TestProbe5MaxIterationsLatchedLoop(t *testing.T) {
	const max = recorder.MaxWhileIterations
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := p5Kernel(t, d, p5Countdown, "countdown")
		bump := p5Kernel(t, d, p5Bump, "main")
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, p5Zeros(8)...)
		p5Set(t, s, st, 0, 0)
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
			p5Set(t, s, st, n, 0)
			p5Set(t, s, v, p5Zeros(8)...)
			start := time.Now()
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			it := min(n, max)
			gputest.WantEqual(t, "replay with n="+itoaP5(int(n)), [][]uint32{{n - it, it}, p5BumpModel(8, it)},
				[][]uint32{gputest.ReadU32(t, s, st), gputest.ReadU32(t, s, v)})
			t.Logf("replay with n=%d: %v", n, time.Since(start))
		}
		err = s.While(st, 0, max+1, func() error { return nil })
		if !errors.Is(err, wgpu.ErrInvalidArgument) {
			t.Errorf("While with maxIterations=MaxWhileIterations+1: want ErrInvalidArgument, got %v", err)
		}
	})
}

// p5ManyBindings is a kernel binding n storage buffers (v read-write in
// group 0, n-1 read-only ones split over groups 0 and 1) and u uniforms
// (group 1): v[i] = v[i] * 3 + the sum of the others at i + the uniforms'
// x + 1.
func p5ManyBindings(n, u int) string {
	var b strings.Builder
	b.WriteString("@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n")
	sum := "0u"
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "@group(%d) @binding(%d) var<storage, read> r%d: array<u32>;\n", i%2, i, i)
		sum += fmt.Sprintf(" + r%d[g.x]", i)
	}
	for i := range u {
		fmt.Fprintf(&b, "@group(1) @binding(%d) var<uniform> p%d: vec4<u32>;\n", 100+i, i)
		sum += fmt.Sprintf(" + p%d.x", i)
	}
	b.WriteString("@compute @workgroup_size(8)\nfn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = v[g.x] * 3u + " + sum + " + 1u; }\n")
	return b.String()
}

// TestProbe5KernelsAtTheBindingLimits: body kernels using exactly the
// device's maxStorageBuffersPerShaderStage (the guard's one or two more
// buffers do not fit), one or two fewer, and exactly
// maxUniformBuffersPerShaderStage (the guard's uniform does not fit), as
// the latching first dispatch and as a later one: whichever way each is
// gated (variant or gates, logged), every replay equals the eager step.
func TestProbe5KernelsAtTheBindingLimits(t *testing.T) {
	const max = 4
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		lim := d.Info().Limits
		count := p5Kernel(t, d, p5Countdown, "countdown")
		toggle := p5Kernel(t, d, p5Toggle, "toggle")
		ns := int(lim.MaxStorageBuffersPerShaderStage)
		nu := int(lim.MaxUniformBuffersPerShaderStage)
		cases := []struct {
			name    string
			storage int
			uniform int
		}{
			{"maxStorageBuffers", ns, 0},
			{"maxStorageBuffers-1", ns - 1, 0},
			{"maxStorageBuffers-2", ns - 2, 0},
			{"maxUniformBuffers", 2, nu},
			{"maxUniformBuffers-1", 2, nu - 1},
		}
		ramp := make([]uint32, 16)
		for i := range ramp {
			ramp[i] = uint32(7*i + 1)
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if c.storage > 40 || c.uniform > 40 {
					t.Skipf("%d storage and %d uniform buffers: too many to bind (the limits are those of %s)", c.storage, c.uniform, d.Info())
				}
				k := p5Kernel(t, d, p5ManyBindings(c.storage, c.uniform), "main")
				v := gputest.UploadU32(t, s, p5Zeros(16)...)
				aux := gputest.UploadU32(t, s, ramp...)
				args := []recorder.Arg{v}
				for range c.storage - 1 {
					args = append(args, aux)
				}
				for i := range c.uniform {
					args = append(args, recorder.ParamsOf[uint32](uint32(i+1), 0, 0, 0))
				}
				st := gputest.UploadU32(t, s, 0, 0)
				flag := gputest.UploadU32(t, s, 0, 0)
				for _, later := range []bool{false, true} {
					step := func() error {
						return s.While(st, 0, max, func() error {
							if later {
								if err := s.Launch(toggle, recorder.Groups(1, 1, 1), flag); err != nil {
									return err
								}
							}
							if err := s.Launch(k, recorder.Groups(2, 1, 1), args...); err != nil {
								return err
							}
							return s.Launch(count, recorder.Groups(1, 1, 1), st)
						})
					}
					var inits [][][]uint32
					for _, n := range []uint32{2, 0, 9} {
						inits = append(inits, [][]uint32{{n, 0}, {0, 0}, p5Zeros(16)})
					}
					g := p5Agree(t, s, []*recorder.Buffer{st, flag, v}, inits, nil, step)
					str := g.String()
					t.Logf("later=%v: the kernel predicated: %v, gate dispatches: %v", later, strings.Contains(str, "main (predicated)"), strings.Contains(str, "softgraph_gate"))
				}
			})
		}
	})
}

// TestProbe5TexturesAndSamplersInLatchedBodies: body kernels reading a
// sampled texture (textureLoad, group 0) and sampling one through a
// sampler (group 1) — the guard's group after them — as the latching first
// dispatch and as a later one: replays equal the eager step.
func TestProbe5TexturesAndSamplersInLatchedBodies(t *testing.T) {
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
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := p5Kernel(t, d, p5Countdown, "countdown")
		toggle := p5Kernel(t, d, p5Toggle, "toggle")
		load := p5Kernel(t, d, loadSrc, "load")
		sample := p5Kernel(t, d, sampleSrc, "sample")
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
		v := gputest.UploadU32(t, s, p5Zeros(64)...)
		w := gputest.UploadU32(t, s, p5Zeros(64)...)
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
					inits = append(inits, [][]uint32{{n, 0}, {0, 0}, p5Zeros(64), p5Zeros(64)})
				}
				g := p5Agree(t, s, []*recorder.Buffer{st, flag, v, w}, inits, nil, step)
				if on && gputest.Predicates(d) && order != "after a toggle" && strings.Contains(g.String(), "softgraph_gate") {
					t.Errorf("a texture kernel first in the body should latch: %s", g.String())
				}
			})
		}
	})
}

// TestProbe5OverrideKernelsThroughAFile: a latched loop whose first
// dispatch's kernel takes its workgroup size and a factor from overrides
// given by name and by @id goes through Save and LoadGraph (same device
// and a second one) and replays as the eager step does.
func TestProbe5OverrideKernelsThroughAFile(t *testing.T) {
	const src = `
@id(3) override blk: u32 = 1u;
override scale: u32 = 2u;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(blk, 2)
fn ovr(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x * 2u + g.y;
	v[i] = v[i] * scale + i + 1u;
}
`
	const max = 5
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := p5Kernel(t, d, p5Countdown, "countdown")
		k := p5Kernel(t, d, src, "ovr", wgpu.WithConstants(map[string]float64{"3": 4, "scale": 7}))
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, p5Zeros(32)...)
		step := func() error {
			return s.While(st, 0, max, func() error {
				if err := s.Launch(k, recorder.Groups(4, 1, 1), v); err != nil {
					return err
				}
				return s.Launch(count, recorder.Groups(1, 1, 1), st)
			})
		}
		conds := []uint32{3, 0, 8}
		var inits [][][]uint32
		for _, n := range conds {
			inits = append(inits, [][]uint32{{n, 0}, p5Zeros(32)})
		}
		model := func(i int) [][]uint32 {
			it := min(conds[i], max)
			v := p5Zeros(32)
			for range it {
				for j := range v {
					v[j] = v[j]*7 + uint32(j) + 1
				}
			}
			return [][]uint32{{conds[i] - it, it}, v}
		}
		g := p5Agree(t, s, []*recorder.Buffer{st, v}, inits, model, step)
		var file bytes.Buffer
		if _, err := g.WriteTo(&file); err != nil {
			t.Fatal(err)
		}
		ist, iv := p5IndexOf(t, g, st), p5IndexOf(t, g, v)
		d2 := gputest.Open(t, wgpu.Options{})
		s2 := gputest.Stream(t, d2)
		for _, on := range []*recorder.Stream{s, s2} {
			l, err := on.LoadGraph(bytes.NewReader(file.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			lb := l.Buffers()
			for i := range conds {
				p5SetAll(t, on, []*recorder.Buffer{lb[ist], lb[iv]}, inits[i])
				if err := l.Replay(); err != nil {
					t.Fatal(err)
				}
				gputest.WantEqual(t, "the loaded graph against the model", model(i), p5ReadAll(t, on, []*recorder.Buffer{lb[ist], lb[iv]}))
			}
		}
	})
}

// TestProbe5ProfileReplayWithFloorReportsTheProfiledReplaysBranches:
// ProfileReplay once read Branches after measureFloor had run the graph
// more times, so they described the last floor round (both modes).
// The documented meaning of ReplayProfile.Branches is "which iterations ran in
// the profiled replay". With WithFloor the graph's work runs rounds more
// times after that replay (documented), and the countdown loop's later
// rounds run no iteration; Branches must still describe the profiled
// replay (the buffers show it ran 3 iterations), not the last floor round.
func TestProbe5ProfileReplayWithFloorReportsTheProfiledReplaysBranches(t *testing.T) {
	const max = 5
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := p5Kernel(t, d, p5Countdown, "countdown")
		bump := p5Kernel(t, d, p5Bump, "main")
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, p5Zeros(16)...)
		g, err := s.Capture(func() error {
			return s.While(st, 0, max, func() error {
				if err := s.Launch(bump, recorder.Groups(2, 1, 1), v); err != nil {
					return err
				}
				return s.Launch(count, recorder.Groups(1, 1, 1), st)
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Release()
		p5Set(t, s, st, 3, 0)
		p5Set(t, s, v, p5Zeros(16)...)
		p, err := s.ProfileReplay(g, recorder.WithFloor(2))
		if err != nil {
			t.Fatal(err)
		}
		// The profiled replay ran 3 iterations; the two floor rounds none
		// (the condition is 0 by then).
		gputest.WantEqual(t, "st and v after ProfileReplay with WithFloor(2)", [][]uint32{{0, 3}, p5BumpModel(16, 3)},
			[][]uint32{gputest.ReadU32(t, s, st), gputest.ReadU32(t, s, v)})
		if len(p.Branches) != 1 {
			t.Fatalf("%d branches, want 1", len(p.Branches))
		}
		gputest.WantEqual(t, "Branches[0].Ran: the iterations of the profiled replay", []bool{true, true, true, false, false}, p.Branches[0].Ran)
	})
}

// TestProbe5F16KernelInALatchedBody: an f16 kernel first in a While body,
// where the device compiles f16 at all (naga v22 does not: skipped with
// the reason).
func TestProbe5F16KernelInALatchedBody(t *testing.T) {
	const src = `
enable f16;
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let h = f16(g.x % 16u) * 2.0h;
	v[g.x] = v[g.x] * 3u + u32(h) + 1u;
}
`
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		k, err := d.Kernel(src, "main")
		if err != nil {
			t.Skipf("f16 does not compile on this device: %v", err)
		}
		defer k.Release()
		count := p5Kernel(t, d, p5Countdown, "countdown")
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, p5Zeros(16)...)
		var inits [][][]uint32
		for _, n := range []uint32{2, 0, 9} {
			inits = append(inits, [][]uint32{{n, 0}, p5Zeros(16)})
		}
		p5Agree(t, s, []*recorder.Buffer{st, v}, inits, nil, func() error {
			return s.While(st, 0, 4, func() error {
				if err := s.Launch(k, recorder.Groups(2, 1, 1), v); err != nil {
					return err
				}
				return s.Launch(count, recorder.Groups(1, 1, 1), st)
			})
		})
	})
}

// TestProbe5BackToBackReplaysShareNothingStale: latched graphs long enough
// to be pre-encoded (over 64 dispatches) replayed several times in one
// batch, interleaved with Writes of the condition and with a second graph
// — a loaded graph and the graph rebound from it, which share its gate
// buffer — compute what the same sequence of eager steps computes: no
// replay reads an enable word another left behind.
func TestProbe5BackToBackReplaysShareNothingStale(t *testing.T) {
	const max = 40 // 40 iterations × 2 dispatches: pre-encoded
	p5Modes(t, func(t *testing.T, on bool) {
		d, s := gputest.OpenStream(t, recorder.WithPredication(on))
		count := p5Kernel(t, d, p5Countdown, "countdown")
		bump := p5Kernel(t, d, p5Bump, "main")
		st := gputest.UploadU32(t, s, 0, 0)
		v := gputest.UploadU32(t, s, p5Zeros(16)...)
		v2 := gputest.UploadU32(t, s, p5Zeros(16)...)
		stepOn := func(b *recorder.Buffer) func() error {
			return func() error {
				return s.While(st, 0, max, func() error {
					if err := s.Launch(bump, recorder.Groups(2, 1, 1), b); err != nil {
						return err
					}
					return s.Launch(count, recorder.Groups(1, 1, 1), st)
				})
			}
		}
		g, err := s.Capture(stepOn(v))
		if err != nil {
			t.Fatal(err)
		}
		defer g.Release()
		var file bytes.Buffer
		if _, err := g.WriteTo(&file); err != nil {
			t.Fatal(err)
		}
		l, err := s.LoadGraph(&file)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release()
		lb := l.Buffers()
		lst, lv := lb[p5IndexOf(t, g, st)], lb[p5IndexOf(t, g, v)]
		rl, err := l.Rebind(lv, v2)
		if err != nil {
			t.Fatal(err)
		}
		defer rl.Release()
		// The sequence: (condition, which graph) pairs, no read in between.
		type op struct {
			n     uint32
			which int // 0: g on (st, v); 1: l on (lst, lv); 2: rl on (lst, v2)
		}
		seq := []op{{3, 0}, {0, 0}, {5, 0}, {2, 1}, {4, 2}, {0, 1}, {1, 2}, {50, 0}, {7, 1}, {6, 2}}
		// Eager: l and rl act on their own condition lst, modelled by st
		// run eagerly on the same buffers (v for l, v2 for rl).
		p5Set(t, s, v, p5Zeros(16)...)
		p5Set(t, s, v2, p5Zeros(16)...)
		ev, elv := p5Zeros(16), p5Zeros(16)
		for _, o := range seq {
			p5Set(t, s, st, o.n, 0)
			switch o.which {
			case 0:
				p5Set(t, s, v, ev...)
				if err := stepOn(v)(); err != nil {
					t.Fatal(err)
				}
				ev = gputest.ReadU32(t, s, v)
			case 1:
				p5Set(t, s, v, elv...)
				if err := stepOn(v)(); err != nil {
					t.Fatal(err)
				}
				elv = gputest.ReadU32(t, s, v)
			case 2:
				if err := stepOn(v2)(); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := [][]uint32{ev, elv, gputest.ReadU32(t, s, v2)}
		p5Set(t, s, v, p5Zeros(16)...)
		p5Set(t, s, lv, p5Zeros(16)...)
		p5Set(t, s, v2, p5Zeros(16)...)
		for _, o := range seq {
			cond, gr := st, g
			switch o.which {
			case 1:
				cond, gr = lst, l
			case 2:
				cond, gr = lst, rl
			}
			if err := recorder.WriteSlice(s, cond, 0, []uint32{o.n, 0}); err != nil {
				t.Fatal(err)
			}
			if err := gr.Replay(); err != nil {
				t.Fatal(err)
			}
		}
		gputest.WantEqual(t, "v, the loaded graph's v and v2 after the whole sequence", want,
			[][]uint32{gputest.ReadU32(t, s, v), gputest.ReadU32(t, s, lv), gputest.ReadU32(t, s, v2)})
	})
}
