package workloads_test

import (
	"fmt"

	"github.com/softgraph/softgraph/examples/workloads"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/wgpu"
)

// A blinker on a 5×5 torus, stepped eagerly once and then by a captured
// two-step graph: it turns vertical, and is horizontal again after every
// even number of generations.
func ExampleNewLife() {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	life, err := workloads.NewLife(s, 5, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer life.Release()
	cells := make([]uint32, 25)
	cells[11], cells[12], cells[13] = 1, 1, 1
	show := func(what string) {
		c, err := life.Read()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(what)
		for y := range 5 {
			fmt.Println(c[5*y : 5*y+5])
		}
	}
	if err := life.Write(cells); err != nil {
		fmt.Println(err)
		return
	}
	if err := life.Step(); err != nil {
		fmt.Println(err)
		return
	}
	show("generation 1:")

	g, err := s.Capture(func() error { return life.Steps(2) }) // the warmup runs generations 2 and 3
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Release()
	if err := g.Replay(); err != nil { // 4 and 5
		fmt.Println(err)
		return
	}
	show("generation 5:")
	// Output:
	// generation 1:
	// [0 0 0 0 0]
	// [0 0 1 0 0]
	// [0 0 1 0 0]
	// [0 0 1 0 0]
	// [0 0 0 0 0]
	// generation 5:
	// [0 0 0 0 0]
	// [0 0 1 0 0]
	// [0 0 1 0 0]
	// [0 0 1 0 0]
	// [0 0 0 0 0]
}

// One white texel in a 5×1 image, blurred with radius 1: the weights 1, 2,
// 1 (over 4) spread it to its neighbours, rounded to the nearest 8-bit
// code; the vertical pass, clamped to the single row, leaves it as is.
func ExampleNewBlur() {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	b, err := workloads.NewBlur(s, 5, 1, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Release()
	pix := make([]byte, 5*4)
	copy(pix[2*4:], []byte{255, 255, 255, 255})
	img, err := s.UploadTexture(b.Desc(), pix)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer img.Release()
	if err := b.Run(img, img); err != nil {
		fmt.Println(err)
		return
	}
	out, err := s.ReadTexture(img)
	if err != nil {
		fmt.Println(err)
		return
	}
	for x := range 5 {
		fmt.Print(out[4*x], " ")
	}
	fmt.Println()
	// Output: 0 64 128 64 0
}

// Eight keys sorted by the bitonic network, with the swaps it made.
func ExampleNewSort() {
	dev, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	s, err := recorder.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	q, err := workloads.NewSort(s, 8)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer q.Release()
	keys := []uint32{5, 3, 9, 1, 7, 2, 8, 0}
	if err := q.Write(keys); err != nil {
		fmt.Println(err)
		return
	}
	if err := q.Run(); err != nil {
		fmt.Println(err)
		return
	}
	sorted, err := q.Read()
	if err != nil {
		fmt.Println(err)
		return
	}
	swaps, err := q.Swaps()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sorted, q.Steps(), "steps,", swaps, "swaps; the host network makes", workloads.BitonicSwaps(keys))
	// Output: [0 1 2 3 5 7 8 9] 6 steps, 11 swaps; the host network makes 11
}
