package tests

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestASavedGraphThatIncludesAChildWithControlFlowLoadsAndComputesTheSame:
// a graph that replays a child graph holding an If at its top level, saved
// without contents and loaded, computes what the original computes.
func TestASavedGraphThatIncludesAChildWithControlFlowLoadsAndComputesTheSame(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, countdownWGSL)
	st := gputest.UploadU32(t, s, 0, 0)
	child, err := s.Capture(func() error {
		return s.While(st, 0, 8, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), st) })
	})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Release()
	parent, err := s.Capture(func() error { return child.Replay() })
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Release()
	setU32(t, s, st, 3, 0)
	if err := parent.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the parent loops like the child", []uint32{0, 3}, gputest.ReadU32(t, s, st))
	var file bytes.Buffer
	if _, err := parent.Save(&file, recorder.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.LoadGraph(&file)
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Release()
	bufs := loaded.Buffers()
	if len(bufs) != 1 {
		t.Fatalf("the loaded graph lists %d buffers, want 1 (st): %v", len(bufs), bufs)
	}
	setU32(t, s, bufs[0], 3, 0)
	if err := loaded.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the loaded graph loops like the original", []uint32{0, 3}, gputest.ReadU32(t, s, bufs[0]))
}

// resealGraphFile recomputes a graph file's CRC-32C trailer, so a mutated
// file reaches the decoder's structure checks instead of the checksum.
func resealGraphFile(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	b = append([]byte(nil), b[:len(b)-4]...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// textureGraphWGSL samples a texture into a storage texture and a buffer.
const textureGraphWGSL = `
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var dst: texture_storage_2d<r32float, write>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let v = textureSampleLevel(src, smp, vec2<f32>(f32(id.x) / 4.0, f32(id.y) / 4.0), 0.0);
	textureStore(dst, vec2<i32>(id.xy), v);
	out[id.y * 4u + id.x] = v.x;
}
`

// graphFileSeeds are real graph files of every feature: launches with
// params, copies, clears, If, While, textures and samplers, with and
// without contents.
func graphFileSeeds(t testing.TB, d *wgpu.Device, s *recorder.Stream) [][]byte {
	t.Helper()
	add := gputest.Kernel(t, d, gputest.AddConstWGSL)
	cd := gputest.Kernel(t, d, countdownWGSL)
	tk := gputest.Kernel(t, d, textureGraphWGSL)
	x := gputest.Upload(t, s, gputest.Ramp(16, 0))
	y := gputest.Empty(t, s, x.Size())
	st := gputest.UploadU32(t, s, 2, 0, 1, 0)
	src, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8unorm"}, bytes.Repeat([]byte{9}, 64))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "r32float"})
	if err != nil {
		t.Fatal(err)
	}
	smp, err := s.NewSampler(recorder.SamplerDesc{Linear: true})
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Capture(func() error {
		if err := s.Launch(add, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
			return err
		}
		if err := s.Copy(y, 0, x, 0, 32); err != nil {
			return err
		}
		if err := s.Clear(y, 32, 16); err != nil {
			return err
		}
		if err := s.If(st, 8, func() error { return s.Copy(x, 0, y, 0, 16) }); err != nil {
			return err
		}
		if err := s.While(st, 0, 4, func() error { return s.Launch(cd, recorder.Groups(1, 1, 1), st) }); err != nil {
			return err
		}
		return s.Launch(tk, recorder.Groups(1, 1, 1), src, smp, dst, y)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	var out [][]byte
	for _, contents := range []bool{false, true} {
		var buf bytes.Buffer
		if _, err := g.Save(&buf, recorder.SaveOptions{Contents: contents}); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// FuzzLoadGraphResealed: no graph file, however malformed but with a valid
// checksum, crashes or hangs LoadGraph, and every refusal wraps a
// sentinel; a file that loads saves again.
func FuzzLoadGraphResealed(f *testing.F) {
	d, s := gputest.OpenStream(f)
	for _, seed := range graphFileSeeds(f, d, s) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = resealGraphFile(data)
		start := time.Now()
		lg, err := s.LoadGraph(bytes.NewReader(data))
		if el := time.Since(start); el > 10*time.Second {
			t.Fatalf("LoadGraph of a %d-byte file took %v (err %v)", len(data), el, err)
		}
		if err != nil {
			if !errors.Is(err, recorder.ErrGraphFile) {
				t.Fatalf("a refusal must wrap ErrGraphFile: %v", err)
			}
			return
		}
		defer lg.Release()
		_ = lg.String()
		if err := lg.WriteDOT(io.Discard); err != nil {
			t.Fatal(err)
		}
		// Without contents: a mutated size can name gigabytes, and reading
		// them back would make each input take seconds.
		if _, err := lg.Save(io.Discard, recorder.SaveOptions{}); err != nil {
			t.Fatalf("a loaded graph must save: %v", err)
		}
		for _, b := range lg.Buffers() {
			b.Release()
		}
	})
}

// samplingWGSL samples src at a quarter texel into each texel and one
// texture width further right (clamped or wrapped by the sampler).
const samplingWGSL = `
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let u = (f32(id.x) + 0.25) / 4.0;
	out[id.x] = textureSampleLevel(src, smp, vec2<f32>(u, 0.5), 0.0).x;
	out[4u + id.x] = textureSampleLevel(src, smp, vec2<f32>(u + 1.0, 0.5), 0.0).x;
}
`

// TestSavedGraphsKeepTexturesAndSamplers: a graph sampling a texture
// through each kind of sampler (nearest or linear, clamped or repeating),
// saved with its contents and loaded, computes exactly what the original
// computes; saved without contents it samples zeros.
func TestSavedGraphsKeepTexturesAndSamplers(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, samplingWGSL)
	raw := []byte{0, 0, 0, 255, 64, 0, 0, 255, 128, 0, 0, 255, 255, 0, 0, 255}
	src, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 1, Format: "rgba8unorm"}, raw)
	if err != nil {
		t.Fatal(err)
	}
	results := map[recorder.SamplerDesc][]float32{}
	for _, desc := range []recorder.SamplerDesc{{}, {Linear: true}, {Repeat: true}, {Linear: true, Repeat: true}} {
		smp, err := s.NewSampler(desc)
		if err != nil {
			t.Fatal(err)
		}
		out := gputest.Empty(t, s, 32)
		g := gputest.Capture(t, s, func() {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), src, smp, out); err != nil {
				t.Fatal(err)
			}
		})
		want := gputest.Read(t, s, out)
		var file, bare bytes.Buffer
		if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := g.WriteTo(&bare); err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			name string
			b    []byte
			want []float32
		}{{"with contents", file.Bytes(), want}, {"without contents", bare.Bytes(), make([]float32, 8)}} {
			lg, err := s.LoadGraph(bytes.NewReader(f.b))
			if err != nil {
				t.Fatalf("%+v %s: LoadGraph: %v", desc, f.name, err)
			}
			bufs := lg.Buffers()
			if len(bufs) != 1 {
				t.Fatalf("%+v %s: the loaded graph lists %d buffers", desc, f.name, len(bufs))
			}
			if err := s.Clear(bufs[0], 0, 32); err != nil {
				t.Fatal(err)
			}
			if err := lg.Replay(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, fmt.Sprintf("sampler %+v, loaded %s, computes as the original", desc, f.name), f.want, gputest.Read(t, s, bufs[0]))
			bufs[0].Release()
			lg.Release()
		}
		results[desc] = want
	}
	// The samplers differ, so a file that lost a sampler's settings would
	// compute another sampler's result.
	nearest, linear, repeat := results[recorder.SamplerDesc{}], results[recorder.SamplerDesc{Linear: true}], results[recorder.SamplerDesc{Repeat: true}]
	if slices.Equal(nearest, linear) || slices.Equal(nearest[4:], repeat[4:]) || !slices.Equal(nearest[:4], repeat[:4]) {
		t.Errorf("the samplers must differ where the test samples: nearest %v, linear %v, repeat %v", nearest, linear, repeat)
	}
}

// fileSpec is a graph file (docs/graph-format.md, version 3 unless set) built field by
// field, so a test can forge any count, size or index and still reach the
// decoder (encode appends the right CRC-32C).
type fileSpec struct {
	version, flags uint32
	kernels        []fileKernel
	buffers        []fileBuf
	textures       []fileTex
	samplers       []uint8
	params         [][]byte
	nodes          []fileNode
	regions        []fileRegion
}

type fileKernel struct {
	source, entry string
	constants     []fileConst // written in this order (Save sorts them)
	label         string      // version 3
}

type fileConst struct {
	name  string
	value float64
}

type fileBuf struct {
	size     uint64
	role     uint8
	label    string
	contents []byte // written when non-nil; its length is not checked here
}

type fileTex struct {
	w, h, d  uint32
	dim      uint8
	format   string
	contents []byte
}

type fileNode struct {
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

type fileRegion struct {
	kind            uint8
	parent, maxIter uint32
	cond            uint32
	condOff         uint64
	gates           []uint32
}

type fileWriter struct{ b []byte }

func (w *fileWriter) u8(v uint8) { w.b = append(w.b, v) }

func (w *fileWriter) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }

func (w *fileWriter) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }

func (w *fileWriter) str(v string) { w.u32(uint32(len(v))); w.b = append(w.b, v...) }

func (w *fileWriter) blob(v []byte) { w.u32(uint32(len(v))); w.b = append(w.b, v...) }

func (w *fileWriter) f64(v float64) { w.u64(math.Float64bits(v)) }

func (w *fileWriter) seal() []byte {
	return binary.LittleEndian.AppendUint32(w.b, crc32.Checksum(w.b, crc32.MakeTable(crc32.Castagnoli)))
}

func (f *fileSpec) encode() []byte {
	var w fileWriter
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

// u32Bytes is v as little-endian bytes.
func u32Bytes(v ...uint32) []byte {
	var out []byte
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, x)
	}
	return out
}

// affineFile is a file of one dispatch of affineWGSL (x = x·m + a) over a
// 64-word buffer holding 0..63: what a well-formed file looks like, and the
// base every forgery below starts from.
func affineFile(m, a uint32) *fileSpec {
	init := make([]uint32, rampElems)
	for i := range init {
		init[i] = uint32(i)
	}
	return &fileSpec{
		flags:   1,
		kernels: []fileKernel{{source: affineWGSL, entry: "main"}},
		buffers: []fileBuf{{size: rampBytes, label: "x", contents: u32Bytes(init...)}},
		params:  [][]byte{u32Bytes(m, a)},
		nodes:   []fileNode{{kind: 0, x: 1, y: 1, z: 1, args: [][2]uint32{{0, 0}, {1, 0}}}},
	}
}

// TestAHandBuiltGraphFileLoadsAndReplays: the builder writes what Save
// writes, and the file it builds replays exactly; everything below forges
// one field of it.
func TestAHandBuiltGraphFileLoadsAndReplays(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, affineWGSL)
	x := gputest.UploadU32(t, s, make([]uint32, rampElems)...)
	g := captureAffines(t, s, k, x, []affine{{3, 5}})
	defer g.Release()
	var saved bytes.Buffer
	if _, err := g.WriteTo(&saved); err != nil {
		t.Fatal(err)
	}
	f := affineFile(3, 5)
	f.flags, f.buffers[0].contents, f.buffers[0].label = 0, nil, x.Label()
	if diff := cmp.Diff(f.encode(), saved.Bytes()); diff != "" {
		t.Fatalf("the hand-built file differs from Save's (-built +saved):\n%s", diff)
	}
	lg, err := s.LoadGraph(bytes.NewReader(affineFile(3, 5).encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Release()
	for range 2 {
		if err := lg.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	want := make([]uint32, rampElems)
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

// TestALoadedGraphSavesAFileItCanLoad: a file whose one region has
// its enable buffer (as every file with control flow must) but no command
// using that buffer, and out-of-range gate words (metadata the lowering
// wrote, which a loaded graph only carries). It loads and replays as its
// nodes say; Save of the loaded graph once dropped the enable buffer and
// kept the region, so LoadGraph refused the file softgraph itself wrote
// ("0 gate buffers, 0 enable buffers and 0 gate tables for 1 control-flow
// regions"). A condition word outside its buffer is refused at load.
func TestALoadedGraphSavesAFileItCanLoad(t *testing.T) {
	_, s := gputest.OpenStream(t)
	f := affineFile(3, 5)
	f.buffers = append(f.buffers, fileBuf{size: 16, role: 3})
	f.regions = []fileRegion{{kind: 2, maxIter: 3, condOff: math.MaxUint64 - 3, gates: []uint32{math.MaxUint32, 1 << 30, 3}}}
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
	exerciseLoaded(t, "a region with an unused enable buffer", s, lg, want920())
}
