package lower

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Commands used by the trees below.
var (
	small = Command{Kind: Dispatch, Groups: [3]uint32{4, 1, 1}}   // may be predicated
	large = Command{Kind: Dispatch, Groups: [3]uint32{16, 16, 2}} // 512 workgroups: always gated
	ind   = Command{Kind: Dispatch, Indirect: true}               // counts from a buffer
	cp    = Command{Kind: Copy, Words: 256}                       // 4 workgroups of 64 words
	clr   = Command{Kind: Clear, Words: 64}                       // 1 workgroup
	binds = Command{Kind: Dispatch, Groups: [3]uint32{1, 1, 1}, BindsCondition: true}
)

// always answers every Guarded question yes.
func always(int, bool) bool { return true }

// entries decodes a plan's table into [slot, x, y, z] entries.
func entries(table []byte) [][4]uint32 {
	var out [][4]uint32
	for i := 0; i+16 <= len(table); i += 16 {
		var e [4]uint32
		for j := range e {
			e[j] = binary.LittleEndian.Uint32(table[i+4*j:])
		}
		out = append(out, e)
	}
	return out
}

func mustLower(t *testing.T, tr Tree, opt Options) *Plan {
	t.Helper()
	p, err := Lower(tr, opt)
	if err != nil {
		t.Fatalf("Lower: %v", err)
	}
	return p
}

// TestATreeWithoutRegionsLowersToItsCommandsUnchanged: with no If or While
// every command is a top-level step, in order, and nothing is allocated.
func TestATreeWithoutRegionsLowersToItsCommandsUnchanged(t *testing.T) {
	p := mustLower(t, Tree{Commands: []Command{small, cp, large}, Regions: []Region{{}}}, Options{Guarded: always})
	want := &Plan{Steps: []Step{
		{Kind: StepCommand, Command: 0},
		{Kind: StepCommand, Command: 1},
		{Kind: StepCommand, Command: 2},
	}, Iterations: [][]uint32{nil}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("top-level commands must lower unchanged (-want +got):\n%s", diff)
	}
}

// TestAnIfWithoutVariantsGatesEveryBodyCommandFromOneGate: without guarded
// variants an If's body is one gate dispatch followed by its commands,
// each dispatched from three count words of its own that the gate writes
// from its table entries (a copy or clear as a kernel of one workgroup per
// 64 words). Commands before and after the If stay unchanged.
func TestAnIfWithoutVariantsGatesEveryBodyCommandFromOneGate(t *testing.T) {
	tr := Tree{
		Commands: []Command{small, small, cp, clr, small},
		Regions:  []Region{{}, {Parent: 0, MaxIter: 1, Start: 1, End: 4}},
	}
	p := mustLower(t, tr, Options{})
	want := &Plan{
		Steps: []Step{
			{Kind: StepCommand, Command: 0},
			{Kind: StepGate, Command: -1, Region: 1, Enable: 0, Parent: NoParent, First: 0, Count: 3},
			{Kind: StepGated, Command: 1, Region: 1, Slot: 0},
			{Kind: StepCopy, Command: 2, Region: 1, Slot: 3},
			{Kind: StepClear, Command: 3, Region: 1, Slot: 6},
			{Kind: StepCommand, Command: 4},
		},
		Enables: 1, Counts: 9, Gates: 1,
		Iterations: [][]uint32{nil, {0}},
	}
	if diff := cmp.Diff(want, p, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Table" }, cmp.Ignore())); diff != "" {
		t.Errorf("an If gates its body from one gate (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][4]uint32{{0, 4, 1, 1}, {3, 4, 1, 1}, {6, 1, 1, 1}}, entries(p.Table)); diff != "" {
		t.Errorf("the gate's table holds each gated command's slot and counts (-want +got):\n%s", diff)
	}
}

// TestAWhileUnrollsOneGatePerIterationEachAskingThePreviousOne: a While of
// n iterations is its body n times, each behind a gate whose parent word
// is the previous iteration's enable word (the first one's: none), so a
// loop stops at the first iteration whose condition is zero.
func TestAWhileUnrollsOneGatePerIterationEachAskingThePreviousOne(t *testing.T) {
	tr := Tree{Commands: []Command{large}, Regions: []Region{{}, {MaxIter: 3, Start: 0, End: 1}}}
	p := mustLower(t, tr, Options{Guarded: always})
	want := []Step{
		{Kind: StepGate, Command: -1, Region: 1, Enable: 0, Parent: NoParent, First: 0, Count: 1},
		{Kind: StepGated, Command: 0, Region: 1, Slot: 0},
		{Kind: StepGate, Command: -1, Region: 1, Enable: 1, Parent: 0, First: 1, Count: 1},
		{Kind: StepGated, Command: 0, Region: 1, Slot: 3},
		{Kind: StepGate, Command: -1, Region: 1, Enable: 2, Parent: 1, First: 2, Count: 1},
		{Kind: StepGated, Command: 0, Region: 1, Slot: 6},
	}
	if diff := cmp.Diff(want, p.Steps); diff != "" {
		t.Errorf("a While unrolls into chained gates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]uint32{nil, {0, 1, 2}}, p.Iterations); diff != "" {
		t.Errorf("each iteration has its own enable word (-want +got):\n%s", diff)
	}
}

// TestATopLevelLoopOfGuardedDispatchesLatchesWithoutGates: when every
// command of a top-level body has a guarded variant and the first does not
// bind the condition, each iteration's first dispatch latches (decides from
// the condition and writes the enable word) and the rest are predicated
// on it: no gate dispatch, no gate buffer, no table.
func TestATopLevelLoopOfGuardedDispatchesLatchesWithoutGates(t *testing.T) {
	tr := Tree{Commands: []Command{small, small}, Regions: []Region{{}, {MaxIter: 2, Start: 0, End: 2}}}
	p := mustLower(t, tr, Options{Guarded: always})
	want := &Plan{
		Steps: []Step{
			{Kind: StepGuarded, Command: 0, Region: 1, Enable: 0, Latch: true},
			{Kind: StepGuarded, Command: 1, Region: 1, Enable: 0},
			{Kind: StepGuarded, Command: 0, Region: 1, Enable: 1, Latch: true},
			{Kind: StepGuarded, Command: 1, Region: 1, Enable: 1},
		},
		Enables: 2, Iterations: [][]uint32{nil, {0, 1}},
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("a latchable loop has no gates (-want +got):\n%s", diff)
	}
}

// TestALoopIsNotLatchedWhenAnyDirectCommandNeedsAGate: a body that binds
// its condition first, or holds a copy, a clear, an indirect dispatch or a
// dispatch over MaxGuardedGroups workgroups, keeps its gate dispatches: a
// latched iteration has no gate to write their counts. Its small direct
// dispatches are still predicated on the gate's enable word.
func TestALoopIsNotLatchedWhenAnyDirectCommandNeedsAGate(t *testing.T) {
	for name, second := range map[string]Command{"copy": cp, "clear": clr, "indirect": ind, "large": large} {
		t.Run(name, func(t *testing.T) {
			tr := Tree{Commands: []Command{small, second}, Regions: []Region{{}, {MaxIter: 1, Start: 0, End: 2}}}
			p := mustLower(t, tr, Options{Guarded: always})
			if p.Gates != 1 || p.Steps[0].Kind != StepGate {
				t.Fatalf("a body with a %s must keep its gate: got %d gates, first step %v", name, p.Gates, p.Steps[0].Kind)
			}
			if got := p.Steps[1]; got.Kind != StepGuarded || got.Latch {
				t.Errorf("the small dispatch must be predicated without latching: got %+v", got)
			}
		})
	}
	t.Run("binds its condition", func(t *testing.T) {
		tr := Tree{Commands: []Command{binds, small}, Regions: []Region{{}, {MaxIter: 1, Start: 0, End: 2}}}
		p := mustLower(t, tr, Options{Guarded: always})
		want := []Step{
			{Kind: StepGate, Command: -1, Region: 1, Parent: NoParent},
			{Kind: StepGuarded, Command: 0, Region: 1},
			{Kind: StepGuarded, Command: 1, Region: 1},
		}
		if diff := cmp.Diff(want, p.Steps); diff != "" {
			t.Errorf("a first dispatch that binds the condition must not latch it (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([][4]uint32{{}}, entries(p.Table)); diff != "" {
			t.Errorf("a gate with no gated command still gets a (zero) table entry to bind (-want +got):\n%s", diff)
		}
	})
}

// TestAnIndirectBodyDispatchIsForwardedToItsSlot: an indirect dispatch in
// a body reads its counts when the GPU reaches it, so a forwarder copies
// them into the slot (zeros when skipped) right before it, and the gate's
// table has no entry for it.
func TestAnIndirectBodyDispatchIsForwardedToItsSlot(t *testing.T) {
	tr := Tree{Commands: []Command{ind}, Regions: []Region{{}, {MaxIter: 1, Start: 0, End: 1}}}
	p := mustLower(t, tr, Options{Guarded: always})
	want := []Step{
		{Kind: StepGate, Command: -1, Region: 1, Parent: NoParent},
		{Kind: StepForward, Command: 0, Region: 1, Enable: 0, Slot: 0},
		{Kind: StepGated, Command: 0, Region: 1, Slot: 0},
	}
	if diff := cmp.Diff(want, p.Steps); diff != "" {
		t.Errorf("an indirect body dispatch is forwarded (-want +got):\n%s", diff)
	}
	if p.Counts != 3 {
		t.Errorf("the forwarded dispatch uses one 3-word slot: got %d count words", p.Counts)
	}
}

// TestNestedRegionsKeepGatesThatAskTheEnclosingIteration: only top-level
// regions latch; an If inside a latched While gets one gate per outer
// iteration, whose parent word is that iteration's enable word.
func TestNestedRegionsKeepGatesThatAskTheEnclosingIteration(t *testing.T) {
	tr := Tree{
		Commands: []Command{small, small},
		Regions:  []Region{{}, {MaxIter: 2, Start: 0, End: 2}, {Parent: 1, MaxIter: 1, Start: 1, End: 2}},
	}
	p := mustLower(t, tr, Options{Guarded: always})
	want := &Plan{
		Steps: []Step{
			{Kind: StepGuarded, Command: 0, Region: 1, Enable: 0, Latch: true},
			{Kind: StepGate, Command: -1, Region: 2, Enable: 1, Parent: 0},
			{Kind: StepGuarded, Command: 1, Region: 2, Enable: 1},
			{Kind: StepGuarded, Command: 0, Region: 1, Enable: 2, Latch: true},
			{Kind: StepGate, Command: -1, Region: 2, Enable: 3, Parent: 2},
			{Kind: StepGuarded, Command: 1, Region: 2, Enable: 3},
		},
		Enables: 4, Gates: 2, Table: make([]byte, 16),
		Iterations: [][]uint32{nil, {0, 2}, {1, 3}},
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("a nested If is gated on its enclosing iteration (-want +got):\n%s", diff)
	}
}

// TestALoopStartingWithANestedRegionIsNotLatched: a nested region's gate
// at the start of the body would run before the latch had decided, so the
// loop keeps its own gates.
func TestALoopStartingWithANestedRegionIsNotLatched(t *testing.T) {
	tr := Tree{
		Commands: []Command{small, small},
		Regions:  []Region{{}, {MaxIter: 1, Start: 0, End: 2}, {Parent: 1, MaxIter: 1, Start: 0, End: 1}},
	}
	p := mustLower(t, tr, Options{Guarded: always})
	if p.Gates != 2 || p.Steps[0].Kind != StepGate || p.Steps[0].Region != 1 {
		t.Errorf("a body that opens with a nested region must keep its gate: got %d gates, steps %+v", p.Gates, p.Steps)
	}
}

// TestACommandAfterAnEmptyNestedRegionKeepsTheLoopGated: in a top-level
// body [dispatch, empty If, copy] the copy belongs to the body, not to the
// empty If, so the body cannot latch (the copy needs a gate) and the copy
// gets a slot its gate writes.
func TestACommandAfterAnEmptyNestedRegionKeepsTheLoopGated(t *testing.T) {
	tr := Tree{
		Commands: []Command{small, cp},
		Regions:  []Region{{}, {MaxIter: 1, Start: 0, End: 2}, {Parent: 1, MaxIter: 1, Start: 1, End: 1}},
	}
	p := mustLower(t, tr, Options{Guarded: always})
	want := []Step{
		{Kind: StepGate, Command: -1, Region: 1, Enable: 0, Parent: NoParent, First: 0, Count: 1},
		{Kind: StepGuarded, Command: 0, Region: 1, Enable: 0},
		{Kind: StepGate, Command: -1, Region: 2, Enable: 1, Parent: 0, First: 1, Count: 0},
		{Kind: StepCopy, Command: 1, Region: 1, Slot: 0},
	}
	if diff := cmp.Diff(want, p.Steps); diff != "" {
		t.Errorf("the command after an empty nested If is gated by the loop (-want +got):\n%s", diff)
	}
}

// TestGuardedIsAskedOnlyOfSmallDirectBodyDispatches: the caller compiles a
// variant per question, so the plan never asks about top-level commands,
// copies, clears, indirect dispatches or dispatches too large to be
// predicated.
func TestGuardedIsAskedOnlyOfSmallDirectBodyDispatches(t *testing.T) {
	tr := Tree{
		Commands: []Command{small, small, cp, clr, ind, large, small},
		Regions:  []Region{{}, {MaxIter: 1, Start: 1, End: 6}},
	}
	type ask struct {
		Cmd   int
		Latch bool
	}
	var asked []ask
	mustLower(t, tr, Options{Guarded: func(cmd int, latch bool) bool {
		asked = append(asked, ask{cmd, latch})
		return true
	}})
	// Once to decide whether the loop latches (the copy ends that), once
	// to lower it.
	if diff := cmp.Diff([]ask{{1, true}, {1, false}}, asked); diff != "" {
		t.Errorf("Guarded must be asked only of small direct body dispatches (-want +got):\n%s", diff)
	}
}

// TestCopiesOverSixtyFiveThousandWorkgroupsSpillIntoY: a body copy runs as
// a kernel of one workgroup per 64 words, at most 65535 along x (WebGPU's
// maxComputeWorkgroupsPerDimension default), the rest along y.
func TestCopiesOverSixtyFiveThousandWorkgroupsSpillIntoY(t *testing.T) {
	big := Command{Kind: Copy, Words: 65535*64 + 1}
	tr := Tree{Commands: []Command{big}, Regions: []Region{{}, {MaxIter: 1, Start: 0, End: 1}}}
	p := mustLower(t, tr, Options{})
	if diff := cmp.Diff([][4]uint32{{0, 65535, 2, 1}}, entries(p.Table)); diff != "" {
		t.Errorf("65536 workgroups of copy are dispatched as 65535×2 (-want +got):\n%s", diff)
	}
}

// TestUnrollingPastTheLimitIsRefusedBeforeAnythingIsAsked: nested loops
// multiply; a tree whose count exceeds the limit fails with a
// *TooLongError before Guarded is asked (so no variant is compiled), and a
// tree of exactly the limit lowers.
func TestUnrollingPastTheLimitIsRefusedBeforeAnythingIsAsked(t *testing.T) {
	// While 4 { While 3 { small } }: 4 × (gate + 3 × (gate + 1)) = 28.
	tr := Tree{
		Commands: []Command{small},
		Regions:  []Region{{}, {MaxIter: 4, Start: 0, End: 1}, {Parent: 1, MaxIter: 3, Start: 0, End: 1}},
	}
	asked := 0
	_, err := Lower(tr, Options{Limit: 27, Guarded: func(int, bool) bool { asked++; return false }})
	var long *TooLongError
	if !errors.As(err, &long) || long.Limit != 27 {
		t.Fatalf("28 commands over a limit of 27: got %v, want a *TooLongError with Limit 27", err)
	}
	if asked != 0 {
		t.Errorf("a tree over the limit must be refused before Guarded is asked: asked %d times", asked)
	}
	p, err := Lower(tr, Options{Limit: 28})
	if err != nil {
		t.Fatalf("28 commands within a limit of 28: %v", err)
	}
	if len(p.Steps) != 28 {
		t.Errorf("the count must match the plan: got %d steps, want 28", len(p.Steps))
	}
}

// TestTheDefaultLimitRefusesAMaximalNestedLoop: two nested loops of 4096
// iterations unroll far past MaxCommands; the count stops early instead of
// overflowing.
func TestTheDefaultLimitRefusesAMaximalNestedLoop(t *testing.T) {
	tr := Tree{
		Commands: []Command{small},
		Regions: []Region{{}, {MaxIter: 4096, Start: 0, End: 1}, {Parent: 1, MaxIter: 4096, Start: 0, End: 1},
			{Parent: 2, MaxIter: 4096, Start: 0, End: 1}},
	}
	_, err := Lower(tr, Options{})
	var long *TooLongError
	if !errors.As(err, &long) || long.Limit != MaxCommands || long.Commands != 0 {
		t.Fatalf("got %v, want a *TooLongError{Commands: 0, Limit: MaxCommands}", err)
	}
}

// TestMalformedTreesAreRefused: a tree whose regions do not nest inside
// their parents, overlap their siblings, point at later parents, bound
// commands the tree lacks or have no iterations fails with ErrMalformed
// instead of producing a plan.
func TestMalformedTreesAreRefused(t *testing.T) {
	cmds := []Command{small, small, small, small}
	for name, regions := range map[string][]Region{
		"no top level":            nil,
		"parent after itself":     {{}, {Parent: 2, MaxIter: 1, Start: 0, End: 1}, {MaxIter: 1, Start: 1, End: 2}},
		"negative parent":         {{}, {Parent: -1, MaxIter: 1, Start: 0, End: 1}},
		"no iterations":           {{}, {MaxIter: 0, Start: 0, End: 1}},
		"end before start":        {{}, {MaxIter: 1, Start: 2, End: 1}},
		"past the last command":   {{}, {MaxIter: 1, Start: 2, End: 5}},
		"outside its parent":      {{}, {MaxIter: 1, Start: 0, End: 2}, {Parent: 1, MaxIter: 1, Start: 1, End: 3}},
		"overlapping its sibling": {{}, {MaxIter: 1, Start: 0, End: 2}, {MaxIter: 1, Start: 1, End: 3}},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := Lower(Tree{Commands: cmds, Regions: regions}, Options{})
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("a malformed tree must fail with ErrMalformed: got plan %v, error %v", p != nil, err)
			}
		})
	}
}

// TestPlanningTwiceGivesTheSamePlan: the plan depends only on the tree and
// Guarded's answers, so lowering a graph again (Rebind) lays it out as the
// capture did.
func TestPlanningTwiceGivesTheSamePlan(t *testing.T) {
	tr := Tree{
		Commands: []Command{small, cp, ind, small, large, clr},
		Regions:  []Region{{}, {MaxIter: 3, Start: 1, End: 5}, {Parent: 1, MaxIter: 2, Start: 2, End: 4}},
	}
	guarded := func(cmd int, latch bool) bool { return cmd%2 == 1 || !latch }
	a := mustLower(t, tr, Options{Guarded: guarded})
	b := mustLower(t, tr, Options{Guarded: guarded})
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("the same tree must plan the same (-first +second):\n%s", diff)
	}
	if len(a.Steps) == 0 {
		t.Error("the tree must lower to some steps")
	}
}
