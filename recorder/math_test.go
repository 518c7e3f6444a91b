package recorder_test

import "math"

func mathFloat32bits(f float32) uint32 { return math.Float32bits(f) }
