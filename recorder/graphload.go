package recorder

import (
	"encoding/binary"
	"fmt"
	"github.com/softgraph/softgraph/internal/driver"
	"hash/crc32"
	"io"
	"math"
	"unicode/utf8"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

// graphFile is a decoded graph file, checked for structure: every index
// points at something, every count fits the bytes that follow.
type graphFile struct {
	version  uint32
	contents bool
	kernels  []fileKernel
	buffers  []fileBuffer
	textures []fileTexture
	samplers []uint8
	params   [][]byte
	nodes    []fileNode
	regions  []fileRegion
}

type fileKernel struct {
	source, entry string
	constants     map[string]float64
	label         string // version 3
}

type fileBuffer struct {
	size  uint64
	role  uint8
	label string
	data  []byte // nil without contents
}

type fileTexture struct {
	width, height, depth uint32
	dim                  uint8
	format               string
	data                 []byte
}

type fileNode struct {
	kind           uint8
	region         uint32
	kernel         uint32
	indirect       bool
	buf            uint32
	offset         uint64
	x, y, z        uint32
	args           []fileArg
	src, dst       uint32
	srcOff, dstOff uint64
	size           uint64
}

type fileArg struct {
	kind  uint8
	index uint32
}

type fileRegion struct {
	kind            uint8
	parent, maxIter uint32
	cond            uint32
	condOff         uint64
	gates           []uint32
}

// fileReader reads little-endian fields, failing (once) on a short read.
type fileReader struct {
	data  []byte
	pos   int
	where string
	err   *GraphFileError
}

func (r *fileReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = &GraphFileError{Where: r.where, Offset: int64(r.pos), Err: fmt.Errorf(format, args...)}
	}
}

func (r *fileReader) take(n int) []byte {
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

func (r *fileReader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *fileReader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *fileReader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *fileReader) f64() float64 { return math.Float64frombits(r.u64()) }

func (r *fileReader) bytes() []byte {
	n := r.u32()
	return r.take(int(min(n, math.MaxInt32)))
}

func (r *fileReader) str() string {
	b := r.bytes()
	if r.err == nil && !utf8.Valid(b) {
		r.fail("a string that is not UTF-8")
	}
	return string(b)
}

// count reads an element count and checks that at least min bytes per
// element follow, so a corrupted count cannot make the reader allocate
// for elements the file cannot hold.
func (r *fileReader) count(what string, minBytes int) int {
	n := r.u32()
	if r.err == nil && uint64(n)*uint64(minBytes) > uint64(len(r.data)-r.pos) {
		r.fail("%d %s cannot fit in the %d bytes left", n, what, len(r.data)-r.pos)
		return 0
	}
	return int(n)
}

// decodeGraphFile checks a graph file's frame (magic, version, checksum)
// and structure, and decodes it. It allocates at most in proportion to the
// file's size and never panics.
func decodeGraphFile(data []byte) (*graphFile, error) {
	if len(data) < len(graphMagic)+12 { // magic, version, flags, checksum
		return nil, &GraphFileError{Where: "header", Offset: 0, Err: fmt.Errorf("truncated: %d bytes is less than a header", len(data))}
	}
	if [8]byte(data[:8]) != graphMagic {
		return nil, &GraphFileError{Where: "header", Offset: 0, Err: fmt.Errorf("not a softgraph graph file (wrong magic %q)", data[:8])}
	}
	body, trailer := data[:len(data)-4], data[len(data)-4:]
	version := binary.LittleEndian.Uint32(data[8:])
	if version > GraphFileVersion || version == 0 {
		return nil, &GraphFileError{Where: "header", Offset: 8, Err: fmt.Errorf("version %d; this softgraph reads versions 1..%d", version, GraphFileVersion)}
	}
	if want, got := binary.LittleEndian.Uint32(trailer), crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)); want != got {
		return nil, &GraphFileError{Where: "checksum", Offset: int64(len(body)), Err: fmt.Errorf("CRC-32C %08x, the file says %08x: the file is corrupted", got, want)}
	}
	r := &fileReader{data: body, pos: 16, where: "header"}
	f := &graphFile{version: version, contents: binary.LittleEndian.Uint32(data[12:])&flagContents != 0}

	r.where = "kernels"
	f.kernels = make([]fileKernel, r.count("kernels", 12))
	for i := range f.kernels {
		r.where = fmt.Sprintf("kernel %d", i)
		k := &f.kernels[i]
		k.source, k.entry = r.str(), r.str()
		n := r.count("constants", 12)
		k.constants = make(map[string]float64, n)
		for range n {
			name := r.str()
			k.constants[name] = r.f64()
		}
		if f.version >= 3 {
			k.label = r.str()
		}
	}
	r.where = "buffers"
	f.buffers = make([]fileBuffer, r.count("buffers", 14))
	for i := range f.buffers {
		r.where = fmt.Sprintf("buffer %d", i)
		b := &f.buffers[i]
		b.size, b.role, b.label = r.u64(), r.u8(), r.str()
		if r.err == nil && (b.size == 0 || b.size%4 != 0) {
			r.fail("size %d (a positive multiple of 4)", b.size)
		}
		if r.err == nil && (b.role > roleVar || b.role == roleEnable && f.version < 2 || b.role == roleVar && f.version < 3) {
			r.fail("unknown role %d in a version-%d file", b.role, f.version)
		}
		if r.u8() != 0 {
			if b.size > uint64(len(r.data)-r.pos) {
				r.fail("contents of %d bytes, %d left", b.size, len(r.data)-r.pos)
			}
			b.data = r.take(int(min(b.size, math.MaxInt32)))
		} else if b.role == roleConstant && r.err == nil {
			r.fail("a constant buffer without its contents")
		}
	}
	r.where = "textures"
	f.textures = make([]fileTexture, r.count("textures", 22))
	for i := range f.textures {
		r.where = fmt.Sprintf("texture %d", i)
		t := &f.textures[i]
		t.width, t.height, t.depth, t.dim, t.format = r.u32(), r.u32(), r.u32(), r.u8(), r.str()
		if r.u8() != 0 {
			t.data = r.bytes()
		}
	}
	r.where = "samplers"
	f.samplers = make([]uint8, r.count("samplers", 1))
	for i := range f.samplers {
		f.samplers[i] = r.u8()
	}
	r.where = "params"
	f.params = make([][]byte, r.count("params", 4))
	for i := range f.params {
		f.params[i] = r.bytes()
	}
	r.where = "nodes"
	f.nodes = make([]fileNode, r.count("nodes", 9))
	for i := range f.nodes {
		r.where = fmt.Sprintf("node %d", i)
		n := &f.nodes[i]
		n.kind, n.region = r.u8(), r.u32()
		switch n.kind {
		case fileDispatch:
			n.kernel = r.u32()
			if r.u8() != 0 {
				n.indirect, n.buf, n.offset = true, r.u32(), r.u64()
			} else {
				n.x, n.y, n.z = r.u32(), r.u32(), r.u32()
			}
			n.args = make([]fileArg, r.count("arguments", 5))
			for j := range n.args {
				n.args[j] = fileArg{kind: r.u8(), index: r.u32()}
			}
		case fileCopy:
			n.src, n.srcOff, n.dst, n.dstOff, n.size = r.u32(), r.u64(), r.u32(), r.u64(), r.u64()
		case fileClear:
			n.dst, n.dstOff, n.size = r.u32(), r.u64(), r.u64()
		default:
			r.fail("unknown command kind %d", n.kind)
		}
	}
	r.where = "regions"
	f.regions = make([]fileRegion, r.count("regions", 25))
	for i := range f.regions {
		r.where = fmt.Sprintf("region %d", i+1)
		g := &f.regions[i]
		g.kind, g.parent, g.maxIter, g.cond, g.condOff = r.u8(), r.u32(), r.u32(), r.u32(), r.u64()
		g.gates = make([]uint32, r.count("gates", 4))
		for j := range g.gates {
			g.gates[j] = r.u32()
		}
	}
	if r.err == nil && r.pos != len(r.data) {
		r.where = "end"
		r.fail("%d bytes after the last section", len(r.data)-r.pos)
	}
	if r.err != nil {
		return nil, r.err
	}
	return f, f.check()
}

// check verifies every index points at something of the right kind.
func (f *graphFile) check() error {
	bad := func(where, format string, args ...any) error {
		return &GraphFileError{Where: where, Offset: -1, Err: fmt.Errorf(format, args...)}
	}
	nb := uint32(len(f.buffers))
	roles := map[uint8]int{}
	for _, b := range f.buffers {
		roles[b.role]++
	}
	// Control flow needs its enable words: in their own buffer (version 2),
	// or in the gate buffer (version 1, and a graph loaded from one).
	if roles[roleScratch] > 1 || roles[roleConstant] > 1 || roles[roleEnable] > 1 ||
		(roles[roleScratch]+roles[roleEnable] > 0) != (len(f.regions) > 0) {
		return bad("buffers", "%d gate buffers, %d enable buffers and %d gate tables for %d control-flow regions", roles[roleScratch], roles[roleEnable], roles[roleConstant], len(f.regions))
	}
	for i, n := range f.nodes {
		where := fmt.Sprintf("node %d", i)
		if n.region > uint32(len(f.regions)) {
			return bad(where, "region %d of %d", n.region, len(f.regions))
		}
		switch n.kind {
		case fileDispatch:
			if n.kernel >= uint32(len(f.kernels)) {
				return bad(where, "kernel %d of %d", n.kernel, len(f.kernels))
			}
			if n.indirect && n.buf >= nb {
				return bad(where, "indirect buffer %d of %d", n.buf, nb)
			}
			for j, a := range n.args {
				limit := map[uint8]int{argBuffer: len(f.buffers), argParams: len(f.params), argTexture: len(f.textures), argSampler: len(f.samplers)}
				l, ok := limit[a.kind]
				if !ok || a.index >= uint32(l) {
					return bad(where, "argument %d: kind %d index %d points nowhere", j, a.kind, a.index)
				}
			}
		case fileCopy:
			if n.src >= nb || n.dst >= nb {
				return bad(where, "copy between buffers %d and %d of %d", n.src, n.dst, nb)
			}
		case fileClear:
			if n.dst >= nb {
				return bad(where, "clear of buffer %d of %d", n.dst, nb)
			}
		}
	}
	for i, r := range f.regions {
		where := fmt.Sprintf("region %d", i+1)
		if r.kind != uint8(regionIf) && r.kind != uint8(regionWhile) {
			return bad(where, "unknown kind %d", r.kind)
		}
		if r.parent > uint32(i) || r.cond >= nb || r.maxIter == 0 || r.maxIter > MaxWhileIterations {
			return bad(where, "parent %d, condition buffer %d of %d, maxIterations %d", r.parent, r.cond, nb, r.maxIter)
		}
		if size := f.buffers[r.cond].size; r.condOff%4 != 0 || r.condOff >= size {
			return bad(where, "condition word at offset %d of a %d-byte buffer (a multiple of 4 inside it)", r.condOff, size)
		}
	}
	return nil
}

// LoadGraph reads a graph file (Graph.WriteTo or Save, on any machine) and
// builds it on this stream: it compiles the kernels on this stream's
// device, allocates fresh buffers, textures and samplers (filled from the
// file when it carries contents, zeroed otherwise), rebuilds bind groups,
// and returns a sealed graph, validated by the device like one from
// EndCapture. Graph.Buffers lists the buffers it made, in first-use order,
// with the labels they were saved with: Write inputs, Replay, Read outputs,
// or Rebind your own buffers in. Those Buffers are yours to Release (the
// graph keeps its own references).
//
// A file softgraph cannot load — truncated, corrupted, of a newer version,
// asking for sizes over this device's limits or indices that point
// nowhere, with WGSL that does not compile here — is refused with a
// *GraphFileError wrapping ErrGraphFile (and the device's error where the
// device refused), and nothing it made is left behind. Refused with
// lifecycle.ErrGraphState while a capture is prepared or recording.
func (s *Stream) LoadGraph(r io.Reader) (*Graph, error) {
	const op = lifecycle.Load
	if _, err := s.admit(op); err != nil {
		return nil, err
	}
	// The load holds its verdict to the end: it allocates in the pool mode
	// of the state it was admitted in, whatever the stream does meanwhile.
	mode := s.life.State().PoolMode()
	s.mu.Unlock()
	if r == nil {
		return nil, argError(op, ErrInvalidArgument, "reader is nil")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &GraphFileError{Where: "reading", Offset: -1, Err: err}
	}
	f, err := decodeGraphFile(data)
	if err != nil {
		return nil, err
	}
	l := &loader{s: s, f: f, mode: mode}
	g, err := l.build()
	if err != nil {
		l.undo()
		return nil, err
	}
	return g, nil
}

// loader builds a decoded graph file on a stream, remembering what it made
// so a failure leaves nothing behind.
type loader struct {
	s        *Stream
	f        *graphFile
	mode     lifecycle.PoolMode // the pool mode of the verdict the load was admitted with
	kernels  []*wgpu.Kernel
	buffers  []*Buffer
	textures []*Texture
	samplers []*Sampler
	rec      *recording
}

func (l *loader) undo() {
	for _, k := range l.kernels {
		k.Release()
	}
	if l.rec != nil {
		l.s.mu.Lock()
		l.rec.discard(l.s)
		l.s.mu.Unlock()
	}
	for _, b := range l.buffers {
		b.Release()
	}
	for _, t := range l.textures {
		t.Release()
	}
	for _, sm := range l.samplers {
		sm.Release()
	}
}

func (l *loader) fail(where string, err error) error {
	return &GraphFileError{Where: where, Offset: -1, Err: err}
}

func (l *loader) build() (*Graph, error) {
	s, f := l.s, l.f
	lim := s.limits
	// What the file declares without contents is checked before it is
	// made: buffers before anything, each texture before it.
	var zeroed uint64
	overLimit := func(what string) error {
		return l.fail(what, fmt.Errorf("the file declares at least %d bytes of zeroed buffers and textures, over this stream's load limit of %d (WithLoadLimit): %w", zeroed, s.cfg.loadLimit, ErrInvalidArgument))
	}
	for i, b := range f.buffers {
		if b.size > lim.MaxBufferSize {
			return nil, l.fail(fmt.Sprintf("buffer %d (%q)", i, b.label), fmt.Errorf("%d bytes, over this device's maxBufferSize %d", b.size, lim.MaxBufferSize))
		}
		if b.data == nil {
			zeroed = satAdd(zeroed, b.size)
		}
	}
	if zeroed > s.cfg.loadLimit {
		return nil, overLimit("buffers")
	}
	for i, k := range f.kernels {
		// Compiled for this graph alone: the graph releases them, and a
		// refused load leaves none behind in the device's cache.
		kk, err := s.dev.Kernel(k.source, k.entry, wgpu.WithConstants(k.constants), wgpu.WithLabel(k.label), wgpu.Private())
		if err != nil {
			return nil, l.fail(fmt.Sprintf("kernel %d (%s)", i, k.entry), err)
		}
		l.kernels = append(l.kernels, kk)
	}
	for i, b := range f.buffers {
		where := fmt.Sprintf("buffer %d (%q)", i, b.label)
		s.mu.Lock()
		var nb *Buffer
		var err error
		if b.role == roleVar {
			// A Var of the value's size (its memory padded to 16); fill
			// writes its value and padding.
			var v *Var
			if v, err = s.newVarLocked(lifecycle.Load, b.size, l.mode); err == nil {
				nb = v.b
			}
		} else {
			nb, err = s.newBufferLocked(lifecycle.Load, b.size, l.mode)
		}
		s.mu.Unlock()
		if err != nil {
			return nil, l.fail(where, err)
		}
		l.buffers = append(l.buffers, nb)
		nb.SetLabel(b.label)
	}
	if err := l.fill(); err != nil {
		return nil, err
	}
	for i, t := range f.textures {
		where := fmt.Sprintf("texture %d", i)
		desc := TextureDesc{Width: t.width, Height: t.height, Depth: t.depth, Format: t.format}
		if texel, ok := wgpu.TexelSize(t.format); ok && t.data == nil {
			// Counted before it is made: a driver may commit a texture's
			// memory at creation (llvmpipe's GL did, 2 GiB at once).
			size := satMul(satMul(uint64(t.width)*uint64(t.height), uint64(max(t.depth, 1))), uint64(texel))
			if zeroed = satAdd(zeroed, size); zeroed > s.cfg.loadLimit {
				return nil, overLimit(where)
			}
		}
		nt, err := s.NewTexture(desc)
		if err != nil {
			return nil, l.fail(where, err)
		}
		l.textures = append(l.textures, nt)
		if t.data == nil {
			// A new texture reads as zeros (WebGPU initialises it): no
			// host buffer of its size, which a file of a few bytes could
			// make gigabytes.
			continue
		}
		if uint64(len(t.data)) != nt.Size() {
			return nil, l.fail(where, fmt.Errorf("contents of %d bytes for a %s texture of %d", len(t.data), desc, nt.Size()))
		}
		if err := s.drv.WriteTexture(nt.h.t, t.data); err != nil {
			return nil, l.fail(where, err)
		}
	}
	for i, flags := range f.samplers {
		sm, err := s.NewSampler(SamplerDesc{Linear: flags&1 != 0, Repeat: flags&2 != 0, Compare: flags&4 != 0})
		if err != nil {
			return nil, l.fail(fmt.Sprintf("sampler %d", i), err)
		}
		l.samplers = append(l.samplers, sm)
	}

	// Commit. The load was admitted when it began and holds that verdict:
	// a capture opened on the stream meanwhile does not refuse it, and
	// nothing below touches the stream's open batch or its recording.
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return nil, closedError(lifecycle.Load)
	}
	rec := newRecording(s)
	rec.lowered = true
	l.rec = rec
	for i, r := range f.regions {
		pg, err := l.buffers[r.cond].acquire(lifecycle.Load, "condition", s)
		if err != nil {
			return nil, l.fail(fmt.Sprintf("region %d", i+1), err)
		}
		rec.pins.addPage(pg)
		rg := region{kind: regionKind(r.kind), parent: int(r.parent), cond: pg, condBuf: l.buffers[r.cond], condOff: r.condOff, maxIter: int(r.maxIter)}
		for _, gw := range r.gates {
			rg.gates = append(rg.gates, int(gw))
		}
		rec.regions = append(rec.regions, rg)
	}
	for i, b := range f.buffers {
		switch b.role {
		case roleScratch:
			rec.gatePage = l.buffers[i].pg
		case roleEnable:
			rec.enablePage = l.buffers[i].pg
		case roleConstant:
			rec.tablePage, rec.table = l.buffers[i].pg, b.data
		}
	}
	if rec.enablePage == nil {
		rec.enablePage = rec.gatePage // the version-1 layout: enable words among the counts
	}
	for i := range f.nodes {
		if err := l.node(i); err != nil {
			return nil, l.fail(fmt.Sprintf("node %d", i), err)
		}
		rec.nodes[len(rec.nodes)-1].region = int(f.nodes[i].region)
	}
	g, err := seal(s, rec)
	if err != nil {
		return nil, l.fail("validation", err)
	}
	l.rec = nil
	g.kernels, l.kernels = append(g.kernels, l.kernels...), nil // g's own are what fusion compiled
	s.graphs[g] = true
	// The gate buffer and table are the graph's own: nobody else gets a
	// handle on them.
	for i, b := range f.buffers {
		if b.role != roleData && b.role != roleVar {
			l.buffers[i].Release() // takes no stream lock
		}
	}
	return g, nil
}

// fill gives the loaded buffers their contents privately: writes go
// straight through the queue and clears into a command buffer of the
// loader's own, never through the stream's Write and Clear, whose commands
// a capture opened meanwhile on the same stream would record (or refuse,
// failing that capture for a write it never made). The buffers are the
// loader's alone until the graph is returned, and the queue orders these
// writes and clears before every later submission that can use them.
func (l *loader) fill() error {
	s := l.s
	var enc driver.Encoder
	defer func() {
		if enc != nil {
			enc.Release()
		}
	}()
	for i, b := range l.f.buffers {
		nb := l.buffers[i]
		where := fmt.Sprintf("buffer %d (%q)", i, b.label)
		data := b.data
		if nb.v != nil {
			data = nb.v.padded(b.data) // a Var: its value and zero padding
		}
		if data != nil {
			if err := s.drv.WriteBuffer(nb.pg.buf, 0, data); err != nil {
				return l.fail(where, err)
			}
			continue
		}
		if enc == nil {
			var err error
			if enc, err = s.drv.NewEncoder(); err != nil {
				return l.fail(where, err)
			}
		}
		if err := enc.ClearBuffer(nb.pg.buf, 0, b.size); err != nil {
			return l.fail(where, err)
		}
	}
	if enc == nil || enc.Empty() {
		return nil
	}
	cb, err := enc.Finish()
	if err == nil {
		_, err = s.drv.Submit([]driver.CommandBuffer{cb})
	}
	if err != nil {
		return l.fail("clearing buffers", err)
	}
	return nil
}

// node resolves command i of the file like the launch, copy or clear it
// was recorded from, and appends it to the loader's recording. The caller
// holds s.mu.
func (l *loader) node(i int) error {
	s, n := l.s, &l.f.nodes[i]
	const op = lifecycle.Load
	switch n.kind {
	case fileCopy:
		var c transfer
		if err := s.resolveCopy(op, l.buffers[n.dst], n.dstOff, l.buffers[n.src], n.srcOff, n.size, &c); err != nil {
			c.release()
			return err
		}
		if n.size == 0 {
			c.release()
			return fmt.Errorf("a copy of 0 bytes")
		}
		l.rec.addTransfer(&c)
		return nil
	case fileClear:
		b := l.buffers[n.dst]
		if n.dstOff%4 != 0 || n.size%4 != 0 || n.size == 0 || n.dstOff > b.size || n.size > b.size-n.dstOff {
			return fmt.Errorf("clear of offset=%d size=%d in a %d-byte buffer", n.dstOff, n.size, b.size)
		}
		pg, err := b.acquire(op, "buffer", s)
		if err != nil {
			return err
		}
		l.rec.addTransfer(&transfer{clear: true, dst: pg, dstBuf: b, dstOff: n.dstOff, size: n.size})
		return nil
	}
	args := make([]Arg, len(n.args))
	for j, a := range n.args {
		switch a.kind {
		case argBuffer:
			args[j] = l.buffers[a.index]
		case argParams:
			args[j] = Params(l.f.params[a.index])
		case argTexture:
			args[j] = l.textures[a.index]
		case argSampler:
			args[j] = l.samplers[a.index]
		}
	}
	d := Groups(n.x, n.y, n.z)
	if n.indirect {
		d = Indirect(l.buffers[n.buf], n.offset)
	}
	ln := &s.scratch.launch
	defer ln.reset()
	if err := s.resolve(op, l.kernels[n.kernel], d, args, ln); err != nil {
		ln.release()
		return err
	}
	if err := s.bind(op, ln); err != nil {
		ln.release()
		return err
	}
	l.rec.addLaunch(s, ln)
	return nil
}

// satAdd is a + b, or the largest uint64 where that overflows.
func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// satMul is a × b, or the largest uint64 where that overflows.
func satMul(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}
