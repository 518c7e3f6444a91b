// Command compute is the smallest softgraph program: it opens the GPU,
// prints which adapter it got, adds one to a few numbers with a shipped WGSL
// kernel (shaders.AddOne), reads them back and checks them.
//
//	go run ./examples/compute
//
// It shows the whole eager path in order: wgpu.Open picks the adapter
// (SOFTGRAPH_BACKEND, SOFTGRAPH_ADAPTER and SOFTGRAPH_FALLBACK=1 steer it),
// recorder.New makes a stream, UploadSlice copies the input to the GPU,
// Launch enqueues the kernel, and ReadSlice waits for it and copies the
// result back. It exits with status 1 and a message if any step fails or
// the GPU computed a wrong result, so it doubles as a smoke test of a new
// machine's driver.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/softgraph/softgraph/examples/internal/cli"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/wgpu"
)

func main() {
	fs := flag.NewFlagSet("compute", flag.ContinueOnError)
	if err := cli.Parse(fs, os.Args[1:], false); err != nil {
		cli.Exit("compute", err) // -h, or anything else: it takes no flags
	}
	cli.Exit("compute", run())
}

func run() error {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()
	fmt.Println("adapter:", dev.Info())

	s, err := recorder.New(dev)
	if err != nil {
		return err
	}
	defer s.Close()
	k, err := shaders.AddOne.Compile(dev)
	if err != nil {
		return err
	}

	in := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	src, err := recorder.UploadSlice(s, in)
	if err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	dst, err := s.Alloc(src.Size())
	if err != nil {
		return fmt.Errorf("allocate the output: %w", err)
	}
	n := uint32(len(in))
	if err := s.Launch(k, shaders.ElementwiseGroups(n), src, dst, shaders.AddOneParams(n)); err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	out, err := recorder.ReadSlice[float32](s, dst)
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	fmt.Println("input: ", in)
	fmt.Println("output:", out)

	for i, v := range in {
		if out[i] != v+1 {
			return fmt.Errorf("wrong result at %d: got %v, want %v", i, out[i], v+1)
		}
	}
	fmt.Println("ok: every output is its input + 1")
	return nil
}
