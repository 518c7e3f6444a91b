// Command image blurs an image on the GPU with the separable binomial blur
// of examples/workloads, through a captured graph, and writes a PNG.
//
//	go run ./examples/image                          # a generated 512×384 test card → $TMPDIR/softgraph-blurred.png
//	go run ./examples/image -o out.png -radius 8     # the widest exact blur
//	go run ./examples/image -in photo.png -o soft.png
//	go run ./examples/image -quick                   # a 128×96 card, 3 replays: CI's run
//
// It writes the PNG where -o says, by default to softgraph-blurred.png in
// the system's temporary directory (os.TempDir), never into the current
// directory unasked, and prints the path it wrote.
//
// Without -in it generates its own image (a test card of sharp edges,
// stripes and gradients), so it runs from a fresh clone with no assets.
// With -in it reads a PNG, JPEG or GIF. It prints the adapter, then the
// time of each stage: upload, the eager first run (compiles and binds),
// capture, and the median of the replays (each followed by a wait for the
// GPU), and checks the replayed image against the eager one, byte for byte.
//
// The device follows SOFTGRAPH_BACKEND, SOFTGRAPH_ADAPTER and
// SOFTGRAPH_FALLBACK, as wgpu.Open reads them.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif"
	_ "image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/softgraph/softgraph/examples/internal/cli"
	"github.com/softgraph/softgraph/examples/workloads"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

func main() {
	cli.Exit("image", run(os.Args[1:], os.Stdout))
}

// defaultOutput is the name of the PNG written, in os.TempDir, without -o.
const defaultOutput = "softgraph-blurred.png"

// generatedWidth and generatedHeight are the size of the generated test
// card; quickWidth and quickHeight its size with -quick.
const (
	generatedWidth, generatedHeight = 512, 384
	quickWidth, quickHeight         = 128, 96
)

func run(args []string, stdout io.Writer) (err error) {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stdout)
	in := fs.String("in", "", "read this image (PNG, JPEG or GIF) instead of generating a test card")
	out := fs.String("o", filepath.Join(os.TempDir(), defaultOutput), "write the blurred image here, as PNG")
	radius := fs.Int("radius", 4, fmt.Sprintf("blur radius in texels, 0 to %d", workloads.MaxBlurRadius))
	replays := fs.Int("replays", 10, "replays of the graph to time (at least 1)")
	quick := fs.Bool("quick", false, fmt.Sprintf("a %d×%d test card and 3 replays unless -replays is given (with -in, only the replays)", quickWidth, quickHeight))
	if err := cli.Parse(fs, args, false); err != nil {
		return err
	}
	cardW, cardH := generatedWidth, generatedHeight
	if *quick {
		cardW, cardH = quickWidth, quickHeight
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if !given["replays"] {
			*replays = 3
		}
	}
	if *radius < 0 || *radius > workloads.MaxBlurRadius {
		return fmt.Errorf("-radius %d: want 0 to %d (beyond it the sums are no longer exact in f32)", *radius, workloads.MaxBlurRadius)
	}
	if *replays < 1 {
		return fmt.Errorf("-replays %d: want at least 1", *replays)
	}

	var img *image.NRGBA
	if *in == "" {
		img = testCard(cardW, cardH)
	} else if img, err = readImage(*in); err != nil {
		return err
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()

	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		return fmt.Errorf("open a device: %w", err)
	}
	defer dev.Close()
	fmt.Fprintf(stdout, "adapter:  %s\n", dev.Info())
	s, err := recorder.New(dev)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close stream: %w", cerr)
		}
	}()

	blurred, err := blur(s, img.Pix, w, h, *radius, *replays, stdout)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, &image.NRGBA{Pix: blurred, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}); err != nil {
		return fmt.Errorf("encode PNG: %w", err)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote:    %s (%d×%d, radius %d)\n", *out, w, h, *radius)
	return nil
}

// blur runs the blur of pix (w×h RGBA8) eagerly once, captures it as a
// graph and replays it, timing each, and returns the replayed result
// after checking it equals the eager one.
func blur(s *recorder.Stream, pix []byte, w, h, radius, replays int, stdout io.Writer) ([]byte, error) {
	b, err := workloads.NewBlur(s, w, h, radius)
	if err != nil {
		return nil, err
	}
	defer b.Release()

	start := time.Now()
	src, err := s.UploadTexture(b.Desc(), pix)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	dst, err := s.NewTexture(b.Desc())
	if err != nil {
		return nil, err
	}
	defer dst.Release()
	if err := s.Sync(); err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "upload:   %v (%d×%d rgba8unorm, %d KiB)\n", since(start), w, h, len(pix)>>10)

	start = time.Now()
	if err := b.Run(src, dst); err != nil {
		return nil, err
	}
	eager, err := s.ReadTexture(dst)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "eager:    %v (first run: kernel compile, bind groups, 2 dispatches, read back)\n", since(start))

	start = time.Now()
	g, err := s.Capture(func() error { return b.Run(src, dst) })
	if err != nil {
		return nil, err
	}
	defer g.Release()
	fmt.Fprintf(stdout, "capture:  %v (the warmup run enqueued, then recorded); %s\n", since(start), g)

	times := make([]time.Duration, replays)
	for i := range times {
		start = time.Now()
		if err := g.Replay(); err != nil {
			return nil, err
		}
		if err := s.Sync(); err != nil {
			return nil, err
		}
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	fmt.Fprintf(stdout, "replay:   median %v, min %v, max %v over %d replays (Replay then Sync)\n",
		times[len(times)/2].Round(time.Microsecond), times[0].Round(time.Microsecond), times[len(times)-1].Round(time.Microsecond), replays)

	replayed, err := s.ReadTexture(dst)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(eager, replayed) {
		return nil, errors.New("the replayed blur differs from the eager one")
	}
	fmt.Fprintln(stdout, "verified: replay is byte-identical to eager")
	return replayed, nil
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Microsecond) }

// readImage decodes the file at path into straight-alpha RGBA8.
func readImage(path string) (*image.NRGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	r := src.Bounds()
	img := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(img, img.Rect, src, r.Min, draw.Src)
	return img, nil
}

// testCard draws a w×h opaque image whose sharp features show a blur at
// a glance: a black-and-white checkerboard in the top left quarter,
// vertical stripes one and two texels wide in the top right, and below
// them a horizontal colour gradient with a white disc on it.
func testCard(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	cx, cy, r := w/2, 3*h/4, h/6
	for y := range h {
		for x := range w {
			var c [3]byte
			switch {
			case y < h/2 && x < w/2:
				if (x/16+y/16)%2 == 0 {
					c = [3]byte{255, 255, 255}
				}
			case y < h/2:
				if x%3 == 0 || x%6 == 1 {
					c = [3]byte{255, 255, 255}
				}
			case (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r:
				c = [3]byte{255, 255, 255}
			default:
				c = [3]byte{byte(255 * x / (w - 1)), byte(255 * (y - h/2) / (h - h/2)), byte(255 - 255*x/(w-1))}
			}
			p := img.Pix[y*img.Stride+4*x:]
			p[0], p[1], p[2], p[3] = c[0], c[1], c[2], 255
		}
	}
	return img
}
