package recorder

import (
	"context"
	"sync/atomic"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/lockrank"
)

// The streams of one device: what a Read flushes before its own copy,
// and the bind group caches a release of shared memory makes stale.

// deviceStreams is the recorder's per-device context: the streams open on
// one device, so that a Read can submit the work every other stream has
// enqueued before it. The device keeps it (driver.Local) without
// knowing what it is: package wgpu knows no streams.
type deviceStreams struct {
	mu      lockrank.Mutex // lockrank.Streams
	streams map[*Stream]struct{}
	// groupsEpoch counts the releases of native resources (a texture, a
	// sampler, pool pages) that a bind group cached by any stream of the
	// device may hold: a stream whose cache saw an older epoch empties it
	// before its next lookup (Stream.syncGroups), and Trim, Close and
	// Texture/Sampler Release sweep the other streams at once, so that no
	// stream's cache keeps another stream's released memory alive.
	groupsEpoch atomic.Uint64
}

// groupsGone marks every stream's cached bind groups stale: a native
// resource one of them may hold was released. Lock-free, so it may run
// under any lock (a pool's, a stream's).
func (d *deviceStreams) groupsGone() { d.groupsEpoch.Add(1) }

// sweepGroups empties the stale bind group caches of every stream of the
// device but skip, taking each stream's lock in turn and never two at once
// (the caller holds none). With wait false a stream whose lock is busy is
// left to empty its cache at its next launch.
func (d *deviceStreams) sweepGroups(skip *Stream, wait bool) {
	for _, s := range d.others(skip) {
		if wait {
			s.mu.Lock()
		} else if !s.mu.TryLock() {
			continue
		}
		if !s.closing.Load() {
			s.syncGroups()
		}
		s.mu.Unlock()
	}
}

// syncGroups empties the stream's bind group cache if a resource it may
// hold was released since it last looked. The caller holds s.mu.
func (s *Stream) syncGroups() {
	if e := s.shared.groupsEpoch.Load(); e != s.groupsSeen {
		s.groups.clear()
		s.groupsSeen = e
	}
}

// streamsKey is the device-local slot of a device's streams.
var streamsKey = driver.Key[deviceStreams]{New: func() *deviceStreams {
	return &deviceStreams{mu: lockrank.Mutex{Rank: lockrank.Streams}, streams: map[*Stream]struct{}{}}
}}

func streamsOf(drv driver.Device) *deviceStreams { return driver.Local(drv, &streamsKey) }

func (d *deviceStreams) add(s *Stream) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.drv.Err() != nil {
		return false
	}
	d.streams[s] = struct{}{}
	return true
}

func (d *deviceStreams) remove(s *Stream) {
	d.mu.Lock()
	delete(d.streams, s)
	d.mu.Unlock()
}

// flushOthers hands off the open batch of every stream but self and waits
// until each of those batches is submitted, so that a read of self's sees
// everything enqueued on the device before it. It holds no stream's lock
// while it waits (two streams reading at once cannot deadlock, and a
// stream busy with long GPU work cannot hold the caller), takes each other
// stream's lock only for its hand-off, and gives up when ctx ends: a
// deadline holds however long another stream's submitter or lock is busy
// (behind that stream's own GPU work, say).
func (d *deviceStreams) flushOthers(ctx context.Context, self *Stream) error {
	for _, s := range d.others(self) {
		if err := s.lockContext(ctx); err != nil {
			return err
		}
		if s.closing.Load() {
			s.mu.Unlock()
			continue
		}
		pending := s.eng.HandOffPending()
		s.mu.Unlock()
		if err := pending.Await(ctx); err != nil {
			return err
		}
	}
	return nil
}

// lockContext takes s.mu, giving up when ctx ends (Engine.LockContext).
func (s *Stream) lockContext(ctx context.Context) error { return s.eng.LockContext(ctx) }

// others is the device's streams but skip, listed under d.mu, which it
// lets go before returning: the caller takes their locks one at a time.
func (d *deviceStreams) others(skip *Stream) []*Stream {
	d.mu.Lock()
	defer d.mu.Unlock()
	list := make([]*Stream, 0, len(d.streams))
	for s := range d.streams {
		if s != skip {
			list = append(list, s)
		}
	}
	return list
}
