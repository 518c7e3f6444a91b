package pool_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"
	"github.com/softgraph/softgraph/internal/pool"
	"github.com/softgraph/softgraph/lifecycle"
)

// device is the fake driver with every buffer's Release calls counted, so
// a test can tell a buffer released twice from one released once (the
// fake's Release is idempotent, as a driver's must be).
type device struct {
	*fake.Device
	mu      sync.Mutex
	buffers []*countedBuffer
}

type countedBuffer struct {
	driver.Buffer
	releases atomic.Int32
}

func (b *countedBuffer) Release() {
	b.releases.Add(1)
	b.Buffer.Release()
}

func (d *device) NewBuffer(size uint64, usage driver.Usage, label string) (driver.Buffer, error) {
	buf, err := d.Device.NewBuffer(size, usage, label)
	if err != nil {
		return nil, err
	}
	cb := &countedBuffer{Buffer: buf}
	d.mu.Lock()
	d.buffers = append(d.buffers, cb)
	d.mu.Unlock()
	return cb, nil
}

// live is the number of buffers made and not released.
func (d *device) live() int64 { return d.Live().Buffers }

// releasedTwice lists the sizes of buffers whose Release was called more
// than once.
func (d *device) releasedTwice() []uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []uint64
	for _, b := range d.buffers {
		if b.releases.Load() > 1 {
			out = append(out, b.Size())
		}
	}
	return out
}

// hooks records what the pool told its owner.
type hooks struct {
	mu     sync.Mutex
	events []string
	freed  atomic.Int32
}

func (h *hooks) log(event string, _ *pool.Pool) {
	h.mu.Lock()
	h.events = append(h.events, event)
	h.mu.Unlock()
}

func (h *hooks) logged(event string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, e := range h.events {
		if e == event {
			n++
		}
	}
	return n
}

// newPool returns a pool on a fresh fake device with maxBufferSize max
// (0: the fake's default).
func newPool(t *testing.T, max uint64) (*pool.Pool, *device, *hooks) {
	t.Helper()
	var o fake.Options
	o.Info.Limits = fake.DefaultLimits
	if max != 0 {
		o.Info.Limits.MaxBufferSize = max
	}
	fd := fake.New(o)
	t.Cleanup(fd.Close)
	d := &device{Device: fd}
	h := &hooks{}
	return pool.New(d, o.Info.Limits.MaxBufferSize, h.log, func() { h.freed.Add(1) }), d, h
}

func alloc(t *testing.T, p *pool.Pool, size uint64, mode lifecycle.PoolMode) *pool.Page {
	t.Helper()
	pg, err := p.Alloc(size, mode)
	if err != nil {
		t.Fatalf("Alloc(%d, %v): %v", size, mode, err)
	}
	return pg
}

// TestSizeClassRoundsToPowersOfTwoThenQuarterSteps: below 1 MiB a class is
// the next power of two (at least 256 bytes); above, the next quarter step
// between powers of two, so a large page wastes at most 25%. A class holds
// its size, and a class is its own class (a page handed back fits the next
// allocation of its class exactly).
func TestSizeClassRoundsToPowersOfTwoThenQuarterSteps(t *testing.T) {
	const MiB = 1 << 20
	for _, c := range []struct{ size, want uint64 }{
		{0, 256}, {1, 256}, {256, 256}, {257, 512}, {512, 512}, {513, 1024},
		{MiB - 1, MiB}, {MiB, MiB}, {MiB + 1, MiB + MiB/4}, {MiB + MiB/4, MiB + MiB/4},
		{MiB + MiB/4 + 1, MiB + MiB/2}, {2*MiB - 1, 2 * MiB}, {2 * MiB, 2 * MiB}, {2*MiB + 1, 2*MiB + MiB/2},
		{5 * MiB, 5 * MiB}, {5*MiB + 1, 6 * MiB}, {1 << 40, 1 << 40}, {1<<40 + 1, 1<<40 + 1<<38},
	} {
		if got := pool.SizeClass(c.size); got != c.want {
			t.Errorf("SizeClass(%d) = %d, want %d", c.size, got, c.want)
		}
	}
	for size := uint64(1); size < 64*MiB; size = size*9/8 + 3 {
		class := pool.SizeClass(size)
		if class < size {
			t.Fatalf("SizeClass(%d) = %d: a class must hold its size", size, class)
		}
		if size > MiB && (class-size)*4 > class {
			t.Fatalf("SizeClass(%d) = %d: above 1 MiB a page wastes at most 25%%", size, class)
		}
		if size > 256 && size <= MiB && class >= 2*size {
			t.Fatalf("SizeClass(%d) = %d: below 1 MiB a class is the next power of two", size, class)
		}
		if again := pool.SizeClass(class); again != class {
			t.Fatalf("SizeClass(SizeClass(%d)) = %d, want %d: a class is its own class", size, again, class)
		}
	}
}

// TestAPageIsReusedByItsClassAfterItsLastUnref: a page whose last holder
// lets go goes onto its class's free list, and the next allocation of that
// class takes it instead of making a native buffer; another class makes its
// own page.
func TestAPageIsReusedByItsClassAfterItsLastUnref(t *testing.T) {
	p, d, h := newPool(t, 0)
	a := alloc(t, p, 300, lifecycle.PoolNormal)
	if a.Cap() != 512 || a.Buffer().Size() != 512 {
		t.Fatalf("a page for 300 bytes has Cap %d and a buffer of %d bytes, want the class, 512", a.Cap(), a.Buffer().Size())
	}
	a.Unref()
	if diff := cmp.Diff(pool.Stats{Reserved: 512, InUse: 0, Pages: 1}, p.Stats()); diff != "" {
		t.Errorf("a released page stays reserved and free (-want +got):\n%s", diff)
	}
	b := alloc(t, p, 400, lifecycle.PoolNormal)
	if b != a {
		t.Errorf("an allocation of the released page's class must reuse it")
	}
	c := alloc(t, p, 600, lifecycle.PoolNormal)
	if c == a || c.Cap() != 1024 {
		t.Errorf("an allocation of another class must make its own page (Cap %d, want 1024)", c.Cap())
	}
	if got := d.live(); got != 2 {
		t.Errorf("native buffers alive = %d, want 2 (one per class)", got)
	}
	if diff := cmp.Diff(pool.Stats{Reserved: 1536, InUse: 1536, Pages: 2}, p.Stats()); diff != "" {
		t.Errorf("stats with two held pages (-want +got):\n%s", diff)
	}
	if got := h.logged("pool grew"); got != 2 {
		t.Errorf("%q logged %d times, want once per new native buffer (2)", "pool grew", got)
	}
}

// TestAPageWithAnotherHolderIsNotHandedOutAgain: a page referenced by a
// second holder (an open batch, a graph) stays in use when its Buffer lets
// go; only the last Unref returns it. Without that, a released Buffer's
// page would be handed to a new Buffer while unsubmitted work still
// writes it.
func TestAPageWithAnotherHolderIsNotHandedOutAgain(t *testing.T) {
	p, _, _ := newPool(t, 0)
	a := alloc(t, p, 256, lifecycle.PoolNormal)
	a.Ref() // a batch
	a.Ref() // a graph
	a.Unref()
	b := alloc(t, p, 256, lifecycle.PoolNormal)
	if b == a {
		t.Fatal("a page still held by a batch and a graph was handed out again")
	}
	a.Unref()
	if got := p.Stats().InUse; got != 512 {
		t.Errorf("InUse = %d with one holder left on each page, want 512", got)
	}
	a.Unref()
	if c := alloc(t, p, 256, lifecycle.PoolNormal); c != a {
		t.Error("after its last holder let go the page must be reused")
	}
}

// TestPersistentPagesFitExactlyAndStayApartFromTheSizeClasses: capture
// allocates exact-fit pages from a pool of their own, so a graph pins no
// rounding waste and normal allocations never take a capture's page.
func TestPersistentPagesFitExactlyAndStayApartFromTheSizeClasses(t *testing.T) {
	p, d, _ := newPool(t, 0)
	a := alloc(t, p, 300, lifecycle.PoolPersistent)
	if a.Cap() != 300 {
		t.Fatalf("a persistent page for 300 bytes has Cap %d, want exactly 300", a.Cap())
	}
	if diff := cmp.Diff(pool.Stats{Reserved: 300, InUse: 300, Persistent: 300, Pages: 1}, p.Stats()); diff != "" {
		t.Errorf("stats with one persistent page (-want +got):\n%s", diff)
	}
	a.Unref()
	if n := alloc(t, p, 300, lifecycle.PoolNormal); n == a || n.Cap() != 512 {
		t.Errorf("a normal allocation took the persistent page or the wrong class (Cap %d, want 512)", n.Cap())
	}
	if o := alloc(t, p, 304, lifecycle.PoolPersistent); o == a {
		t.Error("a persistent allocation of another size took a page that does not fit it exactly")
	}
	if again := alloc(t, p, 300, lifecycle.PoolPersistent); again != a {
		t.Error("a persistent allocation of the same size must reuse the released persistent page")
	}
	if got := d.live(); got != 3 {
		t.Errorf("native buffers alive = %d, want 3", got)
	}
}

// TestAClassLargerThanTheDeviceAllowsFallsBackToTheSize: near the device's
// maxBufferSize the rounded class may not fit; the allocation then makes a
// page of exactly the size asked for instead of failing.
func TestAClassLargerThanTheDeviceAllowsFallsBackToTheSize(t *testing.T) {
	const max = 1<<20 + 4096
	p, _, _ := newPool(t, max)
	const size = 1<<20 + 4
	if pool.SizeClass(size) <= max {
		t.Fatalf("test setup: SizeClass(%d) = %d fits max %d", size, pool.SizeClass(size), max)
	}
	if a := alloc(t, p, size, lifecycle.PoolNormal); a.Cap() != size {
		t.Errorf("Cap = %d, want the size itself (%d) when its class exceeds maxBufferSize", a.Cap(), size)
	}
}

// TestPrimingHoldsEveryPageUntilEndPriming: while priming, every page the
// warmup allocates stays held by the pool even after the warmup releases
// it, so the warmup's allocations each get a page of their own; EndPriming
// returns them to the persistent free lists, where the capture run's same
// allocations find them without making a native buffer.
func TestPrimingHoldsEveryPageUntilEndPriming(t *testing.T) {
	p, d, _ := newPool(t, 0)
	a := alloc(t, p, 300, lifecycle.PoolPriming)
	a.Unref()
	b := alloc(t, p, 300, lifecycle.PoolPriming)
	if b == a {
		t.Fatal("while priming a released page must stay held, not be handed out again")
	}
	b.Unref()
	if diff := cmp.Diff(pool.Stats{Reserved: 600, InUse: 600, Persistent: 600, Pages: 2}, p.Stats()); diff != "" {
		t.Errorf("priming holds keep released pages in use (-want +got):\n%s", diff)
	}
	p.EndPriming()
	if diff := cmp.Diff(pool.Stats{Reserved: 600, InUse: 0, Persistent: 600, Pages: 2}, p.Stats()); diff != "" {
		t.Errorf("after EndPriming the warmup's pages are free (-want +got):\n%s", diff)
	}
	got := map[*pool.Page]bool{alloc(t, p, 300, lifecycle.PoolPersistent): true, alloc(t, p, 300, lifecycle.PoolPersistent): true}
	if !got[a] || !got[b] {
		t.Error("the capture run's allocations must find the warmup's pages")
	}
	if n := d.live(); n != 2 {
		t.Errorf("native buffers alive = %d, want the warmup's 2", n)
	}
	p.EndPriming() // nothing held: a no-op
	if got := p.Stats().InUse; got != 600 {
		t.Errorf("a second EndPriming dropped references it did not hold: InUse %d, want 600", got)
	}
}

// TestTrimReleasesFreePagesAndKeepsHeldOnes: Trim gives every free page
// (both pools) back to the device and reports the bytes; a held page stays
// usable and is pooled again when it is released. The freed hook runs only
// when something was released, because it makes every stream drop its
// bind group cache.
func TestTrimReleasesFreePagesAndKeepsHeldOnes(t *testing.T) {
	p, d, h := newPool(t, 0)
	held := alloc(t, p, 1024, lifecycle.PoolNormal)
	alloc(t, p, 512, lifecycle.PoolNormal).Unref()
	alloc(t, p, 300, lifecycle.PoolPersistent).Unref()
	if got := p.Trim(); got != 812 {
		t.Errorf("Trim = %d bytes, want 812 (the free 512 and 300)", got)
	}
	if n := d.live(); n != 1 {
		t.Errorf("native buffers alive after Trim = %d, want the held page's 1", n)
	}
	if diff := cmp.Diff(pool.Stats{Reserved: 1024, InUse: 1024, Pages: 1}, p.Stats()); diff != "" {
		t.Errorf("after Trim only the held page is reserved (-want +got):\n%s", diff)
	}
	if got := h.freed.Load(); got != 1 {
		t.Errorf("freed hook called %d times by a Trim that released pages, want 1", got)
	}
	if held.Buffer().Released() {
		t.Fatal("Trim released a held page's buffer")
	}
	if got := p.Trim(); got != 0 || h.freed.Load() != 1 {
		t.Errorf("a Trim with nothing free = %d bytes and %d freed calls, want 0 and still 1", got, h.freed.Load())
	}
	held.Unref()
	if again := alloc(t, p, 1024, lifecycle.PoolNormal); again != held || d.live() != 1 {
		t.Errorf("a page held across Trim must be pooled on release and reused (same page %v, buffers %d)", again == held, d.live())
	}
	if got := d.releasedTwice(); got != nil {
		t.Errorf("buffers released twice (sizes): %v", got)
	}
}

// TestCloseReleasesFreePagesNowAndHeldPagesAtTheirLastUnref: Close drops
// the priming holds and releases every free page; a page still held by a
// Buffer, a graph or another stream's batch keeps its native buffer until
// its last holder lets go, and is then released rather than pooled. Every
// buffer is released exactly once, and Alloc after Close fails with
// driver.ErrClosed.
func TestCloseReleasesFreePagesNowAndHeldPagesAtTheirLastUnref(t *testing.T) {
	p, d, h := newPool(t, 0)
	held := alloc(t, p, 256, lifecycle.PoolNormal)
	held.Ref() // another stream's batch
	alloc(t, p, 512, lifecycle.PoolNormal).Unref()
	alloc(t, p, 300, lifecycle.PoolPriming).Unref() // only the priming hold is left
	p.Close()
	if n := d.live(); n != 1 {
		t.Errorf("native buffers alive after Close = %d, want the held page's 1", n)
	}
	if diff := cmp.Diff(pool.Stats{Pages: 1}, p.Stats()); diff != "" {
		t.Errorf("a closed pool reports no bytes and its held pages (-want +got):\n%s", diff)
	}
	if _, err := p.Alloc(256, lifecycle.PoolNormal); !errors.Is(err, driver.ErrClosed) {
		t.Errorf("Alloc after Close: %v, want driver.ErrClosed", err)
	}
	freed := h.freed.Load()
	p.Close()
	if h.freed.Load() != freed {
		t.Error("a second Close must do nothing")
	}
	held.Unref()
	if held.Buffer().Released() || d.live() != 1 {
		t.Fatal("a closed pool released a page another holder still has")
	}
	held.Unref()
	if !held.Buffer().Released() || d.live() != 0 {
		t.Errorf("the last Unref after Close must release the page (released %v, buffers alive %d)", held.Buffer().Released(), d.live())
	}
	if h.freed.Load() != freed+1 {
		t.Errorf("freed hook calls = %d, want %d: a page released after Close may be bound by a cached group", h.freed.Load(), freed+1)
	}
	if diff := cmp.Diff(pool.Stats{}, p.Stats()); diff != "" {
		t.Errorf("stats after every page is gone (-want +got):\n%s", diff)
	}
	if got := d.releasedTwice(); got != nil {
		t.Errorf("buffers released twice (sizes): %v", got)
	}
}

// TestAnUnrefTooManyIsIgnoredAndLogged: dropping a reference twice is a
// bug of the caller's; the pool refuses to go below zero (and says so)
// rather than put the page on a free list twice and hand it to two
// Buffers.
func TestAnUnrefTooManyIsIgnoredAndLogged(t *testing.T) {
	p, _, h := newPool(t, 0)
	a := alloc(t, p, 256, lifecycle.PoolNormal)
	a.Unref()
	a.Unref()
	const event = "page reference count below zero (ignored)"
	if got := h.logged(event); got != 1 {
		t.Errorf("%q logged %d times, want 1", event, got)
	}
	x := alloc(t, p, 256, lifecycle.PoolNormal)
	y := alloc(t, p, 256, lifecycle.PoolNormal)
	if x == y {
		t.Fatal("a page dropped one time too many was handed out twice")
	}
	if diff := cmp.Diff(pool.Stats{Reserved: 512, InUse: 512, Pages: 2}, p.Stats()); diff != "" {
		t.Errorf("accounting after an extra Unref (-want +got):\n%s", diff)
	}
}

// TestAFailedAllocationChangesNoAccounting: when the device cannot make a
// buffer, Alloc returns the device's error (out of memory) and the pool is
// as before, ready for the next allocation.
func TestAFailedAllocationChangesNoAccounting(t *testing.T) {
	p, d, _ := newPool(t, 0)
	alloc(t, p, 256, lifecycle.PoolNormal)
	before := p.Stats()
	d.Fail(fake.OpNewBuffer, 1)
	if _, err := p.Alloc(4096, lifecycle.PoolPriming); !errors.Is(err, driver.ErrOutOfMemory) {
		t.Fatalf("Alloc on a device out of memory: %v, want driver.ErrOutOfMemory", err)
	}
	if diff := cmp.Diff(before, p.Stats()); diff != "" {
		t.Errorf("a failed Alloc changed the accounting (-before +after):\n%s", diff)
	}
	alloc(t, p, 4096, lifecycle.PoolNormal)
	p.EndPriming() // the failed priming allocation left no hold to drop
	if got := p.Stats().InUse; got != 256+4096 {
		t.Errorf("InUse = %d after the failure, want %d", got, 256+4096)
	}
}

// TestAWrappedPageReleasesOnlyItsBufferAndIsNeverPooled: a page around an
// application's buffer is counted like any other but belongs to no free
// list: its last Unref releases softgraph's reference to the buffer and
// tells the owner, and it never appears in the pool's accounting.
func TestAWrappedPageReleasesOnlyItsBufferAndIsNeverPooled(t *testing.T) {
	p, d, h := newPool(t, 0)
	buf, err := d.NewBuffer(64, driver.UsageStorage, "application's")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Wrap(buf, 64)
	if w.Buffer() != buf || w.Cap() != 64 {
		t.Fatalf("Wrap(buf, 64): Buffer is the given buffer %v, Cap %d", w.Buffer() == buf, w.Cap())
	}
	if diff := cmp.Diff(pool.Stats{}, p.Stats()); diff != "" {
		t.Errorf("a wrapped page is not the pool's memory (-want +got):\n%s", diff)
	}
	w.Ref()
	w.Unref()
	if buf.Released() {
		t.Fatal("a wrapped page released its buffer while still held")
	}
	w.Unref()
	if !buf.Released() || h.freed.Load() != 1 {
		t.Errorf("the last Unref of a wrapped page: released %v, freed calls %d, want true and 1", buf.Released(), h.freed.Load())
	}
	if a := alloc(t, p, 64, lifecycle.PoolNormal); a == w {
		t.Error("a wrapped page was pooled")
	}
}

// TestTouchSaysWhetherTheBatchAlreadyCountsThePage: the touch token lets a
// batch hold a page once however many launches use it.
func TestTouchSaysWhetherTheBatchAlreadyCountsThePage(t *testing.T) {
	p, _, _ := newPool(t, 0)
	a := alloc(t, p, 256, lifecycle.PoolNormal)
	steps := []struct {
		name string
		got  bool
		want bool
	}{
		{"Touch(7) first", a.Touch(7), false},
		{"Touch(7) again", a.Touch(7), true},
		{"Touched(7)", a.Touched(7), true},
		{"Touch(8) (another batch)", a.Touch(8), false},
		{"Touched(7) after batch 8", a.Touched(7), false},
	}
	for _, s := range steps {
		if s.got != s.want {
			t.Errorf("%s = %v, want %v", s.name, s.got, s.want)
		}
	}
}

// TestConcurrentRefAndUnrefReclaimExactlyOnce: holders on many goroutines
// (batches of other streams, graphs, Buffer.Release) take and drop
// references at once; the page reaches zero, and the free list, exactly
// once. Run under -race.
func TestConcurrentRefAndUnrefReclaimExactlyOnce(t *testing.T) {
	p, _, h := newPool(t, 0)
	a := alloc(t, p, 256, lifecycle.PoolNormal)
	const workers, rounds = 8, 2000
	var wg sync.WaitGroup
	for range workers {
		a.Ref() // each worker's own reference, taken by a holder
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				a.Ref()
				a.Unref()
			}
			a.Unref()
		}()
	}
	wg.Wait()
	if got := p.Stats().InUse; got != 256 {
		t.Fatalf("InUse = %d while the Buffer's reference remains, want 256", got)
	}
	a.Unref()
	x := alloc(t, p, 256, lifecycle.PoolNormal)
	y := alloc(t, p, 256, lifecycle.PoolNormal)
	if x != a || y == a {
		t.Errorf("the page must be on the free list exactly once (first reuse %v, second reuse %v)", x == a, y == a)
	}
	if got := h.logged("page reference count below zero (ignored)"); got != 0 {
		t.Errorf("balanced references went below zero %d times", got)
	}
}

// TestConcurrentAllocReleaseTrimAndCloseKeepTheAccounting: allocations,
// releases from other goroutines, Trim and Stats racing with each other,
// then Close racing with the last releases, leave every native buffer
// released exactly once and the accounting at zero. Run under -race.
func TestConcurrentAllocReleaseTrimAndCloseKeepTheAccounting(t *testing.T) {
	p, d, _ := newPool(t, 0)
	const workers, rounds = 6, 300
	sizes := []uint64{256, 300, 4096, 5000, 1 << 16}
	modes := []lifecycle.PoolMode{lifecycle.PoolNormal, lifecycle.PoolPersistent, lifecycle.PoolPriming}
	kept := make([][]*pool.Page, workers)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var trimmer sync.WaitGroup
	trimmer.Add(1)
	go func() {
		defer trimmer.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			p.Trim()
			if st := p.Stats(); st.InUse > st.Reserved || st.Persistent > st.Reserved {
				t.Errorf("inconsistent stats while racing: %+v", st)
				return
			}
			p.EndPriming()
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				pg, err := p.Alloc(sizes[(w+i)%len(sizes)], modes[(w*7+i)%len(modes)])
				if err != nil {
					t.Errorf("Alloc: %v", err)
					return
				}
				pg.Ref()
				handoff := make(chan struct{})
				go func() { pg.Unref(); close(handoff) }() // another stream's batch, submitted
				pg.Touch(uint64(w))
				<-handoff
				if i%10 == 0 {
					kept[w] = append(kept[w], pg) // a Buffer the worker keeps
				} else {
					pg.Unref()
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	trimmer.Wait()

	// Close while the kept pages are being released.
	var closing sync.WaitGroup
	for w := range workers {
		closing.Add(1)
		go func() {
			defer closing.Done()
			for _, pg := range kept[w] {
				pg.Unref()
			}
		}()
	}
	p.Close()
	closing.Wait()
	if n := d.live(); n != 0 {
		t.Errorf("native buffers alive after Close and every release = %d, want 0", n)
	}
	if diff := cmp.Diff(pool.Stats{}, p.Stats()); diff != "" {
		t.Errorf("stats after Close and every release (-want +got):\n%s", diff)
	}
	if got := d.releasedTwice(); got != nil {
		t.Errorf("buffers released twice (sizes): %v", got)
	}
}
