package wgpu

import (
	"slices"
	"sync"
)

// Dependent is a user of the device that may hold encoded but unsubmitted
// work and native objects made from the device: a recorder stream. Device
// keeps a registry of them so that an operation that must observe every
// earlier command on the device, such as a read, can have all of them
// submitted first, and so that Close can close them before the device goes.
type Dependent interface {
	// Flush submits whatever the dependent has encoded and not yet submitted.
	Flush() error
	// Close releases everything the dependent made from the device.
	Close() error
}

type dependents struct {
	mu   sync.Mutex
	next uint64
	set  map[uint64]Dependent
}

// AddDependent registers f and returns the function that unregisters it.
func (d *Device) AddDependent(f Dependent) (remove func()) {
	d.deps.mu.Lock()
	defer d.deps.mu.Unlock()
	if d.deps.set == nil {
		d.deps.set = map[uint64]Dependent{}
	}
	d.deps.next++
	id := d.deps.next
	d.deps.set[id] = f
	return func() {
		d.deps.mu.Lock()
		delete(d.deps.set, id)
		d.deps.mu.Unlock()
	}
}

// FlushOthers calls Flush on every registered dependent except self, and
// returns their errors. It holds no lock while a dependent runs, so a
// dependent may itself call FlushOthers without deadlock.
func (d *Device) FlushOthers(self Dependent) []error {
	d.deps.mu.Lock()
	list := make([]Dependent, 0, len(d.deps.set))
	for _, f := range d.deps.set {
		if f != self {
			list = append(list, f)
		}
	}
	d.deps.mu.Unlock()
	var errs []error
	for _, f := range list {
		if err := f.Flush(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// closeDependents closes every registered dependent, oldest first, with no
// lock held (a dependent's Close uses the device).
func (d *Device) closeDependents() {
	d.deps.mu.Lock()
	ids := make([]uint64, 0, len(d.deps.set))
	for id := range d.deps.set {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	list := make([]Dependent, 0, len(ids))
	for _, id := range ids {
		list = append(list, d.deps.set[id])
	}
	d.deps.mu.Unlock()
	for _, dep := range list {
		_ = dep.Close()
	}
}

// objects tracks the native objects made directly through the device that
// are still alive, so Close can release them before the device: wgpu-native
// v22 releasing an object after its device was released (or leaving one
// alive) corrupts the next device of the process, whose first submission
// then aborts.
type objects struct {
	mu  sync.Mutex
	set map[nativeObject]struct{}
}

type nativeObject interface{ releaseNative() bool }

func (d *Device) track(o nativeObject) {
	d.objs.mu.Lock()
	if d.objs.set == nil {
		d.objs.set = map[nativeObject]struct{}{}
	}
	d.objs.set[o] = struct{}{}
	d.objs.mu.Unlock()
}

func (d *Device) untrack(o nativeObject) {
	d.objs.mu.Lock()
	delete(d.objs.set, o)
	d.objs.mu.Unlock()
}

// releaseObjects releases everything still tracked. Their later Release
// calls are no-ops.
func (d *Device) releaseObjects() {
	d.objs.mu.Lock()
	list := make([]nativeObject, 0, len(d.objs.set))
	for o := range d.objs.set {
		list = append(list, o)
	}
	d.objs.mu.Unlock()
	for _, o := range list {
		o.releaseNative()
	}
}
