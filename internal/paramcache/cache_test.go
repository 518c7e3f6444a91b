package paramcache

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/lifecycle"
)

// memDevice is just enough of a driver for the cache: buffers in memory.
type memDevice struct {
	driver.Device // unused methods panic
	live          int
	writes        int
}

type memBuffer struct {
	d        *memDevice
	data     []byte
	released bool
}

func (b *memBuffer) Release() {
	if !b.released {
		b.released = true
		b.d.live--
	}
}
func (b *memBuffer) Released() bool      { return b.released }
func (b *memBuffer) Size() uint64        { return uint64(len(b.data)) }
func (b *memBuffer) Usage() driver.Usage { return driver.UsageUniform }
func (b *memBuffer) Memory() any         { return b }

func (d *memDevice) NewBuffer(size uint64, _ driver.Usage, _ string) (driver.Buffer, error) {
	d.live++
	return &memBuffer{d: d, data: make([]byte, size)}, nil
}

func (d *memDevice) WriteBuffer(b driver.Buffer, off uint64, data []byte) error {
	d.writes++
	copy(b.(*memBuffer).data[off:], data)
	return nil
}

func params(v byte) []byte { return []byte{v, 0, 0, 0} }

func TestAHitUploadsNothingAndReturnsTheSameSlot(t *testing.T) {
	d := &memDevice{}
	c := New(d, 256, 8)
	var pending []Slot
	a, err := c.Lookup(params(1), 1, 0, lifecycle.CacheNormal, &pending)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Lookup(params(1), 2, 0, lifecycle.CacheNormal, &pending)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || d.writes != 1 {
		t.Fatalf("a second lookup of the same params: same entry %v, %d writes; want the same entry and 1 write", a == b, d.writes)
	}
	if got := a.Page.Buf.(*memBuffer).data[a.Off]; got != 1 {
		t.Fatalf("slot holds %d, want the params' first byte 1", got)
	}
	if diff := cmp.Diff(Stats{Entries: 1, Bytes: pageSize, Hits: 1, Misses: 1}, c.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func TestNormalModeEvictsUnpinnedEntriesAndCaptureModeNone(t *testing.T) {
	d := &memDevice{}
	c := New(d, 256, 4)
	var pending []Slot
	pinned, _ := c.Lookup(params(0), 1, 1, lifecycle.CacheCapture, &pending)
	c.Pin(pinned)
	for v := byte(1); v < 10; v++ {
		if _, err := c.Lookup(params(v), 1, 1, lifecycle.CacheCapture, &pending); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.Stats().Entries; n != 10 {
		t.Fatalf("capture mode keeps everything: %d entries, want 10", n)
	}
	if _, err := c.Lookup(params(10), 2, 1, lifecycle.CacheNormal, &pending); err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if st.Entries != 4 {
		t.Errorf("normal mode bounds the cache: %d entries, want the limit 4", st.Entries)
	}
	if _, ok := c.entries[string(params(0))]; !ok {
		t.Errorf("a pinned entry was evicted")
	}
	// Evicted slots last used by the batch still open wait for it.
	if len(pending) != 0 {
		t.Errorf("slots of batch 1, submitted, wait anyway: %d", len(pending))
	}
}

func TestTrimGivesBackPagesOfUnpinnedEntriesUsedByBatchesUpToTheBound(t *testing.T) {
	d := &memDevice{}
	c := New(d, 256, 512)
	var pending []Slot
	e, _ := c.Lookup(params(1), 5, 0, lifecycle.CacheCapture, &pending)
	c.Pin(e)
	if freed := c.Trim(10); freed != 0 || d.live != 1 {
		t.Fatalf("Trim freed %d bytes, %d pages live, while the entry is pinned", freed, d.live)
	}
	c.Unpin(e)
	if freed := c.Trim(4); freed != 0 {
		t.Fatalf("Trim(4) freed %d bytes of an entry batch 5 still uses", freed)
	}
	if freed := c.Trim(5); freed != pageSize || d.live != 0 {
		t.Fatalf("Trim(5) freed %d bytes, %d pages live; want the whole page back", freed, d.live)
	}
	if diff := cmp.Diff(Stats{Misses: 1, Evictions: 1}, c.Stats()); diff != "" {
		t.Errorf("stats after Trim (-want +got):\n%s", diff)
	}
}
