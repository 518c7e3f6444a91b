package wgsl

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	goparser "go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The characterisation harness pins what Specialize makes of every WGSL
// module the repository holds: the shipped shaders, and every string
// literal of the Go tests that looks like a module. A refactoring of the
// front end that changes no behaviour leaves every record byte-identical.
//

// characterizeSources collects the modules: name → source.
func characterizeSources(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..", "..", "..")
	out := map[string]string{}
	for _, glob := range []string{"shaders/*.wgsl", "recorder/*.wgsl", "examples/*/*.wgsl"} {
		files, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, f)
			out[rel] = string(b)
		}
	}
	for _, glob := range []string{"shaders/*.go", "tests/*.go", "wgpu/*.go", "recorder/*.go", "internal/*/*.go", "wgpu/internal/wgsl/*_test.go", "examples/*/*.go"} {
		files, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(root, f)
			for i, s := range characterizeLiterals(t, f) {
				out[fmt.Sprintf("%s#%03d", rel, i)] = s
			}
		}
	}
	return out
}

// characterizeLiterals is every maximal constant string expression of the
// Go file (literals joined by +) that declares a WGSL function.
func characterizeLiterals(t *testing.T, path string) []string {
	t.Helper()
	fset := gotoken.NewFileSet()
	f, err := goparser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var fold func(e ast.Expr) (string, bool)
	fold = func(e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind != gotoken.STRING {
				return "", false
			}
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		case *ast.ParenExpr:
			return fold(e.X)
		case *ast.BinaryExpr:
			if e.Op != gotoken.ADD {
				return "", false
			}
			x, ok := fold(e.X)
			if !ok {
				return "", false
			}
			y, ok := fold(e.Y)
			return x + y, ok
		}
		return "", false
	}
	ast.Inspect(f, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		s, ok := fold(e)
		if !ok {
			return true
		}
		if strings.Contains(s, "fn ") {
			out = append(out, s)
		}
		return false // a folded expression's parts are not modules of their own
	})
	return out
}

// characterizeModule is the record of every specialisation of src: each
// compute entry point, with the overrides at their defaults and (when the
// module has overrides) all set to 3, for OpenGL and for the other
// backends; a Kernel as JSON, an error as its type and message.
func characterizeModule(t *testing.T, name, src string) (string, int) {
	t.Helper()
	var rec strings.Builder
	fmt.Fprintf(&rec, "== %s\n", name)
	entries, err := EntryPoints(src, StageCompute)
	if err != nil {
		fmt.Fprintf(&rec, "EntryPoints: %T %v\n", err, err)
	}
	constSets := []map[string]float64{nil}
	if m, err := parse(src); err == nil && len(m.overrides) > 0 {
		c := map[string]float64{}
		for _, o := range m.overrides {
			c[o.name] = 3
		}
		constSets = append(constSets, c)
	}
	kernels := 0
	for _, entry := range entries {
		for ci, consts := range constSets {
			for _, gl := range []bool{false, true} {
				fmt.Fprintf(&rec, "-- entry %s constants %d opengl %v\n", entry, ci, gl)
				k, err := Specialize(src, entry, Options{Constants: consts, OpenGL: gl})
				if err != nil {
					fmt.Fprintf(&rec, "error %T: %v\n", err, err)
					continue
				}
				j, err := json.MarshalIndent(k, "", " ")
				if err != nil {
					t.Fatal(err)
				}
				rec.Write(j)
				rec.WriteString("\n")
				kernels++
			}
		}
	}
	return rec.String(), kernels
}

// TestSpecializeIsDeterministicOnEveryRepositoryModule: the rewrite of a
// module is a function of the module and the options alone, so a cached
// pipeline, a saved graph and a compiler diagnostic are the same on every
// run. It would break if an edit's order followed a map's iteration order.
// Each module of the repository is specialised twice, in every way
// characterizeModule does, and the two records must match.
//
// With SOFTGRAPH_WGSL_CHARACTERIZE=DIR it also writes one record per module
// into DIR (index.txt names them): a refactoring of the front end that
// changes no behaviour leaves every record byte-identical, which diff -r
// of the directories written before and after shows.
func TestSpecializeIsDeterministicOnEveryRepositoryModule(t *testing.T) {
	dir := os.Getenv("SOFTGRAPH_WGSL_CHARACTERIZE")
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srcs := characterizeSources(t)
	if len(srcs) < 100 {
		t.Fatalf("found %d WGSL modules in the repository, want hundreds: the search paths are wrong", len(srcs))
	}
	names := make([]string, 0, len(srcs))
	for n := range srcs {
		names = append(names, n)
	}
	sort.Strings(names)
	var index strings.Builder
	kernels := 0
	for _, name := range names {
		first, n := characterizeModule(t, name, srcs[name])
		second, _ := characterizeModule(t, name, srcs[name])
		if diff := cmp.Diff(first, second); diff != "" {
			t.Errorf("%s: two specialisations of one module differ (-first +second); the rewrite must be deterministic:\n%s", name, diff)
		}
		kernels += n
		if dir == "" {
			continue
		}
		sum := sha256.Sum256([]byte(name))
		file := hex.EncodeToString(sum[:8]) + ".txt"
		if err := os.WriteFile(filepath.Join(dir, file), []byte(first), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&index, "%s %s\n", file, name)
	}
	if dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "index.txt"), []byte(index.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d modules, %d kernels", len(names), kernels)
}
