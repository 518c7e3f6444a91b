package graphfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testdataFiles are the graph files recorder's tests load on a GPU: every
// version softgraph wrote, saved by Graph.Save.
func testdataFiles(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob("../../recorder/testdata/*.sgraph")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no graph files in recorder/testdata (%v)", err)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = b
	}
	return files
}

// reseal gives body (a file without its checksum) the checksum it needs.
func reseal(body []byte) []byte {
	b := append([]byte(nil), body...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// sampleFile holds every kind of element the format has, each field
// distinct, shaped as Decode returns it (empty lists where it reads a
// count of zero).
func sampleFile() *File {
	return &File{
		Version:  Version,
		Contents: true,
		Kernels: []Kernel{
			{Source: "@compute @workgroup_size(1) fn main() {}", Entry: "main", Constants: []Constant{{"a", 1.5}, {"b", -2}}, Label: "first"},
			{Source: "// gate", Entry: "gate", Constants: []Constant{}, Label: ""},
		},
		Buffers: []Buffer{
			{Size: 16, Role: RoleData, Label: "input", Data: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
			{Size: 256, Role: RoleData, Label: "zeroed"},
			{Size: 8, Role: RoleVar, Label: "var", Data: []byte{3, 0, 0, 0, 1, 0, 0, 0}},
			{Size: 12, Role: RoleScratch},
			{Size: 4, Role: RoleEnable},
			{Size: 4, Role: RoleConstant, Data: []byte{9, 9, 9, 9}},
		},
		Textures: []Texture{
			{Width: 4, Height: 1, Depth: 1, Dim: 1, Format: "rgba8unorm", Data: []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
			{Width: 2, Height: 2, Depth: 2, Dim: 2, Format: "r32float"},
		},
		Samplers: []SamplerFlags{0, SamplerLinear | SamplerRepeat, SamplerCompare},
		Params:   [][]byte{{1, 0, 0, 0}, {}},
		Nodes: []Node{
			{Kind: NodeDispatch, Kernel: 0, X: 1, Y: 2, Z: 3, Args: []Arg{{ArgBuffer, 0}, {ArgParams, 1}, {ArgTexture, 1}, {ArgSampler, 2}, {ArgBuffer, 2}}},
			{Kind: NodeDispatch, Region: 1, Kernel: 1, Indirect: true, Buffer: 3, Offset: 0, Args: []Arg{}},
			{Kind: NodeCopy, Region: 1, Src: 0, SrcOffset: 4, Dst: 1, DstOffset: 8, Size: 12},
			{Kind: NodeClear, Dst: 1, DstOffset: 16, Size: 32},
		},
		Regions: []Region{{Kind: RegionWhile, Parent: 0, MaxIterations: 6, Cond: 0, CondOffset: 4, Gates: []uint32{0, 1, 2}}},
	}
}

// forge writes f unchecked and returns its bytes: a file whose frame is
// sound and whose content is whatever the test made of f.
func forge(t testing.TB, edit func(f *File)) []byte {
	t.Helper()
	f := sampleFile()
	edit(f)
	var buf bytes.Buffer
	if _, err := write(&buf, f); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestEncodeOfDecodeGivesBackTheSameBytes: every file softgraph wrote, of
// every version, decodes and encodes back to the very same bytes, so the
// format owned here is the one those files were written in.
func TestEncodeOfDecodeGivesBackTheSameBytes(t *testing.T) {
	for name, data := range testdataFiles(t) {
		f, err := Decode(bytes.NewReader(data), Limits{})
		if err != nil {
			t.Errorf("%s must decode: %v", name, err)
			continue
		}
		var out bytes.Buffer
		n, err := Encode(&out, f)
		if err != nil {
			t.Errorf("%s: Encode of its File: %v", name, err)
			continue
		}
		if n != int64(out.Len()) || !bytes.Equal(out.Bytes(), data) {
			at := 0
			for at < min(len(data), out.Len()) && data[at] == out.Bytes()[at] {
				at++
			}
			t.Errorf("%s: Encode of Decode must give back the file's %d bytes; got %d (reported %d), first difference at byte %d", name, len(data), out.Len(), n, at)
		}
	}
}

// TestDecodeOfEncodeIsTheSameFile: a File with every kind of element
// survives Encode and Decode field for field.
func TestDecodeOfEncodeIsTheSameFile(t *testing.T) {
	want := sampleFile()
	var buf bytes.Buffer
	if _, err := Encode(&buf, want); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(&buf, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decode of Encode must be the File encoded (-encoded +decoded):\n%s", diff)
	}
}

// TestOlderVersionsKeepTheirLayout: a version-1 or version-2 File encodes
// without the fields later versions added (kernel labels) and decodes as
// the same version, so a file loaded from an old version can be written
// back unchanged.
func TestOlderVersionsKeepTheirLayout(t *testing.T) {
	for _, v := range []uint32{1, 2} {
		f := sampleFile()
		f.Version = v
		for i := range f.Kernels {
			f.Kernels[i].Label = ""
		}
		f.Buffers[2].Role = RoleData // Vars are version 3
		if v == 1 {
			f.Buffers = append(f.Buffers[:4], f.Buffers[5]) // enable buffers are version 2
		}
		var buf bytes.Buffer
		if _, err := Encode(&buf, f); err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		got, err := Decode(bytes.NewReader(buf.Bytes()), Limits{})
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if diff := cmp.Diff(f, got); diff != "" {
			t.Errorf("a version-%d File must come back as it was (-encoded +decoded):\n%s", v, diff)
		}
	}
}

// refusal checks that err is Decode's *Error at where (a prefix), at the
// byte offset (any when offset is -2), saying what.
func refusal(t *testing.T, name string, err error, where string, offset int64, what string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Op != "Decode" || !strings.HasPrefix(e.Where, where) || (offset != -2 && e.Offset != offset) || !strings.Contains(err.Error(), what) {
		t.Errorf("%s: want Decode's *Error at %q (byte %d) saying %q, got %#v (%v)", name, where, offset, what, e, err)
	}
}

// TestBadFramesAreRefusedWithWhatAndWhere: a file whose frame (magic,
// version, checksum, length) is wrong is refused before its sections
// are read, naming the part and the byte at fault.
func TestBadFramesAreRefusedWithWhatAndWhere(t *testing.T) {
	good := testdataFiles(t)["v3-while.sgraph"]
	body := good[:len(good)-4]
	patch := func(at int, v []byte) []byte {
		b := append([]byte(nil), body...)
		copy(b[at:], v)
		return reseal(b)
	}
	u32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	cases := []struct {
		name, where string
		offset      int64
		what        string
		data        []byte
	}{
		{"empty", "header", 0, "less than a header", nil},
		{"shorter than a header", "header", 0, "less than a header", good[:19]},
		{"wrong magic", "header", 0, "wrong magic", append([]byte("NOTAGRPH"), good[8:]...)},
		{"newer version", "header", 8, "version 4; this softgraph reads versions 1..3", patch(8, u32(Version+1))},
		{"version 0", "header", 8, "version 0", patch(8, u32(0))},
		{"truncated without its checksum", "checksum", -2, "corrupted", good[:len(good)/2]},
		{"a flipped byte", "checksum", int64(len(body)), "corrupted", func() []byte { b := append([]byte(nil), good...); b[len(b)/2] ^= 0xff; return b }()},
		{"a huge kernel count", "kernels", 20, "cannot fit", patch(16, u32(1<<30))},
		{"trailing bytes", "end", int64(len(body)), "4 bytes after the last section", reseal(append(append([]byte(nil), body...), 0, 0, 0, 0))},
	}
	for _, c := range cases {
		_, err := Decode(bytes.NewReader(c.data), Limits{})
		refusal(t, c.name, err, c.where, c.offset, c.what)
	}
}

// TestBadContentIsRefusedWithWhatAndWhere: a well-framed file whose
// sections say something the format forbids (a size, a role, an index
// that points nowhere, control flow without its buffers) is refused,
// naming the element at fault.
func TestBadContentIsRefusedWithWhatAndWhere(t *testing.T) {
	cases := []struct {
		name, where string
		what        string
		lim         Limits
		edit        func(f *File)
	}{
		{"a buffer of 6 bytes", "buffer 1", "size 6 (a positive multiple of 4)", Limits{}, func(f *File) { f.Buffers[1].Size = 6 }},
		{"a buffer of 0 bytes", "buffer 1", "size 0", Limits{}, func(f *File) { f.Buffers[1].Size = 0 }},
		{"an unknown role", "buffer 1", "unknown role 5 in a version-3 file", Limits{}, func(f *File) { f.Buffers[1].Role = 5 }},
		{"a Var in a version-2 file", "buffer 2", "unknown role 4 in a version-2 file", Limits{}, func(f *File) {
			f.Version = 2
			for i := range f.Kernels {
				f.Kernels[i].Label = ""
			}
		}},
		{"a constant buffer without contents", "buffer 5", "a constant buffer without its contents", Limits{}, func(f *File) { f.Buffers[5].Data = nil }},
		{"contents past the end", "buffer 0", "contents of 1048576 bytes", Limits{}, func(f *File) { f.Buffers[0].Size = 1 << 20 }},
		{"a label that is not UTF-8", "buffer 0", "not UTF-8", Limits{}, func(f *File) { f.Buffers[0].Label = "\xff" }},
		{"a buffer over maxBufferSize", `buffer 1 ("zeroed")`, "256 bytes, over the device's maxBufferSize 128", Limits{MaxBufferSize: 128}, func(*File) {}},
		{"an unknown command", "node 3", "unknown command kind 7", Limits{}, func(f *File) { f.Nodes[3].Kind = 7 }},
		{"a kernel that is not there", "node 0", "kernel 2 of 2", Limits{}, func(f *File) { f.Nodes[0].Kernel = 2 }},
		{"an argument that points nowhere", "node 0", "argument 3: kind 3 index 3 points nowhere", Limits{}, func(f *File) { f.Nodes[0].Args[3].Index = 3 }},
		{"an argument of no kind", "node 0", "argument 0: kind 9", Limits{}, func(f *File) { f.Nodes[0].Args[0].Kind = 9 }},
		{"an indirect buffer that is not there", "node 1", "indirect buffer 6 of 6", Limits{}, func(f *File) { f.Nodes[1].Buffer = 6 }},
		{"a region that is not there", "node 2", "region 2 of 1", Limits{}, func(f *File) { f.Nodes[2].Region = 2 }},
		{"a copy from nowhere", "node 2", "copy between buffers 7 and 1 of 6", Limits{}, func(f *File) { f.Nodes[2].Src = 7 }},
		{"a clear of nowhere", "node 3", "clear of buffer 6 of 6", Limits{}, func(f *File) { f.Nodes[3].Dst = 6 }},
		{"an unknown region kind", "region 1", "unknown kind 3", Limits{}, func(f *File) { f.Regions[0].Kind = 3 }},
		{"a region inside a later one", "region 1", "parent 1", Limits{}, func(f *File) { f.Regions[0].Parent = 1 }},
		{"a While of no iterations", "region 1", "maxIterations 0", Limits{}, func(f *File) { f.Regions[0].MaxIterations = 0 }},
		{"a While over the limit", "region 1", "maxIterations 6", Limits{MaxWhileIterations: 5}, func(*File) {}},
		{"a condition word outside its buffer", "region 1", "condition word at offset 16 of a 16-byte buffer", Limits{}, func(f *File) { f.Regions[0].CondOffset = 16 }},
		{"a condition word unaligned", "region 1", "condition word at offset 2", Limits{}, func(f *File) { f.Regions[0].CondOffset = 2 }},
		{"regions without gate or enable buffers", "buffers", "0 gate buffers, 0 enable buffers and 1 gate tables for 1 control-flow regions", Limits{}, func(f *File) {
			f.Buffers[3].Role, f.Buffers[4].Role = RoleData, RoleData
		}},
		{"two gate buffers", "buffers", "2 gate buffers", Limits{}, func(f *File) { f.Buffers[1].Role = RoleScratch }},
		{"gate buffers without regions", "buffers", "for 0 control-flow regions", Limits{}, func(f *File) {
			f.Regions = nil
			f.Nodes[1].Region, f.Nodes[2].Region = 0, 0
		}},
	}
	for _, c := range cases {
		_, err := Decode(bytes.NewReader(forge(t, c.edit)), c.lim)
		refusal(t, c.name, err, c.where, -2, c.what)
	}
}

// TestReadingIsBounded: Decode reads at most Limits.MaxFileSize bytes and
// refuses a longer file; a reader's failure is returned, wrapped, at
// "reading".
func TestReadingIsBounded(t *testing.T) {
	good := testdataFiles(t)["v3-while.sgraph"]
	_, err := Decode(bytes.NewReader(good), Limits{MaxFileSize: int64(len(good)) - 1})
	refusal(t, "a file one byte over MaxFileSize", err, "reading", int64(len(good))-1, "more than the limit")
	if _, err := Decode(bytes.NewReader(good), Limits{MaxFileSize: int64(len(good))}); err != nil {
		t.Errorf("a file of exactly MaxFileSize bytes must decode: %v", err)
	}
	boom := errors.New("disk on fire")
	_, err = Decode(&failingReader{data: good[:100], err: boom}, Limits{})
	refusal(t, "a reader that fails", err, "reading", -1, "disk on fire")
	if !errors.Is(err, boom) {
		t.Errorf("a reader's failure must be wrapped: %v", err)
	}
}

type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestEveryTruncationIsRefused: every prefix of every real file, resealed
// so the checksum holds and the sections must be read, is refused with an
// *Error (none decodes, none panics).
func TestEveryTruncationIsRefused(t *testing.T) {
	for name, data := range testdataFiles(t) {
		body := data[:len(data)-4]
		for n := range len(body) {
			f, err := decode(reseal(body[:n]), Limits{})
			var e *Error
			if f != nil || !errors.As(err, &e) {
				t.Fatalf("%s cut to %d bytes: want an *Error, got %v, %v", name, n, f, err)
			}
		}
	}
}

// TestHugeCountsAllocateNothingInProportion: whichever u32 of a real file
// is set to a huge value (a count, a length, an index), Decode allocates
// at most a small multiple of the file's size: counts are checked
// against the bytes left before anything is allocated for them.
func TestHugeCountsAllocateNothingInProportion(t *testing.T) {
	data := testdataFiles(t)["v3-texture-var-contents.sgraph"]
	body := data[:len(data)-4]
	bound := uint64(64<<10 + 8*len(data))
	var before, after runtime.MemStats
	for at := headerSize; at+4 <= len(body); at++ {
		for _, v := range []uint32{1<<31 - 1, 1<<32 - 1} {
			b := append([]byte(nil), body...)
			binary.LittleEndian.PutUint32(b[at:], v)
			file := reseal(b)
			runtime.ReadMemStats(&before)
			_, _ = Decode(bytes.NewReader(file), Limits{})
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > bound {
				t.Errorf("u32 at byte %d set to %d: Decode of a %d-byte file allocated %d bytes, over %d", at, v, len(file), grew, bound)
			}
		}
	}
}

// TestEncodeRefusesWhatDecodeWouldRefuse: Encode never writes a file
// Decode refuses for its structure; it returns an *Error naming the part
// and writes nothing.
func TestEncodeRefusesWhatDecodeWouldRefuse(t *testing.T) {
	cases := []struct {
		name, where, what string
		edit              func(f *File)
	}{
		{"version 0", "header", "version 0", func(f *File) { f.Version = 0 }},
		{"a newer version", "header", "version 4", func(f *File) { f.Version = Version + 1 }},
		{"a label in a version-2 file", "kernel 0", "a label in a version-2 file", func(f *File) { f.Version = 2 }},
		{"a buffer of 6 bytes", "buffer 1", "size 6", func(f *File) { f.Buffers[1].Size = 6 }},
		{"contents of the wrong size", "buffer 0", "contents of 16 bytes for a buffer of 32", func(f *File) { f.Buffers[0].Size = 32 }},
		{"a constant buffer without contents", "buffer 5", "a constant buffer without its contents", func(f *File) { f.Buffers[5].Data = nil }},
		{"an unknown role", "buffer 1", "unknown role 9", func(f *File) { f.Buffers[1].Role = 9 }},
		{"a kernel that is not there", "node 0", "kernel 2 of 2", func(f *File) { f.Nodes[0].Kernel = 2 }},
		{"an unknown command", "node 3", "unknown command kind 7", func(f *File) { f.Nodes[3].Kind = 7 }},
		{"a While of no iterations", "region 1", "maxIterations 0", func(f *File) { f.Regions[0].MaxIterations = 0 }},
	}
	for _, c := range cases {
		f := sampleFile()
		c.edit(f)
		var buf bytes.Buffer
		n, err := Encode(&buf, f)
		var e *Error
		if !errors.As(err, &e) || e.Op != "Encode" || e.Where != c.where || !strings.Contains(err.Error(), c.what) {
			t.Errorf("%s: want Encode's *Error at %q saying %q, got %v", c.name, c.where, c.what, err)
		}
		if n != 0 || buf.Len() != 0 {
			t.Errorf("%s: a refused File must write nothing; %d bytes written", c.name, buf.Len())
		}
	}
	if _, err := Encode(&bytes.Buffer{}, nil); err == nil {
		t.Errorf("Encode of a nil File must fail")
	}
}

// TestEncodeReturnsTheWritersError: a writer's failure is Encode's error,
// with the count of bytes the writer took.
func TestEncodeReturnsTheWritersError(t *testing.T) {
	boom := errors.New("disk full")
	w := &limitedWriter{left: 100, err: boom}
	n, err := Encode(w, sampleFile())
	if !errors.Is(err, boom) || n != 100 {
		t.Errorf("a writer that takes 100 bytes and fails: want (100, %v), got (%d, %v)", boom, n, err)
	}
}

type limitedWriter struct {
	left int
	err  error
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, w.err
	}
	w.left -= len(p)
	return len(p), nil
}

// FuzzDecode: no input, however malformed, makes Decode panic or hang; a
// refusal is Decode's *Error; what Decode accepts, Encode writes, and
// that decodes to the same File and encodes to the same bytes again
// (Encode is canonical). The seeds are the files in recorder/testdata.
func FuzzDecode(f *testing.F) {
	for _, data := range testdataFiles(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, reseal(data)} { // as given, and resealed so the sections are read
			file, err := Decode(bytes.NewReader(in), Limits{MaxBufferSize: 1 << 30, MaxWhileIterations: 4096})
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Op != "Decode" {
					t.Fatalf("a refusal must be Decode's *Error: %v", err)
				}
				continue
			}
			var once bytes.Buffer
			if _, err := Encode(&once, file); err != nil {
				t.Fatalf("Encode must write what Decode accepted: %v", err)
			}
			again, err := Decode(bytes.NewReader(once.Bytes()), Limits{})
			if err != nil {
				t.Fatalf("Decode must read what Encode wrote: %v", err)
			}
			if diff := cmp.Diff(file, again); diff != "" {
				t.Fatalf("Decode of Encode must be the same File (-first +second):\n%s", diff)
			}
			var twice bytes.Buffer
			if _, err := Encode(&twice, again); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
				t.Fatalf("Encode must be canonical: %d bytes then %d (%v)", once.Len(), twice.Len(), err)
			}
		}
	})
}
