package wgpu_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/softgraph/softgraph/internal/driver"
	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
	"github.com/softgraph/softgraph/wgpu/internal/wgsl"
)

// TestCheckedVariantsOfTheCorpusCompile: for every compute entry point of
// the shader corpus that compiles, the checked variant (wgsl.Check, the
// text a stream WithChecks compiles) compiles too on this adapter, whose
// naga is v22's, and reflects the entry point's bindings plus the checks'
// two; an entry point with no group left is refused with
// ErrInvalidArgument, never with a compile error. Without it a rewrite
// naga v22 refuses showed up only when a user turned checks on.
func TestCheckedVariantsOfTheCorpusCompile(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	drv, err := driver.Of(d)
	if err != nil {
		t.Fatal(err)
	}
	checker, ok := drv.(driver.Checker)
	if !ok {
		t.Fatal("the wgpu driver makes no checked variants")
	}
	var files []string
	for _, g := range []string{"../shaders/*.wgsl", "../shaders/testdata/wgsl/*.wgsl"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found %d WGSL files; the corpus has well over 100", len(files))
	}
	compiled, checked := 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := wgsl.EntryPoints(string(src), wgsl.StageCompute)
		if err != nil {
			continue
		}
		for _, e := range entries {
			k, err := d.Kernel(string(src), e)
			if err != nil {
				continue // needs constants, or refused as written: not this test's
			}
			compiled++
			kv, err := drv.Kernel(k)
			if err != nil {
				t.Fatal(err)
			}
			v, l, sites, err := checker.Checked(kv)
			switch {
			case errors.Is(err, wgpu.ErrInvalidArgument):
				t.Logf("%s: entry %s: %v", filepath.Base(f), e, err)
				continue
			case err != nil:
				t.Errorf("%s: entry %s: the checked variant does not compile: %v", filepath.Base(f), e, err)
				continue
			case len(sites) == 0:
				continue
			}
			checked++
			if got, want := len(v.Resources()), len(kv.Resources())+2; got != want || v.WorkgroupSize() != kv.WorkgroupSize() {
				t.Errorf("%s: entry %s: the variant binds %d resources (want %d) in %d groups, layout %+v, workgroup %v (want %v)",
					filepath.Base(f), e, got, want, v.Groups(), l, v.WorkgroupSize(), kv.WorkgroupSize())
			}
		}
	}
	t.Logf("%d entry points compiled; %d checked variants compiled", compiled, checked)
	if checked < 20 {
		t.Errorf("only %d checked variants: the corpus indexes bindings in far more kernels", checked)
	}
}
