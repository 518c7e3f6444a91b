package main

import (
	_ "cogentcore.org/core/gpu"
	_ "github.com/softgraph/softgraph/wgpu"
)

func main() {}
