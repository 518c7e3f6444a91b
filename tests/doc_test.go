package tests

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocListsEveryTestFile: the package comment in doc.go says what each
// test file proves, one "  - name_test.go: ..." item per file. A file added
// without its line, or a line left for a file that was removed or renamed,
// makes doc.go a wrong map of the suite; this compares the two lists. It
// needs no GPU.
func TestDocListsEveryTestFile(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatalf("parsing doc.go: %v", err)
	}
	if f.Doc == nil {
		t.Fatal("doc.go has no package comment")
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^\s*- (\S+_test\.go): \S`).FindAllStringSubmatch(f.Doc.Text(), -1) {
		listed = append(listed, m[1])
	}
	present, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(present) == 0 {
		t.Fatal("found no test file in the package directory")
	}
	slices.Sort(present)
	unique := slices.Compact(slices.Sorted(slices.Values(listed)))
	if len(unique) != len(listed) {
		t.Errorf("doc.go must list each test file once; it lists %v", listed)
	}
	if d := cmp.Diff(present, unique); d != "" {
		t.Errorf("doc.go must list every *_test.go file of tests/ and no other (-present +listed):\n%s", d)
	}
}
