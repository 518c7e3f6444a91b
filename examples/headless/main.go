// Command headless is the check a CI job runs before trusting a machine with
// GPU tests: it lists the adapters wgpu finds, opens one, runs known kernels
// on known input, compares the results with the CPU's, and exits with
// status 1 and a message saying what is missing or wrong.
//
//	go run ./examples/headless                        # auto: Vulkan, Metal or DX12, else OpenGL
//	go run ./examples/headless -backend gl            # the OpenGL/GLES fallback
//	go run ./examples/headless -adapter llvmpipe      # an adapter whose name, driver or vendor contains this
//	go run ./examples/headless -list                  # only list the adapters
//
// -backend, -adapter and -fallback default to SOFTGRAPH_BACKEND,
// SOFTGRAPH_ADAPTER and SOFTGRAPH_FALLBACK, the variables wgpu.Open reads,
// and a flag given on the command line wins over its variable. When no
// adapter matches, it prints wgpu.Open's error, which lists the adapters
// that were found on every backend tried (or says which packages to
// install when there are none).
//
// The self-check runs shaders.AddOne over 1000 elements and shaders.MatMul
// on 37×29 and 29×23 matrices of small integers, whose products and sums
// are exact in float32, so the GPU must match the CPU bit for bit whatever
// order it adds in. On success it prints "self-check passed on <adapter>".
//
// On a headless Linux runner Mesa's software Vulkan driver (lavapipe) is
// enough. A GitHub Actions job:
//
//	jobs:
//	  gpu:
//	    runs-on: ubuntu-latest
//	    steps:
//	      - uses: actions/checkout@v4
//	      - uses: actions/setup-go@v5
//	        with:
//	          go-version: "1.26"
//	      - run: sudo apt-get update && sudo apt-get install -y mesa-vulkan-drivers libvulkan1
//	      - run: go run ./examples/headless -backend vulkan
//	      - run: go test ./...
//	        env:
//	          SOFTGRAPH_REQUIRE_GPU: "1"   # fail, do not skip, when no adapter is found
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/softgraph/softgraph/examples/internal/cli"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/wgpu"
)

func main() {
	cli.Exit("headless", run(os.Args[1:], os.Stdout))
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("headless", flag.ContinueOnError)
	backendName := fs.String("backend", envOr("SOFTGRAPH_BACKEND", "auto"), "auto, vulkan, metal, dx12 or gl")
	adapter := fs.String("adapter", os.Getenv("SOFTGRAPH_ADAPTER"), "use the adapter whose name, driver or vendor contains this (case-insensitive)")
	fallback := fs.Bool("fallback", isTrue(os.Getenv("SOFTGRAPH_FALLBACK")), "use a software adapter (lavapipe, llvmpipe, WARP)")
	list := fs.Bool("list", false, "list the adapters and exit")
	if err := cli.Parse(fs, args, false); err != nil {
		return err
	}
	backend, err := wgpu.ParseBackend(*backendName)
	if err != nil {
		return fmt.Errorf("-backend: %w", err)
	}

	found := wgpu.Adapters(backend)
	fmt.Fprintf(stdout, "adapters for backend %s: %d, in the order Open tries them\n", backend, len(found))
	for i, a := range found {
		fmt.Fprintf(stdout, "  %d. %s\n     %s\n", i+1, a, wgpu.RankReason(a))
	}
	if *list {
		if len(found) == 0 {
			// Open's error names each backend that could not start and
			// what to install or set.
			dev, err := wgpu.Open(wgpu.Options{Backend: backend, IgnoreEnv: true})
			if err == nil {
				dev.Close()
			}
			return err
		}
		return nil
	}

	// The flags already hold the environment's values, so the environment
	// must not fill in a field the command line set to its zero value
	// (-backend auto with SOFTGRAPH_BACKEND=gl).
	dev, err := wgpu.Open(wgpu.Options{Backend: backend, Adapter: *adapter, ForceFallback: *fallback, IgnoreEnv: true})
	if err != nil {
		return fmt.Errorf("open a device: %w", err)
	}
	defer dev.Close()
	fmt.Fprintf(stdout, "opened:   %s\n", dev.Info())

	if err := selfCheck(dev, stdout); err != nil {
		return fmt.Errorf("self-check failed on %s: %w", dev.Info(), err)
	}
	fmt.Fprintf(stdout, "self-check passed on %s\n", dev.Info())
	return nil
}

// selfCheck runs each check on a stream of its own device and closes the
// stream, so device errors still queued at the end are reported too.
func selfCheck(dev *wgpu.Device, stdout io.Writer) (err error) {
	s, err := recorder.New(dev)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close stream: %w", cerr)
		}
	}()
	if err := checkAddOne(s, 1000); err != nil {
		return fmt.Errorf("add_one: %w", err)
	}
	fmt.Fprintln(stdout, "add_one:  1000 elements match")
	if err := checkMatMul(s, 37, 23, 29); err != nil {
		return fmt.Errorf("matmul: %w", err)
	}
	fmt.Fprintln(stdout, "matmul:   37×29 · 29×23 matches the CPU")
	return nil
}

func checkAddOne(s *recorder.Stream, n uint32) error {
	k, err := shaders.AddOne.Compile(s.Device())
	if err != nil {
		return err
	}
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)/4 - 100
	}
	src, err := recorder.UploadSlice(s, in)
	if err != nil {
		return err
	}
	defer src.Release()
	dst, err := s.Alloc(src.Size())
	if err != nil {
		return err
	}
	defer dst.Release()
	if err := s.Launch(k, shaders.ElementwiseGroups(n), src, dst, shaders.AddOneParams(n)); err != nil {
		return err
	}
	out, err := recorder.ReadSlice[float32](s, dst)
	if err != nil {
		return err
	}
	for i, v := range in {
		if out[i] != v+1 {
			return fmt.Errorf("element %d: got %v, want %v", i, out[i], v+1)
		}
	}
	return nil
}

// checkMatMul multiplies an m×k by a k×n matrix of integers in [-3, 3]: every
// product and partial sum is a small integer, exact in float32, so the GPU's
// result must equal the CPU's exactly.
func checkMatMul(s *recorder.Stream, m, n, k uint32) error {
	kern, err := shaders.MatMul.Compile(s.Device())
	if err != nil {
		return err
	}
	a := make([]float32, m*k)
	for i := range a {
		a[i] = float32((3*i+1)%7) - 3
	}
	b := make([]float32, k*n)
	for i := range b {
		b[i] = float32((5*i+2)%7) - 3
	}
	want := make([]float32, m*n)
	for r := range m {
		for c := range n {
			var acc float32
			for j := range k {
				acc += a[r*k+j] * b[j*n+c]
			}
			want[r*n+c] = acc
		}
	}

	ga, err := recorder.UploadSlice(s, a)
	if err != nil {
		return err
	}
	defer ga.Release()
	gb, err := recorder.UploadSlice(s, b)
	if err != nil {
		return err
	}
	defer gb.Release()
	gc, err := s.Alloc(4 * uint64(m*n))
	if err != nil {
		return err
	}
	defer gc.Release()
	if err := s.Launch(kern, shaders.MatMulGroups(m, n), ga, gb, gc, shaders.MatMulParams(m, n, k)); err != nil {
		return err
	}
	got, err := recorder.ReadSlice[float32](s, gc)
	if err != nil {
		return err
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("element C[%d][%d]: got %v, want %v", uint32(i)/n, uint32(i)%n, got[i], want[i])
		}
	}
	return nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// isTrue reads SOFTGRAPH_FALLBACK as wgpu.Open does: "1" or "true".
func isTrue(v string) bool { return v == "1" || strings.EqualFold(v, "true") }
