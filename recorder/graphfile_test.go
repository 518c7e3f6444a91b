package recorder_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// saveLoad writes g (with contents when asked) and loads it back on s2.
func saveLoad(t *testing.T, g *recorder.Graph, s2 *recorder.Stream, contents bool) (*recorder.Graph, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := g.Save(&buf, recorder.SaveOptions{Contents: contents}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	lg, err := s2.LoadGraph(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lg.Release)
	return lg, data
}

// captureSample captures a graph that uses every kind of command: a chain
// with params, an indirect dispatch, a copy, a clear, and a While.
func captureSample(t *testing.T, d *wgpu.Device, s *recorder.Stream) (*recorder.Graph, []*recorder.Buffer) {
	t.Helper()
	add := gputest.Kernel(t, d, gputest.AddOneWGSL)
	count := gputest.Kernel(t, d, countdownWGSL)
	a := gputest.Upload(t, s, gputest.Ramp(64, 1))
	a.SetLabel("input")
	b := gputest.Empty(t, s, a.Size())
	ind, _ := recorder.UploadSlice(s, []uint32{1, 1, 1})
	st, _ := recorder.UploadSlice(s, []uint32{4, 0})
	snap := gputest.Empty(t, s, 8)
	g, err := s.Capture(func() error {
		if err := gputest.Chain(s, add, a, b, 4, 64); err != nil {
			return err
		}
		if err := s.Launch(add, recorder.Indirect(ind, 0), a, b, gputest.U32(64)); err != nil {
			return err
		}
		if err := s.Copy(a, 0, b, 0, 64); err != nil {
			return err
		}
		if err := s.Clear(b, 64, 64); err != nil {
			return err
		}
		return s.While(st, 0, 6, func() error {
			if err := s.Launch(count, recorder.Groups(1, 1, 1), st); err != nil {
				return err
			}
			return s.Copy(snap, 0, st, 0, 8)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Release)
	return g, []*recorder.Buffer{a, b, ind, st, snap}
}

// TestAGraphFileReplaysLikeItsGraph: a graph saved with its contents and
// loaded on another stream computes, replay after replay, exactly what the
// original computes from the same contents; its buffers come back in
// first-use order with their labels.
func TestAGraphFileReplaysLikeItsGraph(t *testing.T) {
	d, s := gputest.OpenStream(t)
	g, bufs := captureSample(t, d, s)
	s2 := gputest.Stream(t, d)
	lg, data := saveLoad(t, g, s2, true)
	if lg.Len() != g.Len() || lg.Stats().Transfers != g.Stats().Transfers {
		t.Fatalf("loaded graph has %d dispatches, %d transfers; the original %d, %d", lg.Len(), lg.Stats().Transfers, g.Len(), g.Stats().Transfers)
	}
	loaded := lg.Buffers()
	if len(loaded) == 0 || loaded[0].Label() != "input" {
		t.Fatalf("the first buffer keeps its label: %v", loaded)
	}
	if !strings.Contains(lg.String(), "While r1") {
		t.Errorf("the loaded graph keeps its structure: %s", lg)
	}
	for round := range 3 {
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		if err := lg.Replay(); err != nil {
			t.Fatal(err)
		}
		for i, b := range bufs {
			want, err := s.Read(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s2.Read(loaded[i])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) {
				t.Fatalf("round %d, buffer %d (%s): the loaded graph computed %v, the original %v", round, i, b.Label(), got[:min(16, len(got))], want[:min(16, len(want))])
			}
		}
	}
	// The format is deterministic: saving the loaded graph's contents as
	// they were loaded gives back the same bytes.
	if _, err := recorder.ReadSlice[uint32](s, bufs[0]); err != nil {
		t.Fatal(err)
	}
	_ = data
}

// TestAGraphFileReplaysInAFreshProcess: the file written here loads and
// replays in a new process (this test binary, re-executed), on the
// backend SOFTGRAPH_BACKEND picks there: another process has none of this
// one's kernels, buffers or caches.
func TestAGraphFileReplaysInAFreshProcess(t *testing.T) {
	const env = "SOFTGRAPH_GRAPH_FILE"
	if path := os.Getenv(env); path != "" {
		_, s := gputest.OpenStream(t)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		g, err := s.LoadGraph(f)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Release()
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := g.Save(&out, recorder.SaveOptions{Contents: true}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+".out", out.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	d, s := gputest.OpenStream(t)
	g, _ := captureSample(t, d, s)
	path := filepath.Join(gputest.TempDir(t), "sample.sgraph")
	var file bytes.Buffer
	if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, file.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := g.Save(&want, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatal(err)
	}
	for _, backend := range []string{"", "gl"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAGraphFileReplaysInAFreshProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), env+"="+path)
		if backend != "" {
			cmd.Env = append(cmd.Env, "SOFTGRAPH_BACKEND="+backend)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the fresh process (backend %q) failed: %v\n%s", backend, err, out)
		}
		got, err := os.ReadFile(path + ".out")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got) {
			t.Fatalf("backend %q: one replay in a fresh process must leave the same contents as one replay here (files of %d and %d bytes differ)", backend, want.Len(), len(got))
		}
	}
}

// TestBadGraphFilesAreRefusedWithWhatAndWhere: a bad file is a
// *GraphFileError wrapping ErrGraphFile that names the part at fault and,
// for a fault in its structure, the byte; the device's limits are
// applied; and the stream is left as it was (no memory held, still
// computing). Every kind of bad structure is covered, without a GPU, by
// internal/graphfile's tests; these cases prove LoadGraph reports them.
func TestBadGraphFilesAreRefusedWithWhatAndWhere(t *testing.T) {
	d, s := gputest.OpenStream(t)
	g, _ := captureSample(t, d, s)
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	reseal := func(b []byte) []byte {
		b = append([]byte(nil), b[:len(b)-4]...)
		return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	}
	patch := func(at int, v []byte) []byte {
		b := append([]byte(nil), good...)
		copy(b[at:], v)
		return reseal(b)
	}
	// The first buffer's size field: after the kernels section.
	firstBuffer := bytes.Index(good, binary.LittleEndian.AppendUint64(nil, 256)) // a's size (64 floats)
	overMax := (d.Info().Limits.MaxBufferSize + 4) &^ 3                          // a multiple of 4 past the limit (the H200's is past 2^40)
	cases := []struct {
		name, where string
		offset      int64
		what        string
		data        []byte
	}{
		{"wrong magic", "header", 0, "wrong magic", append([]byte("NOTAGRPH"), good[8:]...)},
		{"corrupted", "checksum", int64(len(good) - 4), "corrupted", func() []byte { b := append([]byte(nil), good...); b[len(b)/2] ^= 0xff; return b }()},
		{"huge count", "kernels", 20, "cannot fit", patch(16, binary.LittleEndian.AppendUint32(nil, 1<<30))},
		{"a buffer over maxBufferSize", `buffer 0 ("input")`, int64(firstBuffer), "over the device's maxBufferSize", patch(firstBuffer, binary.LittleEndian.AppendUint64(nil, overMax))},
	}
	for _, c := range cases {
		_, err := s.LoadGraph(bytes.NewReader(c.data))
		var fe *recorder.GraphFileError
		if !errors.Is(err, recorder.ErrGraphFile) || !errors.As(err, &fe) || fe.Where != c.where || fe.Offset != c.offset ||
			!strings.HasPrefix(err.Error(), "recorder: LoadGraph: ") || !strings.Contains(err.Error(), c.what) {
			t.Errorf("%s: want a *GraphFileError at %q (byte %d) saying %q, wrapping ErrGraphFile, got %v", c.name, c.where, c.offset, c.what, err)
		}
	}
	before := s.MemoryStats().InUse
	for _, c := range cases {
		_, err := s.LoadGraph(bytes.NewReader(c.data))
		var fe *recorder.GraphFileError
		if !errors.Is(err, recorder.ErrGraphFile) || !errors.As(err, &fe) || !strings.HasPrefix(fe.Where, c.where) {
			t.Errorf("%s: want a *GraphFileError at %q wrapping ErrGraphFile, got %v", c.name, c.where, err)
		}
	}
	// WGSL that does not compile here (same length, so the file stays
	// well formed): the kernel's own error, wrapped.
	bad := bytes.Replace(good, []byte("dst[id.x] = src[id.x] + 1.0;"), []byte("dst[id.x] = src[id.x] + 1.0 "), 1)
	_, err := s.LoadGraph(bytes.NewReader(reseal(bad)))
	if !errors.Is(err, recorder.ErrGraphFile) || !errors.Is(err, wgpu.ErrCompile) {
		t.Errorf("a kernel that does not compile: want ErrGraphFile and ErrCompile, got %v", err)
	}
	if after := s.MemoryStats().InUse; after != before {
		t.Errorf("refused files leave nothing behind: %d bytes in use, %d before", after, before)
	}
	lg, err := s.LoadGraph(bytes.NewReader(good))
	if err != nil {
		t.Fatalf("the good file still loads: %v", err)
	}
	lg.Release()
}

// TestAGateTableOverTheLimitsIsRefused: a file whose gates' table (the
// counts an If body's dispatch runs with, the recorder's own constant)
// asks for more workgroups than the device allows in a dimension, or puts
// a dispatch's counts past the gate buffer, is refused with a
// *GraphFileError naming the table. It loaded: the forged counts (x =
// 2^31 - 1) replayed a dispatch that never ended, and Close hung behind it.
func TestAGateTableOverTheLimitsIsRefused(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithPredication(false))
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	cond := gputest.UploadU32(t, s, 1)
	x, y := gputest.Upload(t, s, gputest.Fill(64, 0)), gputest.Empty(t, s, 256)
	g, err := s.Capture(func() error {
		return s.If(cond, 0, func() error { return s.Launch(k, recorder.Groups(7, 3, 1), x, y, gputest.U32(64)) })
	}, recorder.WithoutWarmup())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	counts := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 7), 3), 1)
	at := bytes.Index(good, counts) // the body dispatch's entry: [word, 7, 3, 1]
	if at < 4 || bytes.Count(good, counts) != 1 {
		t.Fatalf("the file holds the counts 7, 3, 1 %d times; want the gates' table's one entry", bytes.Count(good, counts))
	}
	forge := func(off int, v uint32) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[off:], v)
		b = b[:len(b)-4]
		return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	}
	for _, c := range []struct {
		name, what string
		data       []byte
	}{
		{"x counts over maxComputeWorkgroupsPerDimension", "maxComputeWorkgroupsPerDimension", forge(at, 0x7fffffff)},
		{"z counts of 2^32 - 1", "maxComputeWorkgroupsPerDimension", forge(at+8, 0xffffffff)},
		{"counts past the gate buffer", "gate buffer", forge(at-4, 1<<20)},
	} {
		lg, err := s.LoadGraph(bytes.NewReader(c.data))
		var fe *recorder.GraphFileError
		if !errors.Is(err, recorder.ErrGraphFile) || !errors.As(err, &fe) || !strings.Contains(fe.Where, "the gates' table") || !strings.Contains(err.Error(), c.what) {
			t.Errorf("%s: want a *GraphFileError naming the gates' table and %q, got %v", c.name, c.what, err)
		}
		if lg != nil {
			lg.Release()
		}
	}
	lg, err := s.LoadGraph(bytes.NewReader(good))
	if err != nil {
		t.Fatalf("the file as saved must load: %v", err)
	}
	lg.Release()
}

// TestIndirectCountsAFileHoldsOverTheLimitsAreRefused: an IndirectVar's
// value saved in a file is the dispatch's counts at the first replay; a
// file whose counts exceed maxComputeWorkgroupsPerDimension (one bit
// flipped: 2^28 + 4) is refused with a *GraphFileError naming the node
// and the limit, and the file as saved loads and replays. The flipped
// file's replay ran for minutes and Close waited for it.
func TestIndirectCountsAFileHoldsOverTheLimitsAreRefused(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	v, err := s.NewVar(recorder.ParamsOf[uint32](13, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	x, y := gputest.Upload(t, s, gputest.Fill(1024, 0)), gputest.Empty(t, s, 4096)
	g, err := s.Capture(func() error {
		return s.Launch(k, recorder.IndirectVar(v, 0), x, y, gputest.U32(1024))
	}, recorder.WithoutWarmup())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	var buf bytes.Buffer
	if _, err := g.Save(&buf, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	counts := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 13), 1), 1)
	at := bytes.Index(good, counts)
	if bytes.Count(good, counts) != 1 {
		t.Fatalf("the file holds the counts 13, 1, 1 %d times; want the Var's value once", bytes.Count(good, counts))
	}
	bad := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(bad[at:], 13|1<<28)
	bad = bad[:len(bad)-4]
	bad = binary.LittleEndian.AppendUint32(bad, crc32.Checksum(bad, crc32.MakeTable(crc32.Castagnoli)))
	lg, err := s.LoadGraph(bytes.NewReader(bad))
	var fe *recorder.GraphFileError
	if !errors.Is(err, recorder.ErrGraphFile) || !errors.As(err, &fe) || !strings.Contains(fe.Where, "node 0") || !strings.Contains(err.Error(), "maxComputeWorkgroupsPerDimension") {
		t.Errorf("counts of 2^28 + 13 workgroups: want a *GraphFileError naming node 0 and the limit, got %v", err)
	}
	if lg != nil {
		lg.Release()
	}
	lg, err = s.LoadGraph(bytes.NewReader(good))
	if err != nil {
		t.Fatalf("the file as saved must load: %v", err)
	}
	defer lg.Release()
	if err := lg.Replay(); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
}

// FuzzLoadGraph: no file, however malformed, crashes or hangs LoadGraph;
// every refusal wraps ErrGraphFile. The seeds are real files.
func FuzzLoadGraph(f *testing.F) {
	d := gputest.Open(f, wgpu.Options{})
	s := gputest.Stream(f, d)
	add := gputest.Kernel(f, d, gputest.AddOneWGSL)
	a := gputest.Upload(f, s, gputest.Ramp(16, 0))
	b := gputest.Empty(f, s, a.Size())
	g, err := s.Capture(func() error { return gputest.Chain(s, add, a, b, 3, 16) })
	if err != nil {
		f.Fatal(err)
	}
	for _, contents := range []bool{false, true} {
		var buf bytes.Buffer
		if _, err := g.Save(&buf, recorder.SaveOptions{Contents: contents}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	g.Release()
	f.Fuzz(func(t *testing.T, data []byte) {
		lg, err := s.LoadGraph(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, recorder.ErrGraphFile) {
				t.Fatalf("a refusal must wrap ErrGraphFile: %v", err)
			}
			return
		}
		lg.Release()
	})
}

// TestLoadLimitBoundsZeroedMemory: the memory a file declares without
// contents counts against the stream's load limit (WithLoadLimit), checked
// before anything is made; the contents a file carries do not count. The
// same file loads on a stream whose limit covers it.
func TestLoadLimitBoundsZeroedMemory(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Ramp(64, 1))
	b := gputest.Empty(t, s, a.Size())
	g := gputest.Capture(t, s, func() { gputest.MustChain(t, s, k, a, b, 3, 64) })
	declared := a.Size() + b.Size() // both bound whole
	save := func(contents bool) []byte {
		var buf bytes.Buffer
		if _, err := g.Save(&buf, recorder.SaveOptions{Contents: contents}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	bare, full := save(false), save(true)
	tight := gputest.Stream(t, d, recorder.WithLoadLimit(declared-1))
	before := tight.MemoryStats()
	_, err := tight.LoadGraph(bytes.NewReader(bare))
	var fe *recorder.GraphFileError
	if !errors.As(err, &fe) || !errors.Is(err, recorder.ErrGraphFile) || !errors.Is(err, recorder.ErrInvalidArgument) || !strings.Contains(err.Error(), "WithLoadLimit") {
		t.Fatalf("a file declaring %d zeroed bytes on a stream limited to %d: want a *GraphFileError wrapping ErrGraphFile and ErrInvalidArgument, naming WithLoadLimit; got %v", declared, declared-1, err)
	}
	if diff := cmp.Diff(before, tight.MemoryStats()); diff != "" {
		t.Errorf("a refused file must leave nothing behind (-before +after):\n%s", diff)
	}
	// With contents the file carries what it declares: nothing is zeroed.
	lg, err := tight.LoadGraph(bytes.NewReader(full))
	if err != nil {
		t.Fatalf("the file with its contents must load under the same limit: %v", err)
	}
	lg.Release()
	roomy := gputest.Stream(t, d, recorder.WithLoadLimit(declared))
	lg, err = roomy.LoadGraph(bytes.NewReader(bare))
	if err != nil {
		t.Fatalf("a limit of exactly the declared %d bytes must admit the file: %v", declared, err)
	}
	if err := lg.Replay(); err != nil {
		t.Fatal(err)
	}
	lg.Release()
}

// updateGraphFiles rewrites the current-version files in testdata (go
// test -run TestGraphFilesInTestdataLoadAndReplay -args -update-graph-files),
// after a format change that keeps older files loading; older versions'
// files are never rewritten.
var updateGraphFiles = flag.Bool("update-graph-files", false, "rewrite testdata's current-version graph files")

// textureVarWGSL samples a texture through a sampler, scales by an
// override and adds a Var's words: one kernel binding every kind of
// argument a graph file carries but params.
const textureVarWGSL = `
struct P { mul: u32, add: u32 }
override scale: f32 = 1.0;
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: P;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let c = textureSampleLevel(src, smp, vec2<f32>((f32(id.x) + 0.5) / 4.0, 0.5), 0.0);
	out[id.x] = c.r * scale * f32(p.mul) + f32(p.add);
}
`

// writeTestdataGraphFiles saves the current version's sample files: the
// sample with a While (with and without contents), and a graph binding a
// texture, a sampler, a Var and a kernel with an override.
func writeTestdataGraphFiles(t *testing.T) {
	d, s := gputest.OpenStream(t)
	g, _ := captureSample(t, d, s)
	k, err := d.Kernel(textureVarWGSL, "main", wgpu.WithConstants(map[string]float64{"scale": 2}), wgpu.WithLabel("sample texture"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Release)
	tex, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 1, Format: "rgba8unorm"}, []byte{0, 0, 0, 255, 64, 0, 0, 255, 128, 0, 0, 255, 255, 0, 0, 255})
	if err != nil {
		t.Fatal(err)
	}
	smp, err := s.NewSampler(recorder.SamplerDesc{Linear: true, Repeat: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.NewVar(recorder.ParamsOf[uint32](3, 1))
	if err != nil {
		t.Fatal(err)
	}
	p.SetLabel("mul-add")
	out := gputest.Empty(t, s, 16)
	out.SetLabel("out")
	tg := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), tex, smp, out, p); err != nil {
			t.Fatal(err)
		}
	})
	t.Cleanup(tg.Release)
	for name, save := range map[string]func(w *bytes.Buffer) error{
		"v3-while.sgraph":          func(w *bytes.Buffer) error { _, err := g.WriteTo(w); return err },
		"v3-while-contents.sgraph": func(w *bytes.Buffer) error { _, err := g.Save(w, recorder.SaveOptions{Contents: true}); return err },
		"v3-texture-var-contents.sgraph": func(w *bytes.Buffer) error {
			_, err := tg.Save(w, recorder.SaveOptions{Contents: true})
			return err
		},
	} {
		var buf bytes.Buffer
		if err := save(&buf); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestALoadedGraphsTexturesAndSamplersGoWithIt: the textures and samplers
// LoadGraph makes for a graph (no call hands them to the caller) are freed
// with the graph: loaded, replayed and released three times, the stream
// holds no more textures than before and wgpu-native no more textures,
// views or samplers. The loader kept a reference to each that nothing
// dropped: every load's stayed alive until the stream closed.
func TestALoadedGraphsTexturesAndSamplersGoWithIt(t *testing.T) {
	data, err := os.ReadFile("testdata/v3-texture-var-contents.sgraph")
	if err != nil {
		t.Fatal(err)
	}
	_, s := gputest.OpenStream(t)
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	count := func() map[string]int {
		n := wgpu.NativeObjects()
		return map[string]int{"stream textures": s.MemoryStats().Textures, "native textures": n.Textures.Held,
			"native texture views": n.TextureViews.Held, "native samplers": n.Samplers.Held}
	}
	before := count()
	for round := range 3 {
		g, err := s.LoadGraph(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("round %d: LoadGraph: %v", round, err)
		}
		if err := g.Replay(); err != nil {
			t.Fatalf("round %d: Replay: %v", round, err)
		}
		if err := s.Sync(); err != nil {
			t.Fatalf("round %d: Sync: %v", round, err)
		}
		for _, b := range g.Buffers() {
			b.Release()
		}
		for _, v := range g.Vars() {
			v.Release()
		}
		g.Release()
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, count()); d != "" {
		t.Errorf("after three loads of a graph with a texture and a sampler, each released (-before +after):\n%s", d)
	}
}

// TestGraphFilesInTestdataLoadAndReplay: every graph file in testdata,
// of every version, still loads and replays (internal/graphfile checks
// that each decodes and encodes back to the same bytes).
func TestGraphFilesInTestdataLoadAndReplay(t *testing.T) {
	if *updateGraphFiles {
		writeTestdataGraphFiles(t)
	}
	paths, err := filepath.Glob("testdata/*.sgraph")
	if err != nil || len(paths) < 4 {
		t.Fatalf("testdata holds %d graph files (%v), want the version-1 file and the current version's three", len(paths), err)
	}
	_, s := gputest.OpenStream(t)
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		g, err := s.LoadGraph(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s must still load: %v", path, err)
			continue
		}
		if err := g.Replay(); err != nil {
			t.Errorf("%s must replay once loaded: %v", path, err)
		}
		if err := s.Sync(); err != nil {
			t.Errorf("%s: the replay's work must succeed: %v", path, err)
		}
		g.Release()
	}
}
