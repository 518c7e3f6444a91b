package shaders_test

import (
	"fmt"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/wgpu"
)

func ExampleShader_Compile() {
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

	k, err := shaders.AddOne.Compile(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	src, err := recorder.UploadSlice(s, []float32{1, 2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	dst, err := s.Alloc(src.Size())
	if err != nil {
		fmt.Println(err)
		return
	}
	const n = 3
	if err := s.Launch(k, shaders.ElementwiseGroups(n), src, dst, shaders.AddOneParams(n)); err != nil {
		fmt.Println(err)
		return
	}
	v, err := recorder.ReadSlice[float32](s, dst)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v)
	// Output: [2 3 4]
}
