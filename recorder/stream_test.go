package recorder_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/faulty"
	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// fixedWGSL binds a fixed-size struct of 256 bytes.
const fixedWGSL = `
struct S { a: array<f32, 64> }
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(1)
fn main() { s.a[0] = s.a[63]; }
`

// faultyStream opens a device with a fault injector between it and a new
// stream: the stream runs on the real adapter, and fails only what the
// test tells the injector to fail.
func faultyStream(t *testing.T) (*wgpu.Device, *recorder.Stream, *faulty.Device) {
	t.Helper()
	d := gputest.Open(t, wgpu.Options{})
	f, undo, err := faulty.Install(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(undo)
	return d, gputest.Stream(t, d), f
}

// TestChainComputesEagerly: 150 dependent launches ping-pong between two
// buffers; the result is the input plus 150.
func TestChainComputesEagerly(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	in := gputest.Ramp(100, 0)
	a := gputest.Upload(t, s, in)
	b, err := s.Alloc(a.Size())
	if err != nil {
		t.Fatal(err)
	}
	out := gputest.MustChain(t, s, k, a, b, 150, 100)
	gputest.WantEqual(t, "150 chained add-ones", gputest.Plus(in, 150), gputest.Read(t, s, out))
}

// TestWriteIsOrderedWithLaunches: WebGPU's queue writes overtake
// unsubmitted encoder work; the stream must not let them. A launch enqueued
// before a Write sees the old contents, one after it the new.
func TestWriteIsOrderedWithLaunches(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.CopyWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 1))
	before, _ := s.Alloc(x.Size())
	after, _ := s.Alloc(x.Size())
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, before); err != nil {
		t.Fatal(err)
	}
	if err := recorder.WriteSlice(s, x, 0, gputest.Fill(64, 2)); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, after); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "a launch enqueued before the write sees the old contents", gputest.Fill(64, 1), gputest.Read(t, s, before))
	gputest.WantEqual(t, "a launch enqueued after the write sees the new contents", gputest.Fill(64, 2), gputest.Read(t, s, after))
	// A partial write at an offset.
	if err := recorder.WriteSlice(s, x, 8, []float32{7, 8}); err != nil {
		t.Fatal(err)
	}
	want := gputest.Fill(64, 2)
	want[2], want[3] = 7, 8
	gputest.WantEqual(t, "partial write at byte offset 8", want, gputest.Read(t, s, x))
}

// TestArrayLengthIsTheBufferSize: pooled pages are larger than asked for; a
// Buffer binds exactly its size, so arrayLength is Size()/4.
func TestArrayLengthIsTheBufferSize(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.LenWGSL)
	out, _ := s.Alloc(4)
	for _, n := range []uint64{1, 5, 63, 65, 1000} {
		a, err := s.Alloc(4 * n)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Launch(k, recorder.Groups(1, 1, 1), a, out); err != nil {
			t.Fatal(err)
		}
		got, err := recorder.ReadSlice[uint32](s, out)
		if err != nil {
			t.Fatal(err)
		}
		gputest.WantEqual(t, fmt.Sprintf("arrayLength of a %d-element buffer", n), []uint32{uint32(n)}, got)
		a.Release()
	}
}

// TestReleasedBufferIsReusedOnlyAfterItsWorkIsSubmitted: a released page
// comes back for reuse, but not while an unsubmitted launch still uses it:
// the new owner's upload (a queue write) would overtake that launch.
func TestReleasedBufferIsReusedOnlyAfterItsWorkIsSubmitted(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.CopyWGSL)
	src := gputest.Upload(t, s, gputest.Fill(64, 5))
	a, _ := s.Alloc(256)
	if err := s.Launch(k, recorder.Groups(1, 1, 1), src, a); err != nil { // enqueued, not submitted
		t.Fatal(err)
	}
	pagesBefore := s.MemoryStats().Pages
	a.Release()
	b := gputest.Upload(t, s, gputest.Fill(64, 9)) // same size class
	if got := s.MemoryStats().Pages; got != pagesBefore+1 {
		t.Fatalf("a page used by unsubmitted work must not be reused: pages %d → %d", pagesBefore, got)
	}
	gputest.WantEqual(t, "the new buffer keeps its own upload", gputest.Fill(64, 9), gputest.Read(t, s, b))
	b.Release()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	c, err := s.Alloc(256)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if got := s.MemoryStats().Pages; got != pagesBefore+1 {
		t.Fatalf("after submission, released pages must be reused: pages %d, want %d", got, pagesBefore+1)
	}
}

// TestParamsAreUploadedOncePerContent: the metadata cache serves a loop of
// launches with the same params from one uniform slice.
func TestParamsAreUploadedOncePerContent(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 1))
	for range 10 {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(0.5)); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "2^10 * 0.5", gputest.Fill(64, 512), gputest.Read(t, s, x))
	m := s.MemoryStats()
	gputest.WantEqual(t, "params cache (hits, misses)", [2]uint64{9, 2}, [2]uint64{m.ParamsHits, m.ParamsMisses})
}

// TestParamsCacheEvictsInNormalModeWithoutCorruptingQueuedLaunches: with a
// tiny cache every launch evicts; evicted slots must not be rewritten before
// the launches that read them are submitted.
func TestParamsCacheEvictsInNormalModeWithoutCorruptingQueuedLaunches(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithMetadataCache(2), recorder.WithSubmitChunks(1000, 1000))
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 1))
	want := float32(1)
	for i := range 40 {
		f := float32(1 + i%5) // 5 distinct params through a 2-entry cache
		want *= f
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(f)); err != nil {
			t.Fatal(err)
		}
	}
	gputest.WantEqual(t, "product of 40 scales", gputest.Fill(64, want), gputest.Read(t, s, x))
	if m := s.MemoryStats(); m.ParamsEntries > 2 {
		t.Fatalf("normal mode is bounded: %d entries in a 2-entry cache", m.ParamsEntries)
	}
}

// TestABindingSmallerThanItsTypeIsRefusedOnTheSpot: a buffer smaller than
// the kernel's fixed-size struct used to pass every host check and fail
// device validation at submission, taking its whole batch with it; the
// reflected minimum size refuses it in Launch, naming both sizes.
func TestABindingSmallerThanItsTypeIsRefusedOnTheSpot(t *testing.T) {
	d, s := gputest.OpenStream(t)
	bad := gputest.Kernel(t, d, fixedWGSL)
	small, _ := s.Alloc(16)
	err := s.Launch(bad, recorder.Groups(1, 1, 1), small)
	gputest.WantErr(t, "a too-small binding is a host error", err, []error{wgpu.ErrInvalidArgument}, "16-byte buffer", "256 bytes")
	if err := s.Sync(); err != nil {
		t.Fatalf("nothing was enqueued, so nothing fails later: %v", err)
	}
}

// TestDeferredDeviceErrorIsReturnedBySyncAndTheStreamRecovers: a command
// buffer the device refuses (injected: real devices refuse only what the
// host checks already catch) fails its whole batch. The error, with the
// lost-dispatch count, is queued and returned by the next Sync; then the
// stream works.
func TestDeferredDeviceErrorIsReturnedBySyncAndTheStreamRecovers(t *testing.T) {
	d, s, f := faultyStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	x := gputest.Upload(t, s, gputest.Fill(10, 1))
	y, _ := s.Alloc(40)
	f.FailFinishes(1)
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, y, gputest.U32(10)); err != nil {
		t.Fatalf("the host cannot see this error; Launch must accept it: %v", err)
	}
	err := s.Sync()
	var de *recorder.DeferredError
	if !errors.As(err, &de) || !errors.Is(err, wgpu.ErrValidation) || de.Lost != 1 {
		t.Fatalf("Sync must return the deferred validation error with Lost=1, got %v", err)
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("the queue is cleared once returned, got %v", err)
	}
	a := gputest.Upload(t, s, gputest.Fill(10, 1))
	b, _ := s.Alloc(40)
	gputest.WantEqual(t, "the stream computes after the failure", gputest.Fill(10, 4), gputest.Read(t, s, gputest.MustChain(t, s, k, a, b, 3, 10)))
}

// TestBadLaunchArgumentsAreRefusedOnTheSpot: every host-visible mistake is
// refused by Launch with a specific error naming the argument, nothing is
// enqueued, and the stream still computes.
func TestBadLaunchArgumentsAreRefusedOnTheSpot(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	other, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	os, err := recorder.New(other)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Close()
	foreign, _ := os.Alloc(64)
	foreignK := gputest.Kernel(t, other, gputest.AddOneWGSL)
	a, _ := s.Alloc(64)
	b, _ := s.Alloc(64)
	released, _ := s.Alloc(64)
	released.Release()
	ind, _ := s.Alloc(16)
	max := d.Info().Limits.MaxComputeWorkgroupsPerDimension
	p := gputest.U32(16)
	cases := []struct {
		name string
		err  error
		msg  string
		do   func() error
	}{
		{"nil kernel", wgpu.ErrInvalidArgument, "kernel is nil", func() error { return s.Launch(nil, recorder.Groups(1, 1, 1), a, b, p) }},
		{"foreign kernel", wgpu.ErrForeignDevice, "another device", func() error { return s.Launch(foreignK, recorder.Groups(1, 1, 1), a, b, p) }},
		{"too few args", wgpu.ErrInvalidArgument, "2 argument(s)", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, b) }},
		{"too many args", wgpu.ErrInvalidArgument, "4 argument(s)", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, b, p, p) }},
		{"nil buffer", wgpu.ErrInvalidArgument, "argument 0", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), (*recorder.Buffer)(nil), b, p) }},
		{"nil arg", wgpu.ErrInvalidArgument, "argument 1", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, nil, p) }},
		{"released buffer", wgpu.ErrReleased, "argument 1", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, released, p) }},
		{"foreign buffer", wgpu.ErrForeignDevice, "argument 0", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), foreign, b, p) }},
		{"params to read-write storage", wgpu.ErrInvalidArgument, "argument 1", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, p, p) }},
		{"empty params", wgpu.ErrInvalidArgument, "Params of 0 bytes", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, b, recorder.Params{}) }},
		{"odd params", wgpu.ErrInvalidArgument, "Params of 3 bytes", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, b, recorder.Params{1, 2, 3}) }},
		{"usage conflict", wgpu.ErrInvalidArgument, "same resource", func() error { return s.Launch(k, recorder.Groups(1, 1, 1), a, a, p) }},
		{"zero groups", wgpu.ErrInvalidArgument, "workgroups=(0,1,1)", func() error { return s.Launch(k, recorder.Groups(0, 1, 1), a, b, p) }},
		{"over-limit groups", wgpu.ErrInvalidArgument, fmt.Sprintf("workgroups=(1,%d,1)", max+1), func() error { return s.Launch(k, recorder.Groups(1, max+1, 1), a, b, p) }},
		{"misaligned indirect", wgpu.ErrInvalidArgument, "indirect offset=2", func() error { return s.Launch(k, recorder.Indirect(ind, 2), a, b, p) }},
		{"short indirect", wgpu.ErrInvalidArgument, "indirect offset=8", func() error { return s.Launch(k, recorder.Indirect(ind, 8), a, b, p) }},
		{"nil indirect", wgpu.ErrInvalidArgument, "indirect buffer is nil", func() error { return s.Launch(k, recorder.Indirect(nil, 0), a, b, p) }},
		{"indirect written", wgpu.ErrInvalidArgument, "indirect buffer is also @group(0) @binding(1)", func() error { return s.Launch(k, recorder.Indirect(b, 0), a, b, p) }},
		{"write past end", wgpu.ErrInvalidArgument, "past the end", func() error { return s.Write(a, 60, make([]byte, 8)) }},
		{"misaligned write", wgpu.ErrInvalidArgument, "offset=2", func() error { return s.Write(a, 2, make([]byte, 4)) }},
		{"write released", wgpu.ErrReleased, "was released", func() error { return s.Write(released, 0, make([]byte, 4)) }},
		{"empty size 0", wgpu.ErrInvalidArgument, "size=0", func() error { _, err := s.Alloc(0); return err }},
		{"empty size 6", wgpu.ErrInvalidArgument, "size=6", func() error { _, err := s.Alloc(6); return err }},
		{"upload 3 bytes", wgpu.ErrInvalidArgument, "size=3", func() error { _, err := s.Upload([]byte{1, 2, 3}); return err }},
		{"read nil", wgpu.ErrInvalidArgument, "buffer is nil", func() error { _, err := s.Read(nil); return err }},
		{"read foreign", wgpu.ErrForeignDevice, "another device", func() error { _, err := s.Read(foreign); return err }},
	}
	for _, c := range cases {
		err := c.do()
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: want an error wrapping %v mentioning %q, got %v", c.name, c.err, c.msg, err)
		}
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("refused calls enqueue nothing, so nothing fails later: %v", err)
	}
	in := gputest.Upload(t, s, gputest.Fill(16, 1))
	gputest.WantEqual(t, "the stream still computes", gputest.Fill(16, 3), gputest.Read(t, s, gputest.MustChain(t, s, k, in, b, 2, 16)))
}

// TestConcurrentLaunchesFromManyGoroutines: a Stream serialises callers;
// each goroutine's chain must come out exact (run under -race).
func TestConcurrentLaunchesFromManyGoroutines(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := gputest.Fill(32, float32(100*g))
			a, err := recorder.UploadSlice(s, in)
			if err != nil {
				errs <- err
				return
			}
			b, _ := s.Alloc(a.Size())
			src, dst := a, b
			for range 40 {
				if err := s.Launch(k, recorder.Groups(1, 1, 1), src, dst, gputest.U32(32)); err != nil {
					errs <- err
					return
				}
				src, dst = dst, src
			}
			got, err := recorder.ReadSlice[float32](s, src)
			if err != nil {
				errs <- err
				return
			}
			if fmt.Sprint(got) != fmt.Sprint(gputest.Plus(in, 40)) {
				errs <- fmt.Errorf("goroutine %d: got %v", g, got[:4])
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestProfileMeasuresPositiveGPUTime: a profile around real work returns a
// positive duration and says how it was measured.
func TestProfileMeasuresPositiveGPUTime(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(1<<16, 0))
	b, _ := s.Alloc(a.Size())
	tok, err := s.StartProfile()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartProfile(); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Fatalf("a second profile on the stream must be refused, got %v", err)
	}
	gputest.MustChain(t, s, k, a, b, 20, 1<<16)
	p, err := s.EndProfile(tok)
	if err != nil {
		t.Fatal(err)
	}
	want := recorder.ProfileWallClock
	if d.Info().Timestamps {
		want = recorder.ProfileTimestamps
	}
	if p.GPU <= 0 || p.Method != want {
		t.Fatalf("profile %+v: want a positive duration measured by %v", p, want)
	}
	t.Logf("20 add-ones over 64k floats: %v by %v (%d passes)", p.GPU, p.Method, p.Passes)
	if _, err := s.EndProfile(tok); !errors.Is(err, wgpu.ErrInvalidArgument) {
		t.Fatalf("ending a profile twice must be refused, got %v", err)
	}
}

// TestProfileAfterBusyWorkTimesItsPasses: the submitter readies every
// encoder it finishes for a later batch (a pass begun ahead); a profile
// started after such batches must still begin its own timestamped passes,
// not record into the readied one and time nothing.
func TestProfileAfterBusyWorkTimesItsPasses(t *testing.T) {
	d, s := gputest.OpenStream(t)
	if !d.Info().Timestamps {
		t.Skip("the adapter has no timestamps")
	}
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Fill(1<<10, 0))
	b, _ := s.Alloc(a.Size())
	// Enough launches for several batches, so spare encoders come back
	// readied, twice over with a sync between.
	for range 2 {
		gputest.MustChain(t, s, k, a, b, 300, 1<<10)
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	tok, err := s.StartProfile()
	if err != nil {
		t.Fatal(err)
	}
	gputest.MustChain(t, s, k, a, b, 1200, 1<<10)
	p, err := s.EndProfile(tok)
	if err != nil {
		t.Fatal(err)
	}
	// 1200 launches span at least three batches (even a stalled stream's
	// batch holds at most 512), each its own timestamped pass; one timed
	// pass means the later batches recorded into readied passes, untimed.
	if p.Method != recorder.ProfileTimestamps || p.Passes < 2 || p.Truncated || p.GPU <= 0 {
		t.Fatalf("profile %+v: want every batch's pass timed and a positive duration", p)
	}
}

// TestClosedStreamRefusesEverything: after Close every call returns
// ErrClosed, buffers of the stream too, and Close is idempotent.
func TestClosedStreamRefusesEverything(t *testing.T) {
	d, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		t.Skip(err)
	}
	defer d.Close()
	s, err := recorder.New(d)
	if err != nil {
		t.Fatal(err)
	}
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a, _ := s.Alloc(64)
	b, _ := s.Alloc(64)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, e1 := s.Alloc(64)
	e2 := s.Launch(k, recorder.Groups(1, 1, 1), a, b, gputest.U32(1))
	_, e3 := s.Read(a)
	e4 := s.Sync()
	e5 := s.PrepareCapture()
	for i, err := range []error{e1, e2, e3, e4, e5} {
		if !errors.Is(err, wgpu.ErrClosed) {
			t.Errorf("call %d after Close: want ErrClosed, got %v", i, err)
		}
	}
	a.Release() // releasing after Close is harmless
	if live := live(t, d); live.Buffers != 0 || live.BindGroups != 0 || live.Encoders != 0 {
		t.Fatalf("Close releases every native object of the stream: %+v", live)
	}
}

func TestParamsOfPacksLittleEndianWords(t *testing.T) {
	gputest.WantEqual(t, "ParamsOf[uint32](1, 258)", recorder.Params{1, 0, 0, 0, 2, 1, 0, 0}, recorder.ParamsOf[uint32](1, 258))
	gputest.WantEqual(t, "ParamsOf[float32](1)", recorder.Params{0, 0, 0x80, 0x3f}, recorder.ParamsOf[float32](1))
}

// TestTrimGivesFreeMemoryBackAndKeepsLiveBuffers: Trim releases free pages
// (normal and persistent) and nothing a live buffer or graph holds.
func TestTrimGivesFreeMemoryBackAndKeepsLiveBuffers(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.ScaleWGSL)
	keep := gputest.Upload(t, s, gputest.Fill(64, 1))
	for range 4 {
		b, err := s.Alloc(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	g := gputest.Capture(t, s, func() {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), keep, gputest.F32(2)); err != nil {
			t.Fatal(err)
		}
	})
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	before := s.MemoryStats()
	freed, err := s.Trim()
	if err != nil {
		t.Fatal(err)
	}
	after := s.MemoryStats()
	if freed == 0 || freed != before.Free || after.Free != 0 || after.Reserved != before.Reserved-freed || after.InUse != before.InUse {
		t.Fatalf("Trim must release exactly the free memory: freed %d, before %+v, after %+v", freed, before, after)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "live buffers and graphs survive a trim (warmup ×2, replay ×2)", gputest.Fill(64, 4), gputest.Read(t, s, keep))
	if b, err := s.Alloc(1 << 20); err != nil || s.MemoryStats().Pages != after.Pages+1 {
		t.Fatalf("allocation after a trim grows the pool again: %v", err)
	} else {
		b.Release()
	}
}

// live counts the native objects alive on d.
func live(t testing.TB, d *wgpu.Device) driver.Live {
	t.Helper()
	drv, err := driver.Of(d)
	if err != nil {
		t.Fatal(err)
	}
	return drv.Live()
}

// TestDeprecatedNamesDoWhatTheirReplacementsDo: Empty is Alloc and
// GraphPrepare is PrepareCapture, refusals included, so code written
// against the old names keeps working unchanged.
func TestDeprecatedNamesDoWhatTheirReplacementsDo(t *testing.T) {
	_, s := gputest.OpenStream(t)
	b, err := s.Empty(64)
	if err != nil || b.Size() != 64 {
		t.Fatalf("Empty(64) = %v, %v; want a 64-byte buffer like Alloc(64)", b, err)
	}
	b.Release()
	_, oldErr := s.Empty(6)
	_, newErr := s.Alloc(6)
	if oldErr == nil || oldErr.Error() != newErr.Error() {
		t.Errorf("Empty(6) must be refused as Alloc(6) is: got %v, want %v", oldErr, newErr)
	}
	if err := s.GraphPrepare(); err != nil {
		t.Fatalf("GraphPrepare: %v", err)
	}
	if got := s.State(); got != lifecycle.Prepare {
		t.Errorf("GraphPrepare must move the stream to Prepare as PrepareCapture does; state %v", got)
	}
	oldErr = s.GraphPrepare()
	newErr = s.PrepareCapture()
	if oldErr == nil || oldErr.Error() != newErr.Error() {
		t.Errorf("a second GraphPrepare must be refused as PrepareCapture is: got %v, want %v", oldErr, newErr)
	}
	if err := s.AbortCapture(); err != nil {
		t.Fatal(err)
	}
}
