package tests

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

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
	skipIfShort(t)
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
	skipIfShort(t)
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
				y, err := s.Alloc(x.Size())
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

// TestHundredsOfStreamsOpenAndCloseWithoutLeakingGoroutines: 120 streams
// (300 with SOFTGRAPH_LONG=1) on one device, each computing, then closed (a third of them while
// another goroutine replays a graph on them), leave no goroutine behind.
func TestHundredsOfStreamsOpenAndCloseWithoutLeakingGoroutines(t *testing.T) {
	skipIfShort(t)
	d := gputest.Open(t, wgpu.Options{})
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	// Warm up once so lazily started goroutines of the device exist.
	{
		s := gputest.Stream(t, d)
		a := gputest.Upload(t, s, gputest.Fill(64, 1))
		b := gputest.Empty(t, s, a.Size())
		gputest.MustChain(t, s, k, a, b, 2, 64)
		_ = gputest.Read(t, s, a)
		_ = s.Close()
	}
	time.Sleep(50 * time.Millisecond)
	before := runtime.NumGoroutine()
	n := 120 // 300 with SOFTGRAPH_LONG=1
	if longRun() {
		n = 300
	}
	streams := make([]*recorder.Stream, n)
	bufs := make([]*recorder.Buffer, n)
	graphs := make([]*recorder.Graph, n)
	for i := range streams {
		s, err := recorder.New(d)
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		streams[i] = s
		a := gputest.Upload(t, s, gputest.Fill(64, float32(i)))
		b := gputest.Empty(t, s, a.Size())
		g, err := s.Capture(func() error { return gputest.Chain(s, k, a, b, 2, 64) })
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		bufs[i], graphs[i] = a, g
	}
	for i, s := range streams {
		if err := graphs[i].Replay(); err != nil {
			t.Fatal(err)
		}
		// start i, warmup +2, replay +2
		gputest.WantEqual(t, fmt.Sprintf("stream %d computes", i), gputest.Fill(64, float32(i+4)), gputest.Read(t, s, bufs[i]))
	}
	var wg sync.WaitGroup
	for i := range streams {
		if i%3 != 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; ; r++ {
				err := graphs[i].Replay()
				if err == nil && r%8 == 7 {
					err = streams[i].Sync()
				}
				if err != nil {
					if !errors.Is(err, wgpu.ErrClosed) && !errors.Is(err, wgpu.ErrReleased) {
						t.Errorf("stream %d: Replay racing Close: %v", i, err)
					}
					return
				}
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	for _, s := range streams {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("closing %d streams must leave no goroutine behind: %d before, %d after\n%s", n, before, after, buf[:runtime.Stack(buf, true)])
	}
}

// TestClosingTheDeviceInsideBodiesAndThenUsingEverythingNeverAborts: a
// Device.Close from inside an If or While body, run eagerly or recorded
// in a Capture step, ends the branch and the capture with ErrClosed; then
// every call on what the device made — textures, samplers, graphs
// (Replay, Rebind, Save, WriteTo, WriteDOT, String, Stats, Buffers,
// Release), kernels, buffers, the stream (ReadTexture, UploadTexture,
// LoadGraph, If, While, ProfileReplay, MemoryStats, Trim, Close twice) —
// returns ErrClosed, a zero value or nothing, never panics or hangs, and
// the next device of the process computes.
func TestClosingTheDeviceInsideBodiesAndThenUsingEverythingNeverAborts(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		for _, where := range []string{"eager If", "eager While", "recorded If", "recorded While", "recorded While, second run"} {
			d, err := wgpu.Open(wgpu.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := recorder.New(d)
			if err != nil {
				t.Fatal(err)
			}
			k := gputest.Kernel(t, d, gputest.AddOneWGSL)
			tk := gputest.Kernel(t, d, textureGraphWGSL)
			a := gputest.Upload(t, s, gputest.Fill(64, 1))
			b := gputest.Empty(t, s, a.Size())
			spare := gputest.Empty(t, s, a.Size())
			cond, err := recorder.UploadSlice(s, []uint32{1, 1, 1, 1})
			if err != nil {
				t.Fatal(err)
			}
			src, err := s.UploadTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "rgba8unorm"}, bytes.Repeat([]byte{7}, 64))
			if err != nil {
				t.Fatal(err)
			}
			dst, err := s.NewTexture(recorder.TextureDesc{Width: 4, Height: 4, Format: "r32float"})
			if err != nil {
				t.Fatal(err)
			}
			smp, err := s.NewSampler(recorder.SamplerDesc{})
			if err != nil {
				t.Fatal(err)
			}
			g := gputest.Capture(t, s, func() {
				if err := s.Launch(tk, recorder.Groups(1, 1, 1), src, smp, dst, b); err != nil {
					t.Fatal(err)
				}
				if err := s.If(cond, 0, func() error { return addOne(s, k, a, b, 64) }); err != nil {
					t.Fatal(err)
				}
			})
			var file bytes.Buffer
			if _, err := g.Save(&file, recorder.SaveOptions{Contents: true}); err != nil {
				t.Fatal(err)
			}
			body := func() error {
				if err := addOne(s, k, a, b, 64); err != nil {
					return err
				}
				return d.Close()
			}
			var berr error
			done := make(chan struct{})
			go func() {
				defer close(done)
				switch where {
				case "eager If":
					berr = s.If(cond, 0, body)
				case "eager While":
					berr = s.While(cond, 0, 3, body)
				default:
					runs := 0
					var cg *recorder.Graph
					cg, berr = s.Capture(func() error {
						runs++
						if where == "recorded While, second run" && runs == 1 {
							return s.While(cond, 0, 3, func() error { return addOne(s, k, a, b, 64) })
						}
						if strings.Contains(where, "If") {
							return s.If(cond, 0, body)
						}
						return s.While(cond, 0, 3, body)
					})
					if cg != nil {
						t.Errorf("%s: a capture whose device closed sealed a graph", where)
						cg.Release()
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: a body closing the device hung", where)
			}
			if !errors.Is(berr, wgpu.ErrClosed) && berr != nil {
				t.Errorf("%s: closing the device inside the body: want nil or ErrClosed, got %v", where, berr)
			}
			if strings.HasPrefix(where, "recorded") && berr == nil {
				t.Errorf("%s: a capture whose device closed must fail", where)
			}
			wantEverythingAfterDeviceClose(t, where, closedObjects{d: d, s: s, k: k, tk: tk, a: a, b: b, spare: spare, cond: cond, src: src, dst: dst, smp: smp, g: g, file: file.Bytes()})
		}
	})
}

// closedObjects is what a device made before it closed inside a body.
type closedObjects struct {
	d                 *wgpu.Device
	s                 *recorder.Stream
	k, tk             *wgpu.Kernel
	a, b, spare, cond *recorder.Buffer
	src, dst          *recorder.Texture
	smp               *recorder.Sampler
	g                 *recorder.Graph
	file              []byte // g saved with its contents
}

// wantEverythingAfterDeviceClose: after the device closed (where says
// how), every call on what it made returns an error wrapping ErrClosed,
// getters answer, releases and Closes never panic, and both Closes may be
// called twice.
func wantEverythingAfterDeviceClose(t *testing.T, where string, o closedObjects) {
	d, s, k, tk, a, b, spare, cond, src, dst, smp, g := o.d, o.s, o.k, o.tk, o.a, o.b, o.spare, o.cond, o.src, o.dst, o.smp, o.g
	closed := []error{wgpu.ErrClosed}
	calls := map[string]func() error{
		"Replay": g.Replay,
		"Rebind": func() error {
			ng, err := g.Rebind(a, spare)
			if ng != nil {
				ng.Release()
			}
			return err
		},
		"ReadTexture": func() error { _, err := s.ReadTexture(dst); return err },
		"UploadTexture": func() error {
			_, err := s.UploadTexture(recorder.TextureDesc{Width: 1, Height: 1, Format: "r32float"}, make([]byte, 4))
			return err
		},
		"LoadGraph":     func() error { _, err := s.LoadGraph(bytes.NewReader(o.file)); return err },
		"If":            func() error { return s.If(cond, 0, func() error { return nil }) },
		"While":         func() error { return s.While(cond, 0, 2, func() error { return nil }) },
		"ProfileReplay": func() error { _, err := s.ProfileReplay(g); return err },
		"Save with contents": func() error {
			_, err := g.Save(io.Discard, recorder.SaveOptions{Contents: true})
			return err
		},
		"Trim":    func() error { _, err := s.Trim(); return err },
		"Launch":  func() error { return s.Launch(tk, recorder.Groups(1, 1, 1), src, smp, dst, b) },
		"Kernel":  func() error { _, err := d.Kernel(gputest.ScaleWGSL, "main"); return err },
		"Capture": func() error { _, err := s.Capture(func() error { return nil }); return err },
	}
	for name, f := range calls {
		var err error
		if msg := noPanic(func() { err = within(t, 10*time.Second, name, f) }); msg != "" {
			t.Errorf("%s, then %s: panicked: %s", where, name, msg)
			continue
		}
		if problem := gputest.CheckErr(err, closed, nil); problem != "" {
			t.Errorf("%s, then %s: %s", where, name, problem)
		}
	}
	// What needs no device answers, and never panics.
	if msg := noPanic(func() {
		_ = g.String()
		_ = g.Stats()
		_ = g.Buffers()
		_ = g.Len()
		_ = g.WriteDOT(io.Discard)
		_, _ = g.WriteTo(io.Discard)
		_ = s.MemoryStats()
		_ = s.State()
		_ = src.Desc()
		_ = smp.Desc()
		_ = k.Bindings()
	}); msg != "" {
		t.Errorf("%s: a getter after Device.Close panicked: %s", where, msg)
	}
	if msg := noPanic(func() {
		_ = within(t, 10*time.Second, "releases", func() error {
			src.Release()
			dst.Release()
			smp.Release()
			a.Release()
			g.Release()
			g.Release()
			k.Release()
			tk.Release()
			return nil
		})
		for range 2 {
			if err := within(t, 10*time.Second, "Stream.Close", s.Close); err != nil && !errors.Is(err, wgpu.ErrClosed) {
				t.Errorf("%s: Stream.Close after Device.Close: %v", where, err)
			}
			if err := within(t, 10*time.Second, "Device.Close", d.Close); err != nil {
				t.Errorf("%s: Device.Close twice: %v", where, err)
			}
		}
	}); msg != "" {
		t.Errorf("%s: releasing after Device.Close panicked: %s", where, msg)
	}
}

// TestManyIdleStreamsCloseAndReleaseEveryNativeObject: 64 streams on
// one device each run a few batches (16, 24, 36, 54 dispatches: enough for
// the submitter to ready encoders for later batches) and a replayed graph,
// read their result, and leave a few launches unsubmitted: on a buffer of
// a stream kept open, and on a buffer of the next of the 64 streams,
// whose value they then add into the kept stream's tally (so closing that
// next stream first must not free memory this stream's unsubmitted batch
// uses). Then they idle, holding readied encoders with begun passes.
// Closing all 64 at once must return nil, submit the unsubmitted launches
// (the tallies show each exactly once, with the other stream's buffer
// intact), and leave exactly the native objects (buffers, bind groups,
// encoders, command buffers, query sets, kernels, programs) and goroutines
// alive that were alive before the streams were made. A second set of 64
// idle streams (pre-encoding, with a graph of 64 dispatches replayed twice
// so a finished command buffer waits) then sees the device close under
// them: Device.Close leaves no native object alive, every Close after it
// returns nil or ErrClosed, and no goroutine outlives its stream. In a fresh
// process, which must then open a device that computes.
func TestManyIdleStreamsCloseAndReleaseEveryNativeObject(t *testing.T) {
	skipIfShort(t)
	gputest.InFreshProcess(t, func(t *testing.T) {
		const streams = 64
		d, err := wgpu.Open(wgpu.Options{})
		if err != nil {
			t.Fatal(err)
		}
		add := gputest.Kernel(t, d, gputest.AddConstWGSL)
		bumpAt := gputest.Kernel(t, d, `
struct P { i: u32 }
@group(0) @binding(0) var<storage, read_write> t: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1)
fn main() { t[p.i] = t[p.i] + 1.0; }
`)
		addInto := gputest.Kernel(t, d, `
struct P { i: u32 }
@group(0) @binding(0) var<storage, read> c: array<f32>;
@group(0) @binding(1) var<storage, read_write> t: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(1)
fn main() { t[p.i] = t[p.i] + c[0]; }
`)
		runtime.GC()
		before := live(t, d)
		g0 := runtime.NumGoroutine()
		keeper, err := recorder.New(d)
		if err != nil {
			t.Fatal(err)
		}
		// tally counts, per stream, the launches left unsubmitted at
		// Close; sums adds the next stream's buffer (i+1) in after a bump.
		tally := gputest.Upload(t, keeper, gputest.Fill(streams, 0))
		sums := gputest.Upload(t, keeper, gputest.Fill(streams, 0))
		if err := keeper.Sync(); err != nil {
			t.Fatal(err)
		}

		open := func(opts ...recorder.Option) []*recorder.Stream {
			ss := make([]*recorder.Stream, streams)
			for i := range ss {
				s, err := recorder.New(d, opts...)
				if err != nil {
					t.Fatal(err)
				}
				ss[i] = s
			}
			return ss
		}
		ss := open()
		nexts := make([]*recorder.Buffer, streams) // nexts[i] belongs to stream i, is bumped by stream i-1
		for i, s := range ss {
			nexts[i] = gputest.Upload(t, s, gputest.Fill(4, float32(i+1)))
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
		}
		var errs collect
		var wg sync.WaitGroup
		for i, s := range ss {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := busyThenLeaveUnsubmitted(s, i, add, bumpAt, addInto, tally, sums, nexts[(i+1)%streams])
				if err != nil {
					errs.add(fmt.Errorf("stream %d: %w", i, err))
				}
			}()
		}
		waitAll(t, &wg, 2*time.Minute, "64 streams computing")
		errs.report(t)
		if t.Failed() {
			return
		}
		// Idle: every submitter has readied its encoders. (The pause only
		// widens the window; nothing below depends on it.)
		time.Sleep(20 * time.Millisecond)
		t.Logf("native objects alive: before the streams %+v; with 64 idle streams %+v", before, live(t, d))
		for i := range ss {
			// Reverse order, so that the stream owning a buffer closes
			// before the stream whose unsubmitted batch uses it, mostly.
			s := ss[streams-1-i]
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.Close(); err != nil {
					errs.add(fmt.Errorf("Close of a stream: %v", err))
				}
			}()
		}
		waitAll(t, &wg, time.Minute, "closing 64 streams")
		errs.report(t)
		wantTally, wantSums := make([]float32, streams), make([]float32, streams)
		for i := range streams {
			wantTally[i] = float32(i%5 + 1)
			wantSums[i] = float32((i+1)%streams + 2) // the next stream's value, bumped once
		}
		gputest.WantEqual(t, "launches left unsubmitted at Close ran once each", wantTally, gputest.Read(t, keeper, tally))
		gputest.WantEqual(t, "each stream's unsubmitted launches read the next stream's buffer intact", wantSums, gputest.Read(t, keeper, sums))
		if err := keeper.Close(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		gputest.WantEqual(t, "native objects alive after all 64 streams closed (-before +after)", before, live(t, d))
		if n := settleGoroutines(g0); n > g0 {
			t.Fatalf("%d goroutines after the streams closed, %d before: a submitter or timer outlived its stream", n, g0)
		}

		// The device closes under 64 idle streams.
		ss = open(recorder.WithPreEncode(true))
		for i, s := range ss {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := busyPreEncodingThenIdle(s, i, add)
				if err != nil {
					errs.add(fmt.Errorf("stream %d: %w", i, err))
				}
			}()
		}
		waitAll(t, &wg, 2*time.Minute, "64 more streams computing")
		errs.report(t)
		if t.Failed() {
			return
		}
		time.Sleep(20 * time.Millisecond) // widens the window only
		t.Logf("with 64 idle pre-encoding streams: %+v", live(t, d))
		if err := within(t, time.Minute, "Device.Close under 64 idle streams", d.Close); err != nil {
			t.Fatalf("Device.Close: %v", err)
		}
		gputest.WantEqual(t, "native objects alive after Device.Close", driver.Live{}, live(t, d))
		for i, s := range ss {
			if err := within(t, time.Minute, "Stream.Close after Device.Close", s.Close); !isOneOf(err, wgpu.ErrClosed) {
				t.Errorf("Close of stream %d after Device.Close: want nil or ErrClosed, got %v", i, err)
			}
		}
		if n := settleGoroutines(g0); n > g0 {
			t.Fatalf("%d goroutines after the streams closed on a closed device, %d before", n, g0)
		}
	})
}

// busyThenLeaveUnsubmitted runs batches of the sizes the submitter grows
// through and a replayed graph on s (stream i of
// TestManyIdleStreamsCloseAndReleaseEveryNativeObject), checks its counter,
// then leaves launches unsubmitted: i%5+1 bumps of tally[i], and a bump of
// next (another stream's buffer) added into sums[i].
func busyThenLeaveUnsubmitted(s *recorder.Stream, i int, add, bumpAt, addInto *wgpu.Kernel, tally, sums, next *recorder.Buffer) error {
	x, err := recorder.UploadSlice(s, gputest.Fill(counterElems, 0))
	if err != nil {
		return err
	}
	want := float32(0)
	for _, c := range batchSizes[:4] {
		for range c {
			if err := bump(s, add, x, 1); err != nil {
				return err
			}
			want++
		}
	}
	g, err := s.Capture(func() error {
		for range 3 {
			if err := bump(s, add, x, 2); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	want += 6
	for range 5 {
		if err := g.Replay(); err != nil {
			return err
		}
		want += 6
	}
	got, err := recorder.ReadSlice[float32](s, x)
	if err != nil {
		return err
	}
	if d := cmp.Diff(gputest.Fill(counterElems, want), got); d != "" {
		return fmt.Errorf("the stream's counter (-want +got):\n%s", d)
	}
	// Unsubmitted work for Close to submit.
	for range i%5 + 1 {
		if err := s.Launch(bumpAt, recorder.Groups(1, 1, 1), tally, gputest.U32(uint32(i))); err != nil {
			return err
		}
	}
	if err := bump(s, add, next, 1); err != nil {
		return err
	}
	return s.Launch(addInto, recorder.Groups(1, 1, 1), next, sums, gputest.U32(uint32(i)))
}

// busyPreEncodingThenIdle runs three batches and two replays of a
// 64-dispatch graph on s, syncs, and leaves one launch unsubmitted on even
// streams.
func busyPreEncodingThenIdle(s *recorder.Stream, i int, add *wgpu.Kernel) error {
	x, err := recorder.UploadSlice(s, gputest.Fill(counterElems, 0))
	if err != nil {
		return err
	}
	for range batchSizes[0] + batchSizes[1] + batchSizes[2] {
		if err := bump(s, add, x, 1); err != nil {
			return err
		}
	}
	g, err := s.Capture(func() error {
		for range 64 {
			if err := bump(s, add, x, 1); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for range 2 {
		if err := g.Replay(); err != nil {
			return err
		}
	}
	if err := s.Sync(); err != nil {
		return err
	}
	if i%2 == 0 {
		return bump(s, add, x, 1) // left unsubmitted
	}
	return nil
}
