package lifecycle_test

import (
	"errors"
	"fmt"

	"github.com/softgraph/softgraph/lifecycle"
)

// The capture order, and what a refusal looks like.
func ExampleState() {
	var s lifecycle.State // the zero value is NoCapture
	err := s.Begin()
	fmt.Println(errors.Is(err, lifecycle.ErrGraphState), err)

	_ = s.Prepare() // warmup runs eagerly here, the cache already in capture mode
	fmt.Println(s, s.CacheMode())
	_ = s.Begin() // launches are recorded from now on
	fmt.Println(s, s.IsRecording())
	_ = s.End()
	fmt.Println(s)
	// Output:
	// true lifecycle: BeginCapture: call PrepareCapture before starting a capture (stream is in no_capture)
	// prepare capture
	// capture true
	// no_capture
}
