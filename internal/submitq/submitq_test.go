package submitq

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// oneAtATime is a process function that appends each job to processed
// (under mu), takes d, and fails the test if two jobs overlap.
func oneAtATime(t *testing.T, mu *sync.Mutex, processed *[]int, d time.Duration) func(int) {
	busy := 0
	return func(j int) {
		mu.Lock()
		busy++
		if busy != 1 {
			t.Errorf("job %d processed while another was", j)
		}
		*processed = append(*processed, j)
		mu.Unlock()
		time.Sleep(d)
		mu.Lock()
		busy--
		mu.Unlock()
	}
}

// TestJobsAreProcessedAndTakenInPushOrder: jobs pushed from one goroutine
// are processed one at a time in push order, and Take returns them in
// that order, inline-processed jobs (AddDone) where they were added.
// Without it a stream's batches would reach the GPU out of call order.
func TestJobsAreProcessedAndTakenInPushOrder(t *testing.T) {
	var mu sync.Mutex
	var processed []int
	q := Start(oneAtATime(t, &mu, &processed, 100*time.Microsecond))
	defer q.Stop()
	var want []int
	for i := range 50 {
		q.Push(i)
		want = append(want, i)
	}
	if err := q.AwaitHandled(context.Background(), 50); err != nil {
		t.Fatalf("AwaitHandled: %v", err)
	}
	q.AddDone(50)
	want = append(want, 50)
	mu.Lock()
	if diff := cmp.Diff(want[:50], processed); diff != "" {
		t.Errorf("processing order (-want +got):\n%s", diff)
	}
	mu.Unlock()
	if diff := cmp.Diff(want, q.Take(nil, false)); diff != "" {
		t.Errorf("Take order (-want +got):\n%s", diff)
	}
	if got := q.Take(nil, false); len(got) != 0 {
		t.Errorf("a second Take returned %v; want nothing (every job was taken)", got)
	}
	if q.Pushed() != 50 || q.Handled() != 50 {
		t.Errorf("Pushed %d, Handled %d; want 50 and 50", q.Pushed(), q.Handled())
	}
}

// TestAwaitHandledHonoursItsContext: a wait for a job that cannot finish
// (its processing blocks) returns the context's error at the deadline, and
// a later wait succeeds once the job is done. Without it a Read's deadline
// would hang behind another stream's submitter.
func TestAwaitHandledHonoursItsContext(t *testing.T) {
	release := make(chan struct{})
	q := Start(func(int) { <-release })
	defer q.Stop()
	q.Push(1)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := q.AwaitHandled(ctx, q.Pushed()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("AwaitHandled behind a blocked job returned %v; want context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("AwaitHandled with a 50 ms deadline returned after %v", took)
	}
	close(release)
	if err := q.AwaitHandled(context.Background(), 1); err != nil {
		t.Errorf("AwaitHandled once the job can finish: %v", err)
	}
}

// TestTakeWaitsForAJobAndNextSignalsIt: Take with wait blocks until a job
// is done; Next's channel is closed by the next job done, and reports
// ready while done jobs wait to be taken; AwaitHandledPast returns once
// one more job is done. Without them the owner would spin or sleep.
func TestTakeWaitsForAJobAndNextSignalsIt(t *testing.T) {
	gate := make(chan struct{})
	q := Start(func(int) { <-gate })
	defer q.Stop()
	changed, ready := q.Next()
	if ready {
		t.Fatal("Next reports done jobs before any was pushed")
	}
	q.Push(7)
	seen := q.Handled()
	go func() {
		time.Sleep(10 * time.Millisecond)
		gate <- struct{}{}
	}()
	if diff := cmp.Diff([]int{7}, q.Take(nil, true)); diff != "" {
		t.Errorf("Take with wait (-want +got):\n%s", diff)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("Next's channel was not closed when the job was done")
	}
	q.AwaitHandledPast(seen) // returns at once: one more is done
	q.Push(8)
	gate <- struct{}{}
	if err := q.AwaitHandled(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if _, ready := q.Next(); !ready {
		t.Error("Next does not report the done job waiting to be taken")
	}
}

// TestStopProcessesWhatWasPushed: Stop returns only after every job
// pushed before it was processed, and a wait for them after Stop returns
// at once. Without it Close would drop batches handed off just before it.
func TestStopProcessesWhatWasPushed(t *testing.T) {
	var mu sync.Mutex
	n := 0
	q := Start(func(int) {
		time.Sleep(time.Millisecond)
		mu.Lock()
		n++
		mu.Unlock()
	})
	for i := range 20 {
		q.Push(i)
	}
	q.Stop()
	mu.Lock()
	got := n
	mu.Unlock()
	if got != 20 {
		t.Errorf("Stop returned with %d of 20 jobs processed", got)
	}
	if err := q.AwaitHandled(context.Background(), 1000); err != nil {
		t.Errorf("AwaitHandled after Stop: %v; want nil (nothing is left to wait for)", err)
	}
	if got := len(q.Take(nil, false)); got != 20 {
		t.Errorf("Take after Stop returned %d jobs, want 20", got)
	}
}

// TestConcurrentPushesAreEachProcessedOnce: pushes from many goroutines,
// with owners taking done jobs meanwhile, process every job exactly once
// (under -race, the queue's state is only touched under its lock).
func TestConcurrentPushesAreEachProcessedOnce(t *testing.T) {
	var mu sync.Mutex
	count := map[int]int{}
	q := Start(func(j int) {
		mu.Lock()
		count[j]++
		mu.Unlock()
	})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				q.Push(g*1000 + i)
				if i%10 == 0 {
					q.Take(nil, false)
				}
			}
		}()
	}
	wg.Wait()
	q.Stop()
	mu.Lock()
	defer mu.Unlock()
	if len(count) != 800 {
		t.Errorf("%d distinct jobs processed, want 800", len(count))
	}
	for j, c := range count {
		if c != 1 {
			t.Errorf("job %d processed %d times", j, c)
		}
	}
}

// TestClaimedJobsKeepPushOrderAndOneAtATime: callers claiming jobs (and
// giving some back) while the goroutine processes others still process
// every job exactly once, one at a time, in push order, and Take returns
// them in that order. Without it a stream's caller that submits its
// queued batches itself (before waiting for them) could send one ahead of
// a batch handed off before it, or beside one the submitter is sending.
func TestClaimedJobsKeepPushOrderAndOneAtATime(t *testing.T) {
	var mu sync.Mutex
	var processed []int
	work := oneAtATime(t, &mu, &processed, 20*time.Microsecond)
	q := Start(work)
	defer q.Stop()
	var pushMu sync.Mutex // pushes come from one owner at a time, as under a stream's lock
	next := 0
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				pushMu.Lock()
				q.Push(next)
				next++
				pushMu.Unlock()
				if j, ok := q.Claim(); ok {
					if (g+i)%3 == 0 {
						q.Unclaim(j) // given back: the goroutine processes it, in its place
						continue
					}
					work(j)
					q.Processed(j)
				}
			}
		}()
	}
	wg.Wait()
	if err := q.AwaitHandled(context.Background(), 800); err != nil {
		t.Fatalf("AwaitHandled: %v", err)
	}
	want := make([]int, 800)
	for i := range want {
		want[i] = i
	}
	mu.Lock()
	if diff := cmp.Diff(want, processed); diff != "" {
		t.Errorf("processing order (-want +got):\n%s", diff)
	}
	mu.Unlock()
	if diff := cmp.Diff(want, q.Take(nil, false)); diff != "" {
		t.Errorf("Take order (-want +got):\n%s", diff)
	}
}

// TestClaimFindsNothingWhileAJobIsProcessed: while the goroutine
// processes a job, Claim takes none of those queued behind it (they wait
// for it), and with nothing queued it takes nothing.
func TestClaimFindsNothingWhileAJobIsProcessed(t *testing.T) {
	started, finish := make(chan struct{}), make(chan struct{})
	q := Start(func(j int) {
		if j == 0 {
			close(started)
			<-finish
		}
	})
	defer q.Stop()
	if _, ok := q.Claim(); ok {
		t.Errorf("Claim on an empty queue took a job")
	}
	q.Push(0)
	<-started
	q.Push(1)
	if j, ok := q.Claim(); ok {
		t.Errorf("Claim took job %d while job 0 was being processed", j)
	}
	close(finish)
	if err := q.AwaitHandled(context.Background(), 2); err != nil {
		t.Fatalf("AwaitHandled: %v", err)
	}
	if diff := cmp.Diff([]int{0, 1}, q.Take(nil, false)); diff != "" {
		t.Errorf("Take (-want +got):\n%s", diff)
	}
}
