package shaders_test

import (
	"fmt"
	"testing"

	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/shaders"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestLaunchHelpersRefuseUndersizedBuffers: every shipped kernel's Launch
// checks each buffer against the elements the call covers and refuses a
// smaller one with wgpu.ErrInvalidArgument, naming the kernel, the buffer
// and both sizes, before anything is enqueued. The kernels guard their
// accesses by arrayLength, so without the check an undersized output was
// truncated silently (Add with n = 256 on a 16-byte output wrote 4
// results). The same calls with large enough buffers succeed.
func TestLaunchHelpersRefuseUndersizedBuffers(t *testing.T) {
	_, s := openStream(t)
	big := func() *recorder.Buffer { return gputest.Empty(t, s, 8192) }
	small := gputest.Empty(t, s, 16)
	cases := []struct {
		name, arg string
		call      func(b *recorder.Buffer) error // b is the buffer under test
	}{
		{"add_one", "dst", func(b *recorder.Buffer) error { return shaders.AddOne.Launch(s, big(), b, 256) }},
		{"copy", "src", func(b *recorder.Buffer) error { return shaders.Copy.Launch(s, b, big(), 2, 3, 0) }},
		{"copy", "dst", func(b *recorder.Buffer) error { return shaders.Copy.Launch(s, big(), b, 4, 0, 1) }},
		{"scale", "x", func(b *recorder.Buffer) error { return shaders.Scale.Launch(s, b, big(), 256, 2) }},
		{"axpy", "y", func(b *recorder.Buffer) error { return shaders.Axpy.Launch(s, big(), b, 256, 2) }},
		{"add", "out", func(b *recorder.Buffer) error { return shaders.Add.Launch(s, big(), big(), b, 256) }},
		{"mul", "b", func(b *recorder.Buffer) error { return shaders.Mul.Launch(s, big(), b, big(), 256) }},
		{"sum", "out", func(b *recorder.Buffer) error { return shaders.Sum.Launch(s, big(), b, 1024+1) }},
		{"matmul", "a", func(b *recorder.Buffer) error { return shaders.MatMul.Launch(s, b, big(), big(), 2, 3, 4) }},
		{"matmul", "c", func(b *recorder.Buffer) error { return shaders.MatMul.Launch(s, big(), big(), b, 2, 3, 4) }},
		{"softmax", "y", func(b *recorder.Buffer) error { return shaders.Softmax.Launch(s, big(), b, 2, 3) }},
		{"rms_norm", "w", func(b *recorder.Buffer) error { return shaders.RMSNorm.Launch(s, big(), b, big(), 2, 5, 1e-5) }},
		{"bias_relu", "x", func(b *recorder.Buffer) error { return shaders.BiasReLU.Launch(s, b, big(), big(), 2, 3) }},
		{"bias_gelu", "bias", func(b *recorder.Buffer) error { return shaders.BiasGELU.Launch(s, big(), b, big(), 1, 5) }},
	}
	for _, c := range cases {
		t.Run(c.name+" "+c.arg, func(t *testing.T) {
			gputest.WantErr(t, "an undersized "+c.arg, c.call(small), []error{wgpu.ErrInvalidArgument}, c.name, c.arg+" is 16 bytes")
			if err := c.call(big()); err != nil {
				t.Fatalf("the same launch with a large enough %s: %v", c.arg, err)
			}
		})
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
}

// TestAddLaunchComputesExactlyN: Add.Launch with buffers of exactly n
// elements computes all n sums.
func TestAddLaunchComputesExactlyN(t *testing.T) {
	_, s := openStream(t)
	for _, n := range []uint32{1, 256, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			a, b := make([]float32, n), make([]float32, n)
			want := make([]float32, n)
			for i := range a {
				a[i], b[i] = float32(i), float32(2*i)
				want[i] = float32(3 * i)
			}
			out := gputest.Empty(t, s, 4*uint64(n))
			if err := shaders.Add.Launch(s, upload(t, s, a), upload(t, s, b), out, n); err != nil {
				t.Fatal(err)
			}
			gputest.WantEqual(t, "a + b", want, gputest.Read(t, s, out))
		})
	}
}
