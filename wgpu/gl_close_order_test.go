package wgpu_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/softgraph/softgraph/recorder"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestGLDevicesCloseInAnyOrderWhileOthersWork: of two or three OpenGL
// Devices that OpenN opened on one adapter (they share the process's one
// EGL context), each can be closed, in any order, while the others run
// kernels on their own goroutines, and the others go on computing exact
// results; nothing aborts. Without Device.Close holding glMu around the
// release of its queue, device and adapter (whose GL teardown makes the
// shared context current), eglMakeCurrent failed with EGL_BAD_ACCESS and
// the process aborted ("egl.rs:295 ... BadAccess", in the other device's
// queue write or submit), on llvmpipe in every one of three runs, as the
// issue saw inside wgpuDeviceRelease on the H200's GL. In a fresh process:
// an abort is this test's failure.
func TestGLDevicesCloseInAnyOrderWhileOthersWork(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		if len(wgpu.Adapters(wgpu.BackendGL)) == 0 {
			gputest.SkipIfNoAdapter(t, wgpu.ErrNoAdapter)
			t.Skip("no OpenGL adapter")
		}
		for _, order := range [][]int{{0, 1}, {1, 0}, {0, 1, 2}, {2, 0, 1}, {1, 2, 0}} {
			t.Run(fmt.Sprint(order), func(t *testing.T) { closeInOrderWhileOthersWork(t, order) })
		}
	})
}

func closeInOrderWhileOthersWork(t *testing.T, order []int) {
	devs, err := wgpu.OpenN(wgpu.Options{Backend: wgpu.BackendGL, IgnoreEnv: true}, len(order))
	if err != nil {
		t.Fatalf("OpenN(gl, %d): %v", len(order), err)
	}
	type worker struct {
		s     *recorder.Stream
		stop  chan struct{}
		done  chan struct{}
		runs  int
		wrong []string
	}
	ws := make([]*worker, len(devs))
	for i, d := range devs {
		s, err := recorder.New(d)
		if err != nil {
			t.Fatal(err)
		}
		k, err := d.Kernel(gputest.AddOneWGSL, "main")
		if err != nil {
			t.Fatal(err)
		}
		w := &worker{s: s, stop: make(chan struct{}), done: make(chan struct{})}
		ws[i] = w
		go func() {
			defer close(w.done)
			in := gputest.Ramp(256, float32(1000*i))
			for {
				select {
				case <-w.stop:
					return
				default:
				}
				got, err := func() ([]float32, error) {
					a, err := recorder.UploadSlice(w.s, in)
					if err != nil {
						return nil, err
					}
					defer a.Release()
					b, err := w.s.Alloc(a.Size())
					if err != nil {
						return nil, err
					}
					defer b.Release()
					if err := gputest.Chain(w.s, k, a, b, 1, uint32(len(in))); err != nil {
						return nil, err
					}
					return recorder.ReadSlice[float32](w.s, b)
				}()
				if err != nil {
					w.wrong = append(w.wrong, err.Error())
					return
				}
				if d := cmp.Diff(gputest.Plus(in, 1), got); d != "" {
					w.wrong = append(w.wrong, "wrong result: "+d)
					return
				}
				w.runs++
			}
		}()
	}
	time.Sleep(200 * time.Millisecond) // every device has traffic
	for _, i := range order {
		w := ws[i]
		close(w.stop)
		<-w.done
		if err := w.s.Close(); err != nil {
			t.Errorf("device %d's stream Close: %v", i, err)
		}
		if err := devs[i].Close(); err != nil {
			t.Errorf("device %d Close while the others work: %v", i, err)
		}
		if w.runs == 0 || len(w.wrong) > 0 {
			t.Errorf("device %d, until it closed, must compute exact results: %d runs, errors %q", i, w.runs, w.wrong)
		}
		time.Sleep(100 * time.Millisecond) // the others work on after the Close
	}
}
