package wgpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// TimestampPeriod returns how many nanoseconds one GPU timestamp tick lasts.
//
// wgpu-native v22 resolves timestamps as raw ticks and does not expose the
// queue's timestamp period, so the first call measures it: two passes that
// write timestamps are submitted 40 ms apart to an idle GPU, and the tick
// difference is compared with the host's clock. A result within 5% of 1 is
// taken as exactly 1 (Vulkan on NVIDIA and Mesa, and most desktop drivers,
// count nanoseconds). The measurement runs once per Device and costs about
// 45 ms. It fails with ErrInvalidArgument where the adapter has no
// timestamp queries.
func (d *Device) TimestampPeriod() (float64, error) {
	d.tsPeriod.once.Do(func() { d.tsPeriod.ns, d.tsPeriod.err = d.calibrate() })
	return d.tsPeriod.ns, d.tsPeriod.err
}

func (d *Device) calibrate() (float64, error) {
	if !d.info.Timestamps {
		return 0, opError("TimestampPeriod", ErrInvalidArgument, "the adapter has no timestamp-query feature")
	}
	qs, err := d.NewTimestampQueries(4)
	if err != nil {
		return 0, err
	}
	defer qs.Release()
	res, err := d.NewBuffer(256, UsageQueryResolve|UsageCopySrc, "softgraph timestamp resolve")
	if err != nil {
		return 0, err
	}
	defer res.Release()
	staging, err := d.NewBuffer(32, UsageMapRead|UsageCopyDst, "softgraph timestamp staging")
	if err != nil {
		return 0, err
	}
	defer staging.Release()
	enc, err := d.NewEncoder()
	if err != nil {
		return 0, err
	}
	defer enc.Release()

	var host [2]time.Time
	var last Submission
	for i := range 2 {
		if err := enc.BeginPass(&Timestamps{Set: qs, Begin: uint32(2 * i), End: uint32(2*i + 1)}); err != nil {
			return 0, err
		}
		cb, err := enc.Finish()
		if err != nil {
			return 0, err
		}
		if i == 1 {
			time.Sleep(40 * time.Millisecond)
		}
		before := time.Now()
		if last, err = d.Submit(cb); err != nil {
			return 0, err
		}
		if err := d.Wait(context.Background(), last); err != nil {
			return 0, err
		}
		// The pass ran somewhere between the submit and the end of the wait.
		host[i] = before.Add(time.Since(before) / 2)
	}
	if err := enc.ResolveQueries(qs, 0, 4, res, 0); err != nil {
		return 0, err
	}
	if err := enc.Copy(res, 0, staging, 0, 32); err != nil {
		return 0, err
	}
	cb, err := enc.Finish()
	if err != nil {
		return 0, err
	}
	if last, err = d.Submit(cb); err != nil {
		return 0, err
	}
	out := make([]byte, 32)
	if err := d.ReadMapped(context.Background(), staging, 0, out, last); err != nil {
		return 0, err
	}
	t0, t1 := binary.LittleEndian.Uint64(out[0:]), binary.LittleEndian.Uint64(out[16:])
	if t1 <= t0 {
		return 0, &DeviceError{Op: "TimestampPeriod", Type: ErrorInternal, Message: fmt.Sprintf("timestamps did not advance (%d then %d)", t0, t1)}
	}
	period := float64(host[1].Sub(host[0]).Nanoseconds()) / float64(t1-t0)
	if math.Abs(period-1) < 0.05 {
		period = 1
	}
	d.log.Debug().Float64("ns_per_tick", period).Msg("timestamp period measured")
	return period, nil
}
