package fake_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"
)

// TestHeldQueueCompletesNothingUntilReleasedThenRunsInOrder: while the
// queue is held, a Wait gives up at its deadline (wrapping
// context.DeadlineExceeded) and nothing executes; released, the queue runs
// writes and submissions in the order they were enqueued.
func TestHeldQueueCompletesNothingUntilReleasedThenRunsInOrder(t *testing.T) {
	d := fake.New(fake.Options{})
	defer d.Close()
	b, err := d.NewBuffer(8, driver.UsageStorage|driver.UsageCopySrc|driver.UsageCopyDst, "b")
	if err != nil {
		t.Fatal(err)
	}
	release := d.Hold()
	if err := d.WriteBuffer(b, 0, []byte{1, 0, 0, 0, 2, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	e, err := d.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Release()
	if err := e.CopyBuffer(b, 0, b, 4, 4); err != nil {
		t.Fatal(err)
	}
	cb, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	sub, err := d.Submit([]driver.CommandBuffer{cb})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := d.Wait(ctx, sub); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait on a held queue returned %v; want it to give up at the deadline", err)
	}
	if n := d.Pending(); n != 2 {
		t.Errorf("a held queue has %d items pending, want the write and the submission", n)
	}
	release()
	if err := d.Wait(context.Background(), sub); err != nil {
		t.Fatalf("Wait after release: %v", err)
	}
	if diff := cmp.Diff([]byte{1, 0, 0, 0, 1, 0, 0, 0}, d.Bytes(b)); diff != "" {
		t.Errorf("the write did not run before the copy submitted after it (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"write b @0+8", "submit", "copy b@0 -> b@4 +4"}, d.Log()); diff != "" {
		t.Errorf("queue log (-want +got):\n%s", diff)
	}
}

// TestLocalIsOneValuePerDeviceAndKey: driver.Local makes a device's value
// once per key and returns the same pointer afterwards; another device or
// another key gets its own.
func TestLocalIsOneValuePerDeviceAndKey(t *testing.T) {
	type counter struct{ n int }
	made := 0
	k1 := &driver.Key[counter]{New: func() *counter { made++; return &counter{n: made} }}
	k2 := &driver.Key[counter]{New: func() *counter { made++; return &counter{n: made} }}
	d1, d2 := fake.New(fake.Options{}), fake.New(fake.Options{})
	defer d1.Close()
	defer d2.Close()
	a, b := driver.Local(d1, k1), driver.Local(d1, k1)
	if a != b || a.n != 1 {
		t.Errorf("two Local calls for one device and key returned different values (the first made value %d)", a.n)
	}
	if driver.Local(d2, k1) == a || driver.Local(d1, k2) == a {
		t.Errorf("another device or key shares a value")
	}
	if made != 3 {
		t.Errorf("New ran %d times for three (device, key) pairs", made)
	}
}
