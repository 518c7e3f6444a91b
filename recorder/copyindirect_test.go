package recorder_test

import (
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
)

// TestCopyIndirectTakesItsOffsetsFromAVar: a captured CopyIndirect copies
// the range its offsets Var holds when each replay runs (the per-token
// KV-cache append: one row into the next slot), so the copy is part of
// the graph; a range past either buffer's end copies only what fits.
func TestCopyIndirectTakesItsOffsetsFromAVar(t *testing.T) {
	_, s := gputest.OpenStream(t, recorder.WithPreEncode(true))
	row := gputest.UploadU32(t, s, 7, 8)
	cache, err := recorder.UploadSlice(s, make([]uint32, 8))
	if err != nil {
		t.Fatal(err)
	}
	off, err := s.NewVar(offsets(t, 0, 0, 8))
	if err != nil {
		t.Fatal(err)
	}
	defer off.Release()
	g, err := s.Capture(func() error { return s.CopyIndirect(cache, row, off) }, recorder.WithoutWarmup())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	for pos := range uint64(3) {
		if err := recorder.WriteSlice(s, row, 0, []uint32{uint32(10 * pos), uint32(10*pos + 1)}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetVar(off, offsets(t, 0, 8*pos, 8)); err != nil {
			t.Fatal(err)
		}
		if err := g.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	gputest.WantEqual(t, "three rows appended at the positions set before each replay", []uint32{0, 1, 10, 11, 20, 21, 0, 0}, gputest.ReadU32(t, s, cache))
	// Past the end: slot 3 holds one word of the two.
	if err := s.SetVar(off, offsets(t, 0, 28, 8)); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(); err != nil {
		t.Fatal(err)
	}
	gputest.WantEqual(t, "a range past the end copies what fits", []uint32{0, 1, 10, 11, 20, 21, 0, 20}, gputest.ReadU32(t, s, cache))
	small, err := s.NewVar(recorder.ParamsOf[uint32](1))
	if err != nil {
		t.Fatal(err)
	}
	defer small.Release()
	gputest.WantErr(t, "offsets of 4 bytes", s.CopyIndirect(cache, row, small), []error{recorder.ErrInvalidArgument}, "12 or 16")
	_, err = recorder.CopyOffsets(2, 0, 4)
	gputest.WantErr(t, "a misaligned offset", err, []error{recorder.ErrInvalidArgument}, "recorder: CopyOffsets: (2, 0, 4): multiples of 4")
	gputest.WantErr(t, "a copy onto itself", s.CopyIndirect(cache, cache, off), []error{recorder.ErrInvalidArgument}, "same resource")
}

func offsets(t *testing.T, src, dst, size uint64) recorder.Params {
	t.Helper()
	p, err := recorder.CopyOffsets(src, dst, size)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
