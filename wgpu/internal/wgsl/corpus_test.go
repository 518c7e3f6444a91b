package wgsl_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/softgraph/softgraph/wgpu/internal/wgsl"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/*.golden from the WGSL corpus")

// corpusGlobs are the WGSL files the golden corpus covers: the shaders
// package ships the first, and its tests run the second on an adapter.
var corpusGlobs = []string{
	"../../../shaders/*.wgsl",
	"../../../shaders/testdata/wgsl/*.wgsl",
}

// TestCorpusRewriteAndLayoutMatchGolden: for every WGSL file of the shader
// corpus, what the front end makes of each compute entry point, the way
// wgpu.Device.Kernel calls it (Specialize, once for a Vulkan-like backend
// and once with OpenGL), matches testdata/corpus/NAME.golden: the lines the
// rewrite changes, the helpers it appends, the workgroup size and storage,
// the overrides' values and the reflected bindings. It needs no GPU, so a
// change to the rewrite or the reflection shows up here, line by line, before
// any adapter compiles the result. Run with -update to accept a change
// after reading its diff.
func TestCorpusRewriteAndLayoutMatchGolden(t *testing.T) {
	var files []string
	for _, g := range corpusGlobs {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found %d WGSL files under %v; the corpus has well over 100", len(files), corpusGlobs)
	}
	names := map[string]string{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".wgsl")
		if prev, ok := names[name]; ok {
			t.Fatalf("%s and %s would share the golden file %s.golden", prev, f, name)
		}
		names[name] = f
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := describeCorpusFile(string(src))
			golden := filepath.Join("testdata", "corpus", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run Corpus -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("what the front end makes of %s changed (-golden +now); if intended, rerun with -update:\n%s", f, diff)
			}
		})
	}
	// A golden file whose WGSL file went away would pass unnoticed forever.
	goldens, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goldens {
		name := strings.TrimSuffix(filepath.Base(g), ".golden")
		if _, ok := names[name]; ok {
			continue
		}
		if *update {
			if err := os.Remove(g); err != nil {
				t.Error(err)
			}
			continue
		}
		t.Errorf("%s has no WGSL file %s.wgsl in %v; remove it (or rerun with -update)", g, name, corpusGlobs)
	}
}

// describeCorpusFile is the golden text of one WGSL module: each compute
// entry point specialised for both backend families.
func describeCorpusFile(src string) string {
	var b strings.Builder
	entries, err := wgsl.EntryPoints(src, wgsl.StageCompute)
	if err != nil {
		fmt.Fprintf(&b, "entry points: error: %v\n", err)
		return b.String()
	}
	if len(entries) == 0 {
		b.WriteString("no compute entry points\n")
	}
	for _, e := range entries {
		vulkan := describeEntry(src, e, false)
		gl := describeEntry(src, e, true)
		fmt.Fprintf(&b, "== entry %s\n%s", e, vulkan)
		if gl == vulkan {
			b.WriteString("-- on OpenGL: the same\n")
		} else {
			fmt.Fprintf(&b, "-- on OpenGL:\n%s", gl)
		}
	}
	return b.String()
}

// describeEntry specialises one entry point. An override without a default
// (one the shader's test sets through constants) is given 1, the value that
// is valid for every override type, and the golden says so.
func describeEntry(src, entry string, openGL bool) string {
	var b strings.Builder
	constants := map[string]float64{}
	var k *wgsl.Kernel
	var err error
	for range 64 {
		k, err = wgsl.Specialize(src, entry, wgsl.Options{Constants: constants, OpenGL: openGL})
		var oe *wgsl.OverrideError
		if !errors.As(err, &oe) || !errors.Is(err, wgsl.ErrMissingOverride) || oe.Override == "" {
			break
		}
		constants[oe.Override] = 1
	}
	if len(constants) > 0 {
		fmt.Fprintf(&b, "constants given: %s\n", sortedValues(constants))
	}
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
		return b.String()
	}
	if k.Entry != entry {
		fmt.Fprintf(&b, "entry renamed: %s\n", k.Entry)
	}
	fmt.Fprintf(&b, "workgroup size: %v\n", k.WorkgroupSize)
	fmt.Fprintf(&b, "workgroup storage: %d\n", k.WorkgroupStorage)
	if len(k.Overrides) > 0 {
		fmt.Fprintf(&b, "overrides: %s\n", sortedValues(k.Overrides))
	}
	for _, r := range k.Resources {
		fmt.Fprintf(&b, "binding %s\n", describeResource(r))
	}
	b.WriteString(rewriteDiff(src, k.Source))
	return b.String()
}

func sortedValues(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, " ")
}

func describeResource(r wgsl.Resource) string {
	s := fmt.Sprintf("@group(%d) @binding(%d) %s: %v %s", r.Group, r.Binding, r.Name, r.Kind, r.Type)
	if r.MinSize != 0 {
		s += fmt.Sprintf(" minSize=%d", r.MinSize)
	}
	if r.Access != 0 {
		s += fmt.Sprintf(" access=%v", r.Access)
	}
	if r.Dim != 0 {
		s += fmt.Sprintf(" dim=%v", r.Dim)
	}
	if r.SampleType != 0 {
		s += fmt.Sprintf(" sample=%v", r.SampleType)
	}
	if r.Multisampled {
		s += " multisampled"
	}
	if r.Filtered {
		s += " filtered"
	}
	if r.Format != "" {
		s += " format=" + r.Format
	}
	if r.StorageOnGL {
		s += " storageOnGL"
	}
	return s
}

// rewriteDiff lists the lines the rewrite changed, by line number (the
// rewrite keeps every line where it was), then the lines it appended.
func rewriteDiff(src, out string) string {
	a, b := strings.Split(src, "\n"), strings.Split(out, "\n")
	var s strings.Builder
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			fmt.Fprintf(&s, "line %d\n  - %s\n  + %s\n", i+1, a[i], b[i])
		}
	}
	if len(b) < len(a) {
		fmt.Fprintf(&s, "lines %d to %d dropped\n", len(b)+1, len(a))
	}
	if len(b) > len(a) {
		s.WriteString("appended\n")
		for _, l := range b[len(a):] {
			fmt.Fprintf(&s, "  + %s\n", l)
		}
	}
	if s.Len() == 0 {
		return "source unchanged\n"
	}
	return s.String()
}
