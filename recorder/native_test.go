package recorder_test

import (
	"testing"

	webgpu "github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// TestApplicationWritesAreReadByAStream: a buffer the application filled
// through its own queue, wrapped, is read by a stream and used as a launch
// argument, without a copy through the host.
func TestApplicationWritesAreReadByAStream(t *testing.T) {
	app := gputest.AppDevice(t)
	d := app.Adopt(t)
	s := gputest.Stream(t, d)
	nb := app.Buffer(t, 1024, gputest.StorageUsage)
	app.WriteF32(t, nb, gputest.Ramp(256, 10))

	w, err := s.WrapBuffer(nb, 1024)
	if err != nil {
		t.Fatalf("WrapBuffer of a Cogent Core storage buffer: %v", err)
	}
	gputest.WantFloats(t, "a stream reads what the application's queue wrote", gputest.Ramp(256, 10), gputest.Read(t, s, w))

	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	out := gputest.Empty(t, s, 1024)
	gputest.MustChain(t, s, k, w, out, 1, 256)
	gputest.WantFloats(t, "a launch reads the wrapped buffer", gputest.Ramp(256, 11), gputest.Read(t, s, out))
	if got := w.Native(); got != nb {
		t.Errorf("Native of a wrapped buffer is the application's own handle: got %p, want %p", got, nb)
	}
}

// TestStreamResultsAreUsedByTheApplication: the other direction. A stream
// writes a buffer; after Flush the application's own pipeline (bound to
// exactly the Buffer's range of Native) doubles it on the application's
// queue, and both the application's read-back and the stream's Read see
// the doubled values: the two submit to one queue, in order.
func TestStreamResultsAreUsedByTheApplication(t *testing.T) {
	app := gputest.AppDevice(t)
	d := app.Adopt(t)
	s := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	a := gputest.Upload(t, s, gputest.Ramp(100, 0))
	b := gputest.Empty(t, s, 400) // a pool page of 512 bytes: Native is larger than b
	gputest.MustChain(t, s, k, a, b, 1, 100)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	nb := b.Native()
	if nb == nil {
		t.Fatal("Native of a live Buffer must not be nil")
	}
	if got, want := webgpu.BufferUsage(nb.GetUsage()), webgpu.BufferUsageStorage|webgpu.BufferUsageUniform|webgpu.BufferUsageCopySrc|webgpu.BufferUsageCopyDst|webgpu.BufferUsageIndirect; got != want {
		t.Errorf("Native's usage is documented as Storage|Uniform|CopySrc|CopyDst|Indirect (%#x), got %#x", uint32(want), uint32(got))
	}
	app.Double(t, nb, b.Size())
	want := make([]float32, 100)
	for i := range want {
		want[i] = 2 * float32(i+1)
	}
	gputest.WantFloats(t, "the application reads its pipeline's result on the stream's buffer", want, app.ReadF32(t, nb, 100))
	gputest.WantFloats(t, "the stream reads what the application's pipeline wrote", want, gputest.Read(t, s, b))

	b.Release()
	if b.Native() != nil {
		t.Error("Native of a released Buffer must be nil")
	}
}

// TestWrappedBuffersInAGraph: a graph captured with wrapped input and
// output replays on whatever the application put in the input since, and
// the application reads the output itself — the per-frame pattern of an
// app that keeps its data in its own buffers.
func TestWrappedBuffersInAGraph(t *testing.T) {
	app := gputest.AppDevice(t)
	d := app.Adopt(t)
	s := gputest.Stream(t, d)
	k := gputest.Kernel(t, d, gputest.AddOneWGSL)
	in := app.Buffer(t, 256, gputest.StorageUsage)
	out := app.Buffer(t, 256, gputest.StorageUsage)
	app.WriteF32(t, in, gputest.Fill(64, 0))
	win, err := s.WrapBuffer(in, 256)
	if err != nil {
		t.Fatal(err)
	}
	wout, err := s.WrapBuffer(out, 256)
	if err != nil {
		t.Fatal(err)
	}
	mid := gputest.Empty(t, s, 256)
	g := gputest.Capture(t, s, func() {
		gputest.MustChain(t, s, k, win, mid, 1, 64)
		gputest.MustChain(t, s, k, mid, wout, 1, 64)
	})
	// The caller's handles may go: the graph keeps its own references.
	win.Release()
	wout.Release()
	for frame := range 3 {
		app.WriteF32(t, in, gputest.Fill(64, float32(10*frame)))
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay %d: %v", frame, err)
		}
		if err := s.Sync(); err != nil {
			t.Fatalf("Sync %d: %v", frame, err)
		}
		gputest.WantFloats(t, "the application reads a replay's output from its own buffer", gputest.Fill(64, float32(10*frame+2)), app.ReadF32(t, out, 64))
	}
	g.Release()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// softgraph dropped its references and destroyed nothing: the
	// application's buffers still work.
	app.WriteF32(t, in, gputest.Fill(64, 7))
	gputest.WantFloats(t, "the application's buffer after the stream closed", gputest.Fill(64, 7), app.ReadF32(t, in, 64))
}

// TestWrapBufferRefusals: what WrapBuffer can check it refuses on the spot,
// wrapping nothing, with ErrInvalidArgument (ErrForeignDevice for another
// device's buffer), and the stream works right after.
func TestWrapBufferRefusals(t *testing.T) {
	app := gputest.AppDevice(t)
	d := app.Adopt(t)
	s := gputest.Stream(t, d)
	good := app.Buffer(t, 256, gputest.StorageUsage)
	copyOnly := app.Buffer(t, 256, webgpu.BufferUsageCopySrc|webgpu.BufferUsageCopyDst)
	noCopySrc := app.Buffer(t, 256, webgpu.BufferUsageStorage|webgpu.BufferUsageCopyDst)
	noCopyDst := app.Buffer(t, 256, webgpu.BufferUsageStorage|webgpu.BufferUsageCopySrc)

	// A buffer softgraph made on a device it opened itself: wgpu-native's
	// validation cannot tell another device's buffer, softgraph can tell
	// its own.
	_, own := gputest.OpenStream(t)
	ownBuf := gputest.Empty(t, own, 256)

	for _, c := range []struct {
		name string
		nb   *webgpu.Buffer
		size uint64
		is   error
	}{
		{"a nil buffer", nil, 256, recorder.ErrInvalidArgument},
		{"size 0", good, 0, recorder.ErrInvalidArgument},
		{"a size not a multiple of 4", good, 6, recorder.ErrInvalidArgument},
		{"a size past the buffer's end", good, 260, recorder.ErrInvalidArgument},
		{"a buffer without Storage usage", copyOnly, 256, recorder.ErrInvalidArgument},
		{"a buffer without CopySrc usage", noCopySrc, 256, recorder.ErrInvalidArgument},
		{"a buffer without CopyDst usage", noCopyDst, 256, recorder.ErrInvalidArgument},
		{"a buffer softgraph made on another device", ownBuf.Native(), 256, recorder.ErrForeignDevice},
	} {
		b, err := s.WrapBuffer(c.nb, c.size)
		if b != nil {
			t.Errorf("WrapBuffer of %s returned a Buffer with its error", c.name)
		}
		gputest.WantErr(t, "WrapBuffer refuses "+c.name, err, []error{c.is})
	}

	// The stream works right after, and a smaller range of a good buffer
	// is accepted.
	w, err := s.WrapBuffer(good, 128)
	if err != nil {
		t.Fatalf("after the refusals a valid WrapBuffer works: %v", err)
	}
	if w.Size() != 128 {
		t.Errorf("a wrapped Buffer's Size is the size asked for: got %d, want 128", w.Size())
	}
	if err := recorder.WriteSlice(s, w, 0, gputest.Fill(32, 3)); err != nil {
		t.Fatal(err)
	}
	gputest.WantFloats(t, "a wrapped range after refusals", gputest.Fill(32, 3), gputest.Read(t, s, w))
	w.Release()
	if _, err := s.Read(w); err == nil {
		t.Error("a released wrapped Buffer must be refused like any released Buffer")
	}
	if err := d.Err(); err != nil {
		t.Fatal(err)
	}
}
