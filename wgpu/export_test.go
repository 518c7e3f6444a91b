package wgpu

import "github.com/softgraph/softgraph/internal/driver"

// GLBarriers reports how many barrier kernels e, an encoder of this
// package, has dispatched (glbarrier.go), for the external tests.
func GLBarriers(e driver.Encoder) int { return e.(*encoder).glBarriers() }
