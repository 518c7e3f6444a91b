package recorder

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/paramcache"
	"github.com/softgraph/softgraph/lifecycle"
)

// ErrGraphFile is wrapped by every error reading a graph file that is not
// one softgraph can load: truncated, corrupted, of a newer version, with
// sizes over the device's limits or indices that point nowhere. The
// *GraphFileError says what and where.
var ErrGraphFile = errors.New("bad graph file")

// GraphFileError is a graph file LoadGraph refused: Where is the part of
// the file (e.g. "node 12", "buffer 3"), Offset its byte offset when the
// file's structure was at fault, Err what is wrong (wrapping ErrGraphFile,
// and a device error too when the device refused what the file asks for).
type GraphFileError struct {
	Where  string
	Offset int64
	Err    error
}

func (e *GraphFileError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("recorder: LoadGraph: %s (byte %d): %v", e.Where, e.Offset, e.Err)
	}
	return fmt.Sprintf("recorder: LoadGraph: %s: %v", e.Where, e.Err)
}

func (e *GraphFileError) Unwrap() []error { return []error{ErrGraphFile, e.Err} }

// graphMagic opens every graph file; the CR LF catches a file mangled by a
// text-mode transfer, as PNG's does.
var graphMagic = [8]byte{'S', 'G', 'R', 'A', 'P', 'H', '\r', '\n'}

// GraphFileVersion is the version of the graph file format this package
// writes, and the newest it reads (see docs/graph-format.md).
const GraphFileVersion = 3

const flagContents = 1

// Buffer roles in a graph file.
const (
	roleData     = 0 // a buffer of the workload
	roleScratch  = 1 // the gate buffer of If and While: rewritten by every replay
	roleConstant = 2 // the gates' table: its contents are part of the graph
	roleEnable   = 3 // the enable words of If and While (version 2): rewritten by every replay
	roleVar      = 4 // a Var (version 3): its size is the value's, LoadGraph makes a Var of it
)

// Node kinds and argument kinds in a graph file.
const (
	fileDispatch = 0
	fileCopy     = 1
	fileClear    = 2

	argBuffer  = 0
	argParams  = 1
	argTexture = 2
	argSampler = 3
)

// SaveOptions configures Graph.Save.
type SaveOptions struct {
	// Contents snapshots the current contents of the graph's buffers and
	// textures into the file (a Read of each: it waits for the GPU, and is
	// refused while the graph's stream is recording). Without it the file
	// holds the graph alone and LoadGraph zeroes the memory it makes.
	Contents bool
}

// WriteTo writes the graph as a graph file (see docs/graph-format.md):
// kernels as WGSL with entry point and constants, every buffer, texture
// and sampler it uses with sizes, formats and labels, params contents, and
// its commands in order (child graphs and If/While already flattened into
// dispatches), with a magic, a version and a checksum. It writes no buffer
// contents (Save does). It implements io.WriterTo.
func (g *Graph) WriteTo(w io.Writer) (int64, error) {
	return g.save(w, SaveOptions{})
}

// Save writes the graph like WriteTo and, with Contents, the current
// contents of its buffers and textures.
func (g *Graph) Save(w io.Writer, o SaveOptions) (int64, error) {
	return g.save(w, o)
}

// graphTables assigns file indices to what a graph uses.
type graphTables struct {
	kernels  []driver.Kernel
	kernelAt map[driver.Kernel]uint32
	pages    []*page
	pageAt   map[*page]uint32
	labels   map[*page]string
	vars     map[*page]*Var // the pages that hold a Var
	texs     []*texHandle
	texAt    map[*texHandle]uint32
	smps     []*samplerHandle
	smpAt    map[*samplerHandle]uint32
	params   []*paramcache.Entry
	paramAt  map[*paramcache.Entry]uint32
}

func (g *Graph) tables() *graphTables {
	t := &graphTables{kernelAt: map[driver.Kernel]uint32{}, pageAt: map[*page]uint32{}, labels: map[*page]string{}, vars: map[*page]*Var{},
		texAt: map[*texHandle]uint32{}, smpAt: map[*samplerHandle]uint32{}, paramAt: map[*paramcache.Entry]uint32{}}
	addPage := func(pg *page, b *Buffer) {
		if pg == nil {
			return
		}
		if _, ok := t.pageAt[pg]; !ok {
			t.pageAt[pg] = uint32(len(t.pages))
			t.pages = append(t.pages, pg)
		}
		if b != nil && t.labels[pg] == "" {
			t.labels[pg] = b.Label()
		}
		if b != nil && b.v != nil {
			t.vars[pg] = b.v
		}
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		if n.kind == nodeDispatch {
			if _, ok := t.kernelAt[n.k]; !ok {
				t.kernelAt[n.k] = uint32(len(t.kernels))
				t.kernels = append(t.kernels, n.k)
			}
		}
		for _, a := range n.acc {
			switch a.kind {
			case accessBuffer:
				addPage(a.pg, a.buf)
			case accessParams:
				if _, ok := t.paramAt[a.meta]; !ok {
					t.paramAt[a.meta] = uint32(len(t.params))
					t.params = append(t.params, a.meta)
				}
			case accessTexture:
				if _, ok := t.texAt[a.tex.h]; !ok {
					t.texAt[a.tex.h] = uint32(len(t.texs))
					t.texs = append(t.texs, a.tex.h)
				}
			case accessSampler:
				if _, ok := t.smpAt[a.smp.h]; !ok {
					t.smpAt[a.smp.h] = uint32(len(t.smps))
					t.smps = append(t.smps, a.smp.h)
				}
			}
		}
		addPage(n.ind, n.indBuf)
		addPage(n.src, n.srcBuf)
		addPage(n.dst, n.dstBuf)
	}
	for _, r := range g.regions[1:] {
		addPage(r.cond, r.condBuf)
	}
	if len(g.regions) > 1 {
		// Control flow's own buffers, even where no command binds them
		// (a loaded file may say so): a file with regions must carry
		// them, or LoadGraph refuses what Save wrote.
		addPage(g.enablePage, nil)
		addPage(g.gatePage, nil)
		addPage(g.tablePage, nil)
	}
	return t
}

// fileWriter appends little-endian fields.
type fileWriter struct{ b bytes.Buffer }

func (w *fileWriter) u8(v uint8)   { w.b.WriteByte(v) }
func (w *fileWriter) u32(v uint32) { w.b.Write(binary.LittleEndian.AppendUint32(nil, v)) }
func (w *fileWriter) u64(v uint64) { w.b.Write(binary.LittleEndian.AppendUint64(nil, v)) }
func (w *fileWriter) f64(v float64) {
	w.u64(math.Float64bits(v))
}
func (w *fileWriter) bytes(v []byte) { w.u32(uint32(len(v))); w.b.Write(v) }
func (w *fileWriter) str(v string)   { w.bytes([]byte(v)) }

func (g *Graph) save(out io.Writer, o SaveOptions) (int64, error) {
	const op = lifecycle.Save
	if g == nil {
		return 0, argError(op, ErrInvalidArgument, "graph is nil")
	}
	if out == nil {
		return 0, argError(op, ErrInvalidArgument, "writer is nil")
	}
	s := g.s
	// Saving reads the GPU (contents) and the graph's tables: refused on
	// the spot while the stream records, like a Read.
	if _, err := s.admit(op); err != nil {
		return 0, err
	}
	released := g.released
	if !released {
		// Save reads the graph's memory over several waits: hold its pins
		// meanwhile, so a Release racing it cannot hand a page to another
		// Buffer before it is read (the file would carry that one's data).
		g.pins.ref()
	}
	s.mu.Unlock()
	if released {
		return 0, argError(op, ErrReleased, "graph of %d dispatches was released", g.stats.Dispatches)
	}
	defer func() {
		s.mu.Lock()
		g.pins.unref()
		s.mu.Unlock()
	}()
	t := g.tables()
	var w fileWriter
	w.b.Write(graphMagic[:])
	w.u32(GraphFileVersion)
	flags := uint32(0)
	if o.Contents {
		flags |= flagContents
	}
	w.u32(flags)

	w.u32(uint32(len(t.kernels)))
	for _, k := range t.kernels {
		w.str(k.Source())
		w.str(k.Entry())
		c := k.Constants()
		w.u32(uint32(len(c)))
		for _, name := range sortedKeys(c) {
			w.str(name)
			w.f64(c[name])
		}
		w.str(k.Label()) // version 3
	}
	w.u32(uint32(len(t.pages)))
	for _, pg := range t.pages {
		size := g.boundSize(pg)
		role := uint8(roleData)
		switch pg {
		case g.gatePage:
			role = roleScratch
		case g.enablePage:
			role = roleEnable
		case g.tablePage:
			role = roleConstant
		}
		if v := t.vars[pg]; v != nil && role == roleData {
			role, size = roleVar, v.n
		}
		w.u64(size)
		w.u8(role)
		w.str(t.labels[pg])
		switch {
		case role == roleConstant:
			w.u8(1)
			c := make([]byte, size)
			copy(c, g.table)
			w.b.Write(c)
		case o.Contents && (role == roleData || role == roleVar):
			data, err := s.readPage(pg, size)
			if err != nil {
				return 0, err
			}
			w.u8(1)
			w.b.Write(data)
		default:
			w.u8(0)
		}
	}
	w.u32(uint32(len(t.texs)))
	for _, h := range t.texs {
		d := h.t.Desc()
		w.u32(d.Width)
		w.u32(d.Height)
		w.u32(d.Depth)
		w.u8(uint8(d.Dim))
		w.str(d.Format)
		if o.Contents {
			data, err := s.readTextureHandle(h)
			if err != nil {
				return 0, err
			}
			w.u8(1)
			w.bytes(data)
		} else {
			w.u8(0)
		}
	}
	w.u32(uint32(len(t.smps)))
	for _, h := range t.smps {
		d := h.s.Desc()
		var f uint8
		if d.Linear {
			f |= 1
		}
		if d.Repeat {
			f |= 2
		}
		if d.Compare {
			f |= 4
		}
		w.u8(f)
	}
	w.u32(uint32(len(t.params)))
	for _, e := range t.params {
		w.str(e.Key())
	}
	w.u32(uint32(len(g.nodes)))
	for i := range g.nodes {
		n := &g.nodes[i]
		switch n.kind {
		case nodeDispatch:
			w.u8(fileDispatch)
			w.u32(uint32(n.region))
			w.u32(t.kernelAt[n.k])
			if n.ind != nil {
				w.u8(1)
				w.u32(t.pageAt[n.ind])
				w.u64(n.d.offset)
			} else {
				w.u8(0)
				w.u32(n.d.x)
				w.u32(n.d.y)
				w.u32(n.d.z)
			}
			w.u32(uint32(len(n.acc)))
			for _, a := range n.acc {
				switch a.kind {
				case accessBuffer:
					w.u8(argBuffer)
					w.u32(t.pageAt[a.pg])
				case accessParams:
					w.u8(argParams)
					w.u32(t.paramAt[a.meta])
				case accessTexture:
					w.u8(argTexture)
					w.u32(t.texAt[a.tex.h])
				case accessSampler:
					w.u8(argSampler)
					w.u32(t.smpAt[a.smp.h])
				}
			}
		case nodeCopy:
			w.u8(fileCopy)
			w.u32(uint32(n.region))
			w.u32(t.pageAt[n.src])
			w.u64(n.srcOff)
			w.u32(t.pageAt[n.dst])
			w.u64(n.dstOff)
			w.u64(n.size)
		case nodeClear:
			w.u8(fileClear)
			w.u32(uint32(n.region))
			w.u32(t.pageAt[n.dst])
			w.u64(n.dstOff)
			w.u64(n.size)
		}
	}
	w.u32(uint32(len(g.regions) - 1))
	for _, r := range g.regions[1:] {
		w.u8(uint8(r.kind))
		w.u32(uint32(r.parent))
		w.u32(uint32(r.maxIter))
		w.u32(t.pageAt[r.cond])
		w.u64(r.condOff)
		w.u32(uint32(len(r.gates)))
		for _, gw := range r.gates {
			w.u32(uint32(gw))
		}
	}
	sum := crc32.Checksum(w.b.Bytes(), crc32.MakeTable(crc32.Castagnoli))
	w.u32(sum)
	n, err := out.Write(w.b.Bytes())
	return int64(n), err
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// readPage reads size bytes of a page (a Read: it waits for the GPU).
func (s *Stream) readPage(pg *page, size uint64) ([]byte, error) {
	out := make([]byte, size)
	err := s.readBack(context.Background(), lifecycle.Save, "graph buffer", func(st driver.Buffer) error {
		return s.enc.CopyBuffer(pg.buf, 0, st, 0, size)
	}, size, func(raw []byte) { copy(out, raw) })
	return out, err
}

// readTextureHandle reads a texture's tightly packed contents.
func (s *Stream) readTextureHandle(h *texHandle) ([]byte, error) {
	d := h.t.Desc()
	texel := uint64(h.t.TexelSize())
	row := uint64(d.Width) * texel
	pitch := (row + 255) &^ 255
	rows := uint64(d.Height) * uint64(d.Depth)
	out := make([]byte, row*rows)
	err := s.readBack(context.Background(), lifecycle.Save, "graph texture", func(st driver.Buffer) error {
		return s.enc.CopyTextureToBuffer(h.t, st, 0, uint32(pitch))
	}, pitch*rows, func(raw []byte) {
		for r := uint64(0); r < rows; r++ {
			copy(out[r*row:(r+1)*row], raw[r*pitch:])
		}
	})
	return out, err
}
