package recorder

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver/fake"
	"github.com/softgraph/softgraph/wgpu"
)

// TestRefusedSubmissionIsReportedAtTheNextSyncAndTheStreamStillWorks: a
// submission the device refuses is reported by the next sync point (an
// error wrapping wgpu.ErrValidation), its work does not run, and the
// stream runs what comes after it. A refused allocation fails the call
// that made it with wgpu.ErrOutOfMemory. Without it, a refused batch
// would be lost silently or leave the stream stuck.
func TestRefusedSubmissionIsReportedAtTheNextSyncAndTheStreamStillWorks(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t)
	x := upload(t, s, 1)
	if err := s.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	r.dev.Fail(fake.OpSubmit, 1)
	if err := r.add(s, x, 10); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if err := s.Sync(); !errors.Is(err, wgpu.ErrValidation) {
		t.Errorf("Sync after a refused submission returned %v; want an error wrapping wgpu.ErrValidation", err)
	}
	if err := r.add(s, x, 1); err != nil {
		t.Fatalf("Launch after the refusal: %v", err)
	}
	if diff := cmp.Diff([]uint32{2}, read(t, s, x)); diff != "" {
		t.Errorf("after a refused submission (-want +got):\n%s", diff)
	}
	r.dev.Fail(fake.OpNewBuffer, 1)
	if _, err := s.Alloc(1 << 20); !errors.Is(err, wgpu.ErrOutOfMemory) {
		t.Errorf("Empty with the device out of memory returned %v; want an error wrapping wgpu.ErrOutOfMemory", err)
	}
	if _, err := s.Alloc(1 << 20); err != nil {
		t.Errorf("Empty after a refused allocation: %v", err)
	}
}
