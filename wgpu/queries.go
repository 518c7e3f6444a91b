package wgpu

// #include "native.h"
import "C"

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/softgraph/softgraph/internal/driver"
)

// querySet holds GPU timestamps (driver.QuerySet).
type querySet struct {
	life
	dev   *Device
	qs    *wgpu.QuerySet // owned
	raw   C.WGPUQuerySet
	count uint32
}

func (q *querySet) Count() uint32 { return q.count }
func (q *querySet) Release() {
	if q != nil {
		q.dev.releaseGated(&q.life, q)
	}
}

func (q *querySet) releaseOwner() { q.release(q) }

func (q *querySet) freeNative() {
	q.dev.objs.remove(q)
	q.dev.lockGL()
	q.qs.Release()
	q.dev.unlockGL()
	q.dev.live.querySets.Add(-1)
}

func (d *Device) newQueries(count uint32) (driver.QuerySet, error) {
	const op = "NewQueries"
	if err := d.enter(op); err != nil {
		return nil, err
	}
	defer d.leave()
	if !d.info.Timestamps {
		return nil, opError(op, ErrInvalidArgument, "the adapter has no timestamp-query feature")
	}
	if count == 0 || count > wgpu.QuerySetMaxQueries {
		return nil, opError(op, ErrInvalidArgument, "count=%d (1..%d)", count, wgpu.QuerySetMaxQueries)
	}
	var qs *wgpu.QuerySet
	if err := d.scoped(op, func() (err error) {
		qs, err = d.dev.CreateQuerySet(&wgpu.QuerySetDescriptor{Type: wgpu.QueryTypeTimestamp, Count: count})
		return err
	}); err != nil {
		if qs != nil {
			qs.Release()
		}
		return nil, err
	}
	d.live.querySets.Add(1)
	q := &querySet{dev: d, qs: qs, raw: rawQuerySet(qs), count: count}
	q.init()
	d.objs.add(q)
	return q, nil
}

func (d *Device) ownQueries(op string, x driver.QuerySet) (*querySet, error) {
	q, ok := x.(*querySet)
	if !ok || q == nil {
		return nil, opError(op, ErrInvalidArgument, "query set is nil or not a query set of this package")
	}
	if q.dev != d {
		return nil, opError(op, ErrForeignDevice, "query set")
	}
	if !q.acquire() {
		return nil, opError(op, ErrReleased, "query set")
	}
	return q, nil
}

// timestampPeriod returns how many nanoseconds one GPU timestamp tick lasts.
//
// wgpu-native v22 resolves timestamps as raw ticks and does not expose the
// queue's timestamp period, so the first call measures it (calibrate). It
// costs about 45 ms once per Device, and fails with ErrInvalidArgument
// where the adapter has no timestamp queries.
func (d *Device) timestampPeriod() (float64, error) {
	d.tsPeriod.once.Do(func() { d.tsPeriod.ns, d.tsPeriod.err = d.calibrate() })
	return d.tsPeriod.ns, d.tsPeriod.err
}

// calibrationAttempts is how many brackets calibrate measures at most
// before it settles for the narrowest.
const calibrationAttempts = 3

// calibrate measures the timestamp period. Two passes that write
// timestamps are submitted 40 ms apart to an idle GPU; each pass's
// timestamps are written somewhere between its submit and the end of its
// wait, which brackets the period (periodBracket). Where 1 lies in the
// bracket it is taken as exactly 1: Vulkan on NVIDIA and Mesa, and most
// desktop drivers, count nanoseconds. Elsewhere it is the middle of the
// narrowest of up to three brackets. (The middle alone, the first
// measurement's only estimate, was up to 45% off on lavapipe while the CPU
// was busy: a submit that waited for a core moved it.)
func (d *Device) calibrate() (float64, error) {
	if !d.info.Timestamps {
		return 0, opError("TimestampPeriod", ErrInvalidArgument, "the adapter has no timestamp-query feature")
	}
	best := [2]float64{0, math.Inf(1)}
	for range calibrationAttempts {
		lo, hi, err := d.measurePeriod()
		if err != nil {
			return 0, err
		}
		if lo <= 1 && 1 <= hi {
			best = [2]float64{1, 1}
			break
		}
		if hi/lo < best[1]/best[0] || best[0] == 0 {
			best = [2]float64{lo, hi}
		}
	}
	period := (best[0] + best[1]) / 2
	d.log.Debug().Float64("ns_per_tick", period).Float64("low", best[0]).Float64("high", best[1]).Msg("timestamp period measured")
	return period, nil
}

// periodBracket is what two timestamps t0 < t1 show of the period, when
// the first was written between host times s0 and e0 and the second
// between s1 and e1: the ticks between them lasted at least s1 - e0 and at
// most e1 - s0 of host time.
func periodBracket(s0, e0, s1, e1 time.Time, t0, t1 uint64) (lo, hi float64) {
	ticks := float64(t1 - t0)
	return max(float64(s1.Sub(e0).Nanoseconds()), 0) / ticks, float64(e1.Sub(s0).Nanoseconds()) / ticks
}

// measurePeriod submits two timestamped passes 40 ms apart, each waited
// for, and returns the bracket their timestamps give (periodBracket).
func (d *Device) measurePeriod() (lo, hi float64, err error) {
	v := d.view
	qs, err := v.NewQueries(4)
	if err != nil {
		return 0, 0, err
	}
	defer qs.Release()
	res, err := v.NewBuffer(256, driver.UsageQueryResolve|driver.UsageCopySrc, "softgraph timestamp resolve")
	if err != nil {
		return 0, 0, err
	}
	defer res.Release()
	staging, err := v.NewBuffer(32, driver.UsageMapRead|driver.UsageCopyDst, "softgraph timestamp staging")
	if err != nil {
		return 0, 0, err
	}
	defer staging.Release()
	enc, err := v.NewEncoder()
	if err != nil {
		return 0, 0, err
	}
	defer enc.Release()

	var start, end [2]time.Time
	for i := range 2 {
		if err := enc.BeginPass(&driver.Timestamps{Set: qs, Begin: uint32(2 * i), End: uint32(2*i + 1)}); err != nil {
			return 0, 0, err
		}
		cb, err := enc.Finish()
		if err != nil {
			return 0, 0, err
		}
		if i == 1 {
			time.Sleep(40 * time.Millisecond)
		}
		start[i] = time.Now()
		last, err := v.Submit([]driver.CommandBuffer{cb})
		if err != nil {
			return 0, 0, err
		}
		if err := v.Wait(context.Background(), last); err != nil {
			return 0, 0, err
		}
		end[i] = time.Now()
	}
	if err := enc.ResolveQueries(qs, 0, 4, res, 0); err != nil {
		return 0, 0, err
	}
	if err := enc.CopyBuffer(res, 0, staging, 0, 32); err != nil {
		return 0, 0, err
	}
	cb, err := enc.Finish()
	if err != nil {
		return 0, 0, err
	}
	if _, err = v.Submit([]driver.CommandBuffer{cb}); err != nil {
		return 0, 0, err
	}
	out := make([]byte, 32)
	if err := v.ReadBuffer(context.Background(), staging, 0, out); err != nil {
		return 0, 0, err
	}
	t0, t1 := binary.LittleEndian.Uint64(out[0:]), binary.LittleEndian.Uint64(out[16:])
	if t1 <= t0 {
		return 0, 0, &DeviceError{Op: "TimestampPeriod", Type: ErrorInternal, Message: fmt.Sprintf("timestamps did not advance (%d then %d)", t0, t1)}
	}
	lo, hi = periodBracket(start[0], end[0], start[1], end[1], t0, t1)
	return lo, hi, nil
}
