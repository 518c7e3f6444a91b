package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository, from this package's directory.
const root = "../../.."

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// source returns the source of the example's command (its non-test Go
// files), in which a flag it defines appears as its quoted name.
func source(t *testing.T, example string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "examples", example, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the README names examples/%s, which has no Go files: %v", example, err)
	}
	var b strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
	}
	return b.String()
}

// defines reports whether src defines the flag name (flag.Bool("quick", …),
// fs.IntVar(&x, "rounds", …) and the like).
func defines(src, name string) bool {
	return regexp.MustCompile(`\b(flag|fs)\.[A-Z][A-Za-z0-9]*\((&[^,]+, )?"` + regexp.QuoteMeta(name) + `"`).MatchString(src)
}

// TestEveryExampleCommandInTheReadmeUsesFlagsTheExampleHas: each
// `go run ./examples/NAME -flag …` in README.md passes only flags NAME
// defines; a flag renamed or removed would send a new user's first command
// to a usage error.
func TestEveryExampleCommandInTheReadmeUsesFlagsTheExampleHas(t *testing.T) {
	cmds := regexp.MustCompile("`go run (?:-tags \\w+ )?\\./examples/(\\w+)([^`]*)`").FindAllStringSubmatch(readme(t), -1)
	if len(cmds) < 2 {
		t.Fatalf("found %d go run commands in README.md; it has at least compute's and headless's", len(cmds))
	}
	for _, c := range cmds {
		src := source(t, c[1])
		for _, f := range regexp.MustCompile(`(?:^|\s)-(\w[\w-]*)`).FindAllStringSubmatch(c[2], -1) {
			if !defines(src, f[1]) {
				t.Errorf("README.md runs %q, but examples/%s defines no -%s", c[0], c[1], f[1])
			}
		}
	}
}

// TestEveryListedExampleHasQuick: the README lists the longer examples
// "each with -quick"; each one it names must define -quick, and coregpu,
// a module of its own that fails to build headless without the offscreen
// tag, must be listed with the tag.
func TestEveryListedExampleHasQuick(t *testing.T) {
	text := readme(t)
	i := strings.Index(text, "More examples, each with `-quick`")
	if i < 0 {
		t.Fatal("README.md has no list of the examples with -quick (\"More examples, each with `-quick`\")")
	}
	para := text[i:]
	if j := strings.Index(para, "\n\n"); j >= 0 {
		para = para[:j]
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`examples/(\\w+)").FindAllStringSubmatch(para, -1) {
		listed[m[1]] = true
		if !defines(source(t, m[1]), "quick") {
			t.Errorf("README.md lists examples/%s as having -quick; it defines no -quick", m[1])
		}
	}
	if len(listed) < 6 {
		t.Errorf("the list names %d examples, want the six longer ones and coregpu: %v", len(listed), listed)
	}
	if !listed["coregpu"] || !regexp.MustCompile(`go run -tags offscreen \. -quick`).MatchString(para) {
		t.Errorf("the list must give coregpu's command with -tags offscreen:\n%s", para)
	}
}

// TestTheReadmeTypesNoCountThatGoesStale: how many test binaries the
// suite links changes with every package; the README says how to count
// them instead of a number.
func TestTheReadmeTypesNoCountThatGoesStale(t *testing.T) {
	if m := regexp.MustCompile(`\b\d+ test binaries`).FindString(readme(t)); m != "" {
		t.Errorf("README.md says %q: a typed count goes stale; say how to count them (go list)", m)
	}
}
