package wgpu_test

import (
	"errors"
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
	ws := make([]*addOneWorker, len(devs))
	for i, d := range devs {
		ws[i] = startAddOneWorker(t, d, float32(1000*i))
	}
	time.Sleep(200 * time.Millisecond) // every device has traffic
	for _, i := range order {
		w := ws[i]
		runs, wrong := w.stop()
		if err := w.s.Close(); err != nil {
			t.Errorf("device %d's stream Close: %v", i, err)
		}
		if err := devs[i].Close(); err != nil {
			t.Errorf("device %d Close while the others work: %v", i, err)
		}
		if runs == 0 || len(wrong) > 0 {
			t.Errorf("device %d, until it closed, must compute exact results: %d runs, errors %q", i, runs, wrong)
		}
		time.Sleep(100 * time.Millisecond) // the others work on after the Close
	}
}

// TestGLAdaptersAndOpenWhileAnotherGLDeviceWorks: listing the OpenGL
// adapters (Adapters, Unavailable) and opening and closing GL Devices, all
// while another GL Device runs kernels on its own goroutine, abort nothing,
// and the working device computes exact results throughout. Enumerating
// the GL instance's adapters, making a device and releasing an adapter
// make the shared EGL context current: without glContext around them the
// process aborted (eglMakeCurrent: EGL_BAD_ACCESS) within the first few
// calls on llvmpipe. In a fresh process: an abort is this test's failure.
func TestGLAdaptersAndOpenWhileAnotherGLDeviceWorks(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		if len(wgpu.Adapters(wgpu.BackendGL)) == 0 {
			gputest.SkipIfNoAdapter(t, wgpu.ErrNoAdapter)
			t.Skip("no OpenGL adapter")
		}
		d, err := wgpu.Open(wgpu.Options{Backend: wgpu.BackendGL, IgnoreEnv: true})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		w := startAddOneWorker(t, d, 0)
		defer w.s.Close()
		time.Sleep(100 * time.Millisecond) // the device has traffic
		calls := map[string]func() error{
			"Adapters": func() error {
				if len(wgpu.Adapters(wgpu.BackendGL)) == 0 {
					return fmt.Errorf("no GL adapter listed")
				}
				return nil
			},
			"Unavailable": func() error {
				if u := wgpu.Unavailable(wgpu.BackendGL); len(u) != 0 {
					return fmt.Errorf("GL listed as unavailable: %q", u)
				}
				return nil
			},
			"Open, Kernel, Close": func() error {
				d2, err := wgpu.Open(wgpu.Options{Backend: wgpu.BackendGL, IgnoreEnv: true})
				if err != nil {
					return err
				}
				_, kerr := d2.Kernel(gputest.AddOneWGSL, "main")
				return errors.Join(kerr, d2.Close())
			},
			"OpenN(2), Close": func() error {
				ds, err := wgpu.OpenN(wgpu.Options{Backend: wgpu.BackendGL, IgnoreEnv: true}, 2)
				for _, d2 := range ds {
					err = errors.Join(err, d2.Close())
				}
				return err
			},
		}
		for _, name := range []string{"Adapters", "Unavailable", "Open, Kernel, Close", "OpenN(2), Close"} {
			for range 10 {
				if err := calls[name](); err != nil {
					t.Errorf("%s while another GL device works: %v", name, err)
					break
				}
			}
		}
		if runs, wrong := w.stop(); runs == 0 || len(wrong) > 0 {
			t.Errorf("the working device must compute exact results throughout: %d runs, errors %q", runs, wrong)
		}
	})
}

// addOneWorker adds one to a fresh ramp on its own stream of a device, and
// checks the result, over and over until stopped.
type addOneWorker struct {
	s     *recorder.Stream
	quit  chan struct{}
	done  chan struct{}
	runs  int
	wrong []string
}

func startAddOneWorker(t *testing.T, d *wgpu.Device, from float32) *addOneWorker {
	t.Helper()
	s, err := recorder.New(d)
	if err != nil {
		t.Fatal(err)
	}
	k, err := d.Kernel(gputest.AddOneWGSL, "main")
	if err != nil {
		t.Fatal(err)
	}
	w := &addOneWorker{s: s, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		in := gputest.Ramp(256, from)
		for {
			select {
			case <-w.quit:
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
	return w
}

// stop ends the worker and returns how many runs it checked and what went
// wrong.
func (w *addOneWorker) stop() (int, []string) {
	close(w.quit)
	<-w.done
	return w.runs, w.wrong
}
