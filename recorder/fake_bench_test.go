package recorder

import (
	"testing"
	"time"
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
