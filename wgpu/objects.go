package wgpu

import (
	"sync/atomic"

	"github.com/softgraph/softgraph/internal/lockrank"
)

// life is the lifetime of one native object handle: the owner's reference
// (1) plus one per call using the object right now. Release drops the
// owner's reference; the native object is freed when the count reaches
// zero, so a call that acquired the object finishes with it intact, and a
// call after Release fails instead of touching a freed handle. Objects are
// never recycled, so "increment only while positive" cannot resurrect one.
type life struct {
	refs     atomic.Int32
	released atomic.Bool
}

// native is what a tracked object frees when its last reference goes.
type native interface{ freeNative() }

func (l *life) init() { l.refs.Store(1) }

// acquire adds a reference for a call, or reports false after Release.
func (l *life) acquire() bool {
	for {
		if l.released.Load() {
			return false
		}
		n := l.refs.Load()
		if n <= 0 {
			return false
		}
		if l.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// drop releases a reference taken by acquire (or the owner's).
func (l *life) drop(o native) {
	if l.refs.Add(-1) == 0 {
		o.freeNative()
	}
}

// release drops the owner's reference once; later calls are no-ops.
func (l *life) release(o native) bool {
	if !l.released.CompareAndSwap(false, true) {
		return false
	}
	l.drop(o)
	return true
}

// Released reports whether Release was called.
func (l *life) Released() bool { return l.released.Load() }

// objects tracks the native objects made through a device and still alive,
// so Close can release them before the device: wgpu-native v22 releasing an
// object after its device (or leaving one alive) corrupts the next device of
// the process, whose first submission then aborts.
type objects struct {
	mu  lockrank.Mutex // lockrank.Native
	set map[releaser]struct{}
}

// releaser is a tracked object: releaseOwner drops the owner's reference
// without the gate (Close, once no call is inside, releases through it).
type releaser interface{ releaseOwner() }

// releaseGated is every Release: it drops the owner's reference inside
// the device's gate, so Close (which waits for the gate to empty, then
// releases what is left through releaseOwner) never races a Release, and
// no native object is freed after the device. A Release that finds Close
// begun does nothing: Close frees the object.
func (d *Device) releaseGated(l *life, o native) {
	if d.use.enter() {
		l.release(o)
		d.use.leave()
	}
}

func (o *objects) add(r releaser) {
	o.mu.Lock()
	if o.set == nil {
		o.set = map[releaser]struct{}{}
	}
	o.set[r] = struct{}{}
	o.mu.Unlock()
}

func (o *objects) remove(r releaser) {
	o.mu.Lock()
	delete(o.set, r)
	o.mu.Unlock()
}

// releaseAll releases everything still tracked, in the order given by
// first (programs and encoders before the objects they reference).
func (o *objects) releaseAll(first func(releaser) bool) {
	o.mu.Lock()
	var early, late []releaser
	for r := range o.set {
		if first(r) {
			early = append(early, r)
		} else {
			late = append(late, r)
		}
	}
	o.mu.Unlock()
	for _, r := range early {
		r.releaseOwner()
	}
	for _, r := range late {
		r.releaseOwner()
	}
}

// triageEvery is how many buffers and textures may be released between
// two polls of the device (see triage).
const triageEvery = 64

// triage lets wgpu-core free what was released. wgpu-core (v22) destroys
// a released shader module, pipeline, layout, buffer or texture only at
// the device's next maintenance, a submit or a poll, and keeps it (with
// the driver's memory behind it) alive until then, though no handle is
// left: a program that releases objects and submits nothing — refused
// LoadGraph calls, which compile and release a file's kernels — grew
// without bound (docs/design.md, "Native memory"). A kernel's release
// polls at once (force: a pipeline holds the driver's compiled code); a
// buffer's or texture's every triageEvery releases, so a pool that gives
// pages back pays one non-blocking poll per 64. The poll blocks on
// nothing; on OpenGL it takes the context lock like any poll.
func (d *Device) triage(force bool) {
	if !force && d.freedSincePoll.Add(1) < triageEvery {
		return
	}
	d.freedSincePoll.Store(0)
	d.pollOnce()
}
