package recorder

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"
	"github.com/softgraph/softgraph/wgpu"
)

// newFinishAheadRig is a fake hardware adapter whose Finishes run in
// parallel, with finishing ahead asked for, so streams finish their batches
// ahead of the submitter.
func newFinishAheadRig(t *testing.T) *fakeRig {
	t.Helper()
	t.Setenv("SOFTGRAPH_FINISH_AHEAD", "1")
	return newFakeRigOn(t, fake.Options{Info: driver.Info{ConcurrentFinish: true}})
}

// TestFinishingAheadIsOffUnlessAskedForWhereFinishesRunInParallel: a
// stream finishes batches ahead only when SOFTGRAPH_FINISH_AHEAD=1 asks
// for it and its driver runs Finishes in parallel; the default is off on
// every driver (measured: it slows eager launches where Finish is fast).
func TestFinishingAheadIsOffUnlessAskedForWhereFinishesRunInParallel(t *testing.T) {
	type key struct {
		Env        string
		Concurrent bool
	}
	got := map[key]bool{}
	for _, env := range []string{"", "1", "0"} {
		for _, concurrent := range []bool{false, true} {
			t.Setenv("SOFTGRAPH_FINISH_AHEAD", env)
			r := newFakeRigOn(t, fake.Options{Info: driver.Info{ConcurrentFinish: concurrent}})
			got[key{env, concurrent}] = r.stream(t).cfg.finishAhead
		}
	}
	want := map[key]bool{{"", false}: false, {"", true}: false, {"1", false}: false, {"1", true}: true, {"0", false}: false, {"0", true}: false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("finishing ahead by SOFTGRAPH_FINISH_AHEAD and driver (-want +got):\n%s", diff)
	}
}

// TestBatchesFinishedAheadAreSubmittedInHandOffOrder: with batches of one
// to three dispatches finished at once on the stream's finishers, every
// batch still reaches the queue in the order it was handed off: adds and
// copies that do not commute end as the sequential model says.
func TestBatchesFinishedAheadAreSubmittedInHandOffOrder(t *testing.T) {
	r := newFinishAheadRig(t)
	s := r.stream(t, WithSubmitChunks(1, 3), WithFlushDelay(0))
	if !s.cfg.finishAhead {
		t.Fatal("a stream on a driver whose Finishes run in parallel does not finish batches ahead")
	}
	a, b := upload(t, s, 1), upload(t, s, 0)
	wantA, wantB := uint32(1), uint32(0)
	for i := range 600 {
		k := uint32(i%7 + 1)
		if err := r.add(s, a, k); err != nil {
			t.Fatalf("Launch %d: %v", i, err)
		}
		wantA += k
		if i%5 == 0 {
			if err := s.launch(r.copyK, Groups(1, 1, 1), []Arg{b, a}); err != nil {
				t.Fatalf("copy %d: %v", i, err)
			}
			wantB = wantA
		}
		if i%97 == 0 {
			if err := s.Flush(); err != nil {
				t.Fatalf("Flush: %v", err)
			}
		}
	}
	if diff := cmp.Diff([]uint32{wantA, wantB}, []uint32{read(t, s, a)[0], read(t, s, b)[0]}); diff != "" {
		t.Errorf("a and b after 600 adds and 120 copies in batches finished ahead (-want +got):\n%s", diff)
	}
	s.mu.Lock()
	started := s.eng.FinishingAhead()
	s.mu.Unlock()
	if !started {
		t.Error("the stream's finishers never started")
	}
}

// TestAFailedFinishAheadIsReportedAndLosesOnlyItsBatch: a batch whose
// Finish fails on a finisher is reported by the next sync point (an error
// wrapping wgpu.ErrValidation), its work does not run, and what the stream
// enqueues after it runs.
func TestAFailedFinishAheadIsReportedAndLosesOnlyItsBatch(t *testing.T) {
	r := newFinishAheadRig(t)
	s := r.stream(t)
	x := upload(t, s, 1)
	if err := s.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	r.dev.Fail(fake.OpFinish, 1)
	if err := r.add(s, x, 10); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	err := s.Sync()
	var de *DeferredError
	if !errors.Is(err, wgpu.ErrValidation) || !errors.As(err, &de) || de.Lost != 1 {
		t.Errorf("Sync after a refused Finish returned %v; want a *DeferredError losing 1 dispatch, wrapping wgpu.ErrValidation", err)
	}
	if err := r.add(s, x, 1); err != nil {
		t.Fatalf("Launch after the refusal: %v", err)
	}
	if diff := cmp.Diff([]uint32{2}, read(t, s, x)); diff != "" {
		t.Errorf("after a refused Finish (-want +got):\n%s", diff)
	}
}
