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
)

// The characterisation harness pins what Specialize makes of every WGSL
// module the repository holds: the shipped shaders, and every string
// literal of the Go tests that looks like a module. A refactoring of the
// front end that changes no behaviour leaves every record byte-identical.
//
// SOFTGRAPH_WGSL_CHARACTERIZE=DIR writes one record per module and
// specialisation into DIR; compare two such directories with diff -r.

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

func TestCharacterizeSpecialize(t *testing.T) {
	dir := os.Getenv("SOFTGRAPH_WGSL_CHARACTERIZE")
	if dir == "" {
		t.Skip("characterisation records: set SOFTGRAPH_WGSL_CHARACTERIZE=DIR")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	srcs := characterizeSources(t)
	names := make([]string, 0, len(srcs))
	for n := range srcs {
		names = append(names, n)
	}
	sort.Strings(names)
	var index strings.Builder
	records := 0
	for _, name := range names {
		src := srcs[name]
		var rec strings.Builder
		fmt.Fprintf(&rec, "== %s\n", name)
		entries, err := EntryPoints(src, StageCompute)
		if err != nil {
			fmt.Fprintf(&rec, "EntryPoints: %T %v\n", err, err)
		}
		var overrides []string
		if m, err := parse(src); err == nil {
			for _, o := range m.overrides {
				overrides = append(overrides, o.name)
			}
		}
		constSets := []map[string]float64{nil}
		if len(overrides) > 0 {
			c := map[string]float64{}
			for _, o := range overrides {
				c[o] = 3
			}
			constSets = append(constSets, c)
		}
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
					records++
				}
			}
		}
		sum := sha256.Sum256([]byte(name))
		file := hex.EncodeToString(sum[:8]) + ".txt"
		if err := os.WriteFile(filepath.Join(dir, file), []byte(rec.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&index, "%s %s\n", file, name)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.txt"), []byte(index.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d modules, %d specialisations recorded in %s", len(names), records, dir)
}
