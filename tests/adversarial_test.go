package tests

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/softgraph/softgraph/lifecycle"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// This file holds one test per failure issue 12 found by using the public
// API as an adversary would (items 6 and 7, the waits on long GPU work, are
// in waits_test.go). Each is named as the sentence of the contract it
// checks, says in its comment what broke without the fix, and runs in a
// fresh process where the failure used to abort the process, so that a
// regression is reported as this test's failure, not as the death of the
// suite.

// syncLog is a goroutine-safe log sink: a stream logging at debug level
// into one lets a test fail on what the library only logs (a reference
// count that would have gone below zero).
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *syncLog) logger() zerolog.Logger { return zerolog.New(l).Level(zerolog.DebugLevel) }

// Issue 12, item 1.
//
// TestClosingAStreamFreesNothingAnotherStreamOrGraphStillUses: memory of a
// closed stream stays alive while another stream's unsubmitted batch binds
// it and reads indirect counts from it, while another stream's graph binds
// it (as a binding and as indirect counts), and while a graph rebound onto
// it replays; those compute exactly after the Close, new uses of the closed
// stream's buffers are refused with ErrClosed, and Device.Close afterwards
// does not abort (fresh process, which then opens a device and computes).
// Without it, pool.close ignored reference counts and the indirect source
// was held by raw handle: the next pass end, Sync, Replay or Device.Close
// aborted with wgpu's "Buffer does not exist".
func TestClosingAStreamFreesNothingAnotherStreamOrGraphStillUses(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		d := gputest.Open(t, wgpu.Options{})
		k := gputest.Kernel(t, d, gputest.AddOneWGSL)
		a := gputest.Stream(t, d, recorder.WithFlushDelay(0))
		b := gputest.Stream(t, d, recorder.WithFlushDelay(0))
		x := gputest.Upload(t, a, gputest.Ramp(64, 0))
		x2 := gputest.Upload(t, a, gputest.Ramp(64, 100))
		ind, err := a.Upload(gputest.U32(1, 1, 1))
		if err != nil {
			t.Fatal(err)
		}
		// b's open batch binds x and reads its counts from ind: encoded, not
		// submitted (no timer, first chunk not reached).
		y1 := gputest.Empty(t, b, x.Size())
		if err := b.Launch(k, recorder.Indirect(ind, 0), x, y1, gputest.U32(64)); err != nil {
			t.Fatal(err)
		}
		// b's graph binds x and reads ind; its rebinding binds x2 instead.
		y2 := gputest.Empty(t, b, x.Size())
		g := gputest.Capture(t, b, func() {
			if err := b.Launch(k, recorder.Indirect(ind, 0), x, y2, gputest.U32(64)); err != nil {
				t.Fatal(err)
			}
		})
		g2, err := g.Rebind(x, x2)
		if err != nil {
			t.Fatalf("Rebind onto another stream's live buffer: %v", err)
		}
		defer g2.Release()

		if err := a.Close(); err != nil {
			t.Fatalf("closing the stream that owns the memory: %v", err)
		}
		gputest.WantErr(t, "a closed stream's buffer answers ErrClosed to new uses",
			b.Launch(k, recorder.Indirect(ind, 0), x, y1, gputest.U32(64)), []error{wgpu.ErrClosed}, "closed stream")
		if err := b.Sync(); err != nil {
			t.Fatalf("the batch enqueued before the Close must submit and run: %v", err)
		}
		gputest.WantEqual(t, "b's batch read the closed stream's memory and counts", gputest.Ramp(64, 1), gputest.Read(t, b, y1))
		if err := g.Replay(); err != nil {
			t.Fatalf("a graph pinning a closed stream's memory replays: %v", err)
		}
		gputest.WantEqual(t, "the graph read the closed stream's memory and counts", gputest.Ramp(64, 1), gputest.Read(t, b, y2))
		if err := g2.Replay(); err != nil {
			t.Fatalf("the rebound graph replays: %v", err)
		}
		gputest.WantEqual(t, "the rebound graph read the closed stream's other buffer", gputest.Ramp(64, 101), gputest.Read(t, b, y2))
		g.Release()
		g2.Release()
		if err := b.Close(); err != nil {
			t.Fatalf("closing the last user: %v", err)
		}
		if err := within(t, 30*time.Second, "Device.Close", d.Close); err != nil {
			t.Fatalf("Device.Close after the streams let go: %v", err)
		}
	})
}

// Issue 12, item 17.
//
// TestRebindingALiveBufferWorksWhileTheDispatchAlsoBindsAClosedStreamsBuffer:
// a graph whose dispatch binds a closed stream's buffer (which the graph
// keeps alive and replays fine) can still rebind its other, live buffer;
// the rebound graph computes from the closed stream's memory into the new
// buffer, and the original graph is unchanged. Without it, Rebind
// re-checked every binding of the dispatch and refused the live buffer as
// "object released".
func TestRebindingALiveBufferWorksWhileTheDispatchAlsoBindsAClosedStreamsBuffer(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Stream(t, d)
	b := gputest.Stream(t, d)
	x := gputest.Upload(t, a, gputest.Ramp(64, 10))
	y := gputest.Empty(t, b, x.Size())
	y3 := gputest.Empty(t, b, x.Size())
	g := gputest.Capture(t, b, func() {
		if err := b.Launch(k, recorder.Groups(1, 1, 1), x, y, gputest.U32(64)); err != nil {
			t.Fatal(err)
		}
	})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	g3, err := g.Rebind(y, y3)
	if err != nil {
		t.Fatalf("rebinding a live buffer of a dispatch that also binds a closed stream's buffer must succeed: %v", err)
	}
	defer g3.Release()
	if err := b.Write(y, 0, make([]byte, y.Size())); err != nil {
		t.Fatal(err)
	}
	if err := g3.Replay(); err != nil {
		t.Fatalf("the rebound graph replays: %v", err)
	}
	gputest.WantEqual(t, "the rebound graph wrote the new buffer from the closed stream's memory", gputest.Ramp(64, 11), gputest.Read(t, b, y3))
	gputest.WantEqual(t, "the rebound graph left the old buffer alone", gputest.Fill(64, 0), gputest.Read(t, b, y))
	if err := g.Replay(); err != nil {
		t.Fatalf("the original graph stays valid after Rebind: %v", err)
	}
	gputest.WantEqual(t, "the original graph still writes the old buffer", gputest.Ramp(64, 11), gputest.Read(t, b, y))
}

// Issue 12, item 2.
//
// TestConcurrentClosesOfADeviceAndItsStreamsFinishBeforeTheyReturn: two
// Device.Close calls, two Close calls of a stream with work in flight, a
// stream being created and a Sync, all at once, round after round (every
// other round only Device.Close against one Close of a stream that
// captured a graph, the pairing that broke most often): every call returns
// nil or an error wrapping ErrClosed, nothing hangs or aborts, and the next
// device opened after each round computes (fresh process).
// Without it both Device.Close calls proceeded, a second Stream.Close
// returned while the first was still releasing (so Device.Close dropped the
// device under it), and a stream made during Device.Close missed its
// snapshot: "Attempt to use a resource with a different device" at the
// next device's first submit, or "BindGroup does not exist" inside Close.
func TestConcurrentClosesOfADeviceAndItsStreamsFinishBeforeTheyReturn(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		for round := range 12 {
			full := round%2 == 0
			d := gputest.Open(t, wgpu.Options{})
			k := gputest.Kernel(t, d, gputest.AddOneWGSL)
			var streams []*recorder.Stream
			for range 2 {
				s, err := recorder.New(d, recorder.WithFlushDelay(0))
				if err != nil {
					t.Fatal(err)
				}
				streams = append(streams, s)
				a := gputest.Upload(t, s, gputest.Fill(64, 0))
				b := gputest.Empty(t, s, a.Size())
				g := gputest.Capture(t, s, func() {
					if err := gputest.Chain(s, k, a, b, 2, 64); err != nil {
						t.Fatal(err)
					}
				})
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
				if err := gputest.Chain(s, k, a, b, 4, 64); err != nil { // left unsubmitted
					t.Fatal(err)
				}
			}
			var errs collect
			var wg sync.WaitGroup
			start := make(chan struct{})
			run := func(name string, f func() error) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					if err := f(); err != nil && !errors.Is(err, wgpu.ErrClosed) {
						errs.add(fmt.Errorf("round %d: %s racing the closes: want nil or ErrClosed, got %v", round, name, err))
					}
				}()
			}
			run("Device.Close", d.Close)
			run("Stream.Close", streams[0].Close)
			if full {
				run("Device.Close (second)", d.Close)
				run("Stream.Close (second)", streams[0].Close)
				run("Stream.Sync", streams[1].Sync)
			}
			run("recorder.New, Launch, Close", func() error {
				if !full {
					return nil
				}
				s, err := recorder.New(d)
				if err != nil {
					return err
				}
				defer s.Close()
				x, err := recorder.UploadSlice(s, gputest.Fill(64, 0))
				if err != nil {
					return err
				}
				y, err := s.Empty(x.Size())
				if err != nil {
					return err
				}
				return gputest.Chain(s, k, x, y, 2, 64)
			})
			close(start)
			waitAll(t, &wg, time.Minute, "closes racing each other")
			errs.report(t)
			if t.Failed() {
				return
			}
			for i, s := range streams {
				if err := within(t, 30*time.Second, "Stream.Close", s.Close); err != nil && !errors.Is(err, wgpu.ErrClosed) {
					t.Fatalf("round %d: stream %d: Close after the device's Close returns nil or ErrClosed, got %v", round, i, err)
				}
			}
			gputest.WantErr(t, "a Device.Close that returned has closed the device", d.Err(), []error{wgpu.ErrClosed})

			// The next device must not meet what the round left behind.
			nd, ns := gputest.OpenStream(t)
			nk := gputest.Kernel(t, nd, gputest.AddOneWGSL)
			a := gputest.Upload(t, ns, gputest.Fill(64, 1))
			b := gputest.Empty(t, ns, a.Size())
			gputest.WantEqual(t, fmt.Sprintf("round %d: the next device computes", round), gputest.Fill(64, 3), gputest.Read(t, ns, gputest.MustChain(t, ns, nk, a, b, 2, 64)))
			if err := ns.Close(); err != nil {
				t.Fatal(err)
			}
			if err := nd.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// Issue 12, item 2 (the stream half).
//
// TestASecondStreamCloseReturnsOnlyOnceTheFirstHasReleasedEverything: two
// Close calls of one stream racing each other both return only once the
// stream's native objects (encoder, pages, bind groups, programs, staging
// and query buffers) are released: whichever returns first, the device's
// live objects are back where they were before the stream was made.
// Without it the second Close returned at once while the first was still
// releasing, and a Device.Close after it dropped the device under the
// first.
func TestASecondStreamCloseReturnsOnlyOnceTheFirstHasReleasedEverything(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	before := live(t, d)
	for round := range 20 {
		s, err := recorder.New(d)
		if err != nil {
			t.Fatal(err)
		}
		a := gputest.Upload(t, s, gputest.Ramp(256, 0))
		b := gputest.Empty(t, s, a.Size())
		g := gputest.Capture(t, s, func() {
			if err := gputest.Chain(s, k, a, b, 4, 256); err != nil {
				t.Fatal(err)
			}
		})
		for range 8 {
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Read(a); err != nil { // a staging buffer too
			t.Fatal(err)
		}
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var errs collect
		start := make(chan struct{})
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if err := s.Close(); err != nil {
					errs.add(fmt.Errorf("round %d: Close %d: %v", round, i, err))
					return
				}
				if n := live(t, d); n != before {
					errs.add(fmt.Errorf("round %d: a Close returned while the stream still held native objects: live %+v, want %+v as before the stream", round, n, before))
				}
			}()
		}
		close(start)
		waitAll(t, &wg, time.Minute, "two Closes of one stream")
		errs.report(t)
		if t.Failed() {
			return
		}
	}
}

// Issue 12, item 3.
//
// TestReleaseRacingALaunchNeverHandsOnePageToTwoBuffers: a Buffer released
// while another goroutine launches with it either makes the launch fail
// with ErrReleased or lets it run on the old contents; its memory is never
// handed to a new Buffer while the launch's batch still holds it, so the
// launch reads 1 (never the new buffer's 3), the new buffer keeps 3, and
// no page reference count is ever dropped twice (the pool logs that at
// debug level; the test fails on it). Runs in a fresh process. Without it,
// Launch checked "released" before taking the stream lock and the page
// reference under it: a Release in that gap put the page on the free list
// while a batch held it, two live Buffers shared it (x read 3, want 1) and
// then "page reference count below zero" panicked.
func TestReleaseRacingALaunchNeverHandsOnePageToTwoBuffers(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		var logs syncLog
		d := gputest.Open(t, wgpu.Options{})
		s := gputest.Stream(t, d, recorder.WithLogger(logs.logger()), recorder.WithFlushDelay(0))
		k := gputest.Kernel(t, d, gputest.CopyWGSL)
		launched, refused := 0, 0
		for round := range 300 {
			x := gputest.Upload(t, s, gputest.Fill(16, 1))
			out := gputest.Upload(t, s, gputest.Fill(16, 0))
			var launchErr error
			var wg sync.WaitGroup
			start := make(chan struct{})
			wg.Add(2)
			go func() { defer wg.Done(); <-start; launchErr = s.Launch(k, recorder.Groups(1, 1, 1), x, out) }()
			go func() {
				defer wg.Done()
				<-start
				if round%2 == 1 {
					runtime.Gosched()
				}
				x.Release()
			}()
			close(start)
			wg.Wait()
			// Same size, same class: handed x's page if it went back to the
			// free list too early.
			z := gputest.Upload(t, s, gputest.Fill(16, 3))
			want := gputest.Fill(16, 1)
			switch {
			case launchErr == nil:
				launched++
			case errors.Is(launchErr, wgpu.ErrReleased):
				refused++
				want = gputest.Fill(16, 0)
			default:
				t.Fatalf("round %d: a launch racing Release returns nil or ErrReleased, got %v", round, launchErr)
			}
			gputest.WantEqual(t, fmt.Sprintf("round %d: the launch racing Release read the released buffer's contents, never the new buffer's", round), want, gputest.Read(t, s, out))
			gputest.WantEqual(t, fmt.Sprintf("round %d: the buffer allocated after the Release keeps its own contents", round), gputest.Fill(16, 3), gputest.Read(t, s, z))
			out.Release()
			z.Release()
		}
		t.Logf("300 rounds: %d launches ran, %d were refused as released", launched, refused)
		if strings.Contains(logs.String(), "below zero") {
			t.Fatalf("a page reference was dropped twice:\n%s", grepLines(logs.String(), "below zero"))
		}
	})
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Issue 12, item 4.
//
// TestProfileReplayRacingEndProfileReturnsAnErrorNeverPanics: ProfileReplay
// on one goroutine and StartProfile/EndProfile on another, over and over on
// one stream: each call returns nil or an error wrapping
// ErrInvalidArgument (the other profile is running), never panics (fresh
// process). Without it ProfileReplay read s.prof.id after unlocking the
// stream and dereferenced nil when EndProfile had just cleared it.
func TestProfileReplayRacingEndProfileReturnsAnErrorNeverPanics(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		k := gputest.Kernel(t, d, gputest.AddConstWGSL)
		x := gputest.Upload(t, s, gputest.Fill(64, 0))
		g := gputest.Capture(t, s, func() {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
				t.Fatal(err)
			}
		})
		var errs collect
		var wg sync.WaitGroup
		const rounds = 200
		ok := map[string]int{}
		var mu sync.Mutex
		count := func(what string) { mu.Lock(); ok[what]++; mu.Unlock() }
		check := func(what string, err error) {
			if err == nil {
				count(what)
				return
			}
			if !errors.Is(err, wgpu.ErrInvalidArgument) || !strings.Contains(err.Error(), "profile") {
				errs.add(fmt.Errorf("%s racing another profile: want nil or ErrInvalidArgument naming the running profile, got %v", what, err))
			}
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range rounds {
				_, err := s.ProfileReplay(g)
				check("ProfileReplay", err)
			}
		}()
		go func() {
			defer wg.Done()
			for range rounds {
				tok, err := s.StartProfile()
				check("StartProfile", err)
				if err == nil {
					_, err = s.EndProfile(tok)
					check("EndProfile", err)
				}
			}
		}()
		waitAll(t, &wg, 2*time.Minute, "ProfileReplay racing StartProfile/EndProfile")
		errs.report(t)
		t.Logf("succeeded: %v", ok)
		// Every ProfileReplay that returned nil ran the graph once; the
		// warmup ran it once more.
		gputest.WantEqual(t, "every successful ProfileReplay ran the graph once", gputest.Fill(64, float32(1+ok["ProfileReplay"])), gputest.Read(t, s, x))
	})
}

// Issue 12, item 5.
//
// TestAKernelOverTheWorkgroupStorageLimitIsRefusedAtKernel: a kernel whose
// var<workgroup> exceeds the device's maxComputeWorkgroupStorageSize is
// refused by Device.Kernel with a *wgpu.CompileError (wrapping ErrCompile)
// naming the limit, and nothing is cached; one exactly at the limit
// compiles, launches and computes, and the device stays usable. Without
// it the kernel compiled and launched, and on the H200 the device was lost
// and the next submit aborted with "Parent device is lost" (lavapipe ran
// it silently; GL refused it at Kernel).
func TestAKernelOverTheWorkgroupStorageLimitIsRefusedAtKernel(t *testing.T) {
	d, s := gputest.OpenStream(t)
	limit := d.Info().Limits.MaxComputeWorkgroupStorageSize
	src := func(floats uint32) string {
		return fmt.Sprintf(`
var<workgroup> big: array<f32, %d>;
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
	big[lid.x] = a[lid.x] + 1.0;
	workgroupBarrier();
	a[lid.x] = big[63u - lid.x];
}
`, floats)
	}
	before := live(t, d).Kernels
	_, err := d.Kernel(src(limit/4+1), "main")
	gputest.WantErr(t, "a kernel over maxComputeWorkgroupStorageSize is refused at Kernel", err,
		[]error{wgpu.ErrCompile}, "var<workgroup>", "maxComputeWorkgroupStorageSize", fmt.Sprint(limit))
	var ce *wgpu.CompileError
	if !errors.As(err, &ce) || ce.Entry != "main" {
		t.Fatalf("the refusal must be a *wgpu.CompileError for entry main, got %T %v", err, err)
	}
	if n := live(t, d).Kernels; n != before {
		t.Fatalf("a refused kernel must leave nothing behind: %d live kernels, was %d", n, before)
	}
	if err := d.Err(); err != nil {
		t.Fatalf("a refused kernel leaves the device usable: %v", err)
	}
	k, err := d.Kernel(src(limit/4), "main")
	if err != nil {
		t.Fatalf("a kernel exactly at maxComputeWorkgroupStorageSize (%d bytes) must compile: %v", limit, err)
	}
	if runtime.GOOS == "windows" && d.Info().Backend == wgpu.BackendGL {
		// Under wine (CI's Windows leg) this launch never returns from
		// the GL driver: the submit hung for five minutes in two runs out
		// of two, while Linux's GL runs it in milliseconds. Real Windows GL
		// drivers are untested; the refusal above is what this test is for.
		t.Skip("Windows GL: the kernel at the workgroup storage limit compiled; its launch is not run (it hangs the GL driver under wine)")
	}
	a := gputest.Upload(t, s, gputest.Ramp(64, 0))
	if err := s.Launch(k, recorder.Groups(1, 1, 1), a); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, 64)
	for i := range want {
		want[i] = float32(63-i) + 1
	}
	gputest.WantEqual(t, "the kernel at the limit computes (reversed, plus one)", want, gputest.Read(t, s, a))
}

// Issue 12, item 8.
//
// TestAWriteNeverOvertakesItsStreamsEarlierLaunchAfterAnotherStreamUsedTheBuffer:
// A.Launch reads x, B.Launch reads x, A.Write(x = 2), all before anything
// is submitted: A's launch sees x = 1, the value before A's write, however
// many streams used x in between. Without it, one "last touched" token per
// page said only B's batch held x, A did not submit first, and the queue
// write overtook A's launch (it read 2).
func TestAWriteNeverOvertakesItsStreamsEarlierLaunchAfterAnotherStreamUsedTheBuffer(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, gputest.CopyWGSL)
	for _, delay := range []time.Duration{0, time.Millisecond} {
		t.Run(fmt.Sprint("flush delay ", delay), func(t *testing.T) {
			a := gputest.Stream(t, d, recorder.WithFlushDelay(delay))
			b := gputest.Stream(t, d, recorder.WithFlushDelay(delay))
			x := gputest.Upload(t, a, gputest.Fill(64, 1))
			ya := gputest.Empty(t, a, x.Size())
			yb := gputest.Empty(t, b, x.Size())
			if err := a.Launch(k, recorder.Groups(1, 1, 1), x, ya); err != nil {
				t.Fatal(err)
			}
			if err := b.Launch(k, recorder.Groups(1, 1, 1), x, yb); err != nil {
				t.Fatal(err)
			}
			if err := recorder.WriteSlice(a, x, 0, gputest.Fill(64, 2)); err != nil {
				t.Fatal(err)
			}
			if err := b.Sync(); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, "A's launch, enqueued before A's write, reads the old contents", gputest.Fill(64, 1), gputest.Read(t, a, ya))
			gputest.WantEqual(t, "work after the write reads the new contents", gputest.Fill(64, 2), gputest.Read(t, a, x))
		})
	}
}

// Issue 12, item 9.
//
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

// Issue 12, item 10.
//
// TestProfileReplayRacingReleaseReturnsAProfileOnlyOfAReplayThatRan: a
// ProfileReplay racing the graph's Release returns nil only when the
// replay ran, and otherwise an error wrapping ErrReleased: the buffer the
// graph increments ends up exactly at warmups + successful ProfileReplays.
// Without it, on GL (no timestamps), ProfileReplay once returned nil with a
// wall-clock profile of a replay that never ran.
func TestProfileReplayRacingReleaseReturnsAProfileOnlyOfAReplayThatRan(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	want, ran, refused := float32(0), 0, 0
	for round := range 100 {
		g := gputest.Capture(t, s, func() {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
				t.Fatal(err)
			}
		})
		want++ // the warmup
		var profErr error
		var prof recorder.ReplayProfile
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() { defer wg.Done(); <-start; prof, profErr = s.ProfileReplay(g) }()
		go func() {
			defer wg.Done()
			<-start
			if round%2 == 0 {
				runtime.Gosched()
			}
			g.Release()
		}()
		close(start)
		wg.Wait()
		switch {
		case profErr == nil:
			ran++
			want++
			if prof.Method == 0 {
				t.Fatalf("round %d: a successful ProfileReplay says how it measured", round)
			}
		case errors.Is(profErr, wgpu.ErrReleased):
			refused++
		default:
			t.Fatalf("round %d: ProfileReplay racing Release returns nil or ErrReleased, got %v", round, profErr)
		}
		gputest.WantEqual(t, fmt.Sprintf("round %d: the buffer counts the warmups and the ProfileReplays that returned nil (%d ran, %d refused so far)", round, ran, refused),
			gputest.Fill(64, want), gputest.Read(t, s, x))
	}
	t.Logf("100 rounds (%v): %d profiled replays ran, %d were refused as released", d.Info(), ran, refused)
}

// Issue 12, item 11.
//
// TestKernelReleaseFreesTheKernelAndDropsItFromTheCache: Kernel.Release
// frees the kernel's native objects (the driver's live kernel count goes
// back down once the work using them is done), drops it from the device's
// cache (compiling the same source again makes a new kernel, which works),
// and makes launches with the released *Kernel fail with ErrReleased.
// Without it the kernel cache only grew: 5000 distinct kernels cost 478 MB
// of RSS, with no way to give any of it back.
func TestKernelReleaseFreesTheKernelAndDropsItFromTheCache(t *testing.T) {
	d, s := gputest.OpenStream(t)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	const n = 50
	before := live(t, d).Kernels
	src := func(i int) string { return fmt.Sprintf("%s// kernel %d\n", gputest.AddConstWGSL, i) }
	var ks []*wgpu.Kernel
	for i := range n {
		k := gputest.Kernel(t, d, src(i))
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
			t.Fatal(err)
		}
		ks = append(ks, k)
	}
	if got := live(t, d).Kernels; got != before+n {
		t.Fatalf("%d distinct kernels: live kernels %d, want %d", n, got, before+n)
	}
	for _, k := range ks {
		k.Release()
		k.Release() // idempotent
	}
	if err := s.Sync(); err != nil {
		t.Fatalf("work enqueued with a kernel released afterwards still runs: %v", err)
	}
	gputest.WantEqual(t, "every launch ran", gputest.Fill(64, n), gputest.Read(t, s, x))
	if got := live(t, d).Kernels; got != before {
		t.Fatalf("Kernel.Release must free the kernel once its work is done: live kernels %d, want %d", got, before)
	}
	gputest.WantErr(t, "a released kernel refuses launches", s.Launch(ks[0], recorder.Groups(1, 1, 1), x, gputest.F32(1)),
		[]error{wgpu.ErrReleased}, "Launch")
	k := gputest.Kernel(t, d, src(0))
	if k == ks[0] || k.Released() {
		t.Fatalf("Release must drop the kernel from the cache: compiling its source again must make a new, live kernel")
	}
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the recompiled kernel works", gputest.Fill(64, n+1), gputest.Read(t, s, x))
}

// paramsOfSize is a Params blob of size bytes whose first float is c and
// whose rest is filled with a tag, so blobs of one size still differ.
func paramsOfSize(size int, c float32, tag uint32) recorder.Params {
	p := make(recorder.Params, size)
	binary.LittleEndian.PutUint32(p, math.Float32bits(c))
	for off := 4; off+4 <= size; off += 4 {
		binary.LittleEndian.PutUint32(p[off:], tag)
	}
	return p
}

// Issue 12, item 12.
//
// TestTrimGivesBackParamsPagesOnceNothingUsesThem: params blobs of many
// distinct sizes share uniform pages by size class (the cache does not grow
// a page per size), and Trim gives every params page back once nothing
// uses them: after an eager run of 64 sizes, and after a graph that pinned
// hundreds of distinct blobs is released. Without it params pages grew
// with every new size (8.7 MB after 64 sizes although entries stayed at
// 512) and 19 MiB of them stayed after the pinning graph was released and
// Trim ran.
func TestTrimGivesBackParamsPagesOnceNothingUsesThem(t *testing.T) {
	d, s := gputest.OpenStream(t, recorder.WithMetadataCache(8))
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	const sizes = 64
	for i := 1; i <= sizes; i++ {
		if err := s.Launch(k, recorder.Groups(1, 1, 1), x, paramsOfSize(16*i, 1, uint32(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	m := s.MemoryStats()
	t.Logf("after %d params sizes: %s, %d entries", sizes, m, m.ParamsEntries)
	// Sizes 16..1024 bytes fall in a handful of power-of-two classes; a
	// page per class (64 KiB) is the most the cache may keep, never a page
	// per size.
	if limit := uint64(8 * 64 << 10); m.Params > limit {
		t.Fatalf("params of %d sizes must share pages by size class: %d bytes of params pages, want at most %d", sizes, m.Params, limit)
	}
	if _, err := s.Trim(); err != nil {
		t.Fatal(err)
	}
	if m := s.MemoryStats(); m.Params != 0 || m.ParamsEntries != 0 {
		t.Fatalf("Trim with nothing using the params cache gives every params page back: %d bytes, %d entries left", m.Params, m.ParamsEntries)
	}
	gputest.WantEqual(t, "every launch ran", gputest.Fill(64, sizes), gputest.Read(t, s, x))

	const blobs = 300
	g := gputest.Capture(t, s, func() {
		for i := range blobs {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, paramsOfSize(16*(1+i%64), 0, uint32(1000+i))); err != nil {
				t.Fatal(err)
			}
		}
	})
	pinned := s.MemoryStats()
	if pinned.Params == 0 || pinned.ParamsEntries < blobs {
		t.Fatalf("the graph pins its %d params blobs: %d bytes, %d entries", blobs, pinned.Params, pinned.ParamsEntries)
	}
	if _, err := s.Trim(); err != nil {
		t.Fatal(err)
	}
	if got := s.MemoryStats().ParamsEntries; got < blobs {
		t.Fatalf("Trim must not drop params a live graph pins: %d entries left, the graph uses %d", got, blobs)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	g.Release()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Trim(); err != nil {
		t.Fatal(err)
	}
	if m := s.MemoryStats(); m.Params != 0 || m.ParamsEntries != 0 {
		t.Fatalf("after the pinning graph is released, Trim gives its params pages back: %d bytes (%d while pinned), %d entries left", m.Params, pinned.Params, m.ParamsEntries)
	}
	gputest.WantEqual(t, "params values survived the trims (c = 0 throughout the graph)", gputest.Fill(64, sizes), gputest.Read(t, s, x))
}

// Issue 12, item 13.
//
// TestAbortCaptureFromPrepareThenTrimReclaimsTheWarmupsMemory: 300
// Empty(1 MiB) + Release in Prepare reserve 300 MiB (priming holds every
// page until BeginCapture: the documented cost); AbortCapture leaves
// Prepare without capturing, and Trim then gives all of it back. Inside
// the recording window an allocation released unbound is reused, so the
// same loop there reserves one page, not 300. Without it there was no way
// out of Prepare but capturing, persistent pages were never reused, and the
// 300 MiB stayed reserved.
func TestAbortCaptureFromPrepareThenTrimReclaimsTheWarmupsMemory(t *testing.T) {
	d, s := gputest.OpenStream(t)
	const n, size = 300, 1 << 20
	if _, err := s.Trim(); err != nil {
		t.Fatal(err)
	}
	base := s.MemoryStats().Reserved
	churn := func() {
		for range n {
			b := gputest.Empty(t, s, size)
			b.Release()
		}
	}
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	churn()
	primed := s.MemoryStats()
	t.Logf("after %d × Empty(1 MiB) + Release in Prepare: %s", n, primed)
	if err := s.AbortCapture(); err != nil {
		t.Fatalf("AbortCapture from Prepare: %v", err)
	}
	wantState(t, "AbortCapture leaves Prepare", s, lifecycle.NoCapture)
	if _, err := s.Trim(); err != nil {
		t.Fatalf("Trim after AbortCapture: %v", err)
	}
	if m := s.MemoryStats(); m.Reserved > base || m.Persistent != 0 {
		t.Fatalf("AbortCapture then Trim must give back the warmup's memory: reserved %d (was %d before Prepare, %d primed), persistent %d", m.Reserved, base, primed.Reserved, m.Persistent)
	}

	// In the window a released, unbound page is reused at once.
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	if err := s.GraphPrepare(); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	atBegin := s.MemoryStats().Reserved
	churn()
	if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
		t.Fatal(err)
	}
	if grew := s.MemoryStats().Reserved - atBegin; grew > size {
		t.Fatalf("%d × Empty + Release of unbound buffers while recording must reuse one page: reserved grew by %d bytes", n, grew)
	}
	g, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "the stream computes after the aborted capture", gputest.Fill(64, 1), gputest.Read(t, s, x))
}

// Issue 12, item 14.
//
// TestEveryCaptureFailureEndsInNoCapture: Capture whose step misuses the
// lifecycle (calls BeginCapture, EndCapture, GraphPrepare, AbortCapture or
// Sync itself, in the warmup or in the recorded run) or returns an error
// fails with an error wrapping the cause, returns no graph, leaves the
// stream in NoCapture with no graph kept, and the stream then syncs,
// computes and captures. Without it a step calling BeginCapture made
// Capture fail but left the stream in Capture, where Sync was refused from
// then on.
func TestEveryCaptureFailureEndsInNoCapture(t *testing.T) {
	d, s := gputest.OpenStream(t)
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	errStep := errors.New("step failed")
	launch := func() error { return s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)) }
	cases := []struct {
		name string
		step func(run int) error // run 0: warmup, 1: recorded
		is   error
	}{
		{"step calls BeginCapture in the warmup", func(run int) error {
			if run == 0 {
				_ = s.BeginCapture()
			}
			return launch()
		}, lifecycle.ErrGraphState},
		{"step calls BeginCapture while recording", func(run int) error {
			if run == 1 {
				if err := s.BeginCapture(); err != nil {
					return err
				}
			}
			return launch()
		}, lifecycle.ErrGraphState},
		{"step calls EndCapture while recording", func(run int) error {
			if err := launch(); err != nil {
				return err
			}
			if run == 1 {
				g, err := s.EndCapture()
				if g != nil {
					g.Release()
				}
				return err
			}
			return nil
		}, lifecycle.ErrGraphState},
		{"step calls GraphPrepare", func(int) error {
			if err := s.GraphPrepare(); err != nil {
				return err
			}
			return launch()
		}, lifecycle.ErrGraphState},
		{"step calls AbortCapture while recording", func(run int) error {
			if run == 1 {
				_ = s.AbortCapture()
			}
			return launch()
		}, lifecycle.ErrGraphState},
		{"step calls Sync while recording", func(run int) error {
			if err := launch(); err != nil {
				return err
			}
			return s.Sync()
		}, lifecycle.ErrGraphState},
		{"step fails in the warmup", func(run int) error {
			if run == 0 {
				return errStep
			}
			return launch()
		}, errStep},
		{"step fails while recording", func(run int) error {
			if run == 1 {
				return errStep
			}
			return launch()
		}, errStep},
	}
	want := float32(0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := 0
			g, err := s.Capture(func() error {
				defer func() { run++ }()
				return c.step(run)
			})
			if g != nil {
				g.Release()
				t.Fatalf("a failed Capture returns no graph (err %v)", err)
			}
			gputest.WantErr(t, "Capture fails with the cause", err, []error{c.is})
			wantState(t, "every Capture failure ends in NoCapture", s, lifecycle.NoCapture)
			if n := s.MemoryStats().Graphs; n != 0 {
				t.Fatalf("a failed Capture keeps no graph: %d live", n)
			}
			if err := s.Sync(); err != nil {
				t.Fatalf("the stream syncs after the failed Capture: %v", err)
			}
			got := gputest.Read(t, s, x)
			want = got[0] // how many launches executed is the step's business
			if err := launch(); err != nil {
				t.Fatalf("the stream launches after the failed Capture: %v", err)
			}
			want++
			g, err = s.Capture(launch)
			if err != nil {
				t.Fatalf("the stream captures after the failed Capture: %v", err)
			}
			want++ // the warmup
			if err := g.Replay(); err != nil {
				t.Fatal(err)
			}
			g.Release()
			want++
			gputest.WantEqual(t, "the stream computes after the failed Capture", gputest.Fill(64, want), gputest.Read(t, s, x))
		})
	}
}

// Issue 12, item 15.
//
// TestDeferredErrorCountsEveryDispatchLostWithTheBatch: with pre-encoding
// off, a batch holding one eager launch and one replay of a 5-dispatch
// graph that the device refuses (faulty fails its command buffer) reports a
// Flush *DeferredError with Lost = 6, and none of the 6 dispatches ran.
// Without it the replay's 5 dispatches were dropped with the batch but
// Lost said 1.
func TestDeferredErrorCountsEveryDispatchLostWithTheBatch(t *testing.T) {
	d, s, f := faultyStream(t, recorder.WithPreEncode(false))
	k := gputest.Kernel(t, d, gputest.AddConstWGSL)
	x := gputest.Upload(t, s, gputest.Fill(64, 0))
	y := gputest.Upload(t, s, gputest.Fill(64, 0))
	g := gputest.Capture(t, s, func() {
		for range 5 {
			if err := s.Launch(k, recorder.Groups(1, 1, 1), x, gputest.F32(1)); err != nil {
				t.Fatal(err)
			}
		}
	})
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	f.FailFinishes(1)
	if err := s.Launch(k, recorder.Groups(1, 1, 1), y, gputest.F32(1)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	err := s.Sync()
	var de *recorder.DeferredError
	if !errors.As(err, &de) || de.Op != "Flush" || !errors.Is(err, wgpu.ErrValidation) {
		t.Fatalf("the refused batch is reported as a Flush *recorder.DeferredError wrapping the validation error, got %T %v", err, err)
	}
	if de.Lost != 6 {
		t.Fatalf("Lost counts every dispatch dropped with the batch, the replay's 5 included: got %d, want 6", de.Lost)
	}
	gputest.WantEqual(t, "the replay's dispatches were lost (the warmup's 5 ran)", gputest.Fill(64, 5), gputest.Read(t, s, x))
	gputest.WantEqual(t, "the eager launch was lost", gputest.Fill(64, 0), gputest.Read(t, s, y))
}

// Issue 12, item 16.
//
// TestABufferNearMaxBufferSizeReadsBackOrIsRefusedAtOnce: Empty of the
// largest size maxBufferSize allows that is not a pool size class either
// fails at once with a typed error, or returns a buffer that Write and Read
// then handle whole (the staging buffer's size class is clamped to the
// device's limit like the pool's). It never succeeds and then fails at
// Read. Runs in a fresh process (an allocation the driver cannot satisfy
// must not take the suite down). Without it Empty(2147483644) succeeded and
// Read failed: the staging size class rounded past maxBufferSize.
//
// Where this process cannot afford the allocation (under -race, whose
// shadow memory multiplies a 2 GiB read several times, or with less than
// 12 GiB available) the same rule is checked at the largest practical size
// that is not a size class, and the test says so.
func TestABufferNearMaxBufferSizeReadsBackOrIsRefusedAtOnce(t *testing.T) {
	if !gputest.InChild(t.Name()) && affordableBytes()/6 < 1<<31 {
		// Said here too: a passing fresh process's log is not shown.
		t.Logf("NOTE: a 2 GiB buffer is impractical here (race detector: %v, %d MiB of host memory affordable); the rule is checked at the largest practical size that is not a size class", raceEnabled, affordableBytes()>>20)
	}
	gputest.InFreshProcess(t, func(t *testing.T) {
		d, s := gputest.OpenStream(t)
		max := d.Info().Limits.MaxBufferSize
		size := max &^ 3
		if size > 1<<32 {
			size = 1<<31 - 4 // the size, on adapters whose limit is larger still
		}
		afford := affordableBytes() / 6 // the page, the staging buffer, and Read's copies
		if afford == 0 {
			afford = 256 << 20 // unknown: a size any CI machine has
		}
		if size > afford {
			practical := (afford &^ (1<<20 - 1)) + 4<<10 // between size classes
			t.Logf("NOTE: Empty(%d) near maxBufferSize %d is impractical here (race detector: %v, %d MiB of host memory affordable); checking the same rule at %d bytes, the largest practical size",
				size, max, raceEnabled, affordableBytes()>>20, practical)
			size = practical
		}
		b, err := s.Empty(size)
		if err != nil {
			var oom *recorder.OutOfMemoryError
			if !errors.As(err, &oom) && !errors.Is(err, wgpu.ErrInvalidArgument) {
				t.Fatalf("Empty(%d) may be refused only with a typed error (*recorder.OutOfMemoryError or ErrInvalidArgument), got %T %v", size, err, err)
			}
			t.Logf("Empty(%d) refused at once: %v", size, err)
			return
		}
		defer b.Release()
		head, tail := gputest.Ramp(4, 1), gputest.Ramp(4, 100)
		if err := recorder.WriteSlice(s, b, 0, head); err != nil {
			t.Fatal(err)
		}
		if err := recorder.WriteSlice(s, b, size-16, tail); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		raw, err := s.Read(b)
		if err != nil {
			t.Fatalf("Empty(%d) succeeded, so Read must too: %v", size, err)
		}
		t.Logf("read %d bytes (maxBufferSize %d) in %v", len(raw), max, time.Since(start))
		if uint64(len(raw)) != size {
			t.Fatalf("Read returns exactly Size() bytes: %d, want %d", len(raw), size)
		}
		got := func(off uint64) []float32 {
			out := make([]float32, 4)
			for i := range out {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[off+uint64(4*i):]))
			}
			return out
		}
		gputest.WantEqual(t, "the buffer's first words", head, got(0))
		gputest.WantEqual(t, "the buffer's last words", tail, got(size-16))
	})
}
