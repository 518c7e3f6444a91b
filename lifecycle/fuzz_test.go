package lifecycle_test

import (
	"errors"
	"testing"

	"github.com/softgraph/softgraph/lifecycle"
)

// model is an independent statement of the rule, written as the set of
// allowed edges rather than as a switch per method, so a bug in State's
// switches cannot be copied into the oracle.
type model struct{ at int } // 0 none, 1 prepared, 2 recording

var allowed = map[[2]int]int{ // (from, op) -> to; op 0 prepare, 1 begin, 2 end
	{0, 0}: 1,
	{1, 1}: 2,
	{2, 2}: 0,
}

// FuzzLifecycle drives random sequences of Prepare, Begin, End and Abort
// against the model: every allowed move must succeed and land where the model
// says, every other must be refused with ErrGraphState and change nothing.
func FuzzLifecycle(f *testing.F) {
	f.Add([]byte{0, 1, 2})
	f.Add([]byte{1, 2, 0, 0, 1, 1, 2, 2})
	f.Add([]byte{0, 3, 0, 1, 3, 2, 0, 1, 2})
	f.Add([]byte{2, 2, 1, 3, 3, 0, 2, 1, 0, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var s lifecycle.State
		var m model
		for i, b := range ops {
			op := int(b % 4)
			before := s
			if op == 3 {
				s.Abort()
				m.at = 0
			} else {
				var err error
				switch op {
				case 0:
					err = s.Prepare()
				case 1:
					err = s.Begin()
				case 2:
					err = s.End()
				}
				to, ok := allowed[[2]int{m.at, op}]
				if ok {
					if err != nil {
						t.Fatalf("step %d op %d from %s: model allows it, got %v", i, op, before, err)
					}
					m.at = to
				} else {
					if !errors.Is(err, lifecycle.ErrGraphState) {
						t.Fatalf("step %d op %d from %s: model refuses it, got %v", i, op, before, err)
					}
					if s != before {
						t.Fatalf("step %d: a refused op moved %s to %s", i, before, s)
					}
				}
			}
			if int(s) != m.at {
				t.Fatalf("step %d: state %s, model %d", i, s, m.at)
			}
			if s.IsRecording() != (m.at == 2) {
				t.Fatalf("step %d: IsRecording disagrees with the model", i)
			}
			if (s.CacheMode() == lifecycle.CacheCapture) != (m.at != 0) {
				t.Fatalf("step %d: CacheMode disagrees with the model", i)
			}
			// The operation rule, from the model's side: while recording,
			// launches record, writes defer, host waits refuse; outside,
			// everything but Trim and Load (refused in Prepare) executes.
			for _, op := range lifecycle.Ops() {
				v := s.Admit(op)
				want := lifecycle.Execute
				switch {
				case m.at == 2 && (op == lifecycle.Launch || op == lifecycle.Replay || op == lifecycle.Copy || op == lifecycle.Clear || op == lifecycle.Branch):
					want = lifecycle.Record
				case m.at == 2 && op == lifecycle.Write:
					want = lifecycle.DeferError
				case m.at == 2 && op != lifecycle.Alloc && op != lifecycle.Flush:
					want = lifecycle.Refuse
				case m.at == 1 && (op == lifecycle.Trim || op == lifecycle.Load):
					want = lifecycle.Refuse
				}
				if v != want {
					t.Fatalf("step %d: Admit(%s) in %s = %s, model says %s", i, op, s, v, want)
				}
			}
		}
	})
}
