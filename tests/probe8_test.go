package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// p8File is a graph file (docs/graph-format.md, version 3 unless set) built field by
// field, so a test can forge any count, size or index and still reach the
// decoder (encode appends the right CRC-32C).
type p8File struct {
	version, flags uint32
	kernels        []p8Kernel
	buffers        []p8Buf
	textures       []p8Tex
	samplers       []uint8
	params         [][]byte
	nodes          []p8Node
	regions        []p8Region
}

type p8Kernel struct {
	source, entry string
	constants     []p8Const // written in this order (Save sorts them)
	label         string    // version 3
}

type p8Const struct {
	name  string
	value float64
}

type p8Buf struct {
	size     uint64
	role     uint8
	label    string
	contents []byte // written when non-nil; its length is not checked here
}

type p8Tex struct {
	w, h, d  uint32
	dim      uint8
	format   string
	contents []byte
}

type p8Node struct {
	kind, region   uint32
	kernel         uint32
	indirect       bool
	buf            uint32
	offset         uint64
	x, y, z        uint32
	args           [][2]uint32 // kind, index
	src, dst       uint32
	srcOff, dstOff uint64
	size           uint64
	nargsOverride  *uint32 // a forged argument count
}

type p8Region struct {
	kind            uint8
	parent, maxIter uint32
	cond            uint32
	condOff         uint64
	gates           []uint32
}

type p8W struct{ b []byte }

func (w *p8W) u8(v uint8)    { w.b = append(w.b, v) }
func (w *p8W) u32(v uint32)  { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *p8W) u64(v uint64)  { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *p8W) str(v string)  { w.u32(uint32(len(v))); w.b = append(w.b, v...) }
func (w *p8W) blob(v []byte) { w.u32(uint32(len(v))); w.b = append(w.b, v...) }
func (w *p8W) f64(v float64) { w.u64(math.Float64bits(v)) }
func (w *p8W) seal() []byte {
	return binary.LittleEndian.AppendUint32(w.b, crc32.Checksum(w.b, crc32.MakeTable(crc32.Castagnoli)))
}

func (f *p8File) encode() []byte {
	var w p8W
	w.b = append(w.b, "SGRAPH\r\n"...)
	v := f.version
	if v == 0 {
		v = recorder.GraphFileVersion
	}
	w.u32(v)
	w.u32(f.flags)
	w.u32(uint32(len(f.kernels)))
	for _, k := range f.kernels {
		w.str(k.source)
		w.str(k.entry)
		w.u32(uint32(len(k.constants)))
		for _, c := range k.constants {
			w.str(c.name)
			w.f64(c.value)
		}
		if v >= 3 {
			w.str(k.label)
		}
	}
	w.u32(uint32(len(f.buffers)))
	for _, b := range f.buffers {
		w.u64(b.size)
		w.u8(b.role)
		w.str(b.label)
		if b.contents != nil {
			w.u8(1)
			w.b = append(w.b, b.contents...)
		} else {
			w.u8(0)
		}
	}
	w.u32(uint32(len(f.textures)))
	for _, t := range f.textures {
		w.u32(t.w)
		w.u32(t.h)
		w.u32(t.d)
		w.u8(t.dim)
		w.str(t.format)
		if t.contents != nil {
			w.u8(1)
			w.blob(t.contents)
		} else {
			w.u8(0)
		}
	}
	w.u32(uint32(len(f.samplers)))
	for _, s := range f.samplers {
		w.u8(s)
	}
	w.u32(uint32(len(f.params)))
	for _, p := range f.params {
		w.blob(p)
	}
	w.u32(uint32(len(f.nodes)))
	for _, n := range f.nodes {
		w.u8(uint8(n.kind))
		w.u32(n.region)
		switch n.kind {
		case 0:
			w.u32(n.kernel)
			if n.indirect {
				w.u8(1)
				w.u32(n.buf)
				w.u64(n.offset)
			} else {
				w.u8(0)
				w.u32(n.x)
				w.u32(n.y)
				w.u32(n.z)
			}
			if n.nargsOverride != nil {
				w.u32(*n.nargsOverride)
			} else {
				w.u32(uint32(len(n.args)))
			}
			for _, a := range n.args {
				w.u8(uint8(a[0]))
				w.u32(a[1])
			}
		case 1:
			w.u32(n.src)
			w.u64(n.srcOff)
			w.u32(n.dst)
			w.u64(n.dstOff)
			w.u64(n.size)
		case 2:
			w.u32(n.dst)
			w.u64(n.dstOff)
			w.u64(n.size)
		}
	}
	w.u32(uint32(len(f.regions)))
	for _, r := range f.regions {
		w.u8(r.kind)
		w.u32(r.parent)
		w.u32(r.maxIter)
		w.u32(r.cond)
		w.u64(r.condOff)
		w.u32(uint32(len(r.gates)))
		for _, g := range r.gates {
			w.u32(g)
		}
	}
	return w.seal()
}

// p8U32Bytes is v as little-endian bytes.
func p8U32Bytes(v ...uint32) []byte {
	var out []byte
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, x)
	}
	return out
}

// p8Affine is a file of one dispatch of p7AffineWGSL (x = x·m + a) over a
// 64-word buffer holding 0..63: what a well-formed file looks like, and the
// base every forgery below starts from.
func p8Affine(m, a uint32) *p8File {
	init := make([]uint32, p7Elems)
	for i := range init {
		init[i] = uint32(i)
	}
	return &p8File{
		flags:   1,
		kernels: []p8Kernel{{source: p7AffineWGSL, entry: "main"}},
		buffers: []p8Buf{{size: p7Bytes, label: "x", contents: p8U32Bytes(init...)}},
		params:  [][]byte{p8U32Bytes(m, a)},
		nodes:   []p8Node{{kind: 0, x: 1, y: 1, z: 1, args: [][2]uint32{{0, 0}, {1, 0}}}},
	}
}

// p8RSS is this process's resident set, from /proc/self/status (0 where
// there is none).
func p8RSS() uint64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestProbe8HandBuiltFileLoadsAndReplays: the builder writes what Save
// writes, and the file it builds replays exactly; everything below forges
// one field of it.
func TestProbe8HandBuiltFileLoadsAndReplays(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, p7AffineWGSL)
	x := gputest.UploadU32(t, s, make([]uint32, p7Elems)...)
	g := p7Capture(t, s, k, x, []p7Aff{{3, 5}})
	defer g.Release()
	var saved bytes.Buffer
	if _, err := g.WriteTo(&saved); err != nil {
		t.Fatal(err)
	}
	f := p8Affine(3, 5)
	f.flags, f.buffers[0].contents, f.buffers[0].label = 0, nil, x.Label()
	if diff := cmp.Diff(f.encode(), saved.Bytes()); diff != "" {
		t.Fatalf("the hand-built file differs from Save's (-built +saved):\n%s", diff)
	}
	lg, err := s.LoadGraph(bytes.NewReader(p8Affine(3, 5).encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Release()
	for range 2 {
		if err := lg.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	want := make([]uint32, p7Elems)
	for i := range want {
		want[i] = (uint32(i)*3+5)*3 + 5
	}
	bufs := lg.Buffers()
	if diff := cmp.Diff(want, gputest.ReadU32(t, s, bufs[0])); diff != "" {
		t.Fatalf("two replays of the hand-built file (-want +got):\n%s", diff)
	}
	_ = errors.Is
	_ = recorder.ErrGraphFile
	_ = fmt.Sprint
	t.Logf("limits: %+v", d.Info().Limits)
}

// p8Guard runs in a fresh process (gputest.InFreshProcess): it ends the
// process with a message when its resident set grows by more than
// maxGrowth over what it was on entry, or when it is still running after
// limit (a hang), so neither an unbounded allocation nor a deadlock takes
// the suite or the machine down with it.
func p8Guard(t *testing.T, maxGrowth uint64, limit time.Duration) (peak func() uint64) {
	t.Helper()
	base := p8RSS()
	var top atomic.Uint64
	top.Store(base)
	stop := make(chan struct{})
	go func() {
		deadline := time.After(limit)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-deadline:
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				fmt.Fprintf(os.Stderr, "p8Guard: %s still running after %v: it hangs\n%s\n", t.Name(), limit, buf[:n])
				os.Exit(4)
			case <-tick.C:
				r := p8RSS()
				if r > top.Load() {
					top.Store(r)
				}
				if base != 0 && r > base+maxGrowth {
					fmt.Fprintf(os.Stderr, "p8Guard: %s: resident set grew from %d MiB to %d MiB (more than %d MiB): stopped before it takes the machine\n", t.Name(), base>>20, r>>20, maxGrowth>>20)
					os.Exit(3)
				}
			}
		}
	}()
	t.Cleanup(func() { close(stop) })
	return func() uint64 {
		r := p8RSS()
		if r > top.Load() {
			top.Store(r)
		}
		return top.Load() - base
	}
}

// p8SubEnv names the case a re-executed test binary runs (p8Sub).
const p8SubEnv = "SOFTGRAPH_P8_CASE"

// p8Sub runs body for case name of the top-level test t in a process of
// its own (this test binary, re-executed for t alone), killed after limit:
// a native abort, a stack overflow, an OOM guard or a deadlock in body is
// reported as this case's failure with the child's last lines, and the
// other cases still run. In the child it runs body only for its own case.
func p8Sub(t *testing.T, name string, limit time.Duration, body func(t *testing.T)) {
	t.Helper()
	if c := os.Getenv(p8SubEnv); c != "" {
		if c == name {
			body(t)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), p8SubEnv+"="+name)
	out, err := cmd.CombinedOutput()
	var kept []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "XDG_RUNTIME_DIR") {
			continue
		}
		kept = append(kept, l)
	}
	if len(kept) > 40 {
		kept = append(kept[:20], append([]string{"..."}, kept[len(kept)-20:]...)...)
	}
	log := strings.Join(kept, "\n")
	switch {
	case ctx.Err() != nil:
		t.Errorf("%s: still running after %v (a hang), killed:\n%s", name, limit, log)
	case err != nil:
		t.Errorf("%s: the process died: %v\n%s", name, err, log)
	case strings.Contains(log, "--- SKIP: "+t.Name()):
		t.Logf("%s: skipped in its process", name)
	case !strings.Contains(log, "--- PASS: "+t.Name()):
		t.Errorf("%s: did not pass in its process:\n%s", name, log)
	default:
		t.Logf("%s: passed in a process of its own:\n%s", name, log)
	}
}

// p8Forgery is one forged graph file: built from p8Affine(3, 5) by edit.
// wantErr: LoadGraph must refuse it (with ErrGraphFile, naming msg);
// otherwise it must load and two replays must compute x·9 + 20 on 0..63.
type p8Forgery struct {
	name    string
	edit    func(f *p8File)
	wantErr bool
	want    func(i uint32) uint32 // what two replays compute from i (nil: i·9 + 20)
}

func p8Forgeries() []p8Forgery {
	u32 := func(v uint32) *uint32 { return &v }
	over := "override K: u32 = 1u;\n" + p7AffineWGSL
	return []p8Forgery{
		{name: "params of 0 bytes", edit: func(f *p8File) { f.params[0] = []byte{} }, wantErr: true},
		{name: "params of 3 bytes", edit: func(f *p8File) { f.params[0] = []byte{3, 0, 0} }, wantErr: true},
		// Params are zero-padded to the uniform granule, as Launch's are:
		// the missing word reads 0.
		{name: "params of 4 bytes for an 8-byte struct", edit: func(f *p8File) { f.params[0] = p8U32Bytes(3) }, want: func(i uint32) uint32 { return i * 9 }},
		{name: "params over maxUniformBufferBindingSize", edit: func(f *p8File) { f.params[0] = make([]byte, 65536+4) }, wantErr: true},
		{name: "entry that does not exist", edit: func(f *p8File) { f.kernels[0].entry = "nope" }, wantErr: true},
		{name: "empty source", edit: func(f *p8File) { f.kernels[0].source = "" }, wantErr: true},
		{name: "constant for no override", edit: func(f *p8File) { f.kernels[0].constants = []p8Const{{"nope", 1}} }, wantErr: true},
		{name: "NaN for a u32 override", edit: func(f *p8File) {
			f.kernels[0].source, f.kernels[0].constants = over, []p8Const{{"K", math.NaN()}}
		}, wantErr: true},
		{name: "one constant twice", edit: func(f *p8File) {
			f.kernels[0].source, f.kernels[0].constants = over, []p8Const{{"K", 7}, {"K", 1}}
		}},
		{name: "zero workgroups", edit: func(f *p8File) { f.nodes[0].x = 0 }, wantErr: true},
		{name: "workgroups over the limit", edit: func(f *p8File) { f.nodes[0].y = 65536 }, wantErr: true},
		{name: "MaxUint32 workgroups", edit: func(f *p8File) { f.nodes[0].z = math.MaxUint32 }, wantErr: true},
		{name: "a missing argument", edit: func(f *p8File) { f.nodes[0].args = f.nodes[0].args[:1] }, wantErr: true},
		{name: "an extra argument", edit: func(f *p8File) { f.nodes[0].args = append(f.nodes[0].args, [2]uint32{0, 0}) }, wantErr: true},
		{name: "no arguments", edit: func(f *p8File) { f.nodes[0].args = nil }, wantErr: true},
		{name: "a buffer for the uniform", edit: func(f *p8File) { f.nodes[0].args[1] = [2]uint32{0, 0} }, wantErr: true},
		{name: "params for the storage buffer", edit: func(f *p8File) { f.nodes[0].args[0] = [2]uint32{1, 0} }, wantErr: true},
		{name: "a texture for the storage buffer", edit: func(f *p8File) {
			f.textures = []p8Tex{{w: 8, h: 8, d: 1, dim: 1, format: "r32uint"}}
			f.nodes[0].args[0] = [2]uint32{2, 0}
		}, wantErr: true},
		{name: "a sampler for the uniform", edit: func(f *p8File) {
			f.samplers = []uint8{0xff}
			f.nodes[0].args[1] = [2]uint32{3, 0}
		}, wantErr: true},
		{name: "argument of kind 4", edit: func(f *p8File) { f.nodes[0].args[1] = [2]uint32{4, 0} }, wantErr: true},
		{name: "argument count MaxUint32", edit: func(f *p8File) { f.nodes[0].nargsOverride = u32(math.MaxUint32) }, wantErr: true},
		{name: "argument index MaxUint32", edit: func(f *p8File) { f.nodes[0].args[0] = [2]uint32{0, math.MaxUint32} }, wantErr: true},
		{name: "kernel index 1 of 1", edit: func(f *p8File) { f.nodes[0].kernel = 1 }, wantErr: true},
		{name: "indirect from the bound buffer", edit: func(f *p8File) { f.nodes[0].indirect = true }, wantErr: true},
		{name: "indirect offset MaxUint64 aligned", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 16, contents: p8U32Bytes(1, 1, 1, 0)})
			f.nodes[0].indirect, f.nodes[0].buf, f.nodes[0].offset = true, 1, math.MaxUint64-3
		}, wantErr: true},
		{name: "indirect offset leaving 8 bytes", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 16, contents: p8U32Bytes(1, 1, 1, 0)})
			f.nodes[0].indirect, f.nodes[0].buf, f.nodes[0].offset = true, 1, 8
		}, wantErr: true},
		{name: "indirect offset 2", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 16, contents: p8U32Bytes(1, 1, 1, 0)})
			f.nodes[0].indirect, f.nodes[0].buf, f.nodes[0].offset = true, 1, 2
		}, wantErr: true},
		{name: "indirect counts of (1,1,1) at offset 4", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 16, contents: p8U32Bytes(0, 1, 1, 1)})
			f.nodes[0].indirect, f.nodes[0].buf, f.nodes[0].offset = true, 1, 4
		}},
		{name: "copy of a buffer onto itself", edit: func(f *p8File) {
			f.nodes = append(f.nodes, p8Node{kind: 1, src: 0, dst: 0, srcOff: 0, dstOff: 128, size: 64})
		}, wantErr: true},
		{name: "copy at offset MaxUint64 aligned", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 256})
			f.nodes = append(f.nodes, p8Node{kind: 1, src: 0, dst: 1, srcOff: math.MaxUint64 - 3, size: 8})
		}, wantErr: true},
		{name: "copy of MaxUint64 aligned bytes", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 256})
			f.nodes = append(f.nodes, p8Node{kind: 1, src: 0, dst: 1, dstOff: 8, size: math.MaxUint64 - 3})
		}, wantErr: true},
		{name: "copy of 0 bytes", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 256})
			f.nodes = append(f.nodes, p8Node{kind: 1, src: 0, dst: 1})
		}, wantErr: true},
		{name: "clear at offset MaxUint64 aligned", edit: func(f *p8File) {
			f.nodes = append(f.nodes, p8Node{kind: 2, dst: 0, dstOff: math.MaxUint64 - 3, size: 8})
		}, wantErr: true},
		{name: "clear of MaxUint64 aligned bytes", edit: func(f *p8File) {
			f.nodes = append(f.nodes, p8Node{kind: 2, dst: 0, dstOff: 4, size: math.MaxUint64 - 3})
		}, wantErr: true},
		{name: "clear of 2 bytes", edit: func(f *p8File) {
			f.nodes = append(f.nodes, p8Node{kind: 2, dst: 0, size: 2})
		}, wantErr: true},
		{name: "clear of another buffer", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 256})
			f.nodes = append(f.nodes, p8Node{kind: 2, dst: 1, dstOff: 4, size: 8})
		}},
		{name: "node kind 3", edit: func(f *p8File) { f.nodes[0].kind = 3 }, wantErr: true},
		{name: "node in region 1 of 0", edit: func(f *p8File) { f.nodes[0].region = 1 }, wantErr: true},
		{name: "buffer size 2", edit: func(f *p8File) { f.buffers[0].size, f.buffers[0].contents = 2, nil }, wantErr: true},
		{name: "buffer size over maxBufferSize", edit: func(f *p8File) { f.buffers[0].size, f.buffers[0].contents = 1<<40, nil }, wantErr: true},
		{name: "buffer role 5", edit: func(f *p8File) { f.buffers[0].role = 5 }, wantErr: true},
		// Role 4 (a Var) is version 3's: a version-2 file with it is refused.
		{name: "buffer role 4 in a version-2 file", edit: func(f *p8File) { f.version, f.buffers[0].role = 2, 4 }, wantErr: true},
		{name: "enable buffer in a version-1 file", edit: func(f *p8File) {
			f.version = 1
			f.buffers = append(f.buffers, p8Buf{size: 4, role: 3})
		}, wantErr: true},
		{name: "gate table without contents", edit: func(f *p8File) { f.buffers = append(f.buffers, p8Buf{size: 4, role: 2}) }, wantErr: true},
		{name: "label not UTF-8", edit: func(f *p8File) { f.buffers[0].label = "\xff\xfe" }, wantErr: true},
		{name: "a gate buffer and no region", edit: func(f *p8File) { f.buffers = append(f.buffers, p8Buf{size: 16, role: 1}) }, wantErr: true},
		{name: "a region without gate or enable buffer", edit: func(f *p8File) {
			f.regions = []p8Region{{kind: 1, maxIter: 1, cond: 0}}
		}, wantErr: true},
		{name: "region kind 3", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 16, role: 3})
			f.regions = []p8Region{{kind: 3, maxIter: 1}}
		}, wantErr: true},
		{name: "region that is its own parent", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 16, role: 3})
			f.regions = []p8Region{{kind: 1, parent: 1, maxIter: 1}}
		}, wantErr: true},
		{name: "region of MaxUint32 iterations", edit: func(f *p8File) {
			f.buffers = append(f.buffers, p8Buf{size: 16, role: 3})
			f.regions = []p8Region{{kind: 2, maxIter: math.MaxUint32}}
		}, wantErr: true},
		{name: "texture of format \"\"", edit: func(f *p8File) { f.textures = []p8Tex{{w: 4, h: 4, d: 1, dim: 1}} }, wantErr: true},
		{name: "texture of an unknown format", edit: func(f *p8File) { f.textures = []p8Tex{{w: 4, h: 4, d: 1, dim: 1, format: "rgba8unorm\x00"}} }, wantErr: true},
		{name: "texture of width 0", edit: func(f *p8File) { f.textures = []p8Tex{{w: 0, h: 4, d: 1, dim: 1, format: "r32float"}} }, wantErr: true},
		// Depth 0 is a 2D texture, as in TextureDesc.
		{name: "texture of depth 0", edit: func(f *p8File) { f.textures = []p8Tex{{w: 4, h: 4, d: 0, dim: 2, format: "r32float"}} }},
		{name: "texture over maxTextureDimension2D", edit: func(f *p8File) { f.textures = []p8Tex{{w: 1 << 20, h: 1, d: 1, dim: 1, format: "r32float"}} }, wantErr: true},
		{name: "texture of MaxUint32 cubed", edit: func(f *p8File) {
			f.textures = []p8Tex{{w: math.MaxUint32, h: math.MaxUint32, d: math.MaxUint32, dim: 2, format: "rgba32float"}}
		}, wantErr: true},
		{name: "texture contents one byte short", edit: func(f *p8File) {
			f.textures = []p8Tex{{w: 4, h: 4, d: 1, dim: 1, format: "r32float", contents: make([]byte, 63)}}
		}, wantErr: true},
	}
}

// TestProbe8ForgedGraphFilesAreRefusedOrReplayExactly: each field of a
// well-formed file forged to an odd value (zero, MaxUint32, MaxUint64,
// misaligned, of the wrong kind, pointing nowhere), the checksum made right
// so the forgery reaches the decoder. LoadGraph must refuse it with a
// *GraphFileError wrapping ErrGraphFile, or load a graph whose replays
// compute what its nodes say; String, WriteDOT, Save and ProfileReplay of
// what loads must work. Each case runs in a process of its own, so a native
// abort is one case's failure.
func TestProbe8ForgedGraphFilesAreRefusedOrReplayExactly(t *testing.T) {
	for _, c := range p8Forgeries() {
		want := make([]uint32, p7Elems)
		for i := range want {
			if c.want != nil {
				want[i] = c.want(uint32(i))
			} else {
				want[i] = uint32(i)*9 + 20
			}
		}
		run := func(t *testing.T) {
			_, s := gputest.OpenStream(t)
			if os.Getenv(p8SubEnv) != "" {
				p8Guard(t, 1<<30, 50*time.Second)
			}
			f := p8Affine(3, 5)
			c.edit(f)
			lg, err := s.LoadGraph(bytes.NewReader(f.encode()))
			if err != nil {
				var ge *recorder.GraphFileError
				if !errors.Is(err, recorder.ErrGraphFile) || !errors.As(err, &ge) {
					t.Fatalf("%s: a refusal must be a *GraphFileError wrapping ErrGraphFile: %v", c.name, err)
				}
				if !c.wantErr {
					t.Fatalf("%s: refused a file that should load: %v", c.name, err)
				}
				t.Logf("%s: refused: %v", c.name, err)
			} else {
				defer lg.Release()
				if c.wantErr {
					t.Errorf("%s: loaded a file that should be refused: %s", c.name, lg)
				}
				p8Exercise(t, c.name, s, lg, want)
			}
			// The stream still computes after the refusal.
			lg2, err := s.LoadGraph(bytes.NewReader(p8Affine(3, 5).encode()))
			if err != nil {
				t.Fatalf("%s: the well-formed file after it: %v", c.name, err)
			}
			defer lg2.Release()
			p8Exercise(t, c.name+", then the well-formed file", s, lg2, p8Want920())
		}
		// A process per case costs a second under the race detector and
		// more under wine: there (and with -short) the cases, none of
		// which crashed natively, share this process.
		if probe7Short() || raceEnabled {
			t.Run(c.name, run)
		} else {
			p8Sub(t, c.name, 60*time.Second, run)
		}
	}
}

// p8Exercise replays lg twice and wants want in its first buffer, then
// wants String, WriteDOT, Save and ProfileReplay to work on it.
func p8Exercise(t *testing.T, what string, s *recorder.Stream, lg *recorder.Graph, want []uint32) {
	t.Helper()
	for range 2 {
		if err := lg.Replay(); err != nil {
			t.Fatalf("%s: Replay: %v", what, err)
		}
	}
	bufs := lg.Buffers()
	if len(bufs) == 0 {
		t.Fatalf("%s: the loaded graph lists no buffers", what)
	}
	if diff := cmp.Diff(want, gputest.ReadU32(t, s, bufs[0])); diff != "" {
		t.Errorf("%s: two replays (-want +got):\n%s", what, diff)
	}
	_ = lg.String()
	if err := lg.WriteDOT(io.Discard); err != nil {
		t.Errorf("%s: WriteDOT: %v", what, err)
	}
	var file bytes.Buffer
	if _, err := lg.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Errorf("%s: Save: %v", what, err)
	} else if lg2, err := s.LoadGraph(&file); err != nil {
		t.Errorf("%s: the loaded graph saved again does not load: %v", what, err)
	} else {
		lg2.Release()
	}
	if _, err := s.ProfileReplay(lg); err != nil {
		t.Errorf("%s: ProfileReplay: %v", what, err)
	}
	for _, b := range bufs {
		b.Release()
	}
}

// p8Want920 is what two replays of p8Affine(3, 5) leave: i·9 + 20.
func p8Want920() []uint32 {
	want := make([]uint32, p7Elems)
	for i := range want {
		want[i] = uint32(i)*9 + 20
	}
	return want
}

// TestProbe8TinyFileDeclaringHugeBuffersCommitsNoGigabytes: a 300-byte
// file declaring sixteen buffers of maxBufferSize (2 GiB on lavapipe) and
// no command. LoadGraph once checked each size against maxBufferSize
// alone, allocated every buffer and cleared each: the resident set grew by
// gigabytes (the guard stopped it at 3 GiB; unguarded it went on to 32
// GiB, past this machine's memory). The stream's load limit refuses the
// file before anything is made.
func TestProbe8TinyFileDeclaringHugeBuffersCommitsNoGigabytes(t *testing.T) {
	p8Sub(t, "buffers", 120*time.Second, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		max := d.Info().Limits.MaxBufferSize &^ 3
		if max < 1<<30 {
			t.Skipf("maxBufferSize %d: sixteen of them are affordable", max)
		}
		peak := p8Guard(t, 3<<30, 100*time.Second)
		f := &p8File{}
		for range 16 {
			f.buffers = append(f.buffers, p8Buf{size: max})
		}
		file := f.encode()
		lg, err := s.LoadGraph(bytes.NewReader(file))
		if err == nil {
			lg.Release()
			t.Fatalf("a %d-byte file declaring 16 × %d zeroed bytes must be refused by the default load limit", len(file), max)
		}
		if !errors.Is(err, recorder.ErrGraphFile) || !strings.Contains(err.Error(), "WithLoadLimit") {
			t.Fatalf("the refusal must wrap ErrGraphFile and name WithLoadLimit: %v", err)
		}
		if grew := peak(); grew > 1<<30 {
			t.Fatalf("a %d-byte file made the resident set grow by %d MiB (LoadGraph: %v)", len(file), grew>>20, err)
		}
	})
}

// p8Tex3DWGSL loads one texel of a 3D texture.
const p8Tex3DWGSL = `
@group(0) @binding(0) var t: texture_3d<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(1)
fn main() {
	y[0] = textureLoad(t, vec3<i32>(0, 0, 0), 0).x;
}
`

// TestProbe8TinyFileDeclaringHugeTexturesCommitsNoGigabytes: a 600-byte
// file declaring eight 3D rgba32float textures of 1024×1024×128 (512 MiB
// each, under every per-texture limit) and one load from each. LoadGraph
// once made them all and the first Replay made wgpu zero them: the
// resident set grew past the 3 GiB guard (64 such textures are 32 GiB from
// a 5 KB file). The load limit refuses it before any texture is used.
func TestProbe8TinyFileDeclaringHugeTexturesCommitsNoGigabytes(t *testing.T) {
	p8Sub(t, "textures", 120*time.Second, func(t *testing.T) {
		_, s := gputest.OpenStream(t)
		peak := p8Guard(t, 3<<30, 100*time.Second)
		f := &p8File{
			kernels: []p8Kernel{{source: p8Tex3DWGSL, entry: "main"}},
			buffers: []p8Buf{{size: 4}},
		}
		for i := range uint32(8) {
			f.textures = append(f.textures, p8Tex{w: 1024, h: 1024, d: 128, dim: 2, format: "rgba32float"})
			f.nodes = append(f.nodes, p8Node{kind: 0, x: 1, y: 1, z: 1, args: [][2]uint32{{2, i}, {0, 0}}})
		}
		file := f.encode()
		lg, err := s.LoadGraph(bytes.NewReader(file))
		if err == nil {
			lg.Release()
			t.Fatalf("a %d-byte file declaring 8 zeroed textures of 512 MiB must be refused by the default load limit", len(file))
		}
		if !errors.Is(err, recorder.ErrGraphFile) || !strings.Contains(err.Error(), "WithLoadLimit") {
			t.Fatalf("the refusal must wrap ErrGraphFile and name WithLoadLimit: %v", err)
		}
		if grew := peak(); grew > 1<<30 {
			t.Fatalf("a %d-byte file made the resident set grow by %d MiB (LoadGraph: %v)", len(file), grew>>20, err)
		}
	})
}

// TestProbe8ALongElseIfChainIsRefusedNotACrash: a kernel of one if and
// 10000 else-ifs (390 KB). softgraph's front-end read else-if chains
// without counting them against its nesting bound, and naga's recursion
// over the nested ifs overflowed the stack inside
// wgpuDeviceCreateShaderModule: SIGSEGV, the process died. Each else-if
// now counts as the nested if naga makes of it, and the chain is refused.
func TestProbe8ALongElseIfChainIsRefusedNotACrash(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n" +
		"@compute @workgroup_size(1) fn main() { if out[0] > 0.0 {}" + strings.Repeat(" else if out[0] > 1.0 { out[1] = 2.0; }", 10000) + " }"
	p8Sub(t, "else-if", 120*time.Second, func(t *testing.T) {
		d := gputest.Open(t, wgpu.Options{})
		_, err := d.Kernel(src, "main")
		if !errors.Is(err, wgpu.ErrCompile) || !strings.Contains(err.Error(), "too deep") {
			t.Fatalf("want a CompileError saying the nesting is too deep, got %v", err)
		}
	})
}

// TestProbe8ALoadedGraphSavesAFileItCanLoad: a file whose one region has
// its enable buffer (as every file with control flow must) but no command
// using that buffer, and out-of-range gate words (metadata the lowering
// wrote, which a loaded graph only carries). It loads and replays as its
// nodes say; Save of the loaded graph once dropped the enable buffer and
// kept the region, so LoadGraph refused the file softgraph itself wrote
// ("0 gate buffers, 0 enable buffers and 0 gate tables for 1 control-flow
// regions"). A condition word outside its buffer is refused at load.
func TestProbe8ALoadedGraphSavesAFileItCanLoad(t *testing.T) {
	_, s := gputest.OpenStream(t)
	f := p8Affine(3, 5)
	f.buffers = append(f.buffers, p8Buf{size: 16, role: 3})
	f.regions = []p8Region{{kind: 2, maxIter: 3, condOff: math.MaxUint64 - 3, gates: []uint32{math.MaxUint32, 1 << 30, 3}}}
	f.nodes[0].region = 1
	if _, err := s.LoadGraph(bytes.NewReader(f.encode())); !errors.Is(err, recorder.ErrGraphFile) || !strings.Contains(err.Error(), "condition word") {
		t.Fatalf("a condition word outside its buffer must be refused, got %v", err)
	}
	f.regions[0].condOff = 0
	lg, err := s.LoadGraph(bytes.NewReader(f.encode()))
	if err != nil {
		t.Fatalf("the file must load (or this test must change): %v", err)
	}
	defer lg.Release()
	p8Exercise(t, "a region with an unused enable buffer", s, lg, p8Want920())
}

// TestProbe8LoadGraphAndSaveRacingStreamClose: goroutines load a graph
// file, replay what loaded, save it and read its buffer on a stream while
// another goroutine closes the stream. Every call returns nil or an error
// saying the stream is closed or the graph released; a graph that loaded
// and replayed before the Close computed exactly; nothing hangs (a process
// of its own with a time limit) and a new stream on the device computes
// afterwards.
func TestProbe8LoadGraphAndSaveRacingStreamClose(t *testing.T) {
	rounds := 12
	if probe7Short() {
		rounds = 4
	}
	p8Sub(t, "race", 120*time.Second, func(t *testing.T) {
		d := gputest.Open(t, wgpu.Options{})
		file := p8Affine(3, 5).encode()
		for round := range rounds {
			s := gputest.Stream(t, d)
			var wg sync.WaitGroup
			var errs collect
			allowed := func(what string, err error) {
				if err != nil && !errors.Is(err, wgpu.ErrClosed) && !errors.Is(err, wgpu.ErrReleased) {
					errs.add(fmt.Errorf("round %d: %s: %w", round, what, err))
				}
			}
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 20 {
						lg, err := s.LoadGraph(bytes.NewReader(file))
						allowed("LoadGraph", err)
						if err != nil {
							return
						}
						err = lg.Replay()
						allowed("Replay", err)
						if err == nil {
							if err = lg.Replay(); err == nil {
								var got []uint32
								got, err = recorder.ReadSlice[uint32](s, lg.Buffers()[0])
								if err == nil {
									if diff := cmp.Diff(p8Want920(), got); diff != "" {
										errs.add(fmt.Errorf("round %d: two replays of a loaded graph (-want +got):\n%s", round, diff))
									}
								}
							}
							allowed("Replay/Read", err)
						}
						_, err = lg.Save(io.Discard, recorder.SaveOptions{Contents: true})
						allowed("Save", err)
						lg.Release()
					}
				}()
			}
			time.Sleep(time.Duration(round) * time.Millisecond)
			allowed("Close", s.Close())
			waitAll(t, &wg, 60*time.Second, fmt.Sprintf("round %d", round))
			errs.report(t)
			if t.Failed() {
				return
			}
		}
		s := gputest.Stream(t, d)
		lg, err := s.LoadGraph(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		p8Exercise(t, "a new stream after the races", s, lg, p8Want920())
		lg.Release()
	})
}
