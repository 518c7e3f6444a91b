package progress

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPrintfPrintsOnlyOnceTheIntervalHasPassed: a Meter is silent until its
// interval has passed since New or its last line, then prints one line.
func TestPrintfPrintsOnlyOnceTheIntervalHasPassed(t *testing.T) {
	var out bytes.Buffer
	m := New(&out, 40*time.Millisecond)
	if m.Printf("step %d", 1) {
		t.Fatal("a Meter must not print before its interval has passed")
	}
	time.Sleep(50 * time.Millisecond)
	if !m.Printf("step %d", 2) {
		t.Fatal("a Meter must print once its interval has passed")
	}
	if m.Printf("step %d", 3) {
		t.Fatal("a Meter must not print twice within its interval")
	}
	if diff := cmp.Diff("step 2\n", out.String()); diff != "" {
		t.Errorf("printed lines (-want +got):\n%s", diff)
	}
}

// TestZeroAndNilMetersPrintNothing: code may take a Meter it was not given.
func TestZeroAndNilMetersPrintNothing(t *testing.T) {
	var nilMeter *Meter
	for _, m := range []*Meter{nilMeter, {}, New(nil, 0)} {
		if m.Printf("x") {
			t.Errorf("%+v printed", m)
		}
	}
}
