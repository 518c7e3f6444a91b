package recorder

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/lifecycle"
)

// dispatchCount counts the dispatches the fake device executed.
func (r *fakeRig) dispatchCount() int {
	n := 0
	for _, l := range r.dev.Log() {
		if strings.HasPrefix(l, "dispatch ") {
			n++
		}
	}
	return n
}

// TestCaptureRecordsLaunchesWithoutExecutingThem: between BeginCapture and
// EndCapture a launch is recorded, not executed (the device runs no
// dispatch), and the sealed graph runs it once per Replay. Without it a
// capture would run its step once more than the caller asked.
func TestCaptureRecordsLaunchesWithoutExecutingThem(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t)
	x := upload(t, s, 1)
	if err := s.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if err := s.PrepareCapture(); err != nil {
		t.Fatalf("GraphPrepare: %v", err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatalf("BeginCapture: %v", err)
	}
	if err := r.add(s, x, 2); err != nil {
		t.Fatalf("Launch while recording: %v", err)
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatalf("EndCapture: %v", err)
	}
	defer g.Release()
	if err := s.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if n := r.dispatchCount(); n != 0 {
		t.Errorf("the device executed %d dispatches for a recorded launch; a capture executes none", n)
	}
	for range 3 {
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay: %v", err)
		}
	}
	if diff := cmp.Diff([]uint32{7}, read(t, s, x)); diff != "" {
		t.Errorf("three replays of +2 from 1 (-want +got):\n%s", diff)
	}
	if n := r.dispatchCount(); n != 3 {
		t.Errorf("the device executed %d dispatches for three replays of a one-launch graph, want 3", n)
	}
}

// TestCaptureDefersWritesAndRefusesReadsAndLoads: while recording, a Write
// returns nil but writes nothing and makes EndCapture fail; a Read, a Sync,
// a LoadGraph and a Save with contents are refused with lifecycle.ErrGraphState and
// change nothing; after the failed EndCapture the stream works. This is
// the lifecycle table as the recorder applies it, without a GPU.
func TestCaptureDefersWritesAndRefusesReadsAndLoads(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t)
	x := upload(t, s, 1)
	// A graph to save while recording, captured first.
	if err := s.PrepareCapture(); err != nil {
		t.Fatalf("GraphPrepare: %v", err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatalf("BeginCapture: %v", err)
	}
	if err := r.add(s, x, 1); err != nil {
		t.Fatalf("Launch while recording: %v", err)
	}
	saved, err := s.EndCapture()
	if err != nil {
		t.Fatalf("EndCapture: %v", err)
	}
	defer saved.Release()
	var file bytes.Buffer
	if _, err := saved.WriteTo(&file); err != nil {
		t.Fatalf("WriteTo outside a capture: %v", err)
	}

	if err := s.PrepareCapture(); err != nil {
		t.Fatalf("GraphPrepare: %v", err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatalf("BeginCapture: %v", err)
	}
	if err := s.Write(x, 0, u32s(50)); err != nil {
		t.Errorf("Write while recording returned %v; a write is deferred (nil now, EndCapture fails)", err)
	}
	refused := map[string]error{}
	_, refused["Read"] = s.Read(x)
	refused["Sync"] = s.Sync()
	_, refused["LoadGraph"] = s.LoadGraph(bytes.NewReader(file.Bytes()))
	_, refused["Save with contents"] = saved.Save(&bytes.Buffer{}, SaveOptions{Contents: true})
	for op, err := range refused {
		if !errors.Is(err, lifecycle.ErrGraphState) {
			t.Errorf("%s while recording returned %v; want it refused with lifecycle.ErrGraphState", op, err)
		}
	}
	if _, err := s.EndCapture(); !errors.Is(err, lifecycle.ErrGraphState) {
		t.Errorf("EndCapture after a write while recording returned %v; want a *CaptureError matching lifecycle.ErrGraphState", err)
	}
	if st := s.State(); st != lifecycle.NoCapture {
		t.Errorf("after a failed EndCapture the stream is in %v, want NoCapture", st)
	}
	// Nothing the refused and deferred calls did reached the device.
	if diff := cmp.Diff([]uint32{1}, read(t, s, x)); diff != "" {
		t.Errorf("a write while recording reached the buffer (-want +got):\n%s", diff)
	}
	if err := r.add(s, x, 1); err != nil {
		t.Fatalf("Launch after the failed capture: %v", err)
	}
	if diff := cmp.Diff([]uint32{2}, read(t, s, x)); diff != "" {
		t.Errorf("the stream does not work after a failed capture (-want +got):\n%s", diff)
	}
}
