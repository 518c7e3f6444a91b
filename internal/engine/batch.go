package engine

import (
	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/paramcache"
	"github.com/softgraph/softgraph/internal/pool"
)

// Holder is what a replayed graph's pins are to a batch: a set of pages
// kept alive by reference until the batch is submitted.
type Holder interface {
	// Ref adds the batch's reference; Unref drops it once the batch is
	// retired.
	Ref()
	Unref()
	// Has reports whether pg is among the pages held.
	Has(pg *pool.Page) bool
}

// Entry is what keeps the program of counted replays alive: the batch
// calls ReleaseEntry once it is retired, and the owner releases the
// program if nothing else holds it.
type Entry interface{ ReleaseEntry() }

// Counted are N replays of one program that a batch runs after its
// finished command buffers and before its encoder's commands (replays
// counted against a ramp step whose command buffer was not used). The
// batch's processor encodes them; Entry keeps Prog alive until the batch
// is retired.
type Counted struct {
	Prog  driver.Program
	N     int
	Entry Entry
}

// Batch is what a batch holds on to until its submission: after it, the
// queue's order protects what it used. The open batch is the owner's to
// fill, under the lock (Engine.Open); a batch handed off is the engine's.
type Batch struct {
	Dispatches int                    // dispatches encoded (launches and replays), for the lost count of a failed flush
	CBs        []driver.CommandBuffer // finished command buffers that go first, in order (pre-encoded replays and what was encoded before them)
	Pages      []*pool.Page           // a reference each
	Pins       []Holder               // graphs replayed in the batch: a reference each
	Slots      []paramcache.Slot      // evicted params slots waiting for submission
	Counted    Counted                // replays counted against a ramp step: they run after CBs, before the encoder's commands
	writes     []queuedWrite          // values written before the batch's commands run, in call order
	wbytes     []byte                 // the values' bytes, in one arena per batch
}

// queuedWrite is a value travelling with a batch: the batch's processor
// writes it to the queue right before it submits the batch's command
// buffers, which is exactly where it falls in the owner's order (after
// every batch before, before every command of this one). It holds a
// reference on pg until the batch is retired.
type queuedWrite struct {
	pg     *pool.Page
	lo, hi int // the value's bytes in the batch's wbytes
}

// Open is the open batch, for the owner to fill under the lock.
func (e *Engine) Open() *Batch { return &e.open }

// AddDispatches counts n more dispatches in the open batch.
func (e *Engine) AddDispatches(n int) { e.open.Dispatches += n }

// AddCommandBuffer appends a finished command buffer to the open batch; it
// runs after those before it and before the encoder's commands.
func (e *Engine) AddCommandBuffer(cb driver.CommandBuffer) { e.open.CBs = append(e.open.CBs, cb) }

// HasCounted reports whether the open batch has counted replays.
func (e *Engine) HasCounted() bool { return e.open.Counted.Prog != nil }

// Hold makes the open batch keep pg until submission, taking over the
// caller's reference (dropped at once if the batch already holds pg).
func (e *Engine) Hold(pg *pool.Page) {
	if pg.Touch(e.Token()) {
		pg.Unref()
		return
	}
	e.open.Pages = append(e.open.Pages, pg)
}

// HoldPins makes the open batch keep a replayed graph's pins.
func (e *Engine) HoldPins(h Holder) {
	if n := len(e.open.Pins); n > 0 && e.open.Pins[n-1] == h {
		return
	}
	h.Ref()
	e.open.Pins = append(e.open.Pins, h)
}

// QueueWrite makes data pg's contents right before the open batch's
// commands run, taking over the caller's reference on pg. Only the last
// value matters to a batch whose commands do not use pg (the caller hands
// the batch off first when they do: BatchUses), so a second value for pg
// replaces the first.
func (e *Engine) QueueWrite(pg *pool.Page, data []byte) {
	b := &e.open
	for _, w := range b.writes {
		if w.pg == pg {
			copy(b.wbytes[w.lo:w.hi], data)
			pg.Unref()
			return
		}
	}
	lo := len(b.wbytes)
	b.wbytes = append(b.wbytes, data...)
	b.writes = append(b.writes, queuedWrite{pg: pg, lo: lo, hi: len(b.wbytes)})
}

// Uses reports whether pg is used by work not yet submitted: the open
// batch's commands or queued values, or a batch handed off and not yet
// submitted. A queue write to pg now would overtake it.
func (e *Engine) Uses(pg *pool.Page) bool {
	if e.BatchUses(pg) {
		return true
	}
	for _, w := range e.open.writes {
		if w.pg == pg {
			return true
		}
	}
	for _, j := range e.inflight {
		if j.holds(pg) {
			return true
		}
	}
	return false
}

// BatchUses reports whether the open batch's commands (launches, copies,
// replayed graphs) use pg. A page's touch token says only which batch
// counted it last, so the list is searched when another engine counted it
// since.
func (e *Engine) BatchUses(pg *pool.Page) bool {
	if pg.Touched(e.Token()) {
		return true
	}
	for _, p := range e.open.Pages {
		if p == pg {
			return true
		}
	}
	for _, p := range e.open.Pins {
		if p.Has(pg) {
			return true
		}
	}
	return false
}

// holds reports whether the job's batch uses pg.
func (j *job) holds(pg *pool.Page) bool {
	for _, p := range j.b.Pages {
		if p == pg {
			return true
		}
	}
	for _, p := range j.b.Pins {
		if p.Has(pg) {
			return true
		}
	}
	for _, w := range j.b.writes {
		if w.pg == pg {
			return true
		}
	}
	return false
}

// nothingToSubmit reports whether b has nothing to submit (its encoder aside).
func (b *Batch) nothingToSubmit() bool {
	return len(b.CBs) == 0 && len(b.writes) == 0 && b.Counted.Prog == nil
}

// holdsMemory reports whether b holds pages, pins or slots.
func (b *Batch) holdsMemory() bool { return len(b.Pages)+len(b.Pins)+len(b.Slots) > 0 }
