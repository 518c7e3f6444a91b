package shaders_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/softgraph/softgraph/tests/gputest"
	"github.com/softgraph/softgraph/wgpu"
)

var (
	// corpusModule is a raw string literal of the test suites holding a
	// compute entry point; corpusEntry its entry points' names.
	corpusModule = regexp.MustCompile("(?s)`([^`]*@compute[^`]*)`")
	corpusEntry  = regexp.MustCompile(`@compute[^{]*?fn\s+([A-Za-z_]\w*)`)
)

// TestCorpusKernelsThatArePointwiseFuseAndCompile: every kernel of the
// shipped and test corpora that the analysis accepts fuses with itself
// (two parts, each with bindings of its own) into a module the device
// compiles, and every refusal is a *PointwiseError or the module's own
// error, never a panic. The generator's renaming is thus exercised on
// real-world code, not only on the shipped kernels; the suite also proves
// the analysis accepts some of it.
func TestCorpusKernelsThatArePointwiseFuseAndCompile(t *testing.T) {
	d := gputest.Open(t, wgpu.Options{})
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	wgslFiles, err := filepath.Glob("*.wgsl")
	if err != nil {
		t.Fatal(err)
	}
	var modules []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range corpusModule.FindAllStringSubmatch(string(b), -1) {
			modules = append(modules, m[1])
		}
	}
	for _, f := range wgslFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		modules = append(modules, string(b))
	}
	accepted, refused := 0, 0
	for _, src := range modules {
		for _, m := range corpusEntry.FindAllStringSubmatch(src, -1) {
			entry := m[1]
			pw, err := wgpu.AnalyzePointwise(src, entry)
			if err != nil {
				var pe *wgpu.PointwiseError
				if errors.As(err, &pe) {
					refused++
				}
				continue
			}
			accepted++
			n := uint32(len(pw.Resources))
			part := func(base uint32) wgpu.FusePart {
				p := wgpu.FusePart{Source: src, Entry: entry, Slots: make([]uint32, n), ReadWrite: make([]bool, n)}
				for i := range p.Slots {
					p.Slots[i] = base + uint32(i)
				}
				return p
			}
			fused, fentry, err := wgpu.FuseSource([]wgpu.FusePart{part(0), part(n)})
			if err != nil {
				t.Errorf("%s: FuseSource of a pointwise kernel with itself: %v", entry, err)
				continue
			}
			k, err := d.Kernel(fused, fentry, wgpu.Private())
			if err != nil {
				t.Errorf("%s: the fused module does not compile: %v\n%s", entry, err, fused)
				continue
			}
			if got, want := len(k.Bindings()), 2*int(n)+1; got != want {
				t.Errorf("%s: the fused kernel binds %d resources, want %d (each part's own and the zero words)", entry, got, want)
			}
			k.Release()
		}
	}
	t.Logf("%d kernels pointwise, %d refused with a reason, of %d modules", accepted, refused, len(modules))
	if accepted < 7 || refused < 20 {
		t.Errorf("%d kernels accepted and %d refused; the corpus holds at least the 7 shipped elementwise kernels and many more refusals", accepted, refused)
	}
}
