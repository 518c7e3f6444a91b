package wgpu_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

// TestReadsSurviveGarbageCollectionBeforeTheMapCallback reads buffers back
// from several goroutines while another runs the garbage collector and
// allocates without pause. The map callback runs later, inside whichever
// poll or submit wgpu-native processes it in, so whatever it is given to
// find its caller must live in memory the collector does not own: with
// cogentcore's MapAsync (a pointer to a Go variable as the user data) the
// callback found reused memory and the process died with "misuse of an
// invalid Handle" inside a later submit (seen on the H200). In a fresh
// process, so a regression is this test's failure, not the suite's death.
func TestReadsSurviveGarbageCollectionBeforeTheMapCallback(t *testing.T) {
	gputest.InFreshProcess(t, func(t *testing.T) {
		d := gputest.Open(t, wgpu.Options{})
		v := drv(t, d)
		stop := make(chan struct{})
		var churn sync.WaitGroup
		churn.Add(1)
		go func() {
			defer churn.Done()
			var keep [][]byte
			for {
				select {
				case <-stop:
					return
				default:
				}
				for i := range 256 {
					keep = append(keep, make([]byte, 8+i%24))
				}
				if len(keep) > 1<<14 {
					keep = nil
				}
				runtime.GC()
			}
		}()
		defer func() { close(stop); churn.Wait() }()
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for g := range 4 {
			b := newBuffer(t, v, 256, storageUsage)
			st := newBuffer(t, v, 256, driver.UsageMapRead|driver.UsageCopyDst)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 60 {
					want := make([]byte, 256)
					for j := 0; j < len(want); j += 4 {
						binary.LittleEndian.PutUint32(want[j:], uint32(g<<20|i<<8|j))
					}
					if err := v.WriteBuffer(b, 0, want); err != nil {
						errs <- err
						return
					}
					got, err := copyAndRead(v, b, st)
					if err != nil {
						errs <- err
						return
					}
					if !bytes.Equal(got, want) {
						errs <- fmt.Errorf("goroutine %d read %d: got %x…, want %x…", g, i, got[:8], want[:8])
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

// copyAndRead is readBack for a goroutine: b copied into the staging
// buffer st, submitted, mapped and read.
func copyAndRead(v driver.Device, b, st driver.Buffer) ([]byte, error) {
	enc, err := v.NewEncoder()
	if err != nil {
		return nil, err
	}
	defer enc.Release()
	if err := enc.CopyBuffer(b, 0, st, 0, b.Size()); err != nil {
		return nil, err
	}
	cb, err := enc.Finish()
	if err != nil {
		return nil, err
	}
	if _, err := v.Submit([]driver.CommandBuffer{cb}); err != nil {
		return nil, err
	}
	out := make([]byte, b.Size())
	return out, v.ReadBuffer(context.Background(), st, 0, out)
}
