package recorder

import (
	"errors"
	"os"
	"testing"

	"github.com/softgraph/softgraph/wgpu"
)

// TestAChecksClearInsideAnotherCallersWindowFailsNothing: a Sync on a
// checked stream reports a violation and clears the checks' state; when a
// capture window opened on the stream while that Sync waited (the
// waitingUnlocked hook opens it, on a real adapter: the fake has no checked
// variants), the clear neither fails that capture nor stays undone. Before,
// the clear was a stream Write: inside the window it was deferred, the
// capture failed naming a Write its caller never issued, and the next Sync
// reported the violation again.
func TestAChecksClearInsideAnotherCallersWindowFailsNothing(t *testing.T) {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		if os.Getenv("SOFTGRAPH_REQUIRE_GPU") == "1" {
			t.Fatalf("no adapter, and SOFTGRAPH_REQUIRE_GPU=1: %v", err)
		}
		t.Skipf("no adapter: %v", err)
	}
	defer dev.Close()
	t.Logf("adapter: %s (%s)", dev.Info().Name, dev.Info().Backend)
	s, err := New(dev, WithChecks(true))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k, err := dev.Kernel(`@group(0) @binding(0) var<storage, read> idx: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	dst[idx[id.x]] = id.x;
}`, "main", wgpu.WithLabel("scatter"))
	if err != nil {
		t.Fatal(err)
	}
	idx := upload(t, s, 0, 1, 9, 3) // invocation 2 writes dst[9] of 4
	dst := upload(t, s, 0, 0, 0, 0)
	if err := s.Launch(k, Groups(1, 1, 1), idx, dst); err != nil {
		t.Fatal(err)
	}
	opened := false
	s.waitingUnlocked = func(wait string) {
		if opened || wait != "sync" {
			return
		}
		opened = true
		if err := s.PrepareCapture(); err != nil {
			t.Errorf("PrepareCapture while the Sync waited: %v", err)
		}
		if err := s.BeginCapture(); err != nil {
			t.Errorf("BeginCapture while the Sync waited: %v", err)
		}
	}
	err = s.Sync()
	s.waitingUnlocked = nil
	if !opened {
		t.Fatalf("the Sync did not wait with the lock released; the test opens no window (err %v)", err)
	}
	var ce *CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("the Sync admitted before the window returned %v; want the violation", err)
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatalf("EndCapture after the Sync cleared the checks' state inside the window: %v; want a graph", err)
	}
	g.Release()
	if err := s.Sync(); err != nil {
		t.Fatalf("the violation was reported and cleared; the next Sync returned %v", err)
	}
}
