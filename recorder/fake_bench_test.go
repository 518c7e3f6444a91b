package recorder

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/internal/driver/fake"
)

// BenchmarkLaunchPathOnTheFake is one eager Launch on the fake driver,
// whose device work is a Go loop over 4 bytes: what is measured is the
// recorder's own launch path (admission, params and bind group lookups,
// encoding, hand-offs), without a GPU or wgpu-native in it. A Sync every
// 1000 launches keeps the fake's queue short.
func BenchmarkLaunchPathOnTheFake(b *testing.B) {
	r := newFakeRig(b)
	s := r.stream(b, WithFlushDelay(time.Hour))
	x := upload(b, s, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := r.add(s, x, 1); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			if err := s.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := s.Sync(); err != nil {
		b.Fatal(err)
	}
}

// TestALaunchLeavesNothingInTheStreamsScratch: the scratch launch a
// stream resolves each Launch into is all zero after the call (reset
// clears only the inline accesses the launch filled), whether the launch
// went through, was refused half-way, or had more arguments than fit
// inline, so the scratch keeps no buffer, page or kernel alive.
func TestALaunchLeavesNothingInTheStreamsScratch(t *testing.T) {
	r := newFakeRig(t)
	s := r.stream(t)
	x := upload(t, s, 0)
	var res []driver.Resource
	var args []Arg
	for i := range maxInline + 1 {
		res = append(res, driver.Resource{Group: 0, Binding: uint32(i), Name: fmt.Sprintf("b%d", i), Kind: driver.ResourceStorage, Type: "array<u32>", MinSize: 4, Access: "read_write"})
		b := upload(t, s, uint32(i))
		args = append(args, b)
	}
	wide := r.dev.Register(fake.KernelSpec{Entry: "wide", Resources: res, Run: func(fake.Call) {}})
	released := upload(t, s, 0)
	released.Release()
	calls := map[string]func() error{
		"a launch":                                   func() error { return r.add(s, x, 1) },
		"a launch refused at its 2nd argument":       func() error { return s.launch(r.addConst, Groups(1, 1, 1), []Arg{x, released}) },
		"a launch of more arguments than fit inline": func() error { return s.launch(wide, Groups(1, 1, 1), args) },
	}
	for name, call := range calls {
		err := call()
		if strings.Contains(name, "refused") != (err != nil) {
			t.Errorf("%s returned %v", name, err)
		}
		s.mu.Lock()
		zero := reflect.ValueOf(s.scratch.launch).IsZero()
		s.mu.Unlock()
		if !zero {
			t.Errorf("after %s the stream's scratch launch still holds something", name)
		}
	}
}
