package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/examples/workloads"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestRunWritesTheBlurredTestCardAsPNG runs the command as a user would,
// without -o, and decodes what it wrote: a PNG in the temporary directory
// (here a test's own, through the variables os.TempDir reads), named in the
// output, of the test card's size, whose pixels are the reference blur of
// the test card, so a pixel on a checkerboard edge, black in the card, is
// now grey.
func TestRunWritesTheBlurredTestCardAsPNG(t *testing.T) {
	gputest.Open(t, wgpu.Options{}) // skips, or fails on CI, where no adapter exists
	const radius = 4
	dir := gputest.TempDir(t)
	for _, v := range []string{"TMPDIR", "TMP", "TEMP"} { // Unix's, then Windows'
		t.Setenv(v, dir)
	}
	path := filepath.Join(dir, defaultOutput)
	var out bytes.Buffer
	if err := run([]string{"-radius", strconv.Itoa(radius), "-replays", "3"}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"adapter: ", "eager:", "capture:", "replay:   median", "verified: replay is byte-identical to eager", "wrote:    " + path} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	decoded, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the output must be a PNG: %v", err)
	}
	if got := decoded.Bounds(); got != image.Rect(0, 0, generatedWidth, generatedHeight) {
		t.Fatalf("the PNG is the test card's %d×%d; got %v", generatedWidth, generatedHeight, got)
	}
	card := testCard(generatedWidth, generatedHeight)
	want := workloads.BlurReference(card.Pix, generatedWidth, generatedHeight, radius)

	// (16, 1) is the first black texel right of the white square at the
	// card's top left corner: within the radius of white, so blurred grey.
	const x, y = 16, 1
	i := 4 * (y*generatedWidth + x)
	if card.Pix[i] != 0 {
		t.Fatalf("test setup: the card's texel (%d, %d) is black; got %d", x, y, card.Pix[i])
	}
	r, g, b, a := decoded.At(x, y).RGBA()
	got := [4]byte{byte(r >> 8), byte(g >> 8), byte(b >> 8), byte(a >> 8)}
	if wantPx := [4]byte(want[i : i+4]); got != wantPx || got[0] == 0 {
		t.Fatalf("texel (%d, %d), black in the card, must be the reference's blur %v; got %v", x, y, wantPx, got)
	}
	var all []byte
	for py := range generatedHeight {
		for px := range generatedWidth {
			r, g, b, a := decoded.At(px, py).RGBA()
			all = append(all, byte(r>>8), byte(g>>8), byte(b>>8), byte(a>>8))
		}
	}
	if !bytes.Equal(want, all) {
		t.Fatal("every pixel of the PNG must equal BlurReference of the test card")
	}
}

// TestRunReadsAnInputImage blurs a PNG given with -in; radius 0 must give
// it back unchanged.
func TestRunReadsAnInputImage(t *testing.T) {
	gputest.Open(t, wgpu.Options{})
	dir := gputest.TempDir(t)
	in, out := filepath.Join(dir, "in.png"), filepath.Join(dir, "out.png")
	card := testCard(40, 30)
	var buf bytes.Buffer
	if err := png.Encode(&buf, card); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := run([]string{"-in", in, "-o", out, "-radius", "0", "-replays", "1"}, &log); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	got, err := readImage(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Pix, card.Pix) || got.Rect != card.Rect {
		t.Fatal("a blur of radius 0 must write the input image back unchanged")
	}
}

// TestRunRefusesARadiusBeyondTheExactRange: -radius past
// workloads.MaxBlurRadius is refused before any device is opened.
func TestRunRefusesARadiusBeyondTheExactRange(t *testing.T) {
	var out bytes.Buffer
	err := run([]string{"-o", filepath.Join(gputest.TempDir(t), "x.png"), "-radius", "9"}, &out)
	if err == nil || !strings.Contains(err.Error(), "-radius 9") {
		t.Fatalf("-radius 9 must be refused, naming the flag; got %v", err)
	}
}

// TestQuickBlursTheSmallCard: -quick, which the README promises every
// longer example has, blurs the small test card with a few replays, and
// its PNG is still the reference blur of that card.
func TestQuickBlursTheSmallCard(t *testing.T) {
	gputest.Open(t, wgpu.Options{})
	path := filepath.Join(gputest.TempDir(t), "quick.png")
	var out bytes.Buffer
	if err := run([]string{"-quick", "-o", path}, &out); err != nil {
		t.Fatalf("run -quick: %v\n%s", err, out.String())
	}
	for _, want := range []string{"over 3 replays", "verified: replay is byte-identical to eager", "(128×96, radius 4)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the -quick output lacks %q:\n%s", want, out.String())
		}
	}
	got, err := readImage(path)
	if err != nil {
		t.Fatal(err)
	}
	card := testCard(quickWidth, quickHeight)
	if want := workloads.BlurReference(card.Pix, quickWidth, quickHeight, 4); got.Rect != card.Rect || !bytes.Equal(got.Pix, want) {
		t.Fatalf("-quick must write the reference blur of the %d×%d card; got a %v image", quickWidth, quickHeight, got.Rect)
	}
}
