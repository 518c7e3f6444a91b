package wgpu

import "sync"

// Flusher is a user of the device's queue that may hold encoded but
// unsubmitted work (a recorder stream). Device keeps a registry of them so
// an operation that must observe every earlier command on the device, such
// as a read, can have all of them submitted first.
type Flusher interface {
	// Flush submits whatever the flusher has encoded and not yet submitted.
	Flush() error
}

type flushers struct {
	mu   sync.Mutex
	next uint64
	set  map[uint64]Flusher
}

// AddFlusher registers f and returns the function that unregisters it.
func (d *Device) AddFlusher(f Flusher) (remove func()) {
	d.flush.mu.Lock()
	defer d.flush.mu.Unlock()
	if d.flush.set == nil {
		d.flush.set = map[uint64]Flusher{}
	}
	d.flush.next++
	id := d.flush.next
	d.flush.set[id] = f
	return func() {
		d.flush.mu.Lock()
		delete(d.flush.set, id)
		d.flush.mu.Unlock()
	}
}

// FlushOthers calls Flush on every registered flusher except self, and
// returns their errors joined. It holds no lock while a flusher runs, so a
// flusher may itself call FlushOthers without deadlock.
func (d *Device) FlushOthers(self Flusher) []error {
	d.flush.mu.Lock()
	list := make([]Flusher, 0, len(d.flush.set))
	for _, f := range d.flush.set {
		if f != self {
			list = append(list, f)
		}
	}
	d.flush.mu.Unlock()
	var errs []error
	for _, f := range list {
		if err := f.Flush(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
