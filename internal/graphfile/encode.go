package graphfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
)

// Encode writes f to w as a graph file of f.Version and returns the bytes
// written. It first checks that f is one Decode would accept (with no
// Limits): a version it knows, buffer sizes and roles valid in that
// version, contents of the declared size, every index pointing somewhere,
// every length fitting its u32 field. It refuses one that is not with an
// *Error and writes nothing; a writer's error is returned as it is.
//
// Encode streams: it holds no copy of the contents, and the checksum is
// computed as the bytes go out.
func Encode(w io.Writer, f *File) (int64, error) {
	if f == nil {
		return 0, &Error{Op: "Encode", Where: "file", Offset: -1, Err: errors.New("nil File")}
	}
	if err := f.encodable(); err != nil {
		return 0, err
	}
	return write(w, f)
}

// write writes f as it is, checked or not (tests forge bad files with it).
func write(w io.Writer, f *File) (int64, error) {
	cw := &countingWriter{w: w}
	e := &encoder{out: bufio.NewWriterSize(cw, 64<<10), sum: crc32.New(castagnoli)}
	e.bytes(Magic[:])
	e.u32(f.Version)
	flags := uint32(0)
	if f.Contents {
		flags |= FlagContents
	}
	e.u32(flags)

	e.u32(uint32(len(f.Kernels)))
	for _, k := range f.Kernels {
		e.str(k.Source)
		e.str(k.Entry)
		e.u32(uint32(len(k.Constants)))
		for _, c := range k.Constants {
			e.str(c.Name)
			e.u64(math.Float64bits(c.Value))
		}
		if f.Version >= 3 {
			e.str(k.Label)
		}
	}
	e.u32(uint32(len(f.Buffers)))
	for _, b := range f.Buffers {
		e.u64(b.Size)
		e.u8(uint8(b.Role))
		e.str(b.Label)
		if b.Data != nil {
			e.u8(1)
			e.bytes(b.Data)
		} else {
			e.u8(0)
		}
	}
	e.u32(uint32(len(f.Textures)))
	for _, t := range f.Textures {
		e.u32(t.Width)
		e.u32(t.Height)
		e.u32(t.Depth)
		e.u8(t.Dim)
		e.str(t.Format)
		if t.Data != nil {
			e.u8(1)
			e.u32(uint32(len(t.Data)))
			e.bytes(t.Data)
		} else {
			e.u8(0)
		}
	}
	e.u32(uint32(len(f.Samplers)))
	for _, s := range f.Samplers {
		e.u8(uint8(s))
	}
	e.u32(uint32(len(f.Params)))
	for _, p := range f.Params {
		e.u32(uint32(len(p)))
		e.bytes(p)
	}
	e.u32(uint32(len(f.Nodes)))
	for _, n := range f.Nodes {
		e.u8(uint8(n.Kind))
		e.u32(n.Region)
		switch n.Kind {
		case NodeDispatch:
			e.u32(n.Kernel)
			if n.Indirect {
				e.u8(1)
				e.u32(n.Buffer)
				e.u64(n.Offset)
			} else {
				e.u8(0)
				e.u32(n.X)
				e.u32(n.Y)
				e.u32(n.Z)
			}
			e.u32(uint32(len(n.Args)))
			for _, a := range n.Args {
				e.u8(uint8(a.Kind))
				e.u32(a.Index)
			}
		case NodeCopy:
			e.u32(n.Src)
			e.u64(n.SrcOffset)
			e.u32(n.Dst)
			e.u64(n.DstOffset)
			e.u64(n.Size)
		case NodeClear:
			e.u32(n.Dst)
			e.u64(n.DstOffset)
			e.u64(n.Size)
		}
	}
	e.u32(uint32(len(f.Regions)))
	for _, r := range f.Regions {
		e.u8(uint8(r.Kind))
		e.u32(r.Parent)
		e.u32(r.MaxIterations)
		e.u32(r.Cond)
		e.u64(r.CondOffset)
		e.u32(uint32(len(r.Gates)))
		for _, g := range r.Gates {
			e.u32(g)
		}
	}
	// The checksum covers every byte before it, not itself.
	sum := e.sum.Sum32()
	e.sum = nil
	e.u32(sum)
	if e.err == nil {
		e.err = e.out.Flush()
	}
	return cw.n, e.err
}

// encodable reports, as an *Error, what in f Decode would refuse or the
// byte layout cannot hold.
func (f *File) encodable() error {
	bad := func(where, format string, args ...any) error {
		return &Error{Op: "Encode", Where: where, Offset: -1, Err: fmt.Errorf(format, args...)}
	}
	if f.Version == 0 || f.Version > Version {
		return bad("header", "version %d; this softgraph writes versions 1..%d", f.Version, Version)
	}
	for _, n := range []struct {
		what string
		n    int
	}{{"kernels", len(f.Kernels)}, {"buffers", len(f.Buffers)}, {"textures", len(f.Textures)}, {"samplers", len(f.Samplers)}, {"params", len(f.Params)}, {"nodes", len(f.Nodes)}, {"regions", len(f.Regions)}} {
		if uint64(n.n) > math.MaxUint32 {
			return bad(n.what, "%d elements; a count is a u32", n.n)
		}
	}
	long := func(n int) bool { return uint64(n) > math.MaxUint32 }
	for i, k := range f.Kernels {
		if long(len(k.Source)) || long(len(k.Entry)) || long(len(k.Label)) || long(len(k.Constants)) {
			return bad(fmt.Sprintf("kernel %d", i), "a length over a u32")
		}
		if k.Label != "" && f.Version < 3 {
			return bad(fmt.Sprintf("kernel %d", i), "a label in a version-%d file (labels are version 3)", f.Version)
		}
	}
	for i, b := range f.Buffers {
		where := fmt.Sprintf("buffer %d", i)
		switch {
		case b.Size == 0 || b.Size%4 != 0:
			return bad(where, "size %d (a positive multiple of 4)", b.Size)
		case !b.Role.validIn(f.Version):
			return bad(where, "unknown role %d in a version-%d file", b.Role, f.Version)
		case b.Data != nil && uint64(len(b.Data)) != b.Size:
			return bad(where, "contents of %d bytes for a buffer of %d", len(b.Data), b.Size)
		case b.Data == nil && b.Role == RoleConstant:
			return bad(where, "a constant buffer without its contents")
		case long(len(b.Label)):
			return bad(where, "a label over a u32 length")
		}
	}
	for i, t := range f.Textures {
		if long(len(t.Format)) || long(len(t.Data)) {
			return bad(fmt.Sprintf("texture %d", i), "a length over a u32")
		}
	}
	for i, p := range f.Params {
		if long(len(p)) {
			return bad(fmt.Sprintf("params %d", i), "a length over a u32")
		}
	}
	for i, n := range f.Nodes {
		if long(len(n.Args)) {
			return bad(fmt.Sprintf("node %d", i), "a length over a u32")
		}
	}
	for i, r := range f.Regions {
		if long(len(r.Gates)) {
			return bad(fmt.Sprintf("region %d", i+1), "a length over a u32")
		}
	}
	if err := f.check(Limits{}); err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Op = "Encode"
		}
		return err
	}
	return nil
}

// encoder writes little-endian fields through a buffer, hashing them;
// the first write error sticks and later writes do nothing.
type encoder struct {
	out     *bufio.Writer
	sum     hash.Hash32 // nil once the checksum is taken
	scratch [8]byte
	err     error
}

func (e *encoder) bytes(b []byte) {
	if e.err != nil {
		return
	}
	if e.sum != nil {
		e.sum.Write(b) // a hash.Hash never fails
	}
	_, e.err = e.out.Write(b)
}

func (e *encoder) u8(v uint8) { e.scratch[0] = v; e.bytes(e.scratch[:1]) }

func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.scratch[:4], v)
	e.bytes(e.scratch[:4])
}

func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.scratch[:8], v)
	e.bytes(e.scratch[:8])
}

func (e *encoder) str(s string) {
	e.u32(uint32(len(s)))
	if e.err != nil {
		return
	}
	if e.sum != nil {
		io.WriteString(e.sum, s)
	}
	_, e.err = e.out.WriteString(s)
}

// countingWriter counts the bytes its writer accepted.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
