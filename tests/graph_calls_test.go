package tests

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestRebindRefusesABufferTheGraphDoesNotBind: Rebind matches buffers by
// identity: a released buffer whose page was recycled into a buffer the
// graph binds, or any live buffer the graph never bound, is refused with
// ErrInvalidArgument ("does not bind"), no graph is made, and the graph
// still writes what it was captured to write. Without it Rebind matched
// memory pages, and rebinding a released handle silently rebound the live
// buffer that had inherited its page.
func TestRebindRefusesABufferTheGraphDoesNotBind(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.CopyWGSL)
	src := gputest.Upload(t, s, gputest.Fill(64, 7))
	old := gputest.Empty(t, s, 256)
	pages := s.MemoryStats().Pages
	old.Release()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	v := gputest.Empty(t, s, 256) // the page old gave back
	if s.MemoryStats().Pages != pages {
		t.Logf("note: the pool did not recycle the released page (%d pages, was %d); the identity rule is checked all the same", s.MemoryStats().Pages, pages)
	}
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), src, v); err != nil {
			t.Fatal(err)
		}
	})
	graphs := s.MemoryStats().Graphs
	n := gputest.Upload(t, s, gputest.Fill(64, 0))
	stranger := gputest.Empty(t, s, 256)
	for _, c := range []struct {
		name string
		old  *recorder.Buffer
	}{{"a released buffer whose page a bound buffer inherited", old}, {"a live buffer the graph never bound", stranger}} {
		ng, err := g.Rebind(c.old, n)
		if ng != nil {
			ng.Release()
			t.Fatalf("Rebind of %s must make no graph", c.name)
		}
		gputest.WantErr(t, "Rebind of "+c.name+" is refused", err, []error{wgpu.ErrInvalidArgument}, "Rebind", "does not bind")
	}
	if got := s.MemoryStats().Graphs; got != graphs {
		t.Fatalf("a refused Rebind makes no graph: %d live, was %d", got, graphs)
	}
	if err := recorder.WriteSlice(s, v, 0, gputest.Fill(64, 0)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the graph still writes the buffer it was captured with", gputest.Fill(64, 7), gputest.Read(t, s, v))
	gputest.WantEqual(t, "the would-be replacement was never written", gputest.Fill(64, 0), gputest.Read(t, s, n))
}

// TestRebindingAnIfConditionCarriesIntoTheSavedGraph: Rebind of the
// buffer an If reads its condition from rebinds the region too, so the
// rebound graph saved and loaded elsewhere has the same buffers and reads
// the new condition; the old buffer (released, its graph released) is not
// read or written into the file. Without the fix the saved file carried the
// old condition buffer as an extra buffer and named it the If's condition.
func TestRebindingAnIfConditionCarriesIntoTheSavedGraph(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	cond, err := s.Upload(gputest.U32(0, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	cond2, err := s.Upload(gputest.U32(1, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	g, err := s.Capture(func() error {
		return s.If(cond, 0, func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)) })
	})
	if err != nil {
		t.Fatal(err)
	}
	g2, err := g.Rebind(cond, cond2)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Release()
	g.Release()
	cond.Release()
	var file bytes.Buffer
	if _, err := g2.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.LoadGraph(&file)
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Release()
	gputest.WantEqual(t, "the loaded graph has the rebound graph's buffers", len(g2.Buffers()), len(loaded.Buffers()))
	gputest.WantEqual(t, "the loaded graph describes itself as the rebound one", g2.String(), loaded.String())
	var dot2, dotL bytes.Buffer
	if err := g2.WriteDOT(&dot2); err != nil {
		t.Fatal(err)
	}
	if err := loaded.WriteDOT(&dotL); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the loaded graph draws as the rebound one", dot2.String(), dotL.String())
}

// addOne launches the add-one kernel src → dst over n floats.
func addOne(s *recorder.Stream, k *wgpu.Kernel, src, dst *recorder.Buffer, n uint32) error {
	return s.Launch(k, recorder.Groups((n+63)/64, 1, 1), src, dst, gputest.U32(n))
}

// everyGraphCall runs every Graph call on g and checks what each
// documents: Replay runs, String and WriteDOT describe it, Stats and Len
// agree, Save and WriteTo write a file LoadGraph builds into a graph of
// the same length, ProfileReplay (with a floor) returns one time per
// dispatch.
func everyGraphCall(t *testing.T, what string, s *recorder.Stream, g *recorder.Graph) {
	t.Helper()
	if err := g.Replay(); err != nil {
		t.Fatalf("%s: Replay: %v", what, err)
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("%s: Sync after Replay: %v", what, err)
	}
	if !strings.HasPrefix(g.String(), "graph:") {
		t.Errorf("%s: String = %q", what, g.String())
	}
	var dot bytes.Buffer
	if err := g.WriteDOT(&dot); err != nil || !strings.Contains(dot.String(), "digraph") {
		t.Errorf("%s: WriteDOT = %v:\n%s", what, err, dot.String())
	}
	if st := g.Stats(); st.Dispatches != g.Len() {
		t.Errorf("%s: Stats().Dispatches = %d, Len = %d", what, st.Dispatches, g.Len())
	}
	for _, contents := range []bool{false, true} {
		var file bytes.Buffer
		n, err := g.Save(&file, recorder.SaveOptions{Contents: contents})
		if err != nil || n != int64(file.Len()) {
			t.Fatalf("%s: Save(Contents=%v) = %d, %v (wrote %d bytes)", what, contents, n, err, file.Len())
		}
		lg, err := s.LoadGraph(bytes.NewReader(file.Bytes()))
		if err != nil {
			t.Fatalf("%s: LoadGraph of its file (Contents=%v): %v", what, contents, err)
		}
		if lg.Len() != g.Len() {
			t.Errorf("%s: the loaded graph has %d dispatches, the saved one %d", what, lg.Len(), g.Len())
		}
		if err := lg.Replay(); err != nil {
			t.Errorf("%s: Replay of the loaded graph: %v", what, err)
		}
		for _, b := range lg.Buffers() {
			b.Release()
		}
		lg.Release()
	}
	p, err := s.ProfileReplay(g, recorder.WithFloor(2))
	if err != nil {
		t.Fatalf("%s: ProfileReplay: %v", what, err)
	}
	if p.Method == recorder.ProfileTimestamps && len(p.Dispatches) != g.Len() {
		t.Errorf("%s: ProfileReplay timed %d dispatches of %d", what, len(p.Dispatches), g.Len())
	}
	// Under wine Go's clock steps by the timer tick, longer than the submit
	// and wait of these graphs: there 0 is a measurement, not a failure.
	if p.SubmitWait < 0 || p.SubmitWait == 0 && runtime.GOOS != "windows" {
		t.Errorf("%s: WithFloor(2) measured SubmitWait = %v", what, p.SubmitWait)
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("%s: Sync after ProfileReplay: %v", what, err)
	}
}

// TestGraphsWithoutDispatchesWorkThroughEveryGraphCall: a capture of
// nothing, of copies and clears only, and of an If and a While whose
// bodies record nothing, seal into graphs that replay (computing what
// they recorded), describe themselves, save, load and profile.
func TestGraphsWithoutDispatchesWorkThroughEveryGraphCall(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Ramp(64, 0))
	b := gputest.Empty(t, s, a.Size())
	cond := gputest.Empty(t, s, 16)
	if err := recorder.WriteSlice(s, cond, 0, []uint32{1, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}

	empty, err := s.Capture(func() error { return nil })
	if err != nil {
		t.Fatalf("capturing nothing: %v", err)
	}
	defer empty.Release()
	gputest.WantEqual(t, "an empty graph has no dispatches", 0, empty.Len())
	everyGraphCall(t, "empty graph", s, empty)

	transfers, err := s.Capture(func() error {
		if err := s.Clear(b, 0, b.Size()); err != nil {
			return err
		}
		return s.Copy(b, 0, a, 16, a.Size()-16)
	})
	if err != nil {
		t.Fatalf("capturing copies and clears: %v", err)
	}
	defer transfers.Release()
	everyGraphCall(t, "copies and clears", s, transfers)
	want := append(gputest.Ramp(60, 4), 0, 0, 0, 0)
	gputest.WantEqual(t, "the transfer graph copies after clearing", want, gputest.Read(t, s, b))

	bodies, err := s.Capture(func() error {
		if err := s.If(cond, 0, func() error { return nil }); err != nil {
			return err
		}
		if err := s.While(cond, 4, 3, func() error { return nil }); err != nil {
			return err
		}
		return addOne(s, k, a, b, 64)
	})
	if err != nil {
		t.Fatalf("capturing empty bodies: %v", err)
	}
	defer bodies.Release()
	everyGraphCall(t, "empty If and While bodies", s, bodies)
	gputest.WantEqual(t, "the launch after empty bodies runs", gputest.Ramp(64, 1), gputest.Read(t, s, b))
	p, err := s.ProfileReplay(bodies)
	if err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the profile says which empty bodies ran", []recorder.BranchRun{
		{Region: 1, Kind: "If", Ran: []bool{true}},
		{Region: 2, Kind: "While", Ran: []bool{false, false, false}},
	}, p.Branches)
}

// TestRebindChainsComputeOnTheLastBufferAndKeepIdentities: Rebind(old, old)
// makes an equivalent graph; a graph rebound from a to b no longer binds a
// (rebinding a again is refused) but binds b, which Buffers lists in a's
// place; a chain a→b→c computes on c; a buffer of another stream of the
// device can be rebound in, and the graph keeps it alive after that stream
// closes; a released graph, a released new buffer or a size mismatch are
// refused with their sentinels.
func TestRebindChainsComputeOnTheLastBufferAndKeepIdentities(t *testing.T) {
	d, s := gputest.OpenStream(t)
	other, err := recorder.New(d)
	if err != nil {
		t.Fatal(err)
	}
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	a := gputest.Upload(t, s, gputest.Fill(64, 0))
	b := gputest.Upload(t, s, gputest.Fill(64, 10))
	c := gputest.Upload(t, s, gputest.Fill(64, 20))
	o := gputest.Upload(t, other, gputest.Fill(64, 30))
	g := gputest.Capture(t, s, func() {
		if err := bump(s, k, a, 1); err != nil {
			t.Fatal(err)
		}
	})
	same, err := g.Rebind(a, a)
	if err != nil {
		t.Fatalf("Rebind(a, a): %v", err)
	}
	defer same.Release()
	gb, err := g.Rebind(a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Release()
	if bs := gb.Buffers(); len(bs) != 1 || bs[0] != b {
		t.Errorf("the rebound graph must list b in a's place, lists %v", bs)
	}
	if bs := g.Buffers(); len(bs) != 1 || bs[0] != a {
		t.Errorf("the original graph must still list a, lists %v", bs)
	}
	if ng, err := gb.Rebind(a, c); !errors.Is(err, recorder.ErrInvalidArgument) {
		if ng != nil {
			ng.Release()
		}
		t.Errorf("rebinding a in a graph already rebound away from a: want ErrInvalidArgument, got %v", err)
	}
	gc, err := gb.Rebind(b, c)
	if err != nil {
		t.Fatal(err)
	}
	defer gc.Release()
	gob, err := g.Rebind(a, o)
	if err != nil {
		t.Fatalf("rebinding a buffer of another stream of the device: %v", err)
	}
	defer gob.Release()
	for _, r := range []*recorder.Graph{g, same, gb, gc, gob} {
		if err := r.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	gputest.WantEqual(t, "g and Rebind(a, a) each add 1 to a (after the warmup's 1)", gputest.Fill(64, 3), gputest.Read(t, s, a))
	gputest.WantEqual(t, "gb adds 1 to b", gputest.Fill(64, 11), gputest.Read(t, s, b))
	gputest.WantEqual(t, "gc adds 1 to c", gputest.Fill(64, 21), gputest.Read(t, s, c))
	gputest.WantEqual(t, "gob adds 1 to the other stream's buffer", gputest.Fill(64, 31), gputest.Read(t, s, o))
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gob.Replay(); err != nil {
		t.Fatalf("a graph binding a closed stream's buffer still replays: %v", err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if bs := gob.Buffers(); len(bs) != 1 || bs[0] != o {
		t.Errorf("gob must list the other stream's buffer, lists %v", bs)
	}
	small := gputest.Empty(t, s, 128)
	dead := gputest.Empty(t, s, a.Size())
	dead.Release()
	rel := gputest.Capture(t, s, func() {
		if err := bump(s, k, a, 1); err != nil {
			t.Fatal(err)
		}
	})
	rel.Release()
	for name, c := range map[string]struct {
		f    func() (*recorder.Graph, error)
		want error
	}{
		"a smaller new buffer":  {func() (*recorder.Graph, error) { return g.Rebind(a, small) }, recorder.ErrInvalidArgument},
		"a released new buffer": {func() (*recorder.Graph, error) { return g.Rebind(a, dead) }, recorder.ErrReleased},
		"a released graph":      {func() (*recorder.Graph, error) { return rel.Rebind(a, b) }, recorder.ErrReleased},
		"a nil new buffer":      {func() (*recorder.Graph, error) { return g.Rebind(a, nil) }, recorder.ErrInvalidArgument},
		"an unbound old buffer": {func() (*recorder.Graph, error) { return g.Rebind(small, small) }, recorder.ErrInvalidArgument},
	} {
		ng, err := c.f()
		if ng != nil {
			ng.Release()
		}
		if !errors.Is(err, c.want) {
			t.Errorf("Rebind with %s: want %v, got %v", name, c.want, err)
		}
	}
}
