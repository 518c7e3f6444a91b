package driver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"
	"github.com/softgraph/softgraph/internal/lockrank"
)

type counter struct{ n int }

var counterKey = driver.Key[counter]{New: func() *counter { return &counter{} }}

// TestLocalIsOnePerDeviceAndItsLockIsRanked: a Key gives one value per
// device, and the Locals' map lock is a Driver-ranked lock, so the
// lockrank build panics when it is taken under a lock that ranks after the
// driver's (here a Native leaf), as it does for every other lock.
func TestLocalIsOnePerDeviceAndItsLockIsRanked(t *testing.T) {
	a, b := fake.New(fake.Options{}), fake.New(fake.Options{})
	defer a.Close()
	defer b.Close()
	driver.Local(a, &counterKey).n++
	driver.Local(a, &counterKey).n++
	driver.Local(b, &counterKey).n++
	if got := [2]int{driver.Local(a, &counterKey).n, driver.Local(b, &counterKey).n}; got != [2]int{2, 1} {
		t.Fatalf("per-device counts %v, want [2 1]", got)
	}
	if !lockrank.Checked {
		t.Skip("ranks are checked only with -tags lockrank")
	}
	leaf := &lockrank.Mutex{Rank: lockrank.Native}
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		leaf.Lock()
		defer leaf.Unlock()
		driver.Local(a, &counterKey)
		return ""
	}()
	if want := "taking a Driver lock while holding a Native lock"; !strings.Contains(msg, want) {
		t.Errorf("driver.Local under a Native lock: %q, want a panic containing %q", msg, want)
	}
}
