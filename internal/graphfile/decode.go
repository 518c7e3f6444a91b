package graphfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unicode/utf8"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Decode reads a graph file from r, checks its frame (magic, version,
// checksum), its structure (every count fits the bytes that follow,
// every index points at an element of the right section, nothing follows
// the last section) and lim, and returns it. It allocates at most in
// proportion to the bytes it reads, and never panics.
//
// A refusal is an *Error: Where names the part at fault, Offset its byte
// offset for structural faults. A reader's failure is an *Error at
// "reading" wrapping the reader's error.
func Decode(r io.Reader, lim Limits) (*File, error) {
	src := r
	if lim.MaxFileSize > 0 {
		src = io.LimitReader(r, lim.MaxFileSize+1)
	}
	data, err := io.ReadAll(src)
	if err != nil {
		return nil, &Error{Op: "Decode", Where: "reading", Offset: -1, Err: err}
	}
	if lim.MaxFileSize > 0 && int64(len(data)) > lim.MaxFileSize {
		return nil, &Error{Op: "Decode", Where: "reading", Offset: lim.MaxFileSize, Err: fmt.Errorf("more than the limit of %d bytes", lim.MaxFileSize)}
	}
	return decode(data, lim)
}

// reader reads little-endian fields, failing (once) on a short read.
type reader struct {
	data  []byte // the file without its checksum
	pos   int
	where string
	err   *Error
}

func (r *reader) failAt(pos int, format string, args ...any) {
	if r.err == nil {
		r.err = &Error{Op: "Decode", Where: r.where, Offset: int64(pos), Err: fmt.Errorf(format, args...)}
	}
}

func (r *reader) fail(format string, args ...any) { r.failAt(r.pos, format, args...) }

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.data)-r.pos {
		r.fail("truncated: %d bytes needed, %d left", n, len(r.data)-r.pos)
		return nil
	}
	b := r.data[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *reader) f64() float64 { return math.Float64frombits(r.u64()) }

// bytes reads a u32 length and that many bytes, aliasing the input.
func (r *reader) bytes() []byte {
	n := r.u32()
	return r.take(int(min(n, math.MaxInt32)))
}

func (r *reader) str() string {
	b := r.bytes()
	if r.err == nil && !utf8.Valid(b) {
		r.fail("a string that is not UTF-8")
	}
	return string(b)
}

// count reads an element count and checks that at least minBytes per
// element follow, so a corrupted count cannot make the reader allocate
// for elements the file cannot hold.
func (r *reader) count(what string, minBytes int) int {
	n := r.u32()
	if r.err == nil && uint64(n)*uint64(minBytes) > uint64(len(r.data)-r.pos) {
		r.fail("%d %s cannot fit in the %d bytes left", n, what, len(r.data)-r.pos)
		return 0
	}
	return int(n)
}

// The fewest bytes one element of each section takes, for count.
const (
	minKernel   = 4 + 4 + 4             // source, entry, constants count
	minConstant = 4 + 8                 // name, value
	minBuffer   = 8 + 1 + 4 + 1         // size, role, label, has_contents
	minTexture  = 4 + 4 + 4 + 1 + 4 + 1 // width, height, depth, dim, format, has_contents
	minNode     = 1 + 4 + 4             // kind, region, the smallest kind's first field
	minArg      = 1 + 4
	minRegion   = 1 + 4 + 4 + 4 + 8 + 4 // kind, parent, max_iterations, cond, offset, gates count
)

// decode decodes a whole file held in data. The File's contents, params
// and texture data alias data.
func decode(data []byte, lim Limits) (*File, error) {
	if len(data) < headerSize+trailerSize {
		return nil, &Error{Op: "Decode", Where: "header", Offset: 0, Err: fmt.Errorf("truncated: %d bytes is less than a header", len(data))}
	}
	if [8]byte(data[:8]) != Magic {
		return nil, &Error{Op: "Decode", Where: "header", Offset: 0, Err: fmt.Errorf("not a softgraph graph file (wrong magic %q)", data[:8])}
	}
	body, trailer := data[:len(data)-trailerSize], data[len(data)-trailerSize:]
	version := binary.LittleEndian.Uint32(data[8:])
	if version > Version || version == 0 {
		return nil, &Error{Op: "Decode", Where: "header", Offset: 8, Err: fmt.Errorf("version %d; this softgraph reads versions 1..%d", version, Version)}
	}
	if want, got := binary.LittleEndian.Uint32(trailer), crc32.Checksum(body, castagnoli); want != got {
		return nil, &Error{Op: "Decode", Where: "checksum", Offset: int64(len(body)), Err: fmt.Errorf("CRC-32C %08x, the file says %08x: the file is corrupted", got, want)}
	}
	r := &reader{data: body, pos: headerSize, where: "header"}
	f := &File{Version: version, Contents: binary.LittleEndian.Uint32(data[12:])&FlagContents != 0}

	r.where = "kernels"
	f.Kernels = make([]Kernel, r.count("kernels", minKernel))
	for i := range f.Kernels {
		r.where = fmt.Sprintf("kernel %d", i)
		k := &f.Kernels[i]
		k.Source, k.Entry = r.str(), r.str()
		k.Constants = make([]Constant, r.count("constants", minConstant))
		for j := range k.Constants {
			k.Constants[j] = Constant{Name: r.str(), Value: r.f64()}
		}
		if f.Version >= 3 {
			k.Label = r.str()
		}
	}
	r.where = "buffers"
	f.Buffers = make([]Buffer, r.count("buffers", minBuffer))
	for i := range f.Buffers {
		r.where = fmt.Sprintf("buffer %d", i)
		b := &f.Buffers[i]
		at := r.pos
		b.Size, b.Role, b.Label = r.u64(), Role(r.u8()), r.str()
		if r.err == nil && (b.Size == 0 || b.Size%4 != 0) {
			r.failAt(at, "size %d (a positive multiple of 4)", b.Size)
		}
		if r.err == nil && !b.Role.validIn(f.Version) {
			r.failAt(at+8, "unknown role %d in a version-%d file", b.Role, f.Version)
		}
		if r.err == nil && lim.MaxBufferSize > 0 && b.Size > lim.MaxBufferSize {
			r.where = fmt.Sprintf("buffer %d (%q)", i, b.Label)
			r.failAt(at, "%d bytes, over the device's maxBufferSize %d", b.Size, lim.MaxBufferSize)
		}
		if r.u8() != 0 {
			if r.err == nil && b.Size > uint64(len(r.data)-r.pos) {
				r.fail("contents of %d bytes, %d left", b.Size, len(r.data)-r.pos)
			}
			b.Data = r.take(int(min(b.Size, math.MaxInt32)))
		} else if b.Role == RoleConstant && r.err == nil {
			r.fail("a constant buffer without its contents")
		}
	}
	r.where = "textures"
	f.Textures = make([]Texture, r.count("textures", minTexture))
	for i := range f.Textures {
		r.where = fmt.Sprintf("texture %d", i)
		t := &f.Textures[i]
		t.Width, t.Height, t.Depth, t.Dim, t.Format = r.u32(), r.u32(), r.u32(), r.u8(), r.str()
		if r.u8() != 0 {
			t.Data = r.bytes() // non-nil, if empty, when present
		}
	}
	r.where = "samplers"
	f.Samplers = make([]SamplerFlags, r.count("samplers", 1))
	for i := range f.Samplers {
		f.Samplers[i] = SamplerFlags(r.u8())
	}
	r.where = "params"
	f.Params = make([][]byte, r.count("params", 4))
	for i := range f.Params {
		f.Params[i] = r.bytes()
	}
	r.where = "nodes"
	f.Nodes = make([]Node, r.count("nodes", minNode))
	for i := range f.Nodes {
		r.where = fmt.Sprintf("node %d", i)
		n := &f.Nodes[i]
		at := r.pos
		n.Kind, n.Region = NodeKind(r.u8()), r.u32()
		switch n.Kind {
		case NodeDispatch:
			n.Kernel = r.u32()
			if r.u8() != 0 {
				n.Indirect, n.Buffer, n.Offset = true, r.u32(), r.u64()
			} else {
				n.X, n.Y, n.Z = r.u32(), r.u32(), r.u32()
			}
			n.Args = make([]Arg, r.count("arguments", minArg))
			for j := range n.Args {
				n.Args[j] = Arg{Kind: ArgKind(r.u8()), Index: r.u32()}
			}
		case NodeCopy:
			n.Src, n.SrcOffset, n.Dst, n.DstOffset, n.Size = r.u32(), r.u64(), r.u32(), r.u64(), r.u64()
		case NodeClear:
			n.Dst, n.DstOffset, n.Size = r.u32(), r.u64(), r.u64()
		default:
			r.failAt(at, "unknown command kind %d", n.Kind)
		}
	}
	r.where = "regions"
	f.Regions = make([]Region, r.count("regions", minRegion))
	for i := range f.Regions {
		r.where = fmt.Sprintf("region %d", i+1)
		g := &f.Regions[i]
		g.Kind, g.Parent, g.MaxIterations, g.Cond, g.CondOffset = RegionKind(r.u8()), r.u32(), r.u32(), r.u32(), r.u64()
		g.Gates = make([]uint32, r.count("gates", 4))
		for j := range g.Gates {
			g.Gates[j] = r.u32()
		}
	}
	if r.err == nil && r.pos != len(r.data) {
		r.where = "end"
		r.fail("%d bytes after the last section", len(r.data)-r.pos)
	}
	if r.err != nil {
		return nil, r.err
	}
	if err := f.check(lim); err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Op = "Decode"
		}
		return nil, err
	}
	return f, nil
}

// check verifies what the byte layout cannot: every index points at an
// element of the right section, control flow has its buffers, regions
// nest, and lim holds. Decode and Encode both run it, so Encode never
// writes a file Decode refuses for its structure.
func (f *File) check(lim Limits) error {
	bad := func(where, format string, args ...any) error {
		return &Error{Where: where, Offset: -1, Err: fmt.Errorf(format, args...)}
	}
	nb := uint32(len(f.Buffers))
	roles := map[Role]int{}
	for _, b := range f.Buffers {
		roles[b.Role]++
	}
	// Control flow needs its enable words: in their own buffer (version 2),
	// or in the gate buffer (version 1, and a graph loaded from one).
	if roles[RoleScratch] > 1 || roles[RoleConstant] > 1 || roles[RoleEnable] > 1 ||
		(roles[RoleScratch]+roles[RoleEnable] > 0) != (len(f.Regions) > 0) {
		return bad("buffers", "%d gate buffers, %d enable buffers and %d gate tables for %d control-flow regions", roles[RoleScratch], roles[RoleEnable], roles[RoleConstant], len(f.Regions))
	}
	limit := map[ArgKind]int{ArgBuffer: len(f.Buffers), ArgParams: len(f.Params), ArgTexture: len(f.Textures), ArgSampler: len(f.Samplers)}
	for i, n := range f.Nodes {
		where := fmt.Sprintf("node %d", i)
		if n.Region > uint32(len(f.Regions)) {
			return bad(where, "region %d of %d", n.Region, len(f.Regions))
		}
		switch n.Kind {
		case NodeDispatch:
			if n.Kernel >= uint32(len(f.Kernels)) {
				return bad(where, "kernel %d of %d", n.Kernel, len(f.Kernels))
			}
			if n.Indirect && n.Buffer >= nb {
				return bad(where, "indirect buffer %d of %d", n.Buffer, nb)
			}
			for j, a := range n.Args {
				l, ok := limit[a.Kind]
				if !ok || a.Index >= uint32(l) {
					return bad(where, "argument %d: kind %d index %d points nowhere", j, a.Kind, a.Index)
				}
			}
		case NodeCopy:
			if n.Src >= nb || n.Dst >= nb {
				return bad(where, "copy between buffers %d and %d of %d", n.Src, n.Dst, nb)
			}
		case NodeClear:
			if n.Dst >= nb {
				return bad(where, "clear of buffer %d of %d", n.Dst, nb)
			}
		default:
			return bad(where, "unknown command kind %d", n.Kind)
		}
	}
	for i, r := range f.Regions {
		where := fmt.Sprintf("region %d", i+1)
		if r.Kind != RegionIf && r.Kind != RegionWhile {
			return bad(where, "unknown kind %d", r.Kind)
		}
		if r.Parent > uint32(i) || r.Cond >= nb || r.MaxIterations == 0 || lim.MaxWhileIterations > 0 && r.MaxIterations > lim.MaxWhileIterations {
			return bad(where, "parent %d, condition buffer %d of %d, maxIterations %d", r.Parent, r.Cond, nb, r.MaxIterations)
		}
		if size := f.Buffers[r.Cond].Size; r.CondOffset%4 != 0 || r.CondOffset >= size {
			return bad(where, "condition word at offset %d of a %d-byte buffer (a multiple of 4 inside it)", r.CondOffset, size)
		}
	}
	return nil
}
