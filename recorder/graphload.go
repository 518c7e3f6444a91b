package recorder

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/graphfile"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/wgpu"
)

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
	// The load holds its verdict to the end: it allocates in the pool mode
	// of the state it was admitted in, whatever the stream does meanwhile.
	mode, err := s.admission(op)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, argError(op, ErrInvalidArgument, "reader is nil")
	}
	// Decode checks the file's structure and the device's limits before
	// anything is made; the load limit, which needs texel sizes, is
	// checked by build.
	f, err := graphfile.Decode(r, graphfile.Limits{MaxBufferSize: s.limits.MaxBufferSize, MaxWhileIterations: MaxWhileIterations})
	if err != nil {
		return nil, fileError(err)
	}
	l := &loader{s: s, f: f, mode: mode}
	g, err := l.build()
	if err != nil {
		if uerr := l.undo(); uerr != nil {
			err = errors.Join(err, uerr)
		}
		return nil, err
	}
	l.handOver()
	return g, nil
}

// handOver drops the loader's references to the textures and samplers it
// made, once the graph holds its own: no call gives them to the caller
// (Graph.Buffers lists buffers only), so the graph's are the only ones
// left, and they go with it. The loader's were never dropped: every
// loaded graph's textures and samplers stayed alive, with their views and
// bind groups, until the stream closed. It runs with no stream lock held:
// a release sweeps every stream's cached bind groups.
func (l *loader) handOver() {
	for _, t := range l.textures {
		t.Release()
	}
	for _, sm := range l.samplers {
		sm.Release()
	}
	l.textures, l.samplers = nil, nil
}

// fileError is a graphfile refusal as the *GraphFileError callers test
// for: same part, same offset, same reason.
func fileError(err error) error {
	if fe, ok := errors.AsType[*graphfile.Error](err); ok {
		return &GraphFileError{Where: fe.Where, Offset: fe.Offset, Err: fe.Err}
	}
	return &GraphFileError{Where: "decoding", Offset: -1, Err: err}
}

// loader builds a decoded graph file on a stream, remembering what it made
// so a failure leaves nothing behind.
type loader struct {
	s        *Stream
	f        *graphfile.File
	mode     lifecycle.PoolMode // the pool mode of the verdict the load was admitted with
	kernels  []driver.Kernel
	buffers  []*Buffer
	textures []*Texture
	samplers []*Sampler
	rec      *recording
	// wrote is set once the load has queued a write (buffer or texture
	// contents) that no submission has flushed yet.
	wrote bool
}

// undo releases what a refused load made. Contents it queued first go out
// in an empty submission (driver.Device.FlushWrites): wgpu-core keeps each
// queued write's staging copy until the queue's next submission, and a
// refused load submits nothing, so a loop of refused loads with contents
// kept every copy (68 KiB per load of 64 KiB on llvmpipe's GL) until the
// device next submitted.
func (l *loader) undo() error {
	var err error
	if l.wrote {
		err = l.flushWrites()
	}
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
	return err
}

// flushWrites submits the load's queued writes in an empty submission of
// the loader's own (fill's clears are its other one).
func (l *loader) flushWrites() error {
	if _, err := l.s.eng.FlushWrites(); err != nil {
		return fmt.Errorf("LoadGraph: flushing the refused load's contents: %w", err)
	}
	l.wrote = false
	return nil
}

func (l *loader) fail(where string, err error) error {
	return &GraphFileError{Where: where, Offset: -1, Err: err}
}

func (l *loader) build() (*Graph, error) {
	s, f := l.s, l.f
	// What the file declares without contents is checked before it is
	// made: buffers before anything, each texture before it.
	var zeroed uint64
	overLimit := func(what string) error {
		return l.fail(what, fmt.Errorf("the file declares at least %d bytes of zeroed buffers and textures, over this stream's load limit of %d (WithLoadLimit): %w", zeroed, s.cfg.loadLimit, ErrInvalidArgument))
	}
	for _, b := range f.Buffers {
		if b.Data == nil {
			zeroed = satAdd(zeroed, b.Size) // each at most maxBufferSize: Decode checked
		}
	}
	if zeroed > s.cfg.loadLimit {
		return nil, overLimit("buffers")
	}
	for i, k := range f.Kernels {
		// Compiled for this graph alone: the graph releases them, and a
		// refused load leaves none behind in the device's cache.
		kk, err := s.drv.CompileOwned(k.Source, k.Entry, constants(k.Constants), k.Label)
		if err != nil {
			return nil, l.fail(fmt.Sprintf("kernel %d (%s)", i, k.Entry), err)
		}
		l.kernels = append(l.kernels, kk)
	}
	for i, b := range f.Buffers {
		where := fmt.Sprintf("buffer %d (%q)", i, b.Label)
		s.mu.Lock()
		var nb *Buffer
		var err error
		if b.Role == graphfile.RoleVar {
			// A Var of the value's size (its memory padded to 16); fill
			// writes its value and padding.
			var v *Var
			if v, err = s.newVarLocked(lifecycle.Load, b.Size, l.mode); err == nil {
				nb = v.b
			}
		} else {
			nb, err = s.newBufferLocked(lifecycle.Load, b.Size, l.mode)
		}
		s.mu.Unlock()
		if err != nil {
			return nil, l.fail(where, err)
		}
		l.buffers = append(l.buffers, nb)
		nb.SetLabel(b.Label)
	}
	if err := l.fill(); err != nil {
		return nil, err
	}
	for i, t := range f.Textures {
		where := fmt.Sprintf("texture %d", i)
		desc := TextureDesc{Width: t.Width, Height: t.Height, Depth: t.Depth, Format: t.Format}
		if texel, ok := wgpu.TexelSize(t.Format); ok && t.Data == nil {
			// Counted before it is made: a driver may commit a texture's
			// memory at creation (llvmpipe's GL did, 2 GiB at once).
			size := satMul(satMul(uint64(t.Width)*uint64(t.Height), uint64(max(t.Depth, 1))), uint64(texel))
			if zeroed = satAdd(zeroed, size); zeroed > s.cfg.loadLimit {
				return nil, overLimit(where)
			}
		}
		nt, err := s.NewTexture(desc)
		if err != nil {
			return nil, l.fail(where, err)
		}
		l.textures = append(l.textures, nt)
		if t.Data == nil {
			// A new texture reads as zeros (WebGPU initialises it): no
			// host buffer of its size, which a file of a few bytes could
			// make gigabytes.
			continue
		}
		if uint64(len(t.Data)) != nt.Size() {
			return nil, l.fail(where, fmt.Errorf("contents of %d bytes for a %s texture of %d", len(t.Data), desc, nt.Size()))
		}
		if err := s.eng.WriteTexture(nt.h.t, t.Data); err != nil {
			return nil, l.fail(where, err)
		}
		l.wrote = true
	}
	for i, flags := range f.Samplers {
		sm, err := s.NewSampler(SamplerDesc{Linear: flags&graphfile.SamplerLinear != 0, Repeat: flags&graphfile.SamplerRepeat != 0, Compare: flags&graphfile.SamplerCompare != 0})
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
	for i, r := range f.Regions {
		pg, err := l.buffers[r.Cond].acquire(lifecycle.Load, "condition", s)
		if err != nil {
			return nil, l.fail(fmt.Sprintf("region %d", i+1), err)
		}
		rec.pins.addPage(pg)
		rg := region{kind: regionKindOf(r.Kind), parent: int(r.Parent), cond: pg, condBuf: l.buffers[r.Cond], condOff: r.CondOffset, maxIter: int(r.MaxIterations)}
		for _, gw := range r.Gates {
			rg.gates = append(rg.gates, int(gw))
		}
		rec.regions = append(rec.regions, rg)
	}
	gateWords := uint64(0)
	for _, b := range f.Buffers {
		if b.Role == graphfile.RoleScratch {
			gateWords = b.Size / 4
		}
	}
	for i, b := range f.Buffers {
		switch b.Role {
		case graphfile.RoleScratch:
			rec.gatePage = l.buffers[i].pg
		case graphfile.RoleEnable:
			rec.enablePage = l.buffers[i].pg
		case graphfile.RoleConstant:
			if err := checkGateTable(b.Data, gateWords, s.limits.MaxComputeWorkgroupsPerDimension); err != nil {
				return nil, l.fail(fmt.Sprintf("buffer %d (the gates' table)", i), err)
			}
			rec.tablePage, rec.table = l.buffers[i].pg, b.Data
		}
	}
	if rec.enablePage == nil {
		rec.enablePage = rec.gatePage // the version-1 layout: enable words among the counts
	}
	for i := range f.Nodes {
		if err := checkIndirectCounts(f, f.Nodes[i], s.limits.MaxComputeWorkgroupsPerDimension); err != nil {
			return nil, l.fail(fmt.Sprintf("node %d", i), err)
		}
		if err := l.node(i); err != nil {
			return nil, l.fail(fmt.Sprintf("node %d", i), err)
		}
		rec.nodes[len(rec.nodes)-1].region = int(f.Nodes[i].Region)
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
	for i, b := range f.Buffers {
		if b.Role != graphfile.RoleData && b.Role != graphfile.RoleVar {
			l.buffers[i].Release() // takes no stream lock
		}
	}
	return g, nil
}

// checkGateTable checks a loaded file's gates' table (internal/lower's
// Plan.Table: per gated dispatch, the word of its three counts in the gate
// buffer and the counts it runs with) against the gate buffer's words and
// the device's workgroup limit. The table is the recorder's own, not data
// a caller writes: an If or While body's dispatch runs with its counts
// whenever the gate is on, so counts over the limit (a forged or corrupted
// file; a captured graph's are its launches', checked then) would replay a
// dispatch of billions of workgroups, and a word past the buffer would
// overwrite another dispatch's counts.
func checkGateTable(table []byte, gateWords uint64, maxGroups uint32) error {
	if len(table)%16 != 0 {
		return fmt.Errorf("%d bytes, not whole 16-byte entries", len(table))
	}
	for k := 0; k < len(table)/16; k++ {
		e := table[16*k:]
		word := binary.LittleEndian.Uint32(e)
		x, y, z := binary.LittleEndian.Uint32(e[4:]), binary.LittleEndian.Uint32(e[8:]), binary.LittleEndian.Uint32(e[12:])
		if x > maxGroups || y > maxGroups || z > maxGroups {
			return fmt.Errorf("entry %d runs %d×%d×%d workgroups; this device allows at most %d a dimension (maxComputeWorkgroupsPerDimension)", k, x, y, z, maxGroups)
		}
		if uint64(word)+3 > gateWords {
			return fmt.Errorf("entry %d puts its counts at word %d of a %d-word gate buffer", k, word, gateWords)
		}
	}
	return nil
}

// checkIndirectCounts refuses an indirect dispatch whose counts the file
// itself holds (a Var's value, or a buffer saved with its contents) over
// the device's limit: as with the gates' table, a forged or corrupted file
// would replay billions of workgroups (one bit flipped in an IndirectVar's
// value kept a replay running for minutes). Counts written after the load
// are the caller's, as for any indirect dispatch.
func checkIndirectCounts(f *graphfile.File, n graphfile.Node, maxGroups uint32) error {
	if n.Kind != graphfile.NodeDispatch || !n.Indirect || int(n.Buffer) >= len(f.Buffers) {
		return nil
	}
	data := f.Buffers[n.Buffer].Data
	if n.Offset > uint64(len(data)) || uint64(len(data))-n.Offset < 12 {
		return nil
	}
	e := data[n.Offset:]
	x, y, z := binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint32(e[4:]), binary.LittleEndian.Uint32(e[8:])
	if x > maxGroups || y > maxGroups || z > maxGroups {
		return fmt.Errorf("its indirect counts (buffer %d, offset %d) run %d×%d×%d workgroups; this device allows at most %d a dimension (maxComputeWorkgroupsPerDimension)", n.Buffer, n.Offset, x, y, z, maxGroups)
	}
	return nil
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
	for i, b := range l.f.Buffers {
		nb := l.buffers[i]
		where := fmt.Sprintf("buffer %d (%q)", i, b.Label)
		data := b.Data
		if nb.v != nil {
			data = nb.v.padded(b.Data) // a Var: its value and zero padding
		}
		if data != nil {
			if err := s.eng.WriteBuffer(nb.pg.Buffer(), 0, data); err != nil {
				return l.fail(where, err)
			}
			l.wrote = true
			continue
		}
		if enc == nil {
			var err error
			if enc, err = s.drv.NewEncoder(); err != nil {
				return l.fail(where, err)
			}
		}
		if err := enc.ClearBuffer(nb.pg.Buffer(), 0, b.Size); err != nil {
			return l.fail(where, err)
		}
	}
	if enc == nil || enc.Empty() {
		return nil
	}
	cb, err := enc.Finish()
	if err == nil {
		_, err = s.submitAlone(cb)
	}
	if err != nil {
		return l.fail("clearing buffers", err)
	}
	l.wrote = false // the clears' submission took the writes too
	return nil
}

// node resolves command i of the file like the launch, copy or clear it
// was recorded from, and appends it to the loader's recording. The caller
// holds s.mu.
func (l *loader) node(i int) error {
	n := &l.f.Nodes[i]
	load := nodeLoader(n.Kind)
	if load == nil {
		// The decoder refuses unknown kinds; a kind it knows and this
		// table lacks is the recorder's bug.
		return fmt.Errorf("recorder: internal error: no loader for command kind %d", n.Kind)
	}
	return load(l, n)
}

// nodeLoader is the registry of the graph file's command kinds: the
// function that records a command of kind k (from its node_*.go file), or
// nil. The tags are the file format's and never change (internal/graphfile
// encodes and checks them); a new kind of command adds its tag there and
// its loader here.
func nodeLoader(k graphfile.NodeKind) func(*loader, *graphfile.Node) error {
	switch k {
	case graphfile.NodeDispatch:
		return loadDispatch
	case graphfile.NodeCopy:
		return loadCopy
	case graphfile.NodeClear:
		return loadClear
	}
	return nil
}

// constants is a kernel's overrides as WithConstants takes them (a name
// the file repeats keeps its last value).
func constants(cs []graphfile.Constant) map[string]float64 {
	m := make(map[string]float64, len(cs))
	for _, c := range cs {
		m[c.Name] = c.Value
	}
	return m
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
