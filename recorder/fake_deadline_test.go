package recorder

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReadContextDeadlineHoldsWhileAnotherStreamsSubmissionIsIncomplete:
// a ReadContext on stream a returns at its deadline with an error wrapping
// context.DeadlineExceeded while the device holds stream b's submission
// incomplete (the fake's Hold stands for long GPU work), and a's next read
// succeeds once the device moves on. Without it, a caller's deadline is
// only as good as the slowest stream on the device.
func TestReadContextDeadlineHoldsWhileAnotherStreamsSubmissionIsIncomplete(t *testing.T) {
	r := newFakeRig(t)
	a := r.stream(t)
	b := r.stream(t)
	xa := upload(t, a, 1)
	xb := upload(t, b, 1)
	if err := a.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	release := r.dev.Hold()
	defer release()
	if err := r.add(b, xb, 1); err != nil {
		t.Fatalf("Launch on b: %v", err)
	}
	if err := b.Flush(); err != nil {
		t.Fatalf("Flush on b: %v", err)
	}
	const deadline = 100 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	_, err := a.ReadContext(ctx, xa)
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ReadContext behind a held submission returned %v; want an error wrapping context.DeadlineExceeded", err)
	}
	if took > deadline+time.Second {
		t.Errorf("ReadContext with a %v deadline returned after %v while another stream's submission was held", deadline, took)
	}
	release()
	if diff := cmp.Diff([]uint32{1}, read(t, a, xa)); diff != "" {
		t.Errorf("a's read after the device moved on (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint32{2}, read(t, b, xb)); diff != "" {
		t.Errorf("b's launch after the device moved on (-want +got):\n%s", diff)
	}
}
