package lifecycle_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/lifecycle"
)

type rec struct{ ID int }
type prof struct{ ID int }

// FuzzSessionHoldsARecordingExactlyWhileCapturing drives a Session with any
// sequence of transitions and checks the invariant its type promises: a
// recording is held exactly while the state is Capture, the recording taken
// out is the one put in, and a refused transition changes nothing.
func FuzzSessionHoldsARecordingExactlyWhileCapturing(f *testing.F) {
	f.Add([]byte{0, 1, 2})
	f.Add([]byte{0, 1, 3, 0, 4, 1, 5, 6, 2, 6})
	f.Add([]byte{5, 0, 1, 6, 5, 2, 6, 6, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var s lifecycle.Session[*rec, *prof]
		next := 1
		var inside *rec
		for i, b := range ops {
			before := s.State()
			_, hadProf := s.Profile()
			var err error
			switch b % 7 {
			case 0:
				err = s.Prepare()
			case 1:
				r := &rec{next}
				next++
				if err = s.Begin(r); err == nil {
					inside = r
				}
			case 2:
				var got *rec
				if got, err = s.End(); err == nil && got != inside {
					t.Fatalf("step %d: End handed back %v, Begin stored %v", i, got, inside)
				}
			case 3:
				got, ok, cerr := s.Cancel()
				err = cerr
				if ok && got != inside {
					t.Fatalf("step %d: Cancel handed back %v, Begin stored %v", i, got, inside)
				}
			case 4:
				if got, ok := s.Abort(); ok && got != inside {
					t.Fatalf("step %d: Abort handed back %v, Begin stored %v", i, got, inside)
				}
			case 5:
				err = s.StartProfile(&prof{i})
				if hadProf && !errors.Is(err, lifecycle.ErrProfileRunning) && before != lifecycle.Capture {
					t.Fatalf("step %d: a second profile was admitted: %v", i, err)
				}
			case 6:
				_, _, err = s.EndProfile()
			}
			if err != nil && s.State() != before {
				t.Fatalf("step %d: a refused op %d moved %s to %s", i, b%7, before, s.State())
			}
			r, ok := s.Recording()
			if ok != (s.State() == lifecycle.Capture) {
				t.Fatalf("step %d: Recording ok=%v in state %s", i, ok, s.State())
			}
			if ok && r != inside {
				t.Fatalf("step %d: Recording is %v, Begin stored %v", i, r, inside)
			}
		}
	})
}

func TestSessionRefusesProfilesWhileRecordingAndOneAtATime(t *testing.T) {
	var s lifecycle.Session[*rec, *prof]
	p1 := &prof{1}
	if err := s.StartProfile(p1); err != nil {
		t.Fatalf("StartProfile: %v", err)
	}
	if err := s.StartProfile(&prof{2}); !errors.Is(err, lifecycle.ErrProfileRunning) {
		t.Fatalf("a second StartProfile: err = %v, want ErrProfileRunning", err)
	}
	_ = s.Prepare()
	_ = s.Begin(&rec{1})
	if _, _, err := s.EndProfile(); !errors.Is(err, lifecycle.ErrGraphState) {
		t.Fatalf("EndProfile while recording: err = %v, want ErrGraphState", err)
	}
	if got, ok := s.Profile(); !ok || got != p1 {
		t.Fatalf("the profile must keep running through a refused EndProfile")
	}
	if _, err := s.End(); err != nil {
		t.Fatalf("End: %v", err)
	}
	got, ok, err := s.EndProfile()
	if diff := cmp.Diff(struct {
		P  *prof
		OK bool
	}{p1, true}, struct {
		P  *prof
		OK bool
	}{got, ok}); diff != "" || err != nil {
		t.Fatalf("EndProfile after the capture: err %v (-want +got):\n%s", err, diff)
	}
}

// TestReadmitIgnoresAProfileStartedAfterTheOperationButNotACapture: an
// operation admitted while no profile ran, asking again after a wait,
// gets the state's cell in every state, whether or not a profile has
// started meanwhile: a ProfileReplay refused between its rounds because a
// StartProfile ran meanwhile would return an error for a replay that had
// already run. A capture begun meanwhile still refuses it, as Admit does.
func TestReadmitIgnoresAProfileStartedAfterTheOperationButNotACapture(t *testing.T) {
	for _, op := range lifecycle.Ops() {
		for st := lifecycle.NoCapture; st <= lifecycle.Capture; st++ {
			if got, want := profilingSession(t, st).Readmit(op), st.Admit(op); got != want {
				t.Errorf("%s asked again in %s with a profile started meanwhile: %s, want the state's %s", op, st, got, want)
			}
		}
	}
	if v := profilingSession(t, lifecycle.Capture).Readmit(lifecycle.ProfileReplay); v != lifecycle.Refuse {
		t.Errorf("a ProfileReplay asked again after a capture began must be refused, got %s", v)
	}
}
