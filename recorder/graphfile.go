package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/engine"
	"github.com/softgraph/softgraph/internal/graphfile"
	"github.com/softgraph/softgraph/internal/paramcache"
	"github.com/softgraph/softgraph/internal/pool"
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

// GraphFileVersion is the version of the graph file format this package
// writes, and the newest it reads (see docs/graph-format.md).
const GraphFileVersion = graphfile.Version

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
// contents (Save does), so it reads nothing from the GPU and works while
// the stream records another graph. It implements io.WriterTo.
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
	pages    []*pool.Page
	pageAt   map[*pool.Page]uint32
	labels   map[*pool.Page]string
	vars     map[*pool.Page]*Var // the pages that hold a Var
	texs     []*texHandle
	texAt    map[*texHandle]uint32
	smps     []*samplerHandle
	smpAt    map[*samplerHandle]uint32
	params   []*paramcache.Entry
	paramAt  map[*paramcache.Entry]uint32
}

// addPage gives pg an index, once; b, the Buffer it came from (nil: the
// recorder's own), names it.
func (t *graphTables) addPage(pg *pool.Page, b *Buffer) {
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

func (g *Graph) tables() *graphTables {
	t := &graphTables{kernelAt: map[driver.Kernel]uint32{}, pageAt: map[*pool.Page]uint32{}, labels: map[*pool.Page]string{}, vars: map[*pool.Page]*Var{},
		texAt: map[*texHandle]uint32{}, smpAt: map[*samplerHandle]uint32{}, paramAt: map[*paramcache.Entry]uint32{}}
	for i := range g.nodes {
		g.nodes[i].op.tabulate(t)
	}
	for _, r := range g.regions[1:] {
		t.addPage(r.cond, r.condBuf)
	}
	if len(g.regions) > 1 {
		// Control flow's own buffers, even where no command binds them
		// (a loaded file may say so): a file with regions must carry
		// them, or LoadGraph refuses what Save wrote.
		t.addPage(g.enablePage, nil)
		t.addPage(g.gatePage, nil)
		t.addPage(g.tablePage, nil)
	}
	return t
}

func (g *Graph) save(out io.Writer, o SaveOptions) (int64, error) {
	const op = lifecycle.Save
	if g == nil {
		return 0, argError(op, ErrInvalidArgument, "graph is nil")
	}
	if out == nil {
		return 0, argError(op, ErrInvalidArgument, "writer is nil")
	}
	s := g.s
	if err := s.check(op); err != nil {
		return 0, err
	}
	hold := func() error {
		if err := g.checkedSave(op); err != nil { // WithChecks (checks.go)
			return err
		}
		if g.released {
			return argError(op, ErrReleased, "graph of %d dispatches was released", g.stats.Dispatches)
		}
		// Save reads the graph's memory over several waits, each a
		// transaction of its own (redo): hold its pins meanwhile, so a
		// Release racing it cannot hand a page to another Buffer before it
		// is read (the file would carry that one's data).
		g.pins.ref()
		return nil
	}
	var err error
	if o.Contents {
		// Contents are read from the GPU: refused on the spot while the
		// stream records, like a Read.
		err = s.eng.Do(op, func(*engine.Tx) error { return hold() })
	} else {
		// The graph alone is host data, written in any state.
		if err = s.lock(op); err == nil {
			err = hold()
			s.mu.Unlock()
		}
	}
	if err != nil {
		return 0, err
	}
	defer func() {
		s.mu.Lock()
		g.pins.unref()
		s.mu.Unlock()
	}()
	f, err := g.file(o)
	if err != nil {
		return 0, err
	}
	return graphfile.Encode(out, f)
}

// file translates the graph into a graph file: what it uses, numbered in
// first-use order, and its commands. With o.Contents it reads the
// contents of its buffers and textures (each a Read).
func (g *Graph) file(o SaveOptions) (*graphfile.File, error) {
	s := g.s
	t := g.tables()
	f := &graphfile.File{Version: graphfile.Version, Contents: o.Contents}
	for _, k := range t.kernels {
		c := k.Constants()
		fk := graphfile.Kernel{Source: k.Source(), Entry: k.Entry(), Label: k.Label()}
		for _, name := range slices.Sorted(maps.Keys(c)) {
			fk.Constants = append(fk.Constants, graphfile.Constant{Name: name, Value: c[name]})
		}
		f.Kernels = append(f.Kernels, fk)
	}
	for _, pg := range t.pages {
		b := graphfile.Buffer{Size: g.boundSize(pg), Role: graphfile.RoleData, Label: t.labels[pg]}
		switch pg {
		case g.gatePage:
			b.Role = graphfile.RoleScratch
		case g.enablePage:
			b.Role = graphfile.RoleEnable
		case g.tablePage:
			b.Role = graphfile.RoleConstant
		}
		if v := t.vars[pg]; v != nil && b.Role == graphfile.RoleData {
			b.Role, b.Size = graphfile.RoleVar, v.n
		}
		switch {
		case b.Role == graphfile.RoleConstant:
			b.Data = make([]byte, b.Size)
			copy(b.Data, g.table)
		case o.Contents && (b.Role == graphfile.RoleData || b.Role == graphfile.RoleVar):
			data, err := s.readPage(pg, b.Size)
			if err != nil {
				return nil, err
			}
			b.Data = data
		}
		f.Buffers = append(f.Buffers, b)
	}
	for _, h := range t.texs {
		d := h.t.Desc()
		ft := graphfile.Texture{Width: d.Width, Height: d.Height, Depth: d.Depth, Dim: uint8(d.Dim), Format: d.Format}
		if o.Contents {
			data, err := s.readTextureHandle(h)
			if err != nil {
				return nil, err
			}
			ft.Data = data
		}
		f.Textures = append(f.Textures, ft)
	}
	for _, h := range t.smps {
		d := h.s.Desc()
		var fl graphfile.SamplerFlags
		if d.Linear {
			fl |= graphfile.SamplerLinear
		}
		if d.Repeat {
			fl |= graphfile.SamplerRepeat
		}
		if d.Compare {
			fl |= graphfile.SamplerCompare
		}
		f.Samplers = append(f.Samplers, fl)
	}
	for _, e := range t.params {
		f.Params = append(f.Params, []byte(e.Key()))
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		fn := graphfile.Node{Region: uint32(n.region)}
		n.op.save(t, &fn)
		f.Nodes = append(f.Nodes, fn)
	}
	for _, r := range g.regions[1:] {
		fr := graphfile.Region{Kind: fileRegionKind(r.kind), Parent: uint32(r.parent), MaxIterations: uint32(r.maxIter), Cond: t.pageAt[r.cond], CondOffset: r.condOff}
		for _, gw := range r.gates {
			fr.Gates = append(fr.Gates, uint32(gw))
		}
		f.Regions = append(f.Regions, fr)
	}
	return f, nil
}

// fileRegionKind and regionKindOf translate a region's kind to and from
// the file's.
func fileRegionKind(k regionKind) graphfile.RegionKind {
	if k == regionWhile {
		return graphfile.RegionWhile
	}
	return graphfile.RegionIf
}

func regionKindOf(k graphfile.RegionKind) regionKind {
	if k == graphfile.RegionWhile {
		return regionWhile
	}
	return regionIf
}

// readPage reads size bytes of a page (a Read: it waits for the GPU).
func (s *Stream) readPage(pg *pool.Page, size uint64) ([]byte, error) {
	out := make([]byte, size)
	err := s.readBack(context.Background(), lifecycle.Save, true, "graph buffer", func(enc driver.Encoder, st driver.Buffer) error {
		return enc.CopyBuffer(pg.Buffer(), 0, st, 0, size)
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
	err := s.readBack(context.Background(), lifecycle.Save, true, "graph texture", func(enc driver.Encoder, st driver.Buffer) error {
		return enc.CopyTextureToBuffer(h.t, st, 0, uint32(pitch))
	}, pitch*rows, func(raw []byte) {
		for r := uint64(0); r < rows; r++ {
			copy(out[r*row:(r+1)*row], raw[r*pitch:])
		}
	})
	return out, err
}
