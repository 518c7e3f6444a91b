package tests

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// The fuzzed stream works on a few small f32 buffers whose contents stay
// small integers, so every result is exact and the plain-Go model can
// predict it bit for bit.
const (
	fuzzElems = 8       // floats per buffer
	fuzzSlots = 3       // buffers the ops address
	fuzzOps   = 64      // ops decoded per input at most
	fuzzBound = 1 << 20 // |value| the model allows; an op that would exceed it is skipped
)

// Opcodes: the first byte of each op, modulo opCount, followed by its
// argument bytes (missing ones read as 0).
const (
	opAdd           = iota // slot, c: x += c (params kernel)
	opScale                // slot, c: x *= c
	opAccumulate           // src, dst: dst += src
	opWrite                // slot, range, seed: host values into part of x
	opRead                 // slot: read and compare
	opSync                 //
	opPrepare              //
	opBegin                //
	opEnd                  //
	opReplay               // graph
	opReleaseGraph         // graph
	opReleaseBuffer        // slot
	opRealloc              // slot, mode: release and allocate anew (Upload or Empty)
	opAddIndirect          // slot, c: x += c through an indirect dispatch
	opCount
)

var opArgs = [opCount]int{opAdd: 2, opScale: 2, opAccumulate: 2, opWrite: 3, opRead: 1, opReplay: 1, opReleaseGraph: 1, opReleaseBuffer: 1, opRealloc: 2, opAddIndirect: 2}

var opNames = [opCount]string{"add", "scale", "accumulate", "write", "read", "sync", "prepare", "begin", "end", "replay", "release-graph", "release-buffer", "realloc", "add-indirect"}

// fuzzDevice is one device per process, shared by every fuzz input, with
// the kernels compiled once; each input gets a fresh stream on it.
var fuzzDevice struct {
	once            sync.Once
	d               *wgpu.Device
	err             error
	add, scale, acc *wgpu.Kernel
}

func openFuzzDevice(t *testing.T) *wgpu.Device {
	f := &fuzzDevice
	f.once.Do(func() {
		f.d, f.err = wgpu.Open(wgpu.Options{})
		if f.err != nil {
			return
		}
		for _, k := range []struct {
			dst **wgpu.Kernel
			src string
		}{{&f.add, gputest.AddConstWGSL}, {&f.scale, gputest.ScaleWGSL}, {&f.acc, gputest.AccumulateWGSL}} {
			if *k.dst, f.err = f.d.Kernel(k.src, "main"); f.err != nil {
				return
			}
		}
	})
	gputest.SkipIfNoAdapter(t, f.err)
	if f.err != nil {
		t.Fatal(f.err)
	}
	return f.d
}

// modelBuf is what the model knows of one buffer: its values, and which
// of them are known (an Empty buffer's contents are unspecified).
type modelBuf struct {
	vals  [fuzzElems]float32
	known [fuzzElems]bool
}

// effect is one launch as the model sees it.
type effect struct {
	op       int // opAdd, opScale, opAccumulate (opAddIndirect is recorded as opAdd)
	src, dst *modelBuf
	c        float32
}

// apply runs effs on the model if every known value stays within
// fuzzBound, and reports whether it did; nothing changes otherwise.
func apply(effs ...effect) bool {
	next := map[*modelBuf]modelBuf{}
	get := func(b *modelBuf) modelBuf {
		if v, ok := next[b]; ok {
			return v
		}
		return *b
	}
	for _, e := range effs {
		dst := get(e.dst)
		var src modelBuf
		if e.op == opAccumulate {
			src = get(e.src)
		}
		for i := range dst.vals {
			switch e.op {
			case opAdd:
				dst.vals[i] += e.c
			case opScale:
				dst.vals[i] *= e.c
			case opAccumulate:
				dst.vals[i] += src.vals[i]
				dst.known[i] = dst.known[i] && src.known[i]
			}
			if dst.known[i] && math.Abs(float64(dst.vals[i])) > fuzzBound {
				return false
			}
		}
		next[e.dst] = dst
	}
	for b, v := range next {
		*b = v
	}
	return true
}

type fuzzSlot struct {
	b        *recorder.Buffer
	m        *modelBuf
	released bool
}

type fuzzGraph struct {
	g        *recorder.Graph
	effects  []effect
	released bool
}

// streamModel is the plain-Go model of a stream: its lifecycle, the
// recording in progress, its buffers and its graphs.
type streamModel struct {
	t        *testing.T
	s        *recorder.Stream
	ind      *recorder.Buffer
	state    lifecycle.State
	rec      []effect
	poisoned bool // a write was issued inside the window
	slots    [fuzzSlots]fuzzSlot
	graphs   []*fuzzGraph
	log      []string // the ops run so far, for failure messages
}

func (m *streamModel) failf(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("after ops %v:\n"+format, append([]any{m.log}, args...)...)
}

// expectErr checks err against the model's prediction: nil, or an error
// wrapping want.
func (m *streamModel) expectErr(op string, err, want error) {
	m.t.Helper()
	if want == nil && err != nil {
		m.failf("%s: the model predicts success, got %v", op, err)
	}
	if want != nil && !errors.Is(err, want) {
		m.failf("%s: the model predicts an error wrapping %q, got %v", op, want, err)
	}
}

func (m *streamModel) recording() bool { return m.state == lifecycle.Capture }

// launch runs one launch op, or records it, as the model predicts.
func (m *streamModel) launch(name string, e effect, do func() error) {
	m.t.Helper()
	var want error
	switch {
	case e.src != nil && m.released(e.src), m.released(e.dst):
		want = wgpu.ErrReleased
	case e.op == opAccumulate && e.src == e.dst:
		want = wgpu.ErrInvalidArgument // one buffer bound read-only and read-write
	case m.recording():
		m.rec = append(m.rec, e)
	default:
		if !apply(e) {
			m.log[len(m.log)-1] += "(skipped: out of bound)"
			return
		}
	}
	m.expectErr(name, do(), want)
}

func (m *streamModel) released(b *modelBuf) bool {
	for _, s := range m.slots {
		if s.m == b {
			return s.released
		}
	}
	return false // a buffer whose slot was reallocated is only reachable through graphs
}

func (m *streamModel) read(i int) {
	m.t.Helper()
	sl := &m.slots[i]
	got, err := recorder.ReadSlice[float32](m.s, sl.b)
	switch {
	case sl.released:
		m.expectErr("read", err, wgpu.ErrReleased)
	case m.recording():
		m.expectErr("read", err, lifecycle.ErrGraphState)
	default:
		m.expectErr("read", err, nil)
		var want, have [fuzzElems]float32
		for j := range want {
			if sl.m.known[j] {
				want[j], have[j] = sl.m.vals[j], got[j]
			}
		}
		if d := cmp.Diff(want, have); d != "" {
			m.failf("read of slot %d: the buffer must hold what the model computed (unknown elements zeroed) (-model +device):\n%s", i, d)
		}
	}
}

func (m *streamModel) step(op int, arg []byte) {
	m.t.Helper()
	slot := int(arg[0]) % fuzzSlots
	sl := &m.slots[slot]
	k := &fuzzDevice
	g1 := recorder.Groups(1, 1, 1)
	switch op {
	case opAdd, opAddIndirect:
		c := float32(int(arg[1])%15 - 7)
		d := g1
		if op == opAddIndirect {
			d = recorder.Indirect(m.ind, 0)
		}
		m.launch(opNames[op], effect{op: opAdd, dst: sl.m, c: c}, func() error {
			return m.s.Launch(k.add, d, sl.b, gputest.F32(c))
		})
	case opScale:
		c := [...]float32{-1, 0, 2, 3}[arg[1]%4]
		m.launch("scale", effect{op: opScale, dst: sl.m, c: c}, func() error {
			return m.s.Launch(k.scale, g1, sl.b, gputest.F32(c))
		})
	case opAccumulate:
		dst := &m.slots[int(arg[1])%fuzzSlots]
		m.launch("accumulate", effect{op: opAccumulate, src: sl.m, dst: dst.m}, func() error {
			return m.s.Launch(k.acc, g1, sl.b, dst.b)
		})
	case opWrite:
		off := int(arg[1]) % fuzzElems
		n := 1 + int(arg[1]/fuzzElems)%(fuzzElems-off)
		vals := make([]float32, n)
		for j := range vals {
			vals[j] = float32(int(arg[2]+byte(7*j))%31 - 15)
		}
		err := recorder.WriteSlice(m.s, sl.b, uint64(4*off), vals)
		switch {
		case sl.released:
			m.expectErr("write", err, wgpu.ErrReleased)
		case m.recording():
			m.expectErr("write inside the window (rejected lazily)", err, nil)
			m.poisoned = true
		default:
			m.expectErr("write", err, nil)
			for j, v := range vals {
				sl.m.vals[off+j], sl.m.known[off+j] = v, true
			}
		}
	case opRead:
		m.read(slot)
	case opSync:
		var want error
		if m.recording() {
			want = lifecycle.ErrGraphState
		}
		m.expectErr("sync", m.s.Sync(), want)
	case opPrepare:
		var want error
		if m.state != lifecycle.NoCapture {
			want = lifecycle.ErrGraphState
		} else {
			m.state = lifecycle.Prepare
		}
		m.expectErr("prepare", m.s.GraphPrepare(), want)
	case opBegin:
		var want error
		if m.state != lifecycle.Prepare {
			want = lifecycle.ErrGraphState
		} else {
			m.state, m.rec, m.poisoned = lifecycle.Capture, nil, false
		}
		m.expectErr("begin", m.s.BeginCapture(), want)
	case opEnd:
		m.end()
	case opReplay:
		if len(m.graphs) == 0 {
			return
		}
		fg := m.graphs[int(arg[0])%len(m.graphs)]
		var want error
		switch {
		case fg.released:
			want = wgpu.ErrReleased
		case m.recording(): // a child graph: the replay is appended to the recording
			m.rec = append(m.rec, fg.effects...)
		default:
			if !apply(fg.effects...) {
				m.log[len(m.log)-1] += "(skipped: out of bound)"
				return
			}
		}
		m.expectErr("replay", fg.g.Replay(), want)
	case opReleaseGraph:
		if len(m.graphs) == 0 {
			return
		}
		fg := m.graphs[int(arg[0])%len(m.graphs)]
		fg.g.Release()
		fg.released = true
	case opReleaseBuffer:
		sl.b.Release()
		sl.released = true
	case opRealloc:
		sl.b.Release()
		sl.released = false
		sl.m = &modelBuf{}
		var err error
		if arg[1]%2 == 0 {
			init := make([]float32, fuzzElems)
			for j := range init {
				init[j] = float32(j - slot)
			}
			sl.b, err = recorder.UploadSlice(m.s, init)
			if m.recording() { // an upload's write is rejected lazily: contents unspecified
				m.poisoned = true
			} else {
				copy(sl.m.vals[:], init)
				sl.m.known = [fuzzElems]bool{true, true, true, true, true, true, true, true}
			}
		} else {
			sl.b, err = m.s.Empty(4 * fuzzElems)
		}
		m.expectErr("realloc", err, nil)
	}
	if got, want := m.s.State(), m.state; got != want {
		m.failf("lifecycle: the stream is in %v, the model in %v", got, want)
	}
	live := 0
	for _, g := range m.graphs {
		if !g.released {
			live++
		}
	}
	if got := m.s.MemoryStats().Graphs; got != live {
		m.failf("the stream reports %d live graphs, the model %d", got, live)
	}
}

// end is EndCapture as the model predicts it: refused outside the window,
// failed (recording discarded) after a write inside it, else a graph of
// exactly the recorded dispatches, child replays included.
func (m *streamModel) end() {
	m.t.Helper()
	g, err := m.s.EndCapture()
	switch {
	case m.state != lifecycle.Capture:
		m.expectErr("end", err, lifecycle.ErrGraphState)
	case m.poisoned:
		m.expectErr("end after a write inside the window", err, lifecycle.ErrGraphState)
		m.state = lifecycle.NoCapture
	default:
		m.expectErr("end", err, nil)
		m.state = lifecycle.NoCapture
		if g.Len() != len(m.rec) {
			m.failf("end: the graph holds %d dispatches, the model recorded %d", g.Len(), len(m.rec))
		}
		m.graphs = append(m.graphs, &fuzzGraph{g: g, effects: m.rec})
	}
	if g != nil && (err != nil || m.state == lifecycle.Capture) {
		m.failf("end: a refused or failed EndCapture must return no graph")
	}
	m.rec, m.poisoned = nil, false
}

// runOps decodes data into ops and runs them on a fresh stream of the
// fuzz device against the model, then brings the stream back to
// NoCapture, reads every buffer, closes the stream and checks that it gave
// back every native object it made.
func runOps(t *testing.T, data []byte) {
	d := openFuzzDevice(t)
	var opts []recorder.Option
	if len(data) > 0 {
		c := data[0]
		data = data[1:]
		opts = append(opts, recorder.WithPreEncode(c&1 == 0))
		if c&2 != 0 {
			opts = append(opts, recorder.WithMetadataCache(2))
		}
		if c&4 != 0 {
			opts = append(opts, recorder.WithSubmitChunks(1, 2))
		}
	}
	before := live(t, d)
	s, err := recorder.New(d, opts...)
	if err != nil {
		t.Fatal(err)
	}
	m := &streamModel{t: t, s: s}
	defer func() {
		if m.s != nil {
			_ = m.s.Close()
		}
	}()
	m.ind, err = s.Upload(gputest.U32(1, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.slots {
		init := make([]float32, fuzzElems)
		for j := range init {
			init[j] = float32(i*10 + j)
		}
		m.slots[i].m = &modelBuf{known: [fuzzElems]bool{true, true, true, true, true, true, true, true}}
		copy(m.slots[i].m.vals[:], init)
		m.slots[i].b = gputest.Upload(t, s, init)
	}
	for n := 0; len(data) > 0 && n < fuzzOps; n++ {
		op := int(data[0]) % opCount
		data = data[1:]
		arg := make([]byte, 3)
		k := min(opArgs[op], len(data))
		copy(arg, data[:k])
		data = data[k:]
		m.log = append(m.log, fmt.Sprintf("%s%v", opNames[op], arg[:opArgs[op]]))
		m.step(op, arg)
	}
	// Leave the window the way the model says, then check every buffer.
	switch m.state {
	case lifecycle.Prepare:
		m.log = append(m.log, "begin(final)")
		m.step(opBegin, make([]byte, 3))
		fallthrough
	case lifecycle.Capture:
		m.log = append(m.log, "end(final)")
		m.step(opEnd, make([]byte, 3))
	}
	for i := range m.slots {
		m.read(i)
	}
	for _, g := range m.graphs {
		g.g.Release()
	}
	if err := s.Close(); err != nil {
		m.failf("Close must return nil when the model queued nothing: %v", err)
	}
	m.s = nil
	if after := live(t, d); after != before {
		m.failf("a closed stream must give back every native object it made: live %+v before New, %+v after Close", before, after)
	}
}

// op encodes one op for the seed corpus.
func op(code int, args ...byte) []byte { return append([]byte{byte(code)}, args...) }

func ops(config byte, list ...[]byte) []byte {
	out := []byte{config}
	for _, o := range list {
		out = append(out, o...)
	}
	return out
}

// FuzzStreamOps: random sequences of launches (params, accumulate,
// indirect), writes, reads, syncs, capture transitions, replays (eager and
// as child graphs) and releases on a real device, checked against a plain-Go
// model of the lifecycle and the buffer contents. Every value the model
// predicts must be read back exactly, and every refusal must be the one the
// model predicts (Begin without Prepare, Read or Sync while recording,
// a Write inside the window failing EndCapture, ErrReleased for a released
// buffer or graph). Without it, interactions no hand-written test thought
// of (a graph released while a child recording holds it, a page
// reallocated while a graph pins it, eviction under capture) go unchecked.
func FuzzStreamOps(f *testing.F) {
	seeds := [][]byte{
		// eager work of every kind, then reads
		ops(0, op(opAdd, 0, 10), op(opScale, 0, 2), op(opAccumulate, 0, 1), op(opWrite, 2, 3, 5),
			op(opRead, 0), op(opRead, 1), op(opRead, 2), op(opSync), op(opAddIndirect, 2, 3), op(opRead, 2)),
		// a full capture, replayed twice
		ops(0, op(opPrepare), op(opAdd, 0, 9), op(opAccumulate, 0, 1), op(opBegin), op(opAdd, 0, 9), op(opAccumulate, 0, 1),
			op(opEnd), op(opReplay, 0), op(opReplay, 0), op(opRead, 0), op(opRead, 1)),
		// a write inside the window fails EndCapture; reads and syncs are refused there
		ops(1, op(opPrepare), op(opBegin), op(opAdd, 1, 3), op(opWrite, 1, 0, 4), op(opRead, 1), op(opSync),
			op(opEnd), op(opRead, 1), op(opPrepare), op(opBegin), op(opScale, 1, 2), op(opEnd), op(opReplay, 0), op(opRead, 1)),
		// out-of-order transitions
		ops(0, op(opBegin), op(opEnd), op(opPrepare), op(opPrepare), op(opEnd), op(opBegin), op(opBegin), op(opPrepare),
			op(opEnd), op(opEnd), op(opRead, 0)),
		// a replay while recording makes a child graph, which outlives its parent's release
		ops(2, op(opPrepare), op(opBegin), op(opAdd, 0, 8), op(opEnd), op(opPrepare), op(opBegin), op(opReplay, 0),
			op(opScale, 0, 2), op(opReleaseGraph, 0), op(opEnd), op(opReplay, 0), op(opReplay, 1), op(opRead, 0)),
		// released buffers and graphs answer ErrReleased; reallocation starts afresh
		ops(0, op(opPrepare), op(opBegin), op(opAdd, 2, 1), op(opEnd), op(opReleaseGraph, 0), op(opReplay, 0),
			op(opReleaseBuffer, 1), op(opAdd, 1, 1), op(opAccumulate, 0, 1), op(opWrite, 1, 0, 0), op(opRead, 1),
			op(opRealloc, 1, 0), op(opRead, 1), op(opRealloc, 1, 1), op(opWrite, 1, 64, 2), op(opRead, 1)),
		// a graph pins a released buffer; the reallocated slot must not alias it
		ops(4, op(opPrepare), op(opAdd, 0, 1), op(opBegin), op(opAccumulate, 0, 1), op(opAdd, 0, 1), op(opEnd),
			op(opRealloc, 0, 0), op(opReplay, 0), op(opReplay, 0), op(opRead, 0), op(opRead, 1)),
		// one buffer as source and destination is refused; allocation and uploads inside the window
		ops(6, op(opAccumulate, 2, 2), op(opPrepare), op(opBegin), op(opAccumulate, 1, 1), op(opRealloc, 2, 1),
			op(opRealloc, 0, 0), op(opAddIndirect, 0, 2), op(opEnd), op(opRead, 0), op(opRead, 2)),
		// indirect launches captured and replayed, with small submit chunks and a tiny params cache
		ops(7, op(opPrepare), op(opAddIndirect, 1, 5), op(opAdd, 1, 6), op(opAdd, 1, 7), op(opBegin),
			op(opAddIndirect, 1, 5), op(opAdd, 1, 6), op(opAdd, 1, 7), op(opScale, 1, 0), op(opEnd),
			op(opAdd, 1, 1), op(opAdd, 1, 2), op(opAdd, 1, 3), op(opReplay, 0), op(opRead, 1), op(opReplay, 0), op(opRead, 1)),
		// growth past the model's bound is skipped, not miscompared
		ops(0, op(opPrepare), op(opBegin), op(opScale, 0, 3), op(opScale, 0, 3), op(opScale, 0, 3), op(opEnd),
			op(opReplay, 0), op(opReplay, 0), op(opReplay, 0), op(opReplay, 0), op(opReplay, 0), op(opRead, 0)),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(runOps)
}
