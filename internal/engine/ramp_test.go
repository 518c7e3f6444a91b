package engine_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"
	"github.com/softgraph/softgraph/internal/engine"
)

// program is a fake program of n dispatches.
func program(t *testing.T, dev *fake.Device, n int) driver.Program {
	t.Helper()
	k := dev.Register(fake.KernelSpec{Entry: "main"})
	p, err := dev.NewProgram()
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := p.Dispatch(k, nil, 1, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(p.Release)
	return p
}

// waitCount waits until the worker has encoded every step of r it was
// asked for.
func waitCount(t *testing.T, w *engine.RampWorker, r *engine.Ramp) (ready int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ready, pending := w.Count(r)
		if pending == 0 {
			return ready
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ramp worker did not finish: %d ready, %d pending", ready, pending)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRampStepsHoldThePlannedReplaysOnceEach: the worker encodes each
// planned step into one command buffer of exactly the step's replays
// (RampFirst·2^k dispatches' worth, covering the run and no more), and a
// step is handed out once and only to a caller counting its size. Without
// it a ramp would run replays nobody made, or the same command buffer
// twice.
func TestRampStepsHoldThePlannedReplaysOnceEach(t *testing.T) {
	dev := fake.New(fake.Options{})
	t.Cleanup(dev.Close)
	prog := program(t, dev, 2)
	w, err := engine.NewRampWorker(dev)
	if err != nil {
		t.Fatal(err)
	}
	r := engine.NewRamp(prog)
	t.Cleanup(func() { w.Drop(r); w.Close() })

	w.Replan(r, 20) // 2 dispatches a replay: steps of 4, 8 and 8 replays
	if got := waitCount(t, w, r); got != 3 {
		t.Fatalf("%d steps ready, want 3", got)
	}
	if _, ok := w.Take(r, 1, 4); ok {
		t.Errorf("step 1 was handed out to a caller counting 4 replays; it holds 8")
	}
	var got []int
	for k := range engine.RampSteps {
		reps := w.Ready(r, k)
		if reps == 0 {
			break
		}
		cb, ok := w.Take(r, k, reps)
		if !ok {
			t.Fatalf("step %d: Ready said %d replays, Take refused them", k, reps)
		}
		got = append(got, cb.Dispatches)
		cb.Release()
		if _, again := w.Take(r, k, reps); again {
			t.Errorf("step %d was handed out twice", k)
		}
	}
	if d := cmp.Diff([]int{8, 16, 16}, got); d != "" {
		t.Errorf("dispatches per step of a 20-replay run of a 2-dispatch program (-want +got):\n%s", d)
	}
}

// TestDroppedRampsAndStoppedPreencodersReleaseWhatTheyEncoded: a ramp
// dropped with steps ready, a worker closed, and a pre-encoder stopped
// with a replay encoded and not taken leave no command buffer or encoder
// alive. Without it every released graph would leak native objects.
func TestDroppedRampsAndStoppedPreencodersReleaseWhatTheyEncoded(t *testing.T) {
	dev := fake.New(fake.Options{})
	t.Cleanup(dev.Close)
	prog := program(t, dev, 1)
	before := dev.Live()

	w, err := engine.NewRampWorker(dev)
	if err != nil {
		t.Fatal(err)
	}
	r := engine.NewRamp(prog)
	w.Replan(r, 40)
	waitCount(t, w, r)
	w.Drop(r)
	w.Close()

	p, err := engine.StartPreencoder(dev, prog)
	if err != nil {
		t.Fatal(err)
	}
	p.Request()
	for dev.Live().CommandBuffers == before.CommandBuffers {
		time.Sleep(time.Millisecond) // until the replay is encoded, not taken
	}
	p.Stop()

	after := dev.Live()
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("native objects alive after Drop, Close and Stop (-before +after):\n%s", d)
	}
}

// TestPreencoderHandsOutOneReplayPerRequest: a request yields one command
// buffer of the whole program, a second request before it is taken encodes
// none, and Take with nothing requested does not wait. Without it a replay
// could be encoded for nothing, or Replay block on a replay never asked
// for.
func TestPreencoderHandsOutOneReplayPerRequest(t *testing.T) {
	dev := fake.New(fake.Options{})
	t.Cleanup(dev.Close)
	prog := program(t, dev, 3)
	p, err := engine.StartPreencoder(dev, prog)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	before := dev.Live().CommandBuffers
	p.Request()
	p.Request()
	e, ok := p.Take()
	if !ok || e.Err != nil {
		t.Fatalf("Take after a request: ok %v, error %v", ok, e.Err)
	}
	got := []int{e.CB.Dispatches}
	e.CB.Release()
	time.Sleep(20 * time.Millisecond) // room for a second encoding, if one was asked for
	got = append(got, int(dev.Live().CommandBuffers-before))
	done := make(chan bool)
	go func() { _, ok := p.Take(); done <- ok }()
	select {
	case ok := <-done:
		got = append(got, map[bool]int{false: 0, true: 1}[ok])
	case <-time.After(time.Second):
		t.Fatal("Take with nothing requested waited")
	}
	if d := cmp.Diff([]int{3, 0, 0}, got); d != "" {
		t.Errorf("[dispatches taken, command buffers alive after, replays a second Take got] after two requests (-want +got):\n%s", d)
	}
}
